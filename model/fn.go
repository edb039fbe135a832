package model

import (
	"fmt"
	"math"
	"strings"
)

// ErrNotDCP is wrapped by the errors of expressions, objectives and
// constraints that break a rule of disciplined convex programming (Grant, Boyd
// and Ye, "Disciplined convex programming", 2006; the rules of CVXPY). It
// wraps ErrNonConvex, so errors.Is(err, ErrNonConvex) holds as well.
var ErrNotDCP = fmt.Errorf("%w: not DCP", ErrNonConvex)

// Curvature is the curvature of an expression under the DCP rules.
type Curvature int

// Curvatures, from the most to the least specific.
const (
	Constant         Curvature = iota // no variables (parameters count as constants)
	Affine                            // both convex and concave
	Convex                            // convex, not known to be affine
	Concave                           // concave, not known to be affine
	UnknownCurvature                  // not DCP: no curvature can be certified
)

var curvatureNames = [...]string{"constant", "affine", "convex", "concave", "unknown"}

// String returns the curvature's name ("convex", …).
func (c Curvature) String() string {
	if c < 0 || int(c) >= len(curvatureNames) {
		return fmt.Sprintf("Curvature(%d)", int(c))
	}
	return curvatureNames[c]
}

// IsConvex reports whether c is constant, affine or convex.
func (c Curvature) IsConvex() bool { return c <= Convex }

// IsConcave reports whether c is constant, affine or concave.
func (c Curvature) IsConcave() bool { return c <= Affine || c == Concave }

// negate returns the curvature of −f.
func (c Curvature) negate() Curvature {
	switch c {
	case Convex:
		return Concave
	case Concave:
		return Convex
	}
	return c
}

// Sign is the sign of every entry of an expression, as far as the DCP sign
// rules know it.
type Sign int

// Signs.
const (
	UnknownSign Sign = iota
	Nonneg           // every entry ≥ 0
	Nonpos           // every entry ≤ 0
)

var signNames = [...]string{"unknown", "nonnegative", "nonpositive"}

// String returns the sign's name.
func (s Sign) String() string {
	if s < 0 || int(s) >= len(signNames) {
		return fmt.Sprintf("Sign(%d)", int(s))
	}
	return signNames[s]
}

func (s Sign) negate() Sign {
	switch s {
	case Nonneg:
		return Nonpos
	case Nonpos:
		return Nonneg
	}
	return s
}

// Monotonicity is how an atom depends on one of its arguments.
type Monotonicity int

// Monotonicities.
const (
	Nonmonotone Monotonicity = iota
	Increasing
	Decreasing
	// SignDependent: increasing where the argument is ≥ 0, decreasing where it
	// is ≤ 0 (Abs, Norm2, SumSquares, Huber, …); the DCP rule uses the
	// argument's sign.
	SignDependent
)

var monotonicityNames = [...]string{"nonmonotone", "increasing", "decreasing", "increasing for x ≥ 0, decreasing for x ≤ 0"}

// String returns the monotonicity's name.
func (m Monotonicity) String() string {
	if m < 0 || int(m) >= len(monotonicityNames) {
		return fmt.Sprintf("Monotonicity(%d)", int(m))
	}
	return monotonicityNames[m]
}

// resolve turns SignDependent into Increasing/Decreasing for an argument of
// known sign.
func (m Monotonicity) resolve(s Sign) Monotonicity {
	if m != SignDependent {
		return m
	}
	switch s {
	case Nonneg:
		return Increasing
	case Nonpos:
		return Decreasing
	}
	return Nonmonotone
}

// Arg is an argument of an atom or of the DCP objective and constraint
// methods: an affine Expr, a *Var (its expression), a Quadratic term
// (SumSquares, QuadForm) or an Fn. The interface is closed (its method is
// unexported).
type Arg interface{ fnode() *fnode }

