package ipm

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// TestGemmTNMatchesGonum checks gemmTN against gonum's Dgemm(Trans,
// NoTrans, 1, A, B, 0, C) to the last bit, on shapes below and above
// gonum's parallel block size (64) and with zero entries in A (skipped by
// both), and against the plain triple loop to 1e-12.
func TestGemmTNMatchesGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, sh := range [][3]int{{1, 1, 1}, {5, 7, 3}, {37, 37, 12}, {70, 130, 9}, {124, 124, 66}} {
		m, n, k := sh[0], sh[1], sh[2]
		a, b := make([]float64, k*m), make([]float64, k*n)
		for i := range a {
			if rng.Float64() < 0.2 {
				continue
			}
			a[i] = rng.NormFloat64()
		}
		for i := range b {
			b[i] = rng.NormFloat64()
		}
		got, want := make([]float64, m*n), make([]float64, m*n)
		for i := range got {
			got[i], want[i] = 7, 7 // overwritten (β = 0)
		}
		gemmTN(m, n, k, a, m, b, n, got, n)
		blas64.Gemm(blas.Trans, blas.NoTrans, 1, blas64.General{Rows: k, Cols: m, Stride: m, Data: a},
			blas64.General{Rows: k, Cols: n, Stride: n, Data: b}, 0, blas64.General{Rows: m, Cols: n, Stride: n, Data: want})
		checkGemm(t, sh, m, n, got, want, func(i, j int) (s float64) {
			for l := 0; l < k; l++ {
				s += a[l*m+i] * b[l*n+j]
			}
			return s
		})
	}
}

// checkGemm compares the m×n product got (row-major, stride n) with gonum's
// want to the last bit and with the triple loop's entries ref(i, j) to 1e-12.
func checkGemm(t *testing.T, sh any, m, n int, got, want []float64, ref func(i, j int) float64) {
	t.Helper()
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			g, w := got[i*n+j], want[i*n+j]
			if math.Float64bits(g) != math.Float64bits(w) {
				t.Fatalf("%v: C[%d,%d] = %v, gonum %v", sh, i, j, g, w)
			}
			if s := ref(i, j); math.Abs(g-s) > 1e-12*(1+math.Abs(s)) {
				t.Fatalf("%v: C[%d,%d] = %v, triple loop %v", sh, i, j, g, s)
			}
		}
	}
}

// TestTrmvUpperTransMatchesGonum checks trmvUpperTrans against gonum's
// Dtrmv(Upper, Trans, NonUnit) to the last bit, with a stride larger than
// the order, and against the explicit Tᵀx to 1e-12.
func TestTrmvUpperTransMatchesGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, n := range []int{0, 1, 2, 5, 9, 16, 37, 90} {
		lda := n + 3
		a := make([]float64, max(lda*n, 1))
		for i := range a {
			a[i] = rng.NormFloat64()
		}
		x := make([]float64, n)
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		got, want := append([]float64(nil), x...), append([]float64(nil), x...)
		trmvUpperTrans(n, a, lda, got)
		if n > 0 {
			blas64.Trmv(blas.Trans, blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: n, Stride: lda, Data: a},
				blas64.Vector{N: n, Inc: 1, Data: want})
		}
		for j := 0; j < n; j++ {
			if math.Float64bits(got[j]) != math.Float64bits(want[j]) {
				t.Fatalf("n=%d: x[%d] = %v, gonum %v", n, j, got[j], want[j])
			}
			var s float64
			for i := 0; i <= j; i++ {
				s += a[i*lda+j] * x[i]
			}
			if math.Abs(got[j]-s) > 1e-12*(1+math.Abs(s)) {
				t.Fatalf("n=%d: x[%d] = %v, Tᵀx %v", n, j, got[j], s)
			}
		}
	}
}

