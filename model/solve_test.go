package model

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
)

func solveOK(t *testing.T, m *Model) *Result {
	t.Helper()
	res, err := m.Solve(context.Background(), SolveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != solver.Optimal {
		t.Fatalf("status %v (%s)", res.Status, res.Diagnostic)
	}
	return res
}

// TestWyndorLP is the Wyndor Glass LP (Hillier & Lieberman, Introduction to
// Operations Research, §3.1): maximize 3x₁ + 5x₂ s.t. x₁ ≤ 4, 2x₂ ≤ 12,
// 3x₁ + 2x₂ ≤ 18, x ≥ 0. Optimum x = (2, 6), z = 36; shadow prices (0, 3/2, 1)
// (§4.7), which with Maximize are the objective's gain per unit of extra rhs.
func TestWyndorLP(t *testing.T) {
	m := New("wyndor")
	x := m.Vector("x", 2)
	m.Bound(x, 0, math.Inf(1))
	p1 := m.LessEq("plant1", x.At(0), Const(4))
	p2 := m.LessEq("plant2", x.At(1).Scale(2), Const(12))
	p3 := m.LessEq("plant3", x.Expr().Dot([]float64{3, 2}), Const(18))
	profit := x.Expr().Dot([]float64{3, 5})
	m.Maximize(profit)
	res := solveOK(t, m)
	assertVec(t, "x", res.Value(x), []float64{2, 6}, 1e-8)
	if !close(res.Objective, 36, 1e-9) {
		t.Errorf("objective %v, want 36", res.Objective)
	}
	assertVec(t, "profit", res.ExprValue(profit), []float64{36}, 1e-9)
	assertVec(t, "duals", append(append(res.Dual(p1), res.Dual(p2)...), res.Dual(p3)...), []float64{0, 1.5, 1}, 1e-8)
	if res.Time.Total < res.Time.Solve || res.Solution.Solver != "highs" {
		t.Errorf("time %+v, solver %q", res.Time, res.Solution.Solver)
	}
}

// TestCoverLP: minimize 2x + 3y s.t. x + y ≥ 4, x + 3y ≥ 6, x, y ≥ 0. By hand:
// the optimum is the vertex (3, 1) with value 9; the dual u solves
// u₁ + u₂ = 2, u₁ + 3u₂ = 3, so u = (3/2, 1/2) (dual value 4·3/2 + 6·1/2 = 9).
func TestCoverLP(t *testing.T) {
	m := New("cover")
	x := m.Vector("x", 2)
	m.Bound(x, 0, math.Inf(1))
	c1 := m.GreaterEq("c1", x.Expr().Sum(), Const(4))
	c2 := m.GreaterEq("c2", x.Expr().Dot([]float64{1, 3}), Const(6))
	m.Minimize(x.Expr().Dot([]float64{2, 3}))
	res := solveOK(t, m)
	assertVec(t, "x", res.Value(x), []float64{3, 1}, 1e-8)
	if !close(res.Objective, 9, 1e-9) {
		t.Errorf("objective %v, want 9", res.Objective)
	}
	assertVec(t, "duals", append(res.Dual(c1), res.Dual(c2)...), []float64{1.5, 0.5}, 1e-8)
	// Sensitivity: lowering the rhs of c1 by δ improves the optimum by 1.5·δ.
	m2 := New("cover2")
	x2 := m2.Vector("x", 2)
	m2.Bound(x2, 0, math.Inf(1))
	m2.GreaterEq("c1", x2.Expr().Sum(), Const(4-0.01))
	m2.GreaterEq("c2", x2.Expr().Dot([]float64{1, 3}), Const(6))
	m2.Minimize(x2.Expr().Dot([]float64{2, 3}))
	if res2 := solveOK(t, m2); !close(res.Objective-res2.Objective, 1.5*0.01, 1e-8) {
		t.Errorf("improvement %v, want %v", res.Objective-res2.Objective, 0.015)
	}
}

// TestEqualityDual: minimize x + 2y + 5 s.t. x + y = 3, x ≤ 2, x, y ≥ 0. The
// optimum is (2, 1) with value 9; p*(rhs) = 5 + 2 + 2(rhs − 2) near rhs = 3,
// so the Equal dual (improvement per unit increase of rhs) is −2; relaxing
// x ≤ 2 improves by 1 per unit.
func TestEqualityDual(t *testing.T) {
	m := New("eq")
	x, y := m.Scalar("x"), m.Scalar("y")
	m.Bound(x, 0, math.Inf(1))
	m.Bound(y, 0, math.Inf(1))
	eq := m.Equal("sum", x.Expr().Add(y.Expr()), Const(3))
	le := m.LessEq("cap", x.Expr(), Const(2))
	m.Minimize(x.Expr().Add(y.Expr().Scale(2)).Add(Const(5)))
	res := solveOK(t, m)
	if !close(res.Objective, 9, 1e-9) {
		t.Errorf("objective %v, want 9 (constant included)", res.Objective)
	}
	assertVec(t, "eq dual", res.Dual(eq), []float64{-2}, 1e-8)
	assertVec(t, "cap dual", res.Dual(le), []float64{1}, 1e-8)
}

// TestDegenerateLP: maximize x + y s.t. x ≤ 1, y ≤ 1, x + y ≤ 2, x − y ≤ 0,
// x, y ≥ 0 — four constraints active at the optimum (1, 1), value 2.
func TestDegenerateLP(t *testing.T) {
	m := New("degenerate")
	x := m.Vector("x", 2)
	m.Bound(x, 0, math.Inf(1))
	m.LessEq("box", x.Expr(), Const(1))
	m.LessEq("sum", x.Expr().Sum(), Const(2))
	m.LessEq("order", x.At(0).Sub(x.At(1)), Zeros(1))
	m.Maximize(x.Expr().Sum())
	res := solveOK(t, m)
	assertVec(t, "x", res.Value(x), []float64{1, 1}, 1e-8)
	if !close(res.Objective, 2, 1e-9) {
		t.Errorf("objective %v", res.Objective)
	}
}

func TestInfeasibleUnbounded(t *testing.T) {
	m := New("infeasible")
	x := m.Vector("x", 2)
	m.GreaterEq("lo", x.Expr().Sum(), Const(3))
	m.LessEq("hi", x.Expr(), Const(1))
	m.Minimize(x.Expr().Sum())
	res, err := m.Solve(context.Background(), SolveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != solver.PrimalInfeasible || res.Value(x) != nil || !math.IsNaN(res.Objective) {
		t.Errorf("infeasible: status %v, value %v, objective %v", res.Status, res.Value(x), res.Objective)
	}

	m2 := New("unbounded")
	y := m2.Vector("y", 2)
	m2.Bound(y, 0, math.Inf(1))
	m2.LessEq("c", y.At(0).Sub(y.At(1)), Const(1))
	m2.Maximize(y.Expr().Sum())
	res, err = m2.Solve(context.Background(), SolveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != solver.DualInfeasible || res.Value(y) != nil {
		t.Errorf("unbounded: status %v, value %v", res.Status, res.Value(y))
	}
}

// markowitzData: Σ (SPD), μ, γ.
func markowitzData() (*mat.SymDense, []float64, float64) {
	sigma := mat.NewSymDense(4, []float64{
		0.10, 0.02, 0.01, 0.00,
		0.02, 0.08, 0.02, 0.01,
		0.01, 0.02, 0.12, 0.03,
		0.00, 0.01, 0.03, 0.09,
	})
	return sigma, []float64{0.12, 0.10, 0.15, 0.08}, 2.0
}

// TestMarkowitzQP: minimize γxᵀΣx − μᵀx s.t. 1ᵀx = 1 has the KKT solution
// 2γΣx − μ + λ1 = 0, i.e. x = Σ⁻¹(μ − λ1)/(2γ) with
// λ = (1ᵀΣ⁻¹μ − 2γ)/(1ᵀΣ⁻¹1); λ is the budget constraint's dual. Solved with
// QuadForm, with SumSquares of a Cholesky factor, and as a Maximize.
func TestMarkowitzQP(t *testing.T) {
	sigma, mu, gamma := markowitzData()
	n := len(mu)
	var chol mat.Cholesky
	if !chol.Factorize(sigma) {
		t.Fatal("Σ not PD")
	}
	ones := mat.NewVecDense(n, []float64{1, 1, 1, 1})
	var si1, simu mat.VecDense
	if err := chol.SolveVecTo(&si1, ones); err != nil {
		t.Fatal(err)
	}
	if err := chol.SolveVecTo(&simu, mat.NewVecDense(n, mu)); err != nil {
		t.Fatal(err)
	}
	lambda := (mat.Sum(&simu) - 2*gamma) / mat.Sum(&si1)
	want := make([]float64, n)
	for i := range want {
		want[i] = (simu.AtVec(i) - lambda*si1.AtVec(i)) / (2 * gamma)
	}
	var sx mat.VecDense
	sx.MulVec(sigma, mat.NewVecDense(n, want))
	wantObj := gamma*mat.Dot(mat.NewVecDense(n, want), &sx) - mat.Dot(mat.NewVecDense(n, mu), mat.NewVecDense(n, want))
	var L mat.TriDense
	chol.LTo(&L) // Σ = LLᵀ, so xᵀΣx = ‖Lᵀx‖²
	variants := []struct {
		name  string
		build func(m *Model, x *Var)
		sign  float64
	}{
		{"QuadForm", func(m *Model, x *Var) {
			m.Minimize(x.Expr().Dot(mu).Neg(), QuadForm(x.Expr(), sigma).Scale(gamma))
		}, 1},
		{"SumSquaresCholesky", func(m *Model, x *Var) {
			m.Minimize(x.Expr().Dot(mu).Neg(), SumSquares(MulDense(L.T(), x.Expr())).Scale(gamma))
		}, 1},
		{"SumSquaresLifted", func(m *Model, x *Var) {
			m.Minimize(x.Expr().Dot(mu).Neg(), SumSquares(MulDense(L.T(), x.Expr())).Scale(gamma).Lifted(true))
		}, 1},
		{"Maximize", func(m *Model, x *Var) {
			m.Maximize(x.Expr().Dot(mu), QuadForm(x.Expr(), sigma).Scale(gamma))
		}, -1},
	}
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			m := New("markowitz")
			x := m.Vector("x", n)
			budget := m.Equal("budget", x.Expr().Sum(), Const(1))
			v.build(m, x)
			res := solveOK(t, m)
			assertVec(t, "x", res.Value(x), want, 1e-6)
			if !close(res.Objective, v.sign*wantObj, 1e-7) {
				t.Errorf("objective %v, want %v", res.Objective, v.sign*wantObj)
			}
			// The Equal dual is the KKT multiplier of the minimized form.
			assertVec(t, "λ", res.Dual(budget), []float64{lambda}, 1e-6)
		})
	}
}

