package grid

import (
	"context"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/highs"
)

// TestLMPPerBusMIP is a measurement, minutes long, run only on request
// (PRIVOPT_LMPDIAG=bus IDs, comma-separated; PRIVOPT_LMPDIAG_CUTOFF=a price
// in $/MWh, optional; PRIVOPT_LMPDIAG_SECONDS=each MIP's wall-clock limit,
// default 150): on 300_ieee ±10% (PowerModels DC model) after the default
// bound tightening, it solves the KKT MIP of one bus at a time (no
// subgradient cuts) and reports its proven bound; with a cutoff it adds the
// row π_i ≥ cutoff, so that an infeasible MIP proves π_i < cutoff at every
// KKT point. It asserts soundness: the proven bound is at least the largest
// price the adversarial search sees at that bus, and a MIP proven infeasible
// with the cutoff has no search price at or above it.
func TestLMPPerBusMIP(t *testing.T) {
	ids := os.Getenv("PRIVOPT_LMPDIAG")
	if ids == "" {
		t.Skip("a measurement of minutes: set PRIVOPT_LMPDIAG to bus IDs of 300_ieee to run it")
	}
	c := pglibNet(t, "300_ieee").Case
	n, err := NewNetwork(c, PowerModelsDC())
	if err != nil {
		t.Fatal(err)
	}
	dom, _ := n.LoadBand(0.1)
	rules := DefaultMarketRules()
	ctx := context.Background()
	ev, reason, err := n.lmpBound(ctx, dom, rules, LMPBoundOptions{MIPWork: 1})
	if err != nil || ev == nil {
		t.Fatalf("lmpBound: %v %s", err, reason)
	}
	s, err := n.SearchLMPChange(ctx, dom, 1, rules, LMPSearchOptions{Extra: ev.Candidates, Seed: 1, Steps: 3000, Climbs: 5, Congestion: true, PerBus: 200, FlowStarts: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("search: %.6g $/MWh at bus %d", s.PerMW, s.Bus)
	cutoff, _ := strconv.ParseFloat(os.Getenv("PRIVOPT_LMPDIAG_CUTOFF"), 64)
	secs, _ := strconv.ParseFloat(os.Getenv("PRIVOPT_LMPDIAG_SECONDS"), 64)
	if secs <= 0 {
		secs = 150
	}
	for _, f := range strings.Split(ids, ",") {
		id, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			t.Fatalf("bus ID %q: %v", f, err)
		}
		i, ok := n.BusIndex[id]
		if !ok {
			t.Fatalf("no bus %d", id)
		}
		k, err := n.buildKKT(dom, rules, ev, ev.PriceLo, ev.PriceHi, 1, nil, []int{i})
		if err != nil {
			t.Fatal(err)
		}
		if cutoff > 0 {
			k.b.row(cutoff, math.Inf(1), []int{k.t}, []float64{1})
		}
		hopt := highs.Options{}
		hopt.Threads = 1
		lp, err := k.b.build(hopt)
		if err != nil {
			t.Fatal(err)
		}
		if err := lp.SetObjectiveSense(true); err != nil {
			t.Fatal(err)
		}
		t0 := time.Now()
		r, err := lp.SolveMIP(ctx, highs.MIPLimits{RelGap: 1e-3, TimeLimit: time.Duration(secs * float64(time.Second))})
		lp.Close()
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("bus %d: tightened bound %.6g, search %.6g; MIP (cutoff %g): %v, stopped by %s, proven bound %.6g, incumbent %.6g, %d nodes, %d LP iterations, %.1f s",
			id, ev.PriceHi[i], s.BusLMP[i], cutoff, r.Status, r.Stop, r.DualBound, r.Objective, r.Nodes, r.LPIterations, time.Since(t0).Seconds())
		switch {
		case r.Status == solver.PrimalInfeasible:
			if s.BusLMP[i] >= cutoff {
				t.Errorf("bus %d: the MIP with π ≥ %v is infeasible, but the search saw %v", id, cutoff, s.BusLMP[i])
			}
		case r.DualBound < s.BusLMP[i]-1e-6*(1+s.BusLMP[i]):
			t.Errorf("bus %d: proven bound %v below the search's price %v", id, r.DualBound, s.BusLMP[i])
		}
	}
}
