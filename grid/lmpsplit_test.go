package grid

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"
)

// splitCase3 is the hand-solved three-bus case of TestLMPBoundClosedForm:
// the largest LMP over the domain is exactly 50 $/MWh.
func splitCase3(t *testing.T) (*Network, LoadDomain, MarketRules) {
	t.Helper()
	n := loadNet(t, "testdata/case3_congested.m", DCOptions{})
	return n, LoadDomain{Lo: []float64{0, 0, 81}, Hi: []float64{0, 10, 99}}, MarketRules{PriceCap: 1000}
}

// A split checkable proof (three leaves) covers 50 $/MWh (within its
// margins, never below), checks, also through JSON; a cut outside its
// node's interval, a lowered leaf or root claim, a missing half and a leaf
// proof made for a smaller box than its place in the tree (a gap between
// the leaves) are rejected.
func TestLMPSplitProof(t *testing.T) {
	n, dom, rules := splitCase3(t)
	ctx := context.Background()
	c, err := n.CertifyLMPBound(ctx, dom, 1, rules, LMPBoundOptions{Checkable: true, TimeLimit: 6 * time.Second, Split: 3, splitAll: true})
	if err != nil {
		t.Fatal(err)
	}
	if c.Method != "lmp-bound" || c.LMP.Proof == nil || c.LMP.Proof.Split == nil || c.LMP.SplitLeaves != 3 {
		t.Fatalf("%s certificate, proof %v, %d leaves (%s): want a split proof with 3 leaves", c.Method, c.LMP.Proof != nil, c.LMP.SplitLeaves, c.Reason)
	}
	if !(c.PerMW >= 50) || c.PerMW > 50.001 {
		t.Errorf("split proof covers %v, want 50 (≤ 50.001)", c.PerMW)
	}
	chk, err := n.CheckLMPProof(ctx, dom, rules, cloneProof(t, c.LMP.Proof))
	if err != nil {
		t.Fatalf("the split proof through JSON: %v", err)
	}
	if chk.PerMW != c.PerMW || chk.Steps == 0 {
		t.Errorf("checked %v with %d LP bounds, certificate %v", chk.PerMW, chk.Steps, c.PerMW)
	}
	if err := n.VerifyCostCertificateContext(ctx, c, dom); err != nil {
		t.Errorf("certificate: %v", err)
	}
	reject := func(what string, tamper func(p *LMPProof)) {
		t.Helper()
		p := cloneProof(t, c.LMP.Proof)
		tamper(p)
		_, err := n.CheckLMPProof(ctx, dom, rules, p)
		t.Logf("%s: %v", what, err)
		if !errors.Is(err, ErrNotCertified) {
			t.Errorf("%s: accepted (%v)", what, err)
		}
	}
	top := c.LMP.Proof.Split
	reject("cut outside the interval", func(p *LMPProof) { p.Split.Cut = dom.Hi[top.Bus] + 1 })
	reject("cut at the interval's end", func(p *LMPProof) { p.Split.Cut = dom.Lo[top.Bus] })
	reject("root claim lowered", func(p *LMPProof) { p.PerMW, p.Split.PerMW = 40, 40 })
	reject("leaf claim lowered", func(p *LMPProof) {
		l := p.Split.Lo
		for l.Lo != nil {
			l = l.Lo
		}
		l.PerMW = 1
	})
	reject("missing half", func(p *LMPProof) { p.Split.Hi = nil })
	// A gap: the low half's proof made for [lo, cut − δ] only, placed on
	// [lo, cut].
	lo, _ := dom.halves(top.Bus, top.Cut)
	lo.Hi[top.Bus] -= 0.25 * (top.Cut - dom.Lo[top.Bus])
	ev, _, err := n.lmpBound(ctx, lo, rules, LMPBoundOptions{Checkable: true, TimeLimit: 2 * time.Second})
	if err != nil || ev == nil || ev.Proof == nil {
		t.Fatalf("proof of the smaller box: %v", err)
	}
	reject("gap between the leaves", func(p *LMPProof) { p.Split.Lo = &LMPSplit{Proof: ev.Proof, PerMW: ev.Proof.PerMW} })
}

// A split certificate without a proof (evidence per node, boxes starting
// from their parent's bounds) re-derives, also through JSON, and a lowered
// leaf claim is rejected.
func TestLMPSplitEvidence(t *testing.T) {
	n, dom, rules := splitCase3(t)
	ctx := context.Background()
	c, err := n.CertifyLMPBound(ctx, dom, 1, rules, LMPBoundOptions{TimeLimit: 6 * time.Second, Split: 3, splitAll: true})
	if err != nil {
		t.Fatal(err)
	}
	if c.Method != "lmp-bound" || c.LMP.Split == nil || c.LMP.SplitLeaves != 3 {
		t.Fatalf("%s certificate with %d leaves (%s): want a split one with 3", c.Method, c.LMP.SplitLeaves, c.Reason)
	}
	if !(c.PerMW >= 50) || c.PerMW > 50.001 {
		t.Errorf("split bound %v, want 50 (≤ 50.001)", c.PerMW)
	}
	back := jsonClone(t, c)
	if err := n.VerifyCostCertificateContext(ctx, back, dom); err != nil {
		t.Fatalf("split certificate through JSON: %v", err)
	}
	var leaf *LMPSplit
	for leaf = back.LMP.Split; leaf.Hi != nil; leaf = leaf.Hi {
	}
	leaf.PerMW = math.Max(0, leaf.PerMW-10)
	if err := n.VerifyCostCertificateContext(ctx, back, dom); !errors.Is(err, ErrNotCertified) {
		t.Errorf("lowered leaf claim accepted (%v)", err)
	}
}

// On 14_ieee ±30% and 30_ieee ±10% a split proof (three leaves) checks and is
// never below the largest price the adversarial search finds.
func TestLMPSplitPGLib(t *testing.T) {
	ctx := context.Background()
	rules := MarketRules{PriceCap: 1000}
	for name, band := range map[string]float64{"14_ieee": 0.3, "30_ieee": 0.1} {
		n := pglibNet(t, name)
		dom, _ := n.LoadBand(band)
		c, err := n.CertifyLMPBound(ctx, dom, 1, rules, LMPBoundOptions{Checkable: true, TimeLimit: 6 * time.Second, Split: 3, splitAll: true})
		if err != nil {
			t.Fatal(err)
		}
		if c.Method != "lmp-bound" || c.LMP.Proof == nil || c.LMP.SplitLeaves != 3 {
			t.Fatalf("%s: %s certificate (%s), want a split proof with 3 leaves", name, c.Method, c.Reason)
		}
		chk, err := n.CheckLMPProof(ctx, dom, rules, c.LMP.Proof)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		s, err := n.SearchLMPChange(ctx, dom, 1, rules, LMPSearchOptions{Starts: 4, Steps: 40, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if c.PerMW < s.LMP*(1-1e-9) {
			t.Errorf("%s: split proof %v below a price found, %v", name, c.PerMW, s.LMP)
		}
		t.Logf("%s: split proof %.6g (found %.6g), %d LP bounds", name, c.PerMW, s.LMP, chk.Steps)
	}
}
