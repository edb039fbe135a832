package model_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/privopt/privopt/model"
	"github.com/privopt/privopt/solver/highs"
	"github.com/privopt/privopt/solver/ipm"
)

// paramLP builds min cᵀx s.t. Ax ≤ b, Σx = total, 0 ≤ x ≤ 10 with b either a
// parameter or a constant, and c either a parameter (AddObjectiveDot) or a
// constant.
type lpData struct {
	A     [][]float64
	b, c  []float64
	total float64
}

func randLP(rng *rand.Rand, m, n int) lpData {
	d := lpData{A: make([][]float64, m), b: make([]float64, m), c: make([]float64, n), total: float64(n)}
	for i := range d.A {
		d.A[i] = make([]float64, n)
		for j := range d.A[i] {
			d.A[i][j] = rng.Float64()
		}
		d.b[i] = 0.6*float64(n) + rng.Float64()
	}
	for j := range d.c {
		d.c[j] = rng.NormFloat64()
	}
	return d
}

func (d lpData) build(param bool) (*model.Model, *model.Var, *model.Constraint, *model.Param, *model.Param) {
	m := model.New("lp")
	x := m.Vector("x", len(d.c))
	m.Bound(x, 0, 10)
	var rows []model.Expr
	for _, a := range d.A {
		rows = append(rows, x.Expr().Dot(a))
	}
	var rhs model.Expr
	var pb, pc *model.Param
	if param {
		pb = m.Parameter("b", d.b...)
		rhs = pb.Expr()
	} else {
		rhs = model.Const(d.b...)
	}
	cap := m.LessEq("cap", model.Stack(rows...), rhs)
	m.Equal("total", x.Expr().Sum(), model.Const(d.total))
	if param {
		pc = m.Parameter("c", d.c...)
		m.Minimize(model.Expr{})
		m.AddObjectiveDot(pc, x.Expr())
	} else {
		m.Minimize(x.Expr().Dot(d.c))
	}
	return m, x, cap, pb, pc
}

// Re-solving through parameters (warm-started HiGHS) gives the optimum,
// primal values and duals of a model rebuilt with the new data and solved
// cold.
func TestPreparedLPMatchesRebuild(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 25))
	d := randLP(rng, 15, 30)
	m, x, cap, pb, pc := d.build(true)
	prep, err := m.Prepare(model.SolveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer prep.Close()
	if !prep.WarmStart() {
		t.Fatal("an LP on the default route should be warm-started")
	}
	for step := 0; step < 4; step++ {
		if step > 0 {
			for i := range d.b {
				d.b[i] *= 0.9 + 0.2*rng.Float64()
			}
			if err := prep.SetParam(pb, d.b...); err != nil {
				t.Fatal(err)
			}
			if step%2 == 0 {
				for j := range d.c {
					d.c[j] += 0.3 * rng.NormFloat64()
				}
				if err := prep.SetParam(pc, d.c...); err != nil {
					t.Fatal(err)
				}
			}
		}
		got, err := prep.Solve(context.Background())
		if err != nil || !got.Status.OK() {
			t.Fatalf("step %d: %v %v", step, err, got)
		}
		rm, rx, rcap, _, _ := d.build(false)
		want := solveOK(t, rm)
		near(t, "objective", got.Objective, want.Objective, 1e-7)
		gx, wx := got.Value(x), want.Value(rx)
		for j := range gx {
			near(t, "x", gx[j], wx[j], 1e-6)
		}
		gy, wy := got.Dual(cap), want.Dual(rcap)
		for i := range gy {
			near(t, "dual", gy[i], wy[i], 1e-6)
		}
		gl, gu := got.BoundDuals(x)
		wl, wu := want.BoundDuals(rx)
		for j := range gl {
			near(t, "lower bound dual", gl[j], wl[j], 1e-6)
			near(t, "upper bound dual", gu[j], wu[j], 1e-6)
		}
	}
}

