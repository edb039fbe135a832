package model

import (
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/mat"

	"github.com/privopt/privopt/sparse"
)

// Expr is an immutable vector affine expression
//
//	e(x) = A·x + c,   A ∈ ℝ^{n×N} sparse, c ∈ ℝⁿ,
//
// over the standard-form columns x of one model, with an optional matrix shape
// r×c (r·c = n, entries row-major). A is stored row by row (compressed sparse
// rows, column indices strictly increasing in each row, no explicit zeros).
//
// Operations return new expressions and never modify their operands, so
// expressions can be shared freely. Add and Sub are lazy: they record the sum in
// O(1) and the terms are merged once, the first time the result's coefficients
// are needed, so `e = e.Add(t)` in a loop costs O(total size), not quadratic
// time. For loops that place terms into rows, ExprBuilder is the fast path.
//
// Length-1 expressions broadcast in Add, Sub and in constraints. Invalid
// operations (length mismatch, index out of range, NaN data, mixing models) do
// not panic: they return an expression carrying the error (Err), every
// expression derived from it carries the same error, and the first such error is
// recorded by the model and returned by Model.Err, Canonicalize and Solve.
//
// The zero Expr is the empty expression (length 0); in Add, Sub, AddScaled,
// AddAll and on either side of Equal/LessEq/GreaterEq it acts as 0 of the
// other operand's length, so `var sum model.Expr` starts a sum.
type Expr struct{ x *expr }

// expr is an expression node: either materialized (ptr/idx/val/cst set) or a
// lazy sum prev + coef·term (lz non-nil), materialized on first use.
type expr struct {
	m          *Model // nil for constant expressions
	n          int
	rows, cols int // shape; rows·cols = n
	err        error

	ptr []int     // length n+1
	idx []int     // standard-form columns, strictly increasing within a row
	val []float64 // nonzero coefficients
	cst []float64 // constants, length n; nil means all zero

	lz *lazySum
}

// lazySum is the pending sum of a lazy node (kept apart so that the far more
// numerous materialized nodes stay small).
type lazySum struct {
	prev *expr // never nil
	term *expr
	coef float64
	once sync.Once
	done atomic.Bool
}

// Shared row pointers for single-row expressions; never modified.
var (
	ptrEmpty = []int{0, 0}
	ptrOne   = []int{0, 1}
)

// data returns the materialized node (the node itself, filled in on first use).
func (e *expr) data() *expr {
	if e.lz != nil {
		e.lz.once.Do(e.materialize)
	}
	return e
}

func (e *expr) materialized() bool { return e.lz == nil || e.lz.done.Load() }

// materialize first materializes (and caches) the prefix with one walk over
// its chain, then adds e's own term. The prefix costs one extra merge of e's
// size, and in exchange an expression shared as the prefix of many others
// (base.Add(t₁), base.Add(t₂), …) is walked once, not once per user.
func (e *expr) materialize() {
	if p := e.lz.prev; !p.materialized() {
		p.lz.once.Do(p.walk)
	}
	e.walk()
}

// walk materializes the lazy node e by collecting the terms of its chain back
// to the first materialized node and merging them in one pass.
func (e *expr) walk() {
	var terms []*expr
	var coefs []float64
	cur := e
	for !cur.materialized() {
		terms = append(terms, cur.lz.term)
		coefs = append(coefs, cur.lz.coef)
		cur = cur.lz.prev
	}
	terms = append(terms, cur)
	coefs = append(coefs, 1)
	slices.Reverse(terms)
	slices.Reverse(coefs)
	for _, t := range terms {
		t.data()
	}
	e.ptr, e.idx, e.val, e.cst = combine(e.n, terms, coefs)
	e.lz.done.Store(true)
}

// nnz returns the number of stored coefficients of a materialized node.
func (e *expr) nnz() int { return e.ptr[e.n] }

func (e *expr) constAt(i int) float64 {
	if e.cst == nil {
		return 0
	}
	return e.cst[i]
}

// entry is one coefficient of a row under assembly.
type entry struct {
	col int
	v   float64
}

