//go:build !amd64

package ldl

// haveFMA is false off x86-64: dense supernodes are factored column by
// column (subMulCols) only.
const haveFMA = false

// update8x4FMA is never called where haveFMA is false.
func update8x4FMA(c *float64, ldc int, l *float64, ldl int, w *float64, k int) {
	panic("ldl: update8x4FMA without FMA support")
}

// haveAVX is false off x86-64: subMulCols stays scalar.
const haveAVX = false

// subMul4AVX is never called where haveAVX is false.
func subMul4AVX(dst, s0, s1, s2, s3 *float64, n int, c *[4]float64) {
	panic("ldl: subMul4AVX without AVX support")
}

// addScaledAVX is never called where haveAVX is false.
func addScaledAVX(dst, src *float64, n int, a float64) {
	panic("ldl: addScaledAVX without AVX support")
}
