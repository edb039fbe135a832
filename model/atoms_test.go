package model_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/privopt/privopt/model"
)

// solveOK solves m and fails the test unless the status is OK.
func solveOK(t *testing.T, m *model.Model) *model.Result {
	t.Helper()
	res, err := m.Solve(context.Background(), model.SolveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Status.OK() {
		t.Fatalf("status %v (%s)", res.Status, res.Diagnostic)
	}
	return res
}

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol*(1+math.Abs(want)) {
		t.Errorf("%s = %.9g, want %.9g (tol %g)", what, got, want, tol)
	}
}

// Every atom in a small program whose optimum has a closed form; the
// objective of the canonicalized program and the atom's own value at the
// solution (Result.FnValue) must both match it.
func TestAtomsClosedForm(t *testing.T) {
	const tol = 2e-6
	a := []float64{1, 2, 2} // ‖a‖₂ = 3, ‖a‖₁ = 5
	P := []float64{2, 0.5, 0, 0.5, 1, 0.2, 0, 0.2, 1.5}
	type tc struct {
		name  string
		build func(m *model.Model) model.Fn
		want  float64
	}
	cases := []tc{
		{"Abs", func(m *model.Model) model.Fn { // min Σ|xᵢ| s.t. x₀ + 2x₁ = 4: x₁ = 2
			x := m.Vector("x", 2)
			m.Equal("e", x.Expr().Dot([]float64{1, 2}), model.Const(4))
			f := model.Abs(x).Sum()
			m.MinimizeFn(f)
			return f
		}, 2},
		{"Pos", func(m *model.Model) model.Fn { // max x s.t. Σ pos(x − cᵢ) ≤ 1, c = (0,1,2): x = 1
			x := m.Scalar("x")
			f := model.Pos(model.Const(0, 1, 2).Neg().Add(x.Expr())).Sum()
			m.LessEqFn("p", f, model.Const(1))
			m.MaximizeFn(x)
			return model.AsFn(x.Expr())
		}, 1},
		{"Maximum", func(m *model.Model) model.Fn { // min max(x, 2 − x, 0.5) = 1
			x := m.Scalar("x")
			f := model.Maximum(x, model.Const(2).Sub(x.Expr()), model.Const(0.5))
			m.MinimizeFn(f)
			return f
		}, 1},
		{"Minimum", func(m *model.Model) model.Fn { // max min(x, 4 − 2x) = 4/3
			x := m.Scalar("x")
			f := model.Minimum(x, model.Const(4).Sub(x.Expr().Scale(2)))
			m.MaximizeFn(f)
			return f
		}, 4.0 / 3},
		{"Max", func(m *model.Model) model.Fn { // min maxᵢ xᵢ s.t. Σx = 3
			x := m.Vector("x", 3)
			m.Equal("s", x.Expr().Sum(), model.Const(3))
			f := model.Max(x)
			m.MinimizeFn(f)
			return f
		}, 1},
		{"Min", func(m *model.Model) model.Fn { // max minᵢ xᵢ s.t. Σx = 3
			x := m.Vector("x", 3)
			m.Equal("s", x.Expr().Sum(), model.Const(3))
			f := model.Min(x)
			m.MaximizeFn(f)
			return f
		}, 1},
		{"Norm1", func(m *model.Model) model.Fn { // min ‖x‖₁ s.t. aᵀx = 10: 10/max|aᵢ|
			x := m.Vector("x", 3)
			m.Equal("e", x.Expr().Dot(a), model.Const(10))
			f := model.Norm1(x)
			m.MinimizeFn(f)
			return f
		}, 5},
		{"Norm2", func(m *model.Model) model.Fn { // min ‖x‖₂ s.t. aᵀx = 6: 6/‖a‖₂
			x := m.Vector("x", 3)
			m.Equal("e", x.Expr().Dot(a), model.Const(6))
			f := model.Norm2(x)
			m.MinimizeFn(f)
			return f
		}, 2},
		{"NormInf", func(m *model.Model) model.Fn { // min ‖x‖∞ s.t. aᵀx = 10: 10/‖a‖₁
			x := m.Vector("x", 3)
			m.Equal("e", x.Expr().Dot(a), model.Const(10))
			f := model.NormInf(x)
			m.MinimizeFn(f)
			return f
		}, 2},
		{"SumSquares", func(m *model.Model) model.Fn { // through a rotated cone: min max(‖x‖², 0) s.t. aᵀx = 6: 36/9
			x := m.Vector("x", 3)
			m.Equal("e", x.Expr().Dot(a), model.Const(6))
			f := model.Maximum(model.SumSquares(x.Expr()), model.Const(0))
			m.MinimizeFn(f)
			return f
		}, 4},
		{"QuadForm", func(m *model.Model) model.Fn { // min xᵀQx s.t. 1ᵀx = 1: 1/(1ᵀQ⁻¹1), Q = diag(1,2,4)
			x := m.Vector("x", 3)
			m.Equal("e", x.Expr().Sum(), model.Const(1))
			q := model.QuadForm(x.Expr(), mat.NewSymDense(3, []float64{1, 0, 0, 0, 2, 0, 0, 0, 4}))
			tv := m.Scalar("t")
			m.LessEqFn("q", q, tv)
			m.MinimizeFn(tv)
			return model.AsFn(q)
		}, 1 / (1 + 0.5 + 0.25)},
		{"QuadOverLin", func(m *model.Model) model.Fn { // min ‖x‖²/y + y, x = (1,2): 2√5
			x := m.Vector("x", 2)
			y := m.Scalar("y")
			m.Equal("x", x.Expr(), model.Const(1, 2))
			f := model.QuadOverLin(x, y).Add(y)
			m.MinimizeFn(f)
			return f
		}, 2 * math.Sqrt(5)},
		{"Huber", func(m *model.Model) model.Fn { // x ≥ (3, 0.5), M = 1: (2·3 − 1) + 0.25
			x := m.Vector("x", 2)
			m.GreaterEq("lo", x.Expr(), model.Const(3, 0.5))
			f := model.Huber(x, 1).Sum()
			m.MinimizeFn(f)
			return f
		}, 5.25},
		{"LogSumExp", func(m *model.Model) model.Fn { // min lse(x) s.t. Σx = 3 (n = 3): log 3 + 1
			x := m.Vector("x", 3)
			m.Equal("s", x.Expr().Sum(), model.Const(3))
			f := model.LogSumExp(x)
			m.MinimizeFn(f)
			return f
		}, math.Log(3) + 1},
		{"Exp", func(m *model.Model) model.Fn { // min eˣ − 2x: x = ln 2, 2 − 2 ln 2
			x := m.Scalar("x")
			f := model.Exp(x).Sub(x.Expr().Scale(2))
			m.MinimizeFn(f)
			return f
		}, 2 - 2*math.Ln2},
		{"Log", func(m *model.Model) model.Fn { // max Σ log xᵢ s.t. Σx = 1 (n = 3): −3 log 3
			x := m.Vector("x", 3)
			m.Equal("s", x.Expr().Sum(), model.Const(1))
			f := model.Log(x).Sum()
			m.MaximizeFn(f)
			return f
		}, -3 * math.Log(3)},
		{"Entr", func(m *model.Model) model.Fn { // max entropy s.t. Σx = 1 (n = 4): log 4
			x := m.Vector("x", 4)
			m.Equal("s", x.Expr().Sum(), model.Const(1))
			f := model.Entr(x).Sum()
			m.MaximizeFn(f)
			return f
		}, math.Log(4)},
		{"GeoMean", func(m *model.Model) model.Fn { // max Πxᵢ^wᵢ s.t. Σx = 1: x = w, Π wᵢ^wᵢ
			x := m.Vector("x", 4)
			m.Equal("s", x.Expr().Sum(), model.Const(1))
			f := model.GeoMean(x, 1, 2, 3, 4)
			m.MaximizeFn(f)
			return f
		}, math.Pow(0.1, 0.1) * math.Pow(0.2, 0.2) * math.Pow(0.3, 0.3) * math.Pow(0.4, 0.4)},
		{"LogDet", func(m *model.Model) model.Fn { // max log det X − tr(SX): X = S⁻¹, −log det S − n
			S := []float64{2, 0.5, 0, 0.5, 1, 0.2, 0, 0.2, 1.5}
			X := m.Symmetric("X", 3)
			f := model.LogDet(X).Sub(X.Expr().Dot(S))
			m.MaximizeFn(f)
			return f
		}, -math.Log(2*(1*1.5-0.04)-0.5*(0.5*1.5)) - 3},
		{"LambdaMax", func(m *model.Model) model.Fn { // min λmax(A + xB), A ~ diag(1,3,0), B ~ diag(1,−1,0): 2
			Q := rotation3()
			A := conj(Q, []float64{1, 3, 0})
			B := conj(Q, []float64{1, -1, 0})
			x := m.Scalar("x")
			X := model.ConstMatrix(mat.NewDense(3, 3, A)).Add(model.MulDense(mat.NewDense(9, 1, B), x.Expr()))
			f := model.LambdaMax(X)
			m.MinimizeFn(f)
			return f
		}, 2},
		{"MatrixFrac", func(m *model.Model) model.Fn { // min xᵀP⁻¹x s.t. aᵀx = 1: 1/(aᵀPa)
			x := m.Vector("x", 3)
			m.Equal("e", x.Expr().Dot(a), model.Const(1))
			f := model.MatrixFrac(x, model.Reshape(model.Const(P...), 3, 3))
			m.MinimizeFn(f)
			return f
		}, 1 / quad(P, a)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := model.New(c.name)
			f := c.build(m)
			if err := f.DCPError(); err != nil {
				t.Fatal(err)
			}
			res := solveOK(t, m)
			near(t, "objective", res.Objective, c.want, tol)
			v := res.FnValue(f)
			if len(v) != 1 {
				t.Fatalf("FnValue = %v", v)
			}
			near(t, "FnValue", v[0], c.want, 1e-4)
		})
	}
}

