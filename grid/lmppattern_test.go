package grid

import (
	"context"
	"math"
	"sort"
	"testing"

	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/highs"
)

// TestLMPPatternParts checks the congestion-pattern split (patternPartBound)
// against two independent references on 30_ieee ±30% (PowerModels DC
// model) without bound tightening, so the parts have room to differ: for
// the three varying buses with the largest derived price bound, each split
// by the limited branch with the largest |PTDF| to the bus, the largest of
// the parts' closed MIP values must equal the closed KKT MIP of the whole
// program (the parts cover every KKT point and each lies in it), and it
// must be at least the largest price the adversarial search sees at the
// bus (a price at a real load vector).
func TestLMPPatternParts(t *testing.T) {
	pf := newPatternFixture(t)
	n, dom, rules, ev, m, buses, hopt := pf.n, pf.dom, pf.rules, pf.ev, pf.m, pf.buses, pf.hopt
	ctx := context.Background()
	s, err := n.SearchLMPChange(ctx, dom, 1, rules, LMPSearchOptions{Seed: 1, Steps: 300, Climbs: 3, Congestion: true, PerBus: 50})
	if err != nil {
		t.Fatal(err)
	}
	need := priceNeed(m)
	split := 0
	for _, i := range buses[:3] {
		// The whole program's closed MIP (own load at its upper end).
		k, err := n.buildKKT(dom, rules, ev, ev.PriceLo, ev.PriceHi, 1, nil, []int{i})
		if err != nil {
			t.Fatal(err)
		}
		fixOwnLoads(k, dom, 1)
		lp, err := buildMax(k.b, hopt)
		if err != nil {
			t.Fatal(err)
		}
		r, err := lp.SolveMIP(ctx, highs.MIPLimits{RelGap: 1e-6})
		lp.Close()
		if err != nil || r.Status != solver.Optimal {
			t.Fatalf("bus %d: whole MIP: %v %v", n.BusID[i], r.Status, err)
		}
		ptdf := n.PTDFColumns([]int{i})[0]
		l := -1
		for q := range ptdf {
			if (ev.MuUp[q] > 0 || ev.MuLo[q] > 0) && (l < 0 || math.Abs(ptdf[q]) > math.Abs(ptdf[l])) {
				l = q
			}
		}
		if l < 0 {
			continue
		}
		split++
		pb, _, err := n.patternPartBound(ctx, dom, rules, hopt, ev, ev.PriceLo, ev.PriceHi, need, m, i, l, 1, 1e6, 0, 1e7, 0, testWriter{t})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("bus %d, branch %d–%d: parts %.6g, whole MIP %.6g, search %.6g, derived bound %.6g", n.BusID[i], n.BusID[n.From[l]], n.BusID[n.To[l]], pb, r.Objective, s.BusLMP[i], ev.PriceHi[i])
		if math.Abs(pb-r.Objective) > 2e-3*(1+math.Abs(r.Objective)) {
			t.Errorf("bus %d: the parts give %v, the whole MIP %v", n.BusID[i], pb, r.Objective)
		}
		if pb < s.BusLMP[i]-1e-6*(1+s.BusLMP[i]) {
			t.Errorf("bus %d: the parts' bound %v is below the search's price %v", n.BusID[i], pb, s.BusLMP[i])
		}
	}
	if split == 0 {
		t.Fatal("no bus had a limited branch to split by")
	}
}

// patternFixture is the setting of the congestion-pattern part tests:
// 30_ieee ±30% (PowerModels DC model) with the derived price bounds and no
// bound tightening, so the parts have room to differ; buses are the varying
// buses, largest derived bound first; hopt runs HiGHS on one thread.
type patternFixture struct {
	n     *Network
	dom   LoadDomain
	rules MarketRules
	ev    *LMPEvidence
	m     *marketLP
	buses []int
	hopt  highs.Options
}

func newPatternFixture(t *testing.T) *patternFixture {
	t.Helper()
	n, err := NewNetwork(pglibNet(t, "30_ieee").Case, PowerModelsDC())
	if err != nil {
		t.Fatal(err)
	}
	dom, _ := n.LoadBand(0.3)
	rules := DefaultMarketRules()
	ev, reason, err := n.lmpBound(context.Background(), dom, rules, LMPBoundOptions{TighteningPasses: -1, MIPWork: 1})
	if err != nil || ev == nil {
		t.Fatalf("lmpBound: %v %s", err, reason)
	}
	m, err := n.newMarketLP(newLPBuilder(), dom, rules)
	if err != nil {
		t.Fatal(err)
	}
	buses := append([]int(nil), m.vars...)
	sort.SliceStable(buses, func(a, b int) bool { return ev.PriceHi[buses[a]] > ev.PriceHi[buses[b]] })
	pf := &patternFixture{n: n, dom: dom, rules: rules, ev: ev, m: m, buses: buses}
	pf.hopt.Threads = 1
	return pf
}
