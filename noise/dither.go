package noise

import (
	"context"
	"math"
)

// The dithered lower bound.
//
// The paper's D(π, β) charges every cell the infimum of the loss over the
// cell, so it trails the optimum by about half a cell width times the slope
// of the loss: for ℓ₁ at (ε, δ) = (1, 0.2) it needs k ≈ 100 cells per Δ for a
// 1% gap. Subtractive dithering gives a relaxation whose cost error is of
// second order in β for losses with a declared smoothness (Loss.WithSmoothness:
// c″ ≤ K away from 0, slope jump ≤ J at 0).
//
// Let X be any (ε,δ)-DP noise, θ uniform on [−β/2, β/2) independent of X,
// Q = θ + β⌊(X − θ)/β⌋ and s = θ + β/2 ∈ [0, β).
//
//  1. X − Q = (X − θ) mod β is uniform on [0, β) and independent of X, so
//     Q + β/2 = X + W with W uniform on (−β/2, β/2] and independent of X.
//  2. E c(X + W) − c(x) is at most Kβ²/24 + (J/2)(β/2 − |x|)²/β, and the
//     kink term vanishes unless |x| < β/2, where it is at most Jβ/8. For
//     every θ, |X| < β/2 implies that X − θ lies in the cells [−β, 0) or
//     [0, β). Hence, with q^θ_j = P[X − θ ∈ [jβ, (j+1)β)],
//     E c(X) ≥ E_θ[Σ_j q^θ_j·(c(s + jβ) − (Jβ/8)·1{j ∈ {−1, 0}})] − Kβ²/24.
//  3. For every θ, X − θ is (ε,δ)-DP noise and q^θ are its cell masses, so
//     the inner sum is at least the value D(s) of the paper's lower-bounding
//     LP with the cell costs c(s + jβ) − (Jβ/8)·1{j ∈ {−1, 0}} (Propositions
//     2–3 of Selvi, Liu & Wiesemann with the cell-constant loss these costs
//     define; they are monotone in j outside the window, as the padding
//     argument needs).
//  4. The LP's feasible set does not depend on s, and for s ∈ [0, β] no point
//     s + jβ crosses 0, so each cost is C² in s with second derivative ≤ K:
//     D(s) − (K/2)s² is a minimum of concave functions, hence concave, and
//     its average over [0, β] is at least the mean of its end values. With
//     E s² = β²/3 this gives E_θ D(s) ≥ (D(0) + D(β))/2 − Kβ²/12.
//
// Together: E c(X) ≥ (D(0) + D(β))/2 − Kβ²/8 for every DP noise X. For a
// symmetric loss D(0) = D(β) (reflect the window cell j ↔ −1−j), so one LP
// suffices. The LP carries no symmetry restriction (the dithered cell masses
// of a symmetric X need not be symmetric).
//
// The bound is poor when cells are much wider than the optimal noise's central
// plateau (large ε): the penalty then applies to almost all the mass.

// More offsets (OptimalOptions.DitherIntervals = m). Step 4 only needs D(s) −
// (K/2)s² concave on [0, β]; a concave function's average is at least that
// of its chordal interpolant through s_i = iβ/m, i = 0..m (the trapezoid
// rule T_m), and T_m of s² is β²/3 + h²/6 (h = β/m), so E_θ D(s) ≥ T_m[D] −
// Kh²/12 and E c(X) ≥ T_m[D] − K(β²/24 + h²/12) (m = 1: the bound above).
// The end values charge an atom at 0 the kink penalty −Jβ/8 in full, the
// interior offsets much less (at s = β/2 an atom at 0 costs c(β/2) − Jβ/8 =
// 0 for ℓ₁), so m > 1 shrinks the kink loss — the loose side of the bound
// when the optimal noise concentrates mass near 0 (large ε and δ) — at the
// price of one LP per offset (m/2 + 1 for symmetric losses, by reflection).

