package grid

import (
	"cmp"
	"os"
	"slices"
	"strconv"
	"testing"
)

// TestLMPPocketAnatomy is a measurement run only on request
// (PRIVOPT_POCKETDIAG=bridge branch index, -1 for every bridge side with
// a bus at the price cap, -2 also every upper pocket; PRIVOPT_LMPDIAG_CASE, PRIVOPT_LMPDIAG_BAND as for
// TestLMPPerBusMIP): after the default bound tightening it prints, per
// bridge side, the price bounds of its buses and of the bridge's head, and
// the congestion dual bounds of the bridge and of the side's branches.
func TestLMPPocketAnatomy(t *testing.T) {
	sel, err := strconv.Atoi(os.Getenv("PRIVOPT_POCKETDIAG"))
	if err != nil {
		t.Skip("a measurement: set PRIVOPT_POCKETDIAG to a bridge's branch index (-1: every side with a capped bus)")
	}
	n, dom, rules, ev := diagEvidence(t)
	m, err := n.newMarketLP(newLPBuilder(), dom, rules)
	if err != nil {
		t.Fatal(err)
	}
	top := slices.Clone(m.vars)
	slices.SortFunc(top, func(a, b int) int { return cmp.Compare(ev.PriceHi[b], ev.PriceHi[a]) })
	for _, j := range top[:min(8, len(top))] {
		t.Logf("bound %.6g at bus %d", ev.PriceHi[j], n.BusID[j])
	}
	sides, adj := n.bridgeSides(m), m.branchesAt()
	is := n.pocketKinds(m, ev, sides)
	for l, side := range sides {
		if side == nil || (sel >= 0 && l != sel) {
			continue
		}
		for _, upper := range []bool{true, false} {
			if why := n.pocketSideWhy(m, ev, sides, adj, l, upper, is); why != "" {
				t.Logf("bridge %d (%d–%d), side of %d buses: not an upper (%v) pocket: %s", l, n.BusID[n.From[l]], n.BusID[n.To[l]], len(side), upper, why)
			}
		}
		capped := false
		for _, j := range side {
			capped = capped || ev.PriceHi[j] >= rules.PriceCap || (sel == -2 && is(l, true))
		}
		if sel < 0 && !capped {
			continue
		}
		in := map[int]bool{}
		for _, j := range side {
			in[j] = true
		}
		head := n.From[l]
		if in[head] {
			head = n.To[l]
		}
		t.Logf("bridge %d (%d–%d) limits [%.4g, %.4g], μ⁺ ≤ %.4g μ⁻ ≤ %.4g; head %d price [%.4g, %.4g]; side of %d buses",
			l, n.BusID[n.From[l]], n.BusID[n.To[l]], n.FlowMin[l], n.FlowMax[l], ev.MuUp[l], ev.MuLo[l], n.BusID[head], ev.PriceLo[head], ev.PriceHi[head], len(side))
		var dlo, dhi float64
		for _, j := range side {
			dlo, dhi = dlo+dom.Lo[j], dhi+dom.Hi[j]
			t.Logf("  bus %d: load [%.4g, %.4g] price [%.4g, %.4g]", n.BusID[j], dom.Lo[j], dom.Hi[j], ev.PriceLo[j], ev.PriceHi[j])
		}
		for q := range m.bfBus {
			if len(m.bfBus[q]) == 2 && in[m.bfBus[q][0]] && in[m.bfBus[q][1]] && (ev.MuUp[q] > 0 || ev.MuLo[q] > 0) {
				t.Logf("  inside %d (%d–%d): μ⁺ ≤ %.4g μ⁻ ≤ %.4g limits [%.4g, %.4g]", q, n.BusID[n.From[q]], n.BusID[n.To[q]], ev.MuUp[q], ev.MuLo[q], n.FlowMin[q], n.FlowMax[q])
			}
		}
		for g, gb := range n.GenBus {
			if in[gb] {
				t.Logf("  generator %d at %d: [%.4g, %.4g]", g, n.BusID[gb], n.Pmin[g], n.Pmax[g])
			}
		}
		t.Logf("  side load [%.4g, %.4g]", dlo, dhi)
	}
}
