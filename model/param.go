package model

import (
	"fmt"
	"slices"
)

// Param is a named vector of parameters: constants of a model whose values
// can change between solves without re-canonicalizing (as CVXPY's Parameter
// and JuMP's parameters). A parameter enters affine expressions like a
// variable (Param.Expr), but it is data: in the standard form its terms move
// to the right-hand side b (and, through AddObjectiveDot, to the objective
// coefficients q), so a constraint lhs ≤ p or lhs = p has a parametric
// right-hand side, x ≤ p a parametric bound, and pᵀx a parametric cost.
// Parameters may not enter quadratic terms (SumSquares, QuadForm) and count as
// constants in the DCP rules.
//
// Changing a value: Param.Set changes the model's value (used by the next
// Canonicalize or Solve); Canonical.SetParam and Prepared.SetParam change
// an already canonicalized problem in place (O(number of parameter terms)),
// and Prepared.Solve re-solves it, from the previous basis on HiGHS.
type Param struct {
	m    *Model
	name string
	off  int // first global parameter index
	n    int
	expr *expr
}

// paramCol returns the expression column of global parameter index g:
// parameters use the negative columns −1, −2, … (so they sort before every
// variable in a row, and no code that indexes variable columns sees them
// without looking).
func paramCol(g int) int { return -1 - g }

// paramIndex is the inverse of paramCol.
func paramIndex(col int) int { return -1 - col }

// Parameter adds a parameter vector with the given initial values (its length
// is len(values)); values must be finite (ErrNotFinite) and the name unused
// by another parameter (ErrInvalidName).
func (m *Model) Parameter(name string, values ...float64) *Param {
	p := &Param{m: m, name: name, off: len(m.paramVal), n: len(values)}
	if err := checkFinite("Parameter "+name, "values", values); err != nil {
		m.recordErr(err)
	}
	if m.paramNames == nil {
		m.paramNames = map[string]*Param{}
	}
	if m.paramNames[name] != nil {
		m.recordErr(errf(ErrInvalidName, "Parameter: name %q is already used", name))
	} else {
		m.paramNames[name] = p
	}
	m.params = append(m.params, p)
	m.paramVal = append(m.paramVal, values...)
	return p
}

// ParamByName returns the parameter with the given name, or nil.
func (m *Model) ParamByName(name string) *Param { return m.paramNames[name] }

// Name returns the parameter's name.
func (p *Param) Name() string { return p.name }

// Len returns the number of entries.
func (p *Param) Len() int { return p.n }

// Value returns a copy of the model's current values.
func (p *Param) Value() []float64 { return slices.Clone(p.m.paramVal[p.off : p.off+p.n]) }

// Set changes the model's values of p (used by later Canonicalize and Solve
// calls; a Canonical or Prepared made earlier keeps its own values: use
// their SetParam). It returns an error naming the bad value for a wrong
// length or a non-finite value.
func (p *Param) Set(values ...float64) error {
	if err := p.check("Param.Set", values); err != nil {
		return err
	}
	copy(p.m.paramVal[p.off:], values)
	return nil
}

func (p *Param) check(op string, values []float64) error {
	if len(values) != p.n {
		return errf(ErrDimension, "%s %q: %d values, parameter has %d", op, p.name, len(values), p.n)
	}
	return checkFinite(fmt.Sprintf("%s %q", op, p.name), "values", values)
}

// Expr returns the parameter as an affine expression (a vector of length
// Len); its value is the parameter's value at solve time.
func (p *Param) Expr() Expr {
	if p.expr == nil {
		d := &expr{m: p.m, n: p.n, rows: p.n, cols: 1, ptr: make([]int, p.n+1), idx: make([]int, p.n), val: make([]float64, p.n)}
		for i := 0; i < p.n; i++ {
			d.ptr[i+1] = i + 1
			d.idx[i] = paramCol(p.off + i)
			d.val[i] = 1
		}
		p.expr = d
	}
	return Expr{p.expr}
}

// At returns entry i as a length-1 expression.
func (p *Param) At(i int) Expr {
	if i < 0 || i >= p.n {
		return p.m.errExpr(errf(ErrDimension, "parameter %q: index %d out of range [0,%d)", p.name, i, p.n))
	}
	return p.Expr().Slice(i, i+1)
}

