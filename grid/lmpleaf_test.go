package grid

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// The leaf argument on 118_ieee ±10%: it fixes 8 radial limits' duals at 0,
// and at sampled loads of the domain (vertices and interior points) the
// market LP's optimal duals of those limits are 0 (an independent solve:
// complementary slackness makes every optimal dual 0 there).
func TestLeafSlackDuals(t *testing.T) {
	n := pglibNet(t, "118_ieee")
	dom, _ := n.LoadBand(0.1)
	rules := DefaultMarketRules()
	ctx := context.Background()
	ev, reason, err := n.lmpBound(ctx, dom, rules, LMPBoundOptions{TighteningPasses: -1, MIPWork: 1})
	if err != nil || ev == nil {
		t.Fatalf("lmpBound: %v %s", err, reason)
	}
	m, _, lp := marketLPSolver(t, n, dom, rules)
	defer lp.Close()
	var up, lo []int
	for l := range ev.MuUp {
		if n.leafSlack(m, ev, l, true) {
			up = append(up, l)
		}
		if n.leafSlack(m, ev, l, false) {
			lo = append(lo, l)
		}
	}
	if len(up)+len(lo) != 8 {
		t.Errorf("%d upper and %d lower radial limits, want 8 in all", len(up), len(lo))
	}
	bridged := 0
	for l, ok := range n.bridgeSlack(m, ev) {
		if ok && m.flow[l] >= 0 {
			up, lo = append(up, l), append(lo, l)
			bridged++
		}
	}
	t.Logf("%d limits slack by the leaf argument, %d branches behind bridges", 8, bridged)
	rng := rand.New(rand.NewPCG(11, 3))
	for trial := 0; trial < 16; trial++ {
		r := solveAtSample(t, lp, m, dom, rng, trial%2 == 0)
		for _, l := range append(append([]int(nil), up...), lo...) {
			if y := r.RowDual[m.flow[l]]; math.Abs(y) > 1e-7 {
				t.Errorf("trial %d: radial branch %d has congestion dual %v", trial, l, y)
			}
		}
	}
	// A branch whose two ends both have other branches is never slack by
	// the argument.
	deg := make([]int, n.NumBuses())
	for q := range m.bfBus {
		for _, j := range m.bfBus[q] {
			deg[j]++
		}
	}
	for l := range ev.MuUp {
		if m.flow[l] >= 0 && deg[m.bfBus[l][0]] > 1 && deg[m.bfBus[l][1]] > 1 && (n.leafSlack(m, ev, l, true) || n.leafSlack(m, ev, l, false)) {
			t.Errorf("branch %d between two meshed buses passes the leaf test", l)
		}
	}
}

// A proof whose leaf step names a meshed branch is refused.
func TestLeafStepTampered(t *testing.T) {
	n := pglibNet(t, "30_ieee")
	dom, _ := n.LoadBand(0.1)
	rules := MarketRules{PriceCap: 1000}
	c, _ := certifyCheckable(t, n, dom, rules)
	q := -1
	for i, st := range c.LMP.Proof.Steps {
		if st.Op == "leaf_up" || st.Op == "leaf_lo" {
			q = i
			break
		}
	}
	if q < 0 {
		t.Fatal("30_ieee ±10%: no leaf step in the proof")
	}
	// Branch 0 (buses 1–2) is meshed.
	p := cloneProof(t, c.LMP.Proof)
	p.Steps[q].K = 0
	if _, err := n.CheckLMPProof(context.Background(), dom, rules, p); !errors.Is(err, ErrNotCertified) {
		t.Errorf("leaf step on a meshed branch accepted (err %v)", err)
	}
}
