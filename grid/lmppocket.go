package grid

import (
	"io"
	"math"
	"slices"
)

// Pocket price bounds: the prices of a bridge's side follow its head's.
//
// Let e be a bridge, P its side without the reference bus (bridgeSides), h
// its end outside P (the head) and p its end in P. Write C = PriceCap,
// F = PriceFloor (C > F). Call P a price pocket when
//
//  1. every bus of P has a Bbus column equal to the sum of its branches' Bf
//     rows (signed by the end) and every branch with an end in P has the Bf
//     row b·(e_from − e_to) with b > 0 (a weighted graph Laplacian);
//  2. each limit of e either has a congestion dual bound of 0 or can be
//     reached only with a backstop in P: into P, u_in > Σ_P Hi_j − Σ_P ΣPmin
//     − e_P, so the inflow at u_in needs Σ_P κ > 0; out of P, u_out > Σ_P
//     ΣPmax − Σ_P Lo_j + e_P, so the outflow at u_out needs Σ_P σ > 0 (the
//     sums of P's balance rows, e_P = s·Pfinj_e − Σ_P Pbusinj as in
//     bridgeCuts);
//  3. every branch with both ends in P whose congestion duals are not both
//     bounded by 0 is itself a bridge whose side (inside P) is a price pocket.
//
// Claim: at every KKT point of the market LP at every d ∈ D (every point of
// the KKT program), min(C, π_h) ≤ π_j ≤ max(F, π_h) for every j ∈ P.
//
// Proof, by induction on |P|. Let P₁ … P_m be the maximal sides of the
// bridges of 3 (sub-pockets, heads h_i) and K = P minus their buses (the
// core; p ∈ K, and K is connected). The stationarity rows read, at each
// non-reference bus k, Σ_{q ∋ k} b_q(π_k − π_other) + Σ_{q ∋ k} ±b_q ν_q = 0
// with ν_q = μ⁺_q − μ⁻_q (1.). Summed over a bridge's side (no reference
// bus) every inside branch cancels, so for e: π_p = π_h + μ_in − μ_out
// (μ_in, μ_out the duals of e's limits into and out of P), and for each
// sub-pocket's bridge its term in its head's row is 0. The core's branches
// have ν = 0 (3.), so π is harmonic on K with positive weights and no
// boundary: π ≡ c on K. By induction, min(C, c) ≤ π_j ≤ max(F, c) on each
// P_i (its head is in K). Now three cases.
//   - μ_in > 0: the inflow is at u_in, so κ_k > 0 at some k ∈ P (2.), and
//     κ's reduced cost gives π_k ≤ F. If k ∈ K, c ≤ F; if k ∈ P_i,
//     min(C, c) ≤ π_k ≤ F < C gives c ≤ F. Then π ≤ max(F, c) = F on P, and
//     π ≥ min(C, c) ≥ min(C, π_h) since c = π_h + μ_in > π_h.
//   - μ_out > 0: the outflow is at u_out, so σ_k > 0 at some k ∈ P and
//     π_k ≥ C; in K that gives c ≥ C, in P_i C ≤ π_k ≤ max(F, c) gives
//     c ≥ C. Then π ≥ min(C, c) = C on P, and π ≤ max(F, c) ≤ max(F, π_h)
//     since c = π_h − μ_out < π_h.
//   - otherwise c = π_h, and the bounds on K and the P_i are the claim.
//
// (Both duals of e cannot be positive: the two limits differ.) So
// PriceHi_j ≤ max(F, PriceHi_h) and PriceLo_j ≥ min(C, PriceLo_h) hold for
// every j ∈ P: pocketBounds imposes them. On 300_ieee ±10% the side of
// 37–9001 (35 buses, with the load pockets behind 9001–9006 and 9001–9012)
// is a price pocket: its relaxation priced bus 9003 at the cap through a
// fractional congestion dual on 9001–9006 (z = 0.91), which the inflow of
// 68 MW can carry only with curtailment in the pocket (its loads total at
// most 28.4 MW). The bounds are derived from the network, the domain and
// the dual bounds alone; a checkable proof does not re-derive them (not
// used when LMPBoundOptions.Checkable is set).

// pocketBounds lowers PriceHi and raises PriceLo on every price pocket to
// its head's bounds (see above), repeating while a bound moves (a head may
// lie in another pocket). It returns the number of bus bounds tightened.
func (n *Network) pocketBounds(m *marketLP, ev *LMPEvidence, piLo, piHi []float64, rules MarketRules) int {
	C, F := rules.PriceCap, rules.PriceFloor
	if !(C > F) {
		return 0
	}
	sides := n.bridgeSides(m)
	adj := m.branchesAt()
	state := make([]int8, len(sides)) // 0 unknown, 1 pocket, −1 not
	var isPocket func(l int) bool
	isPocket = func(l int) bool {
		if state[l] == 0 {
			state[l] = -1
			if n.pocketSideOK(m, ev, sides, adj, l, isPocket) {
				state[l] = 1
			}
		}
		return state[l] == 1
	}
	count := 0
	for changed := true; changed; {
		changed = false
		for l, side := range sides {
			if side == nil || !isPocket(l) {
				continue
			}
			h := m.bfBus[l][0]
			if slices.Contains(side, h) {
				h = m.bfBus[l][1]
			}
			hi, lo := math.Max(F, piHi[h]), math.Min(C, piLo[h])
			for _, j := range side {
				if hi < piHi[j] {
					piHi[j], changed = hi, true
					count++
				}
				if lo > piLo[j] {
					piLo[j], changed = lo, true
					count++
				}
			}
		}
	}
	return count
}

