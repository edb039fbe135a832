package ipm

import (
	"context"
	"fmt"
	"math"

	"github.com/privopt/privopt/solver"
)

// warmStart is a previous solution (x, s, y of the standard form) and the
// weight ω of SolveFrom.
type warmStart struct {
	x, s, y []float64
	omega   float64
}

// DefaultWarmWeight is the weight ω of the previous solution in SolveFrom's
// starting point when the caller passes 0.
const DefaultWarmWeight = 0.99

// SolveFrom is Solve started from a previous solution prev of a problem with
// the same dimensions and cones (typically the same problem with changed b
// or q): the starting point is the convex combination
//
//	(x₀, s₀, z₀) = ω·(x, s, y)_prev + (1 − ω)·(x, s, z)_cold,  τ₀ = 1,
//	κ₀ = (1 − ω)·κ_cold,
//
// of prev (mapped to the solver's equilibrated coordinates) and the cold
// starting point of Solve, which lies in the interior of the cones, so the
// combination does for ω < 1 (Skajaa, Andersen and Ye 2013, "Warmstarting
// the homogeneous and self-dual interior point method for linear and conic
// quadratic problems", Math. Prog. Comp. 5, §3). omega = 0 means
// DefaultWarmWeight; it must lie in [0, 1). prev without X, S and Y of the
// problem's dimensions (for example an infeasible or failed solve) gives a
// cold start. The answer is certified like Solve's.
//
// Whether it helps is problem-dependent: an optimal prev lies on the
// boundary of the cones, far from the central path the method follows, and
// the iteration counts measured in BENCHMARKS.md ("Modelling layer, round 2")
// show when it does not.
func (sv *Solver) SolveFrom(ctx context.Context, p *solver.Problem, s solver.Settings, prev *solver.Solution, omega float64) (*solver.Solution, error) {
	if math.IsNaN(omega) || omega < 0 || omega >= 1 {
		return nil, fmt.Errorf("%w: SolveFrom: omega is %v, must be in [0, 1)", ErrInvalidSettings, omega)
	}
	if omega == 0 {
		omega = DefaultWarmWeight
	}
	var warm *warmStart
	if p != nil && prev != nil && len(prev.X) == p.NumVars() && len(prev.S) == p.NumRows() && len(prev.Y) == p.NumRows() {
		warm = &warmStart{x: prev.X, s: prev.S, y: prev.Y, omega: omega}
		for _, v := range [][]float64{prev.X, prev.S, prev.Y} {
			for _, f := range v {
				if math.IsNaN(f) || math.IsInf(f, 0) {
					warm = nil
				}
			}
		}
	}
	return sv.solve(ctx, p, s, warm)
}

// applyWarm replaces the cold starting point computed by initialize by its
// combination with the warm start (see SolveFrom), in the equilibrated,
// rotated coordinates of the iteration: x̂ = D⁻¹x, ŝ = E·T(s), ẑ = c·E⁻¹·T(y).
func (w *workspace) applyWarm() {
	ws, sc := w.warm, w.sc
	om := ws.omega
	s, z := append([]float64(nil), ws.s...), append([]float64(nil), ws.y...)
	w.red.unrotate(s) // T = T⁻¹
	w.red.unrotate(z)
	for j := range w.x {
		w.x[j] = om*sc.dinv[j]*ws.x[j] + (1-om)*w.x[j]
	}
	for i := range w.s {
		w.s[i] = om*sc.e[i]*s[i] + (1-om)*w.s[i]
		w.z[i] = om*sc.c*sc.einv[i]*z[i] + (1-om)*w.z[i]
	}
	// Zero-cone blocks have s = 0 in every point.
	for i, c := range w.cones {
		if _, ok := c.(*zeroCone); ok {
			clear(w.block(w.s, i))
		}
	}
	w.tau = 1
	w.kappa *= 1 - om
}
