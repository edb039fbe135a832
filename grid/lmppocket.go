package grid

import (
	"fmt"
	"io"
	"math"
	"slices"
)

// Pocket price bounds: the prices of a bridge's side follow its head's.
//
// Let e be a bridge, P its side without the reference bus (bridgeSides), h
// its end outside P (the head) and p its end in P. Write C = PriceCap,
// F = PriceFloor (C > F), μ_in and μ_out for the congestion duals of e's
// limits into and out of P; a limit is live when its dual bound is above 0.
// Call P an upper pocket (U) when
//
//  1. every bus of P has a Bbus column equal to the sum of its branches' Bf
//     rows (signed by the end) and every branch with an end in P has the Bf
//     row b·(e_from − e_to) with b > 0 (a weighted graph Laplacian);
//  2. if e's limit into P is live, it can be reached only with curtailment
//     in P: u_in > Σ_P Hi_j − Σ_P ΣPmin − e_P, so the inflow at u_in needs
//     Σ_P κ > 0 (the sum of P's balance rows, e_P = s·Pfinj_e − Σ_P Pbusinj
//     as in bridgeCuts);
//  3. every branch with both ends in P and a live limit is itself a bridge
//     whose side (inside P) is an upper pocket, and also a lower pocket when
//     e's limit into P is live;
//
// and a lower pocket (L) when 1 holds, 2' e's live limit out of P can be
// reached only with shedding in P (u_out > Σ_P ΣPmax − Σ_P Lo_j + e_P, so
// Σ_P σ > 0), and 3' the sides of its live inside branches are lower
// pockets, and also upper ones when e's limit out of P is live.
//
// Claim: at every KKT point of the market LP at every d ∈ D (every point of
// the KKT program), π_j ≤ max(F, π_h) on an upper pocket and
// π_j ≥ min(C, π_h) on a lower pocket.
//
// Proof, by induction on |P|. Let P₁ … P_m be the maximal sides of the
// bridges of 3 (sub-pockets, heads h_i) and K = P minus their buses (the
// core; p ∈ K, and K is connected). The stationarity rows read, at each
// non-reference bus k, Σ_{q ∋ k} b_q(π_k − π_other) + Σ_{q ∋ k} ±b_q ν_q = 0
// with ν_q = μ⁺_q − μ⁻_q (1.). Summed over a bridge's side (no reference
// bus) every inside branch cancels, so for e: π_p = π_h + μ_in − μ_out, and
// for each sub-pocket's bridge its term in its head's row is 0. The core's
// branches have ν = 0 (3.), so π is harmonic on K with positive weights and
// no boundary: π ≡ c on K. The claims hold on each P_i with c for π_h (its
// head is in K). Upper pocket, three cases (μ_in, μ_out not both > 0: the
// two limits differ):
//   - μ_in > 0: the inflow is at u_in, so κ_k > 0 at some k ∈ P (2.), and
//     κ's reduced cost gives π_k ≤ F. If k ∈ K, c ≤ F; if k ∈ P_i (a lower
//     pocket by 3.), min(C, c) ≤ π_k ≤ F < C gives c ≤ F. Then π ≤ c ≤ F on
//     K and π ≤ max(F, c) = F on the P_i.
//   - μ_out > 0: c = π_h − μ_out < π_h, so π ≤ max(F, c) ≤ max(F, π_h).
//   - otherwise c = π_h, and π ≤ max(F, c) on K and the P_i.
//
// Lower pocket, symmetrically: μ_out > 0 puts the outflow at u_out, so
// σ_k > 0 at some k ∈ P and π_k ≥ C; in K that gives c ≥ C, in P_i (an
// upper pocket) C ≤ π_k ≤ max(F, c) gives c ≥ C, so π ≥ C on P; μ_in > 0
// gives c > π_h; otherwise c = π_h.
//
// So PriceHi_j ≤ max(F, PriceHi_h) on upper pockets and PriceLo_j ≥
// min(C, PriceLo_h) on lower ones: pocketBounds imposes them (after the
// price LPs, before each tightening pass but the first, and after the
// tightening). On 300_ieee
// ±10% the side of 37–9001 (35 buses, with the load pockets behind
// 9001–9006 and 9001–9012) is an upper pocket after the tightening: its
// relaxation priced bus 9003 at the cap through a fractional congestion
// dual on 9001–9006 (z = 0.91), which the inflow of 68 MW can carry only
// with curtailment in the pocket (its loads total at most 28.4 MW). (It is
// not a lower pocket: the unit at 9055, 37 MW, can export over 9005–9055
// at its 37 MW limit without shedding.) The bounds are derived from the
// network, the domain and the dual bounds alone; a checkable proof does not
// re-derive them (not used when LMPBoundOptions.Checkable is set).

