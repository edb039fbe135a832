package highs

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/sparse"
)

// dense builds a CSC from a row-major dense matrix.
func dense(m, n int, v ...float64) *sparse.CSC {
	t := sparse.NewTriplets(m, n, len(v))
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			if x := v[i*n+j]; x != 0 {
				t.Append(i, j, x)
			}
		}
	}
	return t.ToCSC()
}

func near(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

func solve(t *testing.T, p *solver.Problem) *solver.Solution {
	t.Helper()
	sol, err := New().Solve(context.Background(), p, solver.Settings{})
	if err != nil {
		t.Fatalf("Solve: %v", err)
	}
	return sol
}

// checkKKT verifies Ax + s = b, s ∈ K, y ∈ K*, Px + q + Aᵀy = 0 and the duality
// gap, all to tol (relative to the data's scale).
func checkKKT(t *testing.T, p *solver.Problem, sol *solver.Solution, tol float64) {
	t.Helper()
	// HiGHS's active-set QP solver stops at ~1e-7, where the re-check on the
	// data may call the answer almost-optimal (with a diagnostic).
	qpAlmost := p.P != nil && sol.Status == solver.AlmostOptimal && sol.Diagnostic != ""
	if sol.Status != solver.Optimal && !qpAlmost {
		t.Fatalf("status %v, want optimal", sol.Status)
	}
	ax := p.A.MulVecTo(nil, 1, sol.X, 0)
	r := 0
	for _, c := range p.Cones {
		for i := r; i < r+c.Dim; i++ {
			if d := math.Abs(ax[i] + sol.S[i] - p.B[i]); d > tol*(1+math.Abs(p.B[i])) {
				t.Errorf("row %d: |Ax+s−b| = %g", i, d)
			}
			switch c.Kind {
			case cone.Zero:
				if math.Abs(sol.S[i]) > tol*(1+math.Abs(p.B[i])) {
					t.Errorf("zero row %d: s = %g", i, sol.S[i])
				}
			case cone.Nonnegative:
				if sol.S[i] < -tol*(1+math.Abs(p.B[i])) {
					t.Errorf("nonnegative row %d: s = %g", i, sol.S[i])
				}
				if sol.Y[i] < -tol {
					t.Errorf("nonnegative row %d: y = %g < 0", i, sol.Y[i])
				}
			}
		}
		r += c.Dim
	}
	g := symMulVec(p.P, sol.X)
	for j := range g {
		g[j] += p.Q[j]
	}
	p.A.MulTransVecTo(g, 1, sol.Y, 1)
	for j, v := range g {
		if math.Abs(v) > tol*(1+math.Abs(p.Q[j])) {
			t.Errorf("stationarity residual of column %d is %g", j, v)
		}
	}
	gap := math.Abs(sol.Objective - sol.DualObjective)
	if gap > tol*(1+math.Abs(sol.Objective)) {
		t.Errorf("duality gap %g (primal %v, dual %v)", gap, sol.Objective, sol.DualObjective)
	}
}

// Wyndor Glass (Hillier & Lieberman, Introduction to Operations Research, §3.1):
// max 3x + 5y s.t. x ≤ 4, 2y ≤ 12, 3x + 2y ≤ 18, x, y ≥ 0; optimum (2, 6), 36,
// shadow prices (0, 1.5, 1).
func TestWyndor(t *testing.T) {
	p := &solver.Problem{
		Q: []float64{-3, -5},
		A: dense(5, 2,
			1, 0,
			0, 2,
			3, 2,
			-1, 0,
			0, -1),
		B:     []float64{4, 12, 18, 0, 0},
		Cones: []cone.Cone{cone.NewNonnegative(5)},
	}
	sol := solve(t, p)
	checkKKT(t, p, sol, 1e-9)
	if !near(sol.X[0], 2, 1e-9) || !near(sol.X[1], 6, 1e-9) || !near(sol.Objective, -36, 1e-9) {
		t.Errorf("x = %v, objective %v; want (2, 6), −36", sol.X, sol.Objective)
	}
	want := []float64{0, 1.5, 1, 0, 0}
	for i, w := range want {
		if !near(sol.Y[i], w, 1e-9) {
			t.Errorf("y[%d] = %v, want %v", i, sol.Y[i], w)
		}
	}
	if sol.Solver != "highs" || sol.Iterations < 0 {
		t.Errorf("solver %q, iterations %d", sol.Solver, sol.Iterations)
	}
}

// Equality, bounds given as singleton rows with non-unit coefficients, and an
// offset: min x + 2y + 3z + 10 s.t. x + y + z = 6, 2x ≥ 2 (−2x ≤ −2), 3y ≥ 3, z ≥ 0,
// x ≤ 4 (2x ≤ 8). Optimum: x = 4, y = 1, z = 1? No: z costs 3 > y's 2, so
// z = 0, y = 6 − x, x = 4 (upper bound), y = 2: objective 4 + 4 + 0 + 10 = 18.
// Duals: equality row y₀ = −2 (free); x's upper bound: 1 − 2 + 2·y = 0 → 0.5;
// z ≥ 0: 3 − 2 − y = 0 → 1; y's lower bound inactive (0).
func TestEqualityAndBounds(t *testing.T) {
	p := &solver.Problem{
		Q: []float64{1, 2, 3},
		R: 10,
		A: dense(5, 3,
			1, 1, 1,
			-2, 0, 0,
			0, -3, 0,
			0, 0, -1,
			2, 0, 0),
		B:     []float64{6, -2, -3, 0, 8},
		Cones: []cone.Cone{cone.NewZero(1), cone.NewNonnegative(4)},
	}
	sol := solve(t, p)
	checkKKT(t, p, sol, 1e-9)
	wantX := []float64{4, 2, 0}
	wantY := []float64{-2, 0, 0, 1, 0.5}
	for j, w := range wantX {
		if !near(sol.X[j], w, 1e-9) {
			t.Errorf("x[%d] = %v, want %v", j, sol.X[j], w)
		}
	}
	for i, w := range wantY {
		if !near(sol.Y[i], w, 1e-9) {
			t.Errorf("y[%d] = %v, want %v", i, sol.Y[i], w)
		}
	}
	if !near(sol.Objective, 18, 1e-12) {
		t.Errorf("objective %v, want 18", sol.Objective)
	}
}

// Markowitz minimum-variance portfolio with a target return (equality
// constraints only): min ½xᵀΣx s.t. 1ᵀx = 1, μᵀx = ρ. The KKT system
// [Σ Eᵀ; E 0][x; y] = [0; b] is solved independently with gonum.
func TestMarkowitzQP(t *testing.T) {
	sigma := []float64{
		0.10, 0.02, 0.04, 0.00,
		0.02, 0.08, 0.01, 0.02,
		0.04, 0.01, 0.12, 0.03,
		0.00, 0.02, 0.03, 0.09,
	}
	mu := []float64{0.05, 0.07, 0.10, 0.06}
	rho := 0.075
	n := 4
	up := sparse.NewTriplets(n, n, 10)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			if v := sigma[i*n+j]; v != 0 {
				up.Append(i, j, v)
			}
		}
	}
	E := append([]float64{1, 1, 1, 1}, mu...)
	p := &solver.Problem{
		P:     up.ToCSC(),
		Q:     make([]float64, n),
		A:     dense(2, n, E...),
		B:     []float64{1, rho},
		Cones: []cone.Cone{cone.NewZero(2)},
	}
	sol := solve(t, p)
	checkKKT(t, p, sol, 1e-7)

	K := mat.NewDense(n+2, n+2, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			K.Set(i, j, sigma[i*n+j])
		}
		K.Set(n, i, 1)
		K.Set(i, n, 1)
		K.Set(n+1, i, mu[i])
		K.Set(i, n+1, mu[i])
	}
	rhs := mat.NewVecDense(n+2, []float64{0, 0, 0, 0, 1, rho})
	var z mat.VecDense
	if err := z.SolveVec(K, rhs); err != nil {
		t.Fatal(err)
	}
	for j := 0; j < n; j++ {
		if math.Abs(sol.X[j]-z.AtVec(j)) > 1e-6 {
			t.Errorf("x[%d] = %v, KKT solution %v", j, sol.X[j], z.AtVec(j))
		}
	}
	for i := 0; i < 2; i++ {
		if math.Abs(sol.Y[i]-z.AtVec(n+i)) > 1e-6 {
			t.Errorf("y[%d] = %v, KKT solution %v", i, sol.Y[i], z.AtVec(n+i))
		}
	}
}

