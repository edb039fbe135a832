package chance

import (
	"context"
	crand "crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/lindecision"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/auto" // also registers auto, highs and ipm for solver.ByName
)

// ErrInvalid is wrapped by every validation error of this package.
var ErrInvalid = errors.New("chance: invalid input")

func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

// Method is a deterministic reformulation of the joint chance constraint
// Pr[b − A(x̄ + Xζ) ∈ K] ≥ 1 − η.
type Method int

// Methods.
const (
	// Vertex: draw S samples of ζ (S from VertexSampleSize, Prop. 3.3), take the
	// box of their component-wise minima and maxima and enforce the constraints
	// for every ζ in the box (Margellos et al. 2014). Linear rows use the exact
	// robust counterpart over the box,
	//     f0 + Σ_j c_j f_j − Σ_j w_j t_j ≥ 0,  t_j ≥ ±f_j
	// (c centre, w half-width): no 2ᵏ enumeration. Conic rows are enforced at
	// the box's vertices (at most Spec.MaxVertices). Guarantee: with confidence
	// ≥ 1 − β the joint violation probability is ≤ η (conservative).
	Vertex Method = iota
	// Scenario: enforce the constraints at N samples of ζ, N the smallest
	// integer with Σ_{i<d} C(N,i)ηⁱ(1−η)^{N−i} ≤ β, d = number of lifted decision
	// variables (Campi and Garatti 2008). Guarantee: with confidence ≥ 1 − β the
	// joint violation probability is ≤ η.
	Scenario
	// Bonferroni: split η over the random linear rows (η_i = η·w_i/Σw, uniform
	// by default) and reformulate each individual constraint analytically:
	// f0 ≥ z(η_i)·‖Fᵀf‖ as a second-order cone (Remark 3.4), or, when only one
	// noise component enters the row, the linear constraint with that
	// component's exact quantiles. Linear rows only.
	Bonferroni
	// Robust: enforce the constraints for every ζ in the support box of the noise
	// (bounded support required: truncated Laplace, optimal noise, uniform…).
	// Feasible with probability one; no sampling.
	Robust
)

var methodNames = [...]string{Vertex: "vertex", Scenario: "scenario", Bonferroni: "bonferroni", Robust: "robust"}

// String returns the method's name.
func (m Method) String() string {
	if m < 0 || int(m) >= len(methodNames) {
		return fmt.Sprintf("Method(%d)", int(m))
	}
	return methodNames[m]
}

// ParseMethod returns the method named s ("vertex", "scenario", "bonferroni",
// "robust").
func ParseMethod(s string) (Method, error) {
	for i, n := range methodNames {
		if n == strings.ToLower(s) {
			return Method(i), nil
		}
	}
	return 0, invalidf("unknown method %q (want vertex, scenario, bonferroni or robust)", s)
}

// Approximation is the method and risk for one group of rows.
type Approximation struct {
	Method Method
	// Eta is the joint violation probability η ∈ (0, 1) of the group (ignored by
	// Robust, which guarantees probability one).
	Eta float64
	// Beta is the confidence parameter β ∈ (0, 1) of sampled methods (Vertex,
	// Scenario); ignored otherwise.
	Beta float64
	// Safety is the Bonferroni safety factor for rows with several noise
	// components (default Cantelli, distribution-free).
	Safety Safety
	// Weights optionally maps base rows to positive Bonferroni weights
	// (η_i ∝ weight; missing rows weigh 1).
	Weights map[int]float64
	// SampleSize overrides the sample size of Vertex or Scenario; it must not be
	// smaller than the formula's value (0 means use the formula).
	SampleSize int
	// ReleaseMargin m ≥ 0 says that the noise actually released differs from a
	// draw of the distribution by at most m per component (the rounding of a
	// floating-point-safe release: Laplace snapping rounds to multiples of
	// Λ, m = Λ/2). Vertex and Robust widen their box by m; Bonferroni widens
	// single-component quantiles by m and subtracts m·Σ_j|f_j| from rows with
	// several components, so every guarantee covers the released noise.
	ReleaseMargin float64
	// Individual (Bonferroni only) makes Eta the violation probability of
	// each random row separately — individual chance constraints, the
	// formulation of Dvorkin et al.'s experiments (eq. 16 imposed row by
	// row) — instead of splitting it over the rows. The joint guarantee
	// is then only the union bound min(1, m·Eta) over the m random rows,
	// which Guarantee.Eta reports.
	Individual bool
}