// rowBuf accumulates the entries of one output row and appends them, sorted and
// merged, to an output CSR.
type rowBuf struct {
	buf []entry
	idx []int
	val []float64
}

func (r *rowBuf) add(col int, v float64) { r.buf = append(r.buf, entry{col, v}) }

// flush sorts the pending entries by column, sums duplicates, drops zeros and
// appends them to the output.
func (r *rowBuf) flush() {
	b := r.buf
	sorted := true
	for k := 1; k < len(b); k++ {
		if b[k].col <= b[k-1].col {
			sorted = false
			break
		}
	}
	if !sorted {
		if len(b) <= 16 {
			for k := 1; k < len(b); k++ {
				for j := k; j > 0 && b[j].col < b[j-1].col; j-- {
					b[j], b[j-1] = b[j-1], b[j]
				}
			}
		} else {
			slices.SortFunc(b, func(x, y entry) int { return x.col - y.col })
		}
	}
	for k := 0; k < len(b); {
		c, v := b[k].col, b[k].v
		k++
		for k < len(b) && b[k].col == c {
			v += b[k].v
			k++
		}
		if v != 0 {
			r.idx = append(r.idx, c)
			r.val = append(r.val, v)
		}
	}
	r.buf = b[:0]
}

// combine returns the CSR data and constants of Σ coefs[k]·terms[k], where
// every term has length n or 1 (broadcast). Terms must be materialized.
func combine(n int, terms []*expr, coefs []float64) (ptr, idx []int, val, cst []float64) {
	// Constants.
	for k, t := range terms {
		if t.cst == nil || coefs[k] == 0 {
			continue
		}
		if cst == nil {
			cst = make([]float64, n)
		}
		a := coefs[k]
		if t.n == n {
			for i, c := range t.cst {
				cst[i] += a * c
			}
		} else {
			for i := range cst {
				cst[i] += a * t.cst[0]
			}
		}
	}
	// Fast path: at most one term has coefficients and it has full length.
	var with []int
	total := 0
	for k, t := range terms {
		if t.nnz() > 0 && coefs[k] != 0 {
			with = append(with, k)
			if t.n == n {
				total += t.nnz()
			} else {
				total += n * t.nnz()
			}
		}
	}
	if len(with) == 0 {
		return make([]int, n+1), nil, nil, cst
	}
	if len(with) == 1 && terms[with[0]].n == n {
		t, a := terms[with[0]], coefs[with[0]]
		if a == 1 {
			return t.ptr, t.idx, t.val, cst
		}
		val = make([]float64, len(t.val))
		underflow := false
		for p, v := range t.val {
			val[p] = a * v
			underflow = underflow || val[p] == 0
		}
		if !underflow {
			return t.ptr, t.idx, val, cst
		}
		// A product underflowed to zero: take the general path, which drops it.
	}
	rb := rowBuf{idx: make([]int, 0, total), val: make([]float64, 0, total)}
	ptr = make([]int, n+1)
	for i := 0; i < n; i++ {
		for _, k := range with {
			t, a := terms[k], coefs[k]
			r := i
			if t.n != n {
				r = 0
			}
			for p := t.ptr[r]; p < t.ptr[r+1]; p++ {
				rb.add(t.idx[p], a*t.val[p])
			}
		}
		rb.flush()
		ptr[i+1] = len(rb.idx)
	}
	return ptr, rb.idx, rb.val, cst
}

// node returns the expression's node, or an empty node for the zero Expr.
func (e Expr) node() *expr {
	if e.x == nil {
		return &expr{n: 0, rows: 0, cols: 1, ptr: []int{0}}
	}
	return e.x
}

// Len returns the number of entries.
func (e Expr) Len() int {
	if e.x == nil {
		return 0
	}
	return e.x.n
}

// Shape returns (rows, cols); vectors have shape (Len, 1).
func (e Expr) Shape() (rows, cols int) {
	if e.x == nil {
		return 0, 1
	}
	return e.x.rows, e.x.cols
}

// Err returns the error carried by the expression, or nil.
func (e Expr) Err() error {
	if e.x == nil {
		return nil
	}
	return e.x.err
}

