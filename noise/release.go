package noise

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/bits"
)

// ErrUnsafeRelease is returned by Release for mechanisms without a
// floating-point-safe release procedure in this package.
var ErrUnsafeRelease = errors.New("noise: no floating-point-safe release for this mechanism")

// ReleaseOptions tune Release.
type ReleaseOptions struct {
	// Bound B > 0 (Laplace only): the query value is clamped to [−B, B] and so
	// is the output. Default 2³⁰·Δ. Mironov (2012, Thm 1) requires λ < B < 2⁴⁶λ.
	Bound float64
	// Granularity g > 0 (piecewise constant and Gaussian): the output is a
	// multiple of g, which must be a power of two. Default: the largest power
	// of two not above (smallest cell width)/16 for piecewise-constant noise;
	// see DiscreteGaussianFor for Gaussian noise.
	Granularity float64
}

// Release returns a differentially private release of value, with randomness
// from src (nil: crypto/rand), using a procedure whose privacy does not rely on
// exact real arithmetic (Mironov, "On significance of the least significant
// bits for differential privacy", CCS 2012):
//
//   - "laplace": the snapping mechanism, clamp_B(⌊clamp_B(v) + S·λ·ln U⌉_Λ)
//     with Λ the smallest power of two ≥ λ and U a full-precision uniform. By
//     Mironov's Theorem 1 (sensitivity rescaled to Δ) it is
//     (ε·(1 + 2⁻⁴⁹·B/Δ), 0)-DP for λ < B < 2⁴⁶λ; with the default B = 2³⁰Δ the
//     loss is a factor 1 + 2⁻¹⁹ on ε. The output is a multiple of Λ.
//   - piecewise-constant noise (mechanisms "optimal" and any *PiecewiseConstant):
//     an exact sampler. The cell is drawn with probability w_j/Σw exactly (the
//     float64 weights as big integers, uniform integer by rejection) and the
//     output t·g, t = ⌊(v + X)/g⌋ with X uniform on the cell, is computed
//     exactly in rational arithmetic, drawing random bits of X lazily until t
//     is determined. The output is thus exactly a post-processing of the ideal
//     mechanism v + X with the certified distribution, and inherits its (ε,δ)
//     guarantee with no floating-point loss. It fails if |t| ≥ 2⁵³.
//   - "gaussian", "analytic-gaussian" (any *Gaussian noise): the discrete
//     Gaussian release of Canonne, Kamath and Steinke (2020): g·(round(v/g) + Y)
//     with Y an exact discrete Gaussian; the grid g (Granularity, default from
//     DiscreteGaussianFor) and the variance are calibrated so that the discrete
//     mechanism is (ε, δ)-DP for the mechanism's Params, at a standard
//     deviation DiscreteGaussianRelease.SigmaFactor ≥ 1 times σ.
//   - "truncated-laplace": an exact discrete truncated Laplace on g·ℤ
//     (DiscreteTruncatedLaplaceFor; the argument is in discretetl.go), with
//     the mechanism's (ε, δ) and a scale k·g/ε ≤ (1 + 2⁻¹⁰)·Δ/ε.
//   - "staircase": an exact sampler of the staircase law itself (sign,
//     geometric step, lower/upper part, uniform position; staircase_release.go),
//     floored exactly onto g·ℤ like piecewise-constant noise: a
//     post-processing of the ideal staircase mechanism, with its ε.
//   - "quasi-gaussian": an exact discrete quasi-Gaussian on g·ℤ whose (ε, δ)
//     is computed for the discrete mechanism over every grid shift
//     (DiscreteQuasiGaussianFor; quasigaussian_release.go).
//   - "multi-gaussian": an exact discrete multi-Gaussian on g·ℤ, (ε, δ)
//     computed likewise (DiscreteMultiGaussianFor; multigaussian_release.go).
//
// Other distributions (user types) return ErrUnsafeRelease (use Dist.Sample knowingly).
func (m *Mechanism) Release(value float64, src Source, opt ReleaseOptions) (float64, error) {
	if math.IsNaN(value) || math.IsInf(value, 0) {
		return 0, paramErr("Value", value, "must be finite")
	}
	src = orCrypto(src)
	switch d := m.Dist.(type) {
	case *Laplace:
		return snapLaplace(value, d.Scale, m.Params.Sensitivity, src, opt.Bound)
	case *PiecewiseConstant:
		return d.releaseExact(value, src, opt.Granularity)
	case *Gaussian:
		x, _, err := releaseDiscreteGaussian(value, d.Sigma, m.Params, src, opt.Granularity)
		return x, err
	case *TruncatedLaplace:
		return releaseDiscreteTruncatedLaplace(value, m.Params, src, opt.Granularity)
	case *Staircase:
		return d.releaseExact(value, src, opt.Granularity)
	case *QuasiGaussian:
		return releaseDiscreteQuasiGaussian(value, d.Sigma, m.Params, src, opt.Granularity)
	case *MultiGaussian:
		return releaseDiscreteMultiGaussian(value, d, m.Params, src, opt.Granularity)
	}
	return 0, fmt.Errorf("%w: %s", ErrUnsafeRelease, m.Name)
}

