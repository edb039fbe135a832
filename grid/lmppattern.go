package grid

import (
	"context"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/highs"
)

// Congestion-pattern parts of one bus's KKT program.
//
// The KKT points of the market LP over the domain D with max π_i as the goal
// split by the complementarity pattern of one limited branch l: "up" (its
// upper-limit binary z⁺_l = 1, so the flow is at FlowMax_l; z⁻_l = 0),
// "lo" (z⁻_l = 1, flow at FlowMin_l; z⁺_l = 0) and "free" (z⁺_l = z⁻_l =
// 0, so μ⁺_l = μ⁻_l = 0). Every KKT point admits binaries in one of the three
// (a point with μ⁺_l = μ⁻_l = 0 fits "free"; one with μ⁺_l > 0 has its flow
// at FlowMax_l and fits "up"; the same for "lo"; a limit pair with
// FlowMin_l < FlowMax_l cannot have both duals positive), so
//
//	max π_i = max over the parts of max π_i on the part,
//
// and a bound on each part's maximum, the largest taken, bounds π_i. (The
// binaries of a point with μ⁺_l = μ⁻_l = 0 may be set to 0 at l: the rows
// holding them are μ ≤ M·z, the big-M flow rows (relaxed at z = 0), the
// bridge cuts z_in ≤ Σ e (relaxed as z_in falls) and the pocket rows, whose
// proof needs only that z_q = 0 forces μ_q = 0 inside the pocket and that
// z_in = 1 forces the bridge's flow to its limit, so they hold for every
// such assignment. Likewise μ⁺_l > 0 forces z⁺_l = 1.) A part
// whose binary is absent (the dual is fixed at 0 by earlier bounds) is
// empty apart from "free". Within a part, every bound the tightening
// derives (flow ranges, dual and price bounds) holds on that part only,
// which is why a part's program is tightened on its own copy of the
// evidence. The bus's own load is fixed at its upper end in every part:
// by own-load monotonicity (fixOwnLoads) the largest price at bus i over D
// is reached with d_i = Hi_i, so the restriction keeps max π_i.

// kktPart restricts a KKT program to one congestion-pattern part: the load
// of bus own (internal index; −1: none) fixed at ownLoad, and the binaries
// of branch l fixed by side (+1: z⁺ = 1, z⁻ = 0; −1: z⁻ = 1, z⁺ = 0; 0:
// both 0).
type kktPart struct {
	own     int
	ownLoad float64
	l       int
	side    int
	// branchFirst keeps l's binaries free (only the own load is fixed):
	// the checkable split's trees branch on them first instead
	// (lmppatternproof.go, kktTrees).
	branchFirst bool
}

// apply fixes the part's columns in k (nothing when p is nil). It reports
// false when the part asks for a binary k does not have (that part is
// empty: the dual is fixed at 0).
func (p *kktPart) apply(k *kktModel) bool {
	if p == nil {
		return true
	}
	if p.own >= 0 && k.m.d[p.own] >= 0 {
		k.b.lo[k.m.d[p.own]], k.b.hi[k.m.d[p.own]] = p.ownLoad, p.ownLoad
	}
	if p.branchFirst {
		return true
	}
	fix := func(z int, v float64) bool {
		if z < 0 {
			return v == 0
		}
		k.b.lo[z], k.b.hi[z] = v, v
		return true
	}
	zu, zl := k.zUp[p.l], k.zLo[p.l]
	switch p.side {
	case 1:
		return fix(zu, 1) && fix(zl, 0)
	case -1:
		return fix(zl, 1) && fix(zu, 0)
	}
	return fix(zu, 0) && fix(zl, 0)
}

// partEvidence is a copy of ev whose bounds a part's tightening may lower
// without touching ev's.
func partEvidence(ev *LMPEvidence, part *kktPart) *LMPEvidence {
	c := *ev
	c.MuUp, c.MuLo = append([]float64(nil), ev.MuUp...), append([]float64(nil), ev.MuLo...)
	c.FlowLo, c.FlowHi = append([]float64(nil), ev.FlowLo...), append([]float64(nil), ev.FlowHi...)
	c.rec, c.Candidates, c.part = nil, nil, part
	return &c
}

