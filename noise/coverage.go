package noise

import (
	"context"
	"math"
	"sort"
	"time"
)

// The lower bound D(π, β) of Selvi, Liu & Wiesemann (Section 4.1) for a
// non-uniform partition π evaluates events as if the probability of each cell
// were spread uniformly over it. That is not a relaxation: the cell masses of
// an (ε,δ)-DP distribution, spread uniformly within coarse cells, can violate
// those constraints (the tests exhibit a certified density whose smoothed
// cell masses exceed δ by 0.003–0.018), and the paper's proof of Corollary 1
// treats D(π, β) as a restriction, which gives the opposite inequality.
//
// The coverage relaxation used here instead only states what every DP
// distribution's cell masses p_j = P[X ∈ Π_j] satisfy: for a union A of cells
// of the event region and a shift mβ,
//
//	Σ_{j ∈ A} p_j = P[X ∈ A] ≤ e^ε·P[X ∈ A − mβ] + δ ≤ e^ε·Σ_{j' ∈ N(A)} p_j' + δ,
//
// where N(A) is the set of cells that intersect A − mβ. It coincides with the
// exact constraints on unit cells, so for uniform partitions it equals D(π, β).

// coverage holds, for one shift m, the cells intersected by the shifted image
// of each cell: R_j = [lo_j, hi_j] (empty ranges are placed before or after all
// cells so that lo and hi stay nondecreasing in j).
type coverage struct {
	lo, hi []int
}

func (g *grid) coverage(m int, cv *coverage) {
	n := len(g.width)
	first, last := g.idx[0], g.idx[n]
	cv.lo, cv.hi = cv.lo[:0], cv.hi[:0]
	for j := 0; j < n; j++ {
		a, b := g.idx[j]-m, g.idx[j+1]-m // image [a, b)
		a, b = max(a, first), min(b, last)
		switch {
		case a >= b && g.idx[j]-m < first:
			cv.lo, cv.hi = append(cv.lo, 0), append(cv.hi, -1)
		case a >= b:
			cv.lo, cv.hi = append(cv.lo, n), append(cv.hi, n-1)
		default:
			cv.lo = append(cv.lo, int(g.cellOf[a-first]))
			cv.hi = append(cv.hi, int(g.cellOf[b-1-first]))
		}
	}
}

// worstCoverageEvent maximizes Σ_{j∈A} p_j − e·Σ_{j'∈N(A)} p_j' over unions A
// of cells of the event region, by dynamic programming over the cells in
// order (the ranges R_j are monotone, so a cell of R_j already paid for is
// exactly one at or below hi of the previously chosen cell). It returns the
// value and the chosen cells (ascending).
func (g *grid) worstCoverageEvent(p []float64, cv *coverage, best []float64, prev []int, cum []float64) (float64, []int) {
	n := len(g.width)
	cum[0] = 0
	for j := 0; j < n; j++ {
		cum[j+1] = cum[j] + p[j]
	}
	S := func(c int) float64 { return cum[c+1] } // Σ_{cells ≤ c}
	e := g.e
	// running maximum of best[i] over chosen i whose hi_i < lo_j
	farBest, farArg := 0.0, -1
	ptr := 0
	topVal, topArg := 0.0, -1
	for j := 0; j < n; j++ {
		best[j], prev[j] = math.Inf(-1), -1
		if g.idx[j] < g.rlo || g.idx[j+1] > g.rhi {
			continue
		}
		lo, hi := cv.lo[j], cv.hi[j]
		for ptr < j && cv.hi[ptr] < lo {
			if best[ptr] > farBest {
				farBest, farArg = best[ptr], ptr
			}
			ptr++
		}
		base := p[j] - e*(S(hi)-S(lo-1))
		v, arg := farBest, farArg
		for i := ptr; i < j; i++ { // overlapping predecessors: hi_i ≥ lo
			if math.IsInf(best[i], -1) {
				continue
			}
			if w := best[i] + e*(S(min(cv.hi[i], hi))-S(lo-1)); w > v {
				v, arg = w, i
			}
		}
		best[j], prev[j] = base+v, arg
		if best[j] > topVal {
			topVal, topArg = best[j], j
		}
	}
	var A []int
	for j := topArg; j >= 0; j = prev[j] {
		A = append(A, j)
	}
	sort.Ints(A)
	return topVal, A
}

