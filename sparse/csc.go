// Package sparse holds the compressed sparse column (CSC) matrix that is the
// contract between privopt's modelling layer and its solver backends, and a
// triplet builder that assembles one in O(nnz + cols) time.
package sparse

import (
	"fmt"
	"math"
	"sort"
)

// CSC is an m×n sparse matrix in compressed sparse column form: the entries of
// column j are Val[ColPtr[j]:ColPtr[j+1]] at rows RowIdx[ColPtr[j]:ColPtr[j+1]].
// Row indices within a column are strictly increasing (no duplicates) in a matrix
// built by this package; Validate checks it for matrices built elsewhere.
type CSC struct {
	Rows, Cols int
	ColPtr     []int // length Cols+1, ColPtr[0] = 0, non-decreasing
	RowIdx     []int // length Nnz()
	Val        []float64
}

// NewCSC returns an empty (all-zero) m×n matrix.
func NewCSC(m, n int) *CSC {
	return &CSC{Rows: m, Cols: n, ColPtr: make([]int, n+1)}
}

// Nnz returns the number of stored entries.
func (a *CSC) Nnz() int {
	if a == nil || len(a.ColPtr) == 0 {
		return 0
	}
	return a.ColPtr[a.Cols]
}

// Validate reports whether the arrays describe a well-formed matrix with sorted,
// unique row indices in every column and finite values.
func (a *CSC) Validate() error {
	if a.Rows < 0 || a.Cols < 0 {
		return fmt.Errorf("sparse: negative dimension %d×%d", a.Rows, a.Cols)
	}
	if len(a.ColPtr) != a.Cols+1 {
		return fmt.Errorf("sparse: len(ColPtr) is %d, want Cols+1 = %d", len(a.ColPtr), a.Cols+1)
	}
	if a.ColPtr[0] != 0 {
		return fmt.Errorf("sparse: ColPtr[0] is %d, want 0", a.ColPtr[0])
	}
	nnz := a.ColPtr[a.Cols]
	if len(a.RowIdx) != nnz || len(a.Val) != nnz {
		return fmt.Errorf("sparse: ColPtr says %d entries but len(RowIdx) = %d, len(Val) = %d", nnz, len(a.RowIdx), len(a.Val))
	}
	for j := 0; j < a.Cols; j++ {
		if a.ColPtr[j+1] < a.ColPtr[j] {
			return fmt.Errorf("sparse: ColPtr decreases at column %d", j)
		}
		prev := -1
		for p := a.ColPtr[j]; p < a.ColPtr[j+1]; p++ {
			i := a.RowIdx[p]
			if i < 0 || i >= a.Rows {
				return fmt.Errorf("sparse: row index %d out of range [0,%d) in column %d", i, a.Rows, j)
			}
			if i <= prev {
				return fmt.Errorf("sparse: row indices not strictly increasing in column %d", j)
			}
			prev = i
			if v := a.Val[p]; math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("sparse: entry (%d,%d) is %v, must be finite", i, j, v)
			}
		}
	}
	return nil
}

// At returns the entry (i, j) by binary search in column j. It panics if i or j
// is out of range.
func (a *CSC) At(i, j int) float64 {
	if i < 0 || i >= a.Rows || j < 0 || j >= a.Cols {
		panic(fmt.Sprintf("sparse: index (%d,%d) out of range for %d×%d", i, j, a.Rows, a.Cols))
	}
	lo, hi := a.ColPtr[j], a.ColPtr[j+1]
	k := lo + sort.SearchInts(a.RowIdx[lo:hi], i)
	if k < hi && a.RowIdx[k] == i {
		return a.Val[k]
	}
	return 0
}