// patternPartBound bounds max π_i (bus i, internal index) by the parts of
// branch l's congestion pattern: each non-empty part is tightened on its
// own (tightenKKT with passes passes and the given work, need as for the
// whole program) and its bound is its tightened price bound at i; a part
// whose relaxation is infeasible is empty. It returns the largest part
// bound (never above piHi[i]) and the work used; the parts' tightening
// LPs' price maximizers (load parts) are appended to ev.Candidates. With mipIters > 0, a part
// whose tightened bound stays above cutoff then gets its KKT MIP with the
// row π_i ≥ cutoff (at most mipIters simplex iterations): infeasible proves
// the part's bound cutoff, else its proven dual bound (at least cutoff)
// counts; safety (0: none) is a wall-clock net for the MIP, whose stop
// makes ev not Reproducible (ev.splitStopped). The options partMIPDefaults
// apply (partBound): a part whose relaxation bound is already at most a
// cutoff above 0 keeps that bound untightened (skipBelow); a part MIP whose
// part's relaxation reaches piHi[i] gets the price cap as the bus's own
// bound (looseOwn); the restriction to π_i ≥ cutoff before the tightening
// (restrict, partRestrict) is off.
// The bound holds at every KKT point over the domain (see above);
// it is not part of a checkable proof.
func (n *Network) patternPartBound(ctx context.Context, dom LoadDomain, rules MarketRules, hopt highs.Options, ev *LMPEvidence,
	piLo, piHi []float64, need []bool, m *marketLP, i, l, passes int, work, cutoff float64, mipIters int64, safety time.Duration, w io.Writer) (float64, float64, error) {
	bound := math.Inf(-1)
	used := 0.0
	for _, side := range []int{1, -1, 0} {
		part := &kktPart{own: i, ownLoad: dom.Hi[i], l: l, side: side}
		b, u, err := n.partBound(ctx, dom, rules, hopt, ev, piLo, piHi, need, m, part, passes, work, cutoff, mipIters, safety, partMIPDefaults, w)
		used += u
		if err != nil {
			return 0, used, err
		}
		bound = math.Max(bound, b)
		if bound >= piHi[i] {
			return piHi[i], used, nil
		}
	}
	return math.Min(bound, piHi[i]), used, nil
}

// partMIPOptions select the strengthenings of a part's program
// (partBound).
type partMIPOptions struct {
	// restrict restricts the part to π_own ≥ cutoff before its tightening
	// (partRestrict; with mipIters > 0 and a cutoff above 0 only). Off in
	// the split: measured on 300_ieee ±10%, it changes the part MIPs'
	// search paths without proving more (bus 121's "up" part at the cutoff
	// 170: 70,333 LP iterations to infeasibility against 41,558 without).
	restrict bool
	// skipBelow skips the part's tightening and MIP when its relaxation
	// bound is already at most the cutoff (above 0): the bound is then the
	// relaxation's. On 300_ieee ±10% at a split budget of 1.2·10¹⁰ work
	// units it saves a quarter of the split's work for the same certified
	// value (BENCHMARKS.md, "Part MIPs on 300 buses, round 14").
	skipBelow bool
	// looseOwn gives the part MIP the price cap as the bus's own price
	// bound (when above it) when the part's relaxation reaches the bus's
	// bound piHi[i], as after an earlier split brought that bound to a
	// cutoff. Any value above a valid bound is valid (the MIP's program
	// then holds every KKT point of the part). With the bound active, the
	// MIP's LP bound is that bound at every node and its branching loses
	// the bound's degradation as a guide; measured on 300_ieee ±10%, bus
	// 121's "up" part at the bound 356.861 and the cutoff 217.707: infeasible
	// in 75,070 LP iterations (196 nodes) with the bound, 24,567 (29
	// nodes) with the cap 1000 (BENCHMARKS.md, "Part MIPs on 300 buses,
	// round 14").
	looseOwn bool
	// mipLog, when not nil, receives HiGHS's log of the part MIP;
	// inspect, when not nil, sees the part's evidence and price bounds
	// after its tightening (measurements).
	mipLog  io.Writer
	inspect func(pev *LMPEvidence, plo, phi []float64)
}

// partMIPDefaults are the options of the pattern split's parts.
var partMIPDefaults = partMIPOptions{skipBelow: true, looseOwn: true}

// partRestrict restricts a part's price bounds to the KKT points with
// π_own ≥ cutoff: the lower price bound of bus own is raised to cutoff (a
// column bound the price rules, the McCormick envelopes of π_own·d_own and
// every tightening LP then use). For the part's maximum M of π_own this is
// sound as a proof of max(cutoff, ·): every KKT point of the part either
// has π_own < cutoff or lies in the restricted program, so
//
//	M ≤ max(cutoff, max π_own over the restricted program),
//
// and every bound the restricted program's tightening derives (flows,
// congestion duals, prices: LP bounds over its relaxation) holds at each
// of its KKT points, so it may enter the big-Ms of its MIP. A restricted
// program with no point (an infeasible relaxation or MIP) proves M ≤
// cutoff. (Optimization-based bound tightening over the points that beat
// an objective cutoff, as in Gleixner et al., "Three enhancements for
// optimization-based bound tightening", J. Glob. Optim. 67, 2017.)
func partRestrict(plo []float64, own int, cutoff float64) {
	plo[own] = math.Max(plo[own], cutoff)
}