// A QP whose only coupling is an off-diagonal Hessian entry: min ½(x² + 2xy·0.8 + y²)·…
// with P = [[2, 1], [1, 2]] (upper: (0,0)=2, (0,1)=1, (1,1)=2), q = (−1, −4):
// unconstrained optimum x = P⁻¹(−q) = (1/3)·[[2,−1],[−1,2]]·(1, 4) = (−2/3, 7/3).
// A transposed (or wrongly triangulated) Hessian gives a different point.
func TestQPOffDiagonal(t *testing.T) {
	P := sparse.NewTriplets(2, 2, 3)
	P.Append(0, 0, 2)
	P.Append(0, 1, 1)
	P.Append(1, 1, 2)
	p := &solver.Problem{
		P: P.ToCSC(), Q: []float64{-1, -4},
		A:     dense(1, 2, 1, 1),
		B:     []float64{100},
		Cones: []cone.Cone{cone.NewNonnegative(1)},
	}
	sol := solve(t, p)
	// HiGHS's active-set QP solver stops at about 1e-7 relative accuracy here.
	checkKKT(t, p, sol, 1e-6)
	if !near(sol.X[0], -2.0/3, 1e-6) || !near(sol.X[1], 7.0/3, 1e-6) {
		t.Errorf("x = %v, want (−2/3, 7/3)", sol.X)
	}
	// objective = −½ qᵀP⁻¹q = −½ (1·(−2/3)·(−1)… ) computed: ½xᵀPx + qᵀx = ½qᵀx at optimum.
	want := 0.5 * (-1*(-2.0/3) + -4*(7.0/3))
	if !near(sol.Objective, want, 1e-6) {
		t.Errorf("objective %v, want %v", sol.Objective, want)
	}
}

