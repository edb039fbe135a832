package noise

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"sort"
	"time"

	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/highs"
)

// DataDependentOptions configure OptimizeDataDependent.
type DataDependentOptions struct {
	// Loss to minimize (default L1()).
	Loss Loss
	// Ranges K ≥ 1: the query range Φ is split into K intervals of length β,
	// Φ_i = [φ₀ + iβ, φ₀ + (i+1)β); noise i is used when f(D) ∈ Φ_i.
	Ranges int
	// Granularity k ≥ 2: β = Δ/k (default 4).
	Granularity int
	// SupportMultiple Λ: every noise lives on [−ΛΔ, ΛΔ] (default SupportRule).
	SupportMultiple int
	// Weights w_i ≥ 0 of the K ranges in the objective Σ w_i E c(X_i)
	// (default uniform; normalized to sum 1).
	Weights []float64
	// SkipLowerBound computes only the upper bound.
	SkipLowerBound bool
}

// DataDependentResult is the outcome of OptimizeDataDependent.
type DataDependentResult struct {
	Dists        []*PiecewiseConstant // noise for each query interval Φ_i
	Beta         float64              // interval length β = Δ/k
	UpperBound   float64              // Σ w_i E c(X_i) of Dists
	LowerBound   float64              // lower bound D'(π,β) on any data-dependent (ε,δ)-DP noise family
	Gap          float64
	Certified    bool    // every pair (i, i') passed the exact shortfall check
	MaxShortfall float64 // max over pairs and shifts, upper bound in big-float arithmetic
	Rounds       int
	Time         time.Duration
}

