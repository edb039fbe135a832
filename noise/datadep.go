package noise

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"sort"
	"sync"
	"time"

	"github.com/privopt/privopt/solver"
)

// DataDependentOptions configure OptimizeDataDependent.
type DataDependentOptions struct {
	// Loss to minimize (default L1()).
	Loss Loss
	// Ranges K ≥ 1: the query range Φ is split into K intervals of length β,
	// Φ_i = [φ₀ + iβ, φ₀ + (i+1)β); noise i is used when f(D) ∈ Φ_i.
	// With RangeEdges set, Ranges must be 0 or M = len(RangeEdges) − 1.
	Ranges int
	// RangeEdges, if non-nil, partitions the query range non-uniformly (the
	// index vector λ of the appendix, "Extension of Algorithm 3 to Non-Uniform
	// Partitions of Φ"): integers in units of β, 0 = λ_0 < λ_1 < … < λ_M. Group
	// l covers the query values [φ₀ + λ_l β, φ₀ + λ_{l+1} β) and gets one
	// density. Nil means the uniform partition 0, 1, …, Ranges. The last edge
	// is at most 2³⁰.
	RangeEdges []int
	// Granularity k ≥ 2: β = Δ/k (default 4).
	Granularity int
	// SupportMultiple Λ: every noise lives on [−ΛΔ, ΛΔ] (default SupportRule).
	SupportMultiple int
	// Weights w_l ≥ 0 of the groups in the objective Σ w_l E c(X_l), one per
	// group (normalized to sum 1). Default: proportional to the group lengths
	// λ_{l+1} − λ_l (uniform over the query range; uniform for Ranges).
	Weights []float64
	// SkipLowerBound computes only the upper bound (no refinement then).
	SkipLowerBound bool
	// PaperLowerBound uses the cell infima of the loss (the paper's D'(π,β))
	// even when the dithered bound applies (see OptimalOptions.PaperLowerBound).
	PaperLowerBound bool
	// Gap ≥ 0: while (UB − LB)/LB > Gap and refinements remain, k doubles and
	// every range edge doubles (the partition of the query values is
	// unchanged in real units) and both bounds are solved again; the best
	// certified upper-bound family and the best lower bound are kept.
	// 0: one pass.
	Gap float64
	// MaxRefinements ≥ 0 bounds the refinements (default 3). Refinement also
	// stops before a level whose size would exceed the cap (groups × cells
	// per density ≤ 2·10⁵, last edge ≤ 2³⁰).
	MaxRefinements int
}

// DataDependentLevel is one granularity solved by OptimizeDataDependent.
type DataDependentLevel struct {
	Granularity int     // k of this level (β = Δ/k)
	UpperBound  float64 // certified Σ w_l E c(X_l) at this level (NaN if not certified)
	LowerBound  float64 // lower bound at this level (NaN if skipped)
}

// DataDependentResult is the outcome of OptimizeDataDependent.
type DataDependentResult struct {
	Dists []*PiecewiseConstant // noise for each group l of query values
	Beta  float64              // cell width β = Δ/k of Dists
	// RangeEdges are the group edges λ_0 = 0 < … < λ_M of Dists in units of
	// Beta: Dists[l] is used when f(D) − φ₀ ∈ [λ_l β, λ_{l+1} β) (see Index).
	RangeEdges   []int
	Granularity  int     // k of Dists
	UpperBound   float64 // Σ w_l E c(X_l) of Dists
	LowerBound   float64 // best lower bound over the levels (see OptimizeDataDependent)
	LowerMethod  string  // "dithered" or "cell-infimum": the relaxation of LowerBound
	Gap          float64 // (UpperBound − LowerBound)/LowerBound
	Certified    bool    // every pair (l, l') passed the exact shortfall check
	MaxShortfall float64 // max over pairs and shifts, upper bound in big-float arithmetic
	Refinements  int     // refinements made (levels solved − 1)
	Levels       []DataDependentLevel
	Rounds       int
	Time         time.Duration
}

// Index returns the group l whose density Dists[l] is to be added to a query
// value φ, given its offset φ − φ₀ from the start of the query range: the l
// with RangeEdges[l]·Beta ≤ offset < RangeEdges[l+1]·Beta. Offsets below 0
// (and NaN) map to group 0, offsets at or above the last edge to the last
// group.
func (r *DataDependentResult) Index(offset float64) int {
	M := len(r.RangeEdges) - 1
	if M < 1 || !(offset >= 0) {
		return 0
	}
	// First l ≥ 1 with offset < λ_l β, minus one; M − 1 if none.
	l := sort.Search(M-1, func(j int) bool { return offset < float64(r.RangeEdges[j+1])*r.Beta })
	return l
}