// ditherCost sets the cell costs of a uniform lower-bound grid for the dither
// offset s·β (s ∈ [0, 1]): c(s + jβ) minus the kink penalty on cells −1 and 0.
func (g *grid) ditherCost(l Loss, s float64) {
	beta := g.unitReal
	for j := range g.cost {
		c := l.Func((float64(g.idx[j]) + s) * beta)
		if g.idx[j] == 0 || g.idx[j] == -1 {
			c -= l.kink * beta / 8
		}
		g.cost[j] = c / g.scale
	}
}

// ditherOffsets are the dither offsets s/β whose LPs are averaged: 0 and 1,
// or only 0 for the symmetric losses L1 and L2 (D(0) = D(β) by reflection).
func ditherOffsets(l Loss) []int {
	if l.symmetric {
		return []int{0}
	}
	return []int{0, 1}
}

// ditherCorrection is Kβ²/8, subtracted from the mean LP value.
func ditherCorrection(l Loss, beta float64) float64 { return l.curvature * beta * beta / 8 }

// ditherNodes returns the dither offsets s/β and their trapezoid weights for
// m intervals (see "More offsets"); for a symmetric loss the offsets s and
// 1 − s share one LP (D(s) = D(1 − s) by reflection), so only s ≤ ½ remain.
// The correction is K(β²/24 + (β/m)²/12).
func ditherNodes(l Loss, m int, beta float64) (s, w []float64, corr float64) {
	m = max(1, m)
	for i := 0; i <= m; i++ {
		wi := 1 / float64(m)
		if i == 0 || i == m {
			wi /= 2
		}
		x := float64(i) / float64(m)
		if l.symmetric && 2*i > m {
			j := m - i // reflected node
			for k := range s {
				if s[k] == float64(j)/float64(m) {
					w[k] += wi
				}
			}
			continue
		}
		s, w = append(s, x), append(w, wi)
	}
	h := beta / float64(m)
	return s, w, l.curvature * (beta*beta/24 + h*h/12)
}

// useDither reports whether the dithered bound is used on a grid with
// granularity k: the loss declares its smoothness, PaperLowerBound is not
// set, δ ≤ 1/2, and cells are at most
// 1.2·γΔ wide, γ = 1/(1 + e^{ε/2}) the staircase plateau. Outside that range
// the kink penalty can apply to most of the mass (cells wider than the
// plateau, or an atom of mass up to δ at 0) and the cell-infimum bound was
// better in our comparisons (at ε = 9 the dithered bound is ahead at
// β = 0.9γΔ and behind at 1.8γΔ; at ε = 4 ahead at 1.05γΔ, behind at 2.1γΔ).
func useDither(p Params, opt OptimalOptions, k int) bool {
	if !opt.Loss.smooth || opt.coverageLB {
		return false
	}
	if opt.forceDither {
		return true
	}
	if opt.PaperLowerBound || p.Delta > 0.5 {
		return false
	}
	gamma := 1 / (1 + math.Exp(p.Epsilon/2))
	return 1/float64(k) <= 1.2*gamma
}

// ditherCap is the automatic lower-bound granularity cap of the dithered
// bound at refinement 0.
const ditherCap = 48

// windowEpsilon is the ε from which the dithered lower bound restricts its
// events to a central window (see lowerGrid); the automatic graded upper
// grid starts there too (autoGraded).
const windowEpsilon = 5

// maxWindowGranularity caps the automatic window granularity ⌈6/γ⌉ (reached
// at ε ≈ 11.3; beyond, the automatic choice is the one below ε = 5).
const maxWindowGranularity = 2048

