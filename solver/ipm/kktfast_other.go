//go:build !amd64

package ipm

// haveMulKAsm is false off x86-64: mulKCols runs in Go.
const haveMulKAsm = false

// mulKColsAsm is never called where haveMulKAsm is false.
func mulKColsAsm(out, x *float64, from, to int, colPtr, rowIdx *int, val, sgn *float64, eps float64) {
	panic("ipm: mulKColsAsm off x86-64")
}

// normInfAsm is never called where haveMulKAsm is false.
func normInfAsm(v *float64, n int) float64 { panic("ipm: normInfAsm off x86-64") }

// absMulKColsAsm is never called where haveMulKAsm is false.
func absMulKColsAsm(out, x *float64, ncols int, colPtr, rowIdx *int, val, sgn *float64, eps float64) {
	panic("ipm: absMulKColsAsm off x86-64")
}

// subNormInfAsm is never called where haveMulKAsm is false.
func subNormInfAsm(res, b *float64, n int) float64 { panic("ipm: subNormInfAsm off x86-64") }
