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
	for i := 0; i < 1<<16 && !(truncatedLaplaceDeltaUpper(p.Sensitivity, lambda, bound) <= p.Delta); i++ {
		bound = math.Nextafter(bound, math.Inf(1))
	}
	return lambda, bound
}

// truncatedLaplaceDeltaUpper returns an upper bound of
// (e^{Δ/λ} − 1)/(2(e^{A/λ} − 1)), rounded up to float64.
func truncatedLaplaceDeltaUpper(sens, lambda, bound float64) float64 {
	const prec = 256
	f := func(x float64) *big.Float { return new(big.Float).SetPrec(prec).SetFloat64(x) }
	one := f(1)
	num := bigfloat.Exp(new(big.Float).SetPrec(prec).Quo(f(sens), f(lambda)))
	num.Sub(num, one)
	den := bigfloat.Exp(new(big.Float).SetPrec(prec).Quo(f(bound), f(lambda)))
	den.Sub(den, one)
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
