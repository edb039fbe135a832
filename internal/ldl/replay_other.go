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

// solvePermAsm is never called where haveSimplicialAsm is false.
func solvePermAsm(dst, b, x *float64, perm *int, n int, lp, li *int, lx, dinv *float64) {
	panic("ldl: solvePermAsm off x86-64")
}
