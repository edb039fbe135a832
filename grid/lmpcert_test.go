package grid

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/privopt/privopt/lpdual"
)

// certifyCheckable certifies with a proof (CertifyLMPBound directly: also
// where the merit-order bound would apply) and checks it.
func certifyCheckable(t *testing.T, n *Network, dom LoadDomain, rules MarketRules) (*CostCertificate, *LMPCheck) {
	t.Helper()
	ctx := context.Background()
	c, err := n.CertifyLMPBound(ctx, dom, 1, rules, LMPBoundOptions{Checkable: true, TimeLimit: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if c.Method != "lmp-bound" || c.LMP.Proof == nil {
		t.Fatalf("%s certificate without a proof (%s)", c.Method, c.Reason)
	}
	chk, err := n.CheckLMPProof(ctx, dom, rules, c.LMP.Proof)
	if err != nil {
		t.Fatal(err)
	}
	if chk.PerMW != c.PerMW {
		t.Errorf("checked %v, certificate %v", chk.PerMW, c.PerMW)
	}
	return c, chk
}

// The hand-solved three-bus case (see TestLMPBoundClosedForm): the largest
// LMP over the domain is exactly 50 $/MWh; the checkable proof closes at 50
// (within its margins), never below.
func TestLMPProofClosedForm(t *testing.T) {
	n := loadNet(t, "testdata/case3_congested.m", DCOptions{})
	dom := LoadDomain{Lo: []float64{0, 0, 81}, Hi: []float64{0, 10, 99}}
	c, chk := certifyCheckable(t, n, dom, MarketRules{PriceCap: 1000})
	if !(c.PerMW >= 50) || c.PerMW > 50.001 {
		t.Errorf("proof covers %v, want 50 (≤ 50.001)", c.PerMW)
	}
	if chk.Steps == 0 {
		t.Error("no LP bound was checked")
	}
}

// On 5_pjm, 14_ieee and 30_ieee (±10%) the proof checks and its value is
// HiGHS's MIP bound (its branch and bound closes) up to the margins, and is
// never below the largest price the adversarial search finds.
func TestLMPProofPGLib(t *testing.T) {
	ctx := context.Background()
	rules := MarketRules{PriceCap: 1000}
	for _, name := range []string{"5_pjm", "14_ieee", "30_ieee"} {
		n := pglibNet(t, name)
		dom, _ := n.LoadBand(0.1)
		c, chk := certifyCheckable(t, n, dom, rules)
		mip := math.Max(c.LMP.MaxPrice, c.LMP.MinPrice)
		if math.Abs(c.PerMW-mip) > 1e-4*mip {
			t.Errorf("%s: proof %v, HiGHS MIP %v", name, c.PerMW, mip)
		}
		s, err := n.SearchLMPChange(ctx, dom, 1, rules, LMPSearchOptions{Starts: 4, Steps: 40, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if c.PerMW < s.LMP*(1-1e-9) {
			t.Errorf("%s: proof %v below a price found, %v", name, c.PerMW, s.LMP)
		}
		t.Logf("%s: proof %.6g (MIP %.6g, found %.6g), %d LP bounds", name, c.PerMW, mip, s.LMP, chk.Steps)
	}
}

// cloneProof deep-copies a proof (through JSON, as a file would carry it).
func cloneProof(t *testing.T, p *LMPProof) *LMPProof { return jsonClone(t, p) }

// jsonClone deep-copies v through JSON.
func jsonClone[T any](t *testing.T, v *T) *T {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var q T
	if err := json.Unmarshal(b, &q); err != nil {
		t.Fatal(err)
	}
	return &q
}

// The checker rejects a tampered bound, a tampered dual, a missing or
// shared leaf, and tampered constants; the untampered copy (through JSON)
// checks.
func TestLMPProofTampered(t *testing.T) {
	n := pglibNet(t, "5_pjm")
	dom, _ := n.LoadBand(0.1)
	rules := MarketRules{PriceCap: 1000}
	c, _ := certifyCheckable(t, n, dom, rules)
	ctx := context.Background()
	if _, err := n.CheckLMPProof(ctx, dom, rules, cloneProof(t, c.LMP.Proof)); err != nil {
		t.Fatalf("the proof through JSON: %v", err)
	}
	// The last tightening step that lowered a price bound.
	last := -1
	for q, st := range c.LMP.Proof.Steps {
		if st.Op == "pi_hi" {
			last = q
		}
	}
	if last < 0 || len(c.LMP.Proof.Trees) == 0 {
		t.Fatalf("proof without a price step (%d steps) or a tree (%d)", len(c.LMP.Proof.Steps), len(c.LMP.Proof.Trees))
	}
	cases := []struct {
		name string
		edit func(p *LMPProof)
	}{
		{"price bound lowered", func(p *LMPProof) { p.Steps[last].X -= 1 }},
		{"dual zeroed", func(p *LMPProof) { p.Steps[last].Y = &lpdual.Sparse{} }},
		{"dual scaled", func(p *LMPProof) {
			for k := range p.Steps[last].Y.Val {
				p.Steps[last].Y.Val[k] *= 1.5
			}
		}},
		{"claimed value lowered", func(p *LMPProof) { p.PerMW *= 0.99 }},
		{"leaf bound lowered", func(p *LMPProof) {
			for q := range p.Trees[0].Nodes {
				if p.Trees[0].Nodes[q].Y != nil {
					p.Trees[0].Nodes[q].X -= 5
				}
			}
			p.Trees[0].Value -= 5
			p.PerMW -= 5
		}},
		{"leaf missing", func(p *LMPProof) {
			t := &p.Trees[0]
			for q := range t.Nodes {
				if t.Nodes[q].Y == nil {
					t.Nodes[q].Kids[1] = len(t.Nodes) // points past the end
					return
				}
			}
		}},
		{"leaf shared", func(p *LMPProof) {
			t := &p.Trees[0]
			for q := range t.Nodes {
				if t.Nodes[q].Y == nil {
					t.Nodes[q].Kids[1] = t.Nodes[q].Kids[0]
					return
				}
			}
		}},
		{"v_min raised", func(p *LMPProof) { p.VMin += 100 }},
		{"v_mid lowered", func(p *LMPProof) { p.VMid -= 100 }},
		{"cut raised", func(p *LMPProof) { p.Cuts[1].V += 100 }},
		// A step later steps rely on (the first pass's pruning: the duals
		// after it assume the pruned limits' duals fixed at 0). Dropping a
		// step nothing relies on leaves a sound proof, which checks.
		{"step dropped", func(p *LMPProof) {
			for q := range p.Steps {
				if p.Steps[q].Op == "prune" {
					p.Steps = append(p.Steps[:q:q], p.Steps[q+1:]...)
					return
				}
			}
		}},
	}
	for _, tc := range cases {
		p := cloneProof(t, c.LMP.Proof)
		tc.edit(p)
		if _, err := n.CheckLMPProof(ctx, dom, rules, p); err == nil || !errors.Is(err, ErrNotCertified) {
			t.Errorf("%s: accepted (err %v)", tc.name, err)
		}
	}
	// Through the certificate file: a tampered proof is refused on load
	// (without a full re-derivation).
	var buf bytes.Buffer
	bad := *c
	ev := *c.LMP
	ev.Proof = cloneProof(t, c.LMP.Proof)
	ev.Proof.Steps[last].X -= 1
	bad.LMP = &ev
	if err := n.NewCertificateFile(&bad, dom, false, 20).Write(&buf); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadCostCertificate(ctx, &buf, n, dom, false); !errors.Is(err, ErrNotCertified) {
		t.Errorf("tampered file loaded: %v", err)
	}
}

// A branch of negative susceptance (a series capacitor): the price box
// [floor − S, cap + S] does not apply (|PTDF| ≤ 1 fails), so the proof
// proves a price box by LPs over the dual polyhedron clipped to [−P, P]
// (every bound strictly inside: the polyhedron lies in the box) and checks.
func TestLMPProofNegativeSusceptance(t *testing.T) {
	n := loadNet(t, "testdata/case3_capacitor.m", DCOptions{})
	dom := LoadDomain{Lo: []float64{0, 0, 81}, Hi: []float64{0, 10, 99}}
	c, chk := certifyCheckable(t, n, dom, MarketRules{PriceCap: 1000})
	if c.LMP.Proof.PiBox == 0 || len(c.LMP.Proof.PiBoxSteps) == 0 {
		t.Errorf("no price box in the proof (pi_box %v, %d steps)", c.LMP.Proof.PiBox, len(c.LMP.Proof.PiBoxSteps))
	}
	mip := math.Max(c.LMP.MaxPrice, c.LMP.MinPrice)
	if !(c.PerMW >= c.LMP.Incumbent) || math.Abs(c.PerMW-mip) > 1e-3*mip {
		t.Errorf("proof %v, HiGHS MIP %v, incumbent %v", c.PerMW, mip, c.LMP.Incumbent)
	}
	// A box step without its dual bounds the price by the box itself, P,
	// which is not strictly inside: refused.
	p := cloneProof(t, c.LMP.Proof)
	p.PiBoxSteps[0].Y = &lpdual.Sparse{}
	if _, err := n.CheckLMPProof(context.Background(), dom, MarketRules{PriceCap: 1000}, p); !errors.Is(err, ErrNotCertified) {
		t.Errorf("tampered price box accepted: %v", err)
	}
	t.Logf("proof %v (MIP %v, incumbent %v), %d LP bounds, box |π| < %v", c.PerMW, mip, c.LMP.Incumbent, chk.Steps, c.LMP.Proof.PiBox)
}