// MulVecTo computes dst = alpha*A*x + beta*dst and returns dst. A nil dst is
// allocated (and beta ignored). It panics on a length mismatch.
func (a *CSC) MulVecTo(dst []float64, alpha float64, x []float64, beta float64) []float64 {
	if len(x) != a.Cols {
		panic(fmt.Sprintf("sparse: MulVecTo: len(x) = %d, want %d", len(x), a.Cols))
	}
	if dst == nil {
		dst = make([]float64, a.Rows)
	} else {
		if len(dst) != a.Rows {
			panic(fmt.Sprintf("sparse: MulVecTo: len(dst) = %d, want %d", len(dst), a.Rows))
		}
		scale(dst, beta)
	}
	// the slices in locals: the stores into dst would otherwise reload
	// a's fields per entry (same operations, same order)
	cp, ri, rv := a.ColPtr[:a.Cols+1], a.RowIdx, a.Val
	x = x[:a.Cols]
	for j, xj := range x {
		xj *= alpha
		if xj == 0 {
			continue
		}
		for p, pe := cp[j], cp[j+1]; p < pe; p++ {
			dst[ri[p]] += rv[p] * xj
		}
	}
	return dst
}

// MulTransVecTo computes dst = alpha*Aᵀ*y + beta*dst and returns dst. A nil dst
// is allocated (and beta ignored). It panics on a length mismatch.
func (a *CSC) MulTransVecTo(dst []float64, alpha float64, y []float64, beta float64) []float64 {
	if len(y) != a.Rows {
		panic(fmt.Sprintf("sparse: MulTransVecTo: len(y) = %d, want %d", len(y), a.Rows))
	}
	if dst == nil {
		dst = make([]float64, a.Cols)
	} else {
		if len(dst) != a.Cols {
			panic(fmt.Sprintf("sparse: MulTransVecTo: len(dst) = %d, want %d", len(dst), a.Cols))
		}
		scale(dst, beta)
	}
	cp, ri, rv := a.ColPtr[:a.Cols+1], a.RowIdx, a.Val
	dst = dst[:a.Cols]
	for j := range dst {
		var s float64
		for p, pe := cp[j], cp[j+1]; p < pe; p++ {
			s += rv[p] * y[ri[p]]
		}
		dst[j] += alpha * s
	}
	return dst
}

func scale(v []float64, beta float64) {
	if beta == 1 {
		return
	}
	if beta == 0 {
		clear(v)
		return
	}
	for i := range v {
		v[i] *= beta
	}
}

// Transpose returns Aᵀ as a new CSC matrix (equivalently, A in CSR form).
// Row indices of the result are sorted. It costs O(nnz + rows + cols).
func (a *CSC) Transpose() *CSC {
	t := &CSC{Rows: a.Cols, Cols: a.Rows, ColPtr: make([]int, a.Rows+1)}
	nnz := a.Nnz()
	t.RowIdx = make([]int, nnz)
	t.Val = make([]float64, nnz)
	for p := 0; p < nnz; p++ {
		t.ColPtr[a.RowIdx[p]+1]++
	}
	for i := 0; i < a.Rows; i++ {
		t.ColPtr[i+1] += t.ColPtr[i]
	}
	next := make([]int, a.Rows)
	copy(next, t.ColPtr[:a.Rows])
	for j := 0; j < a.Cols; j++ {
		for p := a.ColPtr[j]; p < a.ColPtr[j+1]; p++ {
			i := a.RowIdx[p]
			q := next[i]
			t.RowIdx[q] = j
			t.Val[q] = a.Val[p]
			next[i]++
		}
	}
	return t
}

// Clone returns a deep copy of a.
func (a *CSC) Clone() *CSC {
	return &CSC{
		Rows: a.Rows, Cols: a.Cols,
		ColPtr: append([]int(nil), a.ColPtr...),
		RowIdx: append([]int(nil), a.RowIdx...),
		Val:    append([]float64(nil), a.Val...),
	}
}

// Dense returns the matrix as a row-major dense slice of slices; meant for tests
// and small matrices.
func (a *CSC) Dense() [][]float64 {
	d := make([][]float64, a.Rows)
	for i := range d {
		d[i] = make([]float64, a.Cols)
	}
	for j := 0; j < a.Cols; j++ {
		for p := a.ColPtr[j]; p < a.ColPtr[j+1]; p++ {
			d[a.RowIdx[p]][j] = a.Val[p]
		}
	}
	return d
}

