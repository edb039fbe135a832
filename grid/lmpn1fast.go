package grid

import (
	"io"
	"math"
)

// CPU margin of the N-1 price bound's final program (CertifyN1LMPBound with
// a target): a stall stop of its bound tightening and stronger cutoff rows
// in its MIP.
//
// Stall stop. The final bound runs up to n1FinalPasses tightening passes.
// From pass n1fastStallFrom on, it stops after the first pass that lowers
// the largest price bound over the varying buses (the number each progress
// line reports) by less than n1fastStallTol relatively: the passes then
// only shrink congestion-dual bounds, and the cutoff MIP decides the rest.
// Sound: every bound found so far holds at every KKT point on its own, and
// stopping only leaves the relaxation looser. Deterministic: it depends on
// the LPs' optima only; the evidence records the passes run
// (LMPEvidence.TighteningPasses), and verification runs exactly that many
// (it needs no rule).
//
// The number of LP iterations after which the cutoff MIP is proven
// infeasible moves chaotically with the tightening before it (on 118_ieee
// ±10% at post-factor 1.5, measured in "N-1 CPU margin, round 10" of
// BENCHMARKS.md), so the stop is a bet on the MIP, not a monotone saving;
// the measurements there say where it pays.

// n1fastStallFrom is the first pass (1-based) after which the stall stop
// of the N-1 bound's final program may stop the tightening: half of
// n1FinalPasses, so that the early passes, whose price bounds may sit at
// the cap while the flow and dual bounds fall, always run.
const n1fastStallFrom = n1FinalPasses / 2

// n1fastStallTol is the relative fall of the largest price bound below
// which a pass counts as stalled.
const n1fastStallTol = 0.005

// n1fastStall is the state of the stall stop of one tightening (zero: off).
type n1fastStall struct {
	from int     // first 1-based pass that may stop; 0: off
	prev float64 // the previous pass's largest price bound
}

// stalled reports whether the tightening stops after pass (0-based) pass
// whose largest price bound is hi, and says so on w.
func (s *n1fastStall) stalled(w io.Writer, pass int, hi float64) bool {
	prev := s.prev
	s.prev = hi
	if s.from <= 0 || pass+1 < s.from || pass == 0 || !(hi > prev*(1-n1fastStallTol)) {
		return false
	}
	progress(w, "lmp-bound: tightening pass %d lowered the largest price bound by less than %g%% (%.6g to %.6g $/MWh): stop", pass+1, 100*n1fastStallTol, prev, hi)
	return true
}

// n1fastCutoffRows adds to the KKT MIP k over the buses sel, whose
// cutoff row t ≥ c (LMPBoundOptions.MIPCutoff) is already in, one row per
// selected bus i:
//
//	sign·π_i − (c − l_i)·y_i ≥ l_i,
//
// l_i the lower bound of sign·π_i (sign·PriceLo, or −PriceHi for sign < 0)
// and y_i its selection binary. Valid at every point of the MIP: with
// y_i = 1 the selection row gives sign·π_i ≥ t ≥ c; with y_i = 0 the row
// is the bound sign·π_i ≥ l_i. It cuts off fractional points only: in the
// linear relaxation the selection rows t ≤ sign·π_i + (U − l_i)(1 − y_i)
// let y_i = 1/|sel| satisfy the cutoff whatever the prices, while the new
// rows, summed with Σ y_i = 1, require Σ_i (sign·π_i − l_i)/(c − l_i) ≥ 1.
// So the MIP's feasible set, hence its proven bound and an infeasibility
// proof, are unchanged; only the relaxation at each node is tighter. Buses
// with c ≤ l_i need no row (sign·π_i ≥ c holds there). Without selection
// binaries (one bus) t ≤ sign·π_i already carries the cutoff.
func n1fastCutoffRows(k *kktModel, piLo, piHi []float64, sign, c float64, sel []int) {
	if len(k.ys) != len(sel) {
		return
	}
	for q, i := range sel {
		li := sign * piLo[i]
		if sign < 0 {
			li = -piHi[i]
		}
		if math.IsInf(li, 0) || c <= li {
			continue
		}
		k.b.row(li, math.Inf(1), []int{k.pi[i], k.ys[q]}, []float64{sign, -(c - li)})
	}
}