// TestSymvUpperMatchesGonum checks symvUpper against gonum's Dsymv(Upper,
// 1, A, x, 0, y) to the last bit (stride larger than the order, garbage in
// the lower triangle and in y), and against the dense symmetric product to
// 1e-12.
func TestSymvUpperMatchesGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for _, n := range []int{1, 2, 3, 8, 13, 40, 77} {
		lda := n + 2
		a := make([]float64, lda*n)
		for i := range a {
			a[i] = rng.NormFloat64()
		}
		x := make([]float64, n)
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		got, want := make([]float64, n), make([]float64, n)
		for i := range got {
			got[i], want[i] = 5, 5
		}
		symvUpper(n, a, lda, x, got)
		blas64.Symv(1, blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: lda, Data: a},
			blas64.Vector{N: n, Inc: 1, Data: x}, 0, blas64.Vector{N: n, Inc: 1, Data: want})
		for i := 0; i < n; i++ {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("n=%d: y[%d] = %v, gonum %v", n, i, got[i], want[i])
			}
			var s float64
			for j := 0; j < n; j++ {
				aij := a[min(i, j)*lda+max(i, j)]
				s += aij * x[j]
			}
			if math.Abs(got[i]-s) > 1e-12*(1+math.Abs(s)) {
				t.Fatalf("n=%d: y[%d] = %v, dense product %v", n, i, got[i], s)
			}
		}
	}
}

// TestSyrkUpperTransMatchesGonum checks syrkUpperTrans against gonum's
// Dsyrk(Upper, Trans, 1, A, 0, C) to the last bit (zeros in A, strides
// larger than the orders), and against the explicit AᵀA to 1e-12.
func TestSyrkUpperTransMatchesGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	for _, sh := range [][2]int{{1, 1}, {3, 5}, {20, 20}, {37, 12}, {70, 70}} {
		n, k := sh[0], sh[1]
		lda, ldc := n+1, n+3
		a := make([]float64, k*lda)
		for i := range a {
			if rng.Float64() < 0.15 {
				continue
			}
			a[i] = rng.NormFloat64()
		}
		got, want := make([]float64, n*ldc), make([]float64, n*ldc)
		for i := range got {
			got[i], want[i] = 3, 3
		}
		syrkUpperTrans(n, k, a, lda, got, ldc)
		blas64.Syrk(blas.Trans, 1, blas64.General{Rows: k, Cols: n, Stride: lda, Data: a}, 0,
			blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: ldc, Data: want})
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				g, w := got[i*ldc+j], want[i*ldc+j]
				if math.Float64bits(g) != math.Float64bits(w) {
					t.Fatalf("%v: C[%d,%d] = %v, gonum %v", sh, i, j, g, w)
				}
				var s float64
				for l := 0; l < k; l++ {
					s += a[l*lda+i] * a[l*lda+j]
				}
				if math.Abs(g-s) > 1e-12*(1+math.Abs(s)) {
					t.Fatalf("%v: C[%d,%d] = %v, AᵀA %v", sh, i, j, g, s)
				}
			}
		}
	}
}

// TestTrmmLeftLowerMatchesGonum checks trmmLeftLower against gonum's
// Dtrmm(Left, NoTrans/Trans, Lower, NonUnit, 1, L, B) to the last bit
// (zeros and a unit entry on L's diagonal, strides larger than the orders),
// and against the explicit product to 1e-12.
func TestTrmmLeftLowerMatchesGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 20))
	for _, trans := range []bool{false, true} {
		for _, sh := range [][2]int{{1, 1}, {4, 3}, {20, 20}, {37, 41}} {
			m, n := sh[0], sh[1]
			lda, ldb := m+2, n+1
			a := make([]float64, m*lda)
			for i := range a {
				if rng.Float64() < 0.15 {
					continue
				}
				a[i] = rng.NormFloat64()
			}
			a[(m/2)*lda+m/2] = 1
			b := make([]float64, m*ldb)
			for i := range b {
				b[i] = rng.NormFloat64()
			}
			got, want := append([]float64(nil), b...), append([]float64(nil), b...)
			trmmLeftLower(trans, m, n, a, lda, got, ldb)
			tA := blas.NoTrans
			if trans {
				tA = blas.Trans
			}
			blas64.Trmm(blas.Left, tA, 1, blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: m, Stride: lda, Data: a},
				blas64.General{Rows: m, Cols: n, Stride: ldb, Data: want})
			for i := 0; i < m; i++ {
				for j := 0; j < n; j++ {
					g, w := got[i*ldb+j], want[i*ldb+j]
					if math.Float64bits(g) != math.Float64bits(w) {
						t.Fatalf("trans=%v %v: B[%d,%d] = %v, gonum %v", trans, sh, i, j, g, w)
					}
					var s float64
					for k := 0; k < m; k++ {
						lik := 0.0
						if !trans && k <= i {
							lik = a[i*lda+k]
						} else if trans && k >= i {
							lik = a[k*lda+i]
						}
						s += lik * b[k*ldb+j]
					}
					if math.Abs(g-s) > 1e-12*(1+math.Abs(s)) {
						t.Fatalf("trans=%v %v: B[%d,%d] = %v, product %v", trans, sh, i, j, g, s)
					}
				}
			}
		}
	}
}