// rotation3 returns a fixed 3×3 rotation (row-major).
func rotation3() []float64 {
	c1, s1, c2, s2 := math.Cos(0.7), math.Sin(0.7), math.Cos(-1.1), math.Sin(-1.1)
	rz := []float64{c1, -s1, 0, s1, c1, 0, 0, 0, 1}
	rx := []float64{1, 0, 0, 0, c2, -s2, 0, s2, c2}
	out := make([]float64, 9)
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			for k := 0; k < 3; k++ {
				out[i*3+j] += rz[i*3+k] * rx[k*3+j]
			}
		}
	}
	return out
}

// conj returns Q diag(d) Qᵀ (row-major, exactly symmetric).
func conj(Q, d []float64) []float64 {
	n := len(d)
	out := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			s := 0.0
			for k := 0; k < n; k++ {
				s += Q[i*n+k] * d[k] * Q[j*n+k]
			}
			out[i*n+j], out[j*n+i] = s, s
		}
	}
	return out
}

// quad returns aᵀPa for a row-major n×n P.
func quad(P, a []float64) float64 {
	s := 0.0
	for i := range a {
		for j := range a {
			s += a[i] * P[i*len(a)+j] * a[j]
		}
	}
	return s
}

// DCP violations are reported when the expression is used, naming the use,
// the offending subexpression and the rule, in the style of CVXPY.
func TestDCPErrors(t *testing.T) {
	cases := []struct {
		name  string
		build func(m *model.Model, x *model.Var)
		want  string
	}{
		{"maximize convex", func(m *model.Model, x *model.Var) { m.MaximizeFn(model.Norm2(x)) },
			"Maximize(Norm2(x)): maximizing a convex expression is not DCP"},
		{"minimize concave", func(m *model.Model, x *model.Var) { m.MinimizeFn(model.Log(x).Sum()) },
			"Minimize(Sum(Log(x))): minimizing a concave expression is not DCP"},
		{"convex of concave", func(m *model.Model, x *model.Var) { m.MinimizeFn(model.Exp(model.Log(x)).Sum()) },
			"Exp(Log(x)): argument 1, Log(x), is concave and Exp is increasing in it; a convex atom must be increasing in a convex argument or decreasing in a concave one"},
		{"abs of signless convex", func(m *model.Model, x *model.Var) {
			m.MinimizeFn(model.Abs(model.Norm2(x).Sub(model.Const(1))))
		}, "Abs(Norm2(x) - 1): argument 1, Norm2(x) - 1, is convex and Abs is increasing for x ≥ 0, decreasing for x ≤ 0 in it"},
		{"convex plus concave", func(m *model.Model, x *model.Var) { m.MinimizeFn(model.Norm2(x).Add(model.Log(x.At(0)))) },
			"adding a convex term (Norm2(x)) and a concave term (Log(x[0]))"},
		{"concave ≤", func(m *model.Model, x *model.Var) { m.LessEqFn("cap", model.Log(x.At(1)), model.Const(1)) },
			`LessEqFn "cap" (Log(x[1]) <= 1): Log(x[1]) is concave; a DCP inequality needs a convex side ≤ a concave side`},
		{"convex ≥", func(m *model.Model, x *model.Var) { m.GreaterEqFn("floor", model.Const(1), model.Exp(x).Sum().Neg()) },
			`GreaterEqFn "floor" (1 >= -Sum(Exp(x))): -Sum(Exp(x)) is concave`},
		{"logdet of non-affine", func(m *model.Model, x *model.Var) {
			m.MaximizeFn(model.LogDet(model.Abs(m.Symmetric("X", 2))))
		}, "LogDet(Abs(X)): argument 1, Abs(X), is convex and LogDet is nonmonotone in it"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := model.New("dcp")
			x := m.Vector("x", 3)
			c.build(m, x)
			err := m.Err()
			if err == nil || !errors.Is(err, model.ErrNotDCP) || !errors.Is(err, model.ErrNonConvex) {
				t.Fatalf("error %v, want one wrapping ErrNotDCP", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error\n  %v\nwant it to contain\n  %s", err, c.want)
			}
		})
	}
}

