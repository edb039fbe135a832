package grid

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// Twin branches in the checkable proof: on case3_twins (two identical
// circuits 1–3, hand solution 50 $/MWh) the proof lists the pair, checks and
// covers 50; on 24_ieee_rts ±10% (four twin pairs) it lists four pairs and
// checks. A tampered pair is rejected naming its branches: out of order, a
// branch without a limit, and two limited branches that are not parallel.
func TestLMPTwinProof(t *testing.T) {
	ctx := context.Background()
	n := loadNet(t, "testdata/case3_twins.m", DCOptions{})
	rules := MarketRules{PriceCap: 1000}
	dom := LoadDomain{Lo: []float64{0, 0, 81}, Hi: []float64{0, 10, 99}}
	c, _ := certifyCheckable(t, n, dom, rules)
	p := c.LMP.Proof
	if len(p.Twins) != 1 || p.Twins[0] != [2]int{1, 2} {
		t.Fatalf("twins %v, want [[1 2]]", p.Twins)
	}
	if c.PerMW < 50 || c.PerMW > 50.001 {
		t.Errorf("proof covers %v, want 50", c.PerMW)
	}
	for _, tc := range []struct {
		pair [2]int
		want string
	}{
		{[2]int{2, 1}, "branches 2 and 1 out of order"},
		{[2]int{1, 3}, "branches 1 (1–3) and 3 (2–3) are not twins: a branch without a flow limit"},
	} {
		q := *p
		q.Twins = [][2]int{tc.pair}
		_, err := n.CheckLMPProof(ctx, dom, rules, &q)
		if !errors.Is(err, ErrNotCertified) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("twins %v: %v, want an error with %q", tc.pair, err, tc.want)
		}
	}

	n = pglibNet(t, "24_ieee_rts")
	dom, _ = n.LoadBand(0.1)
	c, _ = certifyCheckable(t, n, dom, rules)
	p = c.LMP.Proof
	if len(p.Twins) != 4 {
		t.Fatalf("24_ieee_rts: twins %v, want 4 pairs", p.Twins)
	}
	b := newLPBuilder()
	m, err := n.newMarketLP(b, dom, rules)
	if err != nil {
		t.Fatal(err)
	}
	// A limited branch that is not the first pair's twin.
	other := -1
	for l := range m.flow {
		if m.flow[l] >= 0 && l > p.Twins[0][0] && n.twins(m, p.Twins[0][0], l) != "" {
			other = l
			break
		}
	}
	q := *p
	q.Twins = append([][2]int{{p.Twins[0][0], other}}, p.Twins[1:]...)
	_, err = n.CheckLMPProof(ctx, dom, rules, &q)
	if !errors.Is(err, ErrNotCertified) || !strings.Contains(err.Error(), "are not twins") {
		t.Errorf("24_ieee_rts, pair [%d %d]: %v, want \"are not twins\"", p.Twins[0][0], other, err)
	}
}
