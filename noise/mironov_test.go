package noise

import (
	"math"
	"testing"
)

// naiveLaplace is the textbook float Laplace sampler that Mironov (CCS 2012)
// attacks: U = k·2⁻⁵³ and X = −λ·ln U with a random sign.
func naiveLaplace(lambda float64, src Source) float64 {
	u := float64(src.Uint64()>>11+1) * 0x1p-53
	x := -lambda * math.Log(u)
	if randBit(src) {
		return -x
	}
	return x
}

// distinguishing is Mironov's test event for neighbours v = 0 and v = 1 with
// λ = 1: the output lies in (0, 1) and is not a multiple of 2⁻⁵³. For v = 1
// every output in (0, 1) is fl(1 + X) with X ∈ (−1, 0), a multiple of 2⁻⁵³
// (rounding above ½, Sterbenz's exact subtraction below), so the event has
// probability 0; for v = 0 the output is X itself, and X ∈ (0, ½) has bits
// below 2⁻⁵³ with high probability. An event of probability 0 under one
// neighbour and positive under the other breaks ε-DP for every ε.
func distinguishing(out float64) bool {
	return out > 0 && out < 1 && math.Mod(out, 0x1p-53) != 0
}

// TestMironovAttack reproduces the attack on the naive float Laplace and shows
// that the safe releases (snapping for Laplace, the discrete Gaussian, the
// exact piecewise sampler, the discrete truncated Laplace, the exact staircase, the discrete
// quasi-Gaussian) are immune: their outputs lie on a grid that does
// not depend on the value, and the event has probability 0 under both
// neighbours. Counts over 20,000 draws: for v = 0 the naive sampler hits
// the event with probability ≈ 0.13 (at most ½·(1 − e^{−½}) ≈ 0.197, less
// because X = −ln U is itself a multiple of 2⁻⁵³ for many U near 1; seed
// 2012 gives 2,570); the assertion ≥ 1,000 is 33 binomial standard
// deviations below that, so it cannot fail for a correct reproduction.
func TestMironovAttack(t *testing.T) {
	const n = 20000
	src := NewSeededSource(2012)
	hits := func(release func(v float64) float64, v float64) int {
		c := 0
		for i := 0; i < n; i++ {
			if distinguishing(release(v)) {
				c++
			}
		}
		return c
	}
	naive := func(v float64) float64 { return v + naiveLaplace(1, src) }
	h0, h1 := hits(naive, 0), hits(naive, 1)
	t.Logf("naive float Laplace: event hit %d times for v = 0, %d times for v = 1", h0, h1)
	if h0 < 1000 || h1 != 0 {
		t.Fatalf("attack not reproduced: %d hits at v = 0, %d at v = 1", h0, h1)
	}
	lap, _ := LaplaceMechanism(Params{Epsilon: 1, Sensitivity: 1})
	gau, _ := AnalyticGaussianMechanism(Params{Epsilon: 1, Delta: 1e-6, Sensitivity: 1})
	pc, _ := NewPiecewiseConstant([]float64{-2, -0.5, 0, 0.25, 3}, []float64{0.1, 0.4, 0.3, 0.2})
	opt := &Mechanism{Name: "optimal", Params: Params{Epsilon: 1, Delta: 0.2, Sensitivity: 1}, Dist: pc}
	tl, _ := TruncatedLaplaceMechanism(Params{Epsilon: 1, Delta: 1e-6, Sensitivity: 1})
	st, _ := StaircaseMechanism(Params{Epsilon: 1, Sensitivity: 1}, L1())
	qg, _ := QuasiGaussianMechanism(Params{Epsilon: 1, Delta: 1e-5, Sensitivity: 1})
	for _, m := range []*Mechanism{lap, gau, opt, tl, st, qg} {
		safe := func(v float64) float64 {
			x, err := m.Release(v, src, ReleaseOptions{})
			if err != nil {
				t.Fatal(err)
			}
			return x
		}
		if h0, h1 := hits(safe, 0), hits(safe, 1); h0 != 0 || h1 != 0 {
			t.Errorf("%s: safe release hit the event %d and %d times", m.Name, h0, h1)
		}
	}
}