// Curvature and sign follow the composition rules.
func TestCurvatureSign(t *testing.T) {
	m := model.New("c")
	x := m.Vector("x", 3)
	for _, c := range []struct {
		f    model.Fn
		curv model.Curvature
		sign model.Sign
	}{
		{model.AsFn(x), model.Affine, model.UnknownSign},
		{model.AsFn(model.Const(1, 2)), model.Constant, model.Nonneg},
		{model.Norm2(x), model.Convex, model.Nonneg},
		{model.Norm2(x).Neg(), model.Concave, model.Nonpos},
		{model.Abs(model.Abs(x)), model.Convex, model.Nonneg},
		{model.Log(x).Sum().Scale(2), model.Concave, model.UnknownSign},
		{model.Minimum(model.Log(x), model.GeoMean(x)), model.Concave, model.UnknownSign},
		{model.QuadOverLin(model.Pos(x), model.Log(x.At(0))), model.Convex, model.Nonneg},
		{model.Entr(model.Exp(x)), model.UnknownCurvature, model.UnknownSign},
	} {
		if c.f.Curvature() != c.curv || c.f.Sign() != c.sign {
			t.Errorf("%s: curvature %v, sign %v; want %v, %v", c.f, c.f.Curvature(), c.f.Sign(), c.curv, c.sign)
		}
	}
}

