package grid

import (
	"context"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/privopt/privopt/solver/highs"
)

// TestLMPPatternAnatomy is a measurement run only on request
// (PRIVOPT_PATTERNPARTS=bus ID,branch ends "from-to", e.g. "121,119-121";
// PRIVOPT_LMPDIAG_CASE, PRIVOPT_LMPDIAG_BAND as for TestLMPPerBusMIP;
// PRIVOPT_LMPDIAG_SECONDS each MIP's wall-clock limit, default 60, negative: no MIP;
// PRIVOPT_PATTERNFIX patterns fixed in every part, "from-to:up|lo|free,...";
// PRIVOPT_LMPDIAG_CUTOFF a cutoff row π_i ≥ c, optional). After the default
// bound tightening it splits the bus's KKT program (own load at its upper
// end) by the congestion pattern of one branch: "up" (its binary z⁺ = 1,
// flow at FlowMax), "lo" (z⁻ = 1, flow at FlowMin) and "free" (z⁺ = z⁻ = 0,
// μ = 0). The three parts cover every KKT point, so the largest of their
// bounds is a bound on the bus's price. For each part it reports the linear
// relaxation's maximum and the MIP's bound and incumbent; each incumbent's
// load vector is re-solved on the market LP (the real price at the bus).
func TestLMPPatternAnatomy(t *testing.T) {
	spec := os.Getenv("PRIVOPT_PATTERNPARTS")
	if spec == "" {
		t.Skip("a measurement: set PRIVOPT_PATTERNPARTS to \"bus,from-to\"")
	}
	f := strings.Split(spec, ",")
	id, _ := strconv.Atoi(f[0])
	n, dom, rules, ev := diagEvidence(t)
	ctx := context.Background()
	i := n.BusIndex[id]
	br := branchByEnds(t, n, f[1])
	// PRIVOPT_PATTERNFIX: patterns fixed in every part, "from-to:up|lo|free,...".
	type fixed struct {
		l    int
		part string
	}
	var fixes []fixed
	if s := os.Getenv("PRIVOPT_PATTERNFIX"); s != "" {
		for _, g := range strings.Split(s, ",") {
			h := strings.Split(g, ":")
			fixes = append(fixes, fixed{branchByEnds(t, n, h[0]), h[1]})
		}
	}
	secs, _ := strconv.ParseFloat(os.Getenv("PRIVOPT_LMPDIAG_SECONDS"), 64)
	if secs == 0 {
		secs = 60
	}
	cutoff, _ := strconv.ParseFloat(os.Getenv("PRIVOPT_LMPDIAG_CUTOFF"), 64)
	t.Logf("bus %d: tightened bound %.6g; branch %d (%d–%d) limits %.4g..%.4g, tightened flow %.4g..%.4g, μ bounds %.4g / %.4g",
		id, ev.PriceHi[i], br, n.BusID[n.From[br]], n.BusID[n.To[br]], n.FlowMin[br], n.FlowMax[br], ev.FlowLo[br], ev.FlowHi[br], ev.MuUp[br], ev.MuLo[br])
	mk := newMarketEval(t, n, dom, rules)
	defer mk.close()
	for _, part := range []string{"up", "lo", "free"} {
		k, err := n.buildKKT(dom, rules, ev, ev.PriceLo, ev.PriceHi, 1, nil, []int{i})
		if err != nil {
			t.Fatal(err)
		}
		fixOwnLoads(k, dom, 1)
		setPart := func(l int, part string) bool {
			zu, zl := k.zUp[l], k.zLo[l]
			fix := func(z int, v float64) bool {
				if z < 0 {
					return v == 0
				}
				k.b.lo[z], k.b.hi[z] = v, v
				return true
			}
			switch part {
			case "up":
				return fix(zu, 1) && fix(zl, 0)
			case "lo":
				return fix(zl, 1) && fix(zu, 0)
			}
			return fix(zu, 0) && fix(zl, 0)
		}
		ok := true
		for _, fx := range fixes {
			ok = ok && setPart(fx.l, fx.part)
		}
		ok = ok && setPart(br, part)
		if !ok {
			t.Logf("part %s: no binary (dual fixed at 0)", part)
			continue
		}
		if cutoff > 0 {
			k.b.row(cutoff, math.Inf(1), []int{k.t}, []float64{1})
		}
		hopt := highs.Options{}
		hopt.Threads = 1
		integer := k.b.integer
		k.b.integer = nil
		rlp, err := buildMax(k.b, hopt)
		if err != nil {
			t.Fatal(err)
		}
		rr, err := rlp.Solve(ctx)
		rlp.Close()
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("part %s: relaxation %.6g (%v)", part, rr.Objective, rr.Status)
		if rr.X != nil {
			t.Log(relaxAnatomy(n, k, ev, i, rr.X))
		}
		if secs < 0 {
			continue
		}
		k.b.integer = integer
		lp, err := buildMax(k.b, hopt)
		if err != nil {
			t.Fatal(err)
		}
		t0 := time.Now()
		r, err := lp.SolveMIP(ctx, highs.MIPLimits{RelGap: 1e-3, TimeLimit: time.Duration(secs * float64(time.Second))})
		lp.Close()
		if err != nil {
			t.Fatal(err)
		}
		msg := ""
		if r.X != nil {
			d := append([]float64(nil), dom.Lo...)
			for _, j := range k.m.vars {
				d[j] = math.Min(dom.Hi[j], math.Max(dom.Lo[j], r.X[k.m.d[j]]))
			}
			pi, flow := mk.eval(d)
			msg = " market LP at the incumbent's loads: π " + strconv.FormatFloat(pi[i], 'g', 6, 64) + ", flow " + strconv.FormatFloat(flow[br], 'g', 6, 64)
			// One-sided changes of the cost at the bus: the left ones stay
			// in the domain (its own load is at the upper end), the right
			// ones leave it.
			v0 := mk.value(d)
			for _, h := range []float64{1e-3, 0.1, 1} {
				lo, hi := append([]float64(nil), d...), append([]float64(nil), d...)
				lo[i] -= h
				hi[i] += h
				msg += fmt.Sprintf("; h %g: left %.6g, right %.6g", h, (v0-mk.value(lo))/h, (mk.value(hi)-v0)/h)
			}
		}
		t.Logf("part %s: relaxation %.6g (%v); MIP %v stopped by %s, bound %.6g, incumbent %.6g, %d nodes, %d iterations, %.1f s;%s",
			part, rr.Objective, rr.Status, r.Status, r.Stop, r.DualBound, r.Objective, r.Nodes, r.LPIterations, time.Since(t0).Seconds(), msg)
	}
}

