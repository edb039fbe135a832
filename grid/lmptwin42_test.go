package grid

import (
	"context"
	"math"
	"testing"
)

// twin42Backstops on the hand-solved three-bus case (case3_congested, bus
// 3's load in [81, 99] MW, bus 2's in [0, 10]: every price is at most 50
// $/MWh, the expensive unit's cost). With the default bound tightening's
// price bounds (all below the 1,000 cap), every shedding backstop of the
// KKT program is closed (upper bound 0), and the KKT MIP still reaches the
// true largest price of bus 3, 50 $/MWh (the closure removes no KKT
// point). With bus 3's bound at the cap its backstop stays open.
func TestTwin42Backstops(t *testing.T) {
	n := loadNet(t, "testdata/case3_congested.m", DCOptions{})
	dom := LoadDomain{Lo: []float64{0, 0, 81}, Hi: []float64{0, 10, 99}}
	rules := MarketRules{PriceCap: 1000}
	ev, reason, err := n.lmpBound(context.Background(), dom, rules, LMPBoundOptions{MIPWork: 1})
	if err != nil || ev == nil {
		t.Fatalf("lmpBound: %v %s", err, reason)
	}
	k, err := n.buildKKT(dom, rules, ev, ev.PriceLo, ev.PriceHi, 1, nil, []int{2})
	if err != nil {
		t.Fatal(err)
	}
	closed := 0
	for j, c := range k.m.sigma {
		if c < 0 {
			continue
		}
		if ev.PriceHi[j] >= rules.PriceCap {
			t.Fatalf("bus %d's price bound %v: the tightening should bound it below the cap", j+1, ev.PriceHi[j])
		}
		if k.b.hi[c] != 0 {
			t.Errorf("bus %d: shedding bound %v with the price bound %v < cap", j+1, k.b.hi[c], ev.PriceHi[j])
		}
		closed++
	}
	if closed == 0 {
		t.Fatal("no shedding backstop in the program")
	}
	fixOwnLoads(k, dom, 1)
	if r := solveKKTMIP(t, k, 10); math.Abs(r.Objective-50) > 1e-6 {
		t.Errorf("KKT MIP max π₃ = %v with the backstops closed, want 50", r.Objective)
	}
	hi := append([]float64(nil), ev.PriceHi...)
	hi[2] = rules.PriceCap
	k2, err := n.buildKKT(dom, rules, ev, ev.PriceLo, hi, 1, nil, []int{2})
	if err != nil {
		t.Fatal(err)
	}
	if c := k2.m.sigma[2]; c < 0 || k2.b.hi[c] != ev.shedMax(2) {
		t.Errorf("bus 3 at the cap: shedding column %d bound %v, want %v", c, k2.b.hi[max(c, 0)], ev.shedMax(2))
	}
}
