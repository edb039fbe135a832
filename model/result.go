package model

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
	autoroute "github.com/privopt/privopt/solver/auto"
)

// SolveOptions configure Model.Solve. The zero value picks the backend
// automatically with default settings.
type SolveOptions struct {
	// Solver is the backend; nil picks the default route of package
	// solver/auto: HiGHS for LPs (whatever their size, so that an LP's
	// answer is a basic solution: auto.Solver.SmallLPNnz = −1), the
	// interior-point backend for QPs and conic programs, each falling back
	// to the other on an LP/QP answer that fails the re-check
	// (Result.Solution.Solver names who answered).
	Solver solver.Solver
	// Settings are passed to the backend.
	Settings solver.Settings
	// FeasibilityTol is the relative tolerance of the independent check applied
	// to every point a backend reports as (almost) optimal:
	// dist(b − Ax, K) ≤ tol·(1 + max(‖b‖∞, maxᵢ Σⱼ|Aᵢⱼxⱼ|)) per row for zero
	// and nonnegative cones and per block for the others; AlmostOptimal points
	// (reduced accuracy) get 100·tol. A point failing it is reported as
	// NumericalError (with Result.Diagnostic), never as optimal. 0 means 1e-6
	// (100× the backends' default 1e-8); a negative value disables the check.
	FeasibilityTol float64
	// Progress, when non-nil, is called after each stage of a solve with the
	// stage's name ("canonicalize", "solve", "invert") and the time it took.
	// Backend iterations are reported through Settings.Log.
	Progress func(stage string, took time.Duration)
}

func (o *SolveOptions) progress(stage string, took time.Duration) {
	if o.Progress != nil {
		o.Progress(stage, took)
	}
}

// DefaultFeasibilityTol is the default of SolveOptions.FeasibilityTol.
const DefaultFeasibilityTol = 1e-6

// almostOptimalFactor loosens the feasibility check for AlmostOptimal points,
// which backends return at reduced accuracy (ipm: 1e-5 instead of 1e-8).
const almostOptimalFactor = 100

// Validate reports whether the options are admissible.
func (o *SolveOptions) Validate() error {
	if err := o.Settings.Validate(); err != nil {
		return errf(ErrInvalidArgument, "SolveOptions.Settings: %v", err)
	}
	if math.IsNaN(o.FeasibilityTol) || math.IsInf(o.FeasibilityTol, 0) {
		return errf(ErrInvalidArgument, "SolveOptions.FeasibilityTol is %v, must be finite", o.FeasibilityTol)
	}
	return nil
}

// Timing records where the time of a Solve went.
type Timing struct {
	Canonicalize time.Duration // building the standard form
	Solve        time.Duration // the backend's Solve call
	Total        time.Duration // everything, including mapping back
}

// Result is a solved model: the status, the objective in the user's sense, and
// the primal and dual values mapped back to variables and constraints. It does
// not refer back to a mutable state of the model (building the model further
// does not change a Result).
type Result struct {
	// Status is the outcome. Values and duals are available only when
	// Status.OK(); otherwise Value, ExprValue and Dual return nil.
	Status solver.Status
	// Objective is the optimal value in the user's sense (for Maximize, the
	// maximum of obj − Σ quad), including constant terms. NaN unless
	// Status.OK().
	Objective float64
	// Solution is the backend's standard-form solution (nil if the backend was
	// not called). Its Objective is that of the minimized standard form.
	Solution *solver.Solution
	// Canonical is the standard form that was solved.
	Canonical *Canonical
	// Time records the time spent.
	Time Timing
	// Diagnostic explains a status downgraded by the feasibility check; empty
	// otherwise.
	Diagnostic string

	x []float64 // standard-form primal point (all columns), nil unless OK
	y []float64 // standard-form duals, nil unless OK
	// parameter values of the solve
	theta []float64
}

// Value returns the values of v's entries (row-major for matrices; both
// triangles for symmetric variables), or nil if no solution is available or v
// belongs to another model.
func (r *Result) Value(v *Var) []float64 {
	if r.x == nil || v == nil || v.m != r.Canonical.m || v.start+v.ncols > r.Canonical.nuser {
		return nil
	}
	out := make([]float64, v.Len())
	for i := range out {
		out[i] = r.x[v.Col(i)]
	}
	return out
}

