package model

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
)

// slack returns s = b − A·x of the standard form.
func slack(p *solver.Problem, x []float64) []float64 {
	s := append([]float64(nil), p.B...)
	p.A.MulVecTo(s, -1, x, 1)
	return s
}

// stdObjective returns ½xᵀPx + qᵀx + r with P given by its upper triangle.
func stdObjective(p *solver.Problem, x []float64) float64 {
	v := p.R
	for j, q := range p.Q {
		v += q * x[j]
	}
	if p.P != nil {
		for j := 0; j < p.P.Cols; j++ {
			for k := p.P.ColPtr[j]; k < p.P.ColPtr[j+1]; k++ {
				i := p.P.RowIdx[k]
				if i == j {
					v += 0.5 * p.P.Val[k] * x[i] * x[j]
				} else {
					v += p.P.Val[k] * x[i] * x[j]
				}
			}
		}
	}
	return v
}

// TestCanonicalRoundTrip builds a model with every constraint kind from random
// affine expressions and checks, at random points x, that each constraint's
// standard-form rows reproduce the expression the constraint is about: s =
// b − Ax equals −(lhs − rhs) for Equal/LessEq, lhs − rhs for GreaterEq, and
// the cone argument (t, x), (u, v, x), svec(S), interleaved (x, y, z) for cone
// constraints; and that the standard-form objective equals the model's.
func TestCanonicalRoundTrip(t *testing.T) {
	for seed := uint64(1); seed <= 10; seed++ {
		rng := rand.New(rand.NewPCG(seed, 11))
		m := New("rt")
		m.Vector("x", 6)
		m.Matrix("M", 2, 2)
		Sv := m.Symmetric("S", 3)
		N := m.NumVars()
		r := func(n int) Expr { e, _ := randAffine(rng, m, n, 0.3); return e }

		type check struct {
			c    *Constraint
			want func(x []float64) []float64
		}
		var checks []check
		neg := func(v []float64) []float64 {
			for i := range v {
				v[i] = -v[i]
			}
			return v
		}
		l1, r1 := r(4), r(4)
		checks = append(checks, check{m.Equal("eq", l1, r1), func(x []float64) []float64 { return neg(l1.Sub(r1).Eval(x)) }})
		l2, r2 := r(3), r(1)
		checks = append(checks, check{m.LessEq("le", l2, r2), func(x []float64) []float64 { return neg(l2.Sub(r2).Eval(x)) }})
		l3, r3 := r(1), r(5)
		checks = append(checks, check{m.GreaterEq("ge", l3, r3), func(x []float64) []float64 { return l3.Sub(r3).Eval(x) }})
		sx, st := r(4), r(1)
		checks = append(checks, check{m.NormLessEq("soc", sx, st), func(x []float64) []float64 { return Stack(st, sx).Eval(x) }})
		ru, rv, rx := r(1), r(1), r(3)
		checks = append(checks, check{m.RotatedCone("rsoc", ru, rv, rx), func(x []float64) []float64 { return Stack(ru, rv, rx).Eval(x) }})
		// A symmetric affine 3×3 matrix: S + (B + Bᵀ) with B random.
		B := Reshape(r(9), 3, 3)
		Sexpr := Sv.Expr().Add(B).Add(B.T())
		checks = append(checks, check{m.PSD("psd", Sexpr), func(x []float64) []float64 { return cone.SVec(nil, mat.NewSymDense(3, Sexpr.Eval(x))) }})
		ex, ey, ez := r(2), r(2), r(1)
		checks = append(checks, check{m.ExpCone("exp", ex, ey, ez), func(x []float64) []float64 {
			a, b, c := ex.Eval(x), ey.Eval(x), ez.Eval(x)
			return []float64{a[0], b[0], c[0], a[1], b[1], c[0]}
		}})
		px, py, pz := r(3), r(3), r(3)
		checks = append(checks, check{m.PowerCone("pow", px, py, pz, 0.3), func(x []float64) []float64 {
			a, b, c := px.Eval(x), py.Eval(x), pz.Eval(x)
			var out []float64
			for i := 0; i < 3; i++ {
				out = append(out, a[i], b[i], c[i])
			}
			return out
		}})
		ic := r(3)
		checks = append(checks, check{m.InCone("in", ic, cone.NewSecondOrder(3)), func(x []float64) []float64 { return ic.Eval(x) }})
		l4, r4 := r(2), r(2)
		checks = append(checks, check{m.LessEq("le2", l4, r4), func(x []float64) []float64 { return neg(l4.Sub(r4).Eval(x)) }})

		obj := r(1)
		quadE := r(3)
		Q := mat.NewSymDense(2, []float64{2, 1, 1, 3})
		quadX := r(2)
		m.Minimize(obj, SumSquares(quadE).Scale(1.5), QuadForm(quadX, Q))

		can, err := m.Canonicalize()
		if err != nil {
			t.Fatal(err)
		}
		p := can.Problem
		if err := p.Validate(); err != nil {
			t.Fatal(err)
		}
		if p.NumVars() != N {
			t.Fatalf("NumVars %d, want %d (no lifting expected for a 3-row SumSquares)", p.NumVars(), N)
		}
		for trial := 0; trial < 5; trial++ {
			x := randVec(rng, N)
			s := slack(p, x)
			for _, ch := range checks {
				lo, hi := can.Rows(ch.c)
				assertVec(t, ch.c.Name(), s[lo:hi], ch.want(x), 1e-11)
			}
			q := obj.Eval(x)[0] + SumSquares(quadE).Scale(1.5).Value(x) + QuadForm(quadX, Q).Value(x)
			if got := stdObjective(p, x); !close(got, q, 1e-11) {
				t.Fatalf("objective %v, want %v", got, q)
			}
		}
		// Cone list: each constraint's blocks in order, linear ones merged.
		wantKinds := []cone.Kind{cone.Zero, cone.Nonnegative, cone.SecondOrder, cone.RotatedSecondOrder, cone.PSD,
			cone.Exponential, cone.Exponential, cone.Power, cone.Power, cone.Power, cone.SecondOrder, cone.Nonnegative}
		if len(p.Cones) != len(wantKinds) {
			t.Fatalf("cones %v", p.Cones)
		}
		for i, k := range wantKinds {
			if p.Cones[i].Kind != k {
				t.Fatalf("cone %d is %v, want %v (all %v)", i, p.Cones[i].Kind, k, p.Cones)
			}
		}
		if p.Cones[1].Dim != 3+5 {
			t.Errorf("merged nonnegative block has dim %d, want 8", p.Cones[1].Dim)
		}
	}
}