// pocketSideOK checks conditions 1–3 of a price pocket for bridge l's side,
// with sub asked for the bridges of condition 3.
func (n *Network) pocketSideOK(m *marketLP, ev *LMPEvidence, sides [][]int, adj [][]int, l int, sub func(int) bool) bool {
	side := sides[l]
	in := make(map[int]bool, len(side))
	for _, j := range side {
		in[j] = true
	}
	// 1. Laplacian structure with positive weights.
	acc := map[int]float64{}
	for _, j := range side {
		clear(acc)
		var scale float64
		for _, q := range adj[j] {
			if !n.pocketPositive(m, q) {
				return false
			}
			sg := 1.0
			if n.From[q] != j {
				sg = -1
			}
			acc[m.bfBus[q][0]] -= sg * m.bfVal[q][0]
			acc[m.bfBus[q][1]] -= sg * m.bfVal[q][1]
		}
		for t := n.Bbus.ColPtr[j]; t < n.Bbus.ColPtr[j+1]; t++ {
			acc[n.Bbus.RowIdx[t]] += n.Bbus.Val[t]
			scale = math.Max(scale, math.Abs(n.Bbus.Val[t]))
		}
		for _, v := range acc {
			if math.Abs(v) > 1e-9*math.Max(1, scale) {
				return false
			}
		}
	}
	// 2. The bridge's limits: dual bound 0, or reachable only with a
	// backstop in the side.
	if m.flow[l] >= 0 {
		pmin, pmax, lo, hi, pbus := n.pocketSideSums(m, side, in)
		s := 1.0 // side holds l's from end: outflow = flow
		if !in[m.bfBus[l][0]] {
			s = -1
		}
		e := s*n.Pfinj[l] - pbus
		uOut, uIn, muOut, muIn := n.FlowMax[l], -n.FlowMin[l], ev.MuUp[l], ev.MuLo[l]
		if s < 0 {
			uOut, uIn, muOut, muIn = -n.FlowMin[l], n.FlowMax[l], ev.MuLo[l], ev.MuUp[l]
		}
		if muIn > 0 && !(uIn > relUp(hi-pmin-e)) {
			return false
		}
		if muOut > 0 && !(uOut > relUp(pmax-lo+e)) {
			return false
		}
	}
	// 3. Inside branches with live duals are bridges to pockets.
	for _, j := range side {
		for _, q := range adj[j] {
			if q == l || m.flow[q] < 0 || (ev.MuUp[q] == 0 && ev.MuLo[q] == 0) {
				continue
			}
			if sides[q] == nil || !sub(q) {
				return false
			}
		}
	}
	return true
}

// pocketPositive reports whether branch q's flow row is b·(e_from − e_to)
// with b > 0 over two buses.
func (n *Network) pocketPositive(m *marketLP, q int) bool {
	if len(m.bfBus[q]) != 2 {
		return false
	}
	v0, v1 := m.bfVal[q][0], m.bfVal[q][1]
	if m.bfBus[q][0] != n.From[q] {
		v0, v1 = v1, v0
	}
	return v0 > 0 && math.Abs(v0+v1) <= 1e-12*v0
}

// pocketStep applies pocketBounds when the evidence records no checkable
// proof, and says so on w.
func (n *Network) pocketStep(m *marketLP, ev *LMPEvidence, piLo, piHi []float64, rules MarketRules, w io.Writer) {
	if ev.rec != nil {
		return
	}
	if c := n.pocketBounds(m, ev, piLo, piHi, rules); c > 0 {
		ev.PocketBounds += c
		var capped []int
		for _, j := range m.vars {
			if piHi[j] >= rules.PriceCap {
				capped = append(capped, n.BusID[j])
			}
		}
		progress(w, "lmp-bound: price pockets: %d price bounds set to their bridge heads' (not in a checkable proof); varying buses at the cap: %d %v", c, len(capped), capped)
	}
}

// pocketSideSums returns, over the buses of side (in marks them), the
// units' Σ Pmin and Σ Pmax (Pmin plus the segments' widths), the loads'
// Σ Lo and Σ Hi over the domain, and Σ Pbusinj: the terms of the side's
// summed balance rows (bridgeCuts, pocketSideOK).
func (n *Network) pocketSideSums(m *marketLP, side []int, in map[int]bool) (pmin, pmax, lo, hi, pbus float64) {
	for _, j := range side {
		lo, hi, pbus = lo+m.dom.Lo[j], hi+m.dom.Hi[j], pbus+n.Pbusinj[j]
	}
	for g, gb := range n.GenBus {
		if in[gb] {
			pmin += n.Pmin[g]
		}
	}
	pmax = pmin
	for q, sg := range m.segs {
		if in[m.segBus[q]] {
			pmax += sg.Width
		}
	}
	return pmin, pmax, lo, hi, pbus
}
