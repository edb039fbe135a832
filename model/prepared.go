package model

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/highs"
	"github.com/privopt/privopt/solver/ipm"
	"github.com/privopt/privopt/sparse"
)

// Prepared is a model canonicalized once for repeated solves with new
// parameter values (Param): SetParam changes the standard form's data in
// place and Solve re-solves without re-canonicalizing.
//
// Warm starts:
//
//   - An LP (zero and nonnegative cones, no quadratic term) solved with the
//     default route or a *highs.Solver is kept in one persistent HiGHS
//     instance (highs.LP): the variable-bound rows become column bounds, a
//     parameter change becomes one batched change of row bounds or of the
//     costs, and the next Solve starts the dual simplex method from the
//     previous optimal basis (without presolve). Its answer is re-checked
//     as the HiGHS backend re-checks its own (solver.Certify).
//   - A QP on an explicit *highs.Solver is re-solved from scratch by that
//     backend: HiGHS 1.10's active-set QP solver runs as many iterations in
//     a persistent instance (highs.LP.SetHessian) as from scratch
//     (BENCHMARKS.md, "Modelling layer, round 2"), so keeping one would only
//     skip the backend's re-check of the answer.
//   - Problems the interior-point method answers (an explicit *ipm.Solver;
//     QPs and conic programs on the default route) are re-solved from the
//     previous optimal solution, shifted into the interior of the cones
//     (ipm.Solver.SolveFrom: 1% of the cold starting point mixed in). This
//     cuts the iteration count by about 10–40% on small changes of b or q
//     (BENCHMARKS.md, "Modelling layer, round 2"); a warm answer that is not
//     optimal is discarded and the problem re-solved from scratch by the
//     options' backend (the default route with its fallback).
//   - Other backends re-solve from scratch, which saves the
//     canonicalization only.
//
// Result.Solution.Solver names who answered. A Prepared is not safe for
// concurrent use; Close releases the HiGHS instance.
type Prepared struct {
	can  *Canonical
	opts SolveOptions

	lp      *highs.LP // nil unless warm-started LP
	rowOf   []int     // HiGHS row r is standard-form row rowOf[r]
	hrow    map[int]int
	zeroRow []bool // per HiGHS row: zero cone (equality) row
	dirty   map[int]bool
	dirtyQ  bool
	// tolerances of the re-check of a HiGHS answer (highs.Options.CertifyTolerances)
	certTol, certReduced float64

	ipm    *ipm.Solver      // the interior-point backend of warm re-solves, nil if none
	prev   *solver.Solution // its previous optimal solution
	noWarm bool             // SetIPMWarmStart(false)
}

// SetIPMWarmStart turns the interior-point warm start of later Solve calls
// on (the default) or off (every re-solve then starts cold, as Model.Solve
// does). Whether the warm start saves iterations depends on the change
// between solves: learn.FitPath turns it off for its hinge path, where the
// objective changes by a factor 1.44 per step and the warm start cost 22%
// more iterations (BENCHMARKS.md, "Modelling layer, round 2").
func (p *Prepared) SetIPMWarmStart(on bool) {
	p.noWarm = !on
	if !on {
		p.prev = nil
	}
}

// Prepare canonicalizes the model for repeated solves (see Prepared). The
// options are those of every later Solve; for a warm-started LP the
// non-zero fields of opts.Settings override those of the *highs.Solver's
// options.
func (m *Model) Prepare(opts SolveOptions) (*Prepared, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	t0 := time.Now()
	can, err := m.Canonicalize()
	if err != nil {
		return nil, err
	}
	opts.progress("canonicalize", time.Since(t0))
	p := &Prepared{can: can, opts: opts, dirty: map[int]bool{}}
	var hopts highs.Options
	switch s := opts.Solver.(type) {
	case nil:
		if can.Problem.P != nil || !can.Problem.IsLinearConic() {
			p.ipm = ipm.New() // the default route takes QPs and conic programs to the IPM
			return p, nil
		}
	case *highs.Solver:
		if can.Problem.P != nil {
			// HiGHS 1.10's QP solver does not start from a previous solve
			// (BENCHMARKS.md, "Modelling layer, round 2"): re-solve through
			// the backend, with its re-check of the answer.
			return p, nil
		}
		hopts = s.Options()
	case *ipm.Solver:
		p.ipm = s
		return p, nil
	default:
		return p, nil
	}
	if !can.Problem.IsLinearConic() {
		return p, nil
	}
	// The options' common settings apply to the persistent instance too.
	if set := opts.Settings; set.TimeLimit > 0 || set.MaxIterations > 0 || set.Threads > 0 || set.Log != nil {
		if set.TimeLimit > 0 {
			hopts.TimeLimit = set.TimeLimit
		}
		if set.MaxIterations > 0 {
			hopts.MaxIterations = set.MaxIterations
		}
		if set.Threads > 0 {
			hopts.Threads = set.Threads
		}
		if set.Log != nil {
			hopts.Log = set.Log
		}
	}
	p.certTol, p.certReduced = hopts.CertifyTolerances()
	if err := p.buildLP(hopts); err != nil {
		return nil, err
	}
	return p, nil
}