// marketEval solves the market LP of a measurement at given load vectors.
type marketEval struct {
	t  *testing.T
	n  *Network
	m  *marketLP
	lp *highs.LP
}

func newMarketEval(t *testing.T, n *Network, dom LoadDomain, rules MarketRules) *marketEval {
	t.Helper()
	m, _, lp := marketLPSolver(t, n, dom, rules)
	return &marketEval{t, n, m, lp}
}

func (e *marketEval) close() { e.lp.Close() }

// solve solves the market LP at the load vector d.
func (e *marketEval) solve(d []float64) *highs.LPResult {
	e.t.Helper()
	for _, j := range e.m.vars {
		if err := e.lp.SetColumnBounds(e.m.d[j], d[j], d[j]); err != nil {
			e.t.Fatal(err)
		}
	}
	r, err := e.lp.Solve(context.Background())
	if err != nil {
		e.t.Fatal(err)
	}
	return r
}

// value returns the market LP's optimal cost at d ($/h).
func (e *marketEval) value(d []float64) float64 { return e.solve(d).Objective }

// eval returns the prices and branch flows (MW; NaN when unlimited) at d.
func (e *marketEval) eval(d []float64) (pi, flow []float64) {
	e.t.Helper()
	r := e.solve(d)
	pi = make([]float64, len(e.m.balance))
	for j, row := range e.m.balance {
		pi[j] = r.RowDual[row]
	}
	flow = make([]float64, len(e.m.flow))
	for l, row := range e.m.flow {
		flow[l] = math.NaN()
		if row >= 0 {
			flow[l] = r.RowValue[row] + e.n.Pfinj[l]
		}
	}
	return pi, flow
}

