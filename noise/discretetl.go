package noise

import (
	"fmt"
	"math"
	"math/big"
	"sync"
)

// Floating-point-safe release of the truncated Laplace mechanism: a
// discrete truncated Laplace on a power-of-two grid, sampled exactly.
//
// Safety argument. The released value is g·(k₀ + Y) with k₀ = round(v/g)
// (exact: g is a power of two) and Y an integer with
//
//	Pr[Y = y] ∝ exp(−|y|·ε/k)  for |y| ≤ M,   k = ⌊Δ/g⌋ + 1,
//
// sampled by the discrete Laplace algorithm of Canonne, Kamath and Steinke
// (2020, Algorithm 2) with the exactly rational scale k/ε (ε's float64 value
// as a fraction) and rejection of |Y| > M: every random decision is an exact
// rational Bernoulli trial, so Y has exactly this law. Neighbouring values move
// k₀ by at most k. For a shift by j ≤ k, on the common support the ratio of
// probabilities is exp((|y − j| − |y|)·ε/k) ≤ e^ε, and the mass outside it is
// the top j atoms, at most
//
//	δ_M = Σ_{y = M−k+1}^{M} Pr[Y = y] = e^{−(M−k+1)ε/k}·(1 − e^{−ε}) / ((1 − e^{−ε/k})·Z_M),
//	Z_M = 1 + 2e^{−ε/k}(1 − e^{−Mε/k})/(1 − e^{−ε/k}),
//
// so the release is (ε, δ_M)-DP; M is the smallest integer with δ_M, computed
// in float64 (≤ 30 ulps relative error: exp and expm1 of arguments ≤ 40) and
// inflated by 10⁻¹², at most δ. The output grid g·ℤ does not depend on v, so
// Mironov's attack does not apply.

// DiscreteTruncatedLaplaceRelease is the calibration of that release.
type DiscreteTruncatedLaplaceRelease struct {
	Granularity     float64 // g, a power of two
	GridSensitivity int64   // k = ⌊Δ/g⌋ + 1
	Bound           int64   // M: |Y| ≤ M
	Epsilon, Delta  float64 // the guarantee (Delta ≥ δ_M)
	// scale k/ε as the exact fraction scaleNum/scaleDen (for exp(−|y|·ε/k)).
	scaleNum, scaleDen *big.Int
}

// DiscreteTruncatedLaplaceFor calibrates the safe truncated-Laplace release
// for p (δ ∈ (0, ½)); g = 0 picks the largest power of two ≤ Δ/2¹⁰ (noise
// scale up by at most a factor 1 + 2⁻¹⁰ against λ = Δ/ε).
func DiscreteTruncatedLaplaceFor(p Params, g float64) (*DiscreteTruncatedLaplaceRelease, error) {
	if err := p.needDelta(0, 0.5, "must be in (0, 0.5) for the truncated Laplace mechanism"); err != nil {
		return nil, err
	}
	if g == 0 {
		g = pow2Floor(p.Sensitivity / 1024)
	} else if fr, _ := math.Frexp(g); !(g > 0) || fr != 0.5 || math.IsInf(g, 0) {
		return nil, paramErr("Granularity", g, "must be a positive power of two")
	}
	kf := math.Floor(p.Sensitivity/g) + 1
	if kf > 1<<40 {
		return nil, paramErr("Granularity", g, fmt.Sprintf("is too fine for sensitivity %g", p.Sensitivity))
	}
	k := int64(kf)
	eps := p.Epsilon
	a := eps / kf
	den1 := -math.Expm1(-a) // 1 − e^{−ε/k}
	deltaM := func(M int64) float64 {
		z := 1 + 2*math.Exp(-a)*(-math.Expm1(-float64(M)*a))/den1
		return math.Exp(-float64(M-k+1)*a) * (-math.Expm1(-eps)) / den1 / z * (1 + 1e-12)
	}
	// Start from the continuous bound, then walk to the smallest admissible M.
	M := int64(math.Ceil(float64(k-1) + math.Log((-math.Expm1(-eps))/(den1*p.Delta))/a))
	if M < k {
		M = k
	}
	if float64(M) > 1<<50 {
		return nil, paramErr("Delta", p.Delta, "needs a support too wide for the grid")
	}
	for deltaM(M) > p.Delta {
		M++
	}
	for M > k && deltaM(M-1) <= p.Delta {
		M--
	}
	// k/ε as an exact fraction.
	r := new(big.Rat).Quo(new(big.Rat).SetInt64(k), ratOf(eps))
	return &DiscreteTruncatedLaplaceRelease{Granularity: g, GridSensitivity: k, Bound: M, Epsilon: eps, Delta: p.Delta,
		scaleNum: new(big.Int).Set(r.Num()), scaleDen: new(big.Int).Set(r.Denom())}, nil
}

// discreteLaplaceRat returns Y with Pr[Y = y] ∝ exp(−|y|·s/t) for positive
// integers t, s (scale t/s; Canonne, Kamath and Steinke 2020, Algorithm 2).
func discreteLaplaceRat(t, s *big.Int, src Source) *big.Int {
	for {
		u := uniformBelow(t, src)
		if !bernoulliExpNeg(u, t, src) {
			continue
		}
		v := int64(0)
		for bernoulliExpNeg(bigOne, bigOne, src) {
			v++
		}
		x := new(big.Int).Mul(t, big.NewInt(v))
		x.Add(x, u)
		y := x.Quo(x, s)
		neg := randBit(src)
		if neg && y.Sign() == 0 {
			continue
		}
		if neg {
			y.Neg(y)
		}
		return y
	}
}

// sample draws Y (|Y| ≤ M) exactly.
func (d *DiscreteTruncatedLaplaceRelease) sample(src Source) int64 {
	// Pr ∝ exp(−|y|·ε/k) = exp(−|y|·s/t) with t/s = k/ε, i.e. t = scaleNum, s = scaleDen.
	bound := big.NewInt(d.Bound)
	for {
		y := discreteLaplaceRat(d.scaleNum, d.scaleDen, src)
		if new(big.Int).Abs(y).Cmp(bound) <= 0 {
			return y.Int64()
		}
	}
}

var dtlCache sync.Map // Params → calibration for the default grid

func releaseDiscreteTruncatedLaplace(v float64, p Params, src Source, g float64) (float64, error) {
	type key struct {
		p Params
		g float64
	}
	var d *DiscreteTruncatedLaplaceRelease
	if c, ok := dtlCache.Load(key{p, g}); ok {
		d = c.(*DiscreteTruncatedLaplaceRelease)
	} else {
		var err error
		if d, err = DiscreteTruncatedLaplaceFor(p, g); err != nil {
			return 0, err
		}
		dtlCache.Store(key{p, g}, d)
	}
	k0 := math.RoundToEven(v / d.Granularity)
	if math.Abs(k0) >= 1<<52 {
		return 0, paramErr("Value", v, fmt.Sprintf("is too large for the grid %g (|v/g| ≥ 2⁵²)", d.Granularity))
	}
	t := k0 + float64(d.sample(src))
	if math.Abs(t) >= 1<<53 {
		return 0, fmt.Errorf("noise: release %v·%g is not representable exactly", t, d.Granularity)
	}
	return t * d.Granularity, nil
}
