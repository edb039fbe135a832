package grid

import (
	"context"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

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
		k, err := n.buildKKT(dom, rules, ev, ev.PriceLo, ev.PriceHi, 1, nil, []int{i})
		if err != nil {
			t.Fatal(err)
		}
		fixOwnLoads(k, dom, 1)
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
		t1 := time.Now()
		r, err := lp.SolveMIP(ctx, highs.MIPLimits{RelGap: 1e-3, TimeLimit: time.Duration(secs * float64(time.Second))})
		lp.Close()
		if err != nil {
			t.Fatal(err)
		}
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
