package model

import (
	"fmt"
	"math"
	"strconv"

	"github.com/privopt/privopt/cone"
)

// ConstraintKind says how a constraint enters the standard form.
type ConstraintKind int

// Constraint kinds.
const (
	KindEqual       ConstraintKind = iota // lhs = rhs            (zero-cone rows)
	KindLessEq                            // lhs ≤ rhs            (nonnegative rows)
	KindGreaterEq                         // lhs ≥ rhs            (nonnegative rows)
	KindSecondOrder                       // ‖x‖₂ ≤ t
	KindRotatedCone                       // 2uv ≥ ‖x‖², u, v ≥ 0
	KindPSD                               // S ⪰ 0
	KindExponential                       // (x, y, z) ∈ K_exp elementwise
	KindPower                             // (x, y, z) ∈ K_pow(α) elementwise
	KindCone                              // e ∈ K (InCone)
)

var constraintKindNames = [...]string{
	KindEqual: "equal", KindLessEq: "less-equal", KindGreaterEq: "greater-equal",
	KindSecondOrder: "second-order", KindRotatedCone: "rotated-second-order", KindPSD: "psd",
	KindExponential: "exponential", KindPower: "power", KindCone: "cone",
}

// String returns the kind's name.
func (k ConstraintKind) String() string {
	if k < 0 || int(k) >= len(constraintKindNames) {
		return fmt.Sprintf("ConstraintKind(%d)", int(k))
	}
	return constraintKindNames[k]
}

// Constraint is a named block of standard-form rows. Its rows are stored in
// standard form at creation, A_c·x + s_c = b_c with s_c in the constraint's cone
// blocks:
//
//	lhs = rhs, g = lhs − rhs = a·x + c:  A-rows a,   b = −c, zero cone
//	lhs ≤ rhs:                           A-rows a,   b = −c, nonnegative (s = −g)
//	lhs ≥ rhs:                           A-rows −a,  b = c,  nonnegative (s = g)
//	e ∈ K, e = a·x + c:                  A-rows −a,  b = c,  s = e ∈ K
//
// Constraint rows appear in the standard form in creation order, each
// constraint's rows contiguous (Canonical.Rows).
type Constraint struct {
	m     *Model
	name  string
	index int
	kind  ConstraintKind
	n     int // number of rows

	// standard-form rows: CSR (ptr, idx, val) and right-hand side b
	ptr []int
	idx []int
	val []float64
	b   []float64
	// parameter terms of the rows (CSR over global parameter indices, nil if
	// none): the row's b is b − Σ pval·θ
	pptr []int
	pidx []int
	pval []float64

	blocks []cone.Cone // cone blocks covering the n rows
	psdN   int         // order of the PSD matrix (KindPSD)
}

// Name returns the constraint's name.
func (c *Constraint) Name() string { return c.name }

// Kind returns the constraint's kind.
func (c *Constraint) Kind() ConstraintKind { return c.kind }

// Len returns the number of standard-form rows of the constraint.
func (c *Constraint) Len() int { return c.n }

// Cones returns a copy of the cone blocks that cover the constraint's rows.
func (c *Constraint) Cones() []cone.Cone { return append([]cone.Cone(nil), c.blocks...) }

// Model returns the model the constraint belongs to.
func (c *Constraint) Model() *Model { return c.m }

// newConstraint registers a constraint (also when err is non-nil, so callers
// always get a usable handle); the error, if any, is recorded and the
// constraint gets no rows.
func (m *Model) newConstraint(name string, kind ConstraintKind, err error) *Constraint {
	c := &Constraint{m: m, index: len(m.cons), kind: kind}
	if name == "" {
		name = "c" + strconv.Itoa(c.index)
		for m.conNames[name] != nil {
			name += "_"
		}
	} else if m.conNames[name] != nil && err == nil {
		err = errf(ErrInvalidName, "constraint name %q is already used", name)
	}
	c.name = name
	if m.conNames[name] == nil {
		m.conNames[name] = c
	}
	m.cons = append(m.cons, c)
	if err != nil {
		m.recordErr(fmt.Errorf("%w (constraint %q)", err, name))
	}
	return c
}

// use checks that e may be used in m: no carried error, same model, finite
// data. It returns e materialized.
func (m *Model) use(op, what string, e Expr) (*expr, error) {
	d := e.node()
	if d.err != nil {
		return nil, d.err
	}
	if d.m != nil && d.m != m {
		return nil, errf(ErrModelMismatch, "%s: %s uses variables of model %q", op, what, d.m.name)
	}
	d = d.data()
	if err := checkFinite(op, what+" coefficients", d.val); err != nil {
		return nil, err
	}
	if err := checkFinite(op, what+" constants", d.cst); err != nil {
		return nil, err
	}
	return d, nil
}

