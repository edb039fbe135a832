package noise

import (
	"fmt"
	"math"
)

// Loss is a noise loss c: ℝ → ℝ₊ for the optimal-noise problem. Besides c it
// provides the two quantities the bounding problems need on a cell [a, b):
// the average (1/(b−a))∫c (upper bound P(π,β)) and the infimum (lower bound
// D(π,β)).
//
// Losses must satisfy Assumption 1 of Selvi, Liu & Wiesemann (continuous,
// c(x) → ∞ as |x| → ∞); this package further requires them to be nonincreasing
// on (−∞, 0] and nondecreasing on [0, ∞), which makes the cell infimum exact
// (the value at the endpoint nearer 0, or c(0) if the cell contains 0).
type Loss struct {
	Name string                  // "l1", "l2", "pinball:τ" or a user name
	Func func(x float64) float64 // c(x)
	avg  func(a, b float64) float64
	// smooth records a declared bound on the curvature (sup c″ away from 0)
	// and on the slope jump of c at 0; it enables the dithered lower bound.
	smooth    bool
	curvature float64
	kink      float64
	symmetric bool // c(x) = c(−x) exactly (L1, L2)
}

// WithSmoothness declares that c is continuously differentiable on each side
// of 0 with a derivative that grows at rate at most curvature
// (c′(y) − c′(x) ≤ curvature·(y − x) for x < y on the same side; for example
// piecewise twice differentiable with c″ ≤ curvature), and that its slope
// jumps by at most kink at 0 (c′(0⁺) − c′(0⁻) ≤ kink). Optimize then bounds the optimal loss
// from below with the dithered relaxation (see OptimalOptions.PaperLowerBound),
// which is far tighter than the paper's cell-infimum bound at the same grid.
// The declaration is not checked: a wrong one makes the lower bound invalid.
// L1 (0, 2), L2 (2, 0) and Pinball(τ) (0, 1) carry it already.
func (l Loss) WithSmoothness(curvature, kink float64) (Loss, error) {
	if !(curvature >= 0) || math.IsInf(curvature, 0) {
		return Loss{}, paramErr("Curvature", curvature, "must be ≥ 0 and finite")
	}
	if !(kink >= 0) || math.IsInf(kink, 0) {
		return Loss{}, paramErr("Kink", kink, "must be ≥ 0 and finite")
	}
	l.smooth, l.curvature, l.kink = true, curvature, kink
	return l, nil
}

// L1 returns c(x) = |x| (noise amplitude).
func L1() Loss {
	return Loss{Name: "l1", Func: math.Abs, smooth: true, symmetric: true, kink: 2, avg: func(a, b float64) float64 {
		if a >= 0 {
			return (a + b) / 2
		}
		if b <= 0 {
			return -(a + b) / 2
		}
		return (a*a + b*b) / (2 * (b - a))
	}}
}

// L2 returns c(x) = x² (noise power).
func L2() Loss {
	return Loss{Name: "l2", Func: func(x float64) float64 { return x * x }, smooth: true, curvature: 2, symmetric: true, avg: func(a, b float64) float64 {
		return (a*a + a*b + b*b) / 3
	}}
}

// Pinball returns the pinball (quantile) loss c(x) = max(τx, (τ−1)x) for
// τ ∈ (0, 1); τ outside (0, 1) violates Assumption 1(b) (c bounded on a side).
func Pinball(tau float64) (Loss, error) {
	if !(tau > 0 && tau < 1) {
		return Loss{}, paramErr("Tau", tau, "must be in (0, 1) (otherwise the pinball loss is bounded on one side, violating Assumption 1)")
	}
	f := func(x float64) float64 { return math.Max(tau*x, (tau-1)*x) }
	return Loss{Name: fmt.Sprintf("pinball:%g", tau), Func: f, smooth: true, kink: 1, avg: func(a, b float64) float64 {
		if a >= 0 {
			return tau * (a + b) / 2
		}
		if b <= 0 {
			return (tau - 1) * (a + b) / 2
		}
		return (tau*b*b + (1-tau)*a*a) / (2 * (b - a))
	}}, nil
}

