package grid

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/privopt/privopt/solver/highs"
)

// Checkable congestion-pattern split (the split of lmppatternsplit.go on
// the checkable route).
//
// For a bus i and a limited branch l, the KKT points of the market LP over
// the domain split into the parts "up", "lo" and "free" of l's
// complementarity pattern (lmppattern.go, with the bus's own load at its
// upper end by own-load monotonicity), so max π_i is the largest of the
// parts' maxima. For a cutoff c, a part's maximum is at most
//
//	max(c, max π_i over the part's KKT program with the row π_i ≥ c),
//
// (a point of the part either has π_i < c or satisfies the row), and the
// second term is bounded by a branch-and-bound tree of lmpbb.go whose leaves
// carry LP duals (LMPTree over that restricted program). The bus's bound is
// the largest part bound. The checker rebuilds each part's program from the
// network, the domain, the rules, the bounds the chain proved and the part
// (bus, branch, side, cutoff), verifies each tree's duals (no LP or MIP
// solve) and lowers the bus's price bound to the proven value before the
// trees of LMPProof.Trees are checked. A part whose binary the checker's
// program lacks (the dual is fixed at 0) is empty and needs no tree; every
// other part must be present.

// LMPPatternProof is the checkable split of bus Bus (internal index) by the
// parts of branch Branch (internal index) with the row π_Bus ≥ Cutoff: one
// entry per non-empty part; Bound is the largest part bound (the bus's new
// price bound, at least Cutoff).
type LMPPatternProof struct {
	Bus    int              `json:"bus"`
	Branch int              `json:"branch"`
	Cutoff float64          `json:"cutoff"`
	Parts  []LMPPatternPart `json:"parts"`
	Bound  float64          `json:"bound"`
}

// LMPPatternPart is one part of an LMPPatternProof: Side +1 ("up": z⁺ = 1,
// z⁻ = 0), −1 ("lo") or 0 ("free": both 0), and the tree bounding max π_Bus
// over the part's KKT program with the cutoff row; the part's bound is
// max(Cutoff, Tree.Value).
type LMPPatternPart struct {
	Side int     `json:"side"`
	Tree LMPTree `json:"tree"`
}

// lmp12aTreeNodes is the LP budget of one part's tree (deterministic, as
// LMPBoundOptions.TreeNodes for the whole program).
const lmp12aTreeNodes = 200

// patternSplitCheckable is patternSplitStep on the checkable route: the
// same buses, cutoff and branches, each part bounded by a tree over its
// program with the cutoff row (kktTrees with the part in the evidence),
// recorded in the proof (LMPProof.PatternSplits). A part whose root LP
// does not solve keeps the bus's bound (no gain, sound).
func (n *Network) patternSplitCheckable(ctx context.Context, dom LoadDomain, rules MarketRules, hopt highs.Options, ev *LMPEvidence,
	piLo, piHi []float64, m *marketLP, known float64, opt LMPBoundOptions) error {
	vars := append([]int(nil), m.vars...)
	sort.SliceStable(vars, func(a, b int) bool { return piHi[vars[a]] > piHi[vars[b]] })
	k := min(patternSplitMaxBuses, len(vars)-1)
	cutoff := math.Max(known, piHi[vars[k]])
	if cutoff <= 0 || math.IsInf(cutoff, 0) {
		return nil
	}
	ev.PatternSplitWork = opt.PatternSplitWork
	for _, i := range vars[:k] {
		if !(piHi[i] > cutoff) || math.IsInf(piHi[i], 0) {
			continue
		}
		l, _, _, _, err := n.patternBranch(ctx, dom, rules, hopt, ev, piLo, piHi, i)
		if err != nil {
			return err
		}
		if l < 0 {
			continue
		}
		pp := LMPPatternProof{Bus: i, Branch: l, Cutoff: cutoff, Bound: math.Inf(-1)}
		ok := true
		for _, side := range []int{1, -1, 0} {
			part := &kktPart{own: i, ownLoad: dom.Hi[i], l: l, side: side, cutoff: cutoff}
			pev := *ev
			pev.part = part
			kk, err := n.buildKKT(dom, rules, &pev, piLo, piHi, 1, nil, []int{i})
			if err != nil {
				return err
			}
			if !part.apply(kk) {
				continue // empty part
			}
			trees, _, err := n.kktTrees(ctx, dom, rules, hopt, &pev, piLo, piHi, 1, nil, []int{i}, lmp12aTreeNodes, opt.Progress)
			if err != nil {
				return err
			}
			if len(trees) != 1 || math.IsInf(trees[0].Value, 0) || math.IsNaN(trees[0].Value) {
				ok = false
				break
			}
			pp.Parts = append(pp.Parts, LMPPatternPart{Side: side, Tree: trees[0]})
			pp.Bound = math.Max(pp.Bound, math.Max(cutoff, trees[0].Value))
			if pp.Bound >= piHi[i] {
				ok = false
				break
			}
		}
		if !ok || len(pp.Parts) == 0 {
			continue
		}
		before := piHi[i]
		piHi[i] = pp.Bound
		ev.rec.p.PatternSplits = append(ev.rec.p.PatternSplits, pp)
		ev.PatternSplits = append(ev.PatternSplits, LMPPatternSplit{Bus: n.BusID[i], From: n.BusID[n.From[l]], To: n.BusID[n.To[l]], Before: before, After: piHi[i], Cutoff: cutoff})
		progress(opt.Progress, "lmp-bound: checkable pattern split of bus %d by branch %d–%d (cutoff %.6g): price bound %.6g → %.6g ($/MWh), %d parts",
			n.BusID[i], n.BusID[n.From[l]], n.BusID[n.To[l]], cutoff, before, piHi[i], len(pp.Parts))
	}
	return nil
}

