package model

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/highs"
	"github.com/privopt/privopt/sparse"
)

// Prepared is a model canonicalized once for repeated solves with new
// parameter values (Param): SetParam changes the standard form's data in
// place and Solve re-solves without re-canonicalizing.
//
// Warm starts: an LP (zero and nonnegative cones, no quadratic term) solved
// with the default route or a *highs.Solver is kept in one persistent HiGHS
// instance (highs.LP): the variable-bound rows become column bounds, a
// parameter change becomes a change of row bounds or costs, and the next
// Solve starts the dual simplex method from the previous optimal basis
// (without presolve). Other problems are re-solved from scratch by the backend
// of the options (the interior-point method has no warm start); Result.Solution
// .Solver names who answered. A Prepared is not safe for concurrent use;
// Close releases the HiGHS instance.
type Prepared struct {
	can  *Canonical
	opts SolveOptions

	lp       *highs.LP // nil unless warm-started LP
	lpRows   int       // LP rows: the standard-form rows [0, lpRows)
	zeroRow  []bool    // per LP row: zero cone (equality) row
	dirtyRow map[int]bool
	dirtyQ   bool
}

// Prepare canonicalizes the model for repeated solves (see Prepared). The
// options are those of every later Solve; for a warm-started LP the non-zero
// fields of opts.Settings override those of the *highs.Solver's options.
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
	p := &Prepared{can: can, opts: opts, dirtyRow: map[int]bool{}}
	var hopts highs.Options
	switch s := opts.Solver.(type) {
	case nil:
	case *highs.Solver:
		hopts = s.Options()
	default:
		return p, nil
	}
	if can.Problem.P != nil || !can.Problem.IsLinearConic() || can.liftRow < can.Problem.NumRows() {
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
	if err := p.buildLP(hopts); err != nil {
		return nil, err
	}
	return p, nil
}

// buildLP loads the LP into a persistent HiGHS instance: rows [0, boundRow)
// as rows, bound rows as column bounds.
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
	if err := lp.AddColumns(prob.Q, lo, hi); err != nil {
		lp.Close()
		return fmt.Errorf("model: Prepare: %w", err)
	}
	nr := c.boundRow
	p.lpRows = nr
	p.zeroRow = make([]bool, nr)
	row := 0
	for _, k := range prob.Cones {
		for i := 0; i < k.Dim && row+i < nr; i++ {
			p.zeroRow[row+i] = k.Kind == cone.Zero
		}
		row += k.Dim
	}
	rlo, rhi := make([]float64, nr), make([]float64, nr)
	for i := 0; i < nr; i++ {
		rlo[i], rhi[i] = p.rowBounds(i)
	}
	at := prob.A.Transpose() // column i = row i of A
	rows := &sparse.CSC{Rows: n, Cols: nr, ColPtr: at.ColPtr[:nr+1], RowIdx: at.RowIdx[:at.ColPtr[nr]], Val: at.Val[:at.ColPtr[nr]]}
	if err := lp.AddRows(rlo, rhi, rows); err != nil {
		lp.Close()
		return fmt.Errorf("model: Prepare: %w", err)
	}
	p.lp = lp
	return nil
}

// rowBounds returns the HiGHS bounds of standard-form row i: a·x = b (zero)
// or a·x ≤ b (nonnegative).
func (p *Prepared) rowBounds(i int) (lo, hi float64) {
	b := p.can.Problem.B[i]
	if p.zeroRow[i] {
		return b, b
	}
	return math.Inf(-1), b
}

// Canonical returns the standard form (its b, q and r follow SetParam).
func (p *Prepared) Canonical() *Canonical { return p.can }

// WarmStart reports whether re-solves start from the previous HiGHS basis.
func (p *Prepared) WarmStart() bool { return p.lp != nil }

// SetParam sets the values of parameter par (see Canonical.SetParam).
func (p *Prepared) SetParam(par *Param, values ...float64) error {
	rows, cols, err := p.can.setParam(par, values)
	if err != nil {
		return err
	}
	for _, i := range rows {
		p.dirtyRow[i] = true
	}
	p.dirtyQ = p.dirtyQ || len(cols) > 0
	return nil
}

// Solve solves the standard form with the current parameter values and maps
// the solution back (as Model.Solve).
func (p *Prepared) Solve(ctx context.Context) (*Result, error) {
	if p.lp == nil {
		return p.can.Solve(ctx, p.opts)
	}
	start := time.Now()
	c := p.can
	prob := c.Problem
	for i := range p.dirtyRow {
		if i >= p.lpRows {
			continue
		}
		lo, hi := p.rowBounds(i)
		if err := p.lp.SetRowBounds(i, lo, hi); err != nil {
			return nil, fmt.Errorf("model: Prepared.Solve: %w", err)
		}
	}
	clear(p.dirtyRow)
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

// solution maps a HiGHS LP result to the standard form: y = −λ on rows
// (Px + q + Aᵀy = 0 with HiGHS's d = q − Aᵀλ), and the reduced cost dⱼ of a
// column split onto its bound rows (dⱼ = y_lo − y_hi: y_lo = dⱼ when dⱼ > 0,
// y_hi = −dⱼ when dⱼ < 0).
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
	for i := 0; i < p.lpRows; i++ {
		sol.Y[i] = -lr.RowDual[i]
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
	if acc, err := solver.Measure(prob, sol.X, sol.S, sol.Y); err == nil {
		sol.Accuracy = acc
	}
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