// ddMaxEdge bounds the last range edge (units of β).
const ddMaxEdge = 1 << 30

// ddMaxSize bounds groups × cells per density.
const ddMaxSize = 2e5

// OptimizeDataDependent computes data-dependent optimal noise (Selvi, Liu &
// Wiesemann, Section 3 and e-companion C.3, with the appendix's non-uniform
// partitions of Φ): M piecewise-constant densities p_l on the cells of width
// β = Δ/k of [−ΛΔ, ΛΔ], one per group l of query values [φ₀ + λ_l β,
// φ₀ + λ_{l+1} β) (λ = RangeEdges; uniform λ_l = l for Ranges), minimizing
// Σ_l w_l E c(X_l) subject to, for all l, l' and every integer shift
//
//	s ∈ [λ_{l'} − λ_{l+1}, λ_{l'+1} − λ_l] ∩ [−k, k]  (s ≠ 0 if l = l'),
//	P[X_l ∈ A] ≤ e^ε·P[X_{l'} + sβ ∈ A] + δ   for all events A.
//
// The query difference f(D') − f(D) of neighbours with f(D) in group l and
// f(D') in group l' lies in ((λ_{l'} − λ_{l+1})β, (λ_{l'+1} − λ_l)β) ∩ [−Δ, Δ],
// and the shortfall of densities that are piecewise constant on the β-grid is
// affine (hence convex) in the shift between consecutive multiples of β
// (Lemma C.16), so the integer shifts above cover every difference; for the
// uniform partition they are {l'−l−1, l'−l, l'−l+1}. Each violated triple
// (l, l', s) enters the LP as an exact block (one variable per overlapping
// cell pair). The upper bound uses δ_LP = δ − max(10⁻⁶δ, min(10⁻⁹, δ/100))
// and is certified pair by pair in big-float arithmetic at the same shifts
// (and ±Δ).
//
// The lower bound pads every density with k cells per side, uses the cell
// infima of the loss and events within [−ΛΔ, ΛΔ] (problem D'(π,β)) for the
// same grouping and shifts. It bounds from below Σ_l w_l E c(X_l) over every
// group-constant data-dependent mechanism f(D) + X_{l(f(D))}, i.e. one
// continuous noise distribution per group (not depending on f(D) within the
// group), that is (ε,δ)-DP for every query with sensitivity Δ and values in
// [φ₀, φ₀ + λ_M β): for such a family the unit-cell masses on the padded
// β-grid (with the mass beyond the padding folded into the outermost cells,
// which only enlarges the right-hand sides and, the loss being monotone away
// from 0, does not raise the objective's cell infima above the true loss)
// satisfy the constraints at the integer shifts exactly, as these shifts are
// limits of admissible query differences. It is not a bound for mechanisms
// whose noise varies within a group, nor for other groupings. When the loss
// declares its smoothness the cell infima are replaced by the dithered costs
// (see dither.go; one dither offset θ common to all groups keeps every
// constraint, as they are invariant under translating all noises): the mean
// of the LPs at the offsets 0 and β minus Kβ²/8 (LowerMethod "dithered").
//
// With Gap > 0 the problem is solved again with k doubled and every edge
// doubled (the same groups of query values, finer cells, more shifts per
// pair); every level bounds the same class of mechanisms, so the best
// certified upper bound and the largest lower bound are kept. A finer level
// can represent the coarser solution, so its upper bound should not be
// larger (Levels reports each level).
func OptimizeDataDependent(ctx context.Context, p Params, o DataDependentOptions) (*DataDependentResult, error) {
	start := time.Now()
	if err := p.needDelta(0, 1, "must be in (0, 1) for optimized noise"); err != nil {
		return nil, err
	}
	if p.Epsilon > MaxOptimizeEpsilon {
		return nil, paramErr("Epsilon", p.Epsilon, fmt.Sprintf("must be ≤ %g for optimized noise (see MaxOptimizeEpsilon)", float64(MaxOptimizeEpsilon)))
	}
	if o.Loss.Func == nil {
		o.Loss = L1()
	}
	var edges []int
	if o.RangeEdges != nil {
		e := o.RangeEdges
		switch {
		case len(e) < 2:
			return nil, paramErr("RangeEdges", e, "must have at least 2 entries (0 and the end of the query range in units of β)")
		case e[0] != 0:
			return nil, paramErr("RangeEdges", e[0], "must start at 0")
		case e[len(e)-1] > ddMaxEdge:
			return nil, paramErr("RangeEdges", e[len(e)-1], fmt.Sprintf("last edge must be at most %d", ddMaxEdge))
		}
		for l := 1; l < len(e); l++ {
			if e[l] <= e[l-1] {
				return nil, paramErr("RangeEdges", e, fmt.Sprintf("must be strictly increasing (entry %d is %d after %d)", l, e[l], e[l-1]))
			}
		}
		if o.Ranges != 0 && o.Ranges != len(e)-1 {
			return nil, paramErr("Ranges", o.Ranges, fmt.Sprintf("must be 0 or len(RangeEdges) − 1 = %d when RangeEdges is set", len(e)-1))
		}
		edges = append([]int(nil), e...)
	} else {
		if o.Ranges < 1 {
			return nil, paramErr("Ranges", o.Ranges, "must be ≥ 1")
		}
		if o.Ranges > ddMaxSize {
			return nil, paramErr("Ranges", o.Ranges, "groups times the cells per density exceeds 2e5")
		}
		edges = make([]int, o.Ranges+1)
		for l := range edges {
			edges[l] = l
		}
	}
	M := len(edges) - 1
	if o.Granularity == 0 {
		o.Granularity = 4
	}
	if o.Granularity < 2 {
		return nil, paramErr("Granularity", o.Granularity, "must be ≥ 2")
	}
	if o.SupportMultiple < 0 {
		return nil, paramErr("SupportMultiple", o.SupportMultiple, "must be ≥ 0")
	}
	if math.IsNaN(o.Gap) || o.Gap < 0 {
		return nil, paramErr("Gap", o.Gap, "must be ≥ 0")
	}
	if o.MaxRefinements < 0 {
		return nil, paramErr("MaxRefinements", o.MaxRefinements, "must be ≥ 0")
	}
	if o.MaxRefinements == 0 {
		o.MaxRefinements = 3
	}
	lam := o.SupportMultiple
	if lam == 0 {
		lam = SupportRule(p)
	}
	w := make([]float64, M)
	if o.Weights == nil {
		for l := range w {
			w[l] = float64(edges[l+1]-edges[l]) / float64(edges[M])
		}
	} else {
		if len(o.Weights) != M {
			return nil, paramErr("Weights", len(o.Weights), fmt.Sprintf("must have one entry per group (%d)", M))
		}
		s := 0.0
		for _, x := range o.Weights {
			if !(x >= 0) || math.IsInf(x, 0) {
				return nil, paramErr("Weights", x, "must be finite and ≥ 0")
			}
			s += x
		}
		if !(s > 0) {
			return nil, paramErr("Weights", s, "must have a positive sum")
		}
		for i, x := range o.Weights {
			w[i] = x / s
		}
	}
	size := func(k int) float64 { return float64(lam) * float64(k) * float64(M) }
	if size(o.Granularity) > ddMaxSize {
		name := "Ranges"
		if o.RangeEdges != nil {
			name = "RangeEdges"
		}
		return nil, paramErr(name, M, "groups times the cells per density exceeds 2e5")
	}
	scale := 0.5 * (o.Loss.Func(p.Sensitivity) + o.Loss.Func(-p.Sensitivity))
	if !(scale > 0) || math.IsInf(scale, 0) {
		return nil, paramErr("Loss", o.Loss.Name, "must be positive and finite at ±Δ")
	}
	base := OptimalOptions{Loss: o.Loss, PaperLowerBound: o.PaperLowerBound}.withDefaults()
	res := &DataDependentResult{UpperBound: math.Inf(1), LowerBound: math.NaN(), Gap: math.NaN()}
	k := o.Granularity
	for ref := 0; ; ref++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		lv, err := ddLevel(ctx, p, lam, k, edges, w, base, scale, o.SkipLowerBound)
		if err != nil {
			if ref == 0 || !errors.Is(err, ErrNotCertified) {
				return nil, err
			}
		}
		res.Rounds += lv.rounds
		res.Levels = append(res.Levels, DataDependentLevel{Granularity: k, UpperBound: lv.ub, LowerBound: lv.lb})
		if lv.dists != nil && lv.ub < res.UpperBound {
			res.Dists, res.UpperBound = lv.dists, lv.ub
			res.Beta, res.Granularity = p.Sensitivity/float64(k), k
			res.RangeEdges = append([]int(nil), edges...)
			res.Certified, res.MaxShortfall = true, lv.worst
		}
		if !math.IsNaN(lv.lb) && !(lv.lb <= res.LowerBound) {
			res.LowerBound = lv.lb
			res.LowerMethod = "cell-infimum"
			if lv.dithered {
				res.LowerMethod = "dithered"
			}
		}
		if !o.SkipLowerBound {
			res.Gap = (res.UpperBound - res.LowerBound) / math.Abs(res.LowerBound)
		}
		res.Refinements = ref
		if o.Gap == 0 || o.SkipLowerBound || res.Gap <= o.Gap || ref >= o.MaxRefinements ||
			size(2*k) > ddMaxSize || 2*edges[M] > ddMaxEdge {
			break
		}
		k *= 2
		edges = append([]int(nil), edges...)
		for l := range edges {
			edges[l] *= 2
		}
	}
	res.Time = time.Since(start)
	return res, nil
}

