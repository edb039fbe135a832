package accounting

import (
	"context"
	"math"
	"testing"

	"github.com/privopt/privopt/noise"
)

// hockeyQuad is ∫(f(x) − e^ε f(x − φ))⁺ by the midpoint rule on [−R, R]
// (an estimate, not a bound: the reference the rigorous profile must cover).
func hockeyQuad(pdf func(float64) float64, eps, phi, R float64) float64 {
	const n = 200000
	dx := 2 * R / n
	s := 0.0
	x0 := math.Exp(eps)
	for i := 0; i < n; i++ {
		x := -R + (float64(i)+0.5)*dx
		if v := pdf(x) - x0*pdf(x-phi); v > 0 {
			s += v * dx
		}
	}
	return s
}

// The quasi-Gaussian's PLD (its rigorous profile through MechanismPLD) at the
// mechanism's own (ε, δ) = (1, 10⁻³), Δ = 1: the profile must cover the
// quadrature hockey-stick divergence at every sampled shift and ε′, and be
// tight — at ε′ = ε within 15% above the certificate's δ (Theorem 3 of Liu &
// Selvi calibrates σ so that δ(ε) ≤ δ, with equality at the binding shift).
// Composed k ∈ {1, 10, 100} times it stays above the composition of the worst
// fixed shift (a lower reference) and below basic composition of its own
// one-step profile.
func TestQuasiGaussianPLD(t *testing.T) {
	p := noise.Params{Epsilon: 1, Delta: 1e-3, Sensitivity: 1}
	m, err := noise.QuasiGaussianMechanism(p)
	if err != nil {
		t.Fatal(err)
	}
	d := m.Dist.(*noise.QuasiGaussian)
	prof, err := QuasiGaussianProfile(d)
	if err != nil {
		t.Fatal(err)
	}
	R := 1 + 15*d.Sigma
	for _, e := range []float64{0.25, 0.5, 1, 2} {
		got, err := prof(e)
		if err != nil {
			t.Fatal(err)
		}
		worst := 0.0
		for _, phi := range []float64{0.25, 0.5, 0.75, 1} {
			worst = math.Max(worst, hockeyQuad(d.PDF, e, phi, R))
		}
		t.Logf("ε′ = %g: profile bound %.6g, quadrature max over shifts %.6g", e, got, worst)
		if !(got >= worst*(1-1e-6)) {
			t.Errorf("ε′ = %g: profile bound %.6g below the quadrature divergence %.6g", e, got, worst)
		}
		if e == 1 && !(got >= p.Delta*(1-1e-3) && got <= 1.15*p.Delta) {
			t.Errorf("profile at ε = 1: %.6g, want in [δ, 1.15δ] = [%g, %g]", got, p.Delta, 1.15*p.Delta)
		}
	}
	const h = 1e-3
	pl, err := MechanismPLD(context.Background(), m, h)
	if err != nil {
		t.Fatal(err)
	}
	lower := optimisticShiftPLD(d.PDF, 1, -R, R+1, h)
	d1, _ := prof(1)
	for _, k := range []int{1, 10, 100} {
		pk, err := pl.ComposeK(k)
		if err != nil {
			t.Fatal(err)
		}
		lk, err := lower.ComposeK(k)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range []float64{1, float64(k) / 2, float64(k)} {
			got, low := pk.Delta(e), lk.deltaPlain(e)
			t.Logf("k = %d ε = %g: δ %.6g (fixed-shift lower %.6g)", k, e, got, low)
			if got < low-1e-5*float64(k) {
				t.Errorf("k = %d ε = %g: PLD δ %.6g below the fixed-shift composition %.6g", k, e, got, low)
			}
			if e == float64(k) && got > math.Min(1, float64(k)*d1)+1e-9*float64(k) {
				t.Errorf("k = %d: δ(k) = %.6g above basic composition %g", k, got, float64(k)*d1)
			}
		}
	}
}
