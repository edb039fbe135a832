package grid

import (
	"context"
	"errors"
	"math"
	"testing"
)

// TestLMPCheckablePatternSplit checks the checkable pattern split on
// 30_ieee ±10% (PowerModels DC model) after one short tightening pass: the
// proof records at least one split, CheckLMPProof verifies it (no solver),
// every split bound is at least the market LP's price at sampled loads
// (real prices, independent of the KKT program), and a changed dual, a
// lowered part bound or split bound and a dropped part are rejected.
func TestLMPCheckablePatternSplit(t *testing.T) {
	n, dom, rules := splitCase30(t)
	ctx := context.Background()
	opt := LMPBoundOptions{Checkable: true, TighteningPasses: 1, TighteningWork: 2e6, MIPWork: 2e6, PatternSplitWork: 2e7}
	ev, reason, err := n.lmpBound(ctx, dom, rules, opt)
	if err != nil || ev == nil || ev.Proof == nil {
		t.Fatalf("lmpBound: %v %s", err, reason)
	}
	p := ev.Proof
	if len(p.PatternSplits) == 0 {
		t.Fatal("the checkable proof holds no pattern split")
	}
	if _, err := n.CheckLMPProof(ctx, dom, rules, cloneProof(t, p)); err != nil {
		t.Fatalf("check: %v", err)
	}
	for q, pi := range sampledPrices(t, n, dom, rules, 7, 40) {
		for _, sp := range p.PatternSplits {
			if sp.Bound < pi[sp.Bus]-1e-6*(1+math.Abs(pi[sp.Bus])) {
				t.Errorf("bus %d: split bound %v below the LP price %v at sample %d", n.BusID[sp.Bus], sp.Bound, pi[sp.Bus], q)
			}
		}
	}
	for _, sp := range p.PatternSplits {
		t.Logf("bus %d by branch %d: bound %.6g (%d tree nodes)", n.BusID[sp.Bus], sp.Branch, sp.Bound, len(sp.Tree.Nodes))
	}
	reject := func(what string, edit func(p *LMPProof)) {
		q := cloneProof(t, p)
		edit(q)
		if _, err := n.CheckLMPProof(ctx, dom, rules, q); err == nil || !errors.Is(err, ErrNotCertified) {
			t.Errorf("%s: accepted (%v)", what, err)
		} else {
			t.Logf("%s: %v", what, err)
		}
	}
	reject("lowered split bound", func(q *LMPProof) { q.PatternSplits[0].Bound *= 0.5 })
	reject("lowered leaf bounds", func(q *LMPProof) {
		tr := &q.PatternSplits[0].Tree
		tr.Value *= 0.5
		q.PatternSplits[0].Bound = tr.Value
		for r := range tr.Nodes {
			if tr.Nodes[r].Y != nil {
				tr.Nodes[r].X = math.Min(tr.Nodes[r].X, tr.Value)
			}
		}
	})
	reject("changed dual", func(q *LMPProof) {
		for r, nd := range q.PatternSplits[0].Tree.Nodes {
			if nd.Y != nil {
				y := *nd.Y
				y.Idx, y.Val = nil, nil
				q.PatternSplits[0].Tree.Nodes[r].Y = &y
			}
		}
	})
	reject("dropped part", func(q *LMPProof) {
		tr := &q.PatternSplits[0].Tree
		if len(tr.Nodes[0].Kids) == 2 {
			tr.Nodes[0].Kids[1] = tr.Nodes[0].Kids[0]
		}
	})
}
