package noise

import (
	"fmt"
	"math"
	"math/big"
	"sync"
)

// This file holds the exact samplers of Canonne, Kamath and Steinke, "The
// discrete Gaussian for differential privacy" (NeurIPS 2020, Algorithms 1–3)
// and the floating-point-safe release of the Gaussian and analytic Gaussian
// mechanisms built on them.
//
// Safety argument. Every random decision below is a Bernoulli trial with an
// exactly rational success probability, decided by comparing a uniform
// integer (rejection sampling on whole 64-bit words of the Source, see
// uniformBelow) with an integer numerator: no floating-point number is ever
// computed from the random bits. The integer output Y therefore has exactly
// the discrete Gaussian law
//
//	Pr[Y = y] = exp(−y²/(2s)) / Σ_{z ∈ ℤ} exp(−z²/(2s)),   s = σ_Z² ∈ ℕ,
//
// and the released value (k₀ + Y)·g, with k₀ = round(v/g) and g a power of two,
// is an exact float64 (checked: |k₀ + Y| < 2⁵³). The release is thus a
// post-processing of the ideal discrete mechanism, whose (ε, δ) is computed
// by discreteGaussianDelta with a pessimistic error bound; no floating-point
// attack of Mironov's kind (CCS 2012) applies, because the set of possible
// outputs, g·ℤ, does not depend on v.

// bernoulliRat returns true with probability n/d exactly (0 ≤ n ≤ d, d > 0).
func bernoulliRat(n, d *big.Int, src Source) bool {
	if n.Sign() <= 0 {
		return false
	}
	if n.Cmp(d) >= 0 {
		return true
	}
	if d.IsUint64() {
		dv, nv := d.Uint64(), n.Uint64()
		return uniformBelow64(dv, src) < nv
	}
	return uniformBelow(d, src).Cmp(n) < 0
}

// uniformBelow64 returns a uniform integer in [0, n), n > 0, by rejection on
// the top bits of 64-bit words (exact; expected < 2 words).
func uniformBelow64(n uint64, src Source) uint64 {
	if n&(n-1) == 0 {
		return src.Uint64() & (n - 1)
	}
	shift := uint(0)
	for (n-1)>>(63-shift) == 0 && shift < 63 {
		shift++
	}
	for {
		r := src.Uint64() >> shift
		if r < n {
			return r
		}
	}
}

var bigOne = big.NewInt(1)

// bernoulliExpNeg returns true with probability exp(−n/d) exactly, n ≥ 0,
// d > 0 (Canonne, Kamath and Steinke 2020, Algorithm 1): for γ = n/d ≤ 1 it
// draws A_k ~ Bernoulli(γ/k) for k = 1, 2, … until the first failure K and
// returns whether K is odd, Pr = Σ_k (−γ)^{k−1}/(k−1)!·… = e^{−γ}; for γ > 1
// it multiplies ⌊γ⌋ independent Bernoulli(e^{−1}) and one Bernoulli(e^{−(γ−⌊γ⌋)}).
func bernoulliExpNeg(n, d *big.Int, src Source) bool {
	if n.Cmp(d) > 0 {
		q, r := new(big.Int).QuoRem(n, d, new(big.Int))
		for i := int64(0); q.Cmp(big.NewInt(i)) > 0; i++ {
			if !bernoulliExpNeg(bigOne, bigOne, src) {
				return false
			}
		}
		return bernoulliExpNeg(r, d, src)
	}
	k := int64(1)
	den := new(big.Int)
	for {
		den.Mul(d, big.NewInt(k)) // A_k ~ Bernoulli(n/(d·k))
		if !bernoulliRat(n, den, src) {
			break
		}
		k++
	}
	return k%2 == 1
}

// discreteLaplace returns Y with Pr[Y = y] ∝ exp(−|y|/t), t ∈ ℕ, t ≥ 1
// (Canonne, Kamath and Steinke 2020, Algorithm 2).
func discreteLaplace(t int64, src Source) int64 {
	bt := big.NewInt(t)
	for {
		u := int64(uniformBelow64(uint64(t), src))
		if !bernoulliExpNeg(big.NewInt(u), bt, src) {
			continue
		}
		v := int64(0)
		for bernoulliExpNeg(bigOne, bigOne, src) {
			v++
		}
		x := u + t*v
		neg := randBit(src)
		if neg && x == 0 {
			continue
		}
		if neg {
			return -x
		}
		return x
	}
}