// Fn is a vector expression built with atoms (Abs, Norm2, LogDet, …) from
// affine expressions, by the composition rules of disciplined convex
// programming (DCP): f(g₁, …, g_k) is convex when f is convex and each gᵢ is
// affine, or convex with f increasing in it, or concave with f decreasing in
// it; concave symmetrically; sums and nonnegative multiples preserve
// curvature, negation flips it. An Fn records its curvature, sign and, when a
// rule is broken, which subexpression breaks which rule (Curvature is then
// UnknownCurvature and DCPError says why); the error is returned when the Fn
// is used in an objective or constraint, naming the use, e.g.
//
//	model: non-convex: not DCP: Maximize(Norm2(x)): maximizing a convex expression is not DCP
//
// Fn values are immutable and may be shared. They are canonicalized when
// used (MinimizeFn, MaximizeFn, LessEqFn, GreaterEqFn): each atom becomes an
// epigraph variable t (t ≥ f for convex atoms, t ≤ f for concave ones) and
// cone constraints on it (docs/ATOMS.md lists them), added to the model as
// auxiliary variables and constraints whose names start with "_" and the
// atom's name. An atom used several times is canonicalized once. The
// relaxation t ≥ f is exact at the optimum precisely because of the DCP
// rules. Result.FnValue evaluates an Fn at a solution from its arguments'
// values (not from the epigraph variables).
type Fn struct{ f *fnode }

// fnode is a node of an Fn tree: an affine leaf (aff), a linear combination
// (Σ coef[k]·args[k], atom nil, aff nil) or an atom application.
type fnode struct {
	m          *Model
	n          int
	rows, cols int
	text       string
	aff        *expr     // leaf
	coef       []float64 // linear combination
	atom       *atomDef
	args       []*fnode
	data       any // atom parameters
	curv       Curvature
	sign       Sign
	why        string // first DCP violation in the tree
	err        error

	canon  *expr  // canonical affine form (auxiliary columns), cached
	canonM *Model // the model canon belongs to
}

func (f Fn) fnode() *fnode {
	if f.f == nil {
		return leafNode(Expr{})
	}
	return f.f
}

func (e Expr) fnode() *fnode { return leafNode(e) }

func (v *Var) fnode() *fnode {
	n := leafNode(v.Expr())
	n.text = v.name
	return n
}

// leafNode wraps an affine expression.
func leafNode(e Expr) *fnode {
	d := e.node()
	n := &fnode{m: d.m, n: d.n, rows: d.rows, cols: d.cols, err: d.err, aff: d}
	if d.err != nil {
		return n
	}
	d = d.data()
	n.aff = d
	n.text = describeExpr(d)
	n.curv = Affine
	isConst := true
	for _, j := range d.idx[:d.nnz()] {
		if j >= 0 {
			isConst = false
			break
		}
	}
	if isConst {
		n.curv = Constant
		if d.nnz() == 0 {
			n.sign = constSign(d)
		}
	}
	return n
}

func constSign(d *expr) Sign {
	pos, neg := true, true
	for i := 0; i < d.n; i++ {
		c := d.constAt(i)
		pos = pos && c >= 0
		neg = neg && c <= 0
	}
	switch {
	case pos:
		return Nonneg
	case neg:
		return Nonpos
	}
	return UnknownSign
}

// describeExpr names an affine expression for messages: the variable's name
// when it is a variable (or a contiguous slice of one), else "affine[n]" or
// the constant.
func describeExpr(d *expr) string {
	if d.nnz() == 0 {
		if d.n == 1 {
			return fmt.Sprintf("%g", d.constAt(0))
		}
		return fmt.Sprintf("const[%d]", d.n)
	}
	if d.m != nil && isSelection(d) && d.idx[0] >= 0 {
		for _, v := range d.m.vars {
			lo := v.start
			if d.idx[0] >= lo && d.idx[d.n-1] < lo+v.ncols && d.idx[d.n-1]-d.idx[0] == d.n-1 && v.kind == varDense {
				if d.n == v.Len() {
					return v.name
				}
				if d.n == 1 {
					return fmt.Sprintf("%s[%d]", v.name, d.idx[0]-lo)
				}
				return fmt.Sprintf("%s[%d:%d]", v.name, d.idx[0]-lo, d.idx[0]-lo+d.n)
			}
		}
	}
	if d.m != nil && d.n == d.rows*d.cols && d.rows == d.cols && d.rows > 1 {
		for _, v := range d.m.vars {
			if v.kind == varSymmetric && v.expr == d {
				return v.name
			}
		}
	}
	return fmt.Sprintf("affine[%d]", d.n)
}

// Len returns the number of entries.
func (f Fn) Len() int { return f.fnode().n }

// Shape returns (rows, cols).
func (f Fn) Shape() (rows, cols int) { n := f.fnode(); return n.rows, n.cols }

// Curvature returns the DCP curvature (UnknownCurvature when a rule is
// broken).
func (f Fn) Curvature() Curvature { return f.fnode().curv }

// Sign returns the sign known from the DCP sign rules.
func (f Fn) Sign() Sign { return f.fnode().sign }