// Degenerate vertex: four constraints active at (1, 1) in two dimensions.
func TestDegenerate(t *testing.T) {
	p := &solver.Problem{
		Q: []float64{-1, -1},
		A: dense(4, 2,
			1, 1,
			1, 2,
			2, 1,
			1, -1),
		B:     []float64{2, 3, 3, 0},
		Cones: []cone.Cone{cone.NewNonnegative(4)},
	}
	sol := solve(t, p)
	checkKKT(t, p, sol, 1e-9)
	if !near(sol.Objective, -2, 1e-9) {
		t.Errorf("objective %v, want −2", sol.Objective)
	}
}

func TestInfeasible(t *testing.T) {
	cases := []struct {
		name string
		p    *solver.Problem
	}{
		{"rows", &solver.Problem{ // x + y ≤ −1, x ≥ 0, y ≥ 0 written as rows with two entries each
			Q: []float64{1, 1}, A: dense(3, 2, 1, 1, -1, 0.5, 0.5, -1), B: []float64{-1, 0, 0},
			Cones: []cone.Cone{cone.NewNonnegative(3)},
		}},
		{"bounds", &solver.Problem{ // x ≤ −1 and x ≥ 0 as singleton rows, plus a real row
			Q: []float64{1, 0}, A: dense(3, 2, 1, 0, -1, 0, 1, 1), B: []float64{-1, 0, 5},
			Cones: []cone.Cone{cone.NewNonnegative(3)},
		}},
		{"equalities", &solver.Problem{ // x + y = 1, x + y = 2
			Q: []float64{1, 1}, A: dense(2, 2, 1, 1, 1, 1), B: []float64{1, 2},
			Cones: []cone.Cone{cone.NewZero(2)},
		}},
		{"empty row", &solver.Problem{ // 0 ≤ −1
			Q: []float64{1}, A: dense(2, 1, 0, 1), B: []float64{-1, 3},
			Cones: []cone.Cone{cone.NewNonnegative(2)},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sol := solve(t, c.p)
			if sol.Status != solver.PrimalInfeasible {
				t.Fatalf("status %v, want infeasible", sol.Status)
			}
			if sol.Y == nil {
				t.Logf("no certificate")
				return
			}
			if verifyInfeasibility(c.p, append([]float64(nil), sol.Y...)) == nil {
				t.Errorf("certificate %v does not verify", sol.Y)
			}
		})
	}
}