// Validate checks the risk parameters for the method.
func (a *Approximation) Validate() error {
	switch a.Method {
	case Vertex, Scenario:
		if err := checkRisk("eta", a.Eta); err != nil {
			return err
		}
		if err := checkRisk("beta", a.Beta); err != nil {
			return err
		}
	case Bonferroni:
		if err := checkRisk("eta", a.Eta); err != nil {
			return err
		}
		if _, err := a.Safety.Factor(0.5); err != nil {
			return err
		}
		for r, w := range a.Weights {
			if !(w > 0) || math.IsInf(w, 0) {
				return invalidf("Bonferroni weight of row %d is %v, must be > 0 and finite", r, w)
			}
		}
	case Robust:
	default:
		return invalidf("unknown method %d", int(a.Method))
	}
	if a.SampleSize < 0 {
		return invalidf("SampleSize is %d, must be ≥ 0", a.SampleSize)
	}
	if !(a.ReleaseMargin >= 0) || math.IsInf(a.ReleaseMargin, 0) {
		return invalidf("ReleaseMargin is %v, must be ≥ 0 and finite", a.ReleaseMargin)
	}
	if a.Individual && (a.Method != Bonferroni || len(a.Weights) > 0) {
		return invalidf("Individual applies to the Bonferroni method without Weights, got method %v with %d weights", a.Method, len(a.Weights))
	}
	return nil
}

// Group assigns its own approximation to a set of base rows (whole cone blocks
// for conic rows). The joint guarantee of several groups follows from the union
// bound: η = Σ η_g, β = Σ β_g.
type Group struct {
	Rows []int
	Approximation
}

// Spec configures Reformulate.
type Spec struct {
	// Approximation applies to every random row not in a Group.
	Approximation
	// Groups optionally give other rows their own approximation.
	Groups []Group
	// MaxVertices caps the number of box vertices enumerated for one conic block
	// (default 4096).
	MaxVertices int
	// MaxRows caps the rows of the counterpart built by sampled methods (default
	// 10,000,000) to fail early instead of exhausting memory.
	MaxRows int
	// CVaR, if set, puts the conditional value-at-risk of the objective into the
	// objective.
	CVaR *CVaR
	// Rand draws the samples of Vertex and Scenario. Nil means a PCG generator
	// seeded from crypto/rand. The samples are not secret: they only shape the
	// uncertainty set; the released noise is drawn elsewhere (package query).
	Rand *rand.Rand
	// Upper optionally proposes the upper copy when the interval fast path's
	// copies decouple (see Solve): given an optimal point xLo of the base
	// problem and d > 0, a point of the base problem's feasible set whose
	// query value exceeds xLo's by d, or nil. It is a shortcut, never trusted:
	// the proposal is checked against the base rows and the assembled solution
	// re-checked on the counterpart, and the upper copy is solved as a problem
	// of its own when either check fails.
	Upper func(xLo []float64, d float64) []float64
}