// String renders the expression, e.g. "Norm2(x) + Log(y[0])".
func (f Fn) String() string { return f.fnode().text }

// Err returns the error carried by the expression (an invalid argument,
// dimension or model mismatch), or nil. A DCP violation is not an Err: see
// DCPError.
func (f Fn) Err() error { return f.fnode().err }

// DCPError returns an error wrapping ErrNotDCP that names the first
// subexpression breaking a DCP composition rule, or nil when the expression
// is DCP (its curvature is known).
func (f Fn) DCPError() error {
	n := f.fnode()
	if n.why == "" {
		return nil
	}
	return errf(ErrNotDCP, "%s", n.why)
}

// AsFn returns a as an Fn (an affine Expr or Var becomes an affine leaf).
func AsFn(a Arg) Fn {
	if f, ok := a.(Fn); ok {
		return f
	}
	return Fn{argNode(a)}
}

func argNode(a Arg) *fnode {
	if a == nil {
		return leafNode(Expr{})
	}
	return a.fnode()
}

// Add returns f + g (equal lengths, or one of length 1, broadcast).
func (f Fn) Add(g Arg) Fn { return combineFn("+", []*fnode{f.fnode(), argNode(g)}, []float64{1, 1}) }

// Sub returns f − g.
func (f Fn) Sub(g Arg) Fn { return combineFn("-", []*fnode{f.fnode(), argNode(g)}, []float64{1, -1}) }

// Scale returns a·f; a < 0 flips the curvature and sign.
func (f Fn) Scale(a float64) Fn { return combineFn("*", []*fnode{f.fnode()}, []float64{a}) }

// Neg returns −f.
func (f Fn) Neg() Fn { return f.Scale(-1) }

// Sum returns the sum of f's entries (length 1; same curvature).
func (f Fn) Sum() Fn { return applyAtom(atomSum, nil, f) }

// AddFn returns Σ args (lengths equal or 1).
func AddFn(args ...Arg) Fn {
	ns := make([]*fnode, len(args))
	cs := make([]float64, len(args))
	for k, a := range args {
		ns[k], cs[k] = argNode(a), 1
	}
	return combineFn("+", ns, cs)
}

// combineFn builds Σ coef[k]·args[k] with the DCP rules of sums and scaling.
func combineFn(op string, args []*fnode, coef []float64) Fn {
	if len(args) == 0 {
		return Fn{leafNode(Expr{})}
	}
	r := &fnode{coef: coef, args: args, rows: 1, cols: 1, n: 1}
	var texts []string
	curvs := make([]Curvature, len(args))
	signs := make([]Sign, len(args))
	for k, a := range args {
		if r.err == nil && a.err != nil {
			r.err = a.err
		}
		if a.m != nil {
			if r.m != nil && r.m != a.m && r.err == nil {
				r.err = errf(ErrModelMismatch, "%s: operands belong to models %q and %q", opName(op), r.m.name, a.m.name)
			}
			r.m = a.m
		}
		if a.n != 1 {
			if r.n != 1 && a.n != r.n && r.err == nil {
				r.err = errf(ErrDimension, "%s: lengths %d and %d differ (only length-1 expressions broadcast)", opName(op), r.n, a.n)
			}
			if r.n == 1 {
				r.n, r.rows, r.cols = a.n, a.rows, a.cols
			}
		}
		c := coef[k]
		if math.IsNaN(c) || math.IsInf(c, 0) {
			if r.err == nil {
				r.err = errf(ErrNotFinite, "%s: scale is %v, must be finite", opName(op), c)
			}
		}
		curvs[k], signs[k] = a.curv, a.sign
		if c < 0 {
			curvs[k], signs[k] = a.curv.negate(), a.sign.negate()
		}
		if c == 0 {
			curvs[k], signs[k] = Constant, Nonneg
		}
		if r.why == "" && a.why != "" {
			r.why = a.why
		}
		switch {
		case op == "*" && c == -1:
			texts = append(texts, "-"+paren(a))
		case op == "*":
			texts = append(texts, fmt.Sprintf("%g*%s", c, paren(a)))
		case k == 0 && c == 1:
			texts = append(texts, a.text)
		case c == 1:
			texts = append(texts, "+ "+a.text)
		case c == -1:
			texts = append(texts, "- "+paren(a))
		default:
			texts = append(texts, fmt.Sprintf("+ %g*%s", c, paren(a)))
		}
	}
	r.text = strings.Join(texts, " ")
	// Curvature of the sum.
	convex, concave := true, true
	for _, c := range curvs {
		convex = convex && c.IsConvex()
		concave = concave && c.IsConcave()
	}
	allConst := true
	for _, c := range curvs {
		allConst = allConst && c == Constant
	}
	switch {
	case allConst:
		r.curv = Constant
	case convex && concave:
		r.curv = Affine
	case convex:
		r.curv = Convex
	case concave:
		r.curv = Concave
	default:
		r.curv = UnknownCurvature
		if r.why == "" {
			var cv, cc string
			for k, c := range curvs {
				if c == Convex && cv == "" {
					cv = args[k].text
				}
				if c == Concave && cc == "" {
					cc = args[k].text
				}
			}
			r.why = fmt.Sprintf("%s: adding a convex term (%s) and a concave term (%s) gives an expression of unknown curvature", r.text, cv, cc)
		}
	}
	pos, neg := true, true
	for _, s := range signs {
		pos = pos && s == Nonneg
		neg = neg && s == Nonpos
	}
	switch {
	case pos:
		r.sign = Nonneg
	case neg:
		r.sign = Nonpos
	}
	return Fn{r}
}