// TestGemmNNMatchesGonum checks gemmNN against gonum's Dgemm(NoTrans,
// NoTrans, 1, A, B, 0, C) to the last bit, on both sides of gemmNNSmallMax
// (10, 15 and 16 columns), below and above gonum's parallel
// block size, with zeros in A, and against the triple loop to 1e-12.
func TestGemmNNMatchesGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for _, sh := range [][3]int{{1, 1, 1}, {6, 5, 4}, {4, 4, 4}, {6, 6, 6}, {7, 7, 7}, {9, 7, 3}, {5, 2, 11}, {10, 10, 10}, {12, 15, 12}, {15, 16, 15}, {37, 37, 37}, {130, 70, 90}} {
		m, n, k := sh[0], sh[1], sh[2]
		a, b := make([]float64, m*k), make([]float64, k*n)
		for i := range a {
			if rng.Float64() < 0.2 {
				continue
			}
			a[i] = rng.NormFloat64()
		}
		for i := range b {
			b[i] = rng.NormFloat64()
		}
		got, want := make([]float64, m*n), make([]float64, m*n)
		for i := range got {
			got[i], want[i] = 9, 9
		}
		gemmNN(m, n, k, a, k, b, n, got, n)
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, blas64.General{Rows: m, Cols: k, Stride: k, Data: a},
			blas64.General{Rows: k, Cols: n, Stride: n, Data: b}, 0, blas64.General{Rows: m, Cols: n, Stride: n, Data: want})
		checkGemm(t, sh, m, n, got, want, func(i, j int) (s float64) {
			for l := 0; l < k; l++ {
				s += a[i*k+l] * b[l*n+j]
			}
			return s
		})
	}
}

// TestTrsmLeftLowerMatchesGonum checks trsmLeftLower against gonum's
// Dtrsm(Left, NoTrans, Lower, NonUnit, 1, L, B) to the last bit (zeros
// below L's diagonal, strides larger than the orders), and that L times the
// result gives B back to 1e-10.
func TestTrsmLeftLowerMatchesGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	for _, sh := range [][2]int{{1, 1}, {5, 3}, {10, 10}, {20, 37}} {
		m, n := sh[0], sh[1]
		lda, ldb := m+1, n+2
		a := make([]float64, m*lda)
		for i := 0; i < m; i++ {
			for k := 0; k < i; k++ {
				if rng.Float64() < 0.8 {
					a[i*lda+k] = 0.3 * rng.NormFloat64()
				}
			}
			a[i*lda+i] = 1 + rng.Float64()
		}
		b := make([]float64, m*ldb)
		for i := range b {
			b[i] = rng.NormFloat64()
		}
		got, want := append([]float64(nil), b...), append([]float64(nil), b...)
		trsmLeftLower(m, n, a, lda, got, ldb)
		blas64.Trsm(blas.Left, blas.NoTrans, 1, blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: m, Stride: lda, Data: a},
			blas64.General{Rows: m, Cols: n, Stride: ldb, Data: want})
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				g, w := got[i*ldb+j], want[i*ldb+j]
				if math.Float64bits(g) != math.Float64bits(w) {
					t.Fatalf("%v: X[%d,%d] = %v, gonum %v", sh, i, j, g, w)
				}
				var s float64
				for k := 0; k <= i; k++ {
					s += a[i*lda+k] * got[k*ldb+j]
				}
				if math.Abs(s-b[i*ldb+j]) > 1e-10*(1+math.Abs(b[i*ldb+j])) {
					t.Fatalf("%v: (LX)[%d,%d] = %v, B %v", sh, i, j, s, b[i*ldb+j])
				}
			}
		}
	}
}
