package grid

import (
	"context"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/highs"
)

// TestLMPPerBusMIP is a measurement, minutes long, run only on request
// (PRIVOPT_LMPDIAG=bus IDs, comma-separated, or "capped" for every varying
// bus whose tightened bound exceeds the cutoff, largest first;
// PRIVOPT_LMPDIAG_CUTOFF=a price in $/MWh, optional, "found" for the
// search's largest realized change; PRIVOPT_LMPDIAG_SECONDS=each MIP's
// wall-clock limit, default 150; PRIVOPT_LMPDIAG_CASE=a PGLib case name with
// an optional load scale suffix "xS", default 300_ieee;
// PRIVOPT_LMPDIAG_BAND=the domain's half-width, default 0.1): on the case's
// box domain (PowerModels DC model) after the default bound tightening, it
// solves the KKT MIP of one bus at a time (no subgradient cuts) and reports
// its proven bound and incumbent; with a cutoff it adds the row
// π_i ≥ cutoff, so that an infeasible MIP proves π_i < cutoff at every KKT
// point. It asserts soundness: the proven bound is at least the largest
// price the adversarial search sees at that bus, and a MIP proven
// infeasible with the cutoff has no search price at or above it. The
// incumbents' load vectors (points of the domain) are then given to the
// search as extra starts, and the found change before and after is
// reported. The bus's own load is fixed at its upper end (fixOwnLoads, as
// perBusMIPs does; PRIVOPT_LMPDIAG_OWN=0: not). PRIVOPT_LMPDIAG_NOSHED=1 forbids shedding at the bus (a
// restriction, not a bound: it shows whether the bound comes from the bus's
// own shedding).
func TestLMPPerBusMIP(t *testing.T) {
	ids := os.Getenv("PRIVOPT_LMPDIAG")
	if ids == "" {
		t.Skip("a measurement of minutes: set PRIVOPT_LMPDIAG to bus IDs of 300_ieee to run it")
	}
	n, dom, rules, ev := diagEvidence(t)
	ctx := context.Background()
	s, err := n.SearchLMPChange(ctx, dom, 1, rules, LMPSearchOptions{Extra: ev.Candidates, Seed: 1, Steps: 3000, Climbs: 5, Congestion: true, PerBus: 200, FlowStarts: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("search: %.6g $/MWh at bus %d (largest |π| %.6g)", s.PerMW, s.Bus, s.LMP)
	cutoff, _ := strconv.ParseFloat(os.Getenv("PRIVOPT_LMPDIAG_CUTOFF"), 64)
	if os.Getenv("PRIVOPT_LMPDIAG_CUTOFF") == "found" {
		cutoff = s.PerMW + 1e-6*(1+s.PerMW)
	}
	secs, _ := strconv.ParseFloat(os.Getenv("PRIVOPT_LMPDIAG_SECONDS"), 64)
	if secs <= 0 {
		secs = 150
	}
	var buses []int
	if ids == "capped" {
		for _, i := range dom.Variable() {
			if ev.PriceHi[i] > cutoff {
				buses = append(buses, i)
			}
		}
		sort.SliceStable(buses, func(a, b int) bool { return ev.PriceHi[buses[a]] > ev.PriceHi[buses[b]] })
	} else {
		for _, f := range strings.Split(ids, ",") {
			id, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil {
				t.Fatalf("bus ID %q: %v", f, err)
			}
			i, ok := n.BusIndex[id]
			if !ok {
				t.Fatalf("no bus %d", id)
			}
			buses = append(buses, i)
		}
	}
	var starts [][]float64
	for _, i := range buses {
		id := n.BusID[i]
		k, err := n.buildKKT(dom, rules, ev, ev.PriceLo, ev.PriceHi, 1, nil, []int{i})
		if err != nil {
			t.Fatal(err)
		}
		if os.Getenv("PRIVOPT_LMPDIAG_OWN") != "0" {
			fixOwnLoads(k, dom, 1) // as perBusMIPs does (0: not, to compare)
		}
		if cutoff > 0 {
			k.b.row(cutoff, math.Inf(1), []int{k.t}, []float64{1})
		}
		if os.Getenv("PRIVOPT_LMPDIAG_NOSHED") != "" && k.shedE[i] >= 0 {
			// A restriction, to learn where the bound comes from: no
			// shedding at the bus (not a valid bound).
			k.b.hi[k.shedE[i]] = 0
		}
		t0 := time.Now()
		r := solveKKTMIP(t, k, secs)
		t.Logf("bus %d: tightened bound %.6g, search %.6g; MIP (cutoff %g): %v, stopped by %s, proven bound %.6g, incumbent %.6g, %d nodes, %d LP iterations, %.1f s",
			id, ev.PriceHi[i], s.BusLMP[i], cutoff, r.Status, r.Stop, r.DualBound, r.Objective, r.Nodes, r.LPIterations, time.Since(t0).Seconds())
		if r.X != nil {
			d := append([]float64(nil), dom.Lo...)
			for _, j := range k.m.vars {
				d[j] = math.Min(dom.Hi[j], math.Max(dom.Lo[j], r.X[k.m.d[j]]))
			}
			starts = append(starts, d)
		}
		switch {
		case r.Status == solver.PrimalInfeasible:
			if s.BusLMP[i] >= cutoff {
				t.Errorf("bus %d: the MIP with π ≥ %v is infeasible, but the search saw %v", id, cutoff, s.BusLMP[i])
			}
		case r.DualBound < s.BusLMP[i]-1e-6*(1+s.BusLMP[i]):
			t.Errorf("bus %d: proven bound %v below the search's price %v", id, r.DualBound, s.BusLMP[i])
		}
	}

	if len(starts) == 0 {
		return
	}
	s2, err := n.SearchLMPChange(ctx, dom, 1, rules, LMPSearchOptions{Extra: append(ev.Candidates, starts...), Seed: 1, Steps: 3000, Climbs: 5, Congestion: true, PerBus: 200, FlowStarts: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("search with the %d MIP incumbents as starts: %.6g $/MWh at bus %d (largest |π| %.6g); before %.6g", len(starts), s2.PerMW, s2.Bus, s2.LMP, s.PerMW)
	if s2.PerMW < s.PerMW-1e-9*(1+s.PerMW) {
		t.Errorf("more starts found less: %v < %v", s2.PerMW, s.PerMW)
	}
}

// diagCase returns the network and box domain of a measurement test:
// PRIVOPT_LMPDIAG_CASE (a PGLib case name with an optional load scale suffix
// "xS", default 300_ieee) and PRIVOPT_LMPDIAG_BAND (the domain's half-width,
// default 0.1), PowerModels DC model.
func diagCase(t *testing.T) (*Network, LoadDomain) {
	t.Helper()
	name := os.Getenv("PRIVOPT_LMPDIAG_CASE")
	if name == "" {
		name = "300_ieee"
	}
	scale := 1.0
	if k := strings.LastIndex(name, "x"); k > 0 {
		if s, err := strconv.ParseFloat(name[k+1:], 64); err == nil {
			name, scale = name[:k], s
		}
	}
	band := 0.1
	if s := os.Getenv("PRIVOPT_LMPDIAG_BAND"); s != "" {
		var err error
		if band, err = strconv.ParseFloat(s, 64); err != nil {
			t.Fatalf("PRIVOPT_LMPDIAG_BAND %q: %v", s, err)
		}
	}
	n, err := NewNetwork(pglibNet(t, name).Case, PowerModelsDC())
	if err != nil {
		t.Fatal(err)
	}
	for i := range n.Load {
		n.Load[i] *= scale
	}
	dom, _ := n.LoadBand(band)
	return n, dom
}

// solveKKTMIP maximizes the KKT program k's objective by HiGHS's MIP solver
// (one thread, relative gap 10⁻³, a wall-clock limit of secs seconds).
func solveKKTMIP(t *testing.T, k *kktModel, secs float64) *highs.MIPResult {
	t.Helper()
	lp := maximizer(t, k.b)
	defer lp.Close()
	r, err := lp.SolveMIP(context.Background(), highs.MIPLimits{RelGap: 1e-3, TimeLimit: time.Duration(secs * float64(time.Second))})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// maximizer builds b as a HiGHS program (one thread) that maximizes.
func maximizer(t *testing.T, b *lpBuilder) *highs.LP {
	t.Helper()
	hopt := highs.Options{}
	hopt.Threads = 1
	lp, err := buildMax(b, hopt)
	if err != nil {
		t.Fatal(err)
	}
	return lp
}