// OptimizeDataDependent computes data-dependent optimal noise (Selvi, Liu &
// Wiesemann, Section 3 and e-companion C.3): K piecewise-constant densities
// p_i on the cells of width β = Δ/k of [−ΛΔ, ΛΔ], one per query interval Φ_i,
// minimizing Σ_i w_i E c(X_i) subject to, for all i, i' and the shifts
// s ∈ {i'−i−1, i'−i, i'−i+1} (units of β) with |sβ| ≤ Δ,
//
//	P[X_i ∈ A] ≤ e^ε·P[X_{i'} + sβ ∈ A] + δ   for all events A
//
// (the query difference of neighbours in Φ_i × Φ_i' lies in
// ((i'−i−1)β, (i'−i+1)β) and the shortfall is affine between multiples of β).
// Each violated triple (i, i', s) enters the LP as an exact block (one
// variable per overlapping cell pair, see shiftBlock). The upper bound uses
// δ_LP = δ − max(10⁻⁶δ, min(10⁻⁹, δ/100)) and is certified pair by pair in big-float
// arithmetic; the lower bound pads every density with k cells per side, uses
// the cell infima of the loss and events within the support (problem D'(π,β)).
func OptimizeDataDependent(ctx context.Context, p Params, o DataDependentOptions) (*DataDependentResult, error) {
	start := time.Now()
	if err := p.needDelta(0, 1, "must be in (0, 1) for optimized noise"); err != nil {
		return nil, err
	}
	if o.Loss.Func == nil {
		o.Loss = L1()
	}
	if o.Ranges < 1 {
		return nil, paramErr("Ranges", o.Ranges, "must be ≥ 1")
	}
	if o.Granularity == 0 {
		o.Granularity = 4
	}
	if o.Granularity < 2 {
		return nil, paramErr("Granularity", o.Granularity, "must be ≥ 2")
	}
	if o.SupportMultiple < 0 {
		return nil, paramErr("SupportMultiple", o.SupportMultiple, "must be ≥ 0")
	}
	lam := o.SupportMultiple
	if lam == 0 {
		lam = SupportRule(p)
	}
	w := make([]float64, o.Ranges)
	if o.Weights == nil {
		for i := range w {
			w[i] = 1 / float64(o.Ranges)
		}
	} else {
		if len(o.Weights) != o.Ranges {
			return nil, paramErr("Weights", len(o.Weights), fmt.Sprintf("must have Ranges = %d entries", o.Ranges))
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
	if float64(lam*o.Granularity)*float64(o.Ranges) > 2e5 {
		return nil, paramErr("Ranges", o.Ranges, "times the cells per density exceeds 2e5")
	}
	scale := 0.5 * (o.Loss.Func(p.Sensitivity) + o.Loss.Func(-p.Sensitivity))
	if !(scale > 0) || math.IsInf(scale, 0) {
		return nil, paramErr("Loss", o.Loss.Name, "must be positive and finite at ±Δ")
	}
	base := OptimalOptions{Loss: o.Loss}.withDefaults()
	res := &DataDependentResult{Beta: p.Sensitivity / float64(o.Granularity), LowerBound: math.NaN(), Gap: math.NaN()}
	margin := ubMargin(p.Delta)
	for attempt := 0; ; attempt++ {
		g := newGrid(p, lam, o.Granularity, base, false, scale)
		dd := &ddProblem{g: g, K: o.Ranges, w: w}
		probs, obj, rounds, err := dd.solve(ctx, p.Delta-margin, p.Delta-margin/2)
		if err != nil {
			return nil, err
		}
		res.Rounds += rounds
		_ = obj
		res.Dists = make([]*PiecewiseConstant, o.Ranges)
		res.UpperBound = 0
		for i := range res.Dists {
			d, err := newGridPiecewise(g.unitReal, g.idx, probs[i])
			if err != nil {
				return nil, err
			}
			res.Dists[i] = d
			res.UpperBound += w[i] * d.ExpectedLoss(o.Loss)
		}
		ok, worst := dd.certify(res.Dists, p)
		res.Certified, res.MaxShortfall = ok, worst
		if ok {
			break
		}
		if attempt >= 3 {
			return nil, fmt.Errorf("%w: data-dependent noise, max shortfall %g", ErrNotCertified, worst)
		}
		margin = math.Min(2*margin+2*worst, p.Delta/2)
	}
	if !o.SkipLowerBound {
		g := newGrid(p, lam, o.Granularity, base, true, scale)
		dd := &ddProblem{g: g, K: o.Ranges, w: w}
		_, obj, rounds, err := dd.solve(ctx, p.Delta, p.Delta+1e-9)
		if err != nil {
			return nil, err
		}
		res.Rounds += rounds
		res.LowerBound = obj * scale
		res.Gap = (res.UpperBound - res.LowerBound) / math.Abs(res.LowerBound)
	}
	res.Time = time.Since(start)
	return res, nil
}

type ddProblem struct {
	g *grid
	K int
	w []float64
}

type ddTriple struct{ i, m, s int }

// triples lists (i, i', s) with s ∈ {i'−i−1, i'−i, i'−i+1}, |s| ≤ k, s ≠ 0 or i ≠ i'.
func (dd *ddProblem) triples() []ddTriple {
	var out []ddTriple
	k := dd.g.k
	for i := 0; i < dd.K; i++ {
		for m := 0; m < dd.K; m++ {
			for _, s := range []int{m - i - 1, m - i, m - i + 1} {
				if abs(s) <= k && !(i == m && s == 0) {
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
	K := dd.K
	lo, hi := g.idx[0], g.idx[len(g.idx)-1]
	lp := highs.NewLP(lpOptions)
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

// certify checks every triple exactly (big-float, upward rounding): the
// shortfall of X_i against X_{i'} + sβ is at most δ. The shifts sβ with
// |s| ≤ k are exact multiples of the grid unit; the shortfall over the
// continuous range of query differences is affine between them.
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
	for i := range ds {
		for m := range ds {
			// Query differences lie in [(m−i−1)β, (m−i+1)β] ∩ [−Δ, Δ]; the
			// shortfall is affine between multiples of β and the clip ±Δ.
			var phis []*big.Float
			lo, hi := exactGrid(ds[0].unit, m-i-1), exactGrid(ds[0].unit, m-i+1)
			for s := m - i - 1; s <= m-i+1; s++ {
				if phi := exactGrid(ds[0].unit, s); phi.Cmp(D) <= 0 && phi.Cmp(negD) >= 0 {
					phis = append(phis, phi)
				}
			}
			for _, c := range []*big.Float{D, negD} {
				if c.Cmp(lo) >= 0 && c.Cmp(hi) <= 0 {
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