func TestUnbounded(t *testing.T) {
	// min −x s.t. x − y ≤ 1, y ≤ 3 − x·0 … unbounded along (1, 1).
	p := &solver.Problem{
		Q: []float64{-1, 0}, A: dense(2, 2, 1, -1, 0, -1), B: []float64{1, 0},
		Cones: []cone.Cone{cone.NewNonnegative(2)},
	}
	sol := solve(t, p)
	if sol.Status != solver.DualInfeasible {
		t.Fatalf("status %v, want unbounded", sol.Status)
	}
	if sol.X != nil && unboundedRay(p, sol.X) == nil {
		t.Errorf("ray %v does not verify", sol.X)
	}
}

func TestUnsupportedCone(t *testing.T) {
	p := &solver.Problem{Q: []float64{1, 0}, A: dense(2, 2, -1, 0, 0, -1), B: []float64{0, 0}, Cones: []cone.Cone{cone.NewSecondOrder(2)}}
	_, err := New().Solve(context.Background(), p, solver.Settings{})
	if !errors.Is(err, ErrUnsupportedCone) {
		t.Fatalf("err = %v, want ErrUnsupportedCone", err)
	}
}

// TestNonConvexQP: indefinite Hessians are never reported optimal. The first
// two fail the cheap 2×2 checks (an error); the third passes them (all 2×2
// minors are ≥ 0, determinant −2.888), HiGHS 1.10 claims "optimal" at x = 0,
// and the optimality check downgrades that to a numerical error.
func TestNonConvexQP(t *testing.T) {
	for k, P := range [][]float64{
		{-1, 0, 0, 0, 1, 0, 0, 0, 1},
		{1, 2, 0, 2, 1, 0, 0, 0, 1},
		{1, .9, .9, .9, 1, -.9, .9, -.9, 1},
	} {
		tr := sparse.NewTriplets(3, 3, 9)
		for i := 0; i < 3; i++ {
			for j := i; j < 3; j++ {
				if P[i*3+j] != 0 {
					tr.Append(i, j, P[i*3+j])
				}
			}
		}
		p := &solver.Problem{P: tr.ToCSC(), Q: []float64{1, 1, 1},
			A: dense(6, 3, 1, 0, 0, 0, 1, 0, 0, 0, 1, -1, 0, 0, 0, -1, 0, 0, 0, -1),
			B: []float64{1, 1, 1, 1, 1, 1}, Cones: []cone.Cone{cone.NewNonnegative(6)}}
		sol, err := New().Solve(context.Background(), p, solver.Settings{})
		switch {
		case k < 2 && !errors.Is(err, solver.ErrInvalidProblem):
			t.Errorf("case %d: err = %v, want ErrInvalidProblem", k, err)
		case k == 2 && (err != nil || sol.Status == solver.Optimal):
			t.Errorf("case %d: %v %+v, want a non-optimal status", k, err, sol)
		}
	}
}

func TestCancelledBefore(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p := &solver.Problem{Q: []float64{1}, A: dense(1, 1, -1), B: []float64{0}, Cones: []cone.Cone{cone.NewNonnegative(1)}}
	sol, err := New().Solve(ctx, p, solver.Settings{})
	if err != nil || sol.Status != solver.Cancelled {
		t.Fatalf("got %v, %v; want status cancelled", sol, err)
	}
}

