package grid

import (
	"context"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/highs"
)

// TestLMPPatternMIP is a measurement run only on request
// (PRIVOPT_PATTERNDIAG=bus ID; PRIVOPT_PATTERN_BRANCHES=the other end of the
// branches whose congestion pattern is fixed, e.g. 49 for the circuits
// 42–49; PRIVOPT_LMPDIAG_CUTOFF, PRIVOPT_LMPDIAG_SECONDS, PRIVOPT_LMPDIAG_CASE,
// PRIVOPT_LMPDIAG_BAND as for TestLMPPerBusMIP). The KKT points split by the
// congestion pattern of the branches between the bus and the other end:
// "up" (flow at its upper limit), "lo" (at its lower limit), "none" (both
// congestion duals 0); every KKT point is in one of them (complementary
// slackness). For each part it runs the default bound tightening restricted
// to the part and then the bus's KKT MIP (own load at its upper end, the
// row π ≥ cutoff when given), and reports the part's price bound.
func TestLMPPatternMIP(t *testing.T) {
	id, err := strconv.Atoi(os.Getenv("PRIVOPT_PATTERNDIAG"))
	if err != nil {
		t.Skip("a measurement of minutes: set PRIVOPT_PATTERNDIAG to a bus ID")
	}
	other, err := strconv.Atoi(os.Getenv("PRIVOPT_PATTERN_BRANCHES"))
	if err != nil {
		t.Fatalf("PRIVOPT_PATTERN_BRANCHES: %v", err)
	}
	n, dom := diagCase(t)
	rules := DefaultMarketRules()
	ctx := context.Background()
	i, j := n.BusIndex[id], n.BusIndex[other]
	var ls []int
	for l := range n.From {
		if (n.From[l] == i && n.To[l] == j) || (n.From[l] == j && n.To[l] == i) {
			ls = append(ls, l)
		}
	}
	if len(ls) == 0 {
		t.Fatalf("no branch %d–%d", id, other)
	}
	cutoff, _ := strconv.ParseFloat(os.Getenv("PRIVOPT_LMPDIAG_CUTOFF"), 64)
	secs, _ := strconv.ParseFloat(os.Getenv("PRIVOPT_LMPDIAG_SECONDS"), 64)
	if secs <= 0 {
		secs = 60
	}
	parts := []string{"up", "lo", "none"}
	if s := os.Getenv("PRIVOPT_PATTERN_PARTS"); s != "" {
		parts = strings.Split(s, ",")
	}
	for _, part := range parts {
		restrict := func(m *marketLP, ev *LMPEvidence) {
			if ev.FlowLo == nil {
				ev.FlowLo, ev.FlowHi = append([]float64(nil), n.FlowMin...), append([]float64(nil), n.FlowMax...)
			}
			for _, l := range ls {
				switch part {
				case "up":
					ev.FlowLo[l] = n.FlowMax[l]
				case "lo":
					ev.FlowHi[l] = n.FlowMin[l]
				case "none":
					ev.MuUp[l], ev.MuLo[l] = 0, 0
				}
			}
		}
		t0 := time.Now()
		ev, reason, err := n.lmpBound(ctx, dom, rules, LMPBoundOptions{MIPWork: 1, restrict: restrict})
		if err != nil || ev == nil {
			t.Logf("part %s: lmpBound: %v %s", part, err, reason)
			continue
		}
		capped := 0
		for _, q := range dom.Variable() {
			if ev.PriceHi[q] >= rules.PriceCap-1e-6 {
				capped++
			}
		}
		t.Logf("part %s: tightened bound at bus %d %.6g (%d varying buses at the cap), %.1f s", part, id, ev.PriceHi[i], capped, time.Since(t0).Seconds())
		if os.Getenv("PRIVOPT_PATTERN_ANATOMY") != "" {
			logRelaxation(t, n, dom, rules, ev, i)
		}
		if len(ev.Candidates) > 0 {
			s, err := n.SearchLMPChange(ctx, dom, 1, rules, LMPSearchOptions{Extra: ev.Candidates, Seed: 1, Steps: 3000, Climbs: 5, Congestion: true, PerBus: 200})
			if err == nil {
				t.Logf("part %s: search from the part's %d tightening candidates: %.6g $/MWh at bus %d (bus %d: %.6g)", part, len(ev.Candidates), s.PerMW, s.Bus, id, s.BusLMP[i])
			}
		}
		k, err := n.buildKKT(dom, rules, ev, ev.PriceLo, ev.PriceHi, 1, nil, []int{i})
		if err != nil {
			t.Fatal(err)
		}
		fixOwnLoads(k, dom, 1)
		if cutoff > 0 {
			k.b.row(cutoff, math.Inf(1), []int{k.t}, []float64{1})
		}
		t1 := time.Now()
		r := solveKKTMIP(t, k, secs)
		t.Logf("part %s: MIP (cutoff %g): %v, stopped by %s, proven bound %.6g, incumbent %.6g, %d nodes, %d LP iterations, %.1f s",
			part, cutoff, r.Status, r.Stop, r.DualBound, r.Objective, r.Nodes, r.LPIterations, time.Since(t1).Seconds())
		if r.X != nil {
			d := append([]float64(nil), dom.Lo...)
			for _, q := range k.m.vars {
				d[q] = math.Min(dom.Hi[q], math.Max(dom.Lo[q], r.X[k.m.d[q]]))
			}
			s, err := n.SearchLMPChange(ctx, dom, 1, rules, LMPSearchOptions{Extra: [][]float64{d}, Seed: 1, Steps: 200, Climbs: 1})
			if err == nil {
				t.Logf("part %s: search from the incumbent: %.6g $/MWh at bus %d (bus %d: %.6g)", part, s.PerMW, s.Bus, id, s.BusLMP[i])
			}
		}
	}
}