// Model returns the model whose variables occur in e, or nil for a constant
// expression.
func (e Expr) Model() *Model {
	if e.x == nil {
		return nil
	}
	return e.x.m
}

// Nnz returns the number of nonzero coefficients of A (materializing e).
func (e Expr) Nnz() int {
	if e.x == nil {
		return 0
	}
	return e.x.data().nnz()
}

// Constant returns a copy of the constant vector c.
func (e Expr) Constant() []float64 {
	d := e.node().data()
	c := make([]float64, d.n)
	copy(c, d.cst)
	return c
}

// Terms calls fn(col, coef) for every nonzero coefficient of row i of A, in
// increasing column order. It does nothing if i is out of range.
func (e Expr) Terms(i int, fn func(col int, coef float64)) {
	d := e.node().data()
	if i < 0 || i >= d.n {
		return
	}
	for p := d.ptr[i]; p < d.ptr[i+1]; p++ {
		fn(d.idx[p], d.val[p])
	}
}

// Eval returns A·x + c for a standard-form column vector x (indexed by
// Var.Col). It returns nil if x is shorter than a column index used by e.
// It is meant for tests and for evaluating expressions at points that are not
// solver results; see Result.ExprValue for solved models.
//
// Parameter terms take the model's current parameter values.
func (e Expr) Eval(x []float64) []float64 {
	d := e.node().data()
	var theta []float64
	if d.m != nil {
		theta = d.m.paramVal
	}
	return d.eval(x, theta)
}

// eval returns A·x + c with parameter columns taking the values theta.
func (d *expr) eval(x, theta []float64) []float64 {
	out := make([]float64, d.n)
	for i := 0; i < d.n; i++ {
		s := d.constAt(i)
		for p := d.ptr[i]; p < d.ptr[i+1]; p++ {
			j := d.idx[p]
			if j < 0 {
				if g := paramIndex(j); g < len(theta) {
					s += d.val[p] * theta[g]
					continue
				}
				return nil
			}
			if j >= len(x) {
				return nil
			}
			s += d.val[p] * x[j]
		}
		out[i] = s
	}
	return out
}

// errExpr returns an expression carrying err (recorded in m when non-nil).
func (m *Model) errExpr(err error) Expr {
	m.recordErr(err)
	return Expr{&expr{m: m, err: err, ptr: []int{0}, cols: 1}}
}

// errLike returns an expression of e's length carrying err.
func errLike(m *Model, n, rows, cols int, err error) Expr {
	m.recordErr(err)
	return Expr{&expr{m: m, n: n, rows: rows, cols: cols, err: err, ptr: make([]int, n+1)}}
}

// joinModel returns the common model of a and b (nil if both constant) or an
// error if they belong to different models.
func joinModel(op string, a, b *expr) (*Model, error) {
	switch {
	case a.m == nil:
		return b.m, nil
	case b.m == nil || a.m == b.m:
		return a.m, nil
	}
	return a.m, errf(ErrModelMismatch, "%s: operands belong to models %q and %q", op, a.m.name, b.m.name)
}

// checkFinite returns ErrNotFinite naming op and the position if a value is NaN
// or infinite.
func checkFinite(op, what string, vals []float64) error {
	for i, v := range vals {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return errf(ErrNotFinite, "%s: %s[%d] is %v, must be finite", op, what, i, v)
		}
	}
	return nil
}

// newDense returns a materialized node.
func newNode(m *Model, n int, ptr, idx []int, val, cst []float64) *expr {
	return &expr{m: m, n: n, rows: n, cols: 1, ptr: ptr, idx: idx, val: val, cst: cst}
}

// Const returns the constant vector expression (vals…) (no variables).
// NaN or infinite values give an expression carrying ErrNotFinite.
func Const(vals ...float64) Expr {
	if err := checkFinite("Const", "vals", vals); err != nil {
		return errLike(nil, len(vals), len(vals), 1, err)
	}
	n := len(vals)
	return Expr{newNode(nil, n, zeroPtr(n), nil, nil, slices.Clone(vals))}
}

