//go:build !amd64

package ldl

// haveFMA is false off x86-64: dense supernodes are factored column by
// column (subMulCols) only.
const haveFMA = false

// update8x4FMA is never called where haveFMA is false.
func update8x4FMA(c *float64, ldc int, l *float64, ldl int, w *float64, k int) {
	panic("ldl: update8x4FMA without FMA support")
}