// The dual of a DCP constraint is the multiplier of the user's inequality:
// min cᵀx s.t. ‖x‖₂ ≤ r has p*(r) = −r‖c‖, so the dual (improvement per unit
// of r) is ‖c‖; the dual of Σ log xᵢ = … is checked through an equality.
func TestFnConstraintDual(t *testing.T) {
	m := model.New("ball")
	x := m.Vector("x", 3)
	c := []float64{1, 2, 2}
	ball := m.LessEqFn("ball", model.Norm2(x), model.Const(2))
	m.Minimize(x.Expr().Dot(c))
	res := solveOK(t, m)
	near(t, "objective", res.Objective, -6, 1e-6)
	near(t, "dual", res.Dual(ball)[0], 3, 1e-5)

	// max Σ log xᵢ s.t. Σx = s (n = 3): p*(s) = 3 log(s/3), ∂p*/∂s = 3/s.
	m = model.New("budget")
	y := m.Vector("y", 3)
	budget := m.Equal("budget", y.Expr().Sum(), model.Const(2))
	m.MaximizeFn(model.Log(y).Sum())
	res = solveOK(t, m)
	near(t, "objective", res.Objective, 3*math.Log(2.0/3), 1e-6)
	near(t, "dual", res.Dual(budget)[0], 1.5, 1e-5)
}

// Atoms never panic on bad arguments: empty, mismatched, NaN, another
// model's variables; the error is recorded when the expression is used.
func TestAtomsBadArguments(t *testing.T) {
	other := model.New("other")
	y := other.Vector("y", 2)
	for _, c := range []struct {
		name  string
		build func(m *model.Model, x *model.Var) model.Fn
	}{
		{"empty GeoMean", func(m *model.Model, x *model.Var) model.Fn { return model.GeoMean(model.Expr{}) }},
		{"negative weight", func(m *model.Model, x *model.Var) model.Fn { return model.GeoMean(x, 1, -1, 1) }},
		{"weights length", func(m *model.Model, x *model.Var) model.Fn { return model.GeoMean(x, 1, 1) }},
		{"Huber M", func(m *model.Model, x *model.Var) model.Fn { return model.Huber(x, math.NaN()) }},
		{"Maximum none", func(m *model.Model, x *model.Var) model.Fn { return model.Maximum() }},
		{"Maximum lengths", func(m *model.Model, x *model.Var) model.Fn { return model.Maximum(x, model.Const(1, 2)) }},
		{"QuadOverLin y", func(m *model.Model, x *model.Var) model.Fn { return model.QuadOverLin(x, x) }},
		{"LogDet vector", func(m *model.Model, x *model.Var) model.Fn { return model.LogDet(x) }},
		{"LogDet asymmetric", func(m *model.Model, x *model.Var) model.Fn {
			return model.LogDet(m.Matrix("A", 2, 2))
		}},
		{"MatrixFrac sizes", func(m *model.Model, x *model.Var) model.Fn { return model.MatrixFrac(x, m.Symmetric("P", 2)) }},
		{"NaN constant", func(m *model.Model, x *model.Var) model.Fn { return model.Norm2(model.Const(math.NaN())) }},
		{"two models", func(m *model.Model, x *model.Var) model.Fn { return model.Norm2(x).Add(model.Norm1(y)) }},
		{"other model", func(m *model.Model, x *model.Var) model.Fn { return model.Norm2(y) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := model.New("bad")
			x := m.Vector("x", 3)
			f := c.build(m, x)
			m.MinimizeFn(model.Pos(f.Sum()))
			if m.Err() == nil {
				t.Fatalf("%s: no error recorded", f)
			}
		})
	}
}