func opName(op string) string {
	switch op {
	case "+":
		return "Fn.Add"
	case "-":
		return "Fn.Sub"
	}
	return "Fn.Scale"
}

// paren wraps a sum's text in parentheses.
func paren(a *fnode) string {
	if a.atom == nil && a.aff == nil {
		return "(" + a.text + ")"
	}
	return a.text
}

// atomDef describes an atom: its curvature, sign and monotonicity rules, its
// numeric value and its conic canonicalization.
type atomDef struct {
	name string
	// curv is Convex, Concave or Affine (an affine atom such as Sum keeps
	// its argument's curvature through its monotonicity).
	curv Curvature
	// shape returns the output shape, or an error naming the bad argument.
	shape func(f *fnode) (rows, cols int, err error)
	sign  func(f *fnode) Sign
	mono  func(f *fnode, k int) Monotonicity
	eval  func(f *fnode, args [][]float64) []float64
	canon func(m *Model, f *fnode, args []Expr) Expr
}

// applyAtom builds the node a(args…) with parameters data, checking the DCP
// composition rule for every argument.
func applyAtom(a *atomDef, data any, args ...Arg) Fn {
	r := &fnode{atom: a, data: data, args: make([]*fnode, len(args))}
	texts := make([]string, len(args))
	for k, x := range args {
		n := argNode(x)
		r.args[k] = n
		texts[k] = n.text
		if r.err == nil && n.err != nil {
			r.err = n.err
		}
		if n.m != nil {
			if r.m != nil && r.m != n.m && r.err == nil {
				r.err = errf(ErrModelMismatch, "%s: arguments belong to models %q and %q", a.name, r.m.name, n.m.name)
			}
			r.m = n.m
		}
		if r.why == "" {
			r.why = n.why
		}
	}
	r.text = a.name + "(" + strings.Join(texts, ", ") + ")"
	if a == atomSum {
		r.text = "Sum(" + texts[0] + ")"
	}
	if r.err != nil {
		r.n, r.rows, r.cols = 1, 1, 1
		return Fn{r}
	}
	rows, cols, err := a.shape(r)
	if err != nil {
		r.err = errf(ErrDimension, "%s: %v", r.text, err)
		r.m.recordErr(r.err)
		rows, cols = 1, 1
	}
	r.rows, r.cols, r.n = rows, cols, rows*cols
	r.sign = a.sign(r)
	allConst := true
	for _, n := range r.args {
		allConst = allConst && n.curv == Constant
	}
	if allConst {
		r.curv = Constant
		return Fn{r}
	}
	r.curv = a.curv
	if a.curv == Affine {
		// Affine atoms carry the curvature of their (single) argument through
		// their monotonicity.
		n := r.args[0]
		switch a.mono(r, 0).resolve(n.sign) {
		case Increasing:
			r.curv = n.curv
		case Decreasing:
			r.curv = n.curv.negate()
		default:
			if n.curv > Affine {
				r.curv = UnknownCurvature
			}
		}
		if r.curv == UnknownCurvature && r.why == "" {
			r.why = fmt.Sprintf("%s: the argument %s is %v and %s is not monotone in it", r.text, n.text, n.curv, a.name)
		}
		return Fn{r}
	}
	for k, n := range r.args {
		if n.curv <= Affine {
			continue
		}
		mono := a.mono(r, k).resolve(n.sign)
		ok := false
		switch {
		case a.curv == Convex && n.curv == Convex:
			ok = mono == Increasing
		case a.curv == Convex && n.curv == Concave:
			ok = mono == Decreasing
		case a.curv == Concave && n.curv == Concave:
			ok = mono == Increasing
		case a.curv == Concave && n.curv == Convex:
			ok = mono == Decreasing
		}
		if !ok {
			r.curv = UnknownCurvature
			if r.why == "" {
				need := "increasing in a convex argument or decreasing in a concave one"
				if a.curv == Concave {
					need = "increasing in a concave argument or decreasing in a convex one"
				}
				what := fmt.Sprintf("%v", n.curv)
				if n.curv == UnknownCurvature {
					what = "of unknown curvature"
				}
				r.why = fmt.Sprintf("%s: argument %d, %s, is %s and %s is %v in it; a %v atom must be %s", r.text, k+1, n.text, what, a.name, a.mono(r, k), a.curv, need)
			}
		}
	}
	return Fn{r}
}