// buildLP loads the LP into a persistent HiGHS instance: the constraint
// rows [0, boundRow) and any lifting rows [liftRow, NumRows) as rows, the
// bound rows as column bounds.
func (p *Prepared) buildLP(o highs.Options) error {
	c := p.can
	prob := c.Problem
	n := prob.NumVars()
	lo, hi := make([]float64, n), make([]float64, n)
	for j := range lo {
		lo[j], hi[j] = math.Inf(-1), math.Inf(1)
	}
	if c.boundLo != nil {
		for j := range c.boundLo {
			if k := c.boundLo[j]; k >= 0 {
				lo[j] = -prob.B[k]
			}
			if k := c.boundHi[j]; k >= 0 {
				hi[j] = prob.B[k]
			}
		}
	}
	lp := highs.NewLP(o)
	fail := func(err error) error {
		lp.Close()
		return fmt.Errorf("model: Prepare: %w", err)
	}
	if err := lp.AddColumns(prob.Q, lo, hi); err != nil {
		return fail(err)
	}
	m := prob.NumRows()
	p.rowOf = p.rowOf[:0]
	for i := 0; i < c.boundRow; i++ {
		p.rowOf = append(p.rowOf, i)
	}
	for i := c.liftRow; i < m; i++ {
		p.rowOf = append(p.rowOf, i)
	}
	p.hrow = make(map[int]int, len(p.rowOf))
	for r, i := range p.rowOf {
		p.hrow[i] = r
	}
	zero := make([]bool, m)
	row := 0
	for _, k := range prob.Cones {
		for i := row; i < row+k.Dim; i++ {
			zero[i] = k.Kind == cone.Zero
		}
		row += k.Dim
	}
	nr := len(p.rowOf)
	p.zeroRow = make([]bool, nr)
	rlo, rhi := make([]float64, nr), make([]float64, nr)
	for r, i := range p.rowOf {
		p.zeroRow[r] = zero[i]
		rlo[r], rhi[r] = p.rowBounds(r)
	}
	// The rows, transposed (column r = standard row rowOf[r]).
	at := prob.A.Transpose()
	t := sparse.NewTriplets(n, nr, prob.A.Nnz())
	for r, i := range p.rowOf {
		for k := at.ColPtr[i]; k < at.ColPtr[i+1]; k++ {
			t.Append(at.RowIdx[k], r, at.Val[k])
		}
	}
	if err := lp.AddRows(rlo, rhi, t.ToCSC()); err != nil {
		return fail(err)
	}
	p.lp = lp
	return nil
}

// rowBounds returns the HiGHS bounds of HiGHS row r: a·x = b (zero) or
// a·x ≤ b (nonnegative).
func (p *Prepared) rowBounds(r int) (lo, hi float64) {
	b := p.can.Problem.B[p.rowOf[r]]
	if p.zeroRow[r] {
		return b, b
	}
	return math.Inf(-1), b
}

// Canonical returns the standard form (its b, q and r follow SetParam).
func (p *Prepared) Canonical() *Canonical { return p.can }

// WarmStart reports whether re-solves start from the previous HiGHS basis
// (an LP on the default route or HiGHS); see Prepared for the interior-point
// warm start.
func (p *Prepared) WarmStart() bool { return p.lp != nil }

// SetParam sets the values of parameter par (see Canonical.SetParam).
func (p *Prepared) SetParam(par *Param, values ...float64) error {
	rows, cols, err := p.can.setParam(par, values)
	if err != nil {
		return err
	}
	for _, i := range rows {
		p.dirty[i] = true
	}
	p.dirtyQ = p.dirtyQ || len(cols) > 0
	return nil
}

// Solve solves the standard form with the current parameter values and maps
// the solution back (as Model.Solve).
func (p *Prepared) Solve(ctx context.Context) (*Result, error) {
	if p.lp == nil {
		return p.solveIPM(ctx)
	}
	start := time.Now()
	c := p.can
	prob := c.Problem
	if len(p.dirty) > 0 {
		idx := make([]int, 0, len(p.dirty))
		for i := range p.dirty {
			if r, ok := p.hrow[i]; ok {
				idx = append(idx, r)
			} else {
				// A parameter in a bound row cannot happen: bounds are
				// constants (a parametric bound is a constraint row).
				return nil, fmt.Errorf("model: Prepared.Solve: parameter row %d is not a HiGHS row", i)
			}
		}
		slices.Sort(idx)
		lo, hi := make([]float64, len(idx)), make([]float64, len(idx))
		for k, r := range idx {
			lo[k], hi[k] = p.rowBounds(r)
		}
		if err := p.lp.SetRowBoundsSet(idx, lo, hi); err != nil {
			return nil, fmt.Errorf("model: Prepared.Solve: %w", err)
		}
		clear(p.dirty)
	}
	if p.dirtyQ {
		if err := p.lp.SetCosts(prob.Q); err != nil {
			return nil, fmt.Errorf("model: Prepared.Solve: %w", err)
		}
		p.dirtyQ = false
	}
	if err := ctx.Err(); err != nil {
		return &Result{Status: solver.Cancelled, Objective: math.NaN(), Canonical: c, Time: Timing{Total: time.Since(start)}}, nil
	}
	t0 := time.Now()
	lr, err := p.lp.Solve(ctx)
	if err != nil {
		return nil, fmt.Errorf("model: backend highs failed: %w", err)
	}
	tsolve := time.Since(t0)
	p.opts.progress("solve", tsolve)
	sol := p.solution(lr)
	sol.SolveTime = tsolve
	res, err := c.invert(sol, p.opts.FeasibilityTol)
	if err != nil {
		return nil, err
	}
	res.Time = Timing{Solve: tsolve, Total: time.Since(start)}
	return res, nil
}