// ExprValue returns A·x + c at the solution, or nil if no solution is
// available, e carries an error or uses columns of another model.
func (r *Result) ExprValue(e Expr) []float64 {
	if r.x == nil || e.Err() != nil {
		return nil
	}
	d := e.node().data()
	if d.m != nil && d.m != r.Canonical.m {
		return nil
	}
	for _, j := range d.idx[:d.nnz()] {
		if j >= r.Canonical.nuser {
			return nil
		}
	}
	return d.eval(r.x, r.theta)
}

// Dual returns the dual values of constraint c, or nil if no solution is
// available or c belongs to another model. The duals are those of the
// standard form (y ∈ K*, Px + q + Aᵀy = 0) on c's rows, which gives:
//
//   - LessEq (lhs ≤ rhs) and GreaterEq (lhs ≥ rhs): y ≥ 0, the rate at which the
//     objective improves (decreases for Minimize, increases for Maximize) per
//     unit of relaxation of the constraint (raising rhs for LessEq, lowering it
//     for GreaterEq);
//   - Equal: y free, the rate at which the objective improves per unit increase
//     of rhs (for Minimize, ∂p*/∂rhs = −y);
//   - cone constraints e ∈ K: y ∈ K* in the order of the constraint's rows
//     ((t, x) for NormLessEq, (u, v, x) for RotatedCone, (x₀, y₀, z₀, x₁, …) for
//     ExpCone/PowerCone), with Lagrangian term −yᵀe; for PSD (and InCone with a
//     PSD cone) the n×n matrix Y = smat(y) ⪰ 0 in row-major order, so that
//     tr(Y·S) = yᵀsvec(S).
func (r *Result) Dual(c *Constraint) []float64 {
	if r.y == nil || c == nil {
		return nil
	}
	lo, hi := r.Canonical.Rows(c)
	if lo < 0 {
		return nil
	}
	y := r.y[lo:hi]
	if c.psdN > 0 {
		return smat(c.psdN, y)
	}
	return append([]float64(nil), y...)
}

// BoundDuals returns the duals (≥ 0) of the lower and upper bound rows of v's
// entries (0 for an absent bound), or nil, nil if no solution is available or
// v belongs to another model. With the convention of Dual, lower[i] is the
// rate of objective improvement per unit decrease of entry i's lower bound,
// upper[i] per unit increase of its upper bound (the reduced cost of an entry
// at a bound). For symmetric variables, entries (i,j) and (j,i) report the
// same bound rows.
func (r *Result) BoundDuals(v *Var) (lower, upper []float64) {
	c := r.Canonical
	if r.y == nil || v == nil || v.m != c.m || v.start+v.ncols > c.nuser {
		return nil, nil
	}
	lower, upper = make([]float64, v.Len()), make([]float64, v.Len())
	if c.boundLo == nil {
		return lower, upper
	}
	for i := range lower {
		j := v.Col(i)
		if k := c.boundLo[j]; k >= 0 {
			lower[i] = r.y[k]
		}
		if k := c.boundHi[j]; k >= 0 {
			upper[i] = r.y[k]
		}
	}
	return lower, upper
}

// smat unpacks a scaled lower-triangular column-major svec into a full n×n
// row-major matrix (off-diagonal entries divided by √2).
func smat(n int, s []float64) []float64 {
	out := make([]float64, n*n)
	k := 0
	for j := 0; j < n; j++ {
		for i := j; i < n; i++ {
			v := s[k]
			if i != j {
				v /= math.Sqrt2
			}
			out[i*n+j], out[j*n+i] = v, v
			k++
		}
	}
	return out
}

