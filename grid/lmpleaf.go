package grid

import "math"

// Branch limits that no optimal dual can price: the leaf argument.
//
// Let j be a bus (not the reference bus) with exactly one in-service branch
// l, to bus k, so that its balance row fixes the branch's flow out of j:
//
//	outflow = P_j + σ_j − κ_j − d_j + e_j,
//
// P_j the output of the units at j (in [ΣPmin_j, ΣPmax_j]) and e_j =
// s·Pfinj_l − Pbusinj_j (s = +1 when j is the branch's from end, −1 at its to
// end). Take any optimal dispatch at any d ∈ D.
//
//   - Out of j: move the shedding σ_j to k (σ_j − δ at j, σ_k + δ, the flow
//     out of j falls by δ) until σ_j = 0 or the flow reaches its opposite
//     limit. The cost is unchanged (PriceCap at both buses) and the point is
//     feasible (the flow stays within its limits; σ_k + δ ≤ 2·ShedMax ≤ the
//     backstop capacity): it is optimal. At it the outflow is at most
//     ΣPmax_j − Lo_j + e_j, or at the opposite limit; when that is strictly
//     below the limit u_out, the limit is slack at an optimum.
//   - Into j: the same with the curtailment κ_j (PriceFloor at both buses):
//     the inflow is at most Hi_j − ΣPmin_j − e_j at the moved point.
//
// Complementary slackness holds between every optimal primal and every
// optimal dual of an LP, so a limit slack at one optimum has a zero dual at
// every optimal dual, for every d ∈ D: its congestion dual is fixed at 0
// (MuUp or MuLo) with no LP (on 300_ieee ±10%: 83 of its 822 limits, before
// bound tightening; 8 on 118_ieee). CheckLMPProof re-derives each such step
// ("leaf_up", "leaf_lo")
// from the network, the domain and the proven ShedMax and CurtMax.

// leafSlack reports whether branch l's upper (upper) or lower limit is slack
// at some optimum of the market LP for every d ∈ D by the leaf argument
// above.
func (n *Network) leafSlack(m *marketLP, ev *LMPEvidence, l int, upper bool) bool {
	if m.flow[l] < 0 || len(m.bfBus[l]) != 2 || !(n.FlowMax[l] > n.FlowMin[l]) {
		return false
	}
	isRef := func(j int) bool {
		for _, r := range n.RefBus {
			if r == j {
				return true
			}
		}
		return false
	}
	for end := 0; end < 2; end++ {
		j, k := m.bfBus[l][end], m.bfBus[l][1-end]
		s := 1.0
		if m.bfVal[l][end] < 0 {
			s = -1
		}
		if isRef(j) || !n.leafOf(m, j, l, s) {
			continue
		}
		pmin, pmax := 0.0, 0.0
		for g, b := range n.GenBus {
			if b == j {
				pmin += n.Pmin[g]
			}
		}
		pmax = pmin
		for q, sg := range m.segs {
			if m.segBus[q] == j {
				pmax += sg.Width
			}
		}
		e := s*n.Pfinj[l] - n.Pbusinj[j]
		// The limit out of j is FlowMax when j is the from end.
		out := upper == (s > 0)
		if out {
			uOut := n.FlowMax[l]
			if s < 0 {
				uOut = -n.FlowMin[l]
			}
			if m.shedAt[k] && 2*ev.ShedMax <= m.capacity && relUp(pmax-m.dom.Lo[j]+e) < uOut {
				return true
			}
		} else {
			uIn := -n.FlowMin[l]
			if s < 0 {
				uIn = n.FlowMax[l]
			}
			if m.curtAt[k] && 2*ev.CurtMax <= m.capacity && relUp(m.dom.Hi[j]-pmin-e) < uIn {
				return true
			}
		}
	}
	return false
}

// leafOf reports whether bus j's only in-service branch is l and its column
// of Bbus is s times branch l's row of Bf (so that the balance row at j fixes
// the branch's flow).
func (n *Network) leafOf(m *marketLP, j, l int, s float64) bool {
	for q := range m.bfBus {
		if q == l {
			continue
		}
		for _, b := range m.bfBus[q] {
			if b == j {
				return false
			}
		}
	}
	want := map[int]float64{}
	for t, b := range m.bfBus[l] {
		want[b] = s * m.bfVal[l][t]
	}
	cnt := 0
	for t := n.Bbus.ColPtr[j]; t < n.Bbus.ColPtr[j+1]; t++ {
		v, ok := want[n.Bbus.RowIdx[t]]
		if n.Bbus.Val[t] == 0 {
			continue
		}
		if !ok || math.Abs(n.Bbus.Val[t]-v) > 1e-12*math.Max(1, math.Abs(v)) {
			return false
		}
		cnt++
	}
	return cnt == 2
}

// pruneLeaves fixes at 0 the congestion duals of the limits leafSlack
// proves slack (recording a "leaf_up"/"leaf_lo" step each) and returns their
// number.
func (n *Network) pruneLeaves(m *marketLP, ev *LMPEvidence) int {
	cnt := 0
	for l := range ev.MuUp {
		for _, up := range []bool{true, false} {
			mu, op := &ev.MuUp[l], "leaf_up"
			if !up {
				mu, op = &ev.MuLo[l], "leaf_lo"
			}
			if *mu > 0 && n.leafSlack(m, ev, l, up) {
				*mu = 0
				cnt++
				if ev.rec != nil {
					ev.rec.p.Steps = append(ev.rec.p.Steps, LMPStep{Op: op, K: l})
				}
			}
		}
	}
	return cnt
}
