package model

import (
	"math"
	"slices"
)

// ExprBuilder accumulates the terms of a vector affine expression of fixed
// length row by row, in any order — the fast path for building expressions in
// loops:
//
//	b := model.NewExprBuilder(len(lines))
//	for _, l := range lines {
//		b.AddVar(l.From, flow, l.Index, -1)
//		b.AddVar(l.To, flow, l.Index, +1)
//	}
//	balance := b.Expr()
//
// Terms are collected as triplets and sorted once by Expr (O(nnz·log nnz) at
// worst, O(nnz + n) when terms arrive row by row in increasing column order);
// repeated (row, column) pairs are summed. Grow reserves memory when the
// number of terms is known. Errors (index out of range, NaN
// coefficient, variables of two models) are sticky: the first is carried by
// the built expression and recorded by the model.
type ExprBuilder struct {
	n    int
	m    *Model
	rows []int
	cols []int
	vals []float64
	cst  []float64
	err  error
}

// NewExprBuilder returns a builder for an expression of length n (n ≥ 0).
func NewExprBuilder(n int) *ExprBuilder {
	b := &ExprBuilder{n: n}
	if n < 0 {
		b.err = errf(ErrInvalidArgument, "NewExprBuilder: length %d is negative", n)
		b.n = 0
	}
	return b
}

// Grow reserves room for nnz more terms, avoiding repeated reallocation when
// the number of terms is known (or estimated) in advance.
func (b *ExprBuilder) Grow(nnz int) {
	if nnz <= 0 {
		return
	}
	b.rows = slices.Grow(b.rows, nnz)
	b.cols = slices.Grow(b.cols, nnz)
	b.vals = slices.Grow(b.vals, nnz)
}

// Len returns the length of the expression being built.
func (b *ExprBuilder) Len() int { return b.n }

func (b *ExprBuilder) fail(err error) {
	if b.err == nil {
		b.err = err
	}
}

func (b *ExprBuilder) checkRow(op string, row int, coef float64) bool {
	if b.err != nil {
		return false
	}
	if row < 0 || row >= b.n {
		b.fail(errf(ErrDimension, "ExprBuilder.%s: row %d out of range [0,%d)", op, row, b.n))
		return false
	}
	if math.IsNaN(coef) || math.IsInf(coef, 0) {
		b.fail(errf(ErrNotFinite, "ExprBuilder.%s: coefficient for row %d is %v, must be finite", op, row, coef))
		return false
	}
	return true
}

func (b *ExprBuilder) setModel(op string, m *Model) bool {
	if b.m == nil {
		b.m = m
		return true
	}
	if m != b.m {
		b.fail(errf(ErrModelMismatch, "ExprBuilder.%s: variables of models %q and %q", op, b.m.name, m.name))
		return false
	}
	return true
}

// AddVar adds coef·v[i] (entry i of variable v, row-major) to row row.
func (b *ExprBuilder) AddVar(row int, v *Var, i int, coef float64) {
	if !b.checkRow("AddVar", row, coef) {
		return
	}
	if v == nil || i < 0 || i >= v.Len() {
		if v == nil {
			b.fail(errf(ErrInvalidArgument, "ExprBuilder.AddVar: variable is nil"))
		} else {
			b.fail(errf(ErrDimension, "ExprBuilder.AddVar: index %d out of range [0,%d) of variable %q", i, v.Len(), v.name))
		}
		return
	}
	if !b.setModel("AddVar", v.m) || coef == 0 {
		return
	}
	b.rows = append(b.rows, row)
	b.cols = append(b.cols, v.Col(i))
	b.vals = append(b.vals, coef)
}

// AddCol adds coef·x_col (a raw standard-form column of model m, see Var.Col)
// to row row.
func (b *ExprBuilder) AddCol(m *Model, row, col int, coef float64) {
	if !b.checkRow("AddCol", row, coef) {
		return
	}
	if m == nil || col < 0 || col >= m.ncols {
		b.fail(errf(ErrDimension, "ExprBuilder.AddCol: column %d out of range for the model", col))
		return
	}
	if !b.setModel("AddCol", m) || coef == 0 {
		return
	}
	b.rows = append(b.rows, row)
	b.cols = append(b.cols, col)
	b.vals = append(b.vals, coef)
}

