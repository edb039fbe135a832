//go:build !amd64

package ipm

// haveAVX is false off x86-64: rotateRows stays scalar.
const haveAVX = false

// rotateRowsAVX is never called where haveAVX is false.
func rotateRowsAVX(x, y *float64, n int, c, s float64) {
	panic("ipm: rotateRowsAVX without AVX support")
}
