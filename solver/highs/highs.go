package highs

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/sparse"
)

var _ solver.Solver = (*Solver)(nil)

// ErrUnsupportedCone is wrapped by the error Solve returns for a problem with a
// cone other than Zero or Nonnegative.
var ErrUnsupportedCone = errors.New("highs: unsupported cone")

// ErrTooLarge is wrapped by the error returned when a problem does not fit
// HiGHS's 32-bit indices.
var ErrTooLarge = errors.New("highs: problem too large")

// Solver is the HiGHS backend for LPs and convex QPs in standard form (zero and
// nonnegative cones only). It is safe for concurrent use: each Solve creates its
// own HiGHS instance.
type Solver struct {
	opts Options
}

// New returns a HiGHS solver with default options (HiGHS defaults, output off).
func init() { solver.Register("highs", func() solver.Solver { return New() }) }

func New() *Solver { return &Solver{} }

// NewWithOptions returns a HiGHS solver with options o, or an error if o is
// invalid. The solver.Settings passed to Solve override the non-zero fields of
// o.Settings.
func NewWithOptions(o Options) (*Solver, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	return &Solver{opts: o}, nil
}

// Options returns the solver's options.
func (s *Solver) Options() Options { return s.opts }

// Name returns "highs".
func (*Solver) Name() string { return "highs" }

// Supports reports whether k is a zero or nonnegative cone.
func (*Solver) Supports(k cone.Kind) bool { return k == cone.Zero || k == cone.Nonnegative }

