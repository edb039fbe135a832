package lindecision

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/sparse"
)

// gauss is a test distribution N(0, s²).
type gauss struct{ s float64 }

func (g gauss) Mean() float64              { return 0 }
func (g gauss) Variance() float64          { return g.s * g.s }
func (g gauss) Quantile(p float64) float64 { return g.s * stdNormalQuantile(p) }
func (g gauss) Support() (float64, float64) {
	return math.Inf(-1), math.Inf(1)
}

// randomProblem returns a random problem with a zero block, a nonnegative
// block and a second-order block, and a random PSD P.
func randomProblem(rng *rand.Rand, n int) *solver.Problem {
	m0, m1, m2 := 2, 4, 3
	m := m0 + m1 + m2
	tr := sparse.NewTriplets(m, n, 0)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			if rng.Float64() < 0.6 {
				tr.Append(i, j, rng.NormFloat64())
			}
		}
	}
	b := make([]float64, m)
	q := make([]float64, n)
	for i := range b {
		b[i] = rng.NormFloat64()
	}
	for i := range q {
		q[i] = rng.NormFloat64()
	}
	// P = GᵀG, upper triangle.
	g := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			g.Set(i, j, rng.NormFloat64())
		}
	}
	var pd mat.Dense
	pd.Mul(g.T(), g)
	pt := sparse.NewTriplets(n, n, 0)
	for j := 0; j < n; j++ {
		for i := 0; i <= j; i++ {
			pt.Append(i, j, pd.At(i, j))
		}
	}
	return &solver.Problem{P: pt.ToCSC(), Q: q, R: 0.7, A: tr.ToCSC(), B: b,
		Cones: []cone.Cone{cone.NewZero(m0), cone.NewNonnegative(m1), cone.NewSecondOrder(m2)}}
}

func TestSlackMatchesDirectEvaluation(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	checked := 0
	defer func() {
		if checked < 25 {
			t.Errorf("only %d of 50 random problems were checked", checked)
		}
	}()
	for trial := 0; trial < 50; trial++ {
		n := 5
		p := randomProblem(rng, n)
		spec := Spec{
			Noise: Perturbation{Components: []Distribution{gauss{1}, gauss{2}, gauss{0.5}}},
			Query: []SparseVector{{Idx: []int{0}, Val: []float64{2}}, {Idx: []int{1, 2}, Val: []float64{1, 1}}, {Idx: []int{1, 3}, Val: []float64{1, -1}}},
			Recourse: Recourse{
				Pattern: map[int][]int{4: {0, 2}},
			},
		}
		l, err := Lift(p, spec)
		if err != nil {
			var inf *InfeasibleError
			if errors.As(err, &inf) {
				continue // random equality rows may be structurally infeasible
			}
			t.Fatal(err)
		}
		if !l.QueryFixed(0) || l.XFixed(0, 0) != 0.5 || l.XCol(0, 1) != -1 {
			t.Fatalf("query row 0 should fix X[0] = e0/2: fixed %v, X00 %v", l.QueryFixed(0), l.XFixed(0, 0))
		}
		if l.XCol(4, 1) != -1 || l.XCol(4, 0) < 0 {
			t.Fatalf("pattern not respected")
		}
		v := make([]float64, l.NumVars())
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		rule, err := l.Rule(v)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		zeta := []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		x := rule.Apply(nil, zeta)
		ax := p.A.MulVecTo(nil, 1, x, 0)
		for i := 0; i < p.NumRows(); i++ {
			want := p.B[i] - ax[i]
			got := l.Slack(i).Eval(v, zeta)
			if math.Abs(got-want) > 1e-10*(1+math.Abs(want)) {
				t.Fatalf("trial %d row %d: slack %v, direct %v", trial, i, got, want)
			}
		}
	}
}