// CVaR configures risk-averse optimization of the objective ℓ(x̃) by
// the sample approximation of Rockafellar and Uryasev (2000), Dvorkin et al.
// eqs. (12c)–(13):
//
//	CVaR_α[ℓ] ≈ min_γ  γ + 1/((1−α)S) Σ_s z_s,   z_s ≥ 0,  z_s ≥ ℓ(x̄ + Xζ_s) − γ,
//
// over S samples ζ_s, for ℓ(x̃) = ½x̃ᵀPx̃ + qᵀx̃ + r (a quadratic ℓ makes the
// second constraint a rotated second-order cone). The counterpart minimizes
// (1 − w)·E[ℓ] + w·CVaR_α[ℓ].
// Since ℓ(x*) is a constant, this is also the CVaR of the optimality loss.
type CVaR struct {
	// Alpha ∈ (0, 1) is the level: the mean of the worst (1 − α) fraction.
	Alpha float64
	// Samples S (default 1000).
	Samples int
	// Weight w ∈ (0, 1]; 0 means 1 (pure CVaR).
	Weight float64
	// MaxQuadraticDim caps the number of columns a quadratic objective may
	// touch (P is factored densely; default 2000). A quadratic objective makes
	// one rotated second-order cone per sample (interior-point solver).
	MaxQuadraticDim int
}

// resolved returns the sample count and weight with their defaults (1000
// samples, weight 1).
func (c *CVaR) resolved() (samples int, weight float64) {
	samples, weight = c.Samples, c.Weight
	if samples == 0 {
		samples = 1000
	}
	if weight == 0 {
		weight = 1
	}
	return samples, weight
}

// Validate checks the level, the sample count and the weight.
func (c *CVaR) Validate() error {
	if !(c.Alpha > 0 && c.Alpha < 1) {
		return invalidf("CVaR Alpha is %v, must be in (0, 1)", c.Alpha)
	}
	if c.Samples < 0 {
		return invalidf("CVaR Samples is %d, must be ≥ 0", c.Samples)
	}
	if !(c.Weight >= 0 && c.Weight <= 1) {
		return invalidf("CVaR Weight is %v, must be in [0, 1]", c.Weight)
	}
	return nil
}

// Validate checks every approximation and the caps.
func (s *Spec) Validate() error {
	if s.CVaR != nil {
		if err := s.CVaR.Validate(); err != nil {
			return err
		}
	}
	if err := s.Approximation.Validate(); err != nil {
		return err
	}
	for g := range s.Groups {
		if err := s.Groups[g].Validate(); err != nil {
			return fmt.Errorf("group %d: %w", g, err)
		}
	}
	if s.MaxVertices < 0 || s.MaxRows < 0 {
		return invalidf("MaxVertices %d and MaxRows %d must be ≥ 0", s.MaxVertices, s.MaxRows)
	}
	return nil
}

// Kind classifies a guarantee.
type Kind int

// Guarantee kinds.
const (
	// Exact: the reformulation is equivalent to the chance constraint.
	Exact Kind = iota
	// Conservative: every solution of the reformulation satisfies the chance
	// constraint (for sampled methods: with confidence ≥ 1 − β).
	Conservative
	// Certain: the constraints hold with probability one.
	Certain
	// Heuristic: no guarantee (a Gaussian safety factor applied to noise that
	// is not Gaussian).
	Heuristic
)

var kindNames = [...]string{Exact: "exact", Conservative: "conservative", Certain: "probability-one", Heuristic: "heuristic (no guarantee)"}

// String returns the kind's name.
func (k Kind) String() string {
	if k < 0 || int(k) >= len(kindNames) {
		return fmt.Sprintf("Kind(%d)", int(k))
	}
	return kindNames[k]
}

// Interval is a closed interval [Lo, Hi].
type Interval struct{ Lo, Hi float64 }

// Guarantee states what a reformulation promises about the decision rule it
// yields: Pr[b − A x̃ ∈ K] ≥ 1 − Eta, with confidence ≥ 1 − Beta for sampled
// methods (Beta = 0 otherwise).
type Guarantee struct {
	Method     string // method name, or "mixed" for several groups
	Eta, Beta  float64
	Kind       Kind
	SampleSize int        // samples drawn (Vertex, Scenario)
	Box        []Interval // uncertainty box (Vertex, Robust)
	Safety     string     // Bonferroni safety factor
	RowRisk    map[int]float64
	Groups     []Guarantee // per group when there are several
	Note       string
}

// String summarizes the guarantee in one line.
func (g Guarantee) String() string {
	s := fmt.Sprintf("%s: Pr[violation] ≤ %g", g.Method, g.Eta)
	if g.Beta > 0 {
		s += fmt.Sprintf(" with confidence ≥ %g", 1-g.Beta)
	}
	return s + " (" + g.Kind.String() + ")"
}

