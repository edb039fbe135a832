package noise

import (
	"fmt"
	"math"
	"sync"
)

// Floating-point-safe release of the multi-Gaussian mechanism (Liu and
// Selvi, Definition 3): a discrete multi-Gaussian on a power-of-two grid g,
// sampled exactly, whose (ε, δ) is computed for the discrete mechanism itself
// (the same construction as the quasi-Gaussian release).
//
// Law. With k = ⌊Δ/g⌋ + 1 (the grid sensitivity: neighbouring values move
// round(v/g) by at most k) and an integer variance parameter s,
//
//	Pr[Y = y] ∝ π(y) = Σ_{|j| ≤ K} e^{−|j|ε} exp(−(y − jk)²/(2s)),
//
// the mixture of Definition 3 on the grid with component spacing k. The
// release is g·(round(v/g) + Y).
//
// Exact sampler. The component j is drawn with probability ∝ e^{−|j|ε}:
// G = the number of successes of Bernoulli(e^{−ε}) before the first failure
// (exact, Canonne–Kamath–Steinke Algorithm 1 on the rational ε), rejected if
// G > K, a uniform sign, and j = 0 rejected on the negative sign (so that 0,
// reachable from both signs, keeps weight 1 against e^{−|j|ε} for j ≠ 0).
// Then Y = jk + N_ℤ(0, s) (the exact discrete Gaussian). Every decision is an
// exact rational or exp(−rational) Bernoulli, so Y has exactly the law π.
//
// Privacy. π is not log-concave, so δ is computed for every integer shift
// 1..k (π is symmetric, so negative shifts are the same) by gridDelta, with
// the pessimistic error handling of the quasi-Gaussian release. s starts at
// ⌈(σ·k/Δ)²⌉ (the continuous calibration scaled to the grid) and grows by 1%
// until δ ≤ the mechanism's δ.

// DiscreteMultiGaussianRelease is the calibration of that release.
type DiscreteMultiGaussianRelease struct {
	Granularity     float64 // g, a power of two
	GridSensitivity int64   // k = ⌊Δ/g⌋ + 1, also the spacing of the components
	K               int     // modality (components −K..K)
	Variance        int64   // s
	Epsilon, Delta  float64 // the guarantee; Delta ≥ the computed δ
	SigmaFactor     float64 // g·√s/σ
}

// DiscreteMultiGaussianFor calibrates the safe release of d for p; g = 0
// picks the largest power of two ≤ Δ/64.
func DiscreteMultiGaussianFor(d *MultiGaussian, p Params, g float64) (*DiscreteMultiGaussianRelease, error) {
	if err := p.needDelta(0, 1, "must be in (0, 1)"); err != nil {
		return nil, err
	}
	if d == nil || !(d.Sigma > 0) || math.IsInf(d.Sigma, 0) || d.K < 0 || d.K > MaxMultiGaussianK {
		return nil, paramErr("Dist", fmt.Sprintf("%+v", d), "must be a multi-Gaussian with finite σ > 0 and 0 ≤ K ≤ 64")
	}
	if g == 0 {
		g = pow2Floor(p.Sensitivity / 64)
	} else if fr, _ := math.Frexp(g); !(g > 0) || fr != 0.5 || math.IsInf(g, 0) {
		return nil, paramErr("Granularity", g, "must be a positive power of two")
	}
	k, s, err := discreteGridStart(p, d.Sigma, g)
	if err != nil {
		return nil, err
	}
	s0 := s
	for i := 0; i < 300; i++ {
		if dl := multiGaussianGridDelta(p.Epsilon, d.Epsilon, float64(s), k, d.K); dl <= p.Delta {
			return &DiscreteMultiGaussianRelease{Granularity: g, GridSensitivity: k, K: d.K, Variance: s,
				Epsilon: p.Epsilon, Delta: p.Delta, SigmaFactor: g * math.Sqrt(float64(s)) / d.Sigma}, nil
		}
		s = int64(math.Ceil(float64(s) * 1.01))
	}
	return nil, fmt.Errorf("noise: no discrete multi-Gaussian variance near %g meets δ = %g", float64(s0), p.Delta)
}

// multiGaussianGridDelta bounds max_{1≤j≤k} of the hockey-stick divergence
// (at eps) of π with weights e^{−|i|·wEps}, spacing k, K components a side.
func multiGaussianGridDelta(eps, wEps, s float64, k int64, K int) float64 {
	kf := float64(k)
	w := make([]float64, K+1)
	wsum := 0.0
	for i := range w {
		w[i] = math.Exp(-float64(i) * wEps)
		wsum += w[i]
		if i > 0 {
			wsum += w[i]
		}
	}
	pi := func(y float64) float64 {
		v := w[0] * math.Exp(-y*y/(2*s))
		for i := 1; i <= K; i++ {
			a, b := y-float64(i)*kf, y+float64(i)*kf
			v += w[i] * (math.Exp(-a*a/(2*s)) + math.Exp(-b*b/(2*s)))
		}
		return v
	}
	span := math.Ceil(float64(K)*kf + 40*math.Sqrt(s) + 2)
	t := span - float64(K)*kf
	tail := 2 * wsum * math.Exp(-t*t/(2*s)) / (1 - math.Exp(-t/s))
	return gridDelta(eps, pi, span, k, tail, float64(8+4*K))
}

// sampleDiscreteMultiGaussian draws Y ~ π exactly (see the file comment).
func sampleDiscreteMultiGaussian(s, k int64, K int, eps float64, src Source) int64 {
	er := ratOf(eps)
	en, ed := er.Num(), er.Denom()
	for {
		j := int64(0)
		for j <= int64(K) && bernoulliExpNeg(en, ed, src) {
			j++
		}
		if j > int64(K) {
			continue
		}
		if randBit(src) {
			if j == 0 {
				continue // j = 0 only on the other sign: weight ½·1 like ½·e^{−|j|ε}
			}
			j = -j
		}
		return j*k + discreteGaussian(s, src)
	}
}

var dmgCache sync.Map

type dmgKey struct {
	d MultiGaussian
	g float64
	p Params
}

func releaseDiscreteMultiGaussian(v float64, d *MultiGaussian, p Params, src Source, g float64) (float64, error) {
	key := dmgKey{*d, g, p}
	var c *DiscreteMultiGaussianRelease
	if x, ok := dmgCache.Load(key); ok {
		c = x.(*DiscreteMultiGaussianRelease)
	} else {
		var err error
		if c, err = DiscreteMultiGaussianFor(d, p, g); err != nil {
			return 0, err
		}
		dmgCache.Store(key, c)
	}
	return onGrid(v, c.Granularity, func() int64 { return sampleDiscreteMultiGaussian(c.Variance, c.GridSensitivity, c.K, d.Epsilon, src) })
}