func (p *Param) fnode() *fnode {
	n := leafNode(p.Expr())
	n.text = p.name
	return n
}

// hasParams reports whether d has parameter terms.
func hasParams(d *expr) bool {
	for i := 0; i < d.n; i++ {
		if p := d.ptr[i]; p < d.ptr[i+1] && d.idx[p] < 0 {
			return true
		}
	}
	return false
}

// splitParams returns d's rows without their parameter terms, and the
// parameter terms (row-wise CSR over global parameter indices), or nil
// pptr when d has none. Parameter columns are negative, so they lead each row.
func splitParams(d *expr) (ptr, idx []int, val []float64, pptr, pidx []int, pval []float64) {
	if !hasParams(d) {
		return d.ptr, d.idx, d.val, nil, nil, nil
	}
	ptr, pptr = make([]int, d.n+1), make([]int, d.n+1)
	for i := 0; i < d.n; i++ {
		for p := d.ptr[i]; p < d.ptr[i+1]; p++ {
			if j := d.idx[p]; j < 0 {
				pidx = append(pidx, paramIndex(j))
				pval = append(pval, d.val[p])
			} else {
				idx = append(idx, j)
				val = append(val, d.val[p])
			}
		}
		ptr[i+1], pptr[i+1] = len(idx), len(pidx)
	}
	return ptr, idx, val, pptr, pidx, pval
}

// pdot is an objective term θ_pᵀe (AddObjectiveDot).
type pdot struct {
	p *Param
	e *expr
}

// AddObjectiveDot adds the parametric term pᵀe = Σᵢ pᵢ·e[i] to the objective
// set by Minimize, MinimizeFn, Maximize or MaximizeFn (in its sense: added to
// what is minimized or maximized); e is affine of length p.Len() without
// parameters. Call it after setting the objective (which clears such terms).
// In the standard form it makes the cost vector q (and constant r) affine in
// the parameter, so a cost change is Canonical.SetParam away.
func (m *Model) AddObjectiveDot(p *Param, e Expr) {
	if p == nil || p.m != m {
		m.recordErr(errf(ErrModelMismatch, "AddObjectiveDot: parameter is nil or belongs to another model"))
		return
	}
	d, err := m.use("AddObjectiveDot", "e", e)
	if err == nil && d.n != p.n {
		err = errf(ErrDimension, "AddObjectiveDot: e has length %d, parameter %q has %d", d.n, p.name, p.n)
	}
	if err == nil && hasParams(d) {
		err = errf(ErrInvalidArgument, "AddObjectiveDot: e contains parameters; a product of parameters is not affine in the data")
	}
	if err != nil {
		m.recordErr(err)
		return
	}
	m.obj.pdots = append(m.obj.pdots, pdot{p, d})
}

// paramTerms records how the standard form depends on the parameters:
//
//	b[row[k]] = b0[row[k]] − Σ_{t ∈ k} val[t]·θ[idx[t]]
//	q[j]      = q0[j] + Σ qval·θ,   r = r0 + Σ rval·θ
type paramTerms struct {
	theta []float64
	b0    []float64
	// rows with parameter terms, CSR
	row  []int
	ptr  []int
	idx  []int
	val  []float64
	q0   []float64
	qcol []int
	qidx []int
	qval []float64
	r0   float64
	ridx []int
	rval []float64
	// rowsOf[g] lists the rows (positions k in row) that parameter entry g
	// touches, qOf[g] its objective terms, for incremental updates
	rowsOf [][]int
	qOf    [][]int // positions t in qcol
}

// apply recomputes from theta the entries of b on the parameter rows ks
// (positions in row), the costs of the terms qs (positions in qcol) and r.
func (t *paramTerms) apply(b, q []float64, r *float64, rows []int, qs []int) {
	for _, k := range rows {
		v := t.b0[t.row[k]]
		for s := t.ptr[k]; s < t.ptr[k+1]; s++ {
			v -= t.val[s] * t.theta[t.idx[s]]
		}
		b[t.row[k]] = v
	}
	for _, s := range qs {
		q[t.qcol[s]] = t.q0[t.qcol[s]]
	}
	for _, s := range qs {
		q[t.qcol[s]] += t.qval[s] * t.theta[t.qidx[s]]
	}
	v := t.r0
	for s, g := range t.ridx {
		v += t.rval[s] * t.theta[g]
	}
	*r = v
}