// Stats counts what the reformulation added.
type Stats struct {
	AuxVars  int // auxiliary variables beyond the lifted ones
	Rows     int // rows of the counterpart
	Vertices int // box vertices enumerated for conic rows
	SOC      int // second-order cone blocks added by Bonferroni
}

// Counterpart is the deterministic counterpart of a lifted program: a standard
// form problem over (v, auxiliaries), v = the lifted decision vector.
type Counterpart struct {
	Problem   *solver.Problem
	Lifted    *lindecision.Lifted
	Guarantee Guarantee
	Stats     Stats
	// decode maps a solution of Problem to the decision rule when Problem is
	// not in the lifted variables (the interval fast path); nil means
	// Lifted.Rule.
	decode func(x []float64) (*lindecision.Rule, error)
	// copies is the number of base columns when Problem holds two copies of
	// them (the interval fast path), 0 otherwise.
	copies int
	// split is set when the two copies decouple (split.go).
	split *intervalSplit
}

// BaseColumns returns the columns of Problem that represent base column j:
// for the interval fast path the copies at the two ends of the noise
// interval (j and n + j); nil for the general (x̄, X) form.
func (c *Counterpart) BaseColumns(j int) []int {
	if c.copies == 0 || j < 0 || j >= c.copies {
		return nil
	}
	return []int{j, c.copies + j}
}

// errDegenerate makes Reformulate fall back from the interval fast path when
// the interval has zero width.
var errDegenerate = errors.New("chance: degenerate interval")

// ErrTooManyVertices is wrapped when a conic block would need more box vertices
// than Spec.MaxVertices.
var ErrTooManyVertices = errors.New("chance: too many box vertices")

type reformer struct {
	ctx   context.Context // polled by the sampling loops (pollSampling)
	l     *lindecision.Lifted
	spec  *Spec
	b     builder
	rng   *rand.Rand
	stats Stats
	// blocks of base conic rows: start row → cone
	blockOf []int // per base row: index into blocks, −1 for zero/nonnegative rows
	blocks  []block
}

type block struct {
	start int
	c     cone.Cone
}

// Reformulate builds the deterministic counterpart of the lifted program l: its
// equalities, the expected objective and a deterministic reformulation of the
// joint chance constraint on every non-equality row. The cost is O(nnz(A)·k)
// for Vertex, Robust and Bonferroni on linear rows, plus the samples or vertices
// for sampled methods and conic rows.
func Reformulate(l *lindecision.Lifted, spec Spec) (*Counterpart, error) {
	return ReformulateContext(context.Background(), l, spec)
}

