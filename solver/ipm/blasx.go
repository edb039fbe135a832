package ipm

import (
	"github.com/privopt/privopt/internal/ldl"
	"gonum.org/v1/gonum/blas/gonum"
)

// gblas is gonum's BLAS called directly: the routines blas64's functions
// dispatch to through an interface (blas64.Use is never called, so the
// implementation is this one), with the same arguments and so the same
// bits, without the interface call and the wrappers' structs, which on
// the blocks of order 4–16 cost about as much as the products.
var gblas gonum.Implementation

// Two dense kernels of gonum's BLAS (gonum.org/v1/gonum/blas/gonum)
// restated on ldl.AddScaled, a 256-bit axpy on x86-64 with AVX: every
// element sees the same products and sums, in the same order, as gonum's
// code (whose AxpyUnitary also rounds the product, then the sum), so the
// results are the same to the last bit and the iterates do not move.

// gemmTN sets C = AᵀB with A k×m (row-major, stride lda), B k×n (stride
// ldb) and C m×n (stride ldc): gonum's Dgemm(Trans, NoTrans, 1, A, B, 0, C),
// C_ij = Σ_l A_li·B_lj accumulated over l in increasing order, each row of B
// added to row i of C scaled by A_li and skipped where A_li = 0 (gonum's
// dgemmSerialTransNot; its parallel blocking keeps that order per element).
// Unlike gonum it never starts goroutines (fknPlan.row already runs on the
// Schur assembly's workers).
func gemmTN(m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
	for i := 0; i < m; i++ {
		clear(c[i*ldc : i*ldc+n])
	}
	for l := 0; l < k; l++ {
		bl := b[l*ldb : l*ldb+n]
		for i, v := range a[l*lda : l*lda+m] {
			if v != 0 {
				ldl.AddScaled(c[i*ldc:i*ldc+n], v, bl)
			}
		}
	}
}

// trmvUpperTrans sets x = Tᵀx for the n×n upper triangular T (row-major,
// stride lda, non-unit diagonal): gonum's Dtrmv(Upper, Trans, NonUnit) with
// unit increment, which for i = n−1, …, 0 adds x_i·T[i, i+1:] to x[i+1:] and
// then scales x_i by T_ii.
func trmvUpperTrans(n int, a []float64, lda int, x []float64) {
	for i := n - 1; i >= 0; i-- {
		row := a[i*lda : i*lda+n]
		ldl.AddScaled(x[i+1:n], x[i], row[i+1:n])
		x[i] *= row[i]
	}
}

// symvUpper sets y = A·x for the symmetric n×n A stored in the upper
// triangle (row-major, stride lda): gonum's Dsymv(Upper, 1, A, x, 0, y)
// with unit increments, which zeroes y and then, row by row, accumulates
// the row's dot product x_i·A_ii + Σ_{j>i} x_j·A_ij in increasing j and adds
// x_i·A[i, i+1:] to y[i+1:]; the two parts touch different vectors, so
// doing the second as one ldl.AddScaled after the first changes no value.
func symvUpper(n int, a []float64, lda int, x, y []float64) {
	clear(y[:n])
	if n == 1 {
		y[0] += a[0] * x[0]
		return
	}
	for i := 0; i < n; i++ {
		row := a[i*lda+i+1 : i*lda+n]
		xs := x[i+1 : n]
		xs = xs[:len(row)]
		xi := x[i]
		sum := xi * a[i*lda+i]
		for j, v := range row {
			sum += xs[j] * v
		}
		ldl.AddScaled(y[i+1:n], xi, row)
		y[i] += sum
	}
}

// syrkUpperTrans sets the upper triangle of C = AᵀA for A k×n (row-major,
// stride lda), C n×n (stride ldc): gonum's Dsyrk(Upper, Trans, 1, A, 0, C),
// which per row i of C zeroes C[i, i:] and adds A_li·A[l, i:] for
// l = 0, …, k−1, skipping A_li = 0.
func syrkUpperTrans(n, k int, a []float64, lda int, c []float64, ldc int) {
	for i := 0; i < n; i++ {
		ci := c[i*ldc+i : i*ldc+n]
		clear(ci)
		for l := 0; l < k; l++ {
			if v := a[l*lda+i]; v != 0 {
				ldl.AddScaled(ci, v, a[l*lda+i:l*lda+n])
			}
		}
	}
}

