package main

import (
	"fmt"
	"math"

	"github.com/privopt/privopt/noise"
)

// MixtureReference returns a certified reference upper bound on the optimal
// (ε, δ)-DP noise's E|X| (Δ = 1): the mixture
//
//	(1 − t)·S + t·U[−w, w],
//
// S the ℓ₁-optimal staircase (Geng & Viswanath; ε-DP) truncated to M periods
// per side with tail e^{−Mε} ≤ 10⁻¹³ and renormalized, U a uniform of
// half-width w = γΔ/64 at 0, and t just below δ. A mixture with weight t of
// anything and an ε-DP law is (ε, t)-DP (P(A) ≤ t + (1 − t)e^ε S(A − φ)), so
// its loss (1 − t)·E|S| + t·w/2 tends to (1 − δ)·Δe^{ε/2}/(e^ε − 1): at ε = 5
// and large δ it is below the piecewise-constant upper bounds of 200–800
// uniform cells, which resolve the narrow central mass only slowly
// (BENCHMARKS.md, "Private learning, round 4"). The density is checked by
// noise.Certify (exact); t is lowered by 10⁻⁶ relative steps until it
// passes (the truncation costs a δ of order 10⁻¹³).
func MixtureReference(eps, delta float64) (float64, *noise.PiecewiseConstant, error) {
	p := noise.Params{Epsilon: eps, Delta: delta, Sensitivity: 1}
	m, err := noise.StaircaseMechanism(p, noise.L1())
	if err != nil {
		return 0, nil, err
	}
	s := m.Dist.(*noise.Staircase)
	g := s.Gamma
	M := int(math.Ceil(13 * math.Ln10 / eps))
	w := g / 64
	half := []float64{0, w}
	for k := 0; k < M; k++ {
		if k > 0 {
			half = append(half, float64(k))
		}
		if g > 0 && g < 1 {
			half = append(half, float64(k)+g)
		}
	}
	half = append(half, float64(M))
	edges := make([]float64, 0, 2*len(half)-1)
	for i := len(half) - 1; i >= 1; i-- {
		edges = append(edges, -half[i])
	}
	edges = append(edges, half...)
	stair := make([]float64, len(edges)-1)
	tot := 0.0
	for i := range stair {
		stair[i] = s.CDF(edges[i+1]) - s.CDF(edges[i])
		tot += stair[i]
	}
	t := delta * (1 - 1e-6)
	for try := 0; try < 20; try++ {
		probs := make([]float64, len(stair))
		for i, v := range stair {
			probs[i] = (1 - t) * v / tot
			if edges[i] == -w || edges[i] == 0 {
				probs[i] += t / 2
			}
		}
		d, err := noise.NewPiecewiseConstant(edges, probs)
		if err != nil {
			return 0, nil, err
		}
		c, err := noise.Certify(d, p)
		if err != nil {
			return 0, nil, err
		}
		if c.Certified {
			return d.MeanAbs(), d, nil
		}
		t *= 1 - 1e-6*math.Pow(4, float64(try))
	}
	return 0, nil, fmt.Errorf("dpdrotables: the staircase mixture at (%g, %g) did not certify", eps, delta)
}