// randomLP builds a feasible, bounded LP with a known optimum: x0 primal
// feasible, y0 dual feasible and complementary (s0ᵢ y0ᵢ = 0), q = −Aᵀy0, so x0
// is optimal with value qᵀx0. Some rows are singletons (bounds) and some empty.
func randomLP(rng *rand.Rand) (p *solver.Problem, opt float64) {
	n := 2 + rng.IntN(30)
	mz := rng.IntN(n / 2)
	mn := n + rng.IntN(2*n)
	m := mz + mn
	t := sparse.NewTriplets(m, n, m*4)
	for i := 0; i < m; i++ {
		switch k := rng.IntN(10); {
		case k == 0 && i >= mz: // empty row
		case k <= 2: // singleton
			t.Append(i, rng.IntN(n), rng.NormFloat64()*3)
		default:
			for j := 0; j < n; j++ {
				if rng.Float64() < 0.3 {
					t.Append(i, j, rng.NormFloat64())
				}
			}
		}
	}
	A := t.ToCSC()
	x0 := make([]float64, n)
	for j := range x0 {
		x0[j] = rng.NormFloat64() * 2
	}
	s0 := make([]float64, m)
	y0 := make([]float64, m)
	for i := 0; i < m; i++ {
		if i < mz {
			y0[i] = rng.NormFloat64()
			continue
		}
		if rng.IntN(2) == 0 {
			s0[i] = rng.Float64() * 3
		} else {
			y0[i] = rng.Float64() * 2
		}
	}
	b := A.MulVecTo(nil, 1, x0, 0)
	for i := range b {
		b[i] += s0[i]
	}
	q := A.MulTransVecTo(nil, -1, y0, 0)
	p = &solver.Problem{Q: q, R: rng.NormFloat64(), A: A, B: b, Cones: []cone.Cone{cone.NewZero(mz), cone.NewNonnegative(mn)}}
	opt = p.R
	for j := range q {
		opt += q[j] * x0[j]
	}
	return p, opt
}

// TestRandomLPs: 200 seeded random feasible bounded LPs (deterministic).
func TestRandomLPs(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for k := 0; k < 200; k++ {
		p, opt := randomLP(rng)
		sol := solve(t, p)
		if sol.Status != solver.Optimal {
			t.Fatalf("LP %d: status %v", k, sol.Status)
		}
		checkKKT(t, p, sol, 1e-7)
		if !near(sol.Objective, opt, 1e-7) {
			t.Errorf("LP %d: objective %v, known optimum %v", k, sol.Objective, opt)
		}
		if t.Failed() {
			t.Fatalf("LP %d failed (n=%d, m=%d)", k, p.NumVars(), p.NumRows())
		}
	}
}

// lineCounter counts log lines.
type lineCounter struct{ lines int }

func (c *lineCounter) Write(p []byte) (int, error) {
	c.lines++
	return len(p), nil
}

// TestLogAndInterrupt: the log writer receives HiGHS's output (and nothing is
// printed without one), and the interrupt callback stops the simplex: run with
// an already cancelled context raises the flag before Highs_run, so the first
// iteration is interrupted (deterministic; Solve itself returns Cancelled
// before running HiGHS in that case).
func TestLogAndInterrupt(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var p *solver.Problem
	for p == nil || p.NumVars() < 20 {
		p, _ = randomLP(rng)
	}
	w := &lineCounter{}
	s, err := NewWithOptions(Options{Presolve: "off", Method: "simplex"})
	if err != nil {
		t.Fatal(err)
	}
	sol, err := s.Solve(context.Background(), p, solver.Settings{Log: w})
	if err != nil || sol.Status != solver.Optimal {
		t.Fatalf("%v %v", err, sol)
	}
	if w.lines == 0 {
		t.Error("no log lines")
	}
	iters := sol.Iterations

	d, err := newStdLP(p)
	if err != nil {
		t.Fatal(err)
	}
	in := newInstance()
	defer in.destroy()
	o := Options{Presolve: "off", Method: "simplex"}
	if err := in.applyOptions(&o); err != nil {
		t.Fatal(err)
	}
	if err := d.pass(in); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, ms, _ := in.run(ctx)
	if mapStatus(ms, ctx) != solver.Cancelled {
		t.Errorf("interrupted run: HiGHS status %d, want %d (interrupt); the uninterrupted solve took %d iterations", ms, hsInterrupt, iters)
	}
	// The same instance solves to optimality once the context is live.
	_, ms, _ = in.run(context.Background())
	if ms != hsOptimal {
		t.Errorf("after the interrupt: HiGHS status %d, want optimal", ms)
	}
}

