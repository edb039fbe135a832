package noise

import (
	"math"
	"math/big"
)

// Safety argument for the staircase release. The staircase law (Geng and
// Viswanath 2016) is X = S·Δ·(G + γU) with probability ∝ γ and
// X = S·Δ·(G + γ + (1 − γ)U) with probability ∝ (1 − γ)e^{−ε}, where S is a
// uniform sign, Pr[G = k] = (1 − e^{−ε})e^{−εk} and U is uniform on [0, 1).
// Each ingredient is drawn exactly: G counts successes of Bernoulli(e^{−ε})
// (bernoulliExpNeg with ε's float64 value as a fraction) before the first
// failure; the part is chosen by rejection (Bernoulli(γ) → lower; otherwise
// Bernoulli(e^{−ε}) → upper; otherwise draw again), which gives exactly the
// weights γ : (1 − γ)e^{−ε}; and the released ⌊(v + X)/g⌋·g is computed by
// floorUniformOnGrid in rational arithmetic, drawing bits of U until the floor
// is determined. The output is therefore exactly a post-processing of the
// ideal staircase mechanism v + X (with the float64 values of ε, Δ and γ as
// its parameters) and keeps its ε-DP guarantee; its support g·ℤ does not
// depend on v.

func (d *Staircase) releaseExact(v float64, src Source, g float64) (float64, error) {
	if g == 0 {
		w := math.Max(d.Gamma, 1-d.Gamma)
		if d.Gamma > 0 && d.Gamma < 1 {
			w = math.Min(d.Gamma, 1-d.Gamma)
		}
		g = pow2Floor(w * d.Sensitivity / 16)
	} else if fr, _ := math.Frexp(g); !(g > 0) || fr != 0.5 || math.IsInf(g, 0) {
		return 0, paramErr("Granularity", g, "must be a positive power of two")
	}
	er := ratOf(d.Epsilon)
	en, ed := er.Num(), er.Denom()
	gr := ratOf(d.Gamma)
	gn, gd := gr.Num(), gr.Denom()
	k := int64(0)
	for bernoulliExpNeg(en, ed, src) {
		k++
	}
	var lo, hi *big.Rat // position in units of Δ
	kr := new(big.Rat).SetInt64(k)
	for {
		if bernoulliRat(gn, gd, src) {
			lo = kr
			hi = new(big.Rat).Add(kr, gr)
			break
		}
		if bernoulliExpNeg(en, ed, src) {
			lo = new(big.Rat).Add(kr, gr)
			hi = new(big.Rat).Add(kr, big.NewRat(1, 1))
			break
		}
	}
	sens := ratOf(d.Sensitivity)
	a := new(big.Rat).Mul(lo, sens)
	b := new(big.Rat).Mul(hi, sens)
	if randBit(src) {
		a, b = new(big.Rat).Neg(b), new(big.Rat).Neg(a)
	}
	return floorUniformOnGrid(v, a, b, g, src)
}
