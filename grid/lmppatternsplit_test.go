package grid

import (
	"context"
	"math"
	"math/rand"
	"testing"
)

// TestLMPPatternSplitStep checks the pattern split of the default route
// (LMPBoundOptions.PatternSplitWork, patternSplitStep) on 30_ieee ±10%
// (PowerModels DC model) after one short tightening pass: the step must
// lower the price bound of at least one bus it splits, the new bound of
// every split bus must be at least the largest price the adversarial search
// sees there and at least the market LP's price there at sampled load
// vectors of the domain (real prices, independent of the KKT program), and
// the certified maximum must not exceed the one without the step.
func TestLMPPatternSplitStep(t *testing.T) {
	n, dom, rules := splitCase30(t)
	ctx := context.Background()
	base := LMPBoundOptions{TighteningPasses: 1, TighteningWork: 2e6, MIPWork: 2e6}
	ev0, reason, err := n.lmpBound(ctx, dom, rules, base)
	if err != nil || ev0 == nil {
		t.Fatalf("lmpBound: %v %s", err, reason)
	}
	opt := base
	opt.PatternSplitWork = 2e7
	ev, reason, err := n.lmpBound(ctx, dom, rules, opt)
	if err != nil || ev == nil {
		t.Fatalf("lmpBound with the split: %v %s", err, reason)
	}
	if len(ev.PatternSplits) == 0 {
		t.Fatal("the split step split no bus")
	}
	s, err := n.SearchLMPChange(ctx, dom, 1, rules, LMPSearchOptions{Seed: 1, Steps: 300, Climbs: 3, Congestion: true, PerBus: 50})
	if err != nil {
		t.Fatal(err)
	}
	samples := sampledPrices(t, n, dom, rules, 7, 40)
	lowered := 0
	for _, sp := range ev.PatternSplits {
		i := n.BusIndex[sp.Bus]
		t.Logf("bus %d by %d–%d: %.6g → %.6g (cutoff %.6g, %.3g work), search %.6g, bound without the step %.6g",
			sp.Bus, sp.From, sp.To, sp.Before, sp.After, sp.Cutoff, sp.Work, s.BusLMP[i], ev0.PriceHi[i])
		if sp.After < sp.Before-1e-6*(1+sp.Before) {
			lowered++
		}
		if ev.PriceHi[i] != sp.After {
			t.Errorf("bus %d: the evidence's bound %v is not the split's %v", sp.Bus, ev.PriceHi[i], sp.After)
		}
		if sp.After < s.BusLMP[i]-1e-6*(1+math.Abs(s.BusLMP[i])) {
			t.Errorf("bus %d: split bound %v below the search's price %v", sp.Bus, sp.After, s.BusLMP[i])
		}
		for q, pi := range samples {
			if sp.After < pi[i]-1e-6*(1+math.Abs(pi[i])) {
				t.Errorf("bus %d: split bound %v below the LP price %v at sample %d", sp.Bus, sp.After, pi[i], q)
			}
		}
	}
	if lowered == 0 {
		t.Error("the split lowered no bus's bound")
	}
	t.Logf("certified max π: %.6g without the step, %.6g with it; search %.6g", ev0.MaxPrice, ev.MaxPrice, s.LMP)
	if ev.MaxPrice > ev0.MaxPrice*(1+1e-6)+1e-6 {
		t.Errorf("the step raised the certified maximum: %v > %v", ev.MaxPrice, ev0.MaxPrice)
	}
	if ev.MaxPrice < s.LMP-1e-6*(1+s.LMP) {
		t.Errorf("certified %v below the search's %v", ev.MaxPrice, s.LMP)
	}
	// Verification re-runs the step from the recorded budget.
	c, err := n.CertifyLMPBound(ctx, dom, 1, rules, opt)
	if err != nil {
		t.Fatal(err)
	}
	if c.LMP == nil || c.LMP.PatternSplitWork != opt.PatternSplitWork || len(c.LMP.PatternSplits) != len(ev.PatternSplits) {
		t.Fatalf("the certificate does not record the split: %+v", c.LMP)
	}
	if err := n.VerifyCostCertificate(c, dom); err != nil {
		t.Errorf("verify: %v", err)
	}
	c.LMP.PatternSplitWork = 0 // without the step the re-derived bound is larger
	if err := n.VerifyCostCertificate(c, dom); err == nil {
		t.Error("verify accepted the certificate without its split step")
	}
}