func TestOptionsValidate(t *testing.T) {
	bad := []Options{
		{Method: "barrier"},
		{Presolve: "maybe"},
		{Simplex: "barrier"},
		{PrimalFeasibilityTolerance: -1},
		{DualFeasibilityTolerance: math.NaN()},
		{Settings: solver.Settings{TimeLimit: -1}},
	}
	for _, o := range bad {
		if _, err := NewWithOptions(o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
	if _, err := NewWithOptions(Options{Method: "ipm", Presolve: "off", PrimalFeasibilityTolerance: 1e-9}); err != nil {
		t.Error(err)
	}
}

// TestMethods: the IPM (with crossover) and the simplex agree.
func TestMethods(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for k := 0; k < 20; k++ {
		p, opt := randomLP(rng)
		for _, m := range []string{"simplex", "ipm"} {
			s, _ := NewWithOptions(Options{Method: m})
			sol, err := s.Solve(context.Background(), p, solver.Settings{})
			if err != nil {
				t.Fatal(err)
			}
			checkKKT(t, p, sol, 1e-7)
			if !near(sol.Objective, opt, 1e-7) {
				t.Errorf("%s: objective %v, want %v", m, sol.Objective, opt)
			}
		}
	}
}

func TestIterationLimit(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var p *solver.Problem
	for p == nil || p.NumVars() < 20 {
		p, _ = randomLP(rng)
	}
	s, _ := NewWithOptions(Options{Presolve: "off", Method: "simplex"})
	sol, err := s.Solve(context.Background(), p, solver.Settings{MaxIterations: 1})
	if err != nil {
		t.Fatal(err)
	}
	if sol.Status != solver.IterationLimit {
		t.Errorf("status %v after %d iterations, want iteration-limit", sol.Status, sol.Iterations)
	}
}

// TestPrimalAndDualInfeasible: an LP that is both primal and dual infeasible
// (min −x₁ − x₂, x₁ − x₂ ≥ 1, x₂ − x₁ ≥ 1, x ≥ 0), for which HiGHS's presolve
// answers "unbounded or infeasible"; Solve must decide "infeasible".
func TestPrimalAndDualInfeasible(t *testing.T) {
	p := &solver.Problem{
		Q: []float64{-1, -1},
		A: dense(4, 2,
			-1, 1,
			1, -1,
			-1, 0,
			0, -1),
		B:     []float64{-1, -1, 0, 0},
		Cones: []cone.Cone{cone.NewNonnegative(4)},
	}
	for _, o := range []Options{{}, {Presolve: "off"}, {Method: "ipm"}} {
		s, _ := NewWithOptions(o)
		sol, err := s.Solve(context.Background(), p, solver.Settings{})
		if err != nil {
			t.Fatal(err)
		}
		if sol.Status != solver.PrimalInfeasible {
			t.Errorf("%+v: status %v, want infeasible", o, sol.Status)
		}
	}
}

// TestConcurrentSolves: one Solver used from several goroutines (each Solve
// has its own HiGHS instance) gives the sequential answers.
func TestConcurrentSolves(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	const k = 8
	probs := make([]*solver.Problem, k)
	opts := make([]float64, k)
	for i := range probs {
		probs[i], opts[i] = randomLP(rng)
	}
	s := New()
	errs := make(chan error, k)
	for i := range probs {
		go func(i int) {
			sol, err := s.Solve(context.Background(), probs[i], solver.Settings{})
			switch {
			case err != nil:
				errs <- err
			case sol.Status != solver.Optimal || !near(sol.Objective, opts[i], 1e-7):
				errs <- fmt.Errorf("LP %d: %v, objective %v, want %v", i, sol.Status, sol.Objective, opts[i])
			default:
				errs <- nil
			}
		}(i)
	}
	for range probs {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestTimeLimit: a 1 ns time limit is exceeded at HiGHS's first check.
func TestTimeLimit(t *testing.T) {
	p := benchLP(10000)
	s, _ := NewWithOptions(Options{Presolve: "off", Method: "simplex"})
	sol, err := s.Solve(context.Background(), p, solver.Settings{TimeLimit: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	if sol.Status != solver.TimeLimit {
		t.Errorf("status %v, want time-limit", sol.Status)
	}
}