// Solve canonicalizes the model, solves it with the chosen backend and maps the
// solution back. It returns an error only for an invalid model or options, a
// backend that does not support the model's cones, or a backend failure; every
// numerical outcome (infeasible, unbounded, limits, cancellation, numerical
// trouble) is a Result.Status. A context already done gives Status Cancelled.
func (m *Model) Solve(ctx context.Context, opts SolveOptions) (*Result, error) {
	start := time.Now()
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	can, err := m.Canonicalize()
	if err != nil {
		return nil, err
	}
	tcan := time.Since(start)
	opts.progress("canonicalize", tcan)
	res, err := can.Solve(ctx, opts)
	if res != nil {
		res.Time.Canonicalize = tcan
		res.Time.Total = time.Since(start)
	}
	return res, err
}

// Solve solves the standard form with the backend of opts (see
// Model.Solve) and maps the solution back with Invert.
func (c *Canonical) Solve(ctx context.Context, opts SolveOptions) (*Result, error) {
	start := time.Now()
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	p := c.Problem
	backend := opts.Solver
	auto := backend == nil
	if auto {
		// The default route: HiGHS for LPs, the IPM for QPs and conic
		// programs, with fallback on an answer that fails the re-check.
		// Every LP starts with HiGHS whatever its size (SmallLPNnz = −1):
		// callers read a basic solution off model LPs (package grid: LMPs
		// from the duals, binding limits, dual LMP proofs), which the
		// interior point of the optimal face would change.
		backend = autoroute.NewSimplexFirst()
	}
	for _, k := range p.Cones {
		if !backend.Supports(k.Kind) {
			return nil, errf(ErrUnsupported, "%s does not support the %v cone of %s", backend.Name(), k.Kind, c.describeCone(k.Kind))
		}
	}
	if err := ctx.Err(); err != nil {
		return &Result{Status: solver.Cancelled, Objective: math.NaN(), Canonical: c, Time: Timing{Total: time.Since(start)}}, nil
	}
	t0 := time.Now()
	sol, err := backend.Solve(ctx, p, opts.Settings)
	tsolve := time.Since(t0)
	opts.progress("solve", tsolve)
	if err != nil {
		if auto && !p.IsLinearConic() {
			k := firstNonLinear(p.Cones)
			return nil, fmt.Errorf("%w: %s uses a %v cone, which HiGHS (LP/QP only) cannot take, and the conic backend %s failed: %w", ErrUnsupported, c.describeCone(k), k, backend.Name(), err)
		}
		return nil, fmt.Errorf("model: backend %s failed: %w", backend.Name(), err)
	}
	if sol == nil {
		return nil, fmt.Errorf("model: backend %s returned no solution and no error", backend.Name())
	}
	t1 := time.Now()
	res, err := c.invert(sol, opts.FeasibilityTol)
	if err != nil {
		return nil, err
	}
	opts.progress("invert", time.Since(t1))
	res.Time = Timing{Solve: tsolve, Total: time.Since(start)}
	return res, nil
}

// firstNonLinear returns the first cone kind other than zero/nonnegative.
func firstNonLinear(cs []cone.Cone) cone.Kind {
	for _, k := range cs {
		if k.Kind != cone.Zero && k.Kind != cone.Nonnegative {
			return k.Kind
		}
	}
	return cone.Zero
}

// describeCone names the first constraint using a cone of kind k, e.g.
// `constraint "soc1"`.
func (c *Canonical) describeCone(k cone.Kind) string {
	for _, con := range c.m.cons[:len(c.rowStart)-1] {
		for _, b := range con.blocks {
			if b.Kind == k {
				return fmt.Sprintf("constraint %q", con.name)
			}
		}
	}
	if k == cone.Zero {
		return "a lifted quadratic term"
	}
	if k == cone.Nonnegative {
		return "a variable bound"
	}
	return "the model"
}

// Invert maps a standard-form solution of c.Problem back to the model, with
// the default feasibility check (see SolveOptions.FeasibilityTol). The
// returned Result has no timing information.
func (c *Canonical) Invert(sol *solver.Solution) (*Result, error) {
	return c.invert(sol, 0)
}

