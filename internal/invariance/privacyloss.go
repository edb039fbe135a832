package invariance

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// Empirical privacy-loss tests: releases drawn on two adjacent inputs, and
// certified (Clopper–Pearson) lower bounds on P[X ∈ A] − e^ε·P[Y ∈ A] over
// threshold events A. A positive bound (above δ) refutes (ε, δ)-DP with the
// stated false-failure probability.

// ClopperPearson returns the two-sided Clopper–Pearson interval of a binomial
// proportion k/n at level 1 − a (each tail a/2).
func ClopperPearson(k, n int, a float64) (lo, hi float64) {
	if k > 0 {
		lo = distuv.Beta{Alpha: float64(k), Beta: float64(n - k + 1)}.Quantile(a / 2)
	}
	hi = 1
	if k < n {
		hi = distuv.Beta{Alpha: float64(k + 1), Beta: float64(n - k)}.Quantile(1 - a/2)
	}
	return lo, hi
}

// ThresholdExcess returns the largest certified lower bound on P[X ∈ A] − e^ε·P[Y ∈ A]
// over threshold events A = {x > t} and {x < t} (t at the pooled sample's
// 1%, 2%, …, 99% quantiles): with δ = 0 a positive value refutes ε-DP. Every
// probability is bounded by Clopper–Pearson at level 1 − 1e-7 per bound; the
// 2·99·2 events give a false-failure probability below 4e-5 (union bound).
func ThresholdExcess(x, y []float64, eps float64) (worst float64, logRatio float64) {
	pool := append(append([]float64(nil), x...), y...)
	sort.Float64s(pool)
	worst, logRatio = math.Inf(-1), math.Inf(-1)
	count := func(s []float64, t float64, above bool) int {
		c := 0
		for _, v := range s {
			if (above && v > t) || (!above && v < t) {
				c++
			}
		}
		return c
	}
	for q := 1; q < 100; q++ {
		t := pool[q*len(pool)/100]
		for _, above := range []bool{true, false} {
			for _, pair := range [][2][]float64{{x, y}, {y, x}} {
				a, b := pair[0], pair[1]
				pa, _ := ClopperPearson(count(a, t, above), len(a), 1e-7)
				_, pb := ClopperPearson(count(b, t, above), len(b), 1e-7)
				worst = math.Max(worst, pa-math.Exp(eps)*pb)
				if pa > 0 {
					logRatio = math.Max(logRatio, math.Log(pa/pb))
				}
			}
		}
	}
	return worst, logRatio
}