// coverageCut returns the row Σ_{j∈A} p_j − e·Σ_{j'∈N(A)} p_j' (sorted columns).
func (g *grid) coverageCut(A []int, cv *coverage) ([]int, []float64) {
	acc := map[int]float64{}
	h := -1
	for _, j := range A {
		acc[j]++
		for c := max(cv.lo[j], h+1); c <= cv.hi[j]; c++ {
			acc[c] -= g.e
		}
		h = max(h, cv.hi[j])
	}
	return sortRow(acc)
}

// solveLowerCoverage computes the lower bound on a non-uniform partition with
// the coverage relaxation, by Kelley cuts (the worst event of each of the most
// violated shifts, found by worstCoverageEvent).
func (g *grid) solveLowerCoverage(ctx context.Context, p Params, opt OptimalOptions, ref int, res *OptimalResult, symmetric bool) (float64, error) {
	cp, err := newCuttingPlane(g, p.Delta, symmetric, false)
	if err != nil {
		return 0, err
	}
	defer cp.lp.Close()
	n := len(g.width)
	covs := make([]coverage, len(g.shifts))
	for s, m := range g.shifts {
		g.coverage(m, &covs[s])
	}
	best, prev, cum := make([]float64, n), make([]int, n), make([]float64, n+1)
	vals := make([]float64, len(g.shifts))
	events := make([][]int, len(g.shifts))
	order := make([]int, len(g.shifts))
	perRound := max(opt.CutsPerRound, 8)
	// Every relaxation's optimal value is a valid lower bound, so the loop
	// may stop before convergence: after maxRounds rounds, or once no shift
	// is violated by more than 10⁻⁷ (dense cuts with coefficients −e^ε stall
	// near convergence).
	maxRounds := min(opt.MaxRounds, 2000)
	for round := 0; ; round++ {
		// Dense cuts with coefficients 1 and −e^ε can trip the warm simplex;
		// a cold start usually recovers.
		r, err := cp.solve(ctx, "lower", true)
		res.LPTime += cp.lpTime
		cp.lpTime = 0
		if err != nil {
			return 0, err
		}
		res.Rounds++
		t0 := time.Now()
		x := r.X[:n]
		for s := range g.shifts {
			vals[s], events[s] = g.worstCoverageEvent(x, &covs[s], best, prev, cum)
			order[s] = s
		}
		sort.Slice(order, func(a, b int) bool { return vals[order[a]] > vals[order[b]] })
		res.SearchTime += time.Since(t0)
		worst := vals[order[0]]
		if opt.Progress != nil {
			opt.Progress(OptimizeProgress{Stage: "lower", Refinement: ref, Round: round, Intervals: n, Cuts: cp.lp.NumRows(), Objective: r.Objective * g.scale, MaxViolation: worst - p.Delta})
		}
		if worst <= p.Delta+1e-7 || round+1 >= maxRounds {
			return r.Objective * g.scale, nil
		}
		var rows [][]int
		var rv [][]float64
		var lo, hi []float64
		for _, s := range order[:min(perRound, len(order))] {
			if vals[s] <= p.Delta+1e-7 {
				break
			}
			ri, vv := g.coverageCut(events[s], &covs[s])
			rows, rv = append(rows, ri), append(rv, vv)
			lo, hi = append(lo, math.Inf(-1)), append(hi, p.Delta)
		}
		if err := cp.lp.AddRows(lo, hi, csrRows(cp.ncols, rows, rv)); err != nil {
			return 0, err
		}
	}
}
