package ipm

import (
	"math"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
)

// feasibleAlongRay looks for a primal feasible point that, with the improving
// ray d kept since the detection of dual infeasibility (loop.dualCert), proves
// the problem unbounded — the proof the grace iterations of
// Termination.DualInfeasibleGrace otherwise wait for in vain: a problem with
// a feasible point has no primal infeasibility certificate.
//
// On the caller's data, with x̂ = x/τ the current primal iterate (which on an
// unbounded problem is a feasible part plus a large multiple of d), u = b − Ax̂
// and v = −Ad ∈ K, the candidate is x̂ − t·d for the largest t ≤ tₚ = x̂ᵀd/dᵀd
// (the multiple of d in x̂) that keeps u − t·v in K, backed off by the
// factor 1 − rayBackoff against the rounding of the subtraction: the ray's
// multiple is removed up to the first block it makes tight, which leaves a
// point of the problem's own magnitude. The point is accepted when solver.CheckFeasible
// passes at Settings.FeasTol (every row relative to its own terms); it is
// returned, nil otherwise (x̂ itself infeasible, cones other than zero,
// nonnegative and second-order, or a failed check). A huge x̂ is never
// checked unshifted: relative to the terms of a huge point even an infeasible
// row would pass.
func (w *workspace) feasibleAlongRay() []float64 {
	p := w.orig
	for _, c := range p.Cones {
		if c.Kind != cone.Zero && c.Kind != cone.Nonnegative && c.Kind != cone.SecondOrder {
			return nil
		}
	}
	if !(w.tau > 0) {
		return nil
	}
	sc := w.sc
	n := len(w.x)
	xh, d := make([]float64, n), make([]float64, n)
	for j := range xh {
		xh[j] = sc.d[j] * w.x[j] / w.tau
		d[j] = sc.d[j] * w.loop.dualCert[j]
	}
	dd := dot(d, d)
	if !(dd > 0) {
		return nil
	}
	u := p.A.MulVecTo(nil, -1, xh, 0)
	for i := range u {
		u[i] += p.B[i]
	}
	v := p.A.MulVecTo(nil, -1, d, 0)
	t := dot(xh, d) / dd
	off := 0
	for _, c := range p.Cones {
		switch c.Kind {
		case cone.Nonnegative:
			for i := off; i < off+c.Dim; i++ {
				if v[i] > 0 {
					t = math.Min(t, u[i]/v[i])
				}
			}
		case cone.SecondOrder:
			t = math.Min(t, socShift(u[off:off+c.Dim], v[off:off+c.Dim]))
		}
		off += c.Dim
	}
	if !(t >= 0) {
		// x̂ violates a block the shift would make worse (or is
		// infeasible outright): no candidate this iteration
		return nil
	}
	// Back off by √ε (ε = 2⁻⁵²): x̂ − t·d cancels t·d against x̂ with a
	// rounding of about ε·t·|d|, while the tightest row keeps a slack of
	// η·t·vᵢ, √ε·t·vᵢ here — eight orders of magnitude above the rounding
	// whenever vᵢ is not itself lost in its terms Σₖ|aᵢₖdₖ|.
	t *= 1 - rayBackoff
	for j := range xh {
		xh[j] -= t * d[j]
	}
	if solver.CheckFeasible(p, xh, w.set.FeasTol) != nil {
		return nil
	}
	return xh
}

// rayBackoff is the relative back-off √ε of the shift in feasibleAlongRay.
var rayBackoff = math.Sqrt(0x1p-52)

// socShift returns the largest t ≥ 0 with u − t·v in the second-order cone
// {(a, b): a ≥ ‖b‖}, +Inf when every t ≥ 0 qualifies and −1 when u itself is
// outside. With f(t) = (u₀ − tv₀)² − ‖u₁ − tv₁‖² = αt² − 2βt + γ
// (α = v₀² − ‖v₁‖², β = u₀v₀ − u₁ᵀv₁, γ = u₀² − ‖u₁‖² ≥ 0), the condition is
// f(t) ≥ 0 and u₀ − tv₀ ≥ 0; t is the first root of f after 0, capped by
// u₀/v₀.
func socShift(u, v []float64) float64 {
	u0, v0 := u[0], v[0]
	var uu, vv, uv float64
	for k := 1; k < len(u); k++ {
		uu += u[k] * u[k]
		vv += v[k] * v[k]
		uv += u[k] * v[k]
	}
	gamma := u0*u0 - uu
	if u0 < 0 || gamma < 0 {
		return -1
	}
	alpha, beta := v0*v0-vv, u0*v0-uv
	t := math.Inf(1)
	if v0 > 0 {
		t = u0 / v0
	}
	switch {
	case alpha == 0:
		if beta > 0 {
			t = math.Min(t, gamma/(2*beta))
		}
	default:
		disc := beta*beta - alpha*gamma
		if disc < 0 {
			break // f keeps the sign of α > 0: no root
		}
		r := math.Sqrt(disc)
		// the roots (β ± r)/α; the first one after 0 (for α < 0 the
		// smaller numerator gives the positive root)
		if alpha > 0 {
			if beta > 0 {
				t = math.Min(t, (beta-r)/alpha)
			}
		} else {
			t = math.Min(t, (beta-r)/alpha)
		}
	}
	return t
}
