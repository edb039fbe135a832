package accounting

import (
	"context"
	"math"
	"testing"

	"github.com/privopt/privopt/noise"
	_ "github.com/privopt/privopt/noise/lphighs"
)

func normCDF(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }

// gdpDelta is the exact privacy profile of μ-GDP (Dong, Roth and Su 2022,
// Cor. 2.13): δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2).
func gdpDelta(mu, eps float64) float64 {
	return normCDF(-eps/mu+mu/2) - math.Exp(eps)*normCDF(-eps/mu-mu/2)
}

// TestGaussianPLDvsGDP: k Gaussian mechanisms N(0, σ²), Δ = 1 compose to
// exactly μ-GDP with μ = √k/σ. The PLD accountant's ε at δ = 10⁻⁵ lies in
// [ε_exact, ε_exact + k·h] (pessimistic: each loss is rounded up by < h).
func TestGaussianPLDvsGDP(t *testing.T) {
	for _, c := range []struct {
		k     int
		sigma float64
		step  float64
	}{{1, 2, 1e-4}, {10, 5, 2e-4}, {100, 10, 2e-4}} {
		p, err := GaussianPLD(c.sigma, 1, c.step)
		if err != nil {
			t.Fatal(err)
		}
		pk, err := p.ComposeK(c.k)
		if err != nil {
			t.Fatal(err)
		}
		mu := math.Sqrt(float64(c.k)) / c.sigma
		const delta = 1e-5
		hi := gdpEpsilon(mu, delta) // exact ε by bisection on the GDP profile
		got := pk.Epsilon(delta)
		slack := float64(c.k) * c.step
		t.Logf("k = %d, σ = %g: ε exact %.6f, PLD %.6f (bound +%.4f), Err %.2g", c.k, c.sigma, hi, got, slack, pk.Err)
		if got < hi-1e-9 || got > hi+slack {
			t.Errorf("k = %d: PLD ε %.6f outside [%.6f, %.6f]", c.k, got, hi, hi+slack)
		}
		for _, eps := range []float64{0.25, 0.5, 1} {
			if d := pk.Delta(eps); d < gdpDelta(mu, eps) {
				t.Errorf("k = %d, ε = %g: PLD δ %.6g below the exact %.6g", c.k, eps, d, gdpDelta(mu, eps))
			}
		}
	}
}

// laplaceDelta1 is the exact profile of one Laplace pair with ℓ = Δ/b,
// extended to all ε' (derived in the test doc of TestLaplacePLDExact):
// 1 − e^{(ε'−ℓ)/2} on [−ℓ, ℓ], 1 − e^{ε'} below −ℓ, 0 above ℓ.
func laplaceDelta1(l, e float64) float64 {
	switch {
	case e >= l:
		return 0
	case e >= -l:
		return 1 - math.Exp((e-l)/2)
	}
	return -math.Expm1(e)
}

