//go:build !amd64

package ldl

// haveSimplicialAsm is false off x86-64: the Go loops run.
const haveSimplicialAsm = false

// solveSimplicialAsm is never called where haveSimplicialAsm is false.
func solveSimplicialAsm(x *float64, n int, lp, li *int, lx, dinv *float64) {
	panic("ldl: solveSimplicialAsm off x86-64")
}

// numericRowsAsm is never called where haveSimplicialAsm is false.
func numericRowsAsm(k0, k1 int, cp, ci *int, cx *float64, rowPtr, rowPat, lpos, lp, li *int, lx, y, dinv, d, sg *float64, eps, delta float64) (nreg int) {
	panic("ldl: numericRowsAsm off x86-64")
}

// permGatherAsm is never called where haveSimplicialAsm is false.
func permGatherAsm(x, b *float64, perm *int, n int) { panic("ldl: permGatherAsm off x86-64") }

// permScatterAsm is never called where haveSimplicialAsm is false.
func permScatterAsm(dst, x *float64, perm *int, n int) { panic("ldl: permScatterAsm off x86-64") }
