package noise

import (
	"math"
	"math/big"

	"github.com/ALTree/bigfloat"
)

// logCR returns ln(x) correctly rounded to nearest float64 for finite
// x > 0 (Ziv's strategy). Mironov's proof of the snapping mechanism (CCS
// 2012, Sec. 5.2) assumes a logarithm "implemented with exact rounding";
// math.Log only promises an error below 1 ulp, so the snapping release uses
// this function instead. ln x is computed with bigfloat.Log at prec bits (it
// carries 64 guard bits internally); if the interval ln x·(1 ± 2^{−(prec−12)})
// rounds to a single float64, that float64 is the correctly rounded value,
// otherwise the precision doubles. ln x for float64 x ≠ 1 is transcendental
// (Lindemann–Weierstrass), hence never a rounding midpoint, and the loop
// ends; ln 1 = 0 is returned directly.
func logCR(x float64) float64 {
	if x == 1 {
		return 0
	}
	for prec := uint(96); ; prec *= 2 {
		z := new(big.Float).SetPrec(prec).SetFloat64(x)
		r := bigfloat.Log(z)
		eps := new(big.Float).SetPrec(prec).SetMantExp(new(big.Float).SetPrec(prec).Abs(r), -int(prec-12))
		lo := new(big.Float).SetPrec(prec).Sub(r, eps)
		hi := new(big.Float).SetPrec(prec).Add(r, eps)
		a, _ := lo.Float64() // round to nearest even
		b, _ := hi.Float64()
		if a == b {
			return a
		}
		if prec > 1<<14 {
			return math.Log(x) // unreachable for finite x > 0 (see above)
		}
	}
}