// Zeros returns the constant zero vector of length n (n ≥ 0).
func Zeros(n int) Expr {
	if n < 0 {
		return errLike(nil, 0, 0, 1, errf(ErrInvalidArgument, "Zeros: n is %d, must be ≥ 0", n))
	}
	return Expr{newNode(nil, n, zeroPtr(n), nil, nil, nil)}
}

// zeroPtr returns the row pointers of n empty rows (shared for n = 1).
func zeroPtr(n int) []int {
	if n == 1 {
		return ptrEmpty
	}
	return make([]int, n+1)
}

// ConstMatrix returns the constant r×c matrix expression with the entries of a
// (row-major).
func ConstMatrix(a mat.Matrix) Expr {
	if a == nil {
		return errLike(nil, 0, 0, 1, errf(ErrInvalidArgument, "ConstMatrix: matrix is nil"))
	}
	r, c := a.Dims()
	vals := make([]float64, r*c)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			vals[i*c+j] = a.At(i, j)
		}
	}
	e := Const(vals...)
	e.x.rows, e.x.cols = r, c
	return e
}

// Add returns e + o. Lengths must be equal, or one of them 1 (broadcast); the
// result has the shape of the longer operand (of e if equal). O(1): the merge
// is deferred until the coefficients are needed.
func (e Expr) Add(o Expr) Expr { return e.addScaled("Add", o, 1) }

// Sub returns e − o, with the broadcasting rules of Add.
func (e Expr) Sub(o Expr) Expr { return e.addScaled("Sub", o, -1) }

// AddScaled returns e + a·o, with the broadcasting rules of Add.
func (e Expr) AddScaled(a float64, o Expr) Expr { return e.addScaled("AddScaled", o, a) }

func (e Expr) addScaled(op string, o Expr, a float64) Expr {
	// The zero Expr is 0 of any length: `var sum model.Expr; sum = sum.Add(t)`.
	switch {
	case o.x == nil:
		return e
	case e.x == nil && a == 1:
		return o
	case e.x == nil:
		return o.Scale(a)
	}
	x, y := e.node(), o.node()
	m, err := joinModel(op, x, y)
	if err == nil {
		err = firstErr(x.err, y.err)
	}
	n, rows, cols := x.n, x.rows, x.cols
	if err == nil {
		switch {
		case x.n == y.n:
		case x.n == 1:
			n, rows, cols = y.n, y.rows, y.cols
		case y.n == 1:
		default:
			err = errf(ErrDimension, "%s: lengths %d and %d differ (only length-1 expressions broadcast)", op, x.n, y.n)
		}
	}
	if err == nil && (math.IsNaN(a) || math.IsInf(a, 0)) {
		err = errf(ErrNotFinite, "%s: scale is %v, must be finite", op, a)
	}
	if err != nil {
		return errLike(m, n, rows, cols, err)
	}
	if x.n != n {
		// Broadcast the receiver: materialize now (it is length 1, cheap).
		return Expr{materialized(m, n, rows, cols, []*expr{x.data(), y.data()}, []float64{1, a})}
	}
	return Expr{&expr{m: m, n: n, rows: rows, cols: cols, lz: &lazySum{prev: x, term: y, coef: a}}}
}

