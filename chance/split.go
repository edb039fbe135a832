package chance

import (
	"context"
	"math"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/sparse"
)

// Decoupled copies. On the interval fast path the counterpart is
//
//	minimize    qᵀ(hi·x_lo − lo·x_hi)/W + r
//	subject to  x_lo ∈ F,  x_hi ∈ F,  Qᵀ(x_hi − x_lo) = D
//
// with F the base problem's feasible set and D = W·(the query equality's
// right-hand side). When every column's recourse is free, there is no CVaR
// term and the objective is the query itself, q = κQ with κ > 0, the
// query row turns the objective into κ·Qᵀx_lo − κ·lo·D/W = qᵀx_lo + const:
// the lower copy is an optimal point of the base problem, and the upper copy
// is any point of F with Qᵀx_hi = Qᵀx_lo + D. (If no such point exists, none
// exists for any feasible x_lo either, since every one has Qᵀx_lo ≥ the
// minimum and D > 0: the counterpart is then infeasible.) So two problems of
// the base problem's size replace one of twice its size: the base problem,
// then the upper copy (a caller's proposal, Spec.Upper, or the base problem
// with the extra row Qᵀx = Qᵀx_lo + D). Optimal duals follow in closed form:
// the base problem's duals on the lower copy's rows, 0 on the upper copy's,
// and μ on the query row from the upper copy's stationarity
// q_hi + A_{query,hi}·μ = 0 (q_hi = −lo·q/W). The assembled primal–dual pair
// is re-checked on the counterpart (solver.Certify); if it misses the
// tolerance, the counterpart is solved whole.
//
// This is how a private DC-OPF cost release solves: the lower copy is the
// market dispatch itself (the cost query is the objective).

// intervalSplit records what solveSplit needs about a decoupling counterpart.
type intervalSplit struct {
	n     int       // base columns
	qv    []float64 // query row over the base columns
	d     float64   // Qᵀ(x_hi − x_lo) = d
	qrow  int       // row of the query equality in the counterpart
	loRow []int     // counterpart row of the lower copy of each base row
	upper func(xLo []float64, d float64) []float64
}

// splitTolerance is the relative accuracy the assembled solution must meet
// (solver/highs certifies LP answers at 1e-7; 1e-5 is its reduced tolerance).
const splitTolerance, splitReduced = 1e-7, 1e-5

// solveSplit solves a decoupling counterpart as two base-size problems; ok is
// false when it could not (the caller then solves the counterpart whole).
func (c *Counterpart) solveSplit(ctx context.Context, s solver.Solver, set solver.Settings) (sol *solver.Solution, ok bool) {
	sp := c.split
	base := c.Lifted.Base()
	lo, err := s.Solve(ctx, base, set)
	if err != nil || lo.Status != solver.Optimal {
		return nil, false
	}
	n := sp.n
	target := sp.d
	for j, v := range sp.qv {
		target += v * lo.X[j]
	}
	var xHi []float64
	if sp.upper != nil {
		xHi = sp.upper(append([]float64(nil), lo.X...), sp.d)
	}
	used := "proposed"
	if xHi == nil || len(xHi) != n || !withinBase(base, xHi, lo.X) || !hitsTarget(sp.qv, xHi, target) {
		used = "solved"
		// The upper copy starts cold: a warm start (set.Warm) is kept for
		// the sequence of base problems, which the extra row would break.
		upSet := set
		upSet.Warm = nil
		up, err := s.Solve(ctx, withRow(base, sp.qv, target), upSet)
		if err != nil || !up.Status.OK() {
			return nil, false
		}
		xHi = up.X[:n]
		lo.SolveTime += up.SolveTime
	}
	p := c.Problem
	x := make([]float64, p.NumVars())
	copy(x, lo.X)
	copy(x[n:], xHi)
	// μ from the upper copy's stationarity at the largest query entry.
	jm := 0
	for j, v := range sp.qv {
		if math.Abs(v) > math.Abs(sp.qv[jm]) {
			jm = j
		}
	}
	mu := -p.Q[n+jm] / entry(p.A, sp.qrow, n+jm)
	sigma := 1.0
	if base.Q[jm] != 0 {
		sigma = -(p.Q[jm] + entry(p.A, sp.qrow, jm)*mu) / -base.Q[jm]
	}
	y := make([]float64, p.NumRows())
	for i, r := range sp.loRow {
		y[r] = sigma * lo.Y[i]
	}
	y[sp.qrow] = mu
	sl := make([]float64, p.NumRows())
	copy(sl, p.B)
	p.A.MulVecTo(sl, -1, x, 1)
	obj, dual := p.R, p.R
	for j, v := range p.Q {
		obj += v * x[j]
	}
	for i, v := range p.B {
		dual -= v * y[i]
	}
	sol = &solver.Solution{Status: solver.Optimal, X: x, S: sl, Y: y, Objective: obj, DualObjective: dual,
		Iterations: lo.Iterations, SolveTime: lo.SolveTime, Solver: lo.Solver,
		Diagnostic: "interval copies decoupled: lower copy = base problem, upper copy " + used}
	solver.Certify(p, sol, splitTolerance, splitReduced)
	if sol.Status != solver.Optimal {
		return nil, false
	}
	return sol, true
}