// ReformulateContext is Reformulate with a context polled by the sampling
// loops (vertex boxes, scenarios, CVaR scenarios) every samplePoll draws: when
// it is done, the reformulation stops with an error wrapping ctx.Err(). Vertex
// sampling at a tiny η draws O(k·ln(1/β)/η) samples, minutes at η = 10⁻⁹.
func ReformulateContext(ctx context.Context, l *lindecision.Lifted, spec Spec) (*Counterpart, error) {
	if l == nil {
		return nil, invalidf("lifted program is nil")
	}
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	if spec.MaxVertices == 0 {
		spec.MaxVertices = 4096
	}
	if spec.MaxRows == 0 {
		spec.MaxRows = 10_000_000
	}
	if ctx == nil {
		ctx = context.Background()
	}
	r := &reformer{l: l, spec: &spec, rng: spec.Rand, ctx: ctx}
	if r.rng == nil {
		var seed [16]byte
		if _, err := crand.Read(seed[:]); err != nil {
			return nil, fmt.Errorf("chance: seeding the sampler: %w", err)
		}
		r.rng = rand.New(rand.NewPCG(binary.LittleEndian.Uint64(seed[:8]), binary.LittleEndian.Uint64(seed[8:])))
	}
	if intervalApplies(l, &spec) && !disableInterval {
		if cp, err := r.reformulateInterval(); err != errDegenerate {
			return cp, err
		}
		r.rng = rand.New(rand.NewPCG(r.rng.Uint64(), r.rng.Uint64())) // fresh stream for the general path
	}
	r.b.nv = l.NumVars()
	r.b.objScale = 1
	base := l.Base()
	r.blockOf = make([]int, base.NumRows())
	row := 0
	for _, c := range base.Cones {
		for t := 0; t < c.Dim; t++ {
			r.blockOf[row+t] = -1
			if c.Kind != cone.Zero && c.Kind != cone.Nonnegative {
				r.blockOf[row+t] = len(r.blocks)
			}
		}
		if c.Kind != cone.Zero && c.Kind != cone.Nonnegative {
			r.blocks = append(r.blocks, block{row, c})
		}
		row += c.Dim
	}
	// Linear rows of the box and Bonferroni methods need about 2·nnz(A)·(k+1)
	// entries (two vertex rows or a row plus auxiliary bounds per row).
	if m := spec.Method; m == Vertex || m == Robust || m == Bonferroni {
		k1 := l.K() + 1
		r.b.nonneg.reserve(2*base.A.Nnz()*k1+2*base.NumRows(), 2*base.NumRows())
	}
	// Equalities.
	for e := 0; e < l.NumEqualities(); e++ {
		a, _ := l.Equality(e)
		i := r.b.zero.open(0)
		r.b.zero.affine(i, &a, 1)
	}
	// Partition the random rows into groups.
	owner := make([]int, base.NumRows()) // 0 default, g+1 for group g
	for g, grp := range spec.Groups {
		for _, i := range grp.Rows {
			if i < 0 || i >= base.NumRows() {
				return nil, invalidf("group %d lists row %d, out of range [0,%d)", g, i, base.NumRows())
			}
			if l.RowKind(i) == cone.Zero {
				return nil, invalidf("group %d lists row %d, an equality row (equalities hold with probability one by Remark 3.5)", g, i)
			}
			if owner[i] != 0 {
				return nil, invalidf("row %d is in more than one group", i)
			}
			owner[i] = g + 1
		}
	}
	rowsOf := make([][]int, len(spec.Groups)+1)
	for _, i := range l.RandomRows() {
		rowsOf[owner[i]] = append(rowsOf[owner[i]], i)
	}
	// Conic blocks must not be split across groups.
	for bi, bl := range r.blocks {
		o := owner[bl.start]
		for t := 1; t < bl.c.Dim; t++ {
			if owner[bl.start+t] != o {
				return nil, invalidf("cone block %d (rows %d..%d, %v) is split across groups", bi, bl.start, bl.start+bl.c.Dim-1, bl.c)
			}
		}
	}
	var gs []Guarantee
	for g, rows := range rowsOf {
		a := spec.Approximation
		if g > 0 {
			a = spec.Groups[g-1].Approximation
		}
		if len(rows) == 0 && g == 0 && len(spec.Groups) > 0 {
			continue
		}
		gu, err := r.group(rows, a)
		if err != nil {
			return nil, err
		}
		gs = append(gs, gu)
	}
	if spec.CVaR != nil {
		if err := r.cvar(spec.CVaR); err != nil {
			return nil, err
		}
	}
	if err := r.ctx.Err(); err != nil {
		return nil, fmt.Errorf("chance: reformulation stopped before assembly: %w", err)
	}
	cp := &Counterpart{Lifted: l}
	cp.Problem = r.b.problem(l)
	r.stats.AuxVars = r.b.nv - l.NumVars()
	r.stats.Rows = cp.Problem.NumRows()
	cp.Stats = r.stats
	if len(gs) == 1 {
		cp.Guarantee = gs[0]
	} else {
		// Union bound over groups: violation ≤ Σ η_g, confidence ≥ 1 − Σ β_g.
		cp.Guarantee = Guarantee{Method: "mixed", Kind: Conservative, Groups: gs, Note: "union bound over groups"}
		certain := true
		for _, g := range gs {
			cp.Guarantee.Eta += g.Eta
			cp.Guarantee.Beta += g.Beta
			certain = certain && g.Kind == Certain
			if g.Kind == Heuristic {
				cp.Guarantee.Kind = Heuristic
			}
		}
		if certain {
			cp.Guarantee.Kind = Certain
		}
	}
	return cp, nil
}

