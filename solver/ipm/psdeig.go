package ipm

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/lapack/gonum"
)

// symEigWork computes the eigendecomposition A = VΛVᵀ of a dense symmetric
// matrix (the Gram matrix of scalingFromGram) with row-major-friendly
// accumulation of the eigenvectors.
//
// The matrix is reduced to tridiagonal form T = QᵀAQ by Householder
// reflections (LAPACK's dsytrd and dorgtr, from gonum), and T is
// diagonalized by the implicit QL iteration with Wilkinson-type shifts
// (tql2 of EISPACK: Bowdler, Martin, Reinsch & Wilkinson, Numer. Math. 11,
// 1968; Wilkinson & Reinsch, Handbook for Automatic Computation II, 1971).
// The iteration's plane rotations act on pairs of columns of V = QY; here
// they act on pairs of rows of Vᵀ, contiguous in row-major storage, which
// makes this step several times faster than gonum's dsteqr (whose dlasr
// walks the columns of a row-major matrix with stride n). The arithmetic is
// the same, so is the accuracy: eigenvalues with absolute error O(ε‖A‖),
// eigenvectors orthonormal to O(ε).
type symEigWork struct {
	n         int
	d, e, tau []float64
	work      []float64
	vt        []float64 // n×n: Vᵀ during the QL iteration
	impl      gonum.Implementation
	maxSweeps int
}

func newSymEigWork(n int) *symEigWork {
	w := &symEigWork{n: n, d: make([]float64, n), e: make([]float64, n), tau: make([]float64, max(n-1, 1)),
		vt: make([]float64, n*n), maxSweeps: 30 * n}
	q := make([]float64, 1)
	a := make([]float64, n*n)
	w.impl.Dsytrd(blas.Upper, n, a, n, w.d, w.e, w.tau, q, -1)
	lw := int(q[0])
	w.impl.Dorgtr(blas.Upper, n, a, n, w.tau, q, -1)
	w.work = make([]float64, max(lw, int(q[0]), 1))
	return w
}

// factorize overwrites a (row-major n×n with stride lda, upper triangle
// referenced) with the eigenvectors as columns and writes the eigenvalues
// in ascending order to vals. It reports false when the QL iteration does
// not converge within 30n sweeps.
func (w *symEigWork) factorize(a []float64, lda int, vals []float64) bool {
	n := w.n
	if n == 0 {
		return true
	}
	d, e := w.d, w.e
	w.impl.Dsytrd(blas.Upper, n, a, lda, d, e, w.tau, w.work, len(w.work))
	w.impl.Dorgtr(blas.Upper, n, a, lda, w.tau, w.work, len(w.work))
	vt := w.vt
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			vt[j*n+i] = a[i*lda+j]
		}
	}
	e[n-1] = 0 // e[i] = T(i, i+1)
	if !w.ql(d, e, vt) {
		return false
	}
	// sort ascending (selection sort, moving rows of Vᵀ)
	for i := 0; i < n-1; i++ {
		k := i
		for j := i + 1; j < n; j++ {
			if d[j] < d[k] {
				k = j
			}
		}
		if k != i {
			d[i], d[k] = d[k], d[i]
			ri, rk := vt[i*n:(i+1)*n], vt[k*n:(k+1)*n]
			for j := range ri {
				ri[j], rk[j] = rk[j], ri[j]
			}
		}
	}
	copy(vals, d)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			a[i*lda+j] = vt[j*n+i]
		}
	}
	return true
}

// ql is the implicit QL iteration (tql2) on the tridiagonal matrix with
// diagonal d and superdiagonal e (e[n−1] = 0), applying the rotations to
// the rows of vt.
func (w *symEigWork) ql(d, e, vt []float64) bool {
	n := w.n
	const eps = 0x1p-52
	var f, tst1 float64
	sweeps := 0
	for l := 0; l < n; l++ {
		tst1 = math.Max(tst1, math.Abs(d[l])+math.Abs(e[l]))
		m := l
		for m < n-1 && math.Abs(e[m]) > eps*tst1 {
			m++
		}
		if m > l {
			for {
				if sweeps++; sweeps > w.maxSweeps {
					return false
				}
				// implicit shift from the leading 2×2 block
				g := d[l]
				p := (d[l+1] - g) / (2 * e[l])
				r := math.Hypot(p, 1)
				if p < 0 {
					r = -r
				}
				d[l] = e[l] / (p + r)
				d[l+1] = e[l] * (p + r)
				dl1 := d[l+1]
				h := g - d[l]
				for i := l + 2; i < n; i++ {
					d[i] -= h
				}
				f += h
				// implicit QL transformation
				p = d[m]
				c, c2, c3 := 1.0, 1.0, 1.0
				el1 := e[l+1]
				s, s2 := 0.0, 0.0
				for i := m - 1; i >= l; i-- {
					c3 = c2
					c2 = c
					s2 = s
					g = c * e[i]
					h = c * p
					r = math.Hypot(p, e[i])
					e[i+1] = s * r
					s = e[i] / r
					c = p / r
					p = c*d[i] - s*g
					d[i+1] = h + s*(c*g+s*d[i])
					// rows i and i+1 of Vᵀ (columns of V)
					rotateRows(vt[i*n:(i+1)*n], vt[(i+1)*n:(i+2)*n], c, s)
				}
				p = -s * s2 * c3 * el1 * e[l] / dl1
				e[l] = s * p
				d[l] = c * p
				if !(math.Abs(e[l]) > eps*tst1) {
					break
				}
			}
		}
		d[l] += f
		e[l] = 0
	}
	for _, v := range d {
		if math.IsNaN(v) {
			return false
		}
	}
	return true
}

// rotateRows applies the plane rotation (x, y) ← (c·x − s·y, s·x + c·y)
// to the rows x = q_i and y = q_{i+1} of Vᵀ. On x86-64 with AVX the leading
// multiple of 4 elements go through rotateRowsAVX, whose rounding is that of
// the scalar loop (no fused multiply-add): the result is the same to the last
// bit.
func rotateRows(x, y []float64, c, s float64) {
	y = y[:len(x)]
	k := 0
	if haveAVX && len(x) >= 8 {
		k = len(x) &^ 3
		rotateRowsAVX(&x[0], &y[0], k, c, s)
	}
	for ; k+4 <= len(x); k += 4 {
		x0, x1, x2, x3 := x[k], x[k+1], x[k+2], x[k+3]
		y0, y1, y2, y3 := y[k], y[k+1], y[k+2], y[k+3]
		x[k], x[k+1], x[k+2], x[k+3] = c*x0-s*y0, c*x1-s*y1, c*x2-s*y2, c*x3-s*y3
		y[k], y[k+1], y[k+2], y[k+3] = s*x0+c*y0, s*x1+c*y1, s*x2+c*y2, s*x3+c*y3
	}
	for ; k < len(x); k++ {
		xk, yk := x[k], y[k]
		x[k] = c*xk - s*yk
		y[k] = s*xk + c*yk
	}
}