// TestLeastSquares compares min ‖Xw − y‖² (direct and lifted) with gonum's
// QR least-squares solution.
func TestLeastSquares(t *testing.T) {
	X := mat.NewDense(6, 3, []float64{
		1, 0.5, -1,
		1, 1.5, 0,
		1, -0.3, 2,
		1, 2.2, 1,
		1, 0.1, -0.5,
		1, 1.0, 0.7,
	})
	y := []float64{1.2, 2.9, 0.4, 4.1, 0.8, 2.5}
	var want mat.VecDense
	var qr mat.QR
	qr.Factorize(X)
	if err := qr.SolveVecTo(&want, false, mat.NewVecDense(6, y)); err != nil {
		t.Fatal(err)
	}
	for _, lift := range []bool{false, true} {
		m := New("ls")
		w := m.Vector("w", 3)
		r := MulDense(X, w.Expr()).Sub(Const(y...))
		m.Minimize(Expr{}, SumSquares(r).Lifted(lift))
		res := solveOK(t, m)
		assertVec(t, "w", res.Value(w), want.RawVector().Data, 1e-6)
		rv := res.ExprValue(r)
		ss := 0.0
		for _, v := range rv {
			ss += v * v
		}
		if !close(res.Objective, ss, 1e-7) {
			t.Errorf("lift=%v: objective %v, residual² %v", lift, res.Objective, ss)
		}
	}
}

