package grid

import (
	"context"
	"math"
	"reflect"
	"runtime"
	"testing"
)

// TestLMPLevelDeterministic checks that the split step's result does not
// depend on how many goroutines split the buses of a round: on 30_ieee
// ±10% with a first level of 3 buses (several levels, several buses per
// round), runs with GOMAXPROCS 1 and 2 must give identical split records
// (bus, branch, bounds, cutoff, work) and identical price bounds, bit for
// bit.
func TestLMPLevelDeterministic(t *testing.T) {
	n, dom, rules := splitCase30(t)
	opt := LMPBoundOptions{TighteningPasses: 1, TighteningWork: 2e6, MIPWork: 2e6, PatternSplitWork: 2e8, splitBuses: 3}
	checkSplitDeterministic(t, n, dom, rules, opt, 6)
}

// checkSplitDeterministic runs lmpBound with opt at GOMAXPROCS 1 and 2 and
// fails unless both give at least minRecords split records, identical
// records and identical price bounds, bit for bit, and the same certified
// value and reproducibility.
func checkSplitDeterministic(t *testing.T, n *Network, dom LoadDomain, rules MarketRules, opt LMPBoundOptions, minRecords int) {
	t.Helper()
	run := func(procs int) *LMPEvidence {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		ev, reason, err := n.lmpBound(context.Background(), dom, rules, opt)
		if err != nil || ev == nil {
			t.Fatalf("lmpBound (GOMAXPROCS %d): %v %s", procs, err, reason)
		}
		return ev
	}
	one, two := run(1), run(2)
	if len(one.PatternSplits) < minRecords {
		t.Fatalf("%d split records, want at least %d", len(one.PatternSplits), minRecords)
	}
	if !reflect.DeepEqual(one.PatternSplits, two.PatternSplits) {
		for q := range min(len(one.PatternSplits), len(two.PatternSplits)) {
			if one.PatternSplits[q] != two.PatternSplits[q] {
				t.Errorf("record %d: %+v with 1 goroutine, %+v with 2", q, one.PatternSplits[q], two.PatternSplits[q])
				break
			}
		}
		t.Fatalf("the split records differ (%d and %d records)", len(one.PatternSplits), len(two.PatternSplits))
	}
	for i := range one.PriceHi {
		if math.Float64bits(one.PriceHi[i]) != math.Float64bits(two.PriceHi[i]) {
			t.Errorf("bus %d: price bound %v with 1 goroutine, %v with 2", n.BusID[i], one.PriceHi[i], two.PriceHi[i])
		}
	}
	if one.MaxPrice != two.MaxPrice || one.Reproducible != two.Reproducible {
		t.Errorf("certified %v (reproducible %v) with 1 goroutine, %v (%v) with 2", one.MaxPrice, one.Reproducible, two.MaxPrice, two.Reproducible)
	}
	t.Logf("%d split records, certified max π %.6g in both runs", len(one.PatternSplits), one.MaxPrice)
}

// TestLMPLevelMIPFirst checks the first round of a split level (part MIPs
// before any tightening, patternSplitPasses[0] = 0) on 30_ieee ±10% with a
// first level of 3 buses and 2·10⁶ work units: the first level (cutoff
// 509.497, the 4th bound) must end with its buses at most the cutoff
// within a third of the budget, leaving enough for the second level
// (6 buses, cutoff 496.647, the 7th bound) to finish too, so the certified
// maximum is at most 496.647. With one tightening pass per part first
// (the schedule of round 13) the first level uses 9.6·10⁵ units and the
// step stops at 509.497. Every bound must stay at least the market LP's
// price at 40 sampled load vectors.
func TestLMPLevelMIPFirst(t *testing.T) {
	n, dom, rules := splitCase30(t)
	opt := LMPBoundOptions{TighteningPasses: 1, TighteningWork: 2e6, MIPWork: 2e6, PatternSplitWork: 2e6, splitBuses: 3}
	ev, reason, err := n.lmpBound(context.Background(), dom, rules, opt)
	if err != nil || ev == nil {
		t.Fatalf("lmpBound: %v %s", err, reason)
	}
	if len(ev.PatternSplits) == 0 {
		t.Fatal("no split")
	}
	first, w := ev.PatternSplits[0].Cutoff, 0.0
	for _, sp := range ev.PatternSplits {
		if sp.Cutoff == first {
			w += sp.Work
		}
	}
	t.Logf("certified max π %.6g; first level: cutoff %.6g, %.3g work units", ev.MaxPrice, first, w)
	if math.Abs(first-509.497) > 1e-3 {
		t.Errorf("first cutoff %.6g, want 509.497 (the 4th bound)", first)
	}
	if w > opt.PatternSplitWork/3 {
		t.Errorf("the first level used %.3g work units, more than a third of %.3g", w, opt.PatternSplitWork)
	}
	if ev.MaxPrice > 496.6475 {
		t.Errorf("certified %.6g, want at most 496.647 (the second level's cutoff)", ev.MaxPrice)
	}
	for q, pi := range sampledPrices(t, n, dom, rules, 5, 40) {
		for _, sp := range ev.PatternSplits {
			if i := n.BusIndex[sp.Bus]; ev.PriceHi[i] < pi[i]-1e-6*(1+math.Abs(pi[i])) {
				t.Errorf("bus %d: bound %v below the LP price %v at sample %d", sp.Bus, ev.PriceHi[i], pi[i], q)
			}
		}
	}
}

// TestLMPLevelGiveUp checks the give-up rule of a split level
// (patternSplitGiveUp) on 30_ieee ±30% with a first level of 15 buses and
// 2·10⁷ work units: more than a third of the buses the first round splits
// stay above the cutoff after their part MIPs, so the level must end
// there, with at most half of the budget used (6.6·10⁶ units, 11 splits;
// without the rule the tightening rounds spend 1.96·10⁷ units in 28 splits
// and the certified maximum is the same, the price cap).
func TestLMPLevelGiveUp(t *testing.T) {
	n, err := NewNetwork(pglibNet(t, "30_ieee").Case, PowerModelsDC())
	if err != nil {
		t.Fatal(err)
	}
	dom, _ := n.LoadBand(0.3)
	rules := DefaultMarketRules()
	opt := LMPBoundOptions{TighteningPasses: 1, TighteningWork: 2e6, MIPWork: 2e6, PatternSplitWork: 2e7, splitBuses: 15}
	ev, reason, err := n.lmpBound(context.Background(), dom, rules, opt)
	if err != nil || ev == nil {
		t.Fatalf("lmpBound: %v %s", err, reason)
	}
	used := 0.0
	for _, sp := range ev.PatternSplits {
		used += sp.Work
	}
	t.Logf("certified max π %.6g; %d splits, %.3g work units", ev.MaxPrice, len(ev.PatternSplits), used)
	if len(ev.PatternSplits) == 0 {
		t.Fatal("no split")
	}
	if used > opt.PatternSplitWork/2 {
		t.Errorf("the split used %.3g work units, more than half of %.3g: the level was not given up", used, opt.PatternSplitWork)
	}
	for q, pi := range sampledPrices(t, n, dom, rules, 3, 20) {
		for _, sp := range ev.PatternSplits {
			if i := n.BusIndex[sp.Bus]; ev.PriceHi[i] < pi[i]-1e-6*(1+math.Abs(pi[i])) {
				t.Errorf("bus %d: bound %v below the LP price %v at sample %d", sp.Bus, ev.PriceHi[i], pi[i], q)
			}
		}
	}
}