type ddLevelResult struct {
	dists    []*PiecewiseConstant
	ub, lb   float64
	dithered bool // lb is the dithered bound
	worst    float64
	rounds   int
}

// ddLevel solves the upper bound (with certification and up to three repairs
// with a tightened δ_LP) and, unless skipped, the lower bound at granularity
// k, concurrently. On ErrNotCertified the lower bound is still returned.
func ddLevel(ctx context.Context, p Params, lam, k int, edges []int, w []float64, base OptimalOptions, scale float64, skipLB bool) (ddLevelResult, error) {
	out := ddLevelResult{ub: math.NaN(), lb: math.NaN()}
	var wg sync.WaitGroup
	var lbErr error
	var lbRounds int
	if !skipLB {
		wg.Add(1)
		go func() {
			defer wg.Done()
			solve := func(g *grid) (float64, error) {
				dd := &ddProblem{g: g, edges: edges, w: w}
				_, obj, rounds, err := dd.solve(ctx, p.Delta, p.Delta+1e-9)
				lbRounds += rounds
				return obj * scale, err
			}
			var lb float64
			if out.dithered = useDither(p, base, k); out.dithered {
				// Both offsets: reflection maps the pair (l, l') to (l', l),
				// so D(0) = D(β) does not follow from a symmetric loss.
				lb, lbErr = ditherMean([]int{0, 1}, ditherCorrection(base.Loss, p.Sensitivity/float64(k)), func(s int) (float64, error) {
					g := newGrid(p, lam, k, base, true, scale)
					g.ditherCost(base.Loss, float64(s))
					return solve(g)
				})
			} else {
				lb, lbErr = solve(newGrid(p, lam, k, base, true, scale))
			}
			if lbErr == nil {
				out.lb = lb
			}
		}()
	}
	ubErr := func() error {
		margin := ubMargin(p.Delta)
		for attempt := 0; ; attempt++ {
			g := newGrid(p, lam, k, base, false, scale)
			dd := &ddProblem{g: g, edges: edges, w: w}
			probs, _, rounds, err := dd.solve(ctx, p.Delta-margin, p.Delta-margin/2)
			out.rounds += rounds
			if err != nil {
				return err
			}
			dists := make([]*PiecewiseConstant, len(w))
			ub := 0.0
			for l := range dists {
				d, err := newGridPiecewise(g.unitReal, g.idx, probs[l])
				if err != nil {
					return err
				}
				dists[l] = d
				ub += w[l] * d.ExpectedLoss(base.Loss)
			}
			ok, worst := dd.certify(dists, p)
			if ok {
				out.dists, out.ub, out.worst = dists, ub, worst
				return nil
			}
			if attempt >= 3 {
				return fmt.Errorf("%w: data-dependent noise at k = %d, max shortfall %g", ErrNotCertified, k, worst)
			}
			margin = math.Min(2*margin+2*worst, p.Delta/2)
		}
	}()
	wg.Wait()
	out.rounds += lbRounds
	if lbErr != nil {
		return out, lbErr
	}
	return out, ubErr
}