// TestConicBackend: models with non-linear cones go to the interior-point
// backend; each has a hand-derived optimum.
func TestConicBackend(t *testing.T) {
	t.Run("SOC", func(t *testing.T) {
		// min x₁ + x₂ s.t. ‖x‖ ≤ 1: x = −(1,1)/√2, value −√2. Stationarity of
		// q − y_x = 0 gives y_x = (1, 1), complementarity y_t = ‖y_x‖ = √2.
		m := New("soc")
		x := m.Vector("x", 2)
		c := m.NormLessEq("soc1", x.Expr(), Const(1))
		m.Minimize(x.Expr().Sum())
		res := solveConic(t, m)
		checkObj(t, res, -math.Sqrt2)
		assertVec(t, "x", res.Value(x), []float64{-1 / math.Sqrt2, -1 / math.Sqrt2}, 1e-6)
		assertVec(t, "dual", res.Dual(c), []float64{math.Sqrt2, 1, 1}, 1e-6)
	})
	t.Run("RotatedSOC", func(t *testing.T) {
		// min u s.t. 2·u·1 ≥ 3² + 4²: u = 12.5.
		m := New("rsoc")
		u := m.Scalar("u")
		m.RotatedCone("r", u.Expr(), Const(1), Const(3, 4))
		m.Minimize(u.Expr())
		checkObj(t, solveConic(t, m), 12.5)
	})
	t.Run("PSD", func(t *testing.T) {
		// min tr(CX) s.t. tr(X) = 1, X ⪰ 0 has value λ_min(C).
		C := mat.NewSymDense(3, []float64{2, 1, 0, 1, 3, 1, 0, 1, 4})
		var eig mat.EigenSym
		eig.Factorize(C, false)
		lmin := eig.Values(nil)[0]
		m := New("sdp")
		X := m.Symmetric("X", 3)
		psd := m.PSD("X⪰0", X.Expr())
		m.Equal("trace", X.Expr().Dot([]float64{1, 0, 0, 0, 1, 0, 0, 0, 1}), Const(1))
		var cv []float64
		for i := 0; i < 3; i++ {
			for j := 0; j < 3; j++ {
				cv = append(cv, C.At(i, j))
			}
		}
		m.Minimize(X.Expr().Dot(cv))
		res := solveConic(t, m)
		checkObj(t, res, lmin)
		// The dual matrix Y = C − λ_min·I (from C − Y − λI = 0) is PSD and
		// singular.
		Y := res.Dual(psd)
		for i := 0; i < 3; i++ {
			for j := 0; j < 3; j++ {
				want := C.At(i, j)
				if i == j {
					want -= lmin
				}
				if !close(Y[i*3+j], want, 1e-5) {
					t.Fatalf("Y[%d,%d] = %v, want %v", i, j, Y[i*3+j], want)
				}
			}
		}
	})
	t.Run("Exp", func(t *testing.T) {
		// min t s.t. exp(x) ≤ t, x ≥ 2: value e².
		m := New("exp")
		x, tt := m.Scalar("x"), m.Scalar("t")
		m.ExpCone("e", x.Expr(), Const(1), tt.Expr())
		m.GreaterEq("x≥2", x.Expr(), Const(2))
		m.Minimize(tt.Expr())
		checkObj(t, solveConic(t, m), math.Exp(2))
	})
	t.Run("Power", func(t *testing.T) {
		// max z s.t. x^α y^(1−α) ≥ |z|, x + y = 1: value α^α (1−α)^(1−α).
		const a = 0.3
		m := New("pow")
		v := m.Vector("v", 3)
		m.PowerCone("p", v.At(0), v.At(1), v.At(2), a)
		m.Equal("sum", v.At(0).Add(v.At(1)), Const(1))
		m.Maximize(v.At(2))
		checkObj(t, solveConic(t, m), math.Pow(a, a)*math.Pow(1-a, 1-a))
	})
}