// A conic program with a parametric centre: min ‖x − p‖₂ s.t. aᵀx ≤ 0 has the
// closed form max(aᵀp, 0)/‖a‖; Param.Set, Canonical.SetParam and Prepared
// (whose re-solves start the interior-point method from the previous
// solution) agree with it.
func TestParamConic(t *testing.T) {
	a := []float64{1, 2, 2}
	m := model.New("proj")
	x := m.Vector("x", 3)
	p := m.Parameter("p", 3, 0, 0)
	m.LessEq("half", x.Expr().Dot(a), model.Const(0))
	m.MinimizeFn(model.Norm2(model.AsFn(x).Sub(p)))
	prep, err := m.Prepare(model.SolveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if prep.WarmStart() {
		t.Fatal("an SOCP cannot be warm-started on HiGHS")
	}
	warm := 0
	for _, v := range [][]float64{{3, 0, 0}, {1, 1, 1}, {-1, 0, 0}, {0, 3, 3}, {0, 3.1, 2.9}} {
		want := math.Max(v[0]+2*v[1]+2*v[2], 0) / 3
		if err := prep.SetParam(p, v...); err != nil {
			t.Fatal(err)
		}
		res, err := prep.Solve(context.Background())
		if err != nil || !res.Status.OK() {
			t.Fatalf("%v %v", err, res)
		}
		if strings.HasPrefix(res.Diagnostic, "warm start") {
			warm++
		}
		near(t, "prepared objective", res.Objective, want, 1e-6)
		if err := p.Set(v...); err != nil {
			t.Fatal(err)
		}
		near(t, "model objective", solveOK(t, m).Objective, want, 1e-6)
	}
	if warm == 0 {
		t.Error("no re-solve started from the previous solution (ipm.Solver.SolveFrom)")
	}
}

// Parameters are data: wrong lengths, NaN and parameters inside a quadratic
// term are rejected with errors naming them.
func TestParamErrors(t *testing.T) {
	m := model.New("e")
	x := m.Vector("x", 2)
	p := m.Parameter("p", 1, 2)
	if err := p.Set(1); !errors.Is(err, model.ErrDimension) {
		t.Fatalf("Set with 1 value: %v", err)
	}
	if err := p.Set(1, math.NaN()); !errors.Is(err, model.ErrNotFinite) {
		t.Fatalf("Set with NaN: %v", err)
	}
	m.Minimize(model.Expr{}, model.SumSquares(x.Expr().Sub(p.Expr())))
	if err := m.Err(); !errors.Is(err, model.ErrInvalidArgument) {
		t.Fatalf("parameter in a quadratic: %v", err)
	}
	m2 := model.New("f")
	m2.Parameter("q", 1)
	m2.Parameter("q", 2)
	if err := m2.Err(); !errors.Is(err, model.ErrInvalidName) {
		t.Fatalf("duplicate parameter: %v", err)
	}
}

// RHSParam parameterizes the right-hand sides of constraints built with
// constants; re-solves match the closed form of a two-variable LP:
// max x + y s.t. x ≤ u, y ≤ v, x + y ≥ w (w small) → u + v.
func TestRHSParam(t *testing.T) {
	m := model.New("rhs")
	x := m.Vector("x", 2)
	cu := m.LessEq("u", x.At(0), model.Const(1))
	cv := m.GreaterEq("v", model.Const(2), x.At(1)) // y ≤ 2 written as 2 ≥ y
	cw := m.GreaterEq("w", x.Expr().Sum(), model.Const(-5))
	m.Maximize(x.Expr().Sum())
	pu, pv, pw := m.RHSParam("pu", cu), m.RHSParam("pv", cv), m.RHSParam("pw", cw)
	if pu.Value()[0] != 1 || pv.Value()[0] != -2 || pw.Value()[0] != -5 {
		t.Fatalf("initial values %v %v %v, want 1, −2 (2 ≥ y is −y ≥ −2), −5", pu.Value(), pv.Value(), pw.Value())
	}
	prep, err := m.Prepare(model.SolveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer prep.Close()
	for _, c := range [][2]float64{{1, 2}, {3, 4}, {-1, 0.5}} {
		if err := prep.SetParam(pu, c[0]); err != nil {
			t.Fatal(err)
		}
		if err := prep.SetParam(pv, -c[1]); err != nil {
			t.Fatal(err)
		}
		res, err := prep.Solve(context.Background())
		if err != nil || !res.Status.OK() {
			t.Fatalf("%v %v", err, res)
		}
		near(t, "objective", res.Objective, c[0]+c[1], 1e-9)
		near(t, "dual of u", res.Dual(cu)[0], 1, 1e-9)
	}
	if m.RHSParam("again", cu) != nil || m.Err() == nil {
		t.Fatal("a second RHSParam on one constraint must fail")
	}
}

// Parametric costs in a maximization: max pᵀx s.t. Σx ≤ 1, x ≥ 0 has the
// value maxᵢ pᵢ, for every p set through Prepared (warm) and Canonical.
func TestObjectiveParamMaximize(t *testing.T) {
	m := model.New("argmax")
	x := m.Vector("x", 3)
	m.Bound(x, 0, math.Inf(1))
	m.LessEq("simplex", x.Expr().Sum(), model.Const(1))
	p := m.Parameter("p", 1, 2, 3)
	m.Maximize(model.Expr{})
	m.AddObjectiveDot(p, x.Expr())
	prep, err := m.Prepare(model.SolveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer prep.Close()
	for _, v := range [][]float64{{1, 2, 3}, {5, -1, 0}, {-2, -3, -1}, {0.5, 4, 4.5}} {
		if err := prep.SetParam(p, v...); err != nil {
			t.Fatal(err)
		}
		res, err := prep.Solve(context.Background())
		if err != nil || !res.Status.OK() {
			t.Fatalf("%v %v", err, res)
		}
		want := math.Max(0, math.Max(v[0], math.Max(v[1], v[2])))
		near(t, "max pᵀx", res.Objective, want, 1e-9)
		can := prep.Canonical()
		if th := can.Theta(); th[0] != v[0] || th[2] != v[2] {
			t.Fatalf("Theta = %v, want %v", th, v)
		}
	}
}

// A QP prepared for an explicit HiGHS backend is re-solved by that backend
// (HiGHS's QP solver has no warm start): min Σ ½xᵢ² − pᵢxᵢ s.t. 0 ≤ x ≤ u
// has the closed form x = clip(p, 0, u), and the dual of xᵢ ≤ uᵢ is
// max(pᵢ − uᵢ, 0). A second, lifted QP (½‖Fx − g‖² + pᵀx) must match the
// interior-point method solved from scratch.
func TestPreparedQPHighs(t *testing.T) {
	m := model.New("clip")
	x := m.Vector("x", 3)
	m.Bound(x, 0, math.Inf(1))
	up := m.LessEq("up", x.Expr(), model.Const(1, 1, 1))
	u := m.RHSParam("u", up)
	p := m.Parameter("p", 0, 0, 0)
	m.Minimize(model.Expr{}, model.SumSquares(x.Expr()).Scale(0.5))
	m.AddObjectiveDot(p, x.Expr().Neg())
	prep, err := m.Prepare(model.SolveOptions{Solver: highs.New()})
	if err != nil {
		t.Fatal(err)
	}
	defer prep.Close()
	if prep.WarmStart() {
		t.Fatal("a QP on HiGHS has no warm start")
	}
	for _, c := range []struct{ p, u []float64 }{
		{[]float64{0.5, 2, -1}, []float64{1, 1, 1}},
		{[]float64{0.6, 2.5, -1}, []float64{1, 1, 1}}, // costs only: the old point stays feasible
		{[]float64{0.6, 2.5, 3}, []float64{0.2, 3, 1}},
	} {
		if err := prep.SetParam(p, c.p...); err != nil {
			t.Fatal(err)
		}
		if err := prep.SetParam(u, c.u...); err != nil {
			t.Fatal(err)
		}
		res, err := prep.Solve(context.Background())
		if err != nil || !res.Status.OK() {
			t.Fatalf("%v %+v", err, res)
		}
		if res.Solution.Solver != "highs" {
			t.Fatalf("answered by %q, want highs", res.Solution.Solver)
		}
		want := 0.0
		for i := range c.p {
			xi := math.Min(math.Max(c.p[i], 0), c.u[i])
			near(t, "x", res.Value(x)[i], xi, 1e-6)
			near(t, "dual of x ≤ u", res.Dual(up)[i], math.Max(c.p[i]-c.u[i], 0), 1e-6)
			want += 0.5*xi*xi - c.p[i]*xi
		}
		near(t, "objective", res.Objective, want, 1e-7)
	}

	rng := rand.New(rand.NewPCG(5, 5))
	F := mat.NewDense(6, 4, nil)
	for i := 0; i < 6; i++ {
		for j := 0; j < 4; j++ {
			F.Set(i, j, rng.NormFloat64())
		}
	}
	g := model.Const(randVecT(rng, 6)...)
	m2 := model.New("lifted")
	y := m2.Vector("y", 4)
	m2.Bound(y, -1, 1)
	q := m2.Parameter("q", 0, 0, 0, 0)
	m2.Minimize(model.Expr{}, model.SumSquares(model.MulDense(F, y.Expr()).Sub(g)).Scale(0.5))
	m2.AddObjectiveDot(q, y.Expr())
	prep2, err := m2.Prepare(model.SolveOptions{Solver: highs.New()})
	if err != nil {
		t.Fatal(err)
	}
	defer prep2.Close()
	for k := 0; k < 3; k++ {
		qv := randVecT(rng, 4)
		if err := prep2.SetParam(q, qv...); err != nil {
			t.Fatal(err)
		}
		res, err := prep2.Solve(context.Background())
		if err != nil || !res.Status.OK() {
			t.Fatalf("%v %+v", err, res)
		}
		if err := q.Set(qv...); err != nil {
			t.Fatal(err)
		}
		ref, err := m2.Solve(context.Background(), model.SolveOptions{Solver: ipm.New()})
		if err != nil || !ref.Status.OK() {
			t.Fatalf("ipm: %v %+v", err, ref)
		}
		near(t, "lifted QP objective (HiGHS vs IPM)", res.Objective, ref.Objective, 1e-6)
		for i, v := range ref.Value(y) {
			near(t, "y", res.Value(y)[i], v, 1e-4)
		}
	}
}

func randVecT(rng *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	return v
}

// SetIPMWarmStart(false) makes every re-solve start cold (no "warm start"
// diagnostic) with the same answers.
func TestPreparedIPMWarmStartOff(t *testing.T) {
	m := model.New("proj")
	x := m.Vector("x", 3)
	p := m.Parameter("p", 3, 0, 0)
	m.LessEq("half", x.Expr().Dot([]float64{1, 2, 2}), model.Const(0))
	m.MinimizeFn(model.Norm2(model.AsFn(x).Sub(p)))
	prep, err := m.Prepare(model.SolveOptions{Solver: ipm.New()})
	if err != nil {
		t.Fatal(err)
	}
	prep.SetIPMWarmStart(false)
	for _, v := range [][]float64{{3, 0, 0}, {3, 0.1, 0}, {1, 1, 1}} {
		if err := prep.SetParam(p, v...); err != nil {
			t.Fatal(err)
		}
		res, err := prep.Solve(context.Background())
		if err != nil || !res.Status.OK() {
			t.Fatalf("%v %v", err, res)
		}
		if strings.Contains(res.Diagnostic, "warm start") {
			t.Fatalf("warm start after SetIPMWarmStart(false): %q", res.Diagnostic)
		}
		near(t, "objective", res.Objective, math.Max(v[0]+2*v[1]+2*v[2], 0)/3, 1e-6)
	}
}
