//go:build !amd64

package ipm

// haveFMA is false off x86-64: gramUpper uses gonum's Syrk.
const haveFMA = false

// dot4x2FMA is never called where haveFMA is false.
func dot4x2FMA(a0, a1, a2, a3, b0, b1 *float64, n int, out *[32]float64) {
	panic("ipm: dot4x2FMA without FMA support")
}