func solveConic(t *testing.T, m *Model) *Result {
	t.Helper()
	res, err := m.Solve(context.Background(), SolveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Status.OK() {
		t.Fatalf("status %v (%s)", res.Status, res.Diagnostic)
	}
	if res.Solution.Solver != "ipm" {
		t.Errorf("solver %q, want ipm", res.Solution.Solver)
	}
	return res
}

func checkObj(t *testing.T, res *Result, want float64) {
	t.Helper()
	if !close(res.Objective, want, 1e-6) {
		t.Errorf("objective %.9g, want %.9g", res.Objective, want)
	}
}

// fakeSolver returns a fixed solution, to test the inverse map's checks.
type fakeSolver struct{ sol *solver.Solution }

func (f fakeSolver) Name() string              { return "fake" }
func (f fakeSolver) Supports(k cone.Kind) bool { return k == cone.Zero || k == cone.Nonnegative }
func (f fakeSolver) Solve(ctx context.Context, p *solver.Problem, s solver.Settings) (*solver.Solution, error) {
	c := *f.sol
	return &c, nil
}

// TestNeverBadOptimal: a backend claiming optimality at an infeasible point,
// with NaN, or with wrong lengths is reported as NumericalError with no
// values.
func TestNeverBadOptimal(t *testing.T) {
	build := func() (*Model, *Var) {
		m := New("check")
		x := m.Vector("x", 2)
		m.LessEq("c", x.Expr().Sum(), Const(1))
		m.Minimize(x.Expr().Sum().Neg())
		return m, x
	}
	cases := []struct {
		name string
		sol  solver.Solution
		want solver.Status
	}{
		{"Feasible", solver.Solution{Status: solver.Optimal, X: []float64{0.5, 0.5}, Y: []float64{1}}, solver.Optimal},
		{"Infeasible", solver.Solution{Status: solver.Optimal, X: []float64{1, 1}, Y: []float64{1}}, solver.NumericalError},
		{"NaN", solver.Solution{Status: solver.Optimal, X: []float64{math.NaN(), 0}, Y: []float64{1}}, solver.NumericalError},
		{"Short", solver.Solution{Status: solver.AlmostOptimal, X: []float64{0}, Y: []float64{1}}, solver.NumericalError},
		{"AlmostOptimal", solver.Solution{Status: solver.AlmostOptimal, X: []float64{0.5, 0.5 + 1e-9}, Y: []float64{1}}, solver.AlmostOptimal},
		// A violation of 5e-5 (limit 1e-6·(1 + 1) for Optimal, 100× that for
		// AlmostOptimal) is accepted only at reduced accuracy.
		{"AlmostOptimalLoose", solver.Solution{Status: solver.AlmostOptimal, X: []float64{0.5, 0.5 + 5e-5}, Y: []float64{1}}, solver.AlmostOptimal},
		{"OptimalSameViolation", solver.Solution{Status: solver.Optimal, X: []float64{0.5, 0.5 + 5e-5}, Y: []float64{1}}, solver.NumericalError},
		{"Infeasible status", solver.Solution{Status: solver.PrimalInfeasible}, solver.PrimalInfeasible},
		{"TimeLimit", solver.Solution{Status: solver.TimeLimit, X: []float64{0.5, 0.5}}, solver.TimeLimit},
		{"IterationLimit", solver.Solution{Status: solver.IterationLimit}, solver.IterationLimit},
		{"NumericalError", solver.Solution{Status: solver.NumericalError}, solver.NumericalError},
	}
	for _, tc := range cases {
		m, x := build()
		res, err := m.Solve(context.Background(), SolveOptions{Solver: fakeSolver{&tc.sol}})
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != tc.want {
			t.Errorf("%s: status %v, want %v (%s)", tc.name, res.Status, tc.want, res.Diagnostic)
		}
		if (res.Value(x) != nil) != tc.want.OK() {
			t.Errorf("%s: values %v with status %v", tc.name, res.Value(x), res.Status)
		}
	}
}

func TestSolveContextAndOptions(t *testing.T) {
	m := New("ctx")
	x := m.Scalar("x")
	m.LessEq("c", x.Expr(), Const(1))
	m.Maximize(x.Expr())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := m.Solve(ctx, SolveOptions{})
	if err != nil || res.Status != solver.Cancelled {
		t.Errorf("cancelled context: %v, %v", res, err)
	}
	var stages []string
	res, err = m.Solve(context.Background(), SolveOptions{Progress: func(stage string, took time.Duration) { stages = append(stages, stage) }})
	if err != nil || !res.Status.OK() || strings.Join(stages, ",") != "canonicalize,solve,invert" {
		t.Errorf("progress stages %v (err %v)", stages, err)
	}
	_, err = m.Solve(context.Background(), SolveOptions{FeasibilityTol: math.NaN()})
	if !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("NaN tolerance: %v", err)
	}
	_, err = m.Solve(context.Background(), SolveOptions{Settings: solver.Settings{Threads: -1}})
	if !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("negative threads: %v", err)
	}
	// A backend that cannot take a cone is refused before solving.
	m2 := New("soc")
	y := m2.Vector("y", 2)
	m2.NormLessEq("n", y.Expr(), Const(1))
	_, err = m2.Solve(context.Background(), SolveOptions{Solver: fakeSolver{&solver.Solution{}}})
	if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), `constraint "n"`) {
		t.Errorf("unsupported cone: %v", err)
	}
}