// TestLMPPatternSplitLevels checks the split step's levels on 30_ieee ±10%
// with a first level of 3 buses: with the work left, the step must run
// further levels, each with a lower cutoff, every bus of a finished level
// at most its cutoff, and every split bound at least the market LP's price
// at sampled load vectors of the domain (real prices).
func TestLMPPatternSplitLevels(t *testing.T) {
	n, dom, rules := splitCase30(t)
	ctx := context.Background()
	opt := LMPBoundOptions{TighteningPasses: 1, TighteningWork: 2e6, MIPWork: 2e6, PatternSplitWork: 2e8, splitBuses: 3}
	ev, reason, err := n.lmpBound(ctx, dom, rules, opt)
	if err != nil || ev == nil {
		t.Fatalf("lmpBound: %v %s", err, reason)
	}
	var cutoffs []float64
	for _, sp := range ev.PatternSplits {
		if len(cutoffs) == 0 || sp.Cutoff != cutoffs[len(cutoffs)-1] {
			cutoffs = append(cutoffs, sp.Cutoff)
		}
	}
	t.Logf("cutoffs by level: %.6g; certified max π %.6g", cutoffs, ev.MaxPrice)
	if len(cutoffs) < 3 {
		t.Fatalf("%d levels (cutoffs %v), want at least 3 (3, 6 and 12 buses)", len(cutoffs), cutoffs)
	}
	for q := 1; q < len(cutoffs); q++ {
		if cutoffs[q] >= cutoffs[q-1] {
			t.Errorf("level %d: cutoff %v not below the previous %v", q+1, cutoffs[q], cutoffs[q-1])
		}
	}
	// A level starts only after every bus of the previous one reached its
	// cutoff: every bus split at a level before the last is at most that
	// level's cutoff in the end.
	for _, sp := range ev.PatternSplits {
		if sp.Cutoff != cutoffs[len(cutoffs)-1] {
			if i := n.BusIndex[sp.Bus]; ev.PriceHi[i] > sp.Cutoff*(1+1e-9) {
				t.Errorf("bus %d: bound %v above the cutoff %v of a finished level", sp.Bus, ev.PriceHi[i], sp.Cutoff)
			}
		}
	}
	m, _, mlp := marketLPSolver(t, n, dom, rules)
	mlp.Close()
	for q, pi := range sampledPrices(t, n, dom, rules, 11, 40) {
		for _, i := range m.vars {
			if ev.PriceHi[i] < pi[i]-1e-6*(1+math.Abs(pi[i])) {
				t.Errorf("bus %d: bound %v below the LP price %v at sample %d", n.BusID[i], ev.PriceHi[i], pi[i], q)
			}
		}
	}
}

// splitCase30 returns 30_ieee (PowerModels DC model), its ±10% domain and
// the default market rules: the network of the pattern split's tests.
func splitCase30(t *testing.T) (*Network, LoadDomain, MarketRules) {
	t.Helper()
	n, err := NewNetwork(pglibNet(t, "30_ieee").Case, PowerModelsDC())
	if err != nil {
		t.Fatal(err)
	}
	dom, _ := n.LoadBand(0.1)
	return n, dom, DefaultMarketRules()
}

// sampledPrices returns the market LP's prices at count load vectors of dom
// (seeded): every second one a vertex of the box (where congestion prices
// peak), the others uniform inside it.
func sampledPrices(t *testing.T, n *Network, dom LoadDomain, rules MarketRules, seed int64, count int) [][]float64 {
	t.Helper()
	mk := newMarketEval(t, n, dom, rules)
	defer mk.close()
	rng := rand.New(rand.NewSource(seed))
	var out [][]float64
	for q := 0; q < count; q++ {
		d := append([]float64(nil), dom.Lo...)
		for j := range d {
			u := rng.Float64()
			if q%2 == 0 {
				u = math.Round(u)
			}
			d[j] = dom.Lo[j] + u*(dom.Hi[j]-dom.Lo[j])
		}
		pi, _ := mk.eval(d)
		out = append(out, pi)
	}
	return out
}
