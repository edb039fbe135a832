package grid

import (
	"context"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// TestLMPRelaxationAnatomy is a measurement run only on request
// (PRIVOPT_RELAXDIAG=bus ID; PRIVOPT_LMPDIAG_CASE, PRIVOPT_LMPDIAG_BAND as
// for TestLMPPerBusMIP): after the default bound tightening it maximizes
// the bus's price over the linear relaxation of its KKT program (own load
// at its upper end) and prints what the maximizer uses: fractional
// shedding and congestion binaries, the congestion duals with their
// PTDF-weighted share of the price, and the slack of the strong-duality row.
func TestLMPRelaxationAnatomy(t *testing.T) {
	id, err := strconv.Atoi(os.Getenv("PRIVOPT_RELAXDIAG"))
	if err != nil {
		t.Skip("a measurement: set PRIVOPT_RELAXDIAG to a bus ID")
	}
	n, dom, rules, ev := diagEvidence(t)
	logRelaxation(t, n, dom, rules, ev, n.BusIndex[id])
}

// logRelaxation maximizes bus i's price over the linear relaxation of its
// KKT program with the bounds of ev (own load at its upper end) and logs
// what the maximizer uses (see TestLMPRelaxationAnatomy).
func logRelaxation(t *testing.T, n *Network, dom LoadDomain, rules MarketRules, ev *LMPEvidence, i int) {
	t.Helper()
	id := n.BusID[i]
	k, err := n.buildKKT(dom, rules, ev, ev.PriceLo, ev.PriceHi, 1, nil, []int{i})
	if err != nil {
		t.Fatal(err)
	}
	fixOwnLoads(k, dom, 1)
	k.b.integer = nil
	lp := maximizer(t, k.b)
	defer lp.Close()
	r, err := lp.Solve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("bus %d: tightened bound %.6g, relaxation max π %.6g (%v)", id, ev.PriceHi[i], r.Objective, r.Status)
	t.Log(relaxAnatomy(n, k, ev, i, r.X))
}

// relaxAnatomy lists what the relaxation point x of k uses to price bus i:
// fractional shedding binaries and the congestion duals with their
// PTDF-weighted share of the price (the 15 largest).
func relaxAnatomy(n *Network, k *kktModel, ev *LMPEvidence, i int, x []float64) string {
	var lines []string
	for j := range k.shedE {
		if e := k.shedE[j]; e >= 0 && (x[e] > 1e-3 || x[k.m.sigma[j]] > 1e-3) {
			lines = append(lines, fmt.Sprintf("shed bus %d: e %.3g σ %.4g MW π %.4g", n.BusID[j], x[e], x[k.m.sigma[j]], x[k.pi[j]]))
		}
	}
	ptdf := n.PTDFColumns([]int{i})[0]
	type mu struct {
		l          int
		v, z, p, f float64
		up         bool
	}
	var mus []mu
	for l := range k.muUp {
		for _, up := range []bool{true, false} {
			col, z := k.muUp[l], k.zUp[l]
			if !up {
				col, z = k.muLo[l], k.zLo[l]
			}
			if col < 0 || x[col] < 1e-6 {
				continue
			}
			zv := 0.0
			if z >= 0 {
				zv = x[z]
			}
			f := n.Pfinj[l]
			for q, j := range k.m.bfBus[l] {
				f += k.m.bfVal[l][q] * x[k.m.theta[j]]
			}
			mus = append(mus, mu{l, x[col], zv, ptdf[l], f, up})
		}
	}
	sort.Slice(mus, func(a, b int) bool { return math.Abs(mus[a].v*mus[a].p) > math.Abs(mus[b].v*mus[b].p) })
	for q, m := range mus {
		if q >= 15 {
			break
		}
		lim := n.FlowMax[m.l]
		if !m.up {
			lim = n.FlowMin[m.l]
		}
		lines = append(lines, fmt.Sprintf("branch %d (%d–%d) %s: μ %.4g (bound %.4g) z %.3g PTDF %.3g share %.4g, flow %.4g limit %.4g", m.l, n.BusID[n.From[m.l]], n.BusID[n.To[m.l]],
			map[bool]string{true: "up", false: "lo"}[m.up], m.v, map[bool]float64{true: ev.MuUp[m.l], false: ev.MuLo[m.l]}[m.up], m.z, m.p, m.v*m.p, m.f, lim))
	}
	return fmt.Sprintf("%d congestion duals > 0\n%s", len(mus), strings.Join(lines, "\n"))
}