func TestExpectedObjectiveClosedForm(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n := 4
	p := randomProblem(rng, n)
	p.Cones = []cone.Cone{cone.NewNonnegative(9)} // no equalities: no structural infeasibility
	cov := mat.NewSymDense(2, []float64{2, 0.6, 0.6, 1})
	for _, withCov := range []bool{false, true} {
		spec := Spec{
			Noise: Perturbation{Components: []Distribution{gauss{math.Sqrt(2)}, gauss{1}}},
			Query: []SparseVector{{Idx: []int{1}, Val: []float64{1}}, {Idx: []int{0, 3}, Val: []float64{1, 2}}},
		}
		if withCov {
			spec.Noise.Covariance = cov
		}
		l, err := Lift(p, spec)
		if err != nil {
			t.Fatal(err)
		}
		sigma := spec.Noise.Sigma()
		pf := mat.NewDense(n, n, nil)
		for j := 0; j < n; j++ {
			for q := p.P.ColPtr[j]; q < p.P.ColPtr[j+1]; q++ {
				i := p.P.RowIdx[q]
				pf.Set(i, j, p.P.Val[q])
				pf.Set(j, i, p.P.Val[q])
			}
		}
		lp, lq, lr := l.Objective()
		lpf := symFull(lp)
		for trial := 0; trial < 20; trial++ {
			v := make([]float64, l.NumVars())
			for i := range v {
				v[i] = rng.NormFloat64()
			}
			rule, _ := l.Rule(v)
			// Closed form ½x̄ᵀPx̄ + ½Tr(XᵀPXΣ) + qᵀx̄ + r.
			xb := mat.NewVecDense(n, rule.XBar)
			want := 0.5*mat.Inner(xb, pf, xb) + mat.Dot(mat.NewVecDense(n, p.Q), xb) + p.R
			var t0, t1, t2 mat.Dense
			t0.Mul(rule.X.T(), pf)
			t1.Mul(&t0, rule.X)
			t2.Mul(&t1, sigma)
			want += 0.5 * mat.Trace(&t2)
			vv := mat.NewVecDense(len(v), v)
			got := 0.5*mat.Inner(vv, lpf, vv) + mat.Dot(mat.NewVecDense(len(v), lq), vv) + lr
			if math.Abs(got-want) > 1e-9*(1+math.Abs(want)) {
				t.Fatalf("cov %v trial %d: lifted objective %v, closed form %v", withCov, trial, got, want)
			}
		}
	}
}

func symFull(u *sparse.CSC) *mat.Dense {
	d := mat.NewDense(u.Rows, u.Cols, nil)
	for j := 0; j < u.Cols; j++ {
		for q := u.ColPtr[j]; q < u.ColPtr[j+1]; q++ {
			i := u.RowIdx[q]
			d.Set(i, j, d.At(i, j)+u.Val[q])
			if i != j {
				d.Set(j, i, d.At(j, i)+u.Val[q])
			}
		}
	}
	return d
}

func TestEqualityRowsRemark35(t *testing.T) {
	// x0 + x1 = 3 (zero cone), identity query on x0, x1 free: the lifted program
	// must contain x̄0 + x̄1 − 3 = 0 and X10 = −1 (so that 1ᵀX = 0).
	a := sparse.NewTriplets(1, 2, 2)
	a.Append(0, 0, 1)
	a.Append(0, 1, 1)
	p := &solver.Problem{Q: []float64{1, 1}, A: a.ToCSC(), B: []float64{3}, Cones: []cone.Cone{cone.NewZero(1)}}
	l, err := Lift(p, Spec{Noise: Perturbation{Components: []Distribution{gauss{1}}}, Query: []SparseVector{{Idx: []int{0}, Val: []float64{1}}}})
	if err != nil {
		t.Fatal(err)
	}
	if l.NumEqualities() != 2 {
		t.Fatalf("got %d equalities, want 2", l.NumEqualities())
	}
	v := []float64{1, 2, -1} // x̄ = (1,2), X10 = −1
	for e := 0; e < 2; e++ {
		f, row := l.Equality(e)
		if row != 0 || math.Abs(f.Eval(v)) > 1e-15 {
			t.Fatalf("equality %d (row %d) = %v at a feasible point, want 0", e, row, f.Eval(v))
		}
	}
	// With x1's recourse fixed to zero, the noise cannot be compensated.
	_, err = Lift(p, Spec{Noise: Perturbation{Components: []Distribution{gauss{1}}}, Query: []SparseVector{{Idx: []int{0}, Val: []float64{1}}}, Recourse: Recourse{Zero: []int{1}}})
	if !errors.Is(err, ErrInfeasible) {
		t.Fatalf("want ErrInfeasible, got %v", err)
	}
}

