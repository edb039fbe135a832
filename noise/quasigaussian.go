package noise

import (
	"math"
)

var _ Distribution = (*QuasiGaussian)(nil)

// QuasiGaussian is the quasi-Gaussian mixture of Liu & Selvi ("Mixtures of
// Gaussians in approximate differential privacy", Definition 2):
//
//	f(x) = (e^ε/c)·exp(−x²/(2σ²)) + (1/c)·exp(−(|x| − Δ)²/(2σ²)),
//	c = √(2π)σ(e^ε + 2Φ(Δ/σ)).
//
// E|X| = (√(2/π)σ(e^ε + e^{−Δ²/(2σ²)}) + 2ΔΦ(Δ/σ)) / (e^ε + 2Φ(Δ/σ)) and
// E X² = (e^ε σ² + 2(Φ(Δ/σ)(σ² + Δ²) + σΔ e^{−Δ²/(2σ²)}/√(2π))) / (e^ε + 2Φ(Δ/σ))
// (their Appendix 2.A.4).
type QuasiGaussian struct {
	Epsilon, Sensitivity, Sigma float64
}

// NewQuasiGaussian returns the quasi-Gaussian mixture with parameters ε, Δ, σ > 0.
func NewQuasiGaussian(epsilon, sensitivity, sigma float64) (*QuasiGaussian, error) {
	if err := (Params{Epsilon: epsilon, Sensitivity: sensitivity}).Validate(); err != nil {
		return nil, err
	}
	if !(sigma > 0) || math.IsInf(sigma, 0) {
		return nil, paramErr("Sigma", sigma, "must be > 0 and finite")
	}
	return &QuasiGaussian{Epsilon: epsilon, Sensitivity: sensitivity, Sigma: sigma}, nil
}

// QuasiGaussianMechanism returns the quasi-Gaussian mechanism of Liu & Selvi
// (Theorem 3, Algorithm 4) with σ = max(σ₁, σ₂): σ₁ the smallest σ with
// h₁(σ) + h₂(σ) ≥ 0 (zero when e^ε + 2 ≥ 1/δ, Lemma 20) and σ₂ the smallest σ
// with max_{[0,Δ]} f / min_{[0,Δ]} f ≤ e^ε (Lemma 22), both by bisection to
// relative precision 1e-12, rounded up. Requires δ ∈ (0, 1).
func QuasiGaussianMechanism(p Params) (*Mechanism, error) {
	if err := p.needDelta(0, 1, "must be in (0, 1)"); err != nil {
		return nil, err
	}
	s := quasiGaussianSigma(p.Epsilon, p.Delta, p.Sensitivity)
	d, err := NewQuasiGaussian(p.Epsilon, p.Sensitivity, s)
	if err != nil {
		return nil, err
	}
	return representable(&Mechanism{Name: "quasi-gaussian", Params: p, Dist: d})
}

