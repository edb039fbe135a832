package ipm

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// sdpxSmallOrder: PSD blocks of order at most this compute the congruences
// with the Schur factor T (schurFactorTo, schurFactorTransTo, and so
// mulHinv) by sdpxFactorSmall and sdpxFactorTransSmall, plain loops over
// the triangles, instead of one gonum Dgemv and one Dtrmv (or trmv) call per
// row: at these orders a row's product has at most n multiply-adds, fewer
// than a BLAS call's argument checks and dispatch cost. Measured
// (BENCHMARKS.md, "Small SDPs over the matrices, round 10"): the
// instructions of a whole max-cut solve over the matrices fall at orders 5
// and 10 and the two kernels run several times faster there.
var sdpxSmallOrder = 6

// sdpxFactorSmall sets out = svec(W), W = T M Tᵀ with M = mat(v) and T the
// block's upper triangular Schur factor c.tq (TᵀT = B⁻¹, see
// mulSchurFactor): the same upper triangle, row by row, as schurFactorTo,
//
//	y_k = Y[j,k] = Σ_{l≥j} M[k,l] T[j,l]  (k ≥ j),   W[j,i] = Σ_{k≥i} T[i,k] y_k  (i ≥ j),
//
// about n³/3 + n³/6 multiply-adds in loops without calls. m1 holds M, m2
// supplies n entries of scratch.
func (c *psdCone) sdpxFactorSmall(out, v []float64, m1, m2 *mat.Dense) {
	n := c.n
	svecToDense(m1, v, n)
	mr := m1.RawMatrix()
	md, ms := mr.Data, mr.Stride
	tr := c.tq.RawTriangular()
	td, ts := tr.Data, tr.Stride
	y := m2.RawMatrix().Data[:n]
	off := 0
	for j := 0; j < n; j++ {
		tj := td[j*ts+j : j*ts+n]
		yj := y[j:n]
		for k := range yj {
			mk := md[(j+k)*ms+j : (j+k)*ms+n]
			mk = mk[:len(tj)]
			var s float64
			for l, t := range tj {
				s += mk[l] * t
			}
			yj[k] = s
		}
		seg := out[off : off+n-j]
		for i := range seg {
			ti := td[(j+i)*ts+j+i : (j+i)*ts+n]
			yi := yj[i:]
			yi = yi[:len(ti)]
			var s float64
			for k, t := range ti {
				s += t * yi[k]
			}
			seg[i] = s
		}
		for i := 1; i < len(seg); i++ {
			seg[i] *= math.Sqrt2
		}
		off += n - j
	}
}

// sdpxFactorTransSmall sets out = svec(Z), Z = Tᵀ W T with W = mat(w), the
// adjoint of sdpxFactorSmall, the same upper triangle as
// schurFactorTransTo,
//
//	Y[a,i] = Σ_{b≤i} W[a,b] T[b,i]  (i ≥ a),   Z[j,i] = Σ_{a≤j} T[a,j] Y[a,i]  (i ≥ j),
//
// in loops without calls. m1 holds W, m2 holds Y.
func (c *psdCone) sdpxFactorTransSmall(out, w []float64, m1, m2 *mat.Dense) {
	n := c.n
	svecToDense(m1, w, n)
	wr := m1.RawMatrix()
	wd, ws := wr.Data, wr.Stride
	tr := c.tq.RawTriangular()
	td, ts := tr.Data, tr.Stride
	yr := m2.RawMatrix()
	yd, ys := yr.Data, yr.Stride
	// Y[a, a:] = Σ_b W[a,b]·T[b, max(a,b):] (T upper triangular), row axpys
	for a := 0; a < n; a++ {
		wa := wd[a*ws : a*ws+n]
		ya := yd[a*ys+a : a*ys+n]
		clear(ya)
		for b, x := range wa {
			lo := max(a, b)
			tb := td[b*ts+lo : b*ts+n]
			yb := ya[lo-a:]
			yb = yb[:len(tb)]
			for i, t := range tb {
				yb[i] += x * t
			}
		}
	}
	// Z[j, j:] = Σ_{a≤j} T[a,j]·Y[a, j:]; row j of Z's upper triangle is
	// column j of svec(Z)'s lower triangle
	off := 0
	for j := 0; j < n; j++ {
		seg := out[off : off+n-j]
		clear(seg)
		for a := 0; a <= j; a++ {
			x := td[a*ts+j]
			ya := yd[a*ys+j : a*ys+n]
			ya = ya[:len(seg)]
			for i, y := range ya {
				seg[i] += x * y
			}
		}
		for i := 1; i < len(seg); i++ {
			seg[i] *= math.Sqrt2
		}
		off += n - j
	}
}
