package noise

import (
	"math"
	"math/big"
	"testing"

	"github.com/ALTree/bigfloat"
)

// dtlExactDelta returns, at 300 bits, the mass of the top k atoms of the
// discrete truncated Laplace with ratio e^{−ε/k} and bound M.
func dtlExactDelta(eps float64, k, M int64) float64 {
	const prec = 300
	f := func(x float64) *big.Float { return new(big.Float).SetPrec(prec).SetFloat64(x) }
	q := func(y int64) *big.Float {
		return bigfloat.Exp(new(big.Float).SetPrec(prec).Mul(f(-float64(y)), new(big.Float).SetPrec(prec).Quo(f(eps), f(float64(k)))))
	}
	z, top := f(0), f(0)
	for y := -M; y <= M; y++ {
		v := q(abs64(y))
		z.Add(z, v)
		if y > M-k {
			top.Add(top, v)
		}
	}
	r, _ := top.Quo(top, z).Float64()
	return r
}

func abs64(y int64) int64 {
	if y < 0 {
		return -y
	}
	return y
}

// TestDiscreteTruncatedLaplace: the calibration's δ_M is ≤ δ and M is the
// smallest such bound (checked at 300 bits); 10⁶ exact draws fit the pmf
// (χ² at false-failure rate 10⁻⁶); releases lie on the grid.
func TestDiscreteTruncatedLaplace(t *testing.T) {
	p := Params{Epsilon: 1, Delta: 0.01, Sensitivity: 1}
	d, err := DiscreteTruncatedLaplaceFor(p, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	if d.GridSensitivity != 3 {
		t.Fatalf("grid sensitivity %d, want 3", d.GridSensitivity)
	}
	if got := dtlExactDelta(1, 3, d.Bound); got > 0.01 {
		t.Fatalf("δ_M = %v > 0.01 at M = %d", got, d.Bound)
	}
	if got := dtlExactDelta(1, 3, d.Bound-1); got <= 0.01 {
		t.Fatalf("M = %d is not minimal: δ_{M−1} = %v", d.Bound, got)
	}
	const n = 1_000_000
	src := NewSeededSource(99)
	counts := map[int64]int{}
	for i := 0; i < n; i++ {
		counts[d.sample(src)]++
	}
	z := 0.0
	for y := -d.Bound; y <= d.Bound; y++ {
		z += math.Exp(-float64(abs64(y)) / 3)
	}
	pmf := func(y int64) float64 {
		if abs64(y) > d.Bound {
			return 0
		}
		return math.Exp(-float64(abs64(y))/3) / z
	}
	stat, df := chiSquare(counts, pmf, -d.Bound, d.Bound, n)
	if crit := chiSquareCrit(df, 1e-6); stat > crit {
		t.Fatalf("χ² = %.1f > %.1f (df %d)", stat, crit, df)
	}
	t.Logf("M = %d, χ² = %.1f (df %d)", d.Bound, stat, df)
	// Default grid at (1, 1e-5): δ_M ≤ δ at 300 bits would need 10⁵ terms; the
	// float formula is checked against the continuous truncated Laplace's A.
	m, _ := TruncatedLaplaceMechanism(Params{Epsilon: 1, Delta: 1e-5, Sensitivity: 1})
	dd, err := DiscreteTruncatedLaplaceFor(m.Params, 0)
	if err != nil {
		t.Fatal(err)
	}
	A := m.Dist.(*TruncatedLaplace).Bound
	if got := float64(dd.Bound) * dd.Granularity; math.Abs(got-A) > 2*dd.Granularity*float64(dd.GridSensitivity) {
		t.Errorf("discrete bound %v, continuous A = %v", got, A)
	}
	for i := 0; i < 1000; i++ {
		x, err := m.Release(0.7, src, ReleaseOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if x != math.Trunc(x/dd.Granularity)*dd.Granularity || math.Abs(x-0.7) > A+1e-3 {
			t.Fatalf("release %v off the grid or outside the support", x)
		}
	}
}
