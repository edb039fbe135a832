package lindecision

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/sparse"
)

// SparseVector is a sparse row vector over the columns of the deterministic
// problem: entries Val[t] at columns Idx[t] (indices may not repeat).
type SparseVector struct {
	Idx []int
	Val []float64
}

// RecourseKind says how a variable's row of X may be chosen.
type RecourseKind int

// Recourse kinds.
const (
	// RecourseFree: every entry X_ij is a decision variable (optimized).
	RecourseFree RecourseKind = iota
	// RecourseZero: X_i = 0, the variable is deterministic (x̃_i = x̄_i).
	RecourseZero
)

// Recourse describes the structure of X outside the query constraints.
// A column may appear in at most one of Zero, Pattern and Fixed; columns in none
// of them get Default.
type Recourse struct {
	// Default applies to every column not listed below (RecourseFree if zero).
	Default RecourseKind
	// Zero lists columns whose row of X is fixed to zero.
	Zero []int
	// Pattern maps a column to the noise components j whose entries X_ij are
	// free; the other entries of that row are fixed to zero (a user sparsity
	// pattern).
	Pattern map[int][]int
	// Fixed maps a column to a fixed row of X (length k).
	Fixed map[int][]float64
}

// Spec is everything Lift needs besides the deterministic problem.
type Spec struct {
	// Noise is the perturbation ζ (k = Noise.K() components).
	Noise Perturbation
	// Query holds the k rows of the linear query Q (one per noise component) or
	// is nil for no query constraint. Lift enforces Q X = I so that the random
	// part of the released Q x̃ is exactly ζ, independent of the data.
	Query []SparseVector
	// Recourse is the structure of X outside the query constraints.
	Recourse Recourse
}

// ErrInfeasible is wrapped by *InfeasibleError.
var ErrInfeasible = errors.New("lindecision: lifted program is infeasible")

// InfeasibleError reports a lifted program that is infeasible by structure,
// before any solve: for example an equality row whose random part is a non-zero
// constant (the noise enters an equality with a coefficient no decision can
// cancel), or a query incompatible with the fixed recourse.
type InfeasibleError struct {
	Row    int // base row (−1 if not tied to a row)
	Reason string
}

// Error describes the infeasibility or the refused release.
func (e *InfeasibleError) Error() string {
	if e.Row >= 0 {
		return fmt.Sprintf("lindecision: lifted program is infeasible at row %d: %s", e.Row, e.Reason)
	}
	return "lindecision: lifted program is infeasible: " + e.Reason
}

// Is makes errors.Is(err, ErrInfeasible) true.
func (e *InfeasibleError) Is(target error) bool { return target == ErrInfeasible }

// StructuralTolerance is the magnitude below which a constant random
// coefficient of an equality row is treated as zero.
const StructuralTolerance = 1e-12

// Lifted is the linear-decision-rule counterpart of a deterministic problem:
// its expected objective and equalities are deterministic functions of the
// lifted decision vector v = (x̄, free entries of X); its conic rows are random
// slacks (RandomAffine), to be turned into deterministic constraints by package
// chance. A Lifted is immutable and safe for concurrent use.
type Lifted struct {
	base    *solver.Problem
	n, k    int
	noise   Perturbation
	sigma   *mat.SymDense
	xcol    []int     // n·k: lifted column of X_ij, or −1 if fixed
	xfix    []float64 // n·k: value of X_ij when fixed
	numVars int
	at      *sparse.CSC // Aᵀ: column i holds row i of A

	// Deterministic equalities (each = 0), flat CSR.
	eqConst []float64
	eqPtr   []int
	eqIdx   []int
	eqVal   []float64
	eqRow   []int // base row (−1 for query equalities)

	// Expected objective ½vᵀPv + qᵀv + r.
	objP *sparse.CSC
	objQ []float64
	objR float64

	rowKind  []cone.Kind // per base row
	queryFix []bool      // per column: row of X fixed by the query
}