// CustomLoss wraps a user loss c. It checks, on a grid of 4001 points in
// [−scale·1e3, scale·1e3] (scale > 0 is the caller's unit, e.g. the
// sensitivity), that c is finite and ≥ 0, nonincreasing left of 0,
// nondecreasing right of 0, and strictly larger at ±scale·1e3 than at
// ±scale·500 (a necessary sign of Assumption 1(b)). Cell averages use 8-point Gauss–Legendre
// quadrature on 4 sub-cells.
func CustomLoss(name string, c func(float64) float64, scale float64) (Loss, error) {
	if c == nil {
		return Loss{}, paramErr("Loss", "nil", "must be a function")
	}
	if !(scale > 0) || math.IsInf(scale, 0) {
		return Loss{}, paramErr("Scale", scale, "must be > 0 and finite")
	}
	R := scale * 1e3
	const n = 2000
	prev := c(0)
	if math.IsNaN(prev) || math.IsInf(prev, 0) || prev < 0 {
		return Loss{}, paramErr("Loss", fmt.Sprintf("%s(0)=%g", name, prev), "must be finite and ≥ 0")
	}
	for _, sgn := range []float64{1, -1} {
		last := prev
		for i := 1; i <= n; i++ {
			x := sgn * R * float64(i) / n
			v := c(x)
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				return Loss{}, paramErr("Loss", fmt.Sprintf("%s(%g)=%g", name, x, v), "must be finite and ≥ 0")
			}
			if v < last {
				return Loss{}, paramErr("Loss", fmt.Sprintf("%s(%g)=%g < %s(%g)", name, x, v, name, x-sgn*R/n), "must be nondecreasing in |x| on each side of 0")
			}
			last = v
		}
		if !(last > c(sgn*R/2)) {
			return Loss{}, paramErr("Loss", name, fmt.Sprintf("must still grow at ±%g (Assumption 1(b): c(x) → ∞ as |x| → ∞)", R))
		}
	}
	return Loss{Name: name, Func: c}, nil
}

// Symmetric reports whether c(x) = c(−x) holds exactly by construction (L1,
// L2). Optimize keeps its Symmetric restriction in the lower bound only then.
func (l Loss) Symmetric() bool { return l.symmetric }

// validate checks a Loss built outside the constructors.
func (l Loss) validate() error {
	if l.Func == nil {
		return paramErr("Loss", l.Name, "has no function (use L1, L2, Pinball or CustomLoss)")
	}
	return nil
}

// Average returns (1/(b−a))∫_a^b c(x)dx.
func (l Loss) Average(a, b float64) float64 {
	if l.avg != nil {
		return l.avg(a, b)
	}
	// Composite 8-point Gauss–Legendre on 4 sub-cells.
	const m = 4
	h := (b - a) / m
	s := 0.0
	for k := 0; k < m; k++ {
		c0 := a + (float64(k)+0.5)*h
		for i, x := range glNodes {
			s += glWeights[i] * l.Func(c0+0.5*h*x)
		}
	}
	return s / (2 * m)
}

// Inf returns inf{c(x) : x ∈ [a, b]} for a loss monotone on each side of 0.
func (l Loss) Inf(a, b float64) float64 {
	switch {
	case a >= 0:
		return l.Func(a)
	case b <= 0:
		return l.Func(b)
	}
	return l.Func(0)
}

var glNodes = [8]float64{-0.9602898564975363, -0.7966664774136267, -0.5255324099163290, -0.1834346424956498,
	0.1834346424956498, 0.5255324099163290, 0.7966664774136267, 0.9602898564975363}
var glWeights = [8]float64{0.1012285362903763, 0.2223810344533745, 0.3137066458778873, 0.3626837833783620,
	0.3626837833783620, 0.3137066458778873, 0.2223810344533745, 0.1012285362903763}
