package ipm

import (
	"math"
	"sort"
	"sync/atomic"

	"github.com/privopt/privopt/internal/ldl"
	"github.com/privopt/privopt/sparse"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// fknPlan assembles the Schur complement of an eliminated PSD block,
//
//	M_ce = a_cᵀH⁻¹a_e = tr(F_c G F_e G),  G = B⁻¹ = (RRᵀ)⁻¹ = TᵀT,
//
// from the sparse data matrices F_c = mat(a_c) (a_c the block's rows of
// column c of A) with the three formulas of Fujisawa, Kojima & Nakata,
// "Exploiting sparsity in primal-dual interior-point methods for semidefinite
// programming", Math. Program. 79 (1997), chosen per column by its nonzero
// count, as CSDP and SDPA do. Columns are ordered by decreasing nonzero count
// and row c of M is computed against the columns e after it (sparser ones):
//
//	F1: X = G F_c G densely (a product n×r by r×n over the r matrix rows
//	    F_c touches), then M_ce = ⟨svec F_e, svec X⟩ over F_e's nonzeros;
//	F2: Y = F_c G on F_c's r rows, X_ij = Σ_k G_{i,R_k} Y_{k,j} only at the
//	    nonzeros (i,j) of the later F_e (r multiply-adds each);
//	F3: X_ij = Σ_{(a,b)∈F_c} F_c[a,b]·G_ia·G_bj directly (two products per
//	    pair of nonzeros).
//
// In svec coordinates with κ(v_k) = v_k off the diagonal and v_k/√2 on it,
//
//	M_ce = Σ_{(i,j)∈F_e} Σ_{(a,b)∈F_c} κ_ij κ_ab (G_ia G_bj + G_ib G_aj)
//
// over the lower-triangle nonzeros (i ≥ j, a ≥ b), and ⟨svec F_e, svec X⟩ =
// √2 Σ_{(i,j)∈F_e} κ_ij X_ij. The cost of each formula is estimated per row
// (the F1 product counted at half a multiply-add per flop, being a dense
// matrix product; F3 at three for its scattered reads), and the cheapest one
// is used. Rows are distributed over the worker goroutines dynamically.
type fknPlan struct {
	n       int
	order   []int        // columns (positions in cols) by decreasing nonzero count
	ent     [][]fknEntry // per column: lower-triangle nonzeros with κ
	rows    [][]int      // per column: the distinct matrix rows (and columns) F_c touches
	formula []int8       // per ordered position: 1, 2 or 3
	// the nonzeros of ent again, column after column in the order of
	// order (position q's from foff[q] to foff[q+1]), as flat row-major
	// positions i·n + j and weights κ: F1's gathers read them sequentially
	fidx []int32
	fk   []float64
	foff []int
	cost float64   // estimated multiply-adds of one assembly
	g    []float64 // n×n row-major G of the current assembly
	ws   []*fknWork
}

// fknEntry is a lower-triangle nonzero (i ≥ j) of a data matrix with its
// svec weight k = κ(v) (v off the diagonal, v/√2 on it).
type fknEntry struct {
	i, j int32
	k    float64
}

// fknWork is one worker's workspace.
type fknWork struct {
	pos     []int     // matrix row → index in the current column's row set, −1 if absent
	y       []float64 // r×n: Y = F_c G on the rows of F_c
	gr      []float64 // r×n: the rows R of G (F1), or n×r transposed (F2)
	yt      []float64 // n×r: Yᵀ (F2)
	x       []float64 // n×n: X = G F_c G (F1)
	scratch []float64
}

// svecIndex returns the matrix position (i, j), i ≥ j, of every svec
// coordinate of an order-n block (column-major lower triangle).
func svecIndex(n int) (ii, jj []int32) {
	d := n * (n + 1) / 2
	ii, jj = make([]int32, d), make([]int32, d)
	k := 0
	for j := 0; j < n; j++ {
		for i := j; i < n; i++ {
			ii[k], jj[k] = int32(i), int32(j)
			k++
		}
	}
	return ii, jj
}

// newFKNPlan builds the plan for the block's columns ap (d × nc, svec rows of
// an order-n block).
func newFKNPlan(n int, ap *sparse.CSC) *fknPlan {
	nc := ap.Cols
	si, sj := svecIndex(n)
	pl := &fknPlan{n: n, ent: make([][]fknEntry, nc), rows: make([][]int, nc), g: make([]float64, n*n)}
	mark := make([]int, n)
	for i := range mark {
		mark[i] = -1
	}
	for c := 0; c < nc; c++ {
		for p := ap.ColPtr[c]; p < ap.ColPtr[c+1]; p++ {
			v := ap.Val[p]
			if v == 0 {
				continue
			}
			r := ap.RowIdx[p]
			i, j := si[r], sj[r]
			k := v
			if i == j {
				k = v / math.Sqrt2
			}
			pl.ent[c] = append(pl.ent[c], fknEntry{i: i, j: j, k: k})
			for _, t := range [2]int{int(i), int(j)} {
				if mark[t] != c {
					mark[t] = c
					pl.rows[c] = append(pl.rows[c], t)
				}
			}
		}
		sort.Ints(pl.rows[c])
	}
	pl.order = make([]int, nc)
	for c := range pl.order {
		pl.order[c] = c
	}
	sort.SliceStable(pl.order, func(a, b int) bool { return len(pl.ent[pl.order[a]]) > len(pl.ent[pl.order[b]]) })
	pl.foff = make([]int, nc+1)
	for q, c := range pl.order {
		for _, fe := range pl.ent[c] {
			pl.fidx = append(pl.fidx, fe.i*int32(n)+fe.j)
			pl.fk = append(pl.fk, fe.k)
		}
		pl.foff[q+1] = len(pl.fidx)
	}
	pl.formula = make([]int8, nc)
	// S = nonzeros of the columns from position p on
	var s float64
	for p := nc - 1; p >= 0; p-- {
		c := pl.order[p]
		s += float64(len(pl.ent[c]))
		f, r, nf := float64(n), float64(len(pl.rows[c])), float64(len(pl.ent[c]))
		c1 := 2*nf*f + r*f + 0.5*f*f*r + s
		c2 := 2*nf*f + 2*r*f + r*s
		c3 := 3 * 2 * nf * s
		switch {
		case c3 <= c1 && c3 <= c2:
			pl.formula[p] = 3
			pl.cost += c3
		case c2 <= c1:
			pl.formula[p] = 2
			pl.cost += c2
		default:
			pl.formula[p] = 1
			pl.cost += c1
		}
	}
	return pl
}

func (pl *fknPlan) work(k int) *fknWork {
	for len(pl.ws) <= k {
		n := pl.n
		w := &fknWork{pos: make([]int, n)}
		for i := range w.pos {
			w.pos[i] = -1
		}
		pl.ws = append(pl.ws, w)
	}
	return pl.ws[k]
}

// setG sets G = TᵀT (T upper triangular with zeros below the diagonal), or
// G = I when t is nil (the identity scaling of the initialization).
func (pl *fknPlan) setG(t *mat.TriDense) {
	n := pl.n
	g := pl.g
	if t == nil {
		clear(g)
		for i := 0; i < n; i++ {
			g[i*n+i] = 1
		}
		return
	}
	tr := t.RawTriangular()
	syrkUpperTrans(n, n, tr.Data, tr.Stride, g, n)
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			g[j*n+i] = g[i*n+j]
		}
	}
}

