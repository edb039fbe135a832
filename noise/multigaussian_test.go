package noise

import (
	"math"
	"testing"
)

// quadHockeyStick is an independent reference for H(φ) = ∫(f − e^ε f(·−φ))⁺:
// composite Simpson on [−KΔ − 14σ, KΔ + φ + 14σ] with 2·10⁵ panels of the
// PDF itself (no root finding, no CDF differences).
func quadHockeyStick(d *MultiGaussian, eps, phi float64) float64 {
	lo := -float64(d.K)*d.Sensitivity - 14*d.Sigma
	hi := float64(d.K)*d.Sensitivity + phi + 14*d.Sigma
	const n = 200_000
	h := (hi - lo) / n
	ee := math.Exp(eps)
	g := func(x float64) float64 { return math.Max(0, d.PDF(x)-ee*d.PDF(x-phi)) }
	s := g(lo) + g(hi)
	for i := 1; i < n; i++ {
		w := 2.0
		if i%2 == 1 {
			w = 4
		}
		s += w * g(lo+float64(i)*h)
	}
	return s * h / 3
}

// TestMultiGaussianMoments: the closed-form E|X|, E X² and CDF (Appendix
// 2.B) against Simpson quadrature of the PDF, and K = 0 against N(0, σ²).
func TestMultiGaussianMoments(t *testing.T) {
	for _, c := range []struct {
		eps, sigma float64
		k          int
	}{{1, 0.3, 2}, {0.5, 1.2, 5}, {3, 0.25, 9}, {1, 0.7, 0}} {
		d, err := NewMultiGaussian(c.eps, 1, c.sigma, c.k)
		if err != nil {
			t.Fatal(err)
		}
		R := float64(c.k) + 15*c.sigma
		const n = 400_000
		h := 2 * R / n
		var m0, m1, m2 float64
		for i := 0; i <= n; i++ {
			x := -R + float64(i)*h
			w := 2.0
			if i == 0 || i == n {
				w = 1
			} else if i%2 == 1 {
				w = 4
			}
			p := d.PDF(x) * w * h / 3
			m0 += p
			m1 += p * math.Abs(x)
			m2 += p * x * x
		}
		if math.Abs(m0-1) > 1e-10 || math.Abs(m1-d.MeanAbs()) > 1e-10 || math.Abs(m2-d.Variance()) > 1e-9 {
			t.Errorf("%+v: mass %.12f, E|X| %.12f vs %.12f, E X² %.12f vs %.12f", c, m0, m1, d.MeanAbs(), m2, d.Variance())
		}
		for _, x := range []float64{-2.5, -0.4, 0, 0.3, 1.7} {
			q := d.Quantile(d.CDF(x))
			if math.Abs(q-x) > 1e-9 {
				t.Errorf("%+v: Quantile(CDF(%g)) = %g", c, x, q)
			}
		}
		if c.k == 0 {
			g := &Gaussian{Sigma: c.sigma}
			if math.Abs(d.MeanAbs()-g.MeanAbs()) > 1e-15 || math.Abs(d.CDF(0.4)-g.CDF(0.4)) > 1e-15 {
				t.Errorf("K = 0 is not N(0, σ²)")
			}
		}
	}
}

// TestMultiGaussianHockeyStick: the closed-form H(φ) and its rigorous upper
// bound against Simpson quadrature of (f − e^ε f(·−φ))⁺, and for K = 0
// against the analytic Gaussian's exact profile (Balle & Wang, Thm 8).
func TestMultiGaussianHockeyStick(t *testing.T) {
	for _, c := range []struct {
		eps, sigma float64
		k          int
	}{{1, 0.29, 2}, {1, 0.345, 9}, {2, 0.25, 5}, {5, 0.226, 1}, {1, 0.6, 0}} {
		d, _ := NewMultiGaussian(c.eps, 1, c.sigma, c.k)
		for _, phi := range []float64{0.2, 0.55, 0.85, 1} {
			h := d.HockeyStick(c.eps, phi)
			u := d.HockeyStickUpper(c.eps, phi, 1e-9)
			q := quadHockeyStick(d, c.eps, phi)
			if math.Abs(h-q) > 1e-9+1e-7*q {
				t.Errorf("%+v φ = %g: closed form %.12g, quadrature %.12g", c, phi, h, q)
			}
			if u < h || u > h+1e-8 {
				t.Errorf("%+v φ = %g: upper bound %.12g not in [H, H + 1e-8], H = %.12g", c, phi, u, h)
			}
			if c.k == 0 {
				ex := analyticGaussianDelta(c.eps, phi, c.sigma)
				if math.Abs(h-ex) > 1e-13 || u < ex {
					t.Errorf("K = 0, φ = %g: H %.15g, bound %.15g, exact %.15g", phi, h, u, ex)
				}
			}
		}
	}
}