// TestLMPBusLineSearch is a measurement run only on request
// (PRIVOPT_LINESEARCH=bus ID; PRIVOPT_LMPDIAG_CASE, PRIVOPT_LMPDIAG_BAND as
// for TestLMPPerBusMIP; PRIVOPT_LINESEARCH_LEVELS=levels per load, default
// 9): from the adversarial search's point, a coordinate search over the
// whole box (not only its vertices) for a larger price at the bus: each load
// in turn tried at evenly spaced levels of its range, a level kept when the
// bus's price grows, until a sweep changes nothing. It asserts nothing
// beyond the search's own soundness: it reports the largest price it
// reaches.
func TestLMPBusLineSearch(t *testing.T) {
	id, err := strconv.Atoi(os.Getenv("PRIVOPT_LINESEARCH"))
	if err != nil {
		t.Skip("a measurement: set PRIVOPT_LINESEARCH to a bus ID")
	}
	levels, _ := strconv.Atoi(os.Getenv("PRIVOPT_LINESEARCH_LEVELS"))
	if levels < 2 {
		levels = 9
	}
	n, dom := diagCase(t)
	rules := DefaultMarketRules()
	ctx := context.Background()
	s, err := n.SearchLMPChange(ctx, dom, 1, rules, LMPSearchOptions{Seed: 1, Steps: 3000, Climbs: 5, Congestion: true, PerBus: 200, FlowStarts: true})
	if err != nil {
		t.Fatal(err)
	}
	i := n.BusIndex[id]
	t.Logf("search: %.6g $/MWh at bus %d; largest |π| at bus %d: %.6g", s.PerMW, s.Bus, id, s.BusLMP[i])
	mk := newMarketEval(t, n, dom, rules)
	defer mk.close()
	d := append([]float64(nil), s.Load...)
	d[i] = dom.Hi[i]
	pi, _ := mk.eval(d)
	best := pi[i]
	t.Logf("start: π %.6g", best)
	for sweep := 0; sweep < 6; sweep++ {
		moved := false
		for _, j := range mk.m.vars {
			if j == i {
				continue
			}
			old := d[j]
			bj := old
			for q := 0; q < levels; q++ {
				d[j] = dom.Lo[j] + (dom.Hi[j]-dom.Lo[j])*float64(q)/float64(levels-1)
				if pi, _ := mk.eval(d); pi[i] > best+1e-6 {
					best, bj, moved = pi[i], d[j], true
				}
			}
			d[j] = bj
		}
		_, flow := mk.eval(d)
		t.Logf("sweep %d: π %.6g; flows %s", sweep, best, flowSummary(n, flow))
		if !moved {
			break
		}
	}
}

func flowSummary(n *Network, flow []float64) string {
	var out []string
	for l, f := range flow {
		if math.IsNaN(f) {
			continue
		}
		if f >= n.FlowMax[l]-1e-6 || f <= n.FlowMin[l]+1e-6 {
			out = append(out, strconv.Itoa(n.BusID[n.From[l]])+"–"+strconv.Itoa(n.BusID[n.To[l]]))
		}
	}
	return "at limit: " + strings.Join(out, " ")
}

