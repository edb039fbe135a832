package model_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privopt/privopt/model"
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
// agree with it.
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
	for _, v := range [][]float64{{3, 0, 0}, {1, 1, 1}, {-1, 0, 0}, {0, 3, 3}} {
		want := math.Max(v[0]+2*v[1]+2*v[2], 0) / 3
		if err := prep.SetParam(p, v...); err != nil {
			t.Fatal(err)
		}
		res, err := prep.Solve(context.Background())
		if err != nil || !res.Status.OK() {
			t.Fatalf("%v %v", err, res)
		}
		near(t, "prepared objective", res.Objective, want, 1e-6)
		if err := p.Set(v...); err != nil {
			t.Fatal(err)
		}
		near(t, "model objective", solveOK(t, m).Objective, want, 1e-6)
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
