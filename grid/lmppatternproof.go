package grid

import (
	"context"
	"fmt"
	"math"

	"github.com/privopt/privopt/solver/highs"
)

// Checkable congestion-pattern split (the split of lmppatternsplit.go on
// the checkable route).
//
// For a bus i and a limited branch l, the KKT points of the market LP over
// the domain split into the parts "up" (z⁺_l = 1), "lo" (z⁻_l = 1) and
// "free" of l's complementarity pattern, with the bus's own load at its
// upper end by own-load monotonicity (lmppattern.go). On the checkable
// route the split is a branch-and-bound tree of lmpbb.go (LMPTree) over bus
// i's KKT program with its own load fixed at Hi_i, whose first branchings
// are on z⁺_l and z⁻_l (the parts; a part whose relaxation is infeasible is
// a leaf bounded by the penalty dual of kktTrees), then on the most
// fractional binary. Its leaves' duals bound max π_i over every part, so
// the tree's value is a bound on π_i over the domain. The checker rebuilds
// the program from the network, the domain, the rules, the bounds the chain
// proved and the own-load fixing, verifies every leaf's dual (no LP or MIP
// solve; checkTree, which accepts any branching order) and lowers the bus's
// price bound before the trees of LMPProof.Trees are checked.

// LMPPatternProof is the checkable split of bus Bus (internal index) by
// branch Branch (internal index, the producer's choice: the checker does
// not need it): Tree bounds max π_Bus with the bus's own load at its upper
// end, and Bound (at least Tree.Value) is the bus's new price bound.
type LMPPatternProof struct {
	Bus    int     `json:"bus"`
	Branch int     `json:"branch"`
	Tree   LMPTree `json:"tree"`
	Bound  float64 `json:"bound"`
}

// patternTreeNodes is the LP budget of one split bus's tree (deterministic,
// as LMPBoundOptions.TreeNodes for the whole program).
const patternTreeNodes = 200

// patternSplitCheckable is patternSplitStep on the checkable route: the
// same buses (the patternSplitMaxBuses varying buses with the largest
// bounds above the cutoff) and branches (patternBranch), each bus bounded by
// a tree that branches on the branch's binaries first, recorded in the
// proof (LMPProof.PatternSplits) when it lowers the bus's bound.
func (n *Network) patternSplitCheckable(ctx context.Context, dom LoadDomain, rules MarketRules, hopt highs.Options, ev *LMPEvidence,
	piLo, piHi []float64, m *marketLP, known float64, opt LMPBoundOptions) error {
	sel, cutoff, _ := patternSplitSet(m.vars, piHi, patternSplitMaxBuses, known)
	if cutoff <= 0 || math.IsInf(cutoff, 0) {
		return nil
	}
	ev.PatternSplitWork = opt.PatternSplitWork
	for _, i := range sel {
		l, _, _, _, err := n.patternBranch(ctx, dom, rules, hopt, ev, piLo, piHi, i)
		if err != nil {
			return err
		}
		if l < 0 {
			continue
		}
		pev := *ev
		pev.part = &kktPart{own: i, ownLoad: dom.Hi[i], l: l, branchFirst: true}
		trees, _, err := n.kktTrees(ctx, dom, rules, hopt, &pev, piLo, piHi, 1, nil, []int{i}, patternTreeNodes, opt.Progress)
		if err != nil {
			return err
		}
		if len(trees) != 1 || !(trees[0].Value < piHi[i]) {
			continue
		}
		before := piHi[i]
		piHi[i] = trees[0].Value
		ev.rec.p.PatternSplits = append(ev.rec.p.PatternSplits, LMPPatternProof{Bus: i, Branch: l, Tree: trees[0], Bound: piHi[i]})
		ev.PatternSplits = append(ev.PatternSplits, LMPPatternSplit{Bus: n.BusID[i], From: n.BusID[n.From[l]], To: n.BusID[n.To[l]], Before: before, After: piHi[i], Cutoff: cutoff})
		progress(opt.Progress, "lmp-bound: checkable pattern split of bus %d by branch %d–%d: price bound %.6g → %.6g ($/MWh), %d tree nodes",
			n.BusID[i], n.BusID[n.From[l]], n.BusID[n.To[l]], before, piHi[i], len(trees[0].Nodes))
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
		if !isVar[p.Bus] {
			return fmt.Errorf("%w: pattern split %d: bus index %d does not vary", ErrNotCertified, q, p.Bus)
		}
		if t := &p.Tree; t.Sign != 1 || t.Bus != p.Bus || len(t.Sel) != 1 || t.Sel[0] != p.Bus {
			return fmt.Errorf("%w: pattern split %d: the tree is not over max π of bus %d alone", ErrNotCertified, q, n.BusID[p.Bus])
		}
		pev := *c.ev
		pev.part = &kktPart{own: p.Bus, ownLoad: c.dom.Hi[p.Bus], l: p.Branch, branchFirst: true}
		cc := *c
		cc.ev = &pev
		v, err := cc.checkTree(&p.Tree, nil, vars)
		if err != nil {
			return fmt.Errorf("pattern split %d (bus %d): %w", q, n.BusID[p.Bus], err)
		}
		what := fmt.Sprintf("pattern split %d (bus %d)", q, n.BusID[p.Bus])
		if err := c.upper(&p.Tree.Value, v, what+" tree"); err != nil {
			return err
		}
		if err := c.upper(&p.Bound, p.Tree.Value, what+" bound"); err != nil {
			return err
		}
		c.piHi[p.Bus] = math.Min(c.piHi[p.Bus], p.Bound)
	}
	return nil
}