// Triplets accumulates entries (i, j, v) in any order; ToCSC sums duplicates.
// The zero value is not usable: create one with NewTriplets.
type Triplets struct {
	rows, cols int
	I, J       []int
	V          []float64
}

// NewTriplets returns an empty m×n triplet list with room for capacity entries.
func NewTriplets(m, n, capacity int) *Triplets {
	return &Triplets{rows: m, cols: n, I: make([]int, 0, capacity), J: make([]int, 0, capacity), V: make([]float64, 0, capacity)}
}

// Dims returns the matrix dimensions.
func (t *Triplets) Dims() (m, n int) { return t.rows, t.cols }

// Len returns the number of entries appended so far (duplicates counted).
func (t *Triplets) Len() int { return len(t.V) }

// Append adds v at (i, j). It panics if the index is out of range: callers own
// the index arithmetic, and a wrong index is a bug, not a data error.
func (t *Triplets) Append(i, j int, v float64) {
	if i < 0 || i >= t.rows || j < 0 || j >= t.cols {
		panic(fmt.Sprintf("sparse: triplet (%d,%d) out of range for %d×%d", i, j, t.rows, t.cols))
	}
	t.I = append(t.I, i)
	t.J = append(t.J, j)
	t.V = append(t.V, v)
}

// Grow enlarges the matrix dimensions (never shrinks); existing entries keep their
// positions. Useful when variables or rows are added after entries.
func (t *Triplets) Grow(m, n int) {
	t.rows = max(t.rows, m)
	t.cols = max(t.cols, n)
}

// ToCSC assembles the matrix: duplicates are summed and exact zeros produced by
// the sum are dropped. It runs in O(nnz + m + n) with two counting passes.
func (t *Triplets) ToCSC() *CSC {
	m, n := t.rows, t.cols
	nnz := len(t.V)
	// Pass 1: bucket by row (CSR order), which makes the second pass emit
	// sorted row indices within each column.
	rowPtr := make([]int, m+1)
	for _, i := range t.I {
		rowPtr[i+1]++
	}
	for i := 0; i < m; i++ {
		rowPtr[i+1] += rowPtr[i]
	}
	rj := make([]int, nnz)
	rv := make([]float64, nnz)
	next := make([]int, m)
	copy(next, rowPtr[:m])
	for k, i := range t.I {
		q := next[i]
		rj[q] = t.J[k]
		rv[q] = t.V[k]
		next[i]++
	}
	// Pass 2: scatter rows into columns, merging duplicates via a per-column
	// "last row seen" marker.
	colCount := make([]int, n+1)
	for _, j := range rj {
		colCount[j+1]++
	}
	for j := 0; j < n; j++ {
		colCount[j+1] += colCount[j]
	}
	ci := make([]int, nnz)
	cv := make([]float64, nnz)
	pos := make([]int, n)
	copy(pos, colCount[:n])
	last := make([]int, n)
	for j := range last {
		last[j] = -1
	}
	for i := 0; i < m; i++ {
		for q := rowPtr[i]; q < rowPtr[i+1]; q++ {
			j := rj[q]
			if last[j] == i {
				cv[pos[j]-1] += rv[q]
				continue
			}
			last[j] = i
			ci[pos[j]] = i
			cv[pos[j]] = rv[q]
			pos[j]++
		}
	}
	// Compact: drop the holes left by merged duplicates and exact zeros.
	a := &CSC{Rows: m, Cols: n, ColPtr: make([]int, n+1)}
	a.RowIdx = ci[:0]
	a.Val = cv[:0]
	w := 0
	for j := 0; j < n; j++ {
		for p := colCount[j]; p < pos[j]; p++ {
			if cv[p] == 0 {
				continue
			}
			ci[w] = ci[p]
			cv[w] = cv[p]
			w++
		}
		a.ColPtr[j+1] = w
	}
	a.RowIdx = ci[:w]
	a.Val = cv[:w]
	return a
}