func (c *Canonical) invert(sol *solver.Solution, tol float64) (*Result, error) {
	if sol == nil {
		return nil, errf(ErrInvalidArgument, "Invert: solution is nil")
	}
	res := &Result{Status: sol.Status, Objective: math.NaN(), Solution: sol, Canonical: c}
	if !sol.Status.OK() {
		return res, nil
	}
	p := c.Problem
	n, mrows := p.NumVars(), p.NumRows()
	if len(sol.X) != n || len(sol.Y) != mrows {
		res.Status = solver.NumericalError
		res.Diagnostic = fmt.Sprintf("backend reported %v with len(X) = %d (want %d), len(Y) = %d (want %d)", sol.Status, len(sol.X), n, len(sol.Y), mrows)
		return res, nil
	}
	for _, v := range append(append([]float64(nil), sol.X...), sol.Y...) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			res.Status = solver.NumericalError
			res.Diagnostic = fmt.Sprintf("backend reported %v with a non-finite primal or dual value", sol.Status)
			return res, nil
		}
	}
	if tol == 0 {
		tol = DefaultFeasibilityTol
	}
	if tol > 0 {
		if sol.Status == solver.AlmostOptimal {
			tol *= almostOptimalFactor
		}
		if msg := checkFeasible(p, sol.X, tol); msg != "" {
			res.Status = solver.NumericalError
			res.Diagnostic = fmt.Sprintf("backend reported %v but %s", sol.Status, msg)
			return res, nil
		}
	}
	res.theta = slices.Clone(c.par.theta)
	res.x = append([]float64(nil), sol.X...)
	res.y = append([]float64(nil), sol.Y...)
	obj := p.R
	for j, qj := range p.Q {
		obj += qj * sol.X[j]
	}
	if p.P != nil {
		// ½xᵀPx with P's upper triangle: diagonal once, off-diagonal twice.
		for j := 0; j < p.P.Cols; j++ {
			for k := p.P.ColPtr[j]; k < p.P.ColPtr[j+1]; k++ {
				i := p.P.RowIdx[k]
				v := p.P.Val[k] * sol.X[i] * sol.X[j]
				if i == j {
					obj += 0.5 * v
				} else {
					obj += v
				}
			}
		}
	}
	if c.maximize {
		obj = -obj
	}
	res.Objective = obj
	return res, nil
}

// checkFeasible returns "" if s = b − Ax lies in K up to
//
//	tol·(1 + max(‖b‖∞, maxᵢ Σⱼ|Aᵢⱼxⱼ|))
//
// (per row for zero and nonnegative cones, as a Euclidean distance per block
// for the others), else a description of the first violation. The scale is
// global, like the backends' own residual tests, so rows with small
// coefficients are not held to a stricter standard than the solver's.
func checkFeasible(p *solver.Problem, x []float64, tol float64) string {
	m := p.NumRows()
	s := make([]float64, m)
	ax := make([]float64, m) // Σⱼ|Aᵢⱼxⱼ|
	copy(s, p.B)
	A := p.A
	for j := 0; j < A.Cols; j++ {
		for k := A.ColPtr[j]; k < A.ColPtr[j+1]; k++ {
			v := A.Val[k] * x[j]
			s[A.RowIdx[k]] -= v
			ax[A.RowIdx[k]] += math.Abs(v)
		}
	}
	scale := 0.0
	for i := range s {
		scale = math.Max(scale, math.Max(math.Abs(p.B[i]), ax[i]))
	}
	lim := tol * (1 + scale)
	row := 0
	for _, k := range p.Cones {
		blk := s[row : row+k.Dim]
		switch k.Kind {
		case cone.Zero:
			for i, v := range blk {
				if math.Abs(v) > lim {
					return fmt.Sprintf("row %d violates its equality by %.3g (limit %.3g)", row+i, math.Abs(v), lim)
				}
			}
		case cone.Nonnegative:
			for i, v := range blk {
				if v < -lim {
					return fmt.Sprintf("row %d violates its inequality by %.3g (limit %.3g)", row+i, -v, lim)
				}
			}
		default:
			d, err := k.Distance(blk)
			if err != nil {
				return fmt.Sprintf("rows %d..%d: %v", row, row+k.Dim-1, err)
			}
			if d > lim {
				return fmt.Sprintf("rows %d..%d are %.3g outside the %v cone (limit %.3g)", row, row+k.Dim-1, d, k.Kind, lim)
			}
		}
		row += k.Dim
	}
	return ""
}