// partBound bounds max π_own over one congestion-pattern part (see
// patternPartBound): its relaxation, its tightening on its own copy of the
// evidence and, with mipIters > 0 and a bound above cutoff, its KKT MIP
// with the row π_own ≥ cutoff. With o.restrict (and cutoff > 0) the part
// is restricted first (partRestrict) and the bound returned is at least
// cutoff. It returns the part's bound (−Inf: the part is empty) and the
// work used.
func (n *Network) partBound(ctx context.Context, dom LoadDomain, rules MarketRules, hopt highs.Options, ev *LMPEvidence,
	piLo, piHi []float64, need []bool, m *marketLP, part *kktPart, passes int, work, cutoff float64, mipIters int64, safety time.Duration,
	o partMIPOptions, w io.Writer) (float64, float64, error) {
	i, l, side := part.own, part.l, part.side
	used := 0.0
	// empty is the bound of a part with no point: −Inf, or the cutoff when
	// the part is restricted to π_i ≥ cutoff.
	empty := math.Inf(-1)
	plo, phi := append([]float64(nil), piLo...), append([]float64(nil), piHi...)
	if o.restrict && cutoff > 0 && mipIters > 0 {
		empty = cutoff
		if cutoff >= phi[i] {
			return phi[i], used, nil // nothing above the cutoff to prove
		}
		partRestrict(plo, i, cutoff)
		if plo[i] > phi[i] {
			return empty, used, nil // no point above the restriction
		}
	}
	pev := partEvidence(ev, part)
	k, err := n.buildKKT(dom, rules, pev, plo, phi, 1, nil, []int{i})
	if err != nil {
		return 0, used, err
	}
	if !part.apply(k) {
		return math.Inf(-1), used, nil // no binary: the part is empty
	}
	k.b.integer = nil
	lp, err := buildMax(k.b, hopt)
	if err != nil {
		return 0, used, err
	}
	r, err := lp.Solve(ctx)
	lp.Close()
	if err != nil {
		return 0, used, err
	}
	used += float64(r.Iterations) * float64(len(k.b.cost)+len(k.b.rlo))
	if r.Status == solver.PrimalInfeasible {
		progress(w, "lmp-bound: bus %d, branch %d–%d part %+d: relaxation infeasible (empty part%s)", n.BusID[i], n.BusID[n.From[l]], n.BusID[n.To[l]], side, restricted(empty))
		return empty, used, nil
	}
	if r.Status == solver.Optimal {
		phi[i] = math.Min(phi[i], r.Objective+1e-6*(1+math.Abs(r.Objective)))
	} // else (a numerical failure) the part starts from the bus's bound
	if o.skipBelow && cutoff > 0 && phi[i] <= cutoff {
		// The relaxation already bounds the part by at most the cutoff,
		// which every bus outside the split set keeps: a tighter bound
		// would not lower the certified maximum.
		progress(w, "lmp-bound: bus %d, branch %d–%d part %+d: relaxation %v %.6g, at most the cutoff %.6g (not tightened)", n.BusID[i], n.BusID[n.From[l]], n.BusID[n.To[l]], side, r.Status, r.Objective, cutoff)
		return math.Max(empty, phi[i]), used, nil
	}
	pev.workLeft = work
	if err := n.tightenKKT(ctx, dom, rules, hopt, pev, plo, phi, nil, need, m, passes, work, nil); err != nil {
		return 0, used, err
	}
	used += work - pev.workLeft
	// The part's price maximizers: starts for an adversarial search.
	ev.Candidates = append(ev.Candidates, pev.Candidates...)
	progress(w, "lmp-bound: bus %d, branch %d–%d part %+d: relaxation %v %.6g, tightened %.6g", n.BusID[i], n.BusID[n.From[l]], n.BusID[n.To[l]], side, r.Status, r.Objective, phi[i])
	if o.inspect != nil {
		o.inspect(pev, plo, phi)
	}
	if mipIters > 0 && phi[i] > cutoff {
		mhi := phi
		if o.looseOwn && r.Status == solver.Optimal && r.Objective >= piHi[i]-1e-6*(1+math.Abs(piHi[i])) {
			// The part's relaxation sits at the bus's bound (one an
			// earlier split proved): the MIP gets the price cap instead
			// (partMIPOptions.looseOwn).
			mhi = append([]float64(nil), phi...)
			mhi[i] = math.Max(phi[i], rules.PriceCap)
		}
		u, err := n.partMIP(ctx, dom, rules, hopt, ev, pev, plo, mhi, cutoff, mipIters, safety, o, w)
		phi[i] = math.Min(phi[i], mhi[i])
		used += u
		if err != nil {
			return 0, used, err
		}
	}
	return math.Max(empty, phi[i]), used, nil
}