// TestResultIndependentOfLaterBuilding: adding to a model after solving does
// not change the Result, and the model can be solved again.
func TestResultIndependentOfLaterBuilding(t *testing.T) {
	m := New("grow")
	x := m.Scalar("x")
	c := m.LessEq("c", x.Expr(), Const(1))
	m.Maximize(x.Expr())
	res := solveOK(t, m)
	y := m.Scalar("y")
	c2 := m.LessEq("c2", x.Expr().Add(y.Expr()), Const(0.5))
	m.Bound(y, 0, math.Inf(1))
	assertVec(t, "x", res.Value(x), []float64{1}, 1e-9)
	assertVec(t, "dual", res.Dual(c), []float64{1}, 1e-9)
	if res.Value(y) != nil || res.Dual(c2) != nil {
		t.Error("a Result must not report variables or constraints created after it")
	}
	res2 := solveOK(t, m)
	assertVec(t, "x after", res2.Value(x), []float64{0.5}, 1e-9)
}

// TestBoundDuals: minimize x − y s.t. 0 ≤ x ≤ 2, −1 ≤ y ≤ 3 (bounds only).
// The optimum x = 0, y = 3 has value −3; lowering x's lower bound or raising
// y's upper bound improves it by 1 per unit, the other bounds are inactive.
func TestBoundDuals(t *testing.T) {
	m := New("bd")
	v := m.Vector("v", 2)
	v.SetBounds([]float64{0, -1}, []float64{2, 3})
	m.Minimize(v.Expr().Dot([]float64{1, -1}))
	res := solveOK(t, m)
	checkObj(t, res, -3)
	lo, hi := res.BoundDuals(v)
	assertVec(t, "lower", lo, []float64{1, 0}, 1e-8)
	assertVec(t, "upper", hi, []float64{0, 1}, 1e-8)
}

