package model

import (
	"fmt"
	"math"
	"sync"
)

// Model is a convex optimization model under construction: variables,
// constraints and an objective. Build it from one goroutine; once built it may be
// canonicalized and solved from several goroutines at once (Canonicalize and
// Solve only read it).
//
// Errors made while building (dimension mismatches, NaN data, duplicate names)
// do not panic: the first one is recorded and returned by Err, Canonicalize and
// Solve.
type Model struct {
	name string

	vars     []*Var
	ncols    int // number of user columns (standard-form variables)
	varNames map[string]*Var

	cons     []*Constraint
	conNames map[string]*Constraint

	// Column bounds, allocated on the first call to Bound/SetBounds; nil means
	// every column is free.
	lower, upper []float64

	obj objective

	naux int // auxiliary names handed out (atoms' epigraph variables)

	params     []*Param
	paramVal   []float64 // current values, global index
	paramNames map[string]*Param

	mu  sync.Mutex // guards err: expressions may record errors from any goroutine
	err error
}

// New returns an empty model. The name is informational (used in error
// messages and exports).
func New(name string) *Model {
	return &Model{name: name, varNames: map[string]*Var{}, conNames: map[string]*Constraint{}}
}

// Name returns the model's name.
func (m *Model) Name() string { return m.name }

// Err returns the first error recorded while building the model, or nil.
func (m *Model) Err() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.err
}

// recordErr keeps err if it is the first error of the model.
func (m *Model) recordErr(err error) {
	if m == nil || err == nil {
		return
	}
	m.mu.Lock()
	if m.err == nil {
		m.err = err
	}
	m.mu.Unlock()
}

// NumVars returns the number of scalar user variables (standard-form columns
// before any auxiliary columns added by canonicalization).
func (m *Model) NumVars() int { return m.ncols }

// Vars returns the model's variables in creation order. The slice is a copy.
func (m *Model) Vars() []*Var { return append([]*Var(nil), m.vars...) }

// Constraints returns the model's constraints in creation order. The slice is a
// copy.
func (m *Model) Constraints() []*Constraint { return append([]*Constraint(nil), m.cons...) }

// VarByName returns the variable with the given name, or nil.
func (m *Model) VarByName(name string) *Var { return m.varNames[name] }

// ConstraintByName returns the constraint with the given name, or nil.
func (m *Model) ConstraintByName(name string) *Constraint { return m.conNames[name] }

// varKind distinguishes general from symmetric matrix variables.
type varKind int

const (
	varDense     varKind = iota // one column per entry (scalar, vector, matrix)
	varSymmetric                // n×n symmetric: one column per lower-triangular entry
)

// Var is a block of scalar decision variables of one model: a scalar, a vector,
// an r×c matrix (entries in row-major order) or an n×n symmetric matrix. Entry i
// of the variable (row-major for matrices) is standard-form column Col(i).
// Variables occupy columns in creation order: a plain (non-symmetric) variable
// with n entries occupies columns Col(0), …, Col(0)+n−1; a symmetric n×n
// variable occupies n(n+1)/2 consecutive columns, one per lower-triangular entry
// in column-major order, and entries (i,j) and (j,i) share a column.
type Var struct {
	m          *Model
	name       string
	index      int // position in m.vars
	start      int // first column
	ncols      int // number of columns occupied
	rows, cols int // shape
	kind       varKind

	exprOnce sync.Once
	expr     *expr // the variable as an expression, built on first use
}

// Scalar adds a scalar variable. An empty name is replaced by "x<k>" (k the
// variable's index); a name already used by another variable records
// ErrInvalidName.
func (m *Model) Scalar(name string) *Var { return m.addVar(name, 1, 1, varDense, "Scalar") }

// Vector adds a vector variable with n entries (n ≥ 0).
func (m *Model) Vector(name string, n int) *Var { return m.addVar(name, n, 1, varDense, "Vector") }

// Matrix adds an r×c matrix variable; entry (i,j) is entry i·c+j (row-major).
func (m *Model) Matrix(name string, r, c int) *Var { return m.addVar(name, r, c, varDense, "Matrix") }