// partMIP solves the KKT MIP of the part pev.part over the price bounds
// plo, phi with the row π_i ≥ cutoff, within iters simplex iterations, and
// lowers phi[i] to what it proves: cutoff when it is infeasible (no KKT
// point of the part has π_i ≥ cutoff), else max(cutoff, its proven dual
// bound). It returns the MIP's work units (simplex iterations times the
// program's rows plus columns); its
// incumbent's loads are appended to ev.Candidates, and a stop by the
// wall-clock net safety marks ev.splitStopped.
func (n *Network) partMIP(ctx context.Context, dom LoadDomain, rules MarketRules, hopt highs.Options, ev, pev *LMPEvidence,
	plo, phi []float64, cutoff float64, iters int64, safety time.Duration, o partMIPOptions, w io.Writer) (float64, error) {
	part := pev.part
	i, l, side := part.own, part.l, part.side
	k, err := n.buildKKT(dom, rules, pev, plo, phi, 1, nil, []int{i})
	if err != nil {
		return 0, err
	}
	k.b.row(cutoff, math.Inf(1), []int{k.t}, []float64{1})
	size := float64(len(k.b.cost) + len(k.b.rlo))
	mopt := hopt
	if o.mipLog != nil {
		mopt.Log = o.mipLog
	}
	lp, err := buildMax(k.b, mopt)
	if err != nil {
		return 0, err
	}
	r, err := lp.SolveMIP(ctx, highs.MIPLimits{RelGap: 1e-3, MaxLPIterations: iters, TimeLimit: safety})
	lp.Close()
	if err != nil {
		return 0, err
	}
	if !r.Stop.Reproducible() {
		ev.splitStopped = true
		progress(w, "lmp-bound: WARNING: the part MIP stopped by %q before its iteration budget; its proven bound at that moment counts (sound, not reproducible)", r.Stop)
	}
	if r.X != nil { // a KKT point: a start for the adversarial search
		ev.Candidates = append(ev.Candidates, k.m.loads(r.X))
	}
	switch {
	case r.Status == solver.PrimalInfeasible:
		phi[i] = cutoff
	case !math.IsNaN(r.DualBound):
		phi[i] = math.Min(phi[i], math.Max(cutoff, r.DualBound+1e-6*(1+math.Abs(r.DualBound))))
	}
	progress(w, "lmp-bound: bus %d, branch %d–%d part %+d: MIP with cutoff %.6g: %v (%s), %d nodes, %d of %d LP iterations: %.6g", n.BusID[i], n.BusID[n.From[l]], n.BusID[n.To[l]], side, cutoff, r.Status, r.Stop, r.Nodes, r.LPIterations, iters, phi[i])
	return float64(r.LPIterations) * size, nil
}

// restricted is the progress note of an empty restricted part.
func restricted(empty float64) string {
	if math.IsInf(empty, -1) {
		return ""
	}
	return fmt.Sprintf(" above the cutoff: bound %.6g", empty)
}

// buildMax builds b in HiGHS as a maximization (the caller closes it).
func buildMax(b *lpBuilder, hopt highs.Options) (*highs.LP, error) {
	lp, err := b.build(hopt)
	if err != nil {
		return nil, err
	}
	if err := lp.SetObjectiveSense(true); err != nil {
		lp.Close()
		return nil, err
	}
	return lp, nil
}

// priceNeed marks the buses whose price bounds the KKT program needs: those
// of a unit's segment or a backstop (the other buses' prices are free
// columns that enter no big-M).
func priceNeed(m *marketLP) []bool {
	need := make([]bool, len(m.balance))
	for s := range m.segs {
		need[m.segBus[s]] = true
	}
	for j := range need {
		need[j] = need[j] || m.shedAt[j] || m.curtAt[j]
	}
	return need
}
