package ipm

// haveMulKAsm reports whether mulKColsAsm exists (x86-64).
const haveMulKAsm = true

// mulKColsAsm (kktfast_amd64.s) adds to out the products of columns
// from ≤ j < to of the symmetric matrix whose upper triangle (diagonal last
// in every column) is (colPtr, rowIdx, val), with eps·sgn[j] taken off each
// diagonal: mulKCols' operations in its order (see mulKFast).
//
//go:noescape
func mulKColsAsm(out, x *float64, from, to int, colPtr, rowIdx *int, val, sgn *float64, eps float64)

// normInfAsm (kktfast_amd64.s) returns max_i |v_i| over v[0:n], NaN if an
// entry is NaN (normInf's value).
//
//go:noescape
func normInfAsm(v *float64, n int) float64

// absMulKColsAsm (kktfast_amd64.s) adds |K₀|·|x| to out, K₀ the matrix of
// mulKColsAsm with the diagonal last in every column, in
// expAbsResidualBound's order (the same bits as its loop).
//
//go:noescape
func absMulKColsAsm(out, x *float64, ncols int, colPtr, rowIdx *int, val, sgn *float64, eps float64)

// subNormInfAsm (kktfast_amd64.s) sets res = b − res over n entries and
// returns ‖res‖∞ (NaN if an entry is NaN), as refineSolutionNorm's loop.
//
//go:noescape
func subNormInfAsm(res, b *float64, n int) float64