// emitAt adds the row g(v) = F0(v) + Σ_j ζ_j F_j(v) to rs and returns its index.
func emitAt(rs *rowset, ra *lindecision.RandomAffine, zeta []float64) int {
	i := rs.open(0)
	rs.affine(i, &ra.F0, 1)
	for j := range ra.F {
		if zeta[j] != 0 {
			rs.affine(i, &ra.F[j], zeta[j])
		}
	}
	return i
}

// rowMethod is one reformulation method of the chance constraint on a group
// of base rows: apply adds the deterministic counterpart of rows under a to
// r's builder and returns the guarantee it gives. One implementation per
// file: boxMethod (vertex.go: Vertex and Robust), scenarioMethod
// (scenario.go), bonferroniMethod (bonferroni.go).
type rowMethod interface {
	apply(r *reformer, rows []int, a Approximation) (Guarantee, error)
}

var (
	_ rowMethod = boxMethod{}
	_ rowMethod = scenarioMethod{}
	_ rowMethod = bonferroniMethod{}
)

// rowMethods maps every Method to its implementation.
var rowMethods = map[Method]rowMethod{
	Vertex:     boxMethod{},
	Robust:     boxMethod{},
	Scenario:   scenarioMethod{},
	Bonferroni: bonferroniMethod{},
}

func (r *reformer) group(rows []int, a Approximation) (Guarantee, error) {
	m, ok := rowMethods[a.Method]
	if !ok {
		return Guarantee{}, invalidf("unknown method %d", int(a.Method))
	}
	return m.apply(r, rows, a)
}

// samplePoll is how often (in draws) the sampling loops poll the context: a
// draw costs about k quantile evaluations, so 4096 of them take well under a
// millisecond for the k of a release.
const samplePoll = 4096

// pollSampling returns an error wrapping the context's error when it is done,
// checked at every samplePoll-th draw t of n.
func (r *reformer) pollSampling(t, n int, what string) error {
	if t%samplePoll != 0 {
		return nil
	}
	if err := r.ctx.Err(); err != nil {
		return fmt.Errorf("chance: %s sampling stopped after %d of %d samples: %w", what, t, n, err)
	}
	return nil
}

// pollRows returns an error wrapping the context's error when it is done,
// checked at every 256th row t of n of a reformulation loop (a row costs
// O(nnz of its random-affine form), up to k·n on dense rules).
func (r *reformer) pollRows(t, n int) error {
	if t%256 != 0 {
		return nil
	}
	if err := r.ctx.Err(); err != nil {
		return fmt.Errorf("chance: reformulation stopped at row %d of %d: %w", t, n, err)
	}
	return nil
}

// ErrInfeasible is wrapped by *InfeasibleError.
var ErrInfeasible = errors.New("chance: the requested privacy cannot be met at this feasibility level")

// InfeasibleError reports that the deterministic counterpart has no solution:
// either the approximation is too conservative (its sampled or analytic
// counterpart is infeasible while the chance-constrained program is not) or the
// chance-constrained program itself is infeasible: there is too much noise for
// the feasible region (Dvorkin et al. Section 3.4). It is a result, not a crash.
type InfeasibleError struct {
	Guarantee Guarantee
	Status    solver.Status // solver status, or StatusUnknown for structural infeasibility
	Cause     error         // structural cause (e.g. *lindecision.InfeasibleError), may be nil
}

// Error describes the infeasibility or the refused release.
func (e *InfeasibleError) Error() string {
	s := fmt.Sprintf("chance: the requested privacy cannot be met at feasibility level 1 − η = %g with the %s reformulation", 1-e.Guarantee.Eta, e.Guarantee.Method)
	if e.Cause != nil {
		s += ": " + e.Cause.Error()
	} else {
		s += fmt.Sprintf(" (solver: %v)", e.Status)
	}
	return s + "; " + e.Hint()
}