// discreteGaussian returns Y with Pr[Y = y] ∝ exp(−y²/(2s)) for the integer
// variance parameter s ≥ 1 (Canonne, Kamath and Steinke 2020, Algorithm 3):
// t = ⌊√s⌋ + 1, Y ~ discrete Laplace(t), accepted with probability
// exp(−(|Y| − s/t)²/(2s)) = exp(−(t|Y| − s)²/(2 s t²)).
func discreteGaussian(s int64, src Source) int64 {
	t := int64(math.Sqrt(float64(s)))
	for t*t > s {
		t--
	}
	for (t+1)*(t+1) <= s {
		t++
	}
	t++
	den := new(big.Int).Mul(big.NewInt(2*s), big.NewInt(t*t))
	num := new(big.Int)
	for {
		y := discreteLaplace(t, src)
		a := y
		if a < 0 {
			a = -a
		}
		num.Mul(big.NewInt(t), big.NewInt(a))
		num.Sub(num, big.NewInt(s))
		num.Mul(num, num)
		if bernoulliExpNeg(num, den, src) {
			return y
		}
	}
}

// DiscreteGaussianRelease describes the floating-point-safe release of a
// Gaussian mechanism: the value is rounded to the grid Granularity·ℤ and
// Granularity·Y is added, Y ~ N_ℤ(0, Variance) (discrete Gaussian, integer
// variance parameter). Neighbouring values move the rounded value by at most
// GridSensitivity = ⌊Δ/g⌋ + 1 grid steps, and the discrete mechanism is
// (Epsilon, Delta)-DP with Delta ≥ the exact hockey-stick divergence
// (discreteGaussianDelta). SigmaFactor = g·√Variance/σ ≥ 1 is the accounted
// cost of the discretization: the standard deviation grows by this factor
// (≈ 1 + g/Δ, at most 1 + 2⁻⁹ for the default grid when σ ≤ 2¹⁰·Δ).
type DiscreteGaussianRelease struct {
	Granularity     float64 // g, a power of two
	Variance        int64   // s = σ_Z², in grid units
	GridSensitivity int64   // ⌊Δ/g⌋ + 1
	Epsilon, Delta  float64 // the guarantee of the discrete release
	SigmaFactor     float64 // g·√s / σ of the continuous mechanism
}

// DiscreteGaussianFor calibrates the discrete release of a Gaussian
// mechanism with standard deviation sigma for p = (ε, δ, Δ): the grid g is the
// largest power of two ≤ min(Δ, σ)/2¹⁰ (but ≥ σ/2²⁰, so that the sums below
// stay below 10⁸ terms), or the given power of two g > 0; the variance in
// grid units starts at ⌈(σ·GridSensitivity/Δ)²⌉ (the continuous calibration
// with the rounded sensitivity) and grows by 0.1% steps until the computed δ
// is ≤ p.Delta. For the Gaussian family the discrete δ is at most the
// continuous one in all cases tried, so the first step is normally taken.
func DiscreteGaussianFor(sigma float64, p Params, g float64) (*DiscreteGaussianRelease, error) {
	if err := p.needDelta(0, 1, "must be in (0, 1) for a Gaussian release"); err != nil {
		return nil, err
	}
	if !(sigma > 0) || math.IsInf(sigma, 0) {
		return nil, paramErr("Sigma", sigma, "must be > 0 and finite")
	}
	if g == 0 {
		g = pow2Floor(math.Min(p.Sensitivity, sigma) / 1024)
		if lo := pow2Floor(sigma / (1 << 20)); lo > g {
			g = lo
		}
	} else if fr, _ := math.Frexp(g); !(g > 0) || fr != 0.5 || math.IsInf(g, 0) {
		return nil, paramErr("Granularity", g, "must be a positive power of two")
	}
	kz := math.Floor(p.Sensitivity/g) + 1
	sz := sigma * kz / p.Sensitivity
	if !(sz*sz < 1<<52) || kz > 1<<40 {
		return nil, paramErr("Granularity", g, fmt.Sprintf("is too fine for σ = %g, Δ = %g", sigma, p.Sensitivity))
	}
	if sz*sz > 1<<46 {
		return nil, paramErr("Granularity", g, fmt.Sprintf("gives %g grid steps of noise, more than the exact δ computation handles (2²³)", sz))
	}
	s := int64(math.Ceil(sz * sz))
	if s < 1 {
		s = 1
	}
	for i := 0; i < 200; i++ {
		d := discreteGaussianDelta(p.Epsilon, float64(s), int64(kz))
		if d <= p.Delta {
			return &DiscreteGaussianRelease{Granularity: g, Variance: s, GridSensitivity: int64(kz),
				Epsilon: p.Epsilon, Delta: p.Delta, SigmaFactor: g * math.Sqrt(float64(s)) / sigma}, nil
		}
		s = int64(math.Ceil(float64(s) * 1.001))
	}
	return nil, fmt.Errorf("noise: no discrete Gaussian variance near %g meets δ = %g", sz*sz, p.Delta)
}