type ddProblem struct {
	g     *grid
	edges []int // λ_0 = 0 < … < λ_M (units of β)
	w     []float64
}

type ddTriple struct{ i, m, s int }

// shiftRange returns the integer shifts [lo, hi] = [λ_m − λ_{i+1},
// λ_{m+1} − λ_i] ∩ [−k, k] of the pair (i, m): the closure of the query
// differences f(D') − f(D), in units of β, with f(D) in group i and f(D') in
// group m. lo > hi if there is none.
func ddShiftRange(edges []int, i, m, k int) (lo, hi int) {
	return max(edges[m]-edges[i+1], -k), min(edges[m+1]-edges[i], k)
}

// triples lists (i, m, s) with s in ddShiftRange(i, m), except s = 0 for i = m.
func (dd *ddProblem) triples() []ddTriple {
	var out []ddTriple
	K := len(dd.edges) - 1
	for i := 0; i < K; i++ {
		for m := 0; m < K; m++ {
			lo, hi := ddShiftRange(dd.edges, i, m, dd.g.k)
			for s := lo; s <= hi; s++ {
				if !(i == m && s == 0) {
					out = append(out, ddTriple{i, m, s})
				}
			}
		}
	}
	return out
}

// shortfall returns Σ_{u ∈ region} (Di_u − e·Dm_{u−s})⁺.
func (dd *ddProblem) shortfall(di, dm []float64, s int) float64 {
	g := dd.g
	lo, hi := g.idx[0], g.idx[len(g.idx)-1]
	v := 0.0
	for u := g.rlo; u < g.rhi; u++ {
		x := di[u-lo]
		if u-s >= lo && u-s < hi {
			x -= g.e * dm[u-s-lo]
		}
		if x > 0 {
			v += x
		}
	}
	return v
}

