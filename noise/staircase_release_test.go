package noise

import (
	"math"
	"testing"
)

// TestStaircaseReleaseChiSquare: 10⁶ safe releases of 0 with the ℓ₁ staircase
// at ε = 1, Δ = 1 on the grid g = 1/8 (γ* = 0.3775 is not a multiple of g, so
// bins straddle the steps) against the exact bin probabilities
// F((t+1)g) − F(tg) of the staircase CDF; χ² at false-failure rate 10⁻⁶.
func TestStaircaseReleaseChiSquare(t *testing.T) {
	m, err := StaircaseMechanism(Params{Epsilon: 1, Sensitivity: 1}, L1())
	if err != nil {
		t.Fatal(err)
	}
	d := m.Dist.(*Staircase)
	const g = 0.125
	const n = 1_000_000
	src := NewSeededSource(31)
	counts := map[int64]int{}
	for i := 0; i < n; i++ {
		x, err := m.Release(0, src, ReleaseOptions{Granularity: g})
		if err != nil {
			t.Fatal(err)
		}
		counts[int64(math.Round(x/g))]++
	}
	pmf := func(t int64) float64 { return d.CDF(float64(t+1)*g) - d.CDF(float64(t)*g) }
	stat, df := chiSquare(counts, pmf, -60, 59, n)
	if crit := chiSquareCrit(df, 1e-6); stat > crit {
		t.Fatalf("χ² = %.1f > %.1f (df %d)", stat, crit, df)
	}
	t.Logf("χ² = %.1f (df %d, critical %.1f)", stat, df, chiSquareCrit(df, 1e-6))
}