// TestLMPPatternTightening is a measurement run only on request
// (PRIVOPT_PATTERNTIGHT="bus,from-to"; PRIVOPT_PATTERN_PASSES, default 3;
// PRIVOPT_PATTERN_WORK work units per part, default 3e8;
// PRIVOPT_LMPDIAG_CUTOFF, PRIVOPT_PATTERN_MIPITERS: each part's MIP with
// that cutoff and simplex-iteration budget, none without): after the default
// bound tightening it bounds the bus's price by the congestion-pattern
// parts of the branch (patternPartBound), each tightened on its own, and
// checks the bound against the search's largest price at the bus.
func TestLMPPatternTightening(t *testing.T) {
	spec := os.Getenv("PRIVOPT_PATTERNTIGHT")
	if spec == "" {
		t.Skip("a measurement: set PRIVOPT_PATTERNTIGHT to \"bus,from-to\"")
	}
	f := strings.Split(spec, ",")
	id, _ := strconv.Atoi(f[0])
	passes, _ := strconv.Atoi(os.Getenv("PRIVOPT_PATTERN_PASSES"))
	if passes <= 0 {
		passes = 3
	}
	work, _ := strconv.ParseFloat(os.Getenv("PRIVOPT_PATTERN_WORK"), 64)
	if work <= 0 {
		work = 3e8
	}
	cutoff, _ := strconv.ParseFloat(os.Getenv("PRIVOPT_LMPDIAG_CUTOFF"), 64)
	iters, _ := strconv.ParseInt(os.Getenv("PRIVOPT_PATTERN_MIPITERS"), 10, 64)
	n, dom, rules, ev := diagEvidence(t)
	ctx := context.Background()
	i := n.BusIndex[id]
	br := branchByEnds(t, n, f[1])
	m, _, mlp := marketLPSolver(t, n, dom, rules)
	mlp.Close()
	need := priceNeed(m)
	hopt := highs.Options{}
	hopt.Threads = 1
	t0 := time.Now()
	bound, used, err := n.patternPartBound(ctx, dom, rules, hopt, ev, ev.PriceLo, ev.PriceHi, need, m, i, br, passes, work, cutoff, iters, 0, testWriter{t})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("bus %d: tightened bound %.6g; by the parts of branch %s: %.6g (%.3g work units, %.1f s)", id, ev.PriceHi[i], f[1], bound, used, time.Since(t0).Seconds())
	s, err := n.SearchLMPChange(ctx, dom, 1, rules, LMPSearchOptions{Extra: ev.Candidates, Seed: 1, Steps: 3000, Climbs: 5, Congestion: true, PerBus: 200, FlowStarts: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("search with the parts' maximizers as starts: %.6g $/MWh at bus %d; largest |π| at bus %d: %.6g", s.PerMW, s.Bus, id, s.BusLMP[i])
	if s.BusLMP[i] > bound+1e-6*(1+bound) {
		t.Errorf("bus %d: the search's price %v exceeds the parts' bound %v", id, s.BusLMP[i], bound)
	}
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// branchByEnds returns the first branch between the buses "from-to" (IDs,
// either orientation).
func branchByEnds(t *testing.T, n *Network, spec string) int {
	t.Helper()
	ends := strings.Split(spec, "-")
	if len(ends) != 2 {
		t.Fatalf("branch %q: want \"from-to\"", spec)
	}
	a, _ := strconv.Atoi(ends[0])
	b, _ := strconv.Atoi(ends[1])
	for l := range n.From {
		if (n.BusID[n.From[l]] == a && n.BusID[n.To[l]] == b) || (n.BusID[n.From[l]] == b && n.BusID[n.To[l]] == a) {
			return l
		}
	}
	t.Fatalf("no branch %s", spec)
	return -1
}

// diagEvidence returns a measurement's case (diagCase), the default market
// rules and the evidence of the default bound tightening (no MIP).
func diagEvidence(t *testing.T) (*Network, LoadDomain, MarketRules, *LMPEvidence) {
	t.Helper()
	n, dom := diagCase(t)
	rules := DefaultMarketRules()
	ev, reason, err := n.lmpBound(context.Background(), dom, rules, LMPBoundOptions{MIPWork: 1})
	if err != nil || ev == nil {
		t.Fatalf("lmpBound: %v %s", err, reason)
	}
	return n, dom, rules, ev
}