func (dd *ddProblem) solve(ctx context.Context, deltaLP, accept float64) (probs [][]float64, obj float64, rounds int, err error) {
	g := dd.g
	n := len(g.width)
	K := len(dd.edges) - 1
	lo, hi := g.idx[0], g.idx[len(g.idx)-1]
	lp, err := newLP()
	if err != nil {
		return nil, 0, 0, err
	}
	defer lp.Close()
	cost := make([]float64, K*n)
	up := make([]float64, K*n)
	for i := 0; i < K; i++ {
		for j := 0; j < n; j++ {
			cost[i*n+j] = dd.w[i] * g.cost[j]
			up[i*n+j] = 1
		}
	}
	if err := lp.AddColumns(cost, make([]float64, K*n), up); err != nil {
		return nil, 0, 0, err
	}
	var rows [][]int
	var vals [][]float64
	var rl, ru []float64
	for i := 0; i < K; i++ {
		idx := make([]int, n)
		one := make([]float64, n)
		for j := range idx {
			idx[j], one[j] = i*n+j, 1
		}
		rows, vals, rl, ru = append(rows, idx), append(vals, one), append(rl, 1), append(ru, 1)
	}
	if err := lp.AddRows(rl, ru, csrRows(K*n, rows, vals)); err != nil {
		return nil, 0, 0, err
	}
	ncols := K * n
	done := map[ddTriple]bool{}
	trip := dd.triples()
	unit := make([][]float64, K)
	for i := range unit {
		unit[i] = make([]float64, len(g.cellOf))
	}
	v := make([]float64, len(trip))
	order := make([]int, len(trip))
	for round := 0; ; round++ {
		if round > 10000 {
			return nil, 0, rounds, fmt.Errorf("noise: data-dependent bound: no convergence")
		}
		r, err := lp.Solve(ctx)
		if err != nil {
			return nil, 0, rounds, err
		}
		if r.Status != solver.Optimal {
			if r.Status == solver.Cancelled {
				return nil, 0, rounds, ctx.Err()
			}
			return nil, 0, rounds, fmt.Errorf("noise: data-dependent LP: %v", r.Status)
		}
		rounds++
		probs = make([][]float64, K)
		for i := 0; i < K; i++ {
			probs[i] = make([]float64, n)
			for j := 0; j < n; j++ {
				probs[i][j] = math.Max(0, r.X[i*n+j])
			}
			for u := range unit[i] {
				c := g.cellOf[u]
				unit[i][u] = probs[i][c] / float64(g.width[c])
			}
		}
		for t, tr := range trip {
			v[t] = dd.shortfall(unit[tr.i], unit[tr.m], tr.s)
			order[t] = t
		}
		sort.Slice(order, func(a, b int) bool { return v[order[a]] > v[order[b]] })
		var prow [][]int
		var pval [][]float64
		var plo, phi []float64
		newCols := 0
		added := 0
		for _, t := range order {
			if v[t] <= accept || added >= 8 {
				break
			}
			tr := trip[t]
			if done[tr] {
				continue
			}
			done[tr] = true
			added++
			pairs := map[int]int{}
			count := map[int]float64{}
			a0, b0 := max(g.rlo, lo+tr.s), min(g.rhi, hi+tr.s)
			for u := a0; u < b0; u++ {
				j, jj := int(g.cellOf[u-lo]), int(g.cellOf[u-tr.s-lo])
				key := j*n + jj
				if col, ok := pairs[key]; ok {
					count[col]++
					continue
				}
				col := ncols + newCols
				newCols++
				pairs[key], count[col] = col, 1
				ci, cm := tr.i*n+j, tr.m*n+jj
				row := map[int]float64{col: 1}
				row[ci] -= 1 / float64(g.width[j])
				row[cm] += g.e / float64(g.width[jj])
				ri, rv := sortRow(row)
				prow, pval, plo, phi = append(prow, ri), append(pval, rv), append(plo, 0), append(phi, math.Inf(1))
			}
			budget := map[int]float64{}
			for u := g.rlo; u < g.rhi; u++ {
				if u-tr.s < lo || u-tr.s >= hi {
					j := int(g.cellOf[u-lo])
					budget[tr.i*n+j] += 1 / float64(g.width[j])
				}
			}
			for col, c := range count {
				budget[col] = c
			}
			ri, rv := sortRow(budget)
			prow, pval, plo, phi = append(prow, ri), append(pval, rv), append(plo, math.Inf(-1)), append(phi, deltaLP)
		}
		if added == 0 {
			return probs, r.Objective, rounds, nil
		}
		if newCols > 0 {
			inf := make([]float64, newCols)
			for i := range inf {
				inf[i] = math.Inf(1)
			}
			if err := lp.AddColumns(make([]float64, newCols), make([]float64, newCols), inf); err != nil {
				return nil, 0, rounds, err
			}
			ncols += newCols
		}
		if err := lp.AddRows(plo, phi, csrRows(ncols, prow, pval)); err != nil {
			return nil, 0, rounds, err
		}
	}
}