// checkPatternSplits verifies the proof's pattern splits in order over the
// checker's proven bounds and lowers the split buses' price bounds.
func (c *proofChecker) checkPatternSplits(ps []LMPPatternProof, vars []int) error {
	n := c.n
	isVar := make(map[int]bool, len(vars))
	for _, i := range vars {
		isVar[i] = true
	}
	for q := range ps {
		p := &ps[q]
		if !isVar[p.Bus] || p.Branch < 0 || p.Branch >= n.NumBranches() || math.IsNaN(p.Cutoff) || math.IsInf(p.Cutoff, 0) {
			return fmt.Errorf("%w: pattern split %d: bus index %d, branch index %d or cutoff %v invalid", ErrNotCertified, q, p.Bus, p.Branch, p.Cutoff)
		}
		bound := math.Inf(-1)
		for _, side := range []int{1, -1, 0} {
			part := &kktPart{own: p.Bus, ownLoad: c.dom.Hi[p.Bus], l: p.Branch, side: side, cutoff: p.Cutoff}
			pev := *c.ev
			pev.part = part
			kk, err := n.buildKKT(c.dom, c.rules, &pev, c.piLo, c.piHi, 1, nil, []int{p.Bus})
			if err != nil {
				return fmt.Errorf("%w: pattern split %d: %v", ErrNotCertified, q, err)
			}
			var pt *LMPPatternPart
			for r := range p.Parts {
				if p.Parts[r].Side == side {
					if pt != nil {
						return fmt.Errorf("%w: pattern split %d: part %+d twice", ErrNotCertified, q, side)
					}
					pt = &p.Parts[r]
				}
			}
			if !part.apply(kk) {
				continue // empty part
			}
			if pt == nil {
				return fmt.Errorf("%w: pattern split %d (bus %d): part %+d is missing", ErrNotCertified, q, n.BusID[p.Bus], side)
			}
			if pt.Tree.Sign != 1 || pt.Tree.Bus != p.Bus || len(pt.Tree.Sel) != 1 || pt.Tree.Sel[0] != p.Bus {
				return fmt.Errorf("%w: pattern split %d: part %+d's tree is not over max π of the split bus", ErrNotCertified, q, side)
			}
			cc := *c
			cc.ev = &pev
			v, err := cc.checkTree(&pt.Tree, nil, vars)
			if err != nil {
				return fmt.Errorf("pattern split %d part %+d: %w", q, side, err)
			}
			if err := c.upper(&pt.Tree.Value, v, fmt.Sprintf("pattern split %d part %+d tree", q, side)); err != nil {
				return err
			}
			bound = math.Max(bound, math.Max(p.Cutoff, pt.Tree.Value))
		}
		for r := range p.Parts {
			if s := p.Parts[r].Side; s != 1 && s != -1 && s != 0 {
				return fmt.Errorf("%w: pattern split %d: part side %d", ErrNotCertified, q, s)
			}
		}
		if math.IsInf(bound, -1) {
			bound = p.Cutoff
		}
		if err := c.upper(&p.Bound, bound, fmt.Sprintf("pattern split %d bound", q)); err != nil {
			return err
		}
		c.piHi[p.Bus] = math.Min(c.piHi[p.Bus], p.Bound)
	}
	return nil
}