func snapLaplace(v, lambda, sens float64, src Source, B float64) (float64, error) {
	if B == 0 {
		B = math.Ldexp(sens, 30)
	}
	if !(B > lambda) || B >= math.Ldexp(lambda, 46) || math.IsInf(B, 0) {
		return 0, paramErr("Bound", B, fmt.Sprintf("must satisfy λ < B < 2⁴⁶λ (λ = %g)", lambda))
	}
	clamp := func(x float64) float64 { return math.Max(-B, math.Min(B, x)) }
	_, e := math.Frexp(lambda) // lambda = f·2^e, f ∈ [½, 1)
	L := math.Ldexp(1, e)      // smallest power of two ≥ λ (or 2λ if λ is one)
	if math.Ldexp(1, e-1) >= lambda {
		L = math.Ldexp(1, e-1)
	}
	y := -lambda * logCR(uniform01(src)) // correctly rounded, as Mironov's proof assumes
	if randBit(src) {
		y = -y
	}
	x := clamp(v) + y
	r := math.RoundToEven(x/L) * L // x/L and the product are exact (L is a power of two)
	return clamp(r), nil
}

func (d *PiecewiseConstant) minWidth() float64 {
	w := math.Inf(1)
	for j := range d.probs {
		w = math.Min(w, d.edges[j+1]-d.edges[j])
	}
	return w
}

// DefaultGranularity returns the largest power of two not above the smallest
// cell width divided by 16: the output grid of Release.
func (d *PiecewiseConstant) DefaultGranularity() float64 {
	_, e := math.Frexp(d.minWidth() / 16)
	return math.Ldexp(1, e-1)
}

func ratOf(x float64) *big.Rat { return new(big.Rat).SetFloat64(x) }

// uniformBelow returns a uniform integer in [0, n) by rejection sampling.
func uniformBelow(n *big.Int, src Source) *big.Int {
	nb := n.BitLen()
	words := (nb + 63) / 64
	buf := make([]big.Word, 0, words*64/bits.UintSize)
	for {
		buf = buf[:0]
		for i := 0; i < words; i++ {
			w := src.Uint64()
			if bits.UintSize == 64 {
				buf = append(buf, big.Word(w))
			} else {
				buf = append(buf, big.Word(uint32(w)), big.Word(w>>32))
			}
		}
		r := new(big.Int).SetBits(buf)
		r.Rsh(r, uint(words*64-nb))
		if r.Cmp(n) < 0 {
			return r
		}
	}
}