// TestMaximizeAndBounds checks the sign of a maximized objective, the
// lifting of SumSquares, and bound rows.
func TestMaximizeAndBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	m := New("mb")
	x := m.Vector("x", 4)
	y := m.Scalar("y")
	m.Bound(x, -1, 2)
	y.SetBounds([]float64{math.Inf(-1)}, []float64{7})
	obj, _ := randAffine(rng, m, 1, 0.8)
	// Two dense rows over 5 columns: small, so the rule would not lift; force it.
	sq, _ := randAffine(rng, m, 2, 1)
	m.Maximize(obj, SumSquares(sq).Lifted(true).Scale(2))
	can, err := m.Canonicalize()
	if err != nil {
		t.Fatal(err)
	}
	p := can.Problem
	if p.NumVars() != 5+2 || can.NumUserVars() != 5 {
		t.Fatalf("NumVars %d, user %d; want 7, 5", p.NumVars(), can.NumUserVars())
	}
	lo, hi := can.BoundRows()
	if hi-lo != 9 {
		t.Fatalf("bound rows %d..%d, want 9 rows", lo, hi)
	}
	for trial := 0; trial < 5; trial++ {
		x := randVec(rng, 5)
		v := sq.Eval(x)
		full := append(append([]float64(nil), x...), v...) // auxiliary y = A·x + c
		s := slack(p, full)
		want := []float64{}
		for j := 0; j < 4; j++ {
			want = append(want, x[j]+1, 2-x[j])
		}
		want = append(want, 7-x[4])
		assertVec(t, "bound slack", s[lo:hi], want, 1e-12)
		assertVec(t, "lifting rows", s[hi:], []float64{0, 0}, 1e-12)
		// Standard form minimizes −obj + 2‖sq‖².
		wantObj := -obj.Eval(x)[0] + 2*(v[0]*v[0]+v[1]*v[1])
		if got := stdObjective(p, full); !close(got, wantObj, 1e-11) {
			t.Fatalf("objective %v, want %v", got, wantObj)
		}
	}
	if got := p.Cones[len(p.Cones)-1]; got.Kind != cone.Zero || got.Dim != 2 {
		t.Errorf("last cone %v, want zero(2)", got)
	}
}