// entry returns A[i, j] of a CSC matrix (0 when absent).
func entry(a *sparse.CSC, i, j int) float64 {
	for t := a.ColPtr[j]; t < a.ColPtr[j+1]; t++ {
		if a.RowIdx[t] == i {
			return a.Val[t]
		}
	}
	return 0
}

// withinBase reports whether x satisfies the base rows b − Ax ∈ K to 1e-9
// relative, or, on a row where the solver's own point ref (the lower copy)
// misses that by its tolerances, no worse than ref does (a proposal is
// checked before it is used; the assembled solution is certified
// afterwards anyway, at the solver's tolerance).
func withinBase(p *solver.Problem, x, ref []float64) bool {
	s := append([]float64(nil), p.B...)
	p.A.MulVecTo(s, -1, x, 1)
	var sr []float64
	row := 0
	for _, c := range p.Cones {
		for t := 0; t < c.Dim; t++ {
			v, tol := s[row+t], 1e-9*(1+math.Abs(p.B[row+t]))
			if math.IsNaN(v) {
				return false
			}
			if v >= -tol && (c.Kind != cone.Zero || v <= tol) {
				continue
			}
			if sr == nil {
				sr = append([]float64(nil), p.B...)
				p.A.MulVecTo(sr, -1, ref, 1)
			}
			r := sr[row+t]
			if v < -tol && v < r-tol {
				return false
			}
			if c.Kind == cone.Zero && v > tol && v > r+tol {
				return false
			}
		}
		row += c.Dim
	}
	return true
}

// hitsTarget reports whether qvᵀx = target to 1e-9 relative.
func hitsTarget(qv, x []float64, target float64) bool {
	v := 0.0
	for j, c := range qv {
		v += c * x[j]
	}
	return math.Abs(v-target) <= 1e-9*(1+math.Abs(target))
}

// withRow returns p with the extra equality row qvᵀx = rhs.
func withRow(p *solver.Problem, qv []float64, rhs float64) *solver.Problem {
	m, n := p.NumRows(), p.NumVars()
	tr := sparse.NewTriplets(m+1, n, p.A.Nnz()+len(qv))
	for j := 0; j < n; j++ {
		for t := p.A.ColPtr[j]; t < p.A.ColPtr[j+1]; t++ {
			tr.Append(p.A.RowIdx[t], j, p.A.Val[t])
		}
		if qv[j] != 0 {
			tr.Append(m, j, qv[j])
		}
	}
	q := *p
	q.A = tr.ToCSC()
	q.B = append(append(make([]float64, 0, m+1), p.B...), rhs)
	q.Cones = append(append([]cone.Cone(nil), p.Cones...), cone.NewZero(1))
	return &q
}