// pocketBounds lowers PriceHi on every upper pocket and raises PriceLo on
// every lower pocket to its head's bounds (see above), repeating while a
// bound moves (a head may lie in another pocket). It returns the number of
// bus bounds tightened.
func (n *Network) pocketBounds(m *marketLP, ev *LMPEvidence, piLo, piHi []float64, rules MarketRules) int {
	C, F := rules.PriceCap, rules.PriceFloor
	if !(C > F) {
		return 0
	}
	sides := n.bridgeSides(m)
	is := n.pocketKinds(m, ev, sides)
	count := 0
	for changed := true; changed; {
		changed = false
		for l, side := range sides {
			if side == nil {
				continue
			}
			h := m.bfBus[l][0]
			if slices.Contains(side, h) {
				h = m.bfBus[l][1]
			}
			hi, lo := math.Max(F, piHi[h]), math.Min(C, piLo[h])
			for _, j := range side {
				if is(l, true) && hi < piHi[j] {
					piHi[j], changed = hi, true
					count++
				}
				if is(l, false) && lo > piLo[j] {
					piLo[j], changed = lo, true
					count++
				}
			}
		}
	}
	return count
}

// pocketKinds returns a memoized test: is bridge l's side an upper (upper
// true) or a lower pocket.
func (n *Network) pocketKinds(m *marketLP, ev *LMPEvidence, sides [][]int) func(l int, upper bool) bool {
	adj := m.branchesAt()
	state := make([][2]int8, len(sides)) // 0 unknown, 1 yes, −1 no
	var is func(l int, upper bool) bool
	is = func(l int, upper bool) bool {
		k := 0
		if !upper {
			k = 1
		}
		if state[l][k] == 0 {
			state[l][k] = -1 // sub-pockets are strictly smaller: no cycle
			if sides[l] != nil && n.pocketSideWhy(m, ev, sides, adj, l, upper, is) == "" {
				state[l][k] = 1
			}
		}
		return state[l][k] == 1
	}
	return is
}

// pocketSideWhy checks conditions 1–3 (upper) or 1, 2', 3' (lower) of a
// pocket for bridge l's side, with sub asked for the inside bridges; it
// returns the first condition that fails ("" when all hold).
func (n *Network) pocketSideWhy(m *marketLP, ev *LMPEvidence, sides [][]int, adj [][]int, l int, upper bool, sub func(int, bool) bool) string {
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
				return fmt.Sprintf("branch %d–%d: not b·(e_from − e_to) with b > 0", n.BusID[n.From[q]], n.BusID[n.To[q]])
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
				return fmt.Sprintf("bus %d: Bbus column is not the sum of its branches' rows", n.BusID[j])
			}
		}
	}
	// 2 (2'). The bridge's live limit into (out of) the side is reachable
	// only with a backstop in the side.
	liveIn, liveOut := false, false
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
		liveIn, liveOut = muIn > 0, muOut > 0
		if upper && liveIn && !(uIn > relUp(hi-pmin-e)) {
			return fmt.Sprintf("inflow limit %.6g MW within the side's reach %.6g MW", uIn, hi-pmin-e)
		}
		if !upper && liveOut && !(uOut > relUp(pmax-lo+e)) {
			return fmt.Sprintf("outflow limit %.6g MW within the side's reach %.6g MW", uOut, pmax-lo+e)
		}
	}
	// 3 (3'). Inside branches with live duals are bridges to pockets of the
	// same kind, and of the other kind too when that limit of l is live.
	both := (upper && liveIn) || (!upper && liveOut)
	for _, j := range side {
		for _, q := range adj[j] {
			if q == l || m.flow[q] < 0 || (ev.MuUp[q] == 0 && ev.MuLo[q] == 0) {
				continue
			}
			if sides[q] == nil {
				return fmt.Sprintf("branch %d–%d inside has live duals and is not a bridge", n.BusID[n.From[q]], n.BusID[n.To[q]])
			}
			if !sub(q, upper) || (both && !sub(q, !upper)) {
				return fmt.Sprintf("the side of branch %d–%d inside is not a pocket of the kind needed", n.BusID[n.From[q]], n.BusID[n.To[q]])
			}
		}
	}
	return ""
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
// proof, and says so on w. Not in the N-1 route (a program made by
// withFlowgates): the bounds are sound there, but on the cases measured
// they change no N-1 certificate and move the cutoff MIP's path (118_ieee
// ±10% at post-factor 1.5: 59.1–64.3 CPU s with them, 47.8–52.0 without,
// 293.687 $/MWh either way; BENCHMARKS.md "End of round 10").
func (n *Network) pocketStep(m *marketLP, ev *LMPEvidence, piLo, piHi []float64, rules MarketRules, w io.Writer) {
	if ev.rec != nil || n.n1Program {
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