// canonFn returns the canonical affine form of f in m, adding epigraph
// variables and cone constraints for its atoms (once per node).
func (m *Model) canonFn(f *fnode) Expr {
	if f.canon != nil && f.canonM == m {
		return Expr{f.canon}
	}
	var e Expr
	switch {
	case f.aff != nil:
		e = Expr{f.aff}
	case f.atom == nil:
		for k, a := range f.args {
			e = e.AddScaled(f.coef[k], m.canonFn(a))
		}
	default:
		args := make([]Expr, len(f.args))
		for k, a := range f.args {
			args[k] = m.canonFn(a)
		}
		e = f.atom.canon(m, f, args)
	}
	d := e.node().data()
	if d.rows*d.cols == f.n && (d.rows != f.rows || d.cols != f.cols) {
		d = &expr{m: d.m, n: d.n, rows: f.rows, cols: f.cols, ptr: d.ptr, idx: d.idx, val: d.val, cst: d.cst, err: d.err}
	}
	f.canon, f.canonM = d, m
	return Expr{d}
}

// auxName returns a fresh name "_<atom><k>" for auxiliary variables and
// constraints.
func (m *Model) auxName(atom string) string {
	m.naux++
	base := fmt.Sprintf("_%s%d", strings.ToLower(atom), m.naux)
	for m.varNames[base] != nil || m.conNames[base] != nil {
		base += "_"
	}
	return base
}

// epigraph adds an auxiliary variable of length n (shape rows×cols) for atom.
func (m *Model) epigraph(atom string, rows, cols int) (*Var, string) {
	name := m.auxName(atom)
	return m.Matrix(name, rows, cols), name
}

// checkUse returns the error that forbids using f in m (a carried error, a
// model mismatch or a DCP violation), or nil.
func (m *Model) checkUse(op string, f *fnode) error {
	if f.err != nil {
		return f.err
	}
	if f.m != nil && f.m != m {
		return errf(ErrModelMismatch, "%s: %s uses variables of model %q", op, f.text, f.m.name)
	}
	if f.why != "" {
		return errf(ErrNotDCP, "%s(%s): %s", op, f.text, f.why)
	}
	return nil
}

// MinimizeFn sets the objective to minimize f, a convex (or affine) length-1
// expression; a non-convex f records an error wrapping ErrNotDCP naming f.
// Quadratic terms (SumSquares, QuadForm) with positive coefficients at the
// top level of f stay quadratic objective terms (the backend sees a QP); all
// other atoms are canonicalized into cone constraints. It replaces any earlier
// objective; Result.Objective is the optimal value of f.
func (m *Model) MinimizeFn(f Arg) { m.objectiveFn("Minimize", false, argNode(f)) }

// MaximizeFn sets the objective to maximize f, a concave (or affine) length-1
// expression (see MinimizeFn); a convex f records an error wrapping
// ErrNotDCP, e.g. "Maximize(Norm2(x)): maximizing a convex expression is not
// DCP".
func (m *Model) MaximizeFn(f Arg) { m.objectiveFn("Maximize", true, argNode(f)) }