// TestSymmetricBounds: bounds of (i,j) and (j,i) intersect on their shared
// column, and empty intersections are rejected.
func TestSymmetricBounds(t *testing.T) {
	m := New("sb")
	S := m.Symmetric("S", 2)
	inf := math.Inf(1)
	S.SetBounds([]float64{0, -1, -2, 0}, []float64{inf, 5, 3, inf})
	lo, hi := S.Bounds()
	assertVec(t, "lo", lo, []float64{0, -1, -1, 0}, 0)
	if hi[1] != 3 || hi[2] != 3 || !math.IsInf(hi[0], 1) {
		t.Errorf("hi = %v, want [+Inf 3 3 +Inf]", hi)
	}
	if m.Err() != nil {
		t.Fatal(m.Err())
	}
	S.SetBounds([]float64{0, 4, 0, 0}, []float64{1, 5, 3, 1})
	if !errors.Is(m.Err(), ErrInvalidArgument) {
		t.Errorf("empty intersection: %v", m.Err())
	}
}

// TestRandomFeasibleLPs: 20 random LPs min cᵀx s.t. Ax ≤ b, Ex = f,
// −1 ≤ x ≤ 2, built to be feasible (b = A·x₀ + slack, f = E·x₀ for a random x₀
// in the box) and bounded (the box). The returned point must satisfy every
// constraint to 1e-7, and the returned duals must certify optimality: y ≥ 0
// on inequality rows, stationarity q + Aᵀy = 0 and a relative duality gap
// |cᵀx − (−bᵀy)| ≤ 1e-7·(1 + |cᵀx|), all computed here from the standard form.
func TestRandomFeasibleLPs(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		rng := rand.New(rand.NewPCG(seed, 99))
		n, mi, me := 30, 20, 5
		m := New("rand")
		x := m.Vector("x", n)
		m.Bound(x, -1, 2)
		x0 := make([]float64, n)
		for j := range x0 {
			x0[j] = -1 + 3*rng.Float64()
		}
		ineq, _ := randAffine(rng, m, mi, 0.3)
		eq, _ := randAffine(rng, m, me, 0.3)
		slackv := make([]float64, mi)
		for i := range slackv {
			slackv[i] = rng.Float64()
		}
		iv := ineq.Eval(x0)
		for i := range iv {
			iv[i] += slackv[i]
		}
		m.LessEq("ineq", ineq, Const(iv...))
		m.Equal("eq", eq, Const(eq.Eval(x0)...))
		cost := randVec(rng, n)
		m.Minimize(x.Expr().Dot(cost))
		res := solveOK(t, m)
		xv := res.Value(x)
		for i, v := range ineq.Eval(xv) {
			if v > iv[i]+1e-7 {
				t.Fatalf("seed %d: inequality %d violated by %v", seed, i, v-iv[i])
			}
		}
		ev, want := eq.Eval(xv), eq.Eval(x0)
		for i := range ev {
			if math.Abs(ev[i]-want[i]) > 1e-7 {
				t.Fatalf("seed %d: equality %d violated by %v", seed, i, ev[i]-want[i])
			}
		}
		for j, v := range xv {
			if v < -1-1e-7 || v > 2+1e-7 {
				t.Fatalf("seed %d: x[%d] = %v outside [−1, 2]", seed, j, v)
			}
		}
		p := res.Canonical.Problem
		y := res.Solution.Y
		row := 0
		for _, k := range p.Cones {
			if k.Kind == cone.Nonnegative {
				for i := row; i < row+k.Dim; i++ {
					if y[i] < -1e-9 {
						t.Fatalf("seed %d: y[%d] = %v < 0 on an inequality row", seed, i, y[i])
					}
				}
			}
			row += k.Dim
		}
		grad := append([]float64(nil), p.Q...)
		p.A.MulTransVecTo(grad, 1, y, 1)
		for j, g := range grad {
			if math.Abs(g) > 1e-7 {
				t.Fatalf("seed %d: stationarity residual %v at column %d", seed, g, j)
			}
		}
		dualObj := p.R
		for i, bi := range p.B {
			dualObj -= bi * y[i]
		}
		if gap := math.Abs(res.Objective - dualObj); gap > 1e-7*(1+math.Abs(res.Objective)) {
			t.Fatalf("seed %d: duality gap %v (primal %v, dual %v)", seed, gap, res.Objective, dualObj)
		}
	}
}