// SetParam sets the values of parameter p in the standard form c.Problem
// (b, q and r change in place; A, the cones and the layout do not), in
// O(number of terms of p). Results returned earlier keep their values.
func (c *Canonical) SetParam(p *Param, values ...float64) error {
	_, _, err := c.setParam(p, values)
	return err
}

// setParam returns the rows and objective columns whose data changed.
func (c *Canonical) setParam(p *Param, values []float64) (rows, cols []int, err error) {
	if p == nil || p.m != c.m || p.off+p.n > len(c.par.theta) {
		return nil, nil, errf(ErrModelMismatch, "SetParam: parameter is nil or not part of this canonical model")
	}
	if err := p.check("SetParam", values); err != nil {
		return nil, nil, err
	}
	t := &c.par
	copy(t.theta[p.off:], values)
	var ks, qs []int
	seen := map[int]bool{}
	for g := p.off; g < p.off+p.n; g++ {
		for _, k := range t.rowsOf[g] {
			if !seen[k] {
				seen[k] = true
				ks = append(ks, k)
			}
		}
		qs = append(qs, t.qOf[g]...)
	}
	// Columns touched by qs must be recomputed from all their terms.
	colSet := map[int]bool{}
	for _, s := range qs {
		colSet[t.qcol[s]] = true
	}
	var allQ []int
	if len(colSet) > 0 {
		for s, j := range t.qcol {
			if colSet[j] {
				allQ = append(allQ, s)
			}
		}
	}
	prob := c.Problem
	t.apply(prob.B, prob.Q, &prob.R, ks, allQ)
	rows = make([]int, len(ks))
	for i, k := range ks {
		rows[i] = t.row[k]
	}
	for j := range colSet {
		cols = append(cols, j)
	}
	slices.Sort(cols)
	return rows, cols, nil
}

// Theta returns a copy of the parameter values the standard form was built
// with (or last set through SetParam), indexed globally in parameter creation
// order.
func (c *Canonical) Theta() []float64 { return slices.Clone(c.par.theta) }

// RHSParam turns the constant right-hand side of a linear constraint (Equal,
// LessEq, GreaterEq) into a new parameter with the given name, whose initial
// values are the current right-hand side: for lhs ≤ rhs, lhs = rhs and
// lhs ≥ rhs with e = lhs − rhs = a·x + c, the parameter is θ = −c (the
// constant right-hand side with any constant of lhs moved to it), so the
// constraint reads a·x ≤ θ, a·x = θ or a·x ≥ θ. It is the way to
// parameterize constraints built by code that takes constants (for example
// package grid's OPF). A constraint that already has parameter terms, a cone
// constraint or one of another model records an error and returns nil.
func (m *Model) RHSParam(name string, c *Constraint) *Param {
	if c == nil || c.m != m {
		m.recordErr(errf(ErrModelMismatch, "RHSParam %q: constraint is nil or belongs to another model", name))
		return nil
	}
	sign := 1.0
	switch c.kind {
	case KindEqual, KindLessEq:
	case KindGreaterEq:
		sign = -1
	default:
		m.recordErr(errf(ErrInvalidArgument, "RHSParam %q: constraint %q is a %v constraint; only Equal, LessEq and GreaterEq have a right-hand side", name, c.name, c.kind))
		return nil
	}
	if c.pptr != nil {
		m.recordErr(errf(ErrInvalidArgument, "RHSParam %q: constraint %q already has parameter terms", name, c.name))
		return nil
	}
	vals := make([]float64, c.n)
	for i, b := range c.b {
		vals[i] = sign * b
	}
	p := m.Parameter(name, vals...)
	c.pptr = make([]int, c.n+1)
	c.pidx = make([]int, c.n)
	c.pval = make([]float64, c.n)
	c.b = make([]float64, c.n)
	for i := 0; i < c.n; i++ {
		c.pptr[i+1] = i + 1
		c.pidx[i] = p.off + i
		c.pval[i] = -sign // b = −pval·θ = sign·θ
	}
	return p
}