// TestLiftingRule checks the automatic SumSquares choice: a few dense rows
// over many columns lift, a tall regression-like matrix over few columns does
// not.
func TestLiftingRule(t *testing.T) {
	m := New("lift")
	x := m.Vector("x", 200)
	wide := x.Expr().Sum() // 1 row, 200 columns: AᵀA has 20100 entries > max(4·201, 10⁴)
	can, err := func() (*Canonical, error) { m.Minimize(Expr{}, SumSquares(wide)); return m.Canonicalize() }()
	if err != nil {
		t.Fatal(err)
	}
	if can.Problem.NumVars() != 201 {
		t.Errorf("wide: NumVars %d, want 201 (lifted)", can.Problem.NumVars())
	}
	rng := rand.New(rand.NewPCG(1, 2))
	m2 := New("tall")
	w := m2.Vector("w", 5)
	X := mat.NewDense(100, 5, nil)
	for i := 0; i < 100; i++ {
		for j := 0; j < 5; j++ {
			X.Set(i, j, rng.NormFloat64())
		}
	}
	m2.Minimize(Expr{}, SumSquares(MulDense(X, w.Expr())))
	can2, err := m2.Canonicalize()
	if err != nil {
		t.Fatal(err)
	}
	if can2.Problem.NumVars() != 5 || can2.Problem.P.Nnz() != 15 {
		t.Errorf("tall: NumVars %d, nnz(P) %d; want 5, 15 (direct XᵀX)", can2.Problem.NumVars(), can2.Problem.P.Nnz())
	}
	// Direct P = 2XᵀX, compared entrywise with gonum.
	var xtx mat.Dense
	xtx.Mul(X.T(), X)
	for i := 0; i < 5; i++ {
		for j := i; j < 5; j++ {
			if got := can2.Problem.P.At(i, j); !close(got, 2*xtx.At(i, j), 1e-12) {
				t.Errorf("P[%d,%d] = %v, want %v", i, j, got, 2*xtx.At(i, j))
			}
		}
	}
}

// TestPSDSvec checks the PSD rows on a known matrix: for S = X (a symmetric
// variable) the slack at x = svec-order values is svec(S).
func TestPSDSvec(t *testing.T) {
	m := New("psd")
	X := m.Symmetric("X", 3)
	c := m.PSD("X⪰I", X.Expr().Sub(ConstMatrix(mat.NewDiagDense(3, []float64{1, 1, 1}))))
	can, err := m.Canonicalize()
	if err != nil {
		t.Fatal(err)
	}
	// X = [[4,1,2],[1,5,3],[2,3,6]]: columns hold the lower triangle column-major.
	x := []float64{4, 1, 2, 5, 3, 6}
	s := slack(can.Problem, x)
	r2 := math.Sqrt2
	want := []float64{3, r2 * 1, r2 * 2, 4, r2 * 3, 5} // svec(X − I), checked by hand
	lo, hi := can.Rows(c)
	assertVec(t, "svec", s[lo:hi], want, 1e-15)
	if k := can.Problem.Cones[0]; k.Kind != cone.PSD || k.Dim != 6 {
		t.Errorf("cone %v", k)
	}
	// The slack agrees with package cone's svec.
	Xm := mat.NewSymDense(3, []float64{3, 1, 2, 1, 4, 3, 2, 3, 5})
	assertVec(t, "cone.SVec", s, cone.SVec(nil, Xm), 1e-15)

	// Asymmetric coefficients are rejected.
	m2 := New("asym")
	y := m2.Matrix("Y", 2, 2)
	m2.PSD("Y", y.Expr())
	if err := m2.Err(); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("asymmetric PSD: %v", err)
	}
}

