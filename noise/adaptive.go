package noise

import (
	"context"
	"math"
)

// adaptiveStartParts is the number of parts per Δ of the first partition of
// the adaptive upper bound (see solveUpperAdaptive).
const adaptiveStartParts = 16

// AdaptiveMinCells is the number of cells from which Optimize solves a
// symmetric uniform upper-bound grid over an adaptive partition (see
// OptimalOptions.FullUpperLP).
const AdaptiveMinCells = 1000

// useAdaptive reports whether the upper bound of the uniform grid with
// support Λ and granularity k is solved over an adaptive partition.
func useAdaptive(o OptimalOptions, lam, k int) bool {
	return o.Symmetric && !o.FullUpperLP && !o.Graded && !o.EventCuts && !o.PlainSearch && !o.Monotone && 2*lam*k >= AdaptiveMinCells
}

// solveUpperAdaptive solves the upper bound P(π,β) of a symmetric uniform
// grid (granularity k, support [−S, S) units, β = Δ/k) over an adaptive
// partition of its unit cells: a restriction of the LP (the density is
// constant on each part), so its value is an upper bound on P(π,β) and its
// density a feasible — and certified — density of the uniform grid.
//
// Near-optimal densities are step functions with few levels (at (ε,δ) = (1,
// 0.2), ℓ₁: seven plateaus, neighbours differing by the factor e^ε). The
// partition starts with parts of about Δ/16 and halves, level by level, the
// parts next to a jump of the density (and the parts at 0 and Δ), down to single
// unit cells; it stops when no part wider than one unit borders a jump. Every
// level's LP starts with the blocks of the shifts that bound at the previous
// level, whose density also prunes the pairs of new blocks (see
// cuttingPlane.ref). The shifts, the shortfall search and the certificate
// are the uniform grid's throughout, so the result is exactly (ε,δ)-DP; only
// the last level's density is certified.
//
// Densities with many jumps (e.g. at small δ, where the support spans many
// Δ and every period has its steps) gain nothing from a partition: once a
// level would have more than S/adaptiveMaxFraction parts the remaining
// work is the full uniform LP (seeded like a level), and adaptive is false.
func solveUpperAdaptive(ctx context.Context, p Params, opt OptimalOptions, S, k, ref int, scale float64, res *OptimalResult) (ub *upperResult, adaptive bool, err error) {
	w0 := max(1, k/adaptiveStartParts)
	pos := []int{0}
	for u := w0; u < S; u += w0 {
		pos = append(pos, u)
	}
	pos = append(pos, S)
	var (
		seed []int
		prev *PiecewiseConstant
	)
	for {
		g := newGridPos(p, pos, S, k, opt, false, scale)
		var refDens []float64
		if prev != nil {
			refDens = make([]float64, len(g.width))
			for j := range refDens {
				refDens[j] = prev.PDF(0.5 * float64(g.idx[j]+g.idx[j+1]) * g.unitReal)
			}
		}
		var split map[int]bool
		full := len(pos) == S+1
		ub, err := g.solveUpperSeeded(ctx, p, opt, ref, res, seed, refDens, func(d *PiecewiseConstant) bool {
			split = adaptiveSplits(pos, d.probs, k)
			return len(split) == 0 || full
		})
		if err != nil {
			return nil, false, err
		}
		if ub.Certificate != nil {
			return ub, !full, nil
		}
		seed, prev = ub.Shifts, ub.Dist
		next := make([]int, 0, len(pos)+len(split))
		for i := 0; i+1 < len(pos); i++ {
			next = append(next, pos[i])
			if split[i] {
				next = append(next, (pos[i]+pos[i+1])/2)
			}
		}
		pos = append(next, S)
		if adaptiveMaxFraction*(len(pos)-1) > S {
			pos = pos[:0]
			for u := 0; u <= S; u++ {
				pos = append(pos, u)
			}
		}
	}
}

// adaptiveMaxFraction: a partition with more than S/adaptiveMaxFraction
// parts (of S units per side) is replaced by the full grid.
const adaptiveMaxFraction = 3

// adaptiveSplits marks the parts (of the nonnegative half, edges pos) to
// halve: the parts wider than one unit next to a jump of the density (probs
// holds the whole symmetric grid's cell probabilities) and the parts at 0 and
// at Δ (k units: the image of the central cell under the largest shift).
func adaptiveSplits(pos []int, probs []float64, k int) map[int]bool {
	L := len(pos) - 1
	half := probs[len(probs)-L:]
	dens := make([]float64, L)
	for i := range dens {
		dens[i] = half[i] / float64(pos[i+1]-pos[i])
	}
	split := map[int]bool{}
	mark := func(i int) {
		if i >= 0 && i < L && pos[i+1]-pos[i] > 1 {
			split[i] = true
		}
	}
	mark(0)
	for i := 0; i < L; i++ {
		if pos[i] <= k && k <= pos[i+1] {
			mark(i)
		}
	}
	for i := 1; i < L; i++ {
		if a, b := dens[i-1], dens[i]; math.Abs(a-b) > 1e-9*math.Max(a, b) {
			mark(i - 1)
			mark(i)
		}
	}
	return split
}