func pow2Floor(x float64) float64 {
	fr, e := math.Frexp(x) // x = fr·2^e, fr ∈ [½, 1)
	_ = fr
	return math.Ldexp(1, e-1)
}

// discreteGaussianDelta returns an upper bound on the exact privacy profile
// of the discrete Gaussian N_ℤ(0, s) under an integer shift k ≥ 1:
//
//	δ(ε) = Σ_y max(0, p(y) − e^ε p(y − k)),   p(y) = q(y)/Z,  q(y) = exp(−y²/(2s)).
//
// The positive terms are exactly those with y < c = k/2 − εs/k (monotone
// likelihood ratio), written q(y)·(−expm1(ε − (k² − 2yk)/(2s))) to avoid
// cancellation. Because the likelihood ratio is monotone, the optimal event is
// a half-line {y < c} and δ = max_c F(c) − e^ε F(c − k) is non-decreasing in
// k: shifts smaller than k are covered. Pessimism: the normalizer Z is a
// lower bound (a finite part of the series, reduced by the summation error
// bound), the truncated tail of the δ series is bounded by a geometric
// series and added, and the sum is inflated by n·2⁻⁵¹ for the rounding of n
// terms (math.Exp and math.Expm1 err by < 1 ulp).
func discreteGaussianDelta(eps, s float64, k int64) float64 {
	kf := float64(k)
	sigma := math.Sqrt(s)
	span := math.Ceil(40*sigma) + 2 // q(y) < e^{-800} beyond: negligible but bounded below
	// Normalizer: q(0) + 2 Σ_{y ≥ 1} q(y), truncated at span (a lower bound).
	z := 1.0
	n := 1.0
	for y := 1.0; y <= span; y++ {
		z += 2 * math.Exp(-y*y/(2*s))
		n += 2
	}
	z *= 1 - n*0x1p-51
	c := kf/2 - eps*s/kf
	top := math.Ceil(c) - 1 // largest integer y < c
	if top == c {
		top--
	}
	sum, terms := 0.0, 0.0
	lo := top - span
	if lo > -span {
		lo = -span // both sides of 0 when c is near 0
	}
	for y := top; y >= lo; y-- {
		L := (kf*kf - 2*y*kf) / (2 * s)
		sum += math.Exp(-y*y/(2*s)) * -math.Expm1(eps-L)
		terms++
	}
	// Tail y < lo: q(y − 1)/q(y) ≤ r for y ≤ lo < 0.
	r := math.Exp(-(2*math.Abs(lo) + 1) / (2 * s))
	tail := math.Exp(-lo*lo/(2*s)) * r / (1 - r)
	return (sum*(1+terms*0x1p-51) + tail) / z
}

type dgKey struct {
	sigma, g float64
	p        Params
}

// dgCache memoizes DiscreteGaussianFor for releases (the δ sums cost
// O(σ/g) exponentials, too much to repeat per release).
var dgCache sync.Map

// releaseDiscreteGaussian releases v + noise per DiscreteGaussianFor.
func releaseDiscreteGaussian(v, sigma float64, p Params, src Source, g float64) (float64, *DiscreteGaussianRelease, error) {
	key := dgKey{sigma, g, p}
	var dg *DiscreteGaussianRelease
	if c, ok := dgCache.Load(key); ok {
		dg = c.(*DiscreteGaussianRelease)
	} else {
		var err error
		if dg, err = DiscreteGaussianFor(sigma, p, g); err != nil {
			return 0, nil, err
		}
		dgCache.Store(key, dg)
	}
	k0 := math.RoundToEven(v / dg.Granularity) // v/g exact (g a power of two) unless it underflows, which rounding absorbs
	if math.Abs(k0) >= 1<<52 {
		return 0, nil, paramErr("Value", v, fmt.Sprintf("is too large for the grid %g (|v/g| ≥ 2⁵²)", dg.Granularity))
	}
	y := discreteGaussian(dg.Variance, src)
	t := k0 + float64(y)
	if math.Abs(t) >= 1<<53 {
		return 0, nil, fmt.Errorf("noise: release %v·%g is not representable exactly", t, dg.Granularity)
	}
	return t * dg.Granularity, dg, nil
}
