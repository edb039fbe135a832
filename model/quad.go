package model

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// quadKind distinguishes the two quadratic forms.
type quadKind int

const (
	quadSumSquares quadKind = iota
	quadForm
)

// Quadratic is a convex quadratic objective term, a·‖e‖₂² (SumSquares) or
// a·xᵀQx with Q ⪰ 0 (QuadForm), a ≥ 0. The zero value is the zero term.
type Quadratic struct {
	kind  quadKind
	e     Expr
	q     *mat.SymDense // QuadForm only (a copy)
	scale float64
	err   error
	// lift overrides the automatic lifting rule of SumSquares: 0 auto, 1 lift,
	// −1 never lift.
	lift int
}

// SumSquares returns the quadratic term ‖e‖₂² = Σᵢ e[i]² of an affine
// expression e = A·x + c. In the standard form (½xᵀPx + qᵀx + r) it contributes
// either directly
//
//	P += 2AᵀA,  q += 2Aᵀc,  r += cᵀc,
//
// or, when AᵀA would be much denser than A, through auxiliary variables
// y = A·x + c (zero-cone rows appended after all other rows, columns after all
// user variables) and P += 2I on y. The rule: lift when the bound
// min(Σᵢ kᵢ(kᵢ+1)/2, K(K+1)/2) on the upper-triangle entries of AᵀA exceeds
// both 4·(nnz(A) + len(e)) (the lifted form stores about nnz(A) + 3·len(e)
// numbers) and 10⁴ (a small P is cheap however dense), with kᵢ the nonzeros
// of row i and K the number of distinct columns of A. Lifted forces either
// choice.
func SumSquares(e Expr) Quadratic {
	return Quadratic{kind: quadSumSquares, e: e, scale: 1, err: e.Err()}
}

// QuadForm returns the quadratic term xᵀQx of an affine expression x of length
// n and a symmetric n×n matrix Q, which must be positive semidefinite: its
// smallest eigenvalue (gonum's symmetric eigendecomposition) must be ≥
// −1e-10·max|Qᵢⱼ|, otherwise the term carries an error wrapping ErrNonConvex.
// With x = A·x̂ + c it contributes P += 2AᵀQA, q += 2AᵀQc, r += cᵀQc. Q is
// copied; the eigenvalue check costs O(n³) and canonicalization O(n²) plus the
// products, so QuadForm suits dense Q of moderate order (n ≲ 2000); for large
// or sparse Q = FᵀF use SumSquares(F·x).
func QuadForm(x Expr, q mat.Symmetric) Quadratic {
	t := Quadratic{kind: quadForm, e: x, scale: 1, err: x.Err()}
	if t.err != nil {
		return t
	}
	if q == nil {
		t.err = errf(ErrInvalidArgument, "QuadForm: Q is nil")
		return t
	}
	n := q.SymmetricDim()
	if n != x.Len() {
		t.err = errf(ErrDimension, "QuadForm: Q is %d×%d, x has length %d", n, n, x.Len())
		return t
	}
	t.q = mat.NewSymDense(n, nil)
	t.q.CopySym(q)
	maxAbs := 0.0
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			v := t.q.At(i, j)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.err = errf(ErrNotFinite, "QuadForm: Q[%d,%d] is %v, must be finite", i, j, v)
				return t
			}
			maxAbs = math.Max(maxAbs, math.Abs(v))
		}
	}
	if n == 0 || maxAbs == 0 {
		return t
	}
	var eig mat.EigenSym
	if !eig.Factorize(t.q, false) {
		t.err = errf(ErrNonConvex, "QuadForm: eigendecomposition of Q failed, cannot verify Q ⪰ 0")
		return t
	}
	if lmin := eig.Values(nil)[0]; lmin < -1e-10*maxAbs {
		t.err = errf(ErrNonConvex, "QuadForm: Q has eigenvalue %.6g < 0 (tolerance −1e-10·max|Q| = %.3g); Q must be positive semidefinite", lmin, -1e-10*maxAbs)
	}
	return t
}

// Scale returns a·(the term). a must be finite and ≥ 0; a negative a gives a
// term carrying ErrNonConvex.
func (t Quadratic) Scale(a float64) Quadratic {
	if t.err != nil {
		return t
	}
	switch {
	case math.IsNaN(a) || math.IsInf(a, 0):
		t.err = errf(ErrNotFinite, "Quadratic.Scale: factor is %v, must be finite", a)
	case a < 0:
		t.err = errf(ErrNonConvex, "Quadratic.Scale: factor is %v, must be ≥ 0 for a convex term", a)
	default:
		t.scale *= a
	}
	return t
}

// Lifted returns the term with the SumSquares lifting decision forced: true
// always introduces auxiliary variables y = A·x + c, false never does. It has
// no effect on QuadForm terms.
func (t Quadratic) Lifted(lift bool) Quadratic {
	if lift {
		t.lift = 1
	} else {
		t.lift = -1
	}
	return t
}

// Err returns the error carried by the term, or nil.
func (t Quadratic) Err() error { return t.err }

// Value returns the term's value at a standard-form point x (see Expr.Eval);
// NaN if x is too short.
func (t Quadratic) Value(x []float64) float64 {
	if t.e.Len() == 0 && t.q == nil {
		return 0
	}
	v := t.e.Eval(x)
	if v == nil {
		return math.NaN()
	}
	s := 0.0
	if t.kind == quadForm {
		n := len(v)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				s += v[i] * t.q.At(i, j) * v[j]
			}
		}
	} else {
		for _, vi := range v {
			s += vi * vi
		}
	}
	return t.scale * s
}

// objective is the model's objective: sense·(lin) + Σ quad to be minimized
// (sense −1 for Maximize).
type objective struct {
	set      bool
	maximize bool
	lin      *expr // nil: zero
	quad     []Quadratic
	pdots    []pdot // parametric terms θᵀe (AddObjectiveDot)
}

// Minimize sets the objective to minimize obj + Σ quad, where obj is a length-1
// affine expression (the zero Expr means 0). It replaces any earlier objective.
func (m *Model) Minimize(obj Expr, quad ...Quadratic) { m.setObjective("Minimize", false, obj, quad) }

// Maximize sets the objective to maximize obj − Σ quad (a concave objective),
// i.e. the standard form minimizes −obj + Σ quad; Result.Objective is reported
// as the maximized value obj − Σ quad. It replaces any earlier objective.
func (m *Model) Maximize(obj Expr, quad ...Quadratic) { m.setObjective("Maximize", true, obj, quad) }

func (m *Model) setObjective(op string, maximize bool, obj Expr, quad []Quadratic) {
	m.obj = objective{set: true, maximize: maximize, quad: append([]Quadratic(nil), quad...)}
	if obj.x != nil {
		d, err := m.use(op, "objective", obj)
		if err == nil && d.n != 1 {
			err = errf(ErrDimension, "%s: objective has length %d, must be 1 (use Sum or Dot)", op, d.n)
		}
		if err != nil {
			m.recordErr(err)
			return
		}
		m.obj.lin = d
	}
	for k, t := range quad {
		if t.err != nil {
			m.recordErr(t.err)
			return
		}
		if t.e.x != nil {
			d, err := m.use(op, "quadratic term", t.e)
			if err == nil && hasParams(d) {
				err = errf(ErrInvalidArgument, "%s: a quadratic term contains parameters; parameters may enter only affine terms", op)
			}
			if err != nil {
				m.recordErr(err)
				return
			}
			m.obj.quad[k].e = Expr{d}
		}
	}
}
