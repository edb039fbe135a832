package ldl

// solveSimplicialAsm (simplicial13d_amd64.s) overwrites x with
// (L D Lᵀ)⁻¹ x for a simplicial factor: the three loops of solvePermuted
// with the same operations in the same order (the result is bit-identical
// to the Go loops, solveSimplicialGo).
//
//go:noescape
func solveSimplicialAsm(x *float64, n int, lp, li *int, lx, dinv *float64)

// numericRowsAsm (simplicial13d_amd64.s) runs rows k0 ≤ k < k1 of the
// recorded up-looking factorization with signs (numericRowsGo, bit-identical)
// and returns the number of pivots replaced by the regularization.
//
//go:noescape
func numericRowsAsm(k0, k1 int, cp, ci *int, cx *float64, rowPtr, rowPat, lpos, lp, li *int, lx, y, dinv, d, sg *float64, eps, delta float64) (nreg int)

// haveSimplicialAsm reports whether the assembly forms above exist.
const haveSimplicialAsm = true

// permGatherAsm (simplicial13d_amd64.s) sets x[k] = b[perm[k]] for k < n;
// perm must be a permutation of 0..n−1 (Symbolic.perm).
//
//go:noescape
func permGatherAsm(x, b *float64, perm *int, n int)

// permScatterAsm (simplicial13d_amd64.s) sets dst[perm[k]] = x[k] for k < n;
// perm must be a permutation of 0..n−1 (Symbolic.perm).
//
//go:noescape
func permScatterAsm(dst, x *float64, perm *int, n int)