// TestMultiGaussianSigmaMinimal: Algorithm 6's σ is the smallest with
// max_φ H ≤ (1 − η)δ, checked independently: at σ the rigorous bound (tight to
// 10⁻⁴δ) holds at 101 evenly spaced shifts, at σ(1 − 10⁻⁶) the quadrature exceeds the target
// at the worst shift found.
func TestMultiGaussianSigmaMinimal(t *testing.T) {
	const eta = 0.01
	for _, c := range []struct {
		p Params
		k int
	}{{Params{Epsilon: 1, Delta: 0.1, Sensitivity: 1}, 2}, {Params{Epsilon: 1, Delta: 1e-3, Sensitivity: 1}, 9}, {Params{Epsilon: 2, Delta: 0.1, Sensitivity: 2}, 5}} {
		s, err := MultiGaussianSigma(c.p, c.k, eta)
		if err != nil {
			t.Fatal(err)
		}
		d, _ := NewMultiGaussian(c.p.Epsilon, c.p.Sensitivity, s, c.k)
		target := (1 - eta) * c.p.Delta
		worst, arg := 0.0, 0.0
		for i := 0; i <= 100; i++ {
			phi := c.p.Sensitivity * float64(i) / 100
			if u := d.HockeyStickUpper(c.p.Epsilon, phi, 1e-4*c.p.Delta); u > worst {
				worst, arg = u, phi
			}
		}
		if worst > target+1e-4*c.p.Delta {
			t.Errorf("%+v K = %d σ = %g: bound %.9g at φ = %g above (1 − η)δ = %g", c.p, c.k, s, worst, arg, target)
		}
		_, phiMax := d.maxHockeyStick(c.p.Epsilon)
		d2, _ := NewMultiGaussian(c.p.Epsilon, c.p.Sensitivity, s*(1-1e-6), c.k)
		if q := quadHockeyStick(d2, c.p.Epsilon, phiMax); q <= target {
			t.Errorf("%+v K = %d: σ(1 − 10⁻⁶) = %g still meets the target (H = %.9g at φ = %g): σ not minimal", c.p, c.k, s*(1-1e-6), q, phiMax)
		}
		t.Logf("%+v K = %d: σ = %.6f, E|X| = %.6f, worst bound %.6g at φ = %.3f", c.p, c.k, s, d.MeanAbs(), worst, arg)
	}
}

// TestMultiGaussianMechanism: the mechanism is certified; without K it has
// the smallest E|X| among K = 1..10; a σ 10% too small is refused by the
// certificate with a shortfall that matches the quadrature.
func TestMultiGaussianMechanism(t *testing.T) {
	p := Params{Epsilon: 1, Delta: 0.1, Sensitivity: 1}
	m, err := MultiGaussianMechanism(p, MultiGaussianOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d := m.Dist.(*MultiGaussian)
	for _, k := range []int{1, 3, 10} {
		s, err := MultiGaussianSigma(p, k, DefaultMultiGaussianEta)
		if err != nil {
			t.Fatal(err)
		}
		o, _ := NewMultiGaussian(1, 1, s, k)
		if o.MeanAbs() < d.MeanAbs()*(1-1e-9) {
			t.Errorf("K = %d has E|X| %.6f < chosen K = %d's %.6f", k, o.MeanAbs(), d.K, d.MeanAbs())
		}
	}
	if d.K != 2 {
		t.Errorf("best K at (1, 0.1) is %d, the paper's Table 11 has 2", d.K)
	}
	cert, err := CertifyMultiGaussian(d, p)
	if err != nil || !cert.Certified {
		t.Fatalf("certificate %+v, %v", cert, err)
	}
	bad := *d
	bad.Sigma *= 0.9
	cb, _ := CertifyMultiGaussian(&bad, p)
	if cb.Certified {
		t.Fatalf("σ·0.9 certified: %+v", cb)
	}
	if q := quadHockeyStick(&bad, 1, cb.WorstShift); q <= p.Delta {
		t.Errorf("refused at φ = %g but quadrature H = %g ≤ δ", cb.WorstShift, q)
	}
	if _, err := MultiGaussianMechanism(Params{Epsilon: 1, Delta: 0, Sensitivity: 1}, MultiGaussianOptions{}); err == nil {
		t.Error("δ = 0 accepted")
	}
	if _, err := MultiGaussianMechanism(p, MultiGaussianOptions{K: -1}); err == nil {
		t.Error("K = −1 accepted")
	}
}

// TestDiscreteMultiGaussian: the exact sampler's law (χ²), and the release's
// δ against the continuous mechanism's.
func TestDiscreteMultiGaussian(t *testing.T) {
	const n = 500_000
	src := NewSeededSource(5)
	counts := map[int64]int{}
	for i := 0; i < n; i++ {
		counts[sampleDiscreteMultiGaussian(4, 5, 2, 1, src)]++
	}
	pi := func(y float64) float64 {
		v := 0.0
		for j := -2; j <= 2; j++ {
			a := y - 5*float64(j)
			v += math.Exp(-math.Abs(float64(j))) * math.Exp(-a*a/8)
		}
		return v
	}
	z := 0.0
	for y := -100.0; y <= 100; y++ {
		z += pi(y)
	}
	stat, df := chiSquare(counts, func(y int64) float64 { return pi(float64(y)) / z }, -16, 16, n)
	if crit := chiSquareCrit(df, 1e-6); stat > crit {
		t.Fatalf("χ² = %.1f > %.1f (df %d)", stat, crit, df)
	}
	p := Params{Epsilon: 1, Delta: 0.1, Sensitivity: 1}
	m, err := MultiGaussianMechanism(p, MultiGaussianOptions{K: 2})
	if err != nil {
		t.Fatal(err)
	}
	c, err := DiscreteMultiGaussianFor(m.Dist.(*MultiGaussian), p, 0)
	if err != nil {
		t.Fatal(err)
	}
	if c.SigmaFactor < 1 || c.SigmaFactor > 1.05 {
		t.Errorf("σ factor %g outside [1, 1.05]", c.SigmaFactor)
	}
	dl := multiGaussianGridDelta(1, 1, float64(c.Variance), c.GridSensitivity, 2)
	if dl > p.Delta {
		t.Errorf("discrete δ %g > %g", dl, p.Delta)
	}
	v, err := m.Release(3.25, NewSeededSource(1), ReleaseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r := v / c.Granularity; r != math.Trunc(r) {
		t.Errorf("release %v is not on the grid %v", v, c.Granularity)
	}
	t.Logf("grid %g, k = %d, s = %d, σ factor %.4f, discrete δ %.6g", c.Granularity, c.GridSensitivity, c.Variance, c.SigmaFactor, dl)
}
