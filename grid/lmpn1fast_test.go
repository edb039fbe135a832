package grid

import (
	"context"
	"math"
	"sort"
	"testing"

	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/highs"
)

// TestN1fastCutoffRows checks the rows n1fastCutoffRows adds to a cutoff
// MIP against the MIP without them (the formulation before): on 30_ieee
// ±10% (the joint KKT MIP over the five varying buses with the largest
// tightened price bounds, v* its closed maximum of max π_i), with a cutoff
// c below v* both MIPs close at v* (so the rows cut off no KKT point with
// π_i ≥ c), and with c above v* both are infeasible. Each row must hold at
// the incumbent of the MIP without the rows, and the rows must make the
// linear relaxation at the cutoff strictly tighter: its smallest
// Σ_i (π_i − l_i)/(c − l_i) is at least 1 with them (their sum with
// Σ y_i = 1) and smaller without (2.541 against 2.608 here).
func TestN1fastCutoffRows(t *testing.T) {
	n := pglibNet(t, "30_ieee")
	dom, _ := n.LoadBand(0.1)
	rules := DefaultMarketRules()
	ctx := context.Background()
	ev, reason, err := n.lmpBound(ctx, dom, rules, LMPBoundOptions{TighteningPasses: 2, MIPWork: 1})
	if err != nil || ev == nil {
		t.Fatalf("lmpBound: %v %s", err, reason)
	}
	b := newLPBuilder()
	m, err := n.newMarketLP(b, dom, rules)
	if err != nil {
		t.Fatal(err)
	}
	sel := append([]int(nil), m.vars...)
	sort.SliceStable(sel, func(a, b int) bool { return ev.PriceHi[sel[a]] > ev.PriceHi[sel[b]] })
	sel = sel[:5]
	hopt := highs.Options{}
	hopt.Threads = 1
	// solve returns the MIP over sel with the cutoff row t ≥ c (none for
	// c ≤ 0) and, when rows, n1fastCutoffRows; relax solves its linear
	// relaxation instead.
	solve := func(c float64, rows, relax bool) (*highs.MIPResult, *kktModel) {
		k, err := n.buildKKT(dom, rules, ev, ev.PriceLo, ev.PriceHi, 1, nil, sel)
		if err != nil {
			t.Fatal(err)
		}
		fixOwnLoads(k, dom, 1)
		if c > 0 {
			k.b.row(c, math.Inf(1), []int{k.t}, []float64{1})
			if rows {
				n1fastCutoffRows(k, ev.PriceLo, ev.PriceHi, 1, c, sel)
			}
		}
		if relax {
			k.b.integer = nil
		}
		lp, err := buildMax(k.b, hopt)
		if err != nil {
			t.Fatal(err)
		}
		defer lp.Close()
		if relax {
			// min Σ_i (π_i − l_i)/(c − l_i) over the relaxation.
			cost := make([]float64, len(k.b.cost))
			off := 0.0
			for _, i := range sel {
				cost[k.pi[i]] = -1 / (c - ev.PriceLo[i])
				off += ev.PriceLo[i] / (c - ev.PriceLo[i])
			}
			if err := lp.SetCosts(cost); err != nil {
				t.Fatal(err)
			}
			lr, err := lp.Solve(ctx)
			if err != nil || lr.Status != solver.Optimal {
				t.Fatalf("relaxation: %v %v", err, lr.Status)
			}
			return &highs.MIPResult{DualBound: -lr.Objective - off}, k
		}
		r, err := lp.SolveMIP(ctx, highs.MIPLimits{RelGap: 1e-7})
		if err != nil {
			t.Fatal(err)
		}
		return r, k
	}
	free, _ := solve(0, false, false)
	if free.Status != solver.Optimal {
		t.Fatalf("MIP without cutoff: %v", free.Status)
	}
	v := free.Objective
	lo := math.Inf(1)
	for _, i := range sel {
		lo = math.Min(lo, ev.PriceLo[i])
	}
	if !(v > lo+1) {
		t.Skipf("closed maximum %v is at the price floor of the buses %v: no room for a cutoff", v, lo)
	}
	below := v - 0.25*(v-lo)
	for _, rows := range []bool{false, true} {
		r, k := solve(below, rows, false)
		if r.Status != solver.Optimal || math.Abs(r.Objective-v) > 1e-6*(1+v) {
			t.Errorf("cutoff %v below the maximum %v (rows %v): %v %v, want optimal %v", below, v, rows, r.Status, r.Objective, v)
			continue
		}
		if !rows {
			// The added rows at the incumbent of the MIP without them.
			for q, i := range sel {
				y, pi := r.X[k.ys[q]], r.X[k.pi[i]]
				if l := ev.PriceLo[i]; below > l && pi-(below-l)*y < l-1e-6*(1+math.Abs(l)) {
					t.Errorf("bus %d: π %v, y %v violate π − (c − l)·y ≥ l (c %v, l %v)", n.BusID[i], pi, y, below, l)
				}
			}
		}
		above := v + 0.05*(v-lo) + 1e-3
		if r, _ := solve(above, rows, false); r.Status != solver.PrimalInfeasible {
			t.Errorf("cutoff %v above the maximum %v (rows %v): %v, want infeasible", above, v, rows, r.Status)
		}
	}
	// The relaxation's smallest Σ_i (π_i − l_i)/(c − l_i): at least 1 with
	// the rows (their sum with Σ y_i = 1), below 1 without.
	weak, _ := solve(below, false, true)
	strong, _ := solve(below, true, true)
	if !(strong.DualBound >= 1-1e-6) || !(weak.DualBound < strong.DualBound-1e-3) {
		t.Errorf("relaxation's smallest weighted price sum at the cutoff: %v with the rows (want ≥ 1), %v without (want smaller)", strong.DualBound, weak.DualBound)
	}
	t.Logf("30_ieee ±10%%, 5 buses: closed maximum %.6g $/MWh; relaxation's smallest Σ (π_i − l_i)/(c − l_i) at cutoff %.6g: %.4g without the rows, %.4g with", v, below, weak.DualBound, strong.DualBound)
}

// TestN1fastStall checks the stall stop on the largest price bounds of the
// final bound's passes on 118_ieee ±10% at post-factor 1.5 (round 9's
// progress lines): from pass 10 on, the first pass whose bound falls by
// less than 0.5% is pass 10 (724.297 to 724.297); with the rule from pass
// 11 on, pass 12 (713.64 to 713.64); never before its first pass, and never
// when off.
func TestN1fastStall(t *testing.T) {
	his := []float64{1000, 937.91, 856.631, 807.889, 779.239, 762.056, 747.972, 734.186, 724.297, 724.297,
		713.64, 713.64, 705.23, 705.23, 705.23, 705.23, 695.214, 695.214, 695.214, 695.214}
	for _, tc := range []struct{ from, want int }{{10, 10}, {11, 12}, {1, 10}, {0, 0}, {21, 0}} {
		s := n1fastStall{from: tc.from}
		got := 0
		for pass, hi := range his {
			if s.stalled(nil, pass, hi) {
				got = pass + 1
				break
			}
		}
		if got != tc.want {
			t.Errorf("from pass %d: stops after pass %d, want %d (0: never)", tc.from, got, tc.want)
		}
	}
}