// TestLaplacePLDExact: one Laplace mechanism against its closed form, two
// against an independent numerical integration of the exact convolution
//
//	δ₂(ε) = ½δ₁(ε − ℓ) + ½e^{−ℓ}δ₁(ε + ℓ) + ∫_{−ℓ}^{ℓ} δ₁(ε − t)·¼e^{−(ℓ−t)/2} dt
//
// (the law of L: atoms ½ at ℓ and ½e^{−ℓ} at −ℓ, density ¼e^{−(ℓ−t)/2} in
// between), and the FFT composition against direct convolution. The PLD δ
// must lie between the exact δ at ε and at ε − k·h.
func TestLaplacePLDExact(t *testing.T) {
	const l, h = 1.0, 1e-4
	p, err := LaplacePLD(1, l, h)
	if err != nil {
		t.Fatal(err)
	}
	for _, eps := range []float64{0, 0.3, 0.9} {
		d := p.Delta(eps)
		if d < laplaceDelta1(l, eps) || d > laplaceDelta1(l, eps-h)+1e-12 {
			t.Errorf("k = 1, ε = %g: δ %.12g, exact %.12g", eps, d, laplaceDelta1(l, eps))
		}
	}
	p2, err := p.Compose(p)
	if err != nil {
		t.Fatal(err)
	}
	exact2 := func(eps float64) float64 {
		s := 0.5*laplaceDelta1(l, eps-l) + 0.5*math.Exp(-l)*laplaceDelta1(l, eps+l)
		const n = 200000 // Simpson on [−ℓ, ℓ]; integrand smooth except kinks at t = ε ± ℓ, error < 1e-9
		w := 2 * l / n
		for i := 0; i <= n; i++ {
			t := -l + float64(i)*w
			c := 2.0
			if i == 0 || i == n {
				c = 1
			} else if i%2 == 1 {
				c = 4
			}
			s += c * w / 3 * laplaceDelta1(l, eps-t) * 0.25 * math.Exp(-(l-t)/2)
		}
		return s
	}
	for _, eps := range []float64{0.2, 0.8, 1.5} {
		d, lo, hi := p2.Delta(eps), exact2(eps), exact2(eps-2*h)
		t.Logf("k = 2, ε = %g: PLD δ %.9f, exact %.9f", eps, d, lo)
		if d < lo-1e-8 || d > hi+1e-8 {
			t.Errorf("k = 2, ε = %g: PLD δ %.9f outside [%.9f, %.9f]", eps, d, lo, hi)
		}
	}
	// FFT (k = 8 by squaring, 2001-bin factors at h = 10⁻³) against direct convolution.
	pc, _ := LaplacePLD(1, l, 1e-3)
	p8, _ := pc.ComposeK(4)
	fft, _ := p8.Compose(p8)
	direct := make([]float64, len(p8.Mass)*2-1)
	for i, a := range p8.Mass {
		for j, b := range p8.Mass {
			direct[i+j] += a * b
		}
	}
	l1 := 0.0
	for i := range direct {
		l1 += math.Abs(direct[i] - fft.Mass[i])
	}
	if l1 > fft.Err {
		t.Errorf("FFT vs direct convolution: L1 difference %.3g exceeds the error bound %.3g", l1, fft.Err)
	}
	t.Logf("FFT vs direct (k = 8): L1 difference %.3g, certified bound %.3g", l1, fft.Err)
}

// TestTruncatedLaplacePLD: the +∞ mass is the mechanism's exact δ, so at
// ε = ℓ the PLD δ equals the calibrated δ (up to Err).
func TestTruncatedLaplacePLD(t *testing.T) {
	m, err := noise.TruncatedLaplaceMechanism(noise.Params{Epsilon: 1, Delta: 1e-5, Sensitivity: 1})
	if err != nil {
		t.Fatal(err)
	}
	d := m.Dist.(*noise.TruncatedLaplace)
	p, err := TruncatedLaplacePLD(d.Scale, d.Bound, 1, 1e-4)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Delta(1+1e-4) - p.Err; got > 1e-5*(1+1e-9) || got < 1e-5*(1-1e-9) {
		t.Errorf("δ(ℓ) − Err = %.15g, want 1e-5", got)
	}
	t.Logf("δ(ℓ) = %.15g (Err %.3g)", p.Delta(1+1e-4), p.Err)
	if got := p.Epsilon(1e-5 + 2*p.Err); got > (1+1e-4)*(1+2e-9) {
		t.Errorf("ε at δ = 1e-5: %v", got)
	}
}

// TestPiecewisePLDvsCertify: for the symmetric optimal noise at (1, 0.2),
// the PLD of the pair (X, X + Δ) at ε = 1 reproduces the certifier's exact
// maximum over shifts, 0.2 + MaxShortfall, within the grid rounding.
func TestPiecewisePLDvsCertify(t *testing.T) {
	pr := noise.Params{Epsilon: 1, Delta: 0.2, Sensitivity: 1}
	r, err := noise.Optimize(context.Background(), pr, noise.OptimalOptions{Intervals: 40, Symmetric: true, SkipLowerBound: true})
	if err != nil {
		t.Fatal(err)
	}
	d := r.Mechanism.Dist.(*noise.PiecewiseConstant)
	const h = 1e-6
	p, err := PiecewisePLD(d, 1, h)
	if err != nil {
		t.Fatal(err)
	}
	worst := 0.2 + r.Certificate.MaxShortfall
	// δ_PLD(1) ∈ [δ(1), δ(1 − h)] ⊂ [δ(1), δ(1) + h] (|dδ/dε| ≤ 1).
	if got := p.Delta(1); got < worst-1e-9 || got > worst+h+1e-12 {
		t.Errorf("PLD δ(1) = %.12g, certifier's max over shifts %.12g", got, worst)
	}
	if got := p.Delta(1 + h); got > worst+1e-9 {
		t.Errorf("PLD δ(1 + h) = %.12g above the exact %.12g", got, worst)
	}
}