func TestLiftValidation(t *testing.T) {
	a := sparse.NewTriplets(1, 1, 1)
	a.Append(0, 0, 1)
	p := &solver.Problem{Q: []float64{1}, A: a.ToCSC(), B: []float64{1}, Cones: []cone.Cone{cone.NewNonnegative(1)}}
	cases := map[string]Spec{
		"no noise":      {},
		"nonzero mean":  {Noise: Perturbation{Components: []Distribution{shifted{}}}},
		"query rows":    {Noise: Perturbation{Components: []Distribution{gauss{1}}}, Query: []SparseVector{{Idx: []int{0}, Val: []float64{1}}, {Idx: []int{0}, Val: []float64{1}}}},
		"query column":  {Noise: Perturbation{Components: []Distribution{gauss{1}}}, Query: []SparseVector{{Idx: []int{3}, Val: []float64{1}}}},
		"pattern range": {Noise: Perturbation{Components: []Distribution{gauss{1}}}, Recourse: Recourse{Pattern: map[int][]int{0: {4}}}},
	}
	for name, spec := range cases {
		if _, err := Lift(p, spec); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: want ErrInvalid, got %v", name, err)
		}
	}
}

type shifted struct{ gauss }

func (shifted) Mean() float64 { return 0.5 }

func TestSampleCovariance(t *testing.T) {
	// Empirical covariance of 2·10⁵ correlated Gaussian draws within 4 standard
	// errors of Σ (false-failure probability < 1e-3 per entry).
	cov := mat.NewSymDense(2, []float64{4, 1.2, 1.2, 1})
	p := Perturbation{Components: []Distribution{gauss{2}, gauss{1}}, Covariance: cov}
	f, err := p.Factor()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	const n = 200000
	var s00, s01, s11 float64
	z := make([]float64, 2)
	for i := 0; i < n; i++ {
		p.Sample(z, rng.Uint64, f)
		s00 += z[0] * z[0]
		s01 += z[0] * z[1]
		s11 += z[1] * z[1]
	}
	for _, c := range []struct{ got, want, se float64 }{
		{s00 / n, 4, 4 * math.Sqrt2 / math.Sqrt(n)},
		{s01 / n, 1.2, math.Sqrt((4*1 + 1.2*1.2) / n)},
		{s11 / n, 1, math.Sqrt2 / math.Sqrt(n)},
	} {
		if math.Abs(c.got-c.want) > 4*c.se {
			t.Errorf("covariance entry %v, want %v ± %v", c.got, c.want, 4*c.se)
		}
	}
}

func TestRecourseKinds(t *testing.T) {
	// Four columns: 0 query-fixed (identity), 1 user-fixed, 2 zero, 3 pattern
	// {1}; k = 2 with query rows e0 and e3 + e1 (the second is an equality).
	a := sparse.NewTriplets(1, 4, 4)
	for j := 0; j < 4; j++ {
		a.Append(0, j, 1)
	}
	p := &solver.Problem{Q: []float64{1, 1, 1, 1}, A: a.ToCSC(), B: []float64{10}, Cones: []cone.Cone{cone.NewNonnegative(1)}}
	l, err := Lift(p, Spec{
		Noise:    Perturbation{Components: []Distribution{gauss{1}, gauss{1}}},
		Query:    []SparseVector{{Idx: []int{0}, Val: []float64{1}}, {Idx: []int{3, 1}, Val: []float64{1, 1}}},
		Recourse: Recourse{Fixed: map[int][]float64{1: {0, 0.25}}, Zero: []int{2}, Pattern: map[int][]int{3: {1}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		col   int
		fixed float64
	}
	for i, row := range [][2]want{
		{{-1, 1}, {-1, 0}},    // identity query fixes X0 = e0
		{{-1, 0}, {-1, 0.25}}, // user-fixed
		{{-1, 0}, {-1, 0}},    // zero recourse
		{{-1, 0}, {4, 0}},     // pattern: only X31 free (column 4)
	} {
		for j, w := range row {
			if c := l.XCol(i, j); c != w.col || (c < 0 && l.XFixed(i, j) != w.fixed) {
				t.Errorf("X[%d][%d]: column %d fixed %v, want column %d fixed %v", i, j, c, l.XFixed(i, j), w.col, w.fixed)
			}
		}
	}
	// Query row 2 is an equality on X: X31 + X11 = 1 ⇒ X31 = 0.75; and
	// X30 + X10 = 0 holds by the fixed values (no equality emitted).
	if l.NumEqualities() != 1 {
		t.Fatalf("%d equalities, want 1", l.NumEqualities())
	}
	f, row := l.Equality(0)
	v := []float64{0, 0, 0, 0, 0.75}
	if row != -1 || math.Abs(f.Eval(v)) > 1e-15 {
		t.Fatalf("query equality %+v (row %d) at X31 = 0.75 is %v", f, row, f.Eval(v))
	}
}
