package noise

import (
	"fmt"
	"math"
	"math/big"
	"sync"
)

// Floating-point-safe release of the quasi-Gaussian mechanism (Liu and
// Selvi): a discrete quasi-Gaussian on a power-of-two grid g, sampled exactly,
// whose (ε, δ) is computed for the discrete mechanism itself.
//
// Law. With K = k = ⌊Δ/g⌋ + 1 (the grid sensitivity) and an integer variance
// parameter s, Y has
//
//	Pr[Y = y] ∝ π(y) = e^ε·exp(−y²/(2s)) + exp(−(|y| − K)²/(2s)),
//
// the quasi-Gaussian density on the grid. The release is g·(round(v/g) + Y).
//
// Exact sampler. With probability ∝ 1 : 2e^{−ε} (Bernoulli(1/3), then
// Bernoulli(e^{−ε}), else retry) propose Y from the first component (an
// exact discrete Gaussian N_ℤ(0, s), always accepted) or Y = ±(K + N_ℤ(0, s))
// (the two shifted Gaussians, total weight 2 against e^ε), accepted with
// probability exp(−(|y|−K)²/(2s)) / (exp(−(y−K)²/(2s)) + exp(−(y+K)²/(2s)))
// = 1/(1 + e^{−2|y|K/s}) (a Bernoulli of the logistic function drawn exactly:
// Bernoulli(½) → accept, else Bernoulli(e^{−2|y|K/s}) → reject, else repeat);
// a rejection restarts. The accepted Y has exactly the law π: every decision is
// an exact rational or exp(−rational) Bernoulli.
//
// Privacy. π is not log-concave, so δ is computed for every integer shift
// j = 1..k (by symmetry of π, negative shifts are the same):
// δ = max_j Σ_y max(0, p(y) − e^ε p(y − j)), with the pessimistic error
// handling of discreteGaussianDelta (lower-bounded normalizer, bounded tails,
// inflated sums). s starts at ⌈(σ·k/Δ)²⌉ (the continuous calibration on the
// grid) and grows by 1% until δ ≤ the mechanism's δ.

// DiscreteQuasiGaussianRelease is the calibration of that release.
type DiscreteQuasiGaussianRelease struct {
	Granularity     float64 // g, a power of two
	GridSensitivity int64   // k = ⌊Δ/g⌋ + 1, also the offset K of the side components
	Variance        int64   // s
	Epsilon, Delta  float64 // the guarantee; Delta ≥ the computed δ
	SigmaFactor     float64 // g·√s/σ
}

// DiscreteQuasiGaussianFor calibrates the safe release of quasi-Gaussian
// noise with parameter sigma for p; g = 0 picks the largest power of two
// ≤ Δ/64 (the δ computation costs O(k·σ/g) exponentials per candidate).
func DiscreteQuasiGaussianFor(sigma float64, p Params, g float64) (*DiscreteQuasiGaussianRelease, error) {
	if err := p.needDelta(0, 1, "must be in (0, 1)"); err != nil {
		return nil, err
	}
	if !(sigma > 0) || math.IsInf(sigma, 0) {
		return nil, paramErr("Sigma", sigma, "must be > 0 and finite")
	}
	if g == 0 {
		g = pow2Floor(p.Sensitivity / 64)
	} else if fr, _ := math.Frexp(g); !(g > 0) || fr != 0.5 || math.IsInf(g, 0) {
		return nil, paramErr("Granularity", g, "must be a positive power of two")
	}
	k, s, err := discreteGridStart(p, sigma, g)
	if err != nil {
		return nil, err
	}
	s0 := s
	for i := 0; i < 300; i++ {
		if d := quasiGaussianGridDelta(p.Epsilon, float64(s), k); d <= p.Delta {
			return &DiscreteQuasiGaussianRelease{Granularity: g, GridSensitivity: k, Variance: s,
				Epsilon: p.Epsilon, Delta: p.Delta, SigmaFactor: g * math.Sqrt(float64(s)) / sigma}, nil
		}
		s = int64(math.Ceil(float64(s) * 1.01))
	}
	return nil, fmt.Errorf("noise: no discrete quasi-Gaussian variance near %g meets δ = %g", float64(s0), p.Delta)
}

// quasiGaussianGridDelta returns an upper bound on max_{1≤j≤k} of the
// hockey-stick divergence of π (K = k) under shift j.
func quasiGaussianGridDelta(eps, s float64, k int64) float64 {
	K := float64(k)
	ee := math.Exp(eps)
	pi := func(y float64) float64 {
		a := math.Abs(y) - K
		return ee*math.Exp(-y*y/(2*s)) + math.Exp(-a*a/(2*s))
	}
	span := math.Ceil(K + 40*math.Sqrt(s) + 2)
	// Tail beyond span (both components, both sides): each Gaussian tail past
	// distance t = span − K from its centre is ≤ e^{−t²/(2s)}/(1 − e^{−t/s}).
	t := span - K
	tail := 2 * (ee + 2) * math.Exp(-t*t/(2*s)) / (1 - math.Exp(-t/s))
	return gridDelta(eps, pi, span, k, tail, 8)
}