func (m *Model) objectiveFn(op string, maximize bool, f *fnode) {
	if err := m.checkUse(op, f); err != nil {
		m.recordErr(err)
		return
	}
	if f.n != 1 {
		m.recordErr(errf(ErrDimension, "%s(%s): objective has length %d, must be 1 (use Sum)", op, f.text, f.n))
		return
	}
	if !maximize && !f.curv.IsConvex() {
		m.recordErr(errf(ErrNotDCP, "%s(%s): minimizing a %v expression is not DCP", op, f.text, f.curv))
		return
	}
	if maximize && !f.curv.IsConcave() {
		m.recordErr(errf(ErrNotDCP, "%s(%s): maximizing a %v expression is not DCP", op, f.text, f.curv))
		return
	}
	// Keep top-level quadratic terms as Quadratics.
	var quad []Quadratic
	var lin Expr
	sign := 1.0
	if maximize {
		sign = -1
	}
	var walk func(n *fnode, c float64)
	walk = func(n *fnode, c float64) {
		if n.atom == nil && n.aff == nil {
			for k, a := range n.args {
				walk(a, c*n.coef[k])
			}
			return
		}
		if q, ok := n.data.(*Quadratic); ok && n.atom == atomQuadratic && sign*c > 0 {
			quad = append(quad, q.Scale(sign*c))
			return
		}
		lin = lin.AddScaled(c, m.canonFn(n))
	}
	walk(f, 1)
	if maximize {
		m.Maximize(lin, quad...)
	} else {
		m.Minimize(lin, quad...)
	}
}

// LessEqFn adds lhs ≤ rhs for a convex lhs and a concave rhs (affine sides
// allowed; lengths equal or one of them 1). The atoms are canonicalized into
// auxiliary variables and cone constraints and the returned constraint is the
// linear row t_lhs ≤ t_rhs between the canonical forms: its Result.Dual is
// the constraint's multiplier (≥ 0, the objective's improvement per unit
// relaxation), as for LessEq. A non-DCP side records an error wrapping
// ErrNotDCP naming the constraint and the side.
func (m *Model) LessEqFn(name string, lhs, rhs Arg) *Constraint {
	return m.compareFn("LessEqFn", name, KindLessEq, argNode(lhs), argNode(rhs))
}

// GreaterEqFn adds lhs ≥ rhs for a concave lhs and a convex rhs (see
// LessEqFn).
func (m *Model) GreaterEqFn(name string, lhs, rhs Arg) *Constraint {
	return m.compareFn("GreaterEqFn", name, KindGreaterEq, argNode(lhs), argNode(rhs))
}

func (m *Model) compareFn(op, name string, kind ConstraintKind, lhs, rhs *fnode) *Constraint {
	rel := "<="
	cvx, ccv := lhs, rhs
	if kind == KindGreaterEq {
		rel = ">="
		cvx, ccv = rhs, lhs
	}
	desc := fmt.Sprintf("%s %s %s", lhs.text, rel, rhs.text)
	err := firstErr(m.checkUse(op, lhs), m.checkUse(op, rhs))
	if err == nil && !cvx.curv.IsConvex() {
		err = errf(ErrNotDCP, "%s %q (%s): %s is %v; a DCP inequality needs a convex side ≤ a concave side", op, name, desc, cvx.text, cvx.curv)
	}
	if err == nil && !ccv.curv.IsConcave() {
		err = errf(ErrNotDCP, "%s %q (%s): %s is %v; a DCP inequality needs a convex side ≤ a concave side", op, name, desc, ccv.text, ccv.curv)
	}
	if err != nil {
		return m.newConstraint(name, kind, err)
	}
	l, r := m.canonFn(lhs), m.canonFn(rhs)
	if kind == KindGreaterEq {
		return m.GreaterEq(name, l, r)
	}
	return m.LessEq(name, l, r)
}

// FnValue returns the value of f at the solution, computed from the values of
// its affine leaves through the atoms' definitions (not from epigraph
// variables), or nil when no solution is available or f carries an error.
func (r *Result) FnValue(f Arg) []float64 {
	n := argNode(f)
	if n.err != nil || r.x == nil {
		return nil
	}
	return r.evalFn(n)
}

func (r *Result) evalFn(f *fnode) []float64 {
	switch {
	case f.aff != nil:
		return r.ExprValue(Expr{f.aff})
	case f.atom == nil:
		out := make([]float64, f.n)
		for k, a := range f.args {
			v := r.evalFn(a)
			if v == nil {
				return nil
			}
			for i := range out {
				out[i] += f.coef[k] * v[min(i, len(v)-1)]
			}
		}
		return out
	}
	vals := make([][]float64, len(f.args))
	for k, a := range f.args {
		if vals[k] = r.evalFn(a); vals[k] == nil {
			return nil
		}
	}
	return f.atom.eval(f, vals)
}