// difference returns lhs − rhs (materialized) with broadcasting, after the
// checks of use.
func (m *Model) difference(op string, lhs, rhs Expr) (*expr, error) {
	switch {
	case lhs.x == nil && rhs.x != nil:
		lhs = Zeros(rhs.Len())
	case rhs.x == nil && lhs.x != nil:
		rhs = Zeros(lhs.Len())
	}
	l, err := m.use(op, "lhs", lhs)
	if err != nil {
		return nil, err
	}
	r, err := m.use(op, "rhs", rhs)
	if err != nil {
		return nil, err
	}
	n := l.n
	switch {
	case l.n == r.n:
	case l.n == 1:
		n = r.n
	case r.n == 1:
	default:
		return nil, errf(ErrDimension, "%s: lhs has length %d, rhs %d (only length-1 sides broadcast)", op, l.n, r.n)
	}
	if r.nnz() == 0 && l.n == n {
		// Common case: a constant right-hand side. Share lhs's coefficients.
		g := &expr{m: m, n: n, rows: n, cols: 1, ptr: l.ptr, idx: l.idx, val: l.val}
		if l.cst != nil || r.cst != nil {
			g.cst = make([]float64, n)
			for i := range g.cst {
				ri := 0
				if r.n == n {
					ri = i
				}
				g.cst[i] = l.constAt(i) - r.constAt(ri)
			}
		}
		return g, nil
	}
	return materialized(m, n, n, 1, []*expr{l, r}, []float64{1, -1}), nil
}

// setRows stores rows sign·a with b = −sign·c for the expression g = a·x + c;
// parameter terms a_θ·θ of g are kept apart as sign·a_θ (they move to b).
func (c *Constraint) setRows(g *expr, sign float64) {
	c.n = g.n
	var val, pval []float64
	c.ptr, c.idx, val, c.pptr, c.pidx, pval = splitParams(g)
	c.val, c.pval = val, pval
	if sign != 1 {
		c.val = make([]float64, len(val))
		for p, v := range val {
			c.val[p] = sign * v
		}
		c.pval = make([]float64, len(pval))
		for p, v := range pval {
			c.pval[p] = sign * v
		}
	}
	c.b = make([]float64, g.n)
	if g.cst != nil {
		for i, v := range g.cst {
			c.b[i] = -sign * v
		}
	}
}

func (m *Model) linear(op, name string, kind ConstraintKind, lhs, rhs Expr) *Constraint {
	g, err := m.difference(op, lhs, rhs)
	c := m.newConstraint(name, kind, err)
	if err != nil {
		return c
	}
	switch kind {
	case KindEqual:
		c.setRows(g, 1)
		c.blocks = []cone.Cone{cone.NewZero(g.n)}
	case KindLessEq:
		c.setRows(g, 1)
		c.blocks = []cone.Cone{cone.NewNonnegative(g.n)}
	case KindGreaterEq:
		c.setRows(g, -1)
		c.blocks = []cone.Cone{cone.NewNonnegative(g.n)}
	}
	return c
}

// Equal adds the vector constraint lhs = rhs (zero-cone rows). Lengths must be
// equal or one side of length 1 (broadcast). The dual (Result.Dual) is free.
func (m *Model) Equal(name string, lhs, rhs Expr) *Constraint {
	return m.linear("Equal", name, KindEqual, lhs, rhs)
}

// LessEq adds the vector constraint lhs ≤ rhs (nonnegative rows), with the
// broadcasting of Equal. Its dual is ≥ 0.
func (m *Model) LessEq(name string, lhs, rhs Expr) *Constraint {
	return m.linear("LessEq", name, KindLessEq, lhs, rhs)
}

// GreaterEq adds the vector constraint lhs ≥ rhs (nonnegative rows), with the
// broadcasting of Equal. Its dual is ≥ 0.
func (m *Model) GreaterEq(name string, lhs, rhs Expr) *Constraint {
	return m.linear("GreaterEq", name, KindGreaterEq, lhs, rhs)
}