// gridDelta returns an upper bound on max_{1≤j≤k} Σ_y (p(y) − e^ε p(y − j))⁺
// for the law p = π/Σπ on ℤ: π is summed on [−span, span] (its normalizer,
// reduced by the summation error), the sums run over y ∈ [−span, span + j],
// tail bounds the mass of π outside [−span, span], and ulps bounds the
// relative error of one evaluation of π in units of 2⁻⁵³ (8 for a few
// exponentials).
func gridDelta(eps float64, pi func(float64) float64, span float64, k int64, tail, ulps float64) float64 {
	ee := math.Exp(eps)
	off := int(span) + int(k) // index of y is y + off, y ∈ [−span−k, span+k]
	vals := make([]float64, 2*off+1)
	for i := range vals {
		vals[i] = pi(float64(i - off))
	}
	z, n := 0.0, 0.0
	for y := -int(span); y <= int(span); y++ {
		z += vals[y+off]
		n++
	}
	z *= 1 - n*0x1p-51
	worst := 0.0
	for j := 1; j <= int(k); j++ {
		sum := 0.0
		for y := -int(span); y <= int(span)+j; y++ {
			if d := vals[y+off] - ee*vals[y-j+off]; d > 0 {
				sum += d
			}
		}
		worst = math.Max(worst, sum)
	}
	// Each term: pi(y) − e^ε pi(y−j) with ≤ ulps of the larger operand;
	// bounded by ulps·u·(1 + e^ε)·Σ pi ≤ … ·z/(1 − n·2⁻⁵¹) overall.
	errAbs := ulps * 0x1p-53 * (1 + ee) * z * 2
	return (worst*(1+n*0x1p-51) + errAbs + tail) / z
}

// logisticBernoulli returns true with probability 1/(1 + e^{−n/d}) exactly.
func logisticBernoulli(n, d *big.Int, src Source) bool {
	for {
		if randBit(src) {
			return true
		}
		if bernoulliExpNeg(n, d, src) {
			return false
		}
	}
}

// sampleDiscreteQuasiGaussian draws Y ~ π exactly (see the file comment).
func sampleDiscreteQuasiGaussian(s, K int64, eps float64, src Source) int64 {
	er := ratOf(eps)
	en, ed := er.Num(), er.Denom()
	one, three := big.NewInt(1), big.NewInt(3)
	den := big.NewInt(s)
	for {
		if bernoulliRat(one, three, src) {
			return discreteGaussian(s, src)
		}
		if !bernoulliExpNeg(en, ed, src) {
			continue
		}
		y := K + discreteGaussian(s, src)
		if randBit(src) {
			y = -y
		}
		a := y
		if a < 0 {
			a = -a
		}
		if logisticBernoulli(new(big.Int).Mul(big.NewInt(2*a), big.NewInt(K)), den, src) {
			return y
		}
	}
}

var dqgCache sync.Map

func releaseDiscreteQuasiGaussian(v, sigma float64, p Params, src Source, g float64) (float64, error) {
	key := dgKey{sigma, g, p}
	var d *DiscreteQuasiGaussianRelease
	if c, ok := dqgCache.Load(key); ok {
		d = c.(*DiscreteQuasiGaussianRelease)
	} else {
		var err error
		if d, err = DiscreteQuasiGaussianFor(sigma, p, g); err != nil {
			return 0, err
		}
		dqgCache.Store(key, d)
	}
	return onGrid(v, d.Granularity, func() int64 { return sampleDiscreteQuasiGaussian(d.Variance, d.GridSensitivity, d.Epsilon, src) })
}

// onGrid returns g·(round(v/g) + y()) for a power-of-two grid g, or an error
// when round(v/g) or the sum leaves the exactly representable integers.
func onGrid(v, g float64, y func() int64) (float64, error) {
	k0 := math.RoundToEven(v / g)
	if math.Abs(k0) >= 1<<52 {
		return 0, paramErr("Value", v, fmt.Sprintf("is too large for the grid %g (|v/g| ≥ 2⁵²)", g))
	}
	t := k0 + float64(y())
	if math.Abs(t) >= 1<<53 {
		return 0, fmt.Errorf("noise: release %v·%g is not representable exactly", t, g)
	}
	return t * g, nil
}

// discreteGridStart returns the grid sensitivity k = ⌊Δ/g⌋ + 1 and the
// starting variance s = ⌈(σ·k/Δ)²⌉ (at least 1), in grid units, of a
// discrete Gaussian-family release of scale sigma on the grid g; both the
// quasi- and the multi-Gaussian releases grow s from there until their δ holds.
func discreteGridStart(p Params, sigma, g float64) (k, s int64, err error) {
	kf := math.Floor(p.Sensitivity/g) + 1
	sz := sigma * kf / p.Sensitivity
	if kf > 1<<12 || sz > 1<<20 {
		return 0, 0, paramErr("Granularity", g, fmt.Sprintf("gives %g grid steps of sensitivity and %g of σ; at most 4096 and 2²⁰", kf, sz))
	}
	s = int64(math.Ceil(sz * sz))
	if s < 1 {
		s = 1
	}
	return int64(kf), s, nil
}
