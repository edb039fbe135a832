package ipm

// Small-order kernels restating gonum's level-2 BLAS on unit increments
// (gonum.org/v1/gonum/blas/gonum, v0.17) with the same products and sums in
// the same order, so that the results are the same to the last bit (the
// iterates do not move), without the argument checks and the per-row calls
// into gonum's assembly, which at the orders 3–20 of small PSD blocks cost
// more than the arithmetic.

// dotGonum returns Σᵢ a[i]·b[i] over len(a) terms (b at least as long),
// accumulated as gonum's x86-64 DotUnitary does: four partial sums sₖ over
// the indices i ≡ k (mod 4) of the leading multiple of four, the remaining
// 1–3 terms added to s₀ in increasing order, and the result
// (s₀ + s₂) + (s₁ + s₃). Every product is rounded before its sum (the
// explicit conversions forbid a fused multiply-add), as in gonum's
// MULPD/ADDPD pairs.
func dotGonum(a, b []float64) float64 {
	n := len(a)
	b = b[:n]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= n; i += 4 {
		s0 += float64(a[i] * b[i])
		s1 += float64(a[i+1] * b[i+1])
		s2 += float64(a[i+2] * b[i+2])
		s3 += float64(a[i+3] * b[i+3])
	}
	for ; i < n; i++ {
		s0 += float64(a[i] * b[i])
	}
	return (s0 + s2) + (s1 + s3)
}

// trmvUpper sets x = T·x for the n×n upper triangular T (row-major, stride
// lda, non-unit diagonal): gonum's Dtrmv(Upper, NoTrans, NonUnit) with a
// unit increment, which for i = 0, …, n−1 in turn sets
// x[i] = T[i,i]·x[i] + DotUnitary(T[i, i+1:], x[i+1:]).
func trmvUpper(n int, a []float64, lda int, x []float64) {
	if n == 1 {
		x[0] *= a[0]
		return
	}
	for i := 0; i < n; i++ {
		row := a[i*lda : i*lda+n]
		x[i] = float64(row[i]*x[i]) + dotGonum(row[i+1:n], x[i+1:n])
	}
}
