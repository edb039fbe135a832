package noise

import (
	"math"
	"math/big"
	"testing"

	"github.com/ALTree/bigfloat"
)

// TestTruncatedLaplaceDeltaRoundedUp: the truncated Laplace mechanism's exact
// δ_eff = (e^{Δ/λ} − 1)/(2(e^{A/λ} − 1)), evaluated independently at 400
// bits, never exceeds the requested δ, and ε_eff = Δ/λ ≤ ε exactly; the
// issue's case (8, 10⁻⁵) had δ_eff = 1.0000000000000018e-5 before rounding.
func TestTruncatedLaplaceDeltaRoundedUp(t *testing.T) {
	for _, c := range []Params{{8, 1e-5, 1}, {1, 0.2, 360}, {0.5, 1e-9, 3}, {3, 0.1, 0.7}, {0.01, 1e-6, 1}, {15, 1e-3, 2}} {
		m, err := TruncatedLaplaceMechanism(c)
		if err != nil {
			t.Fatal(err)
		}
		d := m.Dist.(*TruncatedLaplace)
		const prec = 400
		f := func(x float64) *big.Float { return new(big.Float).SetPrec(prec).SetFloat64(x) }
		num := bigfloat.Exp(new(big.Float).SetPrec(prec).Quo(f(c.Sensitivity), f(d.Scale)))
		num.Sub(num, f(1))
		den := bigfloat.Exp(new(big.Float).SetPrec(prec).Quo(f(d.Bound), f(d.Scale)))
		den.Sub(den, f(1))
		den.Mul(den, f(2))
		delta := new(big.Float).SetPrec(prec).Quo(num, den)
		if delta.Cmp(f(c.Delta)) > 0 {
			v, _ := delta.Float64()
			t.Errorf("%+v: δ_eff = %.17g > δ", c, v)
		}
		if new(big.Rat).Mul(ratOf(c.Epsilon), ratOf(d.Scale)).Cmp(ratOf(c.Sensitivity)) < 0 {
			t.Errorf("%+v: Δ/λ > ε", c)
		}
		// The rounding moves A by a few ulps at most.
		if A := truncatedLaplaceBound(c); d.Bound-A > 64*(math.Nextafter(A, math.Inf(1))-A) {
			t.Errorf("%+v: bound moved from %v to %v", c, A, d.Bound)
		}
	}
}

// TestRaiseBoundMatchesScan: the doubling-and-bisection search of raiseBound
// returns what the one-ulp-at-a-time scan it replaced returns, for thresholds
// at every distance 0 … 70,000 ulps (beyond maxBoundUlps: the scan's last
// value), and calls ok O(log maxBoundUlps) times.
func TestRaiseBoundMatchesScan(t *testing.T) {
	bound := 12.345
	for _, need := range []int{0, 1, 2, 3, 7, 8, 100, 4097, 65535, 65536, 65537, 70000} {
		threshold := bound
		for i := 0; i < need; i++ {
			threshold = math.Nextafter(threshold, math.Inf(1))
		}
		calls := 0
		ok := func(a float64) bool { calls++; return a >= threshold }
		scan := bound
		for i := 0; i < maxBoundUlps && !(scan >= threshold); i++ {
			scan = math.Nextafter(scan, math.Inf(1))
		}
		if got := raiseBound(bound, maxBoundUlps, ok); got != scan {
			t.Errorf("threshold %d ulps up: got %v, the scan gives %v", need, got, scan)
		}
		if calls > 40 {
			t.Errorf("threshold %d ulps up: %d calls of ok", need, calls)
		}
	}
}