func bisectSmallest(lo, hi float64, ok func(float64) bool) float64 {
	for hi-lo > 1e-12*hi {
		mid := 0.5 * (lo + hi)
		if ok(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

func quasiGaussianSigma(eps, delta, sens float64) float64 {
	var s1 float64
	if math.Exp(eps)+2 < 1/delta {
		psi1 := func(s float64) float64 {
			return math.Exp(2*eps)*stdNormalCDF(-eps*s/sens-sens/s) - stdNormalCDF(-eps*s/sens+sens/s) +
				(math.Exp(eps)+2*stdNormalCDF(sens/s))*delta
		}
		s1 = bisectSmallest(0, math.Sqrt(2*(eps-math.Log(delta)))*sens/eps, func(s float64) bool { return psi1(s) >= 0 })
	}
	s2 := bisectSmallest(0, math.Sqrt(sens*sens/(2*eps)), func(s float64) bool {
		return quasiLogRatio(eps, sens, s) <= eps
	})
	return math.Max(s1, s2)
}

// quasiLogLess returns ln(c·f(x)) for x ≥ 0 (log-sum-exp form, no underflow).
func quasiLogDensity(eps, sens, s, x float64) float64 {
	a := eps - x*x/(2*s*s)
	b := -(x - sens) * (x - sens) / (2 * s * s)
	m := math.Max(a, b)
	return m + math.Log(math.Exp(a-m)+math.Exp(b-m))
}

// quasiLogRatio returns ln(max_{[0,Δ]} f / min_{[0,Δ]} f): a 1024-point scan of
// [0, Δ] followed by golden-section refinement around the best scan points
// (f is unimodal on the relevant sub-intervals, Lemma 21).
func quasiLogRatio(eps, sens, s float64) float64 {
	f := func(x float64) float64 { return quasiLogDensity(eps, sens, s, x) }
	const n = 1024
	iMax, iMin := 0, 0
	vals := make([]float64, n+1)
	for i := 0; i <= n; i++ {
		vals[i] = f(sens * float64(i) / n)
		if vals[i] > vals[iMax] {
			iMax = i
		}
		if vals[i] < vals[iMin] {
			iMin = i
		}
	}
	refine := func(i int, sign float64) float64 {
		a := sens * float64(max(i-1, 0)) / n
		b := sens * float64(min(i+1, n)) / n
		g := func(x float64) float64 { return sign * f(x) }
		best := math.Max(g(a), g(b))
		const r = 0.6180339887498949
		c, d := b-r*(b-a), a+r*(b-a)
		for k := 0; k < 80; k++ {
			if g(c) > g(d) {
				b = d
			} else {
				a = c
			}
			c, d = b-r*(b-a), a+r*(b-a)
		}
		return sign * math.Max(best, math.Max(g(0.5*(a+b)), sign*vals[i]))
	}
	return refine(iMax, 1) - refine(iMin, -1)
}

func (d *QuasiGaussian) den() float64 {
	return math.Exp(d.Epsilon) + 2*stdNormalCDF(d.Sensitivity/d.Sigma)
}

// PDF returns the mixture density.
func (d *QuasiGaussian) PDF(x float64) float64 {
	s := d.Sigma
	ax := math.Abs(x)
	c := math.Sqrt(2*math.Pi) * s * d.den()
	return (math.Exp(d.Epsilon-x*x/(2*s*s)) + math.Exp(-(ax-d.Sensitivity)*(ax-d.Sensitivity)/(2*s*s))) / c
}

// CDF returns the closed form of their Appendix 2.A.2.
func (d *QuasiGaussian) CDF(x float64) float64 {
	s, D := d.Sigma, d.Sensitivity
	e := math.Exp(d.Epsilon)
	if x < 0 {
		return (e*stdNormalCDF(x/s) + stdNormalCDF((x+D)/s)) / d.den()
	}
	return (e*stdNormalCDF(x/s) + stdNormalCDF((x-D)/s) + stdNormalCDF(D/s) - stdNormalCDF(-D/s)) / d.den()
}

// Quantile inverts CDF by bisection (to 1e-13 relative).
func (d *QuasiGaussian) Quantile(p float64) float64 {
	if p <= 0 {
		return math.Inf(-1)
	}
	if p >= 1 {
		return math.Inf(1)
	}
	return bisectQuantile(d.CDF, p, d.Sensitivity+d.Sigma)
}

// bisectQuantile inverts a continuous CDF at p ∈ (0, 1) by bisection to
// 1e-13 relative, starting from [−w, w] and doubling it until it brackets p.
func bisectQuantile(cdf func(float64) float64, p, w float64) float64 {
	lo, hi := -w, w
	for cdf(lo) > p {
		lo *= 2
	}
	for cdf(hi) < p {
		hi *= 2
	}
	for k := 0; k < 200 && hi-lo > 1e-13*math.Max(1, math.Abs(lo)+math.Abs(hi)); k++ {
		mid := 0.5 * (lo + hi)
		if cdf(mid) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return 0.5 * (lo + hi)
}

// Mean returns 0.
func (d *QuasiGaussian) Mean() float64 { return 0 }

// MeanAbs returns the closed-form noise amplitude.
func (d *QuasiGaussian) MeanAbs() float64 {
	s, D := d.Sigma, d.Sensitivity
	return (math.Sqrt(2/math.Pi)*s*(math.Exp(d.Epsilon)+math.Exp(-D*D/(2*s*s))) + 2*D*stdNormalCDF(D/s)) / d.den()
}

// Variance returns the closed-form noise power E X².
func (d *QuasiGaussian) Variance() float64 {
	s, D := d.Sigma, d.Sensitivity
	return (math.Exp(d.Epsilon)*s*s + 2*(stdNormalCDF(D/s)*(s*s+D*D)+s*D*math.Exp(-D*D/(2*s*s))/math.Sqrt(2*math.Pi))) / d.den()
}

// Support returns (−Inf, +Inf).
func (d *QuasiGaussian) Support() (lo, hi float64) { return math.Inf(-1), math.Inf(1) }

// Sample follows their Algorithm 8: with probability e^ε/(e^ε + 2Φ(Δ/σ)) a
// N(0, σ²) draw, otherwise a N(Δ, σ²) draw truncated to [0, ∞) with a random sign.
func (d *QuasiGaussian) Sample(src Source) float64 {
	src = orCrypto(src)
	s, D := d.Sigma, d.Sensitivity
	var x float64
	if uniform01(src) < math.Exp(d.Epsilon)/d.den() {
		x = s * stdNormalQuantile(uniform01(src))
	} else {
		x = D + s*stdNormalQuantile(stdNormalCDF(-D/s)+uniform01(src)*stdNormalCDF(D/s))
		if x < 0 {
			x = 0
		}
	}
	if randBit(src) {
		return -x
	}
	return x
}