// assemble writes M (upper triangle) into sc with the current G, using up
// to workers goroutines.
func (pl *fknPlan) assemble(sc *mat.SymDense, workers int) {
	nc := len(pl.order)
	raw := sc.RawSymmetric()
	for k := 0; k < workers; k++ {
		pl.work(k)
	}
	var next atomic.Int64
	parallel(workers, func(k int) {
		w := pl.ws[k]
		for {
			p := int(next.Add(1) - 1)
			if p >= nc {
				return
			}
			pl.row(w, p, raw)
		}
	})
}

// row computes M_ce for c = order[p] and every e = order[q], q ≥ p.
func (pl *fknPlan) row(w *fknWork, p int, raw blas64.Symmetric) {
	n, g := pl.n, pl.g
	c := pl.order[p]
	ec := pl.ent[c]
	set := func(e int, v float64) {
		a, b := c, e
		if a > b {
			a, b = b, a
		}
		raw.Data[a*raw.Stride+b] = v
	}
	if len(ec) == 0 {
		for _, e := range pl.order[p:] {
			set(e, 0)
		}
		return
	}
	switch pl.formula[p] {
	case 3:
		for _, e := range pl.order[p:] {
			var m float64
			for _, fe := range pl.ent[e] {
				gi, gj := g[int(fe.i)*n:int(fe.i)*n+n], g[int(fe.j)*n:int(fe.j)*n+n]
				var t float64
				for _, fc := range ec {
					t += fc.k * (gi[fc.i]*gj[fc.j] + gi[fc.j]*gj[fc.i])
				}
				m += fe.k * t
			}
			set(e, m)
		}
		return
	}
	// Y = F_c G on the rows R of F_c (row k of y is matrix row R_k)
	rs := pl.rows[c]
	r := len(rs)
	for k, t := range rs {
		w.pos[t] = k
	}
	w.y = grow(w.y, r*n)
	y := w.y
	clear(y)
	for _, fc := range ec {
		a, b := int(fc.i), int(fc.j)
		if a == b {
			axpy(y[w.pos[a]*n:w.pos[a]*n+n], math.Sqrt2*fc.k, g[b*n:b*n+n])
			continue
		}
		f := fc.k / math.Sqrt2
		axpy(y[w.pos[a]*n:w.pos[a]*n+n], f, g[b*n:b*n+n])
		axpy(y[w.pos[b]*n:w.pos[b]*n+n], f, g[a*n:a*n+n])
	}
	for _, t := range rs {
		w.pos[t] = -1
	}
	if pl.formula[p] == 1 {
		// X = G[:,R]·Y = G[R,:]ᵀ·Y (G symmetric)
		w.gr = grow(w.gr, r*n)
		for k, t := range rs {
			copy(w.gr[k*n:k*n+n], g[t*n:t*n+n])
		}
		w.x = grow(w.x, n*n)
		gemmTN(n, n, r, w.gr, n, y, n, w.x, n)
		x := w.x
		for q := p; q < len(pl.order); q++ {
			lo, hi := pl.foff[q], pl.foff[q+1]
			idx, k := pl.fidx[lo:hi], pl.fk[lo:hi]
			var m float64
			for t, at := range idx {
				m += k[t] * x[at]
			}
			set(pl.order[q], math.Sqrt2*m)
		}
		return
	}
	// F2: gr = G[R,:]ᵀ (n×r), yt = Yᵀ (n×r); X_ij = gr[i,:]·yt[j,:]
	w.gr = grow(w.gr, n*r)
	w.yt = grow(w.yt, n*r)
	for k, t := range rs {
		gt := g[t*n : t*n+n]
		yk := y[k*n : k*n+n]
		for i := 0; i < n; i++ {
			w.gr[i*r+k] = gt[i]
			w.yt[i*r+k] = yk[i]
		}
	}
	for _, e := range pl.order[p:] {
		var m float64
		for _, fe := range pl.ent[e] {
			gi := w.gr[int(fe.i)*r : int(fe.i)*r+r]
			yj := w.yt[int(fe.j)*r : int(fe.j)*r+r]
			var t float64
			for k, v := range gi {
				t += v * yj[k]
			}
			m += fe.k * t
		}
		set(e, math.Sqrt2*m)
	}
}

// axpy sets dst += a·x (ldl.AddScaled: the plain loop's rounding).
func axpy(dst []float64, a float64, x []float64) { ldl.AddScaled(dst, a, x) }

// grow returns s resized to length n, reallocating only when needed.
func grow(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}