// trmmLeftLower sets B = L·B (trans false) or B = Lᵀ·B (trans true) for the
// m×m lower triangular L (row-major, stride lda, non-unit diagonal) and the
// m×n B (stride ldb): gonum's Dtrmm(Left, NoTrans or Trans, Lower, NonUnit,
// 1, L, B). Without transpose, rows i = m−1, …, 0 are scaled by L_ii and get
// L_ik·B[k, :] added for k = 0, …, i−1 (L_ik ≠ 0); with transpose, for
// k = 0, …, m−1 the rows i < k get L_ki·B[k, :] added (L_ki ≠ 0) and row k is
// then scaled by L_kk (unless L_kk = 1).
func trmmLeftLower(trans bool, m, n int, a []float64, lda int, b []float64, ldb int) {
	if m == 0 || n == 0 {
		return
	}
	if !trans {
		for i := m - 1; i >= 0; i-- {
			bi := b[i*ldb : i*ldb+n]
			d := a[i*lda+i]
			for j := range bi {
				bi[j] *= d
			}
			for k, v := range a[i*lda : i*lda+i] {
				if v != 0 {
					ldl.AddScaled(bi, v, b[k*ldb:k*ldb+n])
				}
			}
		}
		return
	}
	for k := 0; k < m; k++ {
		bk := b[k*ldb : k*ldb+n]
		for i, v := range a[k*lda : k*lda+k] {
			if v != 0 {
				ldl.AddScaled(b[i*ldb:i*ldb+n], v, bk)
			}
		}
		if d := a[k*lda+k]; d != 1 {
			for j := range bk {
				bk[j] *= d
			}
		}
	}
}

// gemmNN sets C = AB with A m×k (row-major, stride lda), B k×n (stride ldb)
// and C m×n (stride ldc): gonum's Dgemm(NoTrans, NoTrans, 1, A, B, 0, C),
// row i of C accumulating A_il·B[l, :] over l in increasing order, skipped
// where A_il = 0 (gonum's dgemmSerialNotNot; its parallel blocking keeps that
// order per element). No goroutines.
func gemmNN(m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
	if n < gemmNNSmallMax {
		gemmNNSmall(m, n, k, a, lda, b, ldb, c, ldc)
		return
	}
	for i := 0; i < m; i++ {
		ci := c[i*ldc : i*ldc+n]
		clear(ci)
		for l, v := range a[i*lda : i*lda+k] {
			if v == 0 {
				continue
			}
			ldl.AddScaled(ci, v, b[l*ldb:l*ldb+n])
		}
	}
}

// gemmNNSmallMax is the column count below which gemmNN runs gemmNNSmall.
// Below 16 columns the n² calls of ldl.AddScaled per product (each at most
// three 4-wide AVX steps and a scalar tail) cost more than the scalar loop.
// Measured in instructions per solve under callgrind, threshold 8 → 16:
// −2.1% on the SDPLIB instance with PSD blocks of orders 10 and 5, −0.7% on
// a max-cut relaxation over an order-10 matrix (BenchmarkSdpxMaxCut), every
// SDPLIB point byte-identical.
const gemmNNSmallMax = 16

// gemmNNSmall is gemmNN for n < gemmNNSmallMax: the same row updates
// C[i, :] += A_il·B[l, :] in the same order (so the same bits: ldl.AddScaled
// rounds each product, then each sum, as this loop), inlined, in a function
// of its own whose few live values stay in registers.
func gemmNNSmall(m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
	for i := 0; i < m; i++ {
		ci := c[i*ldc : i*ldc+n]
		clear(ci)
		off := 0
		for _, v := range a[i*lda : i*lda+k] {
			if v != 0 {
				bl := b[off : off+len(ci)]
				for j, x := range bl {
					ci[j] += v * x
				}
			}
			off += ldb
		}
	}
}

// trsmLeftLower solves L·X = B in place (B ← L⁻¹B) for the m×m lower
// triangular L (row-major, stride lda, non-unit diagonal) and the m×n B
// (stride ldb): gonum's Dtrsm(Left, NoTrans, Lower, NonUnit, 1, L, B), which
// for i = 0, …, m−1 adds (−L_ik)·B[k, :] to row i for k < i (L_ik ≠ 0) and
// then multiplies the row by 1/L_ii.
func trsmLeftLower(m, n int, a []float64, lda int, b []float64, ldb int) {
	if m == 0 || n == 0 {
		return
	}
	for i := 0; i < m; i++ {
		bi := b[i*ldb : i*ldb+n]
		for k, v := range a[i*lda : i*lda+i] {
			if v != 0 {
				ldl.AddScaled(bi, -v, b[k*ldb:k*ldb+n])
			}
		}
		r := 1 / a[i*lda+i]
		for j := range bi {
			bi[j] *= r
		}
	}
}