// Symmetric adds an n×n symmetric matrix variable with n(n+1)/2 free scalars.
// Its expression (Expr) is the full n×n matrix in row-major order, so it can be
// used directly in PSD constraints.
func (m *Model) Symmetric(name string, n int) *Var {
	return m.addVar(name, n, n, varSymmetric, "Symmetric")
}

func (m *Model) addVar(name string, r, c int, kind varKind, op string) *Var {
	v := &Var{m: m, index: len(m.vars), start: m.ncols, kind: kind}
	if r < 0 || c < 0 {
		m.recordErr(errf(ErrInvalidArgument, "%s %q: size %d×%d is negative", op, name, r, c))
		r, c = 0, 0
	}
	v.rows, v.cols = r, c
	if kind == varSymmetric {
		v.ncols = r * (r + 1) / 2
	} else {
		v.ncols = r * c
	}
	if name == "" {
		name = fmt.Sprintf("x%d", v.index)
		for m.varNames[name] != nil {
			name += "_"
		}
	} else if m.varNames[name] != nil {
		m.recordErr(errf(ErrInvalidName, "%s: variable name %q is already used", op, name))
	}
	v.name = name
	if m.varNames[name] == nil {
		m.varNames[name] = v
	}
	m.vars = append(m.vars, v)
	m.ncols += v.ncols
	if m.lower != nil {
		for k := 0; k < v.ncols; k++ {
			m.lower = append(m.lower, math.Inf(-1))
			m.upper = append(m.upper, math.Inf(1))
		}
	}
	return v
}

// Name returns the variable's name.
func (v *Var) Name() string { return v.name }

// Model returns the model the variable belongs to.
func (v *Var) Model() *Model { return v.m }

// Len returns the number of entries: n for a vector, r·c for a matrix, n² for a
// symmetric n×n matrix.
func (v *Var) Len() int { return v.rows * v.cols }

// Shape returns (rows, cols); a vector of length n has shape (n, 1).
func (v *Var) Shape() (rows, cols int) { return v.rows, v.cols }

// NumColumns returns the number of standard-form columns the variable occupies
// (Len for plain variables, n(n+1)/2 for symmetric ones); they are the
// consecutive columns starting at Col(0).
func (v *Var) NumColumns() int { return v.ncols }

// Col returns the standard-form column of entry i (row-major for matrices). It
// returns −1 if i is out of range.
func (v *Var) Col(i int) int {
	if i < 0 || i >= v.Len() {
		return -1
	}
	if v.kind == varSymmetric {
		r, c := i/v.cols, i%v.cols
		return v.start + triIndex(v.rows, r, c)
	}
	return v.start + i
}

// triIndex returns the position of entry (i,j) of a symmetric n×n matrix in the
// column-major lower-triangular order (the svec order of package cone).
func triIndex(n, i, j int) int {
	if i < j {
		i, j = j, i
	}
	// column j starts after columns 0..j-1, which hold n, n-1, …, n-j+1 entries.
	return j*n - j*(j-1)/2 + (i - j)
}

// Expr returns the variable as an expression of the same shape (row-major for
// matrices). It is built on the first call and shared afterwards (expressions
// are immutable), so x.Expr().Slice(i, j) in a loop costs O(j − i).
func (v *Var) Expr() Expr {
	v.exprOnce.Do(func() {
		n := v.Len()
		d := &expr{m: v.m, n: n, rows: v.rows, cols: v.cols}
		d.ptr = make([]int, n+1)
		d.idx = make([]int, n)
		d.val = make([]float64, n)
		for i := 0; i < n; i++ {
			d.ptr[i+1] = i + 1
			d.idx[i] = v.Col(i)
			d.val[i] = 1
		}
		v.expr = d
	})
	return Expr{v.expr}
}

// At returns entry i of the variable as a length-1 expression.
func (v *Var) At(i int) Expr {
	if i < 0 || i >= v.Len() {
		return v.m.errExpr(errf(ErrDimension, "variable %q: index %d out of range [0,%d)", v.name, i, v.Len()))
	}
	d := v.Expr().x
	return Expr{&expr{m: v.m, n: 1, rows: 1, cols: 1, ptr: ptrOne, idx: d.idx[i : i+1 : i+1], val: d.val[i : i+1 : i+1]}}
}