// lowerGrid returns the lower-bound granularity of refinement ref for the
// level granularity k, whether the dithered bound is used, and the half-width
// (in units Δ/k_l) of its central event window, 0 for the whole event region.
//
// Large ε (≥ windowEpsilon): near-optimal noise puts almost all its mass on a
// plateau of half-width about γΔ, γ = 1/(1 + e^{ε/2}), and the constraints
// that bind compare that mass with its shifts by up to Δ. The dithered bound
// then keeps only the events inside [−E, E), E = max(2, ⌈1.5·γ·k_l⌉) units: a
// relaxation of the full problem (fewer constraints; the k_l units of padding
// still hold every shifted image), so still a valid lower bound, with 2E
// instead of 2Λk_l auxiliary variables per shift block. At (9, 0.01) and
// k_l = 128 it gives the full region's value (0.009087) in 1.3 s instead of
// 95 s, which affords k_l = ⌈6/γ⌉ (547 at ε = 9, 80 at ε = 5): the dithered
// bound's kink penalty (Jβ/8 on the two cells at 0) is then small next to the
// plateau. Automatic only while ⌈6/γ⌉ ≤ maxWindowGranularity.
func lowerGrid(p Params, opt OptimalOptions, k, ref int) (kl int, dither bool, window int) {
	gamma := 1 / (1 + math.Exp(p.Epsilon/2))
	win := func(kl int) int {
		if p.Epsilon < windowEpsilon || opt.FullEventRegion {
			return 0
		}
		return max(2, int(math.Ceil(1.5*gamma*float64(kl))))
	}
	if opt.LowerGranularity > 0 {
		kl := opt.LowerGranularity << ref
		if useDither(p, opt, kl) {
			return kl, true, win(kl)
		}
		return kl, false, 0
	}
	if k6 := math.Ceil(6 / gamma); p.Epsilon >= windowEpsilon && !opt.FullEventRegion && k6 <= maxWindowGranularity {
		if kl := int(k6) << ref; useDither(p, opt, kl) {
			return kl, true, win(kl)
		}
	}
	if kl := min(k, ditherCap<<ref); useDither(p, opt, kl) {
		return kl, true, win(kl)
	}
	return k, useDither(p, opt, k), 0
}

// solveLowerDither computes the dithered lower bound on the uniform grid with
// granularity k and event region [−ev, ev) units (Λk for the whole support;
// one LP for symmetric losses, two otherwise). With stopAt each LP stops once
// its value certifies the target.
func solveLowerDither(ctx context.Context, p Params, opt OptimalOptions, ev, k, ref int, res *OptimalResult, scale float64, stopAt func() float64) (float64, error) {
	ol := opt
	ol.Symmetric, ol.Graded = false, false
	if opt.DitherIntervals > 1 {
		offs, wts, corr := ditherNodes(opt.Loss, opt.DitherIntervals, p.Sensitivity/float64(k))
		sum := 0.0
		for i, s := range offs {
			g := newGridUnits(p, ev, k, ol, true, scale)
			g.ditherCost(opt.Loss, s)
			v, err := g.solveLower(ctx, p, ol, ref, res, false, nil)
			if err != nil {
				return 0, err
			}
			sum += wts[i] * v
		}
		return sum - corr, nil
	}
	offsets := ditherOffsets(opt.Loss)
	corr := ditherCorrection(opt.Loss, p.Sensitivity/float64(k))
	var stop func() float64
	if stopAt != nil {
		stop = func() float64 { return stopAt() + corr }
	}
	return ditherMean(offsets, corr, func(s int) (float64, error) {
		g := newGridUnits(p, ev, k, ol, true, scale)
		g.ditherCost(opt.Loss, float64(s))
		return g.solveLower(ctx, p, ol, ref, res, false, stop)
	})
}

// ditherMean returns the mean of solve(s) over the dither offsets minus the
// correction corr (the dithered bound from the LP values D(s)).
func ditherMean(offsets []int, corr float64, solve func(s int) (float64, error)) (float64, error) {
	sum := 0.0
	for _, s := range offsets {
		v, err := solve(s)
		if err != nil {
			return 0, err
		}
		sum += v
	}
	return sum/float64(len(offsets)) - corr, nil
}