func sortRow(m map[int]float64) ([]int, []float64) {
	idx := make([]int, 0, len(m))
	for j, v := range m {
		if v != 0 {
			idx = append(idx, j)
		}
	}
	sort.Ints(idx)
	val := make([]float64, len(idx))
	for i, j := range idx {
		val[i] = m[j]
	}
	return idx, val
}

// certify checks every pair exactly (big-float, upward rounding): the
// shortfall of X_i against X_m + φ is at most δ for every φ in ddShiftRange(i,
// m)·β ∩ [−Δ, Δ]. The shortfall is affine in φ between multiples of β (exact
// multiples of the grid unit) and the clip ±Δ, so those points suffice.
func (dd *ddProblem) certify(ds []*PiecewiseConstant, p Params) (bool, float64) {
	ex := make([]*exactCells, len(ds))
	for i, d := range ds {
		ex[i] = newExactCells(d)
	}
	eLow := expDown(p.Epsilon)
	worst := math.Inf(-1)
	ok := true
	D := bigOf(p.Sensitivity)
	negD := bigOf(-p.Sensitivity)
	unit := ds[0].unit
	for i := range ds {
		for m := range ds {
			// The range before clipping to ±k (k·β may differ from Δ in
			// the last bit; the clip is at ±Δ exactly).
			lo0, hi0 := dd.edges[m]-dd.edges[i+1], dd.edges[m+1]-dd.edges[i]
			lo, hi := ddShiftRange(dd.edges, i, m, dd.g.k)
			var phis []*big.Float
			for s := lo; s <= hi; s++ {
				if i == m && s == 0 {
					continue
				}
				if phi := exactGrid(unit, s); phi.Cmp(D) <= 0 && phi.Cmp(negD) >= 0 {
					phis = append(phis, phi)
				}
			}
			loR, hiR := exactGrid(unit, max(lo0, -dd.g.k-1)), exactGrid(unit, min(hi0, dd.g.k+1))
			for _, c := range []*big.Float{D, negD} {
				if c.Cmp(loR) >= 0 && c.Cmp(hiR) <= 0 {
					phis = append(phis, c)
				}
			}
			for _, phi := range phis {
				v := ex[i].shortfallUpPair(ex[m], phi, eLow)
				d := new(big.Float).SetPrec(certPrec).SetMode(big.AwayFromZero).Sub(v, bigOf(p.Delta))
				mf, acc := d.Float64()
				if acc == big.Below {
					mf = math.Nextafter(mf, math.Inf(1))
				}
				worst = math.Max(worst, mf)
				if d.Sign() > 0 {
					ok = false
				}
			}
		}
	}
	return ok, worst
}