// Entry returns entry (i, j) of a matrix variable as a length-1 expression.
func (v *Var) Entry(i, j int) Expr {
	if i < 0 || i >= v.rows || j < 0 || j >= v.cols {
		return v.m.errExpr(errf(ErrDimension, "variable %q: entry (%d,%d) out of range for shape %d×%d", v.name, i, j, v.rows, v.cols))
	}
	return v.At(i*v.cols + j)
}

// Slice returns entries lo..hi−1 as a vector expression.
func (v *Var) Slice(lo, hi int) Expr { return v.Expr().Slice(lo, hi) }

// SetBounds sets lo[i] ≤ entry i ≤ hi[i] for every entry (±Inf allowed). Bounds
// are not special in the standard form: canonicalization turns every finite
// bound into one nonnegative row (x ≥ lo as −x + s = −lo, x ≤ hi as x + s = hi),
// placed after all constraint rows; the HiGHS backend turns such singleton rows
// back into column bounds. For symmetric variables, the bounds of entries (i,j)
// and (j,i) are intersected. Lengths must equal Len (ErrDimension); lo > hi or
// NaN records ErrInvalidArgument. Setting bounds again replaces them.
func (v *Var) SetBounds(lo, hi []float64) {
	m := v.m
	if len(lo) != v.Len() || len(hi) != v.Len() {
		m.recordErr(errf(ErrDimension, "SetBounds on %q: len(lo) = %d, len(hi) = %d, want %d", v.name, len(lo), len(hi), v.Len()))
		return
	}
	for i := range lo {
		if math.IsNaN(lo[i]) || math.IsNaN(hi[i]) || lo[i] > hi[i] || math.IsInf(lo[i], 1) || math.IsInf(hi[i], -1) {
			m.recordErr(errf(ErrInvalidArgument, "SetBounds on %q: entry %d has bounds [%v, %v], want lo ≤ hi, lo < +Inf, hi > −Inf", v.name, i, lo[i], hi[i]))
			return
		}
	}
	m.ensureBounds()
	for k := v.start; k < v.start+v.ncols; k++ {
		m.lower[k], m.upper[k] = math.Inf(-1), math.Inf(1)
	}
	for i := range lo {
		k := v.Col(i)
		m.lower[k] = math.Max(m.lower[k], lo[i])
		m.upper[k] = math.Min(m.upper[k], hi[i])
		if m.lower[k] > m.upper[k] {
			m.recordErr(errf(ErrInvalidArgument, "SetBounds on %q: symmetric entries give empty bounds [%v, %v] at entry %d", v.name, m.lower[k], m.upper[k], i))
			return
		}
	}
}

// Bound sets lo ≤ v[i] ≤ hi for every entry of v (±Inf allowed); see
// Var.SetBounds for how bounds enter the standard form.
func (m *Model) Bound(v *Var, lo, hi float64) {
	if v == nil || v.m != m {
		m.recordErr(errf(ErrModelMismatch, "Bound: variable is nil or belongs to another model"))
		return
	}
	n := v.Len()
	l, h := make([]float64, n), make([]float64, n)
	for i := range l {
		l[i], h[i] = lo, hi
	}
	v.SetBounds(l, h)
}

// Bounds returns copies of the lower and upper bounds of v's entries (−Inf/+Inf
// where unbounded).
func (v *Var) Bounds() (lo, hi []float64) {
	n := v.Len()
	lo, hi = make([]float64, n), make([]float64, n)
	for i := 0; i < n; i++ {
		lo[i], hi[i] = math.Inf(-1), math.Inf(1)
		if v.m.lower != nil {
			lo[i], hi[i] = v.m.lower[v.Col(i)], v.m.upper[v.Col(i)]
		}
	}
	return lo, hi
}

func (m *Model) ensureBounds() {
	if m.lower != nil {
		return
	}
	m.lower = make([]float64, m.ncols)
	m.upper = make([]float64, m.ncols)
	for k := range m.lower {
		m.lower[k], m.upper[k] = math.Inf(-1), math.Inf(1)
	}
}