// Hint suggests what to change.
func (e *InfeasibleError) Hint() string {
	return "reduce the noise (larger epsilon or smaller sensitivity), accept a larger violation probability eta, " +
		"use a less conservative reformulation (Bonferroni with exact or Gaussian quantiles, or scenario instead of vertex/robust), " +
		"or give more variables free recourse"
}

// Is makes errors.Is(err, ErrInfeasible) true.
func (e *InfeasibleError) Is(target error) bool { return target == ErrInfeasible }

// Unwrap returns the structural cause.
func (e *InfeasibleError) Unwrap() error { return e.Cause }

// Result is a solved counterpart.
type Result struct {
	Rule     *lindecision.Rule
	Solution *solver.Solution
	// Objective is the optimal expected objective E[½x̃ᵀPx̃ + qᵀx̃ + r].
	Objective float64
}

// Auto returns the route Solve uses when given none (package solver/auto
// with SmallLPNnz = −1): HiGHS first for every LP, the interior-point solver
// first for QPs and conic problems, every answer re-checked on the
// counterpart's data with a fallback to the other backend when it is not a
// verified optimum or a certified infeasibility. The route is chosen per
// problem by solver/auto when solving; p is not used.
//
// Deprecated: pass nil to Solve for this route, or use solver.ByName("auto")
// (whose small LPs start with the IPM).
func Auto(p *solver.Problem) solver.Solver { return defaultSolver() }

// defaultSolver is the default route (solver/auto) with every LP starting
// at HiGHS whatever its size (auto.Solver.SmallLPNnz = −1): the decision
// rule is decoded from the solution x, and an LP counterpart whose optimum
// is not unique would get the interior point of its optimal face from the
// IPM instead of HiGHS's vertex.
func defaultSolver() solver.Solver { return auto.NewSimplexFirst() }

// Solve solves the counterpart with s (nil: Auto) and decodes the decision rule.
// A primal-infeasible counterpart returns *InfeasibleError; other non-optimal
// statuses return *solver.StatusError.
//
// A two-copy counterpart whose objective is the query (free recourse, no
// CVaR) is solved as two problems of the base size (split.go): the base
// problem for the lower copy, Spec.Upper's proposal or one more solve for the
// upper copy, duals in closed form, the whole re-checked on the counterpart
// (solver.Certify); when that fails, the counterpart is solved whole.
func Solve(ctx context.Context, c *Counterpart, s solver.Solver, set solver.Settings) (*Result, error) {
	if s == nil {
		s = defaultSolver()
	}
	var sol *solver.Solution
	ok := false
	if c.split != nil && !disableSplit {
		sol, ok = c.solveSplit(ctx, s, set)
	}
	if !ok {
		var err error
		if sol, err = s.Solve(ctx, c.Problem, set); err != nil {
			return nil, fmt.Errorf("chance: solving the counterpart with %s: %w", s.Name(), err)
		}
	}
	if sol.Status == solver.PrimalInfeasible {
		return nil, &InfeasibleError{Guarantee: c.Guarantee, Status: sol.Status}
	}
	if !sol.Status.OK() {
		return nil, fmt.Errorf("chance: counterpart solve: %w", sol.Status.Err())
	}
	decode := c.decode
	if decode == nil {
		decode = c.Lifted.Rule
	}
	rule, err := decode(sol.X)
	if err != nil {
		return nil, err
	}
	return &Result{Rule: rule, Solution: sol, Objective: sol.Objective}, nil
}

// RowRange returns the rows start, start+1, …, end−1, e.g. the rows
// can.Rows(c) of a model constraint, for a Group.
func RowRange(start, end int) []int {
	rows := make([]int, 0, max(end-start, 0))
	for i := start; i < end; i++ {
		rows = append(rows, i)
	}
	return rows
}
