package noise

import (
	"math"
	"math/big"

	"github.com/ALTree/bigfloat"
)

// roundTruncatedLaplaceUp makes the float64 parameters of the truncated
// Laplace mechanism err on the private side. With scale λ and bound A the
// mechanism's privacy for sensitivity Δ is exactly
//
//	ε_eff = Δ/λ,   δ_eff = (e^{Δ/λ} − 1) / (2(e^{A/λ} − 1))
//
// (the mass of the density in [A − Δ, A]; Geng, Ding, Guo and Kumar 2020,
// Thm 1). The closed forms λ = Δ/ε and A = λ·ln(1 + (e^ε − 1)/(2δ)) evaluated
// in float64 round either way, so ε_eff or δ_eff can exceed the request (at
// (ε, δ) = (8, 10⁻⁵), δ_eff was 1.0000000000000018e-5). This function raises
// λ until Δ ≤ ε·λ holds exactly (rational arithmetic) and then A, one ulp at
// a time, until an upper bound of δ_eff computed with 256-bit exponentials
// and a 2⁻²⁰⁰ relative margin (bigfloat.Exp carries 64 guard bits) is ≤ δ. Both moves only add noise.
func roundTruncatedLaplaceUp(p Params, lambda, bound float64) (float64, float64) {
	for _, v := range []float64{p.Epsilon, p.Sensitivity, lambda, bound} {
		if !(v > 0) || math.IsInf(v, 0) {
			return lambda, bound // unrepresentable: the caller's checks refuse it
		}
	}
	for new(big.Rat).Mul(ratOf(p.Epsilon), ratOf(lambda)).Cmp(ratOf(p.Sensitivity)) < 0 {
		lambda = math.Nextafter(lambda, math.Inf(1))
	}
	return lambda, raiseBound(bound, maxBoundUlps, func(a float64) bool {
		return truncatedLaplaceDeltaUpper(p.Sensitivity, lambda, a) <= p.Delta
	})
}

// maxBoundUlps is how far (in ulps) roundTruncatedLaplaceUp raises A.
const maxBoundUlps = 1 << 16

// raiseBound returns the smallest a = bound + k ulps, 0 ≤ k ≤ maxUlps, with
// ok(a), or bound + maxUlps ulps when there is none; bound must be positive
// and finite and ok monotone (false below some a, true from there on, as
// δ_eff decreases in A). It finds k by doubling and then bisection, with
// O(log maxUlps) calls of ok: a scan one ulp at a time made up to 65,536
// calls, each a 256-bit exponential, and took 1.4 s (and 500 MB of garbage)
// at ε = 7·10⁸, δ = 10⁻³⁰² — found by fuzzing.
func raiseBound(bound float64, maxUlps int, ok func(float64) bool) float64 {
	at := func(k int) float64 { return math.Float64frombits(math.Float64bits(bound) + uint64(k)) } // k ulps up (positive floats)
	if ok(bound) {
		return bound
	}
	lo, hi := 0, 1 // ok(at(lo)) is false; hi is the candidate
	for !ok(at(hi)) {
		if hi == maxUlps {
			return at(maxUlps)
		}
		lo, hi = hi, min(2*hi, maxUlps)
	}
	for hi-lo > 1 { // ok(at(lo)) false, ok(at(hi)) true
		mid := lo + (hi-lo)/2
		if ok(at(mid)) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return at(hi)
}

// truncatedLaplaceDeltaUpper returns an upper bound of
// (e^{Δ/λ} − 1)/(2(e^{A/λ} − 1)), rounded up to float64.
func truncatedLaplaceDeltaUpper(sens, lambda, bound float64) float64 {
	const prec = 256
	f := func(x float64) *big.Float { return new(big.Float).SetPrec(prec).SetFloat64(x) }
	one := f(1)
	// e^x − 1 for x = Δ/λ and A/λ. Above x = 200 the −1 is dropped: it lies
	// below the 256-bit precision (e^{−200} < 2⁻²⁸⁸, covered by the final
	// 2⁻²⁰⁰ margin), and subtracting 1 from e^x aligns mantissas across
	// x/ln 2 bits — 10⁹ bits, 125 MB and 25 ms per call at ε = 7·10⁸.
	// Dropping it only raises the numerator (an upper bound stays one).
	expm1 := func(x *big.Float) *big.Float {
		e := bigfloat.Exp(x)
		if x.Cmp(f(200)) <= 0 {
			e.Sub(e, one)
		}
		return e
	}
	num := expm1(new(big.Float).SetPrec(prec).Quo(f(sens), f(lambda)))
	den := expm1(new(big.Float).SetPrec(prec).Quo(f(bound), f(lambda)))
	den.Mul(den, f(2))
	if num.IsInf() || den.IsInf() {
		// Δ/λ or A/λ beyond big.Float's exponent range: with A/λ > 70,
		// (e^{Δ/λ} − 1)/(2(e^{A/λ} − 1)) ≤ e^{(Δ−A)/λ}/(2(1 − e^{−A/λ})) ≤ e^{(Δ−A)/λ}·(1 + 2⁻¹⁰⁰)/2.
		e := new(big.Float).SetPrec(prec).Sub(f(sens), f(bound))
		e.Quo(e, f(lambda))
		switch {
		case e.Sign() >= 0:
			return math.Inf(1)
		case e.Cmp(f(-745)) < 0:
			return math.SmallestNonzeroFloat64 // above the true value, which underflows
		}
		r := bigfloat.Exp(e)
		r.Mul(r, new(big.Float).SetPrec(prec).Add(f(0.5), new(big.Float).SetPrec(prec).SetMantExp(f(1), -100)))
		v, _ := new(big.Float).SetPrec(53).SetMode(big.AwayFromZero).Set(r).Float64()
		return v
	}
	if den.Sign() <= 0 {
		return math.Inf(1)
	}
	r := new(big.Float).SetPrec(prec).Quo(num, den)
	r.Mul(r, new(big.Float).SetPrec(prec).SetMantExp(f(1), 0).Add(f(1), new(big.Float).SetPrec(prec).SetMantExp(f(1), -200))) // 1 + 2⁻²⁰⁰ covers the 256-bit rounding of the operations above
	v, _ := new(big.Float).SetPrec(53).SetMode(big.AwayFromZero).Set(r).Float64()
	return v
}