// Lift builds the linear-decision-rule counterpart of p. It validates p and the
// spec, fixes or constrains X for the query, replaces equality rows by their
// deterministic equivalents (Remark 3.5) and computes the exact expected
// objective. It runs in O(nnz(A)·k + nnz(P)·nnz(Σ)).
func Lift(p *solver.Problem, spec Spec) (*Lifted, error) {
	if p == nil {
		return nil, invalidf("problem is nil")
	}
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	if err := spec.Noise.Validate(); err != nil {
		return nil, err
	}
	n, k := p.NumVars(), spec.Noise.K()
	l := &Lifted{base: p, n: n, k: k, noise: spec.Noise, sigma: spec.Noise.Sigma()}
	if err := l.layout(spec); err != nil {
		return nil, err
	}
	l.at = p.A.Transpose()
	l.rowKind = make([]cone.Kind, p.NumRows())
	row := 0
	for _, c := range p.Cones {
		for t := 0; t < c.Dim; t++ {
			l.rowKind[row+t] = c.Kind
		}
		row += c.Dim
	}
	l.eqPtr = []int{0}
	if err := l.queryEqualities(spec.Query); err != nil {
		return nil, err
	}
	if err := l.equalityRows(); err != nil {
		return nil, err
	}
	l.objective()
	return l, nil
}

// layout decides, for every entry X_ij, whether it is a variable or a constant.
func (l *Lifted) layout(spec Spec) error {
	n, k := l.n, l.k
	kind := make([]int8, n) // 0 default, 1 zero, 2 pattern, 3 fixed, 4 query-fixed
	l.xfix = make([]float64, n*k)
	free := make([]bool, n*k)
	seen := func(c int, what string) error {
		if c < 0 || c >= n {
			return invalidf("recourse %s lists column %d, out of range [0,%d)", what, c, n)
		}
		if kind[c] != 0 {
			return invalidf("recourse lists column %d more than once (in %s)", c, what)
		}
		return nil
	}
	for _, c := range spec.Recourse.Zero {
		if err := seen(c, "Zero"); err != nil {
			return err
		}
		kind[c] = 1
	}
	for c, js := range spec.Recourse.Pattern {
		if err := seen(c, "Pattern"); err != nil {
			return err
		}
		kind[c] = 2
		for _, j := range js {
			if j < 0 || j >= k {
				return invalidf("recourse Pattern[%d] lists component %d, out of range [0,%d)", c, j, k)
			}
			free[c*k+j] = true
		}
	}
	for c, row := range spec.Recourse.Fixed {
		if err := seen(c, "Fixed"); err != nil {
			return err
		}
		if len(row) != k {
			return invalidf("recourse Fixed[%d] has length %d, want k = %d", c, len(row), k)
		}
		kind[c] = 3
		for j, v := range row {
			if !finite(v) {
				return invalidf("recourse Fixed[%d][%d] is %v, must be finite", c, j, v)
			}
			l.xfix[c*k+j] = v
		}
	}
	if spec.Recourse.Default != RecourseFree && spec.Recourse.Default != RecourseZero {
		return invalidf("recourse Default is %d, must be RecourseFree or RecourseZero", spec.Recourse.Default)
	}
	// Query rows: validate and find rows that fix a row of X outright.
	if spec.Query != nil && len(spec.Query) != k {
		return invalidf("query has %d rows, want k = %d (one per noise component)", len(spec.Query), k)
	}
	touch := make(map[int]int)
	for r, q := range spec.Query {
		if len(q.Idx) != len(q.Val) {
			return invalidf("query row %d has %d indices and %d values", r, len(q.Idx), len(q.Val))
		}
		nz := 0
		for t, c := range q.Idx {
			if c < 0 || c >= n {
				return invalidf("query row %d has column %d, out of range [0,%d)", r, c, n)
			}
			if !finite(q.Val[t]) {
				return invalidf("query row %d has value %v at column %d, must be finite", r, q.Val[t], c)
			}
			if q.Val[t] != 0 {
				nz++
				touch[c]++
			}
		}
		if nz == 0 {
			return invalidf("query row %d is zero", r)
		}
	}
	l.queryFix = make([]bool, n)
	for r, q := range spec.Query {
		c, v, nz := -1, 0.0, 0
		for t, col := range q.Idx {
			if q.Val[t] != 0 {
				c, v = col, q.Val[t]
				nz++
			}
		}
		if nz != 1 || touch[c] != 1 || kind[c] != 0 {
			continue
		}
		kind[c] = 4
		l.queryFix[c] = true
		for j := 0; j < k; j++ {
			l.xfix[c*k+j] = 0
		}
		l.xfix[c*k+r] = 1 / v
	}
	l.xcol = make([]int, n*k)
	next := n
	for i := 0; i < n; i++ {
		for j := 0; j < k; j++ {
			isVar := false
			switch kind[i] {
			case 0:
				isVar = spec.Recourse.Default == RecourseFree
			case 2:
				isVar = free[i*k+j]
			}
			if isVar {
				l.xcol[i*k+j] = next
				next++
			} else {
				l.xcol[i*k+j] = -1
			}
		}
	}
	l.numVars = next
	return nil
}