// coneRows stores e ∈ K as rows −a, b = c (so s = e).
func (m *Model) coneConstraint(op, name string, kind ConstraintKind, e Expr, blocks []cone.Cone) *Constraint {
	d, err := m.use(op, "expression", e)
	if err == nil {
		for _, k := range blocks {
			if verr := k.Validate(); verr != nil {
				err = errf(ErrInvalidArgument, "%s: %v", op, verr)
				break
			}
		}
	}
	if err == nil && cone.TotalDim(blocks) != d.n {
		err = errf(ErrDimension, "%s: expression has length %d, cone dimension is %d", op, d.n, cone.TotalDim(blocks))
	}
	c := m.newConstraint(name, kind, err)
	if err != nil {
		return c
	}
	c.setRows(d, -1)
	c.blocks = blocks
	return c
}

// NormLessEq adds ‖x‖₂ ≤ t for a length-1 expression t: the second-order cone
// block (t, x₁, …, xₙ) of dimension n+1. Its dual is the vector (y_t, y_x) in
// the (self-dual) second-order cone.
func (m *Model) NormLessEq(name string, x, t Expr) *Constraint {
	if t.Err() == nil && x.Err() == nil && t.Len() != 1 {
		return m.newConstraint(name, KindSecondOrder, errf(ErrDimension, "NormLessEq: t has length %d, must be 1", t.Len()))
	}
	e := Stack(t, x)
	return m.coneConstraint("NormLessEq", name, KindSecondOrder, e, []cone.Cone{cone.NewSecondOrder(e.Len())})
}

// RotatedCone adds 2·u·v ≥ ‖x‖₂², u ≥ 0, v ≥ 0 for length-1 expressions u, v:
// the rotated second-order cone block (u, v, x₁, …, xₙ).
func (m *Model) RotatedCone(name string, u, v, x Expr) *Constraint {
	if u.Err() == nil && v.Err() == nil && x.Err() == nil && (u.Len() != 1 || v.Len() != 1) {
		return m.newConstraint(name, KindRotatedCone, errf(ErrDimension, "RotatedCone: u and v have lengths %d and %d, must be 1", u.Len(), v.Len()))
	}
	e := Stack(u, v, x)
	return m.coneConstraint("RotatedCone", name, KindRotatedCone, e, []cone.Cone{cone.NewRotatedSecondOrder(e.Len())})
}

// PSD adds S ⪰ 0 for an n×n affine matrix expression S (shape n×n, e.g. from
// Reshape or a Symmetric variable). S must be symmetric coefficient-wise:
// the coefficients and constants of S[i,j] and S[j,i] must agree to within
// 1e-12 relative to the largest magnitude of the pair (ErrInvalidArgument
// otherwise); the average of the pair is used. The rows are the scaled
// lower-triangular column-major svec of S (package cone):
//
//	s = (S₁₁, √2·S₂₁, …, √2·Sₙ₁, S₂₂, √2·S₃₂, …, Sₙₙ),
//
// one PSD block of dimension n(n+1)/2. The dual (Result.Dual) is returned as
// the n×n matrix Y = smat(y) (row-major), Y ⪰ 0.
func (m *Model) PSD(name string, s Expr) *Constraint {
	const op = "PSD"
	d, err := m.use(op, "S", s)
	if err == nil && (d.rows != d.cols || d.rows == 0) {
		err = errf(ErrDimension, "PSD: S has shape %d×%d, must be square and non-empty (use Reshape)", d.rows, d.cols)
	}
	if err != nil {
		return m.newConstraint(name, KindPSD, err)
	}
	n := d.rows
	rb := rowBuf{}
	dim := n * (n + 1) / 2
	ptr := make([]int, dim+1)
	cst := make([]float64, dim)
	k := 0
	for j := 0; j < n && err == nil; j++ {
		for i := j; i < n; i++ {
			p, q := i*n+j, j*n+i // S[i,j], S[j,i]
			if p == q {
				for t := d.ptr[p]; t < d.ptr[p+1]; t++ {
					rb.add(d.idx[t], d.val[t])
				}
				cst[k] = d.constAt(p)
			} else {
				if e := symmetricPair(d, p, q); e != "" {
					err = errf(ErrInvalidArgument, "PSD: S is not symmetric: S[%d,%d] and S[%d,%d] differ in %s", i, j, j, i, e)
					break
				}
				h := math.Sqrt2 / 2
				for t := d.ptr[p]; t < d.ptr[p+1]; t++ {
					rb.add(d.idx[t], h*d.val[t])
				}
				for t := d.ptr[q]; t < d.ptr[q+1]; t++ {
					rb.add(d.idx[t], h*d.val[t])
				}
				cst[k] = h * (d.constAt(p) + d.constAt(q))
			}
			rb.flush()
			k++
			ptr[k] = len(rb.idx)
		}
	}
	if err != nil {
		return m.newConstraint(name, KindPSD, err)
	}
	g := newNode(m, dim, ptr, rb.idx, rb.val, cst)
	c := m.coneConstraint(op, name, KindPSD, Expr{g}, []cone.Cone{cone.NewPSD(n)})
	c.psdN = n
	return c
}