// Solve solves the LP or convex QP
//
//	minimize ½xᵀPx + qᵀx + r  subject to  Ax + s = b, s ∈ K (zero and nonnegative cones)
//
// with HiGHS. Zero rows become a·x = b, nonnegative rows a·x ≤ b, rows with a
// single nonzero become column bounds (their duals are recovered from the
// reduced costs), rows without nonzeros are checked directly and not passed on.
// For an OK status the Solution satisfies Px + q + Aᵀy = 0, Ax + s = b, s ∈ K,
// y ∈ K* to HiGHS's tolerances (HiGHS's row duals are negated into this
// convention). Infeasible problems get a certificate y in Solution.Y and
// unbounded ones a ray x in Solution.X when HiGHS provides one and it verifies
// (otherwise they are nil). When HiGHS reports "unbounded or infeasible", Solve
// re-runs without presolve and, if still undecided, solves the feasibility
// problem (zero objective) to tell the two apart; it never guesses.
//
// Cancellation of ctx interrupts the simplex and interior-point iterations
// through HiGHS's interrupt callbacks and yields status Cancelled; HiGHS's QP
// solver has no interrupt callback, so a QP solve is bounded by
// Settings.TimeLimit only, and ctx is checked before and after it. A solve that
// finished Optimal is reported Optimal even if ctx was cancelled meanwhile.
func (s *Solver) Solve(ctx context.Context, p *solver.Problem, set solver.Settings) (*solver.Solution, error) {
	if p == nil {
		return nil, fmt.Errorf("%w: problem is nil", solver.ErrInvalidProblem)
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	for i, c := range p.Cones {
		if !s.Supports(c.Kind) {
			return nil, fmt.Errorf("%w: cone %d is %v; HiGHS solves LPs and QPs (zero and nonnegative cones) only", ErrUnsupportedCone, i, c)
		}
	}
	if err := checkConvexNecessary(p.P); err != nil {
		return nil, err
	}
	o := s.opts.merged(set)
	if err := o.Validate(); err != nil {
		return nil, err
	}
	sol := &solver.Solution{Solver: "highs"}
	if ctx.Err() != nil {
		sol.Status = solver.Cancelled
		return sol, nil
	}
	d, err := newStdLP(p)
	if err != nil {
		return nil, err
	}
	defer d.release()
	if r := d.emptyInfeasibleRow; r >= 0 {
		// An empty row 0 = b or 0 ≤ b that fails: y = e_r (scaled) certifies it.
		sol.Status = solver.PrimalInfeasible
		sol.Y = make([]float64, p.NumRows())
		sol.Y[r] = 1
		if p.B[r] > 0 {
			sol.Y[r] = -1 // only possible on a zero row
		}
		return sol, nil
	}
	if p.NumVars() == 0 {
		// Nothing to optimize: every row is empty and feasible.
		sol.Status = solver.Optimal
		sol.X = []float64{}
		d.finish(sol, p, nil)
		return sol, nil
	}
	in := newInstance()
	defer in.destroy()
	if err := in.applyOptions(&o); err != nil {
		return nil, err
	}
	keys, wCols, wRows := d.warmStart(o.Warm)
	if err := d.pass(in); err != nil {
		return nil, err
	}
	if wCols != nil {
		if in.setBasis(wCols, wRows) != nil {
			in.clearSolver()
		} else {
			// Devex pricing: exact dual steepest-edge weights for a given
			// basis cost one BTRAN per row before the first iteration
			// (measured on a 2,383-bus N-1 program: ~1 s, for a restart
			// that then needs 20–50 iterations, against ~50 ms with Devex).
			_ = in.setInt("simplex_dual_edge_weight_strategy", 1)
		}
	}
	runSt, ms, el := in.run(ctx)
	sol.SolveTime += el
	sol.Iterations += in.iterations()
	if wCols != nil && !decided(ms) && ctx.Err() == nil {
		// The restart failed (a singular or numerically poor basis): solve
		// cold, as without a warm start.
		in.clearSolver()
		_ = in.setInt("simplex_dual_edge_weight_strategy", -1)
		runSt, ms, el = in.run(ctx)
		sol.SolveTime += el
		sol.Iterations += in.iterations()
	}
	if ms == hsUnboundedOrInfeasible {
		// Presolve often stops at "unbounded or infeasible": decide properly.
		_ = in.setString("presolve", "off")
		in.clearSolver()
		_, ms, el = in.run(ctx)
		sol.SolveTime += el
		sol.Iterations += in.iterations()
		if ms == hsUnboundedOrInfeasible {
			if err := in.zeroObjective(d.numCol, d.hessian); err != nil {
				return nil, err
			}
			in.clearSolver()
			_, fs, el := in.run(ctx)
			sol.SolveTime += el
			sol.Iterations += in.iterations()
			switch fs {
			case hsOptimal:
				ms = hsUnbounded // feasible and dual infeasible
			case hsInfeasible:
				ms = hsInfeasible
			default:
				ms = fs
			}
		}
	}
	saveWarm(in, o.Warm, keys, d.numCol)
	if runSt == hsStatusError && ms == hsModelError {
		if d.hessian {
			return nil, fmt.Errorf("%w: HiGHS rejected the QP (is P positive semidefinite?)", solver.ErrInvalidProblem)
		}
		return nil, fmt.Errorf("%w: HiGHS rejected the model", solver.ErrInvalidProblem)
	}
	sol.Status = mapStatus(ms, ctx)
	switch sol.Status {
	case solver.Optimal:
		x := make([]float64, d.numCol)
		rowDual := make([]float64, d.numRow)
		if err := in.solution(x, nil, nil, rowDual); err != nil {
			sol.Status = solver.NumericalError
			return sol, nil
		}
		sol.X = x
		d.finish(sol, p, rowDual)
		// HiGHS may claim optimality at a point that is not: the uniform
		// re-check of every backend (residuals, gap, cones and the
		// objective's sensitivity to the residuals) decides the status.
		sol.Accuracy = solver.Certify(p, sol, o.certifyTol(), o.verifyTol())
	case solver.PrimalInfeasible:
		if ray := in.dualRay(d.numRow); ray != nil {
			sol.Y = d.infeasibilityCertificate(p, ray)
		}
	case solver.DualInfeasible:
		if ray := in.primalRay(d.numCol); ray != nil {
			sol.X = unboundedRay(p, ray)
		}
		// HiGHS declares "unbounded" at a primal feasible point (the
		// simplex's, or the feasibility solve's above): kept as
		// Solution.FeasiblePoint when it passes solver.CheckFeasible on p,
		// so that the automatic route need not solve the feasibility
		// problem again.
		x := make([]float64, d.numCol)
		if in.solution(x, nil, nil, nil) == nil && solver.CheckFeasible(p, x, o.certifyTol()) == nil {
			sol.FeasiblePoint = x
		}
	}
	return sol, nil
}

// decided reports whether a HiGHS model status is an answer (optimal,
// infeasible, unbounded, or one of the two), not a failure or a limit.
func decided(ms int) bool {
	return ms == hsOptimal || ms == hsInfeasible || ms == hsUnbounded || ms == hsUnboundedOrInfeasible
}

// mapStatus translates a HiGHS model status into a solver.Status. Only HiGHS's
// Optimal maps to Optimal.
func mapStatus(ms int, ctx context.Context) solver.Status {
	switch ms {
	case hsOptimal:
		return solver.Optimal
	case hsInfeasible:
		return solver.PrimalInfeasible
	case hsUnbounded:
		return solver.DualInfeasible
	case hsTimeLimit:
		return solver.TimeLimit
	case hsIterationLimit:
		return solver.IterationLimit
	case hsInterrupt:
		return solver.Cancelled
	}
	if ctx.Err() != nil {
		return solver.Cancelled
	}
	return solver.NumericalError
}

// stdLP is the HiGHS form of a standard-form problem and the maps back.
type stdLP struct {
	numCol, numRow int
	colLo, colUp   []float64
	rowLo, rowUp   []float64
	rowOf          []int32 // HiGHS row of each standard-form row, -1 if not passed on
	aStart, aIndex []int32
	aValue         []float64
	qStart, qIndex []int32 // lower triangle of P, column-wise
	qValue         []float64
	cost           []float64
	offset         float64
	// singleton rows turned into bounds: for column j, the row that set its
	// lower / upper bound or fixed it (-1: none).
	loRow, upRow, fixRow []int32
	single               []int32 // column of each singleton row, -1 otherwise
	singleVal            []float64
	buf                  cbuf // C memory of aIndex and (if filtered) aValue
	hessian              bool // P has nonzeros (a QP)
	emptyInfeasibleRow   int  // an empty row with b violating its cone, or -1
}

// maxHighsInt is the largest index HiGHS's default (32-bit) build accepts.
const maxHighsInt = math.MaxInt32

func newStdLP(p *solver.Problem) (*stdLP, error) {
	A := p.A
	n, m := p.NumVars(), p.NumRows()
	if A.Nnz() > maxHighsInt || m > maxHighsInt || n > maxHighsInt {
		return nil, fmt.Errorf("%w: A is %d×%d with %d nonzeros; HiGHS's indices are 32-bit", ErrTooLarge, m, n, A.Nnz())
	}
	if p.P != nil && p.P.Nnz() > maxHighsInt {
		return nil, fmt.Errorf("%w: P has %d nonzeros; HiGHS's indices are 32-bit", ErrTooLarge, p.P.Nnz())
	}
	zero := make([]bool, m)
	{
		r := 0
		for _, c := range p.Cones {
			if c.Kind == cone.Zero {
				for k := r; k < r+c.Dim; k++ {
					zero[k] = true
				}
			}
			r += c.Dim
		}
	}
	// Count the nonzeros of each row (one random write per entry).
	cnt := make([]int32, m)
	for k, i := range A.RowIdx {
		if A.Val[k] != 0 {
			cnt[i]++
		}
	}
	single := make([]int32, m)
	singleVal := make([]float64, m)
	nKeep := 0
	rowOf := make([]int32, m)
	for i, c := range cnt {
		if c >= 2 {
			rowOf[i] = int32(nKeep)
			nKeep++
		} else {
			rowOf[i] = -1
		}
		single[i] = -1
	}
	// Column-wise A restricted to the kept rows, with 32-bit indices; the
	// entries of singleton rows are recorded on the way.
	aStart := make([]int32, n+1)
	var aIndex []int32
	var aValue []float64
	d := &stdLP{numCol: n, cost: p.Q, offset: p.R, emptyInfeasibleRow: -1}
	if nKeep == m {
		aIndex = d.buf.int32s(A.Nnz())
		for k, i := range A.RowIdx {
			aIndex[k] = int32(i)
		}
		for j := 0; j <= n; j++ {
			aStart[j] = int32(A.ColPtr[j])
		}
		aValue = A.Val
	} else {
		nnz := 0
		for i, c := range cnt {
			if rowOf[i] >= 0 {
				nnz += int(c)
			}
		}
		aIndex = d.buf.int32s(nnz)
		aValue = d.buf.float64s(nnz)
		t := 0
		for j := 0; j < n; j++ {
			for k := A.ColPtr[j]; k < A.ColPtr[j+1]; k++ {
				i := A.RowIdx[k]
				if r := rowOf[i]; r >= 0 {
					aIndex[t] = r
					aValue[t] = A.Val[k]
					t++
				} else if v := A.Val[k]; v != 0 { // a singleton row's entry
					single[i] = int32(j)
					singleVal[i] = v
				}
			}
			aStart[j+1] = int32(t)
		}
	}
	d.colLo = make([]float64, n)
	d.colUp = make([]float64, n)
	for j := range d.colLo {
		d.colLo[j] = math.Inf(-1)
		d.colUp[j] = math.Inf(1)
	}
	d.rowOf = rowOf
	d.single = single
	d.singleVal = singleVal
	d.aStart, d.aIndex, d.aValue = aStart, aIndex, aValue
	hasSingle := false
	for i := 0; i < m; i++ {
		switch cnt[i] {
		case 0:
			if (zero[i] && p.B[i] != 0) || (!zero[i] && p.B[i] < 0) {
				if d.emptyInfeasibleRow < 0 {
					d.emptyInfeasibleRow = i
				}
			}
		case 1:
			if !hasSingle {
				hasSingle = true
				d.loRow = filled(n, -1)
				d.upRow = filled(n, -1)
				d.fixRow = filled(n, -1)
			}
			j, a := single[i], singleVal[i]
			v := p.B[i] / a
			switch {
			case zero[i]:
				if v > d.colLo[j] {
					d.colLo[j] = v
				}
				if v < d.colUp[j] {
					d.colUp[j] = v
				}
				if d.fixRow[j] < 0 {
					d.fixRow[j] = int32(i)
				}
			case a > 0: // x_j ≤ b/a
				if v < d.colUp[j] || d.upRow[j] < 0 {
					d.colUp[j] = math.Min(d.colUp[j], v)
					d.upRow[j] = int32(i)
				}
			default: // x_j ≥ b/a
				if v > d.colLo[j] || d.loRow[j] < 0 {
					d.colLo[j] = math.Max(d.colLo[j], v)
					d.loRow[j] = int32(i)
				}
			}
		}
	}
	d.numRow = nKeep
	d.rowLo = make([]float64, nKeep)
	d.rowUp = make([]float64, nKeep)
	for i := 0; i < m; i++ {
		r := d.rowOf[i]
		if r < 0 {
			continue
		}
		d.rowUp[r] = p.B[i]
		if zero[i] {
			d.rowLo[r] = p.B[i]
		} else {
			d.rowLo[r] = math.Inf(-1)
		}
	}
	if p.P != nil && p.P.Nnz() > 0 {
		d.qStart, d.qIndex, d.qValue = lowerFromUpper(p.P)
		d.hessian = true
	}
	return d, nil
}

func filled(n int, v int32) []int32 {
	s := make([]int32, n)
	for i := range s {
		s[i] = v
	}
	return s
}

// lowerFromUpper returns the lower triangle, column-wise, of the symmetric
// matrix whose upper triangle U is given column-wise; it is Uᵀ in CSC form
// (equivalently U read row-wise), the layout HiGHS expects for its Hessian.
func lowerFromUpper(U *sparse.CSC) (start, index []int32, value []float64) {
	n := U.Cols
	nnz := U.Nnz()
	start = make([]int32, n+1)
	for _, i := range U.RowIdx {
		start[i+1]++
	}
	for j := 0; j < n; j++ {
		start[j+1] += start[j]
	}
	next := make([]int32, n)
	copy(next, start[:n])
	index = make([]int32, nnz)
	value = make([]float64, nnz)
	for j := 0; j < n; j++ { // column j of U → row j of L; entries (i, j) → (j, i)
		for k := U.ColPtr[j]; k < U.ColPtr[j+1]; k++ {
			i := U.RowIdx[k]
			t := next[i]
			index[t] = int32(j)
			value[t] = U.Val[k]
			next[i]++
		}
	}
	return start, index, value
}

// pass copies the model into HiGHS with one bulk call and releases the copy
// buffers (HiGHS keeps its own copy).
func (d *stdLP) pass(in *instance) error {
	defer d.release()
	cost := d.cost
	if len(cost) != d.numCol { // never: Validate checked; keeps explicit costs explicit
		return fmt.Errorf("highs: internal error: %d costs for %d columns", len(cost), d.numCol)
	}
	return in.passModel(d.numCol, d.numRow, d.offset, cost, d.colLo, d.colUp, d.rowLo, d.rowUp,
		d.aStart, d.aIndex, d.aValue, d.qStart, d.qIndex, d.qValue)
}

// release frees the data only HiGHS needed; d keeps the maps back.
func (d *stdLP) release() {
	d.aStart, d.aIndex, d.aValue = nil, nil, nil
	d.qStart, d.qIndex, d.qValue = nil, nil, nil
	d.colLo, d.colUp, d.rowLo, d.rowUp = nil, nil, nil, nil
	d.buf.free()
}

// residuals holds what finish computes for the optimality check: the
// stationarity residual g = Px + q + Aᵀy and Px.
type residuals struct {
	g, px []float64
}

// finish fills S, Y, Objective and DualObjective from sol.X and HiGHS's row
// duals (HiGHS convention: c + Qx − Aᵀλ − μ = 0, so y = −λ on passed rows),
// with one pass over A, and returns the stationarity residuals.
func (d *stdLP) finish(sol *solver.Solution, p *solver.Problem, rowDual []float64) *residuals {
	m := p.NumRows()
	x := sol.X
	y := make([]float64, m)
	for i, r := range d.rowOf {
		if r >= 0 {
			y[i] = -rowDual[r]
		}
	}
	A := p.A
	res := &residuals{g: make([]float64, len(x))}
	s := make([]float64, m) // Ax first, then b − Ax
	px := symMulVec(p.P, x)
	res.px = px
	for j := 0; j < A.Cols; j++ {
		xj := x[j]
		var aty float64
		for k := A.ColPtr[j]; k < A.ColPtr[j+1]; k++ {
			i, v := A.RowIdx[k], A.Val[k]
			s[i] += v * xj
			aty += v * y[i]
		}
		res.g[j] = px[j] + p.Q[j] + aty
	}
	for i := range s {
		s[i] = p.B[i] - s[i]
	}
	// Singleton rows (y = 0 so far) take the dual that closes stationarity
	// where their bound is active.
	d.assignSingletonDuals(y, res.g, s, p.B)
	for i, j := range d.single {
		if j >= 0 && y[i] != 0 {
			res.g[j] += d.singleVal[i] * y[i]
		}
	}
	sol.Y = y
	sol.S = s
	var xpx, qx, by float64
	for j := range x {
		xpx += x[j] * px[j]
		qx += p.Q[j] * x[j]
	}
	for i := range y {
		by += p.B[i] * y[i]
	}
	sol.Objective = 0.5*xpx + qx + p.R
	sol.DualObjective = -0.5*xpx - by + p.R
	return res
}

// assignSingletonDuals sets the duals of the rows that became column bounds so
// that column j's stationarity g_j + Σ a_r y_r = 0 holds, using the fixing row
// if any, else the row defining the bound on the side that keeps y_r ≥ 0 —
// provided that bound is active (slack s_r ≤ activeBoundTol·(1 + |b_r|)).
// At an inactive bound the remainder g_j stays a dual residual: charging it
// to the bound would turn a tiny reduced cost (HiGHS's QP solver stops with
// |g_j| up to its dual tolerance 1e-7 at interior columns) into a duality gap
// g_j·s_r, which for a box 10⁶ wide is 0.1.
func (d *stdLP) assignSingletonDuals(y, g, s, b []float64) {
	if d.fixRow == nil {
		return
	}
	for j := range g {
		need := -g[j] // Σ a_r y_r over the singleton rows of column j
		if need == 0 {
			continue
		}
		r := d.fixRow[j]
		if r < 0 {
			if need > 0 {
				r = d.upRow[j] // a_r > 0
			} else {
				r = d.loRow[j] // a_r < 0
			}
		}
		if r < 0 {
			continue
		}
		if s != nil && d.fixRow[j] < 0 && s[r] > activeBoundTol*(1+math.Abs(b[r])) {
			continue
		}
		y[r] += need / d.singleVal[r]
	}
}

// activeBoundTol: a bound row whose relative slack is at most this is active
// (ten times HiGHS's default primal feasibility tolerance).
const activeBoundTol = 1e-6

// symMulVec returns P x for the symmetric P given by its upper triangle (nil P: 0).
func symMulVec(P *sparse.CSC, x []float64) []float64 {
	out := make([]float64, len(x))
	if P == nil {
		return out
	}
	for j := 0; j < P.Cols; j++ {
		for k := P.ColPtr[j]; k < P.ColPtr[j+1]; k++ {
			i := P.RowIdx[k]
			v := P.Val[k]
			out[i] += v * x[j]
			if i != j {
				out[j] += v * x[i]
			}
		}
	}
	return out
}

// checkConvexNecessary rejects a P that cannot be positive semidefinite by
// the necessary conditions P_jj ≥ 0 and P_ij² ≤ P_ii·P_jj (2×2 principal
// minors), checked in O(nnz(P)). HiGHS's QP solver may return a wrong
// "optimal" point for a non-convex QP; Solve also verifies every optimum.
func checkConvexNecessary(P *sparse.CSC) error {
	if P == nil {
		return nil
	}
	diag := make([]float64, P.Cols)
	for j := 0; j < P.Cols; j++ {
		for k := P.ColPtr[j]; k < P.ColPtr[j+1]; k++ {
			if P.RowIdx[k] == j {
				diag[j] = P.Val[k]
				if P.Val[k] < 0 {
					return fmt.Errorf("%w: P is not positive semidefinite: P[%d,%d] = %v < 0 (the QP is not convex)", solver.ErrInvalidProblem, j, j, P.Val[k])
				}
			}
		}
	}
	for j := 0; j < P.Cols; j++ {
		for k := P.ColPtr[j]; k < P.ColPtr[j+1]; k++ {
			i, v := P.RowIdx[k], P.Val[k]
			if i != j && v*v > diag[i]*diag[j]*(1+1e-12) {
				return fmt.Errorf("%w: P is not positive semidefinite: P[%d,%d]² = %v > P[%d,%d]·P[%d,%d] = %v (the QP is not convex)",
					solver.ErrInvalidProblem, i, j, v*v, i, i, j, j, diag[i]*diag[j])
			}
		}
	}
	return nil
}

// verifyTol is the relative accuracy an optimum reported by HiGHS must have
// to be reported as Optimal: well above HiGHS's feasibility tolerances (1e-7
// by default), so it only catches wrong answers, not inaccurate ones.
func (o *Options) verifyTol() float64 {
	return max(1e-5, 100*o.PrimalFeasibilityTolerance, 100*o.DualFeasibilityTolerance)
}

// certTol is the relative accuracy a certificate from HiGHS must have to be
// returned (rays are computed to HiGHS's feasibility tolerance, 1e-7 by default).
const certTol = 1e-6

// infeasibilityCertificate maps HiGHS's dual ray to y with Aᵀy ≈ 0, bᵀy = −1,
// y ∈ K*, or returns nil if neither sign of the ray verifies.
func (d *stdLP) infeasibilityCertificate(p *solver.Problem, ray []float64) []float64 {
	m := p.NumRows()
	for _, sign := range []float64{-1, 1} {
		y := make([]float64, m)
		for i, r := range d.rowOf {
			if r >= 0 {
				y[i] = sign * ray[r]
			}
		}
		g := p.A.MulTransVecTo(nil, 1, y, 0)
		d.assignSingletonDuals(y, g, nil, nil) // a ray: no slacks to respect
		if c := verifyInfeasibility(p, y); c != nil {
			return c
		}
	}
	return nil
}

// verifyInfeasibility normalizes y to bᵀy = −1 and checks Aᵀy ≈ 0 and y ∈ K*.
func verifyInfeasibility(p *solver.Problem, y []float64) []float64 {
	var by float64
	for i := range y {
		by += p.B[i] * y[i]
	}
	if !(by < 0) {
		return nil
	}
	for i := range y {
		y[i] /= -by
	}
	ymax := 1.0
	r := 0
	for _, c := range p.Cones {
		for i := r; i < r+c.Dim; i++ {
			ymax = math.Max(ymax, math.Abs(y[i]))
			if c.Kind == cone.Nonnegative && y[i] < 0 {
				if y[i] < -certTol {
					return nil
				}
				y[i] = 0
			}
		}
		r += c.Dim
	}
	aty := p.A.MulTransVecTo(nil, 1, y, 0)
	for _, v := range aty {
		if math.Abs(v) > certTol*ymax {
			return nil
		}
	}
	return y
}

// unboundedRay checks HiGHS's primal ray against the certificate conditions
// Px = 0, −Ax ∈ K, qᵀx < 0 and returns it normalized to qᵀx = −1, or nil.
func unboundedRay(p *solver.Problem, ray []float64) []float64 {
	for _, sign := range []float64{1, -1} {
		x := make([]float64, len(ray))
		var qx, xmax float64
		for j := range ray {
			x[j] = sign * ray[j]
			qx += p.Q[j] * x[j]
			xmax = math.Max(xmax, math.Abs(x[j]))
		}
		if !(qx < 0) {
			continue
		}
		for j := range x {
			x[j] /= -qx
		}
		xmax /= -qx
		ax := p.A.MulVecTo(nil, 1, x, 0)
		ok := true
		r := 0
		for _, c := range p.Cones {
			for i := r; i < r+c.Dim && ok; i++ {
				if (c.Kind == cone.Zero && math.Abs(ax[i]) > certTol*math.Max(1, xmax)) ||
					(c.Kind == cone.Nonnegative && ax[i] > certTol*math.Max(1, xmax)) {
					ok = false
				}
			}
			r += c.Dim
		}
		for _, v := range symMulVec(p.P, x) {
			if math.Abs(v) > certTol*math.Max(1, xmax) {
				ok = false
			}
		}
		if ok {
			return x
		}
	}
	return nil
}