func (l *Lifted) pushEq(a *Affine, row int) {
	l.eqConst = append(l.eqConst, a.Const)
	l.eqIdx = append(l.eqIdx, a.Idx...)
	l.eqVal = append(l.eqVal, a.Val...)
	l.eqPtr = append(l.eqPtr, len(l.eqIdx))
	l.eqRow = append(l.eqRow, row)
}

// queryEqualities adds Σ_l Q_rl X_lj = δ_rj for every (r, j) not already
// satisfied by fixed entries.
func (l *Lifted) queryEqualities(q []SparseVector) error {
	var a Affine
	for r, qr := range q {
		for j := 0; j < l.k; j++ {
			a.reset()
			if r == j {
				a.Const = -1
			}
			for t, c := range qr.Idx {
				if col := l.xcol[c*l.k+j]; col >= 0 {
					a.add(col, qr.Val[t])
				} else {
					a.Const += qr.Val[t] * l.xfix[c*l.k+j]
				}
			}
			if a.IsConstant() {
				if math.Abs(a.Const) > StructuralTolerance {
					return &InfeasibleError{Row: -1, Reason: fmt.Sprintf(
						"query row %d cannot satisfy (Q X)[%d][%d] = %v: the recourse of its columns is fixed (Q X − I entry is %v)",
						r, r, j, b2f(r == j), a.Const)}
				}
				continue
			}
			l.pushEq(&a, -1)
		}
	}
	return nil
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// equalityRows applies Remark 3.5 to every zero-cone row.
func (l *Lifted) equalityRows() error {
	var ra RandomAffine
	for i, kd := range l.rowKind {
		if kd != cone.Zero {
			continue
		}
		l.SlackTo(&ra, i)
		if !ra.F0.IsConstant() {
			l.pushEq(&ra.F0, i)
		} else if math.Abs(ra.F0.Const) > StructuralTolerance {
			return &InfeasibleError{Row: i, Reason: fmt.Sprintf("equality row has no variables and residual %v", ra.F0.Const)}
		}
		for j := range ra.F {
			f := &ra.F[j]
			if f.IsConstant() {
				if math.Abs(f.Const) > StructuralTolerance {
					return &InfeasibleError{Row: i, Reason: fmt.Sprintf(
						"noise component %d enters the equality with fixed coefficient %v; no recourse can compensate it (give the row's variables free recourse)", j, f.Const)}
				}
				continue
			}
			l.pushEq(f, i)
		}
	}
	return nil
}

// objective computes E[½x̃ᵀPx̃ + qᵀx̃ + r] over the lifted variables.
func (l *Lifted) objective() {
	p := l.base
	n, k := l.n, l.k
	l.objQ = make([]float64, l.numVars)
	copy(l.objQ, p.Q)
	l.objR = p.R
	if p.P == nil || p.P.Nnz() == 0 {
		l.objP = sparse.NewCSC(l.numVars, l.numVars)
		return
	}
	type sig struct {
		j, jp int
		v     float64
	}
	var sigs []sig
	for j := 0; j < k; j++ {
		for jp := 0; jp < k; jp++ {
			if v := l.sigma.At(j, jp); v != 0 {
				sigs = append(sigs, sig{j, jp, v})
			}
		}
	}
	tr := sparse.NewTriplets(l.numVars, l.numVars, p.P.Nnz()*(1+len(sigs)))
	visit := func(a, b int, pab float64) { // ordered pair (a, b) of the full symmetric P
		for _, s := range sigs {
			h := pab * s.v
			ca, cb := l.xcol[a*k+s.j], l.xcol[b*k+s.jp]
			wa, wb := l.xfix[a*k+s.j], l.xfix[b*k+s.jp]
			switch {
			case ca >= 0 && cb >= 0:
				if ca <= cb {
					tr.Append(ca, cb, h)
				}
			case ca >= 0:
				l.objQ[ca] += 0.5 * h * wb
			case cb >= 0:
				l.objQ[cb] += 0.5 * h * wa
			default:
				l.objR += 0.5 * h * wa * wb
			}
		}
	}
	for b := 0; b < n; b++ {
		for t := p.P.ColPtr[b]; t < p.P.ColPtr[b+1]; t++ {
			a, v := p.P.RowIdx[t], p.P.Val[t]
			tr.Append(a, b, v) // x̄ block, same upper triangle
			visit(a, b, v)
			if a != b {
				visit(b, a, v)
			}
		}
	}
	l.objP = tr.ToCSC()
}

// SlackTo writes the random slack of base row i,
//
//	s_i(ζ) = (b_i − a_iᵀx̄) + Σ_j (−a_iᵀX_j) ζ_j,
//
// into dst (reusing its storage; allocated if nil) and returns it.
func (l *Lifted) SlackTo(dst *RandomAffine, i int) *RandomAffine {
	if dst == nil {
		dst = &RandomAffine{}
	}
	k := l.k
	dst.reset(k)
	dst.F0.Const = l.base.B[i]
	for t := l.at.ColPtr[i]; t < l.at.ColPtr[i+1]; t++ {
		c, a := l.at.RowIdx[t], l.at.Val[t]
		dst.F0.add(c, -a)
		for j := 0; j < k; j++ {
			if col := l.xcol[c*k+j]; col >= 0 {
				dst.F[j].add(col, -a)
			} else if w := l.xfix[c*k+j]; w != 0 {
				dst.F[j].Const -= a * w
			}
		}
	}
	return dst
}

// Slack returns the random slack of base row i (see SlackTo).
func (l *Lifted) Slack(i int) *RandomAffine { return l.SlackTo(nil, i) }

// Base returns the deterministic problem that was lifted (not a copy).
func (l *Lifted) Base() *solver.Problem { return l.base }

// N returns the number of variables of the deterministic problem.
func (l *Lifted) N() int { return l.n }

// K returns the number of noise components.
func (l *Lifted) K() int { return l.k }

// Noise returns the perturbation.
func (l *Lifted) Noise() *Perturbation { return &l.noise }

// NumVars returns the length of the lifted decision vector v.
func (l *Lifted) NumVars() int { return l.numVars }

// NumRecourseVars returns the number of free entries of X.
func (l *Lifted) NumRecourseVars() int { return l.numVars - l.n }

// XCol returns the lifted column of X_ij, or −1 when X_ij is a constant.
func (l *Lifted) XCol(i, j int) int { return l.xcol[i*l.k+j] }

// XFixed returns the constant value of X_ij (meaningful when XCol(i, j) < 0).
func (l *Lifted) XFixed(i, j int) float64 { return l.xfix[i*l.k+j] }

// QueryFixed reports whether column i's row of X was fixed by a query row with
// a single entry (the identity query).
func (l *Lifted) QueryFixed(i int) bool { return l.queryFix[i] }

// RowKind returns the cone kind of base row i.
func (l *Lifted) RowKind(i int) cone.Kind { return l.rowKind[i] }

// NumEqualities returns the number of deterministic equalities (query
// constraints and Remark 3.5 rows).
func (l *Lifted) NumEqualities() int { return len(l.eqConst) }

// Equality returns deterministic equality r (the function that must be 0) and
// the base row it came from (−1 for query constraints). The slices alias
// internal storage: do not modify them.
func (l *Lifted) Equality(r int) (Affine, int) {
	lo, hi := l.eqPtr[r], l.eqPtr[r+1]
	return Affine{Const: l.eqConst[r], Idx: l.eqIdx[lo:hi:hi], Val: l.eqVal[lo:hi:hi]}, l.eqRow[r]
}

// Objective returns the exact expected objective E[½x̃ᵀPx̃ + qᵀx̃ + r] as
// ½vᵀP v + qᵀv + r over the lifted variables (P upper triangle; shared
// storage, do not modify).
func (l *Lifted) Objective() (p *sparse.CSC, q []float64, r float64) { return l.objP, l.objQ, l.objR }

// Rule is an optimized linear decision rule x̃(ζ) = XBar + X ζ.
type Rule struct {
	XBar []float64  // length n
	X    *mat.Dense // n×k
}

// Apply writes x̃(ζ) = XBar + Xζ to dst (allocated if nil) and returns it.
func (r *Rule) Apply(dst, zeta []float64) []float64 {
	n, k := r.X.Dims()
	if dst == nil {
		dst = make([]float64, n)
	}
	raw := r.X.RawMatrix()
	for i := 0; i < n; i++ {
		s := r.XBar[i]
		row := raw.Data[i*raw.Stride : i*raw.Stride+k]
		for j, x := range row {
			s += x * zeta[j]
		}
		dst[i] = s
	}
	return dst
}

// Rule decodes a lifted decision vector v (length ≥ NumVars; auxiliary
// variables after NumVars are ignored) into the decision rule.
func (l *Lifted) Rule(v []float64) (*Rule, error) {
	if len(v) < l.numVars {
		return nil, invalidf("decision vector has length %d, want ≥ %d", len(v), l.numVars)
	}
	r := &Rule{XBar: append([]float64(nil), v[:l.n]...), X: mat.NewDense(l.n, l.k, nil)}
	for i := 0; i < l.n; i++ {
		for j := 0; j < l.k; j++ {
			if c := l.xcol[i*l.k+j]; c >= 0 {
				r.X.Set(i, j, v[c])
			} else {
				r.X.Set(i, j, l.xfix[i*l.k+j])
			}
		}
	}
	return r, nil
}

// RandomRows returns the base rows whose slack is a chance constraint: rows of
// nonnegative or conic blocks (every kind but Zero), in increasing order.
func (l *Lifted) RandomRows() []int {
	var rows []int
	for i, kd := range l.rowKind {
		if kd != cone.Zero {
			rows = append(rows, i)
		}
	}
	sort.Ints(rows)
	return rows
}

// LinearObjective returns the linear part of the objective under the decision
// rule as a random-affine function of ζ:
//
//	qᵀx̃ + r = (qᵀx̄ + r) + Σ_j (qᵀX_j)·ζ_j.
//
// It is the loss whose CVaR package chance can optimize (eqs. 12c–13).
func (l *Lifted) LinearObjective() *RandomAffine {
	ra := &RandomAffine{}
	ra.reset(l.k)
	ra.F0.Const = l.base.R
	for i, q := range l.base.Q {
		if q == 0 {
			continue
		}
		ra.F0.add(i, q)
		for j := 0; j < l.k; j++ {
			if c := l.xcol[i*l.k+j]; c >= 0 {
				ra.F[j].add(c, q)
			} else {
				ra.F[j].Const += q * l.xfix[i*l.k+j]
			}
		}
	}
	return ra
}

// DecisionAtTo writes x̃_i(ζ) = x̄_i + Σ_j ζ_j X_ij, an affine function of the
// lifted vector v for fixed ζ, into dst (reusing its storage) and returns it.
func (l *Lifted) DecisionAtTo(dst *Affine, i int, zeta []float64) *Affine {
	if dst == nil {
		dst = &Affine{}
	}
	dst.reset()
	dst.add(i, 1)
	for j, z := range zeta {
		if z == 0 {
			continue
		}
		if c := l.xcol[i*l.k+j]; c >= 0 {
			dst.add(c, z)
		} else {
			dst.Const += z * l.xfix[i*l.k+j]
		}
	}
	return dst
}