func materialized(m *Model, n, rows, cols int, terms []*expr, coefs []float64) *expr {
	d := &expr{m: m, n: n, rows: rows, cols: cols}
	d.ptr, d.idx, d.val, d.cst = combine(n, terms, coefs)
	return d
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// Sum returns Σᵢ e[i] as a length-1 expression. O(nnz·log) at worst; linear
// when the rows' columns are increasing (e.g. a variable vector).
func (e Expr) Sum() Expr {
	d := e.node().data()
	if d.err != nil {
		return errLike(d.m, 1, 1, 1, d.err)
	}
	w := make([]float64, d.n)
	for i := range w {
		w[i] = 1
	}
	return e.dot("Sum", w)
}

// Dot returns wᵀe = Σᵢ w[i]·e[i] as a length-1 expression; len(w) must equal
// Len.
func (e Expr) Dot(w []float64) Expr { return e.dot("Dot", w) }

func (e Expr) dot(op string, w []float64) Expr {
	d := e.node().data()
	if d.err != nil {
		return errLike(d.m, 1, 1, 1, d.err)
	}
	if len(w) != d.n {
		return errLike(d.m, 1, 1, 1, errf(ErrDimension, "%s: len(w) = %d, expression has length %d", op, len(w), d.n))
	}
	if err := checkFinite(op, "w", w); err != nil {
		return errLike(d.m, 1, 1, 1, err)
	}
	var c float64
	for i := 0; i < d.n; i++ {
		c += w[i] * d.constAt(i)
	}
	// Fast path: the columns, read row after row, are strictly increasing
	// (e.g. a slice or an increasing Pick of a variable vector), so the
	// products can be written out directly.
	idx, val := make([]int, 0, d.nnz()), make([]float64, 0, d.nnz())
	sorted := true
	last := -1
	for i := 0; i < d.n && sorted; i++ {
		if w[i] == 0 {
			continue
		}
		for p := d.ptr[i]; p < d.ptr[i+1]; p++ {
			if d.idx[p] <= last {
				sorted = false
				break
			}
			last = d.idx[p]
			if v := w[i] * d.val[p]; v != 0 {
				idx = append(idx, d.idx[p])
				val = append(val, v)
			}
		}
	}
	if !sorted {
		rb := rowBuf{buf: make([]entry, 0, d.nnz()), idx: idx[:0], val: val[:0]}
		for i := 0; i < d.n; i++ {
			if w[i] == 0 {
				continue
			}
			for p := d.ptr[i]; p < d.ptr[i+1]; p++ {
				rb.add(d.idx[p], w[i]*d.val[p])
			}
		}
		rb.flush()
		idx, val = rb.idx, rb.val
	}
	rb := rowBuf{idx: idx, val: val}
	var cst []float64
	if c != 0 {
		cst = []float64{c}
	}
	return Expr{newNode(d.m, 1, []int{0, len(rb.idx)}, rb.idx, rb.val, cst)}
}

// Scale returns a·e (same shape). a must be finite.
func (e Expr) Scale(a float64) Expr {
	d := e.node().data()
	if d.err != nil {
		return Expr{d}
	}
	if math.IsNaN(a) || math.IsInf(a, 0) {
		return errLike(d.m, d.n, d.rows, d.cols, errf(ErrNotFinite, "Scale: factor is %v, must be finite", a))
	}
	r := materialized(d.m, d.n, d.rows, d.cols, []*expr{d}, []float64{a})
	return Expr{r}
}

// Neg returns −e.
func (e Expr) Neg() Expr { return e.Scale(-1) }

// MulElem returns the elementwise product w ⊙ e (same shape); len(w) must equal
// Len.
func (e Expr) MulElem(w []float64) Expr {
	d := e.node().data()
	if d.err != nil {
		return Expr{d}
	}
	if len(w) != d.n {
		return errLike(d.m, d.n, d.rows, d.cols, errf(ErrDimension, "MulElem: len(w) = %d, expression has length %d", len(w), d.n))
	}
	if err := checkFinite("MulElem", "w", w); err != nil {
		return errLike(d.m, d.n, d.rows, d.cols, err)
	}
	r := &expr{m: d.m, n: d.n, rows: d.rows, cols: d.cols, ptr: make([]int, d.n+1)}
	r.idx = make([]int, 0, d.nnz())
	r.val = make([]float64, 0, d.nnz())
	if d.cst != nil {
		r.cst = make([]float64, d.n)
	}
	for i := 0; i < d.n; i++ {
		if w[i] != 0 {
			for p := d.ptr[i]; p < d.ptr[i+1]; p++ {
				if v := w[i] * d.val[p]; v != 0 {
					r.idx = append(r.idx, d.idx[p])
					r.val = append(r.val, v)
				}
			}
			if d.cst != nil {
				r.cst[i] = w[i] * d.cst[i]
			}
		}
		r.ptr[i+1] = len(r.idx)
	}
	return Expr{r}
}

// At returns entry i as a length-1 expression.
func (e Expr) At(i int) Expr {
	d := e.node()
	if d.err == nil && (i < 0 || i >= d.n) {
		return errLike(d.m, 1, 1, 1, errf(ErrDimension, "At: index %d out of range [0,%d)", i, d.n))
	}
	return e.Slice(i, i+1)
}

// Entry returns entry (i, j) of a matrix expression as a length-1 expression.
func (e Expr) Entry(i, j int) Expr {
	d := e.node()
	if d.err == nil && (i < 0 || i >= d.rows || j < 0 || j >= d.cols) {
		return errLike(d.m, 1, 1, 1, errf(ErrDimension, "Entry: (%d,%d) out of range for shape %d×%d", i, j, d.rows, d.cols))
	}
	return e.Slice(i*d.cols+j, i*d.cols+j+1)
}

// Slice returns entries lo..hi−1 as a vector expression (0 ≤ lo ≤ hi ≤ Len).
// The coefficient arrays are shared with e, so slicing costs O(hi − lo).
func (e Expr) Slice(lo, hi int) Expr {
	d := e.node()
	if d.err != nil {
		return errLike(d.m, max(hi-lo, 0), max(hi-lo, 0), 1, d.err)
	}
	if lo < 0 || hi < lo || hi > d.n {
		return errLike(d.m, 0, 0, 1, errf(ErrDimension, "Slice: [%d:%d] out of range for length %d", lo, hi, d.n))
	}
	d = d.data()
	n := hi - lo
	base := d.ptr[lo]
	var ptr []int
	switch {
	case n == 1 && d.ptr[hi]-base == 1:
		ptr = ptrOne
	case n == 1 && d.ptr[hi] == base:
		ptr = ptrEmpty
	default:
		ptr = make([]int, n+1)
		for i := 0; i <= n; i++ {
			ptr[i] = d.ptr[lo+i] - base
		}
	}
	var cst []float64
	if d.cst != nil {
		cst = d.cst[lo:hi:hi]
	}
	end := d.ptr[hi]
	return Expr{newNode(d.m, n, ptr, d.idx[base:end:end], d.val[base:end:end], cst)}
}

// Pick returns the vector expression (e[idx[0]], e[idx[1]], …); indices may
// repeat.
func (e Expr) Pick(idx []int) Expr {
	d := e.node()
	if d.err != nil {
		return errLike(d.m, len(idx), len(idx), 1, d.err)
	}
	for k, i := range idx {
		if i < 0 || i >= d.n {
			return errLike(d.m, len(idx), len(idx), 1, errf(ErrDimension, "Pick: idx[%d] = %d out of range [0,%d)", k, i, d.n))
		}
	}
	d = d.data()
	n := len(idx)
	r := newNode(d.m, n, make([]int, n+1), nil, nil, nil)
	total := 0
	for _, i := range idx {
		total += d.ptr[i+1] - d.ptr[i]
	}
	r.idx = make([]int, 0, total)
	r.val = make([]float64, 0, total)
	if d.cst != nil {
		r.cst = make([]float64, n)
	}
	for k, i := range idx {
		r.idx = append(r.idx, d.idx[d.ptr[i]:d.ptr[i+1]]...)
		r.val = append(r.val, d.val[d.ptr[i]:d.ptr[i+1]]...)
		r.ptr[k+1] = len(r.idx)
		if d.cst != nil {
			r.cst[k] = d.cst[i]
		}
	}
	return Expr{r}
}

// Reshape returns e viewed as an r×c matrix (entries row-major); r·c must equal
// e.Len(). The data is shared.
func Reshape(e Expr, r, c int) Expr {
	d := e.node()
	if d.err != nil {
		return errLike(d.m, d.n, d.rows, d.cols, d.err)
	}
	if r < 0 || c < 0 || r*c != d.n {
		return errLike(d.m, d.n, d.rows, d.cols, errf(ErrDimension, "Reshape: %d×%d does not hold %d entries", r, c, d.n))
	}
	d = d.data()
	return Expr{&expr{m: d.m, n: d.n, rows: r, cols: c, ptr: d.ptr, idx: d.idx, val: d.val, cst: d.cst}}
}

// T returns the transpose of a matrix expression (a vector of length n, shape
// n×1, becomes a 1×n row).
func (e Expr) T() Expr {
	d := e.node()
	if d.err != nil {
		return errLike(d.m, d.n, d.cols, d.rows, d.err)
	}
	perm := make([]int, d.n)
	for i := 0; i < d.rows; i++ {
		for j := 0; j < d.cols; j++ {
			perm[j*d.rows+i] = i*d.cols + j
		}
	}
	t := e.Pick(perm).x
	t.rows, t.cols = d.cols, d.rows
	return Expr{t}
}

// isSelection reports whether every row of d is a single coefficient 1 on a
// column larger than the previous row's, with no constants.
func isSelection(d *expr) bool {
	if d.cst != nil || d.nnz() != d.n {
		return false
	}
	for i := 0; i < d.n; i++ {
		if d.ptr[i+1] != i+1 || d.val[i] != 1 || (i > 0 && d.idx[i] <= d.idx[i-1]) {
			return false
		}
	}
	return true
}

// Stack returns the vertical concatenation of es as one vector expression. It
// costs O(total size) however many operands there are.
func Stack(es ...Expr) Expr {
	var m *Model
	n, nnz := 0, 0
	haveCst := false
	for k, e := range es {
		d := e.node()
		if d.m != nil {
			if m != nil && m != d.m {
				return errLike(m, 0, 0, 1, errf(ErrModelMismatch, "Stack: operand %d belongs to model %q, operand before to %q", k, d.m.name, m.name))
			}
			m = d.m
		}
		if d.err != nil {
			return errLike(m, 0, 0, 1, d.err)
		}
		d = d.data()
		n += d.n
		nnz += d.nnz()
		haveCst = haveCst || d.cst != nil
	}
	r := newNode(m, n, make([]int, n+1), make([]int, 0, nnz), make([]float64, 0, nnz), nil)
	if haveCst {
		r.cst = make([]float64, n)
	}
	row := 0
	for _, e := range es {
		d := e.node().data()
		r.idx = append(r.idx, d.idx[:d.nnz()]...)
		r.val = append(r.val, d.val[:d.nnz()]...)
		base := r.ptr[row]
		for i := 1; i <= d.n; i++ {
			r.ptr[row+i] = base + d.ptr[i]
		}
		if d.cst != nil {
			copy(r.cst[row:], d.cst)
		}
		row += d.n
	}
	return Expr{r}
}

// AddAll returns Σₖ es[k] (equal lengths, or length 1 broadcast) in one merge,
// O(total size · log) at worst.
func AddAll(es ...Expr) Expr {
	es = slices.DeleteFunc(slices.Clone(es), func(e Expr) bool { return e.x == nil })
	if len(es) == 0 {
		return Expr{}
	}
	var m *Model
	n := 1
	rows, cols := 1, 1
	for k, e := range es {
		d := e.node()
		if d.m != nil {
			if m != nil && m != d.m {
				return errLike(m, 0, 0, 1, errf(ErrModelMismatch, "AddAll: operand %d belongs to model %q, an earlier one to %q", k, d.m.name, m.name))
			}
			m = d.m
		}
		if d.err != nil {
			return errLike(m, d.n, d.rows, d.cols, d.err)
		}
		if d.n != 1 {
			if n != 1 && d.n != n {
				return errLike(m, n, rows, cols, errf(ErrDimension, "AddAll: operand %d has length %d, earlier ones %d", k, d.n, n))
			}
			if n == 1 {
				n, rows, cols = d.n, d.rows, d.cols
			}
		}
	}
	if len(es) == 1 {
		return es[0]
	}
	terms := make([]*expr, len(es))
	coefs := make([]float64, len(es))
	for k, e := range es {
		terms[k] = e.node().data()
		coefs[k] = 1
	}
	return Expr{materialized(m, n, rows, cols, terms, coefs)}
}

// MulDense returns the product A·e of a p×n dense matrix and an expression of
// length n (treated as a vector), a vector expression of length p. Cost
// O(p·nnz(e)) plus sorting.
func MulDense(a mat.Matrix, e Expr) Expr {
	d := e.node()
	if a == nil {
		return errLike(d.m, 0, 0, 1, errf(ErrInvalidArgument, "MulDense: A is nil"))
	}
	p, n := a.Dims()
	if d.err != nil {
		return errLike(d.m, p, p, 1, d.err)
	}
	if n != d.n {
		return errLike(d.m, p, p, 1, errf(ErrDimension, "MulDense: A is %d×%d, expression has length %d", p, n, d.n))
	}
	d = d.data()
	r := newNode(d.m, p, make([]int, p+1), nil, nil, nil)
	if d.cst != nil {
		r.cst = make([]float64, p)
	}
	// A dense A gives about p·nnz(e) coefficients; reserve them (capped, the
	// slices grow if needed).
	est := min(p*d.nnz(), 1<<22)
	rb := rowBuf{idx: make([]int, 0, est), val: make([]float64, 0, est)}
	for i := 0; i < p; i++ {
		var c float64
		for j := 0; j < n; j++ {
			aij := a.At(i, j)
			if aij == 0 {
				continue
			}
			if math.IsNaN(aij) || math.IsInf(aij, 0) {
				return errLike(d.m, p, p, 1, errf(ErrNotFinite, "MulDense: A[%d,%d] is %v, must be finite", i, j, aij))
			}
			c += aij * d.constAt(j)
			for q := d.ptr[j]; q < d.ptr[j+1]; q++ {
				rb.add(d.idx[q], aij*d.val[q])
			}
		}
		rb.flush()
		r.ptr[i+1] = len(rb.idx)
		if r.cst != nil {
			r.cst[i] = c
		}
	}
	r.idx, r.val = rb.idx, rb.val
	return Expr{r}
}

// MulSparse returns the product A·e of a p×n sparse matrix and an expression
// of length n (treated as a vector), a vector expression of length p. Cost
// O(Σ over entries a_ij of nnz(row j of e)) plus sorting; for e a variable
// vector it is O(nnz(A)).
func MulSparse(a *sparse.CSC, e Expr) Expr {
	d := e.node()
	if a == nil {
		return errLike(d.m, 0, 0, 1, errf(ErrInvalidArgument, "MulSparse: A is nil"))
	}
	p, n := a.Rows, a.Cols
	if d.err != nil {
		return errLike(d.m, p, p, 1, d.err)
	}
	if n != d.n {
		return errLike(d.m, p, p, 1, errf(ErrDimension, "MulSparse: A is %d×%d, expression has length %d", p, n, d.n))
	}
	if err := a.Validate(); err != nil {
		return errLike(d.m, p, p, 1, errf(ErrInvalidArgument, "MulSparse: %v", err))
	}
	d = d.data()
	at := a.Transpose() // CSR of A: column i of at is row i of A
	if isSelection(d) {
		// e = (x_{k₀}, x_{k₁}, …) with k increasing (a variable or a slice of
		// one): the rows of A·e are the rows of A with column j renamed kⱼ,
		// still sorted, so the transpose's arrays become the result.
		zero := false
		for q, j := range at.RowIdx {
			at.RowIdx[q] = d.idx[j]
			zero = zero || at.Val[q] == 0
		}
		if !zero {
			return Expr{newNode(d.m, p, at.ColPtr, at.RowIdx, at.Val, nil)}
		}
		at = a.Transpose()
	}
	total := 0
	for q := 0; q < at.Nnz(); q++ {
		j := at.RowIdx[q]
		total += d.ptr[j+1] - d.ptr[j]
	}
	r := newNode(d.m, p, make([]int, p+1), nil, nil, nil)
	if d.cst != nil {
		r.cst = make([]float64, p)
	}
	rb := rowBuf{idx: make([]int, 0, total), val: make([]float64, 0, total)}
	for i := 0; i < p; i++ {
		var c float64
		for q := at.ColPtr[i]; q < at.ColPtr[i+1]; q++ {
			j, aij := at.RowIdx[q], at.Val[q]
			c += aij * d.constAt(j)
			for s := d.ptr[j]; s < d.ptr[j+1]; s++ {
				rb.add(d.idx[s], aij*d.val[s])
			}
		}
		rb.flush()
		r.ptr[i+1] = len(rb.idx)
		if r.cst != nil {
			r.cst[i] = c
		}
	}
	r.idx, r.val = rb.idx, rb.val
	return Expr{r}
}
