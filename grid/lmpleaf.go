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

// pruneLeaves fixes at 0 the congestion duals of the limits leafSlack or
// bridgeSlack proves slack (recording a "leaf_up"/"leaf_lo" step each) and
// returns their number.
func (n *Network) pruneLeaves(m *marketLP, ev *LMPEvidence) int {
	cnt := 0
	bridge := n.bridgeSlack(m, ev)
	for l := range ev.MuUp {
		for _, up := range []bool{true, false} {
			mu, op := &ev.MuUp[l], "leaf_up"
			if !up {
				mu, op = &ev.MuLo[l], "leaf_lo"
			}
			if *mu > 0 && (bridge[l] || n.leafSlack(m, ev, l, up)) {
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

// Pure-load subnetworks behind a bridge. Let branch l be a bridge (its
// removal disconnects the network) and S the side without the reference
// bus, with no units, no phase shifters (Pfinj = 0 on the branches of S and
// on l, so that Pbusinj on S is a constant withdrawal, e.g. a shunt),
// positive susceptances there (so that DC flows run from higher to lower
// angles: acyclic), and Λ = Σ_{j ∈ S} max(|Lo_j + Pbusinj_j|, |Hi_j + Pbusinj_j|).
// Take any optimal dispatch at any d ∈ D and move every backstop of S to
// the bridge's other end k (the net amount, as shedding or curtailment at
// k): the cost does not rise (the two moved amounts cost the same per MW,
// and shedding and curtailment at one bus cancel at a saving of
// PriceCap − PriceFloor per MW), flows outside S ∪ {l} do not change, and
// S is served from k: its DC flow carries injections −d_j − Pbusinj_j from the bridge,
// an acyclic flow whose sources total at most Λ, so every branch of S ∪ {l}
// carries at most Λ, and a branch of S that is itself a bridge exactly the
// load behind it, at most its own side's Λ. When these bounds are strictly
// below every limit there, and the
// moved backstops fit (σ_k, κ_k plus |S| backstops ≤ (|S| + 1)·max(ShedMax,
// CurtMax) ≤ the capacity), the point is feasible, hence optimal, and all
// these limits are slack at it: their duals are 0 at every optimal dual.

// bridgeSlack returns, per branch, whether both its limits are slack at an
// optimum by the argument above.
func (n *Network) bridgeSlack(m *marketLP, ev *LMPEvidence) []bool {
	nb, nl := n.NumBuses(), n.NumBranches()
	slack := make([]bool, nl)
	adj := m.branchesAt() // branch indices per bus
	hasUnit := make([]bool, nb)
	for _, b := range n.GenBus {
		hasUnit[b] = true
	}
	lam := make([]float64, nl) // Λ of each bridge's side without the reference bus (NaN: not a bridge)
	for l := range lam {
		lam[l] = math.NaN()
	}
	var cands [][]int // per eligible bridge: it and the branches of its side
	for l, side := range n.bridgeSides(m) {
		if side == nil {
			continue
		}
		k := m.bfBus[l][0]
		if k == side[0] {
			k = m.bfBus[l][1]
		}
		in := make(map[int]bool, len(side))
		lambda := 0.0
		ok := n.Pfinj[l] == 0
		for _, j := range side {
			in[j] = true
			ok = ok && !hasUnit[j]
			lambda += math.Max(math.Abs(m.dom.Lo[j]+n.Pbusinj[j]), math.Abs(m.dom.Hi[j]+n.Pbusinj[j]))
		}
		lam[l] = relUp(lambda)
		if !ok || !m.shedAt[k] || !m.curtAt[k] || float64(len(side)+1)*math.Max(ev.ShedMax, ev.CurtMax) > m.capacity {
			continue
		}
		branches := []int{l}
		for _, j := range side {
			for _, q := range adj[j] {
				if q != l && m.bfBus[q][0] == j && (len(m.bfBus[q]) < 2 || in[m.bfBus[q][1]]) {
					branches = append(branches, q)
				}
			}
		}
		cands = append(cands, branches)
	}
	// At l's moved point the flow of a branch q of S ∪ {l} is at most Λ_S,
	// and exactly the load behind q when q is itself a bridge (its side
	// lies in S): at most its own Λ_q. Every limit there must be strictly
	// above that bound (the moved point is then feasible and they are all
	// slack at it).
	for _, branches := range cands {
		ok := true
		lamS := lam[branches[0]]
		for _, q := range branches {
			b := lamS
			if !math.IsNaN(lam[q]) {
				b = math.Min(b, lam[q])
			}
			if n.Pfinj[q] != 0 || !(n.B[q] > 0) || !(b < n.FlowMax[q]) || !(b < -n.FlowMin[q]) {
				ok = false
			}
		}
		if ok {
			for _, q := range branches {
				slack[q] = true
			}
		}
	}
	return slack
}