// solveIPM re-solves a problem that is not kept in HiGHS. When the
// interior-point method answers it (an explicit *ipm.Solver, or the default
// route for QPs and conic programs), a re-solve after an optimal one starts
// from the previous solution (ipm.Solver.SolveFrom with its default weight);
// a warm answer that is not optimal, or fails the feasibility check, is
// discarded and the problem solved again from scratch by the options'
// backend. Result.Diagnostic says which start answered.
func (p *Prepared) solveIPM(ctx context.Context) (*Result, error) {
	if p.prev != nil && ctx.Err() == nil {
		start := time.Now()
		t0 := time.Now()
		sol, err := p.ipm.SolveFrom(ctx, p.can.Problem, p.opts.Settings, p.prev, 0)
		tsolve := time.Since(t0)
		if err == nil && sol.Status.OK() {
			p.opts.progress("solve", tsolve)
			res, err := p.can.invert(sol, p.opts.FeasibilityTol)
			if err == nil && res.Status.OK() {
				p.prev = sol
				res.Diagnostic = "warm start: the interior-point method started from the previous solution"
				res.Time = Timing{Solve: tsolve, Total: time.Since(start)}
				return res, nil
			}
		}
	}
	res, err := p.can.Solve(ctx, p.opts)
	p.prev = nil
	if err == nil && !p.noWarm && res.Status.OK() && res.Solution != nil && res.Solution.Solver == "ipm" && p.ipm != nil {
		p.prev = res.Solution
	}
	return res, err
}

// solution maps a HiGHS LP result to the standard form: y = −λ on rows
// (Px + q + Aᵀy = 0 with HiGHS's d = q − Aᵀλ), and the reduced cost dⱼ of a
// column split onto its bound rows (dⱼ = y_lo − y_hi: y_lo = dⱼ when dⱼ > 0,
// y_hi = −dⱼ when dⱼ < 0); the point is certified as highs.Solver.Solve
// certifies its answers (solver.Certify).
func (p *Prepared) solution(lr *highs.LPResult) *solver.Solution {
	c := p.can
	prob := c.Problem
	sol := &solver.Solution{Status: lr.Status, Iterations: lr.Iterations, Solver: "highs"}
	if !lr.Status.OK() {
		return sol
	}
	m, n := prob.NumRows(), prob.NumVars()
	sol.X = append([]float64(nil), lr.X...)
	sol.Y = make([]float64, m)
	for r, i := range p.rowOf {
		sol.Y[i] = -lr.RowDual[r]
	}
	if c.boundLo != nil {
		for j := 0; j < n && j < len(c.boundLo); j++ {
			d := lr.ColDual[j]
			lo, hi := c.boundLo[j], c.boundHi[j]
			switch {
			case d > 0 && lo >= 0:
				sol.Y[lo] = d
			case d < 0 && hi >= 0:
				sol.Y[hi] = -d
			}
		}
	}
	sol.S = make([]float64, m)
	copy(sol.S, prob.B)
	A := prob.A
	for j := 0; j < A.Cols; j++ {
		for k := A.ColPtr[j]; k < A.ColPtr[j+1]; k++ {
			sol.S[A.RowIdx[k]] -= A.Val[k] * sol.X[j]
		}
	}
	obj := prob.R
	for j, q := range prob.Q {
		obj += q * sol.X[j]
	}
	sol.Objective = obj
	dual := prob.R
	for i, y := range sol.Y {
		dual -= prob.B[i] * y
	}
	sol.DualObjective = dual
	// The re-check highs.Solver.Solve applies: an answer missing the
	// tolerances is reported AlmostOptimal or NumericalError.
	sol.Accuracy = solver.Certify(prob, sol, p.certTol, p.certReduced)
	return sol
}

// Close releases the HiGHS instance of a warm-started LP. It is safe to call
// twice.
func (p *Prepared) Close() error {
	if p.lp != nil {
		err := p.lp.Close()
		p.lp = nil
		return err
	}
	return nil
}