// symmetricPair compares rows p and q of d; it returns "" if their
// coefficients and constants agree to 1e-12 relative, else a description.
func symmetricPair(d *expr, p, q int) string {
	close := func(a, b float64) bool {
		return math.Abs(a-b) <= 1e-12*math.Max(math.Abs(a), math.Abs(b))
	}
	if !close(d.constAt(p), d.constAt(q)) {
		return fmt.Sprintf("the constant (%v vs %v)", d.constAt(p), d.constAt(q))
	}
	a, b := d.ptr[p], d.ptr[q]
	for a < d.ptr[p+1] || b < d.ptr[q+1] {
		switch {
		case b >= d.ptr[q+1] || (a < d.ptr[p+1] && d.idx[a] < d.idx[b]):
			return fmt.Sprintf("the coefficient of column %d (%v vs 0)", d.idx[a], d.val[a])
		case a >= d.ptr[p+1] || d.idx[b] < d.idx[a]:
			return fmt.Sprintf("the coefficient of column %d (0 vs %v)", d.idx[b], d.val[b])
		}
		if !close(d.val[a], d.val[b]) {
			return fmt.Sprintf("the coefficient of column %d (%v vs %v)", d.idx[a], d.val[a], d.val[b])
		}
		a++
		b++
	}
	return ""
}

// ExpCone adds (x[i], y[i], z[i]) ∈ K_exp = cl{(x,y,z) : y > 0, y·exp(x/y) ≤ z}
// for every i; x, y, z have equal lengths L (or length 1, broadcast). It adds L
// exponential-cone blocks of dimension 3, rows ordered x₀, y₀, z₀, x₁, ….
func (m *Model) ExpCone(name string, x, y, z Expr) *Constraint {
	return m.tripleCone("ExpCone", name, KindExponential, x, y, z, cone.NewExponential())
}

// PowerCone adds (x[i], y[i], z[i]) ∈ K_pow(α) = {x^α·y^(1−α) ≥ |z|, x, y ≥ 0}
// for every i, α ∈ (0, 1); layout as in ExpCone.
func (m *Model) PowerCone(name string, x, y, z Expr, alpha float64) *Constraint {
	return m.tripleCone("PowerCone", name, KindPower, x, y, z, cone.NewPower(alpha))
}

func (m *Model) tripleCone(op, name string, kind ConstraintKind, x, y, z Expr, k cone.Cone) *Constraint {
	if err := firstErr(x.Err(), y.Err(), z.Err()); err != nil {
		return m.newConstraint(name, kind, err)
	}
	L := max(x.Len(), y.Len(), z.Len())
	for _, e := range []Expr{x, y, z} {
		if e.Len() != L && e.Len() != 1 {
			return m.newConstraint(name, kind, errf(ErrDimension, "%s: x, y, z have lengths %d, %d, %d; must be equal (or 1)", op, x.Len(), y.Len(), z.Len()))
		}
	}
	all := Stack(x, y, z)
	perm := make([]int, 0, 3*L)
	off := [3]int{0, x.Len(), x.Len() + y.Len()}
	lens := [3]int{x.Len(), y.Len(), z.Len()}
	for i := 0; i < L; i++ {
		for t := 0; t < 3; t++ {
			if lens[t] == 1 {
				perm = append(perm, off[t])
			} else {
				perm = append(perm, off[t]+i)
			}
		}
	}
	blocks := make([]cone.Cone, L)
	for i := range blocks {
		blocks[i] = k
	}
	return m.coneConstraint(op, name, kind, all.Pick(perm), blocks)
}

// InCone adds e ∈ K for a single cone block K with K.Dim = e.Len() (a zero cone
// means e = 0, a nonnegative cone e ≥ 0).
func (m *Model) InCone(name string, e Expr, k cone.Cone) *Constraint {
	c := m.coneConstraint("InCone", name, KindCone, e, []cone.Cone{k})
	if k.Kind == cone.PSD {
		c.psdN = cone.PSDOrder(k.Dim)
	}
	return c
}