func (d *PiecewiseConstant) releaseExact(v float64, src Source, g float64) (float64, error) {
	if g == 0 {
		g = d.DefaultGranularity()
	}
	if fr, _ := math.Frexp(g); !(g > 0) || fr != 0.5 || math.IsInf(g, 0) {
		return 0, paramErr("Granularity", g, "must be a positive power of two")
	}
	// Exact cell choice: weights as integers w_j·2^1074.
	ints := make([]*big.Int, len(d.w))
	total := new(big.Int)
	for j, w := range d.w {
		f := new(big.Float).SetFloat64(w)
		f.SetMantExp(f, 1074)
		ints[j], _ = f.Int(nil)
		total.Add(total, ints[j])
	}
	r := uniformBelow(total, src)
	j := 0
	for ; j < len(ints)-1; j++ {
		if r.Cmp(ints[j]) < 0 {
			break
		}
		r.Sub(r, ints[j])
	}
	var a, b *big.Rat
	if d.unit > 0 {
		u := ratOf(d.unit)
		a = new(big.Rat).Mul(u, new(big.Rat).SetInt64(int64(d.index[j])))
		b = new(big.Rat).Mul(u, new(big.Rat).SetInt64(int64(d.index[j+1])))
	} else {
		a, b = ratOf(d.edges[j]), ratOf(d.edges[j+1])
	}
	return floorUniformOnGrid(v, a, b, g, src)
}

// floorUniformOnGrid returns t·g, t = ⌊(v + X)/g⌋ for X uniform on [a, b),
// exactly: U = (X − a)/(b − a) is drawn 64 bits at a time until t is
// determined (rational arithmetic; g a power of two).
func floorUniformOnGrid(v float64, a, b *big.Rat, g float64, src Source) (float64, error) {
	gr := ratOf(g)
	// t = ⌊L + U·W⌋ with L = (v + a)/g, W = (b − a)/g, U uniform on [0, 1).
	L := new(big.Rat).Add(ratOf(v), a)
	L.Quo(L, gr)
	W := new(big.Rat).Sub(b, a)
	W.Quo(W, gr)
	num := new(big.Int) // U ∈ [num/2^k, (num+1)/2^k)
	k := 0
	for k < 1<<16 {
		num.Lsh(num, 64)
		num.Add(num, new(big.Int).SetUint64(src.Uint64()))
		k += 64
		den := new(big.Int).Lsh(big.NewInt(1), uint(k))
		lo := new(big.Rat).SetFrac(num, den)
		lo.Mul(lo, W).Add(lo, L)
		t := floorRat(lo)
		hi := new(big.Rat).SetFrac(new(big.Int).Add(num, big.NewInt(1)), den)
		hi.Mul(hi, W).Add(hi, L)
		if hi.Cmp(new(big.Rat).SetInt(new(big.Int).Add(t, big.NewInt(1)))) <= 0 {
			if t.BitLen() >= 53 {
				return 0, fmt.Errorf("noise: release %v·%g is not representable exactly", t, g)
			}
			return float64(t.Int64()) * g, nil
		}
	}
	return 0, errors.New("noise: release did not terminate") // probability 0
}

func floorRat(x *big.Rat) *big.Int {
	q, m := new(big.Int).QuoRem(x.Num(), x.Denom(), new(big.Int))
	if m.Sign() < 0 {
		q.Sub(q, big.NewInt(1))
	}
	return q
}

// SnappingExcess returns the ε the snapping release adds on top of the
// nominal ε when rows values are released, each by snapping with Laplace
// scale lambda and clamping bound (0: the default 2³⁰·sensitivity):
//
//	excess = rows · 2⁻⁴⁹ · B/λ,
//
// from Mironov (CCS 2012, Thm 1): snapping with scale λ and bound B is
// (Δ/λ + 2⁻⁴⁹·B/λ)-DP for a query of sensitivity Δ (the additive term bounds
// the effect of the floating-point grid and does not depend on Δ), so each of
// the rows snapped values adds 2⁻⁴⁹·B/λ under composition, whatever the split
// of an ℓ₁ sensitivity across rows. With the default B = 2³⁰Δ and λ = Δ/ε this
// is rows·2⁻¹⁹·ε. The result is rounded up (the factors are powers of two
// except B/λ, whose rounding is corrected by one ulp).
func SnappingExcess(lambda, bound, sensitivity float64, rows int) float64 {
	if bound == 0 {
		bound = math.Ldexp(sensitivity, 30)
	}
	q := math.Nextafter(bound/lambda, math.Inf(1))
	return math.Nextafter(math.Ldexp(float64(rows)*q, -49), math.Inf(1))
}
