package grid

import (
	"fmt"
	"slices"
)

// Twin branches. Two limited branches l < l′ with the same flow row in the
// market LP (the same buses and Bf values, hence the same ends), the same
// limits FlowMin, FlowMax and the same Pfinj have identical flow rows: their
// flows are equal at every point, and their congestion duals enter the
// stationarity rows (through Bfᵀμ) and the dual objective (through the
// limits) only as the sums μ⁺_l + μ⁺_l′ and μ⁻_l + μ⁻_l′. So for every KKT
// point (x, π, μ) the point (x, π, μ̃) with μ̃_l = μ_l + μ_l′ and μ̃_l′ = 0 is
// a KKT point too (complementarity: μ_l′ > 0 puts l′, hence l, at its
// limit), with the same prices. The congestion dual bounds (muBounds0, the
// repair-point bounds, the decision rules' and the tightening LPs') each
// hold for every optimal dual, so also for μ̃; a KKT program with μ_l′ fixed
// at 0 therefore has the same largest price. Fixing it (MuUp = MuLo = 0 at
// l′: no complementarity rule, one binary pair less) removes the
// relaxation's freedom to split one congestion between two binaries.
//
// In a checkable proof the pairs are listed (LMPProof.Twins) and the checker
// re-derives each from the network alone (checkTwins: the two flow rows, the
// limits and Pfinj compared exactly, as the producer does) before it fixes
// the later branch's duals, at the same point of the chain as the producer
// (after the congestion dual bounds of muBounds0 and the price box, before
// the decision rules). Only identical rows are merged (proportional rows
// with a factor other than 1 would need a tolerance in the comparison).

// twinPairs returns the pairs [l, l′] (l < l′, branch indices) of limited
// branches whose flow rows, limits and Pfinj are identical, each l′ paired
// with the first such l.
func (n *Network) twinPairs(m *marketLP) [][2]int {
	type key struct {
		f, t       int
		lo, hi, p0 float64
	}
	first := map[key][]int{}
	var pairs [][2]int
	for l := range m.flow {
		if m.flow[l] < 0 {
			continue
		}
		k := key{n.From[l], n.To[l], n.FlowMin[l], n.FlowMax[l], n.Pfinj[l]}
		twin := -1
		for _, e := range first[k] {
			if n.twins(m, e, l) == "" {
				twin = e
				break
			}
		}
		if twin < 0 {
			first[k] = append(first[k], l)
			continue
		}
		pairs = append(pairs, [2]int{twin, l})
	}
	return pairs
}

// twins returns "" when branches l and l2 are twins (see above), else what
// differs.
func (n *Network) twins(m *marketLP, l, l2 int) string {
	switch {
	case m.flow[l] < 0 || m.flow[l2] < 0:
		return "a branch without a flow limit"
	case n.FlowMin[l] != n.FlowMin[l2] || n.FlowMax[l] != n.FlowMax[l2]:
		return fmt.Sprintf("limits [%v, %v] and [%v, %v] differ", n.FlowMin[l], n.FlowMax[l], n.FlowMin[l2], n.FlowMax[l2])
	case n.Pfinj[l] != n.Pfinj[l2]:
		return fmt.Sprintf("Pfinj %v and %v differ", n.Pfinj[l], n.Pfinj[l2])
	case !slices.Equal(m.bfBus[l], m.bfBus[l2]) || !slices.Equal(m.bfVal[l], m.bfVal[l2]):
		return "flow rows are not identical"
	}
	return ""
}

// mergeTwinLimits fixes at 0 the congestion duals of every limited branch
// that has an earlier twin (see above), records the pairs in the proof
// when one is kept, and returns how many limits it fixed.
func (n *Network) mergeTwinLimits(m *marketLP, ev *LMPEvidence) int {
	pairs := n.twinPairs(m)
	if ev.rec != nil {
		ev.rec.p.Twins = pairs
	}
	return fixTwinDuals(ev, pairs)
}

// fixTwinDuals sets MuUp and MuLo of each pair's later branch to 0 and
// returns how many were positive.
func fixTwinDuals(ev *LMPEvidence, pairs [][2]int) int {
	fixed := 0
	for _, p := range pairs {
		for _, mu := range []*float64{&ev.MuUp[p[1]], &ev.MuLo[p[1]]} {
			if *mu > 0 {
				*mu = 0
				fixed++
			}
		}
	}
	return fixed
}

// checkTwins re-derives the twin pairs of a proof from the network (each
// pair l < l′, each l′ once, identical flow rows, limits and Pfinj) and
// fixes the later branches' congestion duals; an error names the branches
// of the first pair that is not a twin pair.
func (c *proofChecker) checkTwins(pairs [][2]int) error {
	n, m := c.n, c.m
	seen := map[int]bool{}
	for q, p := range pairs {
		l, l2 := p[0], p[1]
		if l < 0 || l2 >= len(m.flow) || l >= l2 {
			return fmt.Errorf("%w: twin pair %d: branches %d and %d out of order or range", ErrNotCertified, q, l, l2)
		}
		if why := n.twins(m, l, l2); why != "" {
			return fmt.Errorf("%w: twin pair %d: branches %d (%d–%d) and %d (%d–%d) are not twins: %s", ErrNotCertified, q,
				l, n.BusID[n.From[l]], n.BusID[n.To[l]], l2, n.BusID[n.From[l2]], n.BusID[n.To[l2]], why)
		}
		if seen[l2] {
			return fmt.Errorf("%w: twin pair %d: branch %d merged twice", ErrNotCertified, q, l2)
		}
		seen[l2] = true
	}
	fixTwinDuals(c.ev, pairs)
	return nil
}