// AddConst adds the constant c to row row.
func (b *ExprBuilder) AddConst(row int, c float64) {
	if !b.checkRow("AddConst", row, c) {
		return
	}
	if b.cst == nil {
		b.cst = make([]float64, b.n)
	}
	b.cst[row] += c
}

// AddExpr adds coef·e to row row, for a length-1 expression e.
func (b *ExprBuilder) AddExpr(row int, e Expr, coef float64) {
	if !b.checkRow("AddExpr", row, coef) {
		return
	}
	d := e.node()
	if d.err != nil {
		b.fail(d.err)
		return
	}
	if d.n != 1 {
		b.fail(errf(ErrDimension, "ExprBuilder.AddExpr: expression has length %d, must be 1", d.n))
		return
	}
	b.addRow(row, d.data(), 0, coef)
}

// AddScaled adds coef·e to the whole expression (e of length Len, or 1 to add
// it to every row).
func (b *ExprBuilder) AddScaled(coef float64, e Expr) {
	if b.err != nil {
		return
	}
	if math.IsNaN(coef) || math.IsInf(coef, 0) {
		b.fail(errf(ErrNotFinite, "ExprBuilder.AddScaled: coefficient is %v, must be finite", coef))
		return
	}
	d := e.node()
	if d.err != nil {
		b.fail(d.err)
		return
	}
	if d.n != b.n && d.n != 1 {
		b.fail(errf(ErrDimension, "ExprBuilder.AddScaled: expression has length %d, builder %d", d.n, b.n))
		return
	}
	d = d.data()
	if d.n == b.n {
		for i := 0; i < b.n; i++ {
			b.addRow(i, d, i, coef)
		}
		return
	}
	for i := 0; i < b.n; i++ {
		b.addRow(i, d, 0, coef)
	}
}

// addRow adds coef·(row src of d) to row dst.
func (b *ExprBuilder) addRow(dst int, d *expr, src int, coef float64) {
	if d.m != nil && !b.setModel("AddExpr", d.m) {
		return
	}
	if c := d.constAt(src); c != 0 {
		if b.cst == nil {
			b.cst = make([]float64, b.n)
		}
		b.cst[dst] += coef * c
	}
	if coef == 0 {
		return
	}
	for p := d.ptr[src]; p < d.ptr[src+1]; p++ {
		b.rows = append(b.rows, dst)
		b.cols = append(b.cols, d.idx[p])
		b.vals = append(b.vals, coef*d.val[p])
	}
}

// Expr returns the accumulated expression (a vector of length Len). The
// builder may be reused afterwards; later additions do not affect the
// returned expression.
func (b *ExprBuilder) Expr() Expr {
	if b.err != nil {
		return errLike(b.m, b.n, b.n, 1, b.err)
	}
	n := b.n
	// Counting sort by row (stable, so columns arriving in increasing order stay
	// sorted), then each row sorted and merged by rowBuf.flush.
	count := make([]int, n+1)
	for _, r := range b.rows {
		count[r+1]++
	}
	for i := 0; i < n; i++ {
		count[i+1] += count[i]
	}
	buf := make([]entry, len(b.rows))
	next := slices.Clone(count[:n])
	for k, r := range b.rows {
		buf[next[r]] = entry{b.cols[k], b.vals[k]}
		next[r]++
	}
	rb := rowBuf{idx: make([]int, 0, len(buf)), val: make([]float64, 0, len(buf))}
	ptr := make([]int, n+1)
	for i := 0; i < n; i++ {
		rb.buf = buf[count[i]:count[i+1]]
		rb.flush()
		ptr[i+1] = len(rb.idx)
	}
	return Expr{newNode(b.m, n, ptr, rb.idx, rb.val, slices.Clone(b.cst))}
}