// TestLMPPatternStarts is a measurement run only on request
// (PRIVOPT_PATTERNDIAG, PRIVOPT_PATTERN_BRANCHES, PRIVOPT_LMPDIAG_CASE,
// PRIVOPT_LMPDIAG_BAND as for TestLMPPatternMIP; PRIVOPT_LMPDIAG_CUTOFF the
// price to beat; PRIVOPT_PATTERN_LIMITS, optional, branch indices: the
// other limits that may bind, and then up to PRIVOPT_PATTERN_DEPTH, default
// 2, of them): the
// congestion-pattern loads (patternStarts) for the bus with the branches to
// the other end binding, the market LP's price at each, then the search
// from them.
func TestLMPPatternStarts(t *testing.T) {
	id, err := strconv.Atoi(os.Getenv("PRIVOPT_PATTERNDIAG"))
	if err != nil {
		t.Skip("a measurement: set PRIVOPT_PATTERNDIAG to a bus ID")
	}
	other, _ := strconv.Atoi(os.Getenv("PRIVOPT_PATTERN_BRANCHES"))
	n, dom := diagCase(t)
	rules := DefaultMarketRules()
	ctx := context.Background()
	i, j := n.BusIndex[id], n.BusIndex[other]
	base := -1
	for l := range n.From {
		if (n.From[l] == i && n.To[l] == j) || (n.From[l] == j && n.To[l] == i) {
			base = l
			break
		}
	}
	above, _ := strconv.ParseFloat(os.Getenv("PRIVOPT_LMPDIAG_CUTOFF"), 64)
	t0 := time.Now()
	var cand []int
	if s := os.Getenv("PRIVOPT_PATTERN_LIMITS"); s != "" {
		for _, f := range strings.Split(s, ",") {
			l, err := strconv.Atoi(f)
			if err != nil {
				t.Fatal(err)
			}
			cand = append(cand, l)
		}
	}
	depth := 2
	if s := os.Getenv("PRIVOPT_PATTERN_DEPTH"); s != "" {
		depth, _ = strconv.Atoi(s)
	}
	starts, prices, err := n.patternStarts(ctx, dom, rules, i, base, cand, depth, above, 40, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d pattern starts above %g at bus %d (predicted prices %.6g), %.1f s", len(starts), above, id, prices, time.Since(t0).Seconds())
	if len(starts) == 0 {
		return
	}
	m, _, lp := marketLPSolver(t, n, dom, rules)
	for q, d := range starts {
		for _, j := range m.vars {
			if err := lp.SetColumnBounds(m.d[j], d[j], d[j]); err != nil {
				t.Fatal(err)
			}
		}
		r, err := lp.Solve(ctx)
		if err != nil {
			t.Fatal(err)
		}
		// The realized change of the cost over ±1 MW at bus i.
		v0, pi0 := r.Objective, r.RowDual[m.balance[i]]
		step := math.Min(1, dom.Hi[i]-d[i])
		if step <= 0 {
			step = -math.Min(1, d[i]-dom.Lo[i])
		}
		if err := lp.SetColumnBounds(m.d[i], d[i]+step, d[i]+step); err != nil {
			t.Fatal(err)
		}
		r2, err := lp.Solve(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("start %d: predicted %.6g, market LP %v π = %.6g; load %.6g in [%.6g, %.6g], (V(d %+g MW) − V(d))/step = %.6g",
			q, prices[q], r.Status, pi0, d[i], dom.Lo[i], dom.Hi[i], step, (r2.Objective-v0)/step)
	}
	defer lp.Close()
	s, err := n.SearchLMPChange(ctx, dom, 1, rules, LMPSearchOptions{Extra: starts, Seed: 1, Steps: 3000, Climbs: 5, Congestion: true, PerBus: 200})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("search from them: %.6g $/MWh at bus %d (bus %d: %.6g)", s.PerMW, s.Bus, id, s.BusLMP[i])
	// The reported pair, solved again (both loads in the domain, one bus
	// moved by at most 1 MW).
	c, moved := patsearchResolve(t, n, dom, m, lp, s)
	t.Logf("the pair re-solved: |V(d′) − V(d)| = %.6g $/h, loads differ by %.6g MW in all", c, moved)
}

// Congestion-pattern starts for the adversarial search.
//
// At an optimum of the market LP with the limits L binding (|L| = k) and
// k + 1 merit segments marginal (strictly inside their widths), the prices
// solve π_j = λ − Σ_{l ∈ L} η_l PTDF_{l,j} (stationarity with the reference
// bus's price λ; η_l the signed congestion dual of l) with π = c_s at each
// marginal segment's bus: k + 1 linear equations in (λ, η). Given (L, the
// marginal segments), the prices at every bus are fixed, hence every other
// segment's state (full below the price of its bus, empty above) and every
// backstop's (0 strictly inside (F, C); a pattern pricing a backstop's bus
// outside [F, C] is not dual feasible and is dropped). The loads d ∈ D that make this
// pattern primal feasible (the binding limits at their limits, the other
// limits within theirs) form a polyhedron: one LP. A point of it whose η
// have the signs of the binding limits (μ ≥ 0) is an optimum with exactly
// these prices (the KKT conditions are sufficient), so the price at bus i
// is realized there; with wrong signs it is merely a feasible dispatch. The
// search evaluates the real market LP at each such point, so either way
// every reported change is realized; the patterns only propose loads.
//
// patternStarts enumerates the patterns with the limit of branch base (and
// its twins) binding and at most one more limit among all the others (cand
// nil) or at most maxOther among cand, with the matching numbers of marginal
// segments, keeps those whose price at bus i exceeds above, and returns a
// load vector of the domain for each feasible one with its price (at most
// max, largest price first, after at most maxLP LPs). Its work is a small
// linear solve per pattern and one LP per kept pattern.
func (n *Network) patternStarts(ctx context.Context, dom LoadDomain, rules MarketRules, i, base int, cand []int, maxOther int, above float64, max, maxLP int) ([][]float64, []float64, error) {
	b := newLPBuilder()
	m, err := n.newMarketLP(b, dom, rules)
	if err != nil {
		return nil, nil, err
	}
	nb := n.NumBuses()
	all := make([]int, nb)
	for j := range all {
		all[j] = j
	}
	cols := n.PTDFColumns(all) // cols[j][l]
	var limits []int
	for l := range m.flow {
		if m.flow[l] >= 0 && l != base && (cand == nil || slices.Contains(cand, l)) {
			limits = append(limits, l)
		}
	}
	// Distinct segment prices per bus (a marginal segment fixes its bus's
	// price; two segments at one bus and one price are one equation).
	type mseg = patsearchSeg
	segs := patsearchSegments(m)
	type pattern struct {
		lims  []int
		up    []bool // each binding limit: upper (η > 0) or lower (η < 0)
		marg  []mseg
		price float64
		pi    []float64
	}
	var pats []pattern
	// prices solves the (k+1)×(k+1) system for (λ, η) and returns π.
	prices := func(lims []int, marg []mseg) ([]float64, []bool) {
		k := len(lims)
		a := make([][]float64, k+1)
		for r, ms := range marg {
			a[r] = make([]float64, k+2)
			a[r][0] = 1
			for q, l := range lims {
				a[r][1+q] = -cols[ms.bus][l]
			}
			a[r][k+1] = ms.price
		}
		sol := make([]float64, k+1)
		if !patsearchGauss(a, sol) {
			return nil, nil
		}
		up := make([]bool, k)
		for q := range up {
			if sol[1+q] == 0 {
				return nil, nil
			}
			up[q] = sol[1+q] > 0
		}
		pi := make([]float64, nb)
		for j := range pi {
			pi[j] = sol[0]
			for q, l := range lims {
				pi[j] -= sol[1+q] * cols[j][l]
			}
		}
		return pi, up
	}
	consider := func(lims []int, marg []mseg) {
		pi, up := prices(lims, marg)
		if pi == nil || !(pi[i] > above) || pi[i] >= rules.PriceCap {
			return
		}
		for j := range pi {
			// Dual feasibility of the backstops (shedding at C, curtailment
			// at F): the prices must lie between them where they exist.
			if (m.shedAt[j] && pi[j] > rules.PriceCap) || (m.curtAt[j] && pi[j] < rules.PriceFloor) {
				return
			}
		}
		pats = append(pats, pattern{append([]int(nil), lims...), up, append([]mseg(nil), marg...), pi[i], pi})
	}
	// Every set of binding limits (base and up to depth others, depth 1
	// without cand), then every choice of |L| + 1 marginal segments.
	depth := 1
	if cand != nil {
		depth = maxOther
	}
	var marg []mseg
	var pick func(lims []int, from, need int)
	pick = func(lims []int, from, need int) {
		if need == 0 {
			consider(lims, marg)
			return
		}
		for a := from; a <= len(segs)-need; a++ {
			marg = append(marg, segs[a])
			pick(lims, a+1, need-1)
			marg = marg[:len(marg)-1]
		}
	}
	var subsets func(lims []int, from int)
	subsets = func(lims []int, from int) {
		pick(lims, 0, len(lims)+1)
		if len(lims) > depth {
			return
		}
		for q := from; q < len(limits); q++ {
			subsets(append(lims, limits[q]), q+1)
		}
	}
	subsets([]int{base}, 0)
	sort.SliceStable(pats, func(a, c int) bool { return pats[a].price > pats[c].price })

	hopt := highs.Options{}
	hopt.Threads = 1
	for j := range b.cost {
		b.cost[j] = 0
	}
	lp, err := b.build(hopt)
	if err != nil {
		return nil, nil, err
	}
	defer lp.Close()
	lo0, hi0 := append([]float64(nil), b.lo...), append([]float64(nil), b.hi...)
	rlo0, rhi0 := append([]float64(nil), b.rlo...), append([]float64(nil), b.rhi...)
	var out [][]float64
	var found []float64
	for q, p := range pats {
		if len(out) >= max || q >= maxLP {
			break
		}
		if err := ctx.Err(); err != nil {
			return out, found, err
		}
		lo, hi := append([]float64(nil), lo0...), append([]float64(nil), hi0...)
		patsearchFix(m, p.pi, rules, lo, hi)
		for j := range lo {
			if err := lp.SetColumnBounds(j, lo[j], hi[j]); err != nil {
				return out, found, err
			}
		}
		rlo, rhi := append([]float64(nil), rlo0...), append([]float64(nil), rhi0...)
		for q, l := range p.lims {
			for _, t := range append(n.twinsOf(m, l), l) {
				r := m.flow[t]
				if p.up[q] {
					rlo[r] = rhi0[r]
				} else {
					rhi[r] = rlo0[r]
				}
			}
		}
		for r := range rlo {
			if rlo[r] != rlo0[r] || rhi[r] != rhi0[r] {
				if err := lp.SetRowBounds(r, rlo[r], rhi[r]); err != nil {
					return out, found, err
				}
			}
		}
		res, err := lp.Solve(ctx)
		for r := range rlo {
			if rlo[r] != rlo0[r] || rhi[r] != rhi0[r] {
				if e := lp.SetRowBounds(r, rlo0[r], rhi0[r]); e != nil && err == nil {
					err = e
				}
			}
		}
		if err != nil {
			return out, found, err
		}
		if res.Status != solver.Optimal {
			continue
		}
		d := append([]float64(nil), dom.Lo...)
		for _, j := range m.vars {
			d[j] = math.Min(dom.Hi[j], math.Max(dom.Lo[j], res.X[m.d[j]]))
		}
		out = append(out, d)
		found = append(found, p.price)
	}
	return out, found, nil
}

// twinsOf returns the other limited branches whose flow rows are identical
// to l's (lmptwin.go).
func (n *Network) twinsOf(m *marketLP, l int) []int {
	var out []int
	for e := range m.flow {
		if e != l && m.flow[e] >= 0 && n.isTwin(m, l, e) {
			out = append(out, e)
		}
	}
	return out
}

// patternStarts on the hand-solved three-bus case (case3_congested: branch
// 1–3 limited to 50 MW, units at buses 1 and 3 at 10 and 50 $/MWh): with the
// branch at its limit and both units marginal the prices are 10, 30, 50
// $/MWh; the pattern's load vector must put the branch at its limit (bus 3's
// load at least 75 MW), and the market LP there prices bus 3 at 50 and bus 2
// at 30, as predicted. No pattern prices bus 3 above 50.
func TestLMPPatternStartsClosedForm(t *testing.T) {
	n := loadNet(t, "testdata/case3_congested.m", DCOptions{})
	dom := LoadDomain{Lo: []float64{0, 0, 81}, Hi: []float64{0, 10, 99}}
	rules := MarketRules{PriceCap: 1000}
	ctx := context.Background()
	base := -1
	for l := range n.From {
		if n.FlowMax[l] < 1e9 && n.FlowMax[l] > 0 {
			base = l
		}
	}
	if base < 0 {
		t.Fatal("no limited branch")
	}
	starts, prices, err := n.patternStarts(ctx, dom, rules, 2, base, nil, 1, 40, 10, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(starts) != 1 || math.Abs(prices[0]-50) > 1e-9 {
		t.Fatalf("pattern starts %v, predicted prices %v; want one at 50", starts, prices)
	}
	m, _, lp := marketLPSolver(t, n, dom, rules)
	defer lp.Close()
	for _, j := range m.vars {
		if err := lp.SetColumnBounds(m.d[j], starts[0][j], starts[0][j]); err != nil {
			t.Fatal(err)
		}
	}
	r, err := lp.Solve(ctx)
	if err != nil || r.Status != solver.Optimal {
		t.Fatalf("market LP: %v %v", err, r.Status)
	}
	if p2, p3 := r.RowDual[m.balance[1]], r.RowDual[m.balance[2]]; math.Abs(p3-50) > 1e-6 || math.Abs(p2-30) > 1e-6 {
		t.Errorf("market LP prices at the pattern's load %v: bus 2 %v, bus 3 %v; want 30, 50", starts[0], p2, p3)
	}
	if starts[0][2] < 75-1e-6 {
		t.Errorf("bus 3's load %v below 75 MW: the branch cannot bind", starts[0][2])
	}
	if s, _, err := n.patternStarts(ctx, dom, rules, 2, base, nil, 1, 50+1e-6, 10, 100); err != nil || len(s) != 0 {
		t.Errorf("patterns above 50: %v (%v)", s, err)
	}
}
