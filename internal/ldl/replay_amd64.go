package ldl

// solveSimplicialAsm (replay_amd64.s) overwrites x with
// (L D Lᵀ)⁻¹ x for a simplicial factor: the three loops of solvePermuted
// with the same operations in the same order (the result is bit-identical
// to the Go loops, solveSimplicialGo).
//
//go:noescape
func solveSimplicialAsm(x *float64, n int, lp, li *int, lx, dinv *float64)

// numericRowsAsm (replay_amd64.s) runs rows k0 ≤ k < k1 of the
// recorded up-looking factorization with signs (numericRowsGo, bit-identical)
// and returns the number of pivots replaced by the regularization.
//
//go:noescape
func numericRowsAsm(k0, k1 int, cp, ci *int, cx *float64, rowPtr, rowPat, lpos, lp, li *int, lx, y, dinv, d, sg *float64, eps, delta float64) (nreg int)

// haveSimplicialAsm reports whether the assembly forms above exist.
const haveSimplicialAsm = true

// solvePermAsm (replay_amd64.s) is Factor.Solve's simplicial path:
// dst = Pᵀ (L D Lᵀ)⁻¹ P b with x as the permuted workspace, bit-identical to
// the gather, solveSimplicialAsm and scatter in turn; dst may alias b.
//
//go:noescape
func solvePermAsm(dst, b, x *float64, perm *int, n int, lp, li *int, lx, dinv *float64)