// TestSOCKnownPoint checks ‖(x₁−1, 2x₂)‖ ≤ t + 3 against a hand-computed slack.
func TestSOCKnownPoint(t *testing.T) {
	m := New("soc")
	x := m.Vector("x", 2)
	tt := m.Scalar("t")
	c := m.NormLessEq("n", x.Expr().MulElem([]float64{1, 2}).Sub(Const(1, 0)), tt.Expr().Add(Const(3)))
	can, err := m.Canonicalize()
	if err != nil {
		t.Fatal(err)
	}
	s := slack(can.Problem, []float64{4, 2, 2}) // x = (4, 2), t = 2
	lo, hi := can.Rows(c)
	assertVec(t, "soc slack", s[lo:hi], []float64{5, 3, 4}, 0)
	if !cone.NewSecondOrder(3).Contains(s, 0) {
		t.Error("(5,3,4) should be on the cone boundary")
	}
}

func TestModelErrors(t *testing.T) {
	Q := mat.NewSymDense(2, []float64{1, 2, 2, 1}) // eigenvalues 3, −1
	cases := []struct {
		name  string
		build func(m *Model)
		want  error
	}{
		{"Empty", func(m *Model) {}, ErrEmptyModel},
		{"DupVar", func(m *Model) { m.Vector("x", 2); m.Scalar("x") }, ErrInvalidName},
		{"DupConstraint", func(m *Model) {
			x := m.Scalar("x")
			m.LessEq("c", x.Expr(), Const(1))
			m.GreaterEq("c", x.Expr(), Const(0))
		}, ErrInvalidName},
		{"Mismatch", func(m *Model) {
			x := m.Vector("x", 2)
			m.LessEq("c", x.Expr(), Const(1, 2, 3))
		}, ErrDimension},
		{"NaNRhs", func(m *Model) {
			x := m.Vector("x", 2)
			m.LessEq("c", x.Expr(), Const(1, math.NaN()))
		}, ErrNotFinite},
		{"NaNDot", func(m *Model) {
			x := m.Vector("x", 2)
			m.Minimize(x.Expr().Dot([]float64{1, math.Inf(-1)}))
		}, ErrNotFinite},
		{"NonConvexQ", func(m *Model) {
			x := m.Vector("x", 2)
			m.Minimize(Expr{}, QuadForm(x.Expr(), Q))
		}, ErrNonConvex},
		{"NegativeScale", func(m *Model) {
			x := m.Vector("x", 2)
			m.Minimize(Expr{}, SumSquares(x.Expr()).Scale(-1))
		}, ErrNonConvex},
		{"ObjectiveLength", func(m *Model) {
			x := m.Vector("x", 2)
			m.Minimize(x.Expr())
		}, ErrDimension},
		{"BoundsOrder", func(m *Model) {
			x := m.Vector("x", 2)
			m.Bound(x, 1, 0)
		}, ErrInvalidArgument},
		{"OtherModel", func(m *Model) {
			y := New("other").Scalar("y")
			m.Scalar("x")
			m.LessEq("c", y.Expr(), Const(1))
		}, ErrModelMismatch},
		{"SOCt", func(m *Model) {
			x := m.Vector("x", 2)
			m.NormLessEq("n", x.Expr(), x.Expr())
		}, ErrDimension},
		{"PowerAlpha", func(m *Model) {
			x := m.Vector("x", 3)
			m.PowerCone("p", x.At(0), x.At(1), x.At(2), 1.5)
		}, ErrInvalidArgument},
		{"InConeDim", func(m *Model) {
			x := m.Vector("x", 3)
			m.InCone("k", x.Expr(), cone.NewPSD(3))
		}, ErrDimension},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := New(tc.name)
			tc.build(m)
			_, err := m.Canonicalize()
			if !errors.Is(err, tc.want) {
				t.Fatalf("Canonicalize error %v, want %v", err, tc.want)
			}
			if tc.want != ErrEmptyModel && !errors.Is(m.Err(), tc.want) {
				t.Fatalf("Err() = %v", m.Err())
			}
		})
	}
	// A PSD Q passes the eigenvalue check, even with rounding-level negatives.
	if err := QuadForm(Const(1, 2), mat.NewSymDense(2, []float64{1, 1, 1, 1})).Err(); err != nil {
		t.Errorf("rank-1 PSD Q rejected: %v", err)
	}
}
