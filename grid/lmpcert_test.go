package grid

import (
	"context"
	"testing"
	"time"

	"github.com/privopt/privopt/lpdual"
)

// certifyCheckable certifies with a proof and checks it.
func certifyCheckable(t *testing.T, n *Network, dom LoadDomain, rules MarketRules, limit time.Duration) (*CostCertificate, *LMPCheck) {
	t.Helper()
	ctx := context.Background()
	c, err := n.CertifyLMPBound(ctx, dom, 1, rules, LMPBoundOptions{Checkable: true, TimeLimit: limit})
	if err != nil {
		t.Fatal(err)
	}
	if c.LMP == nil || c.LMP.Proof == nil {
		t.Fatalf("%s certificate without a proof (%s)", c.Method, c.Reason)
	}
	chk, err := n.CheckLMPProof(ctx, dom, rules, c.LMP.Proof)
	if err != nil {
		t.Fatal(err)
	}
	return c, chk
}

func TestLMPProofCase3(t *testing.T) {
	n := loadNet(t, "testdata/case3_congested.m", DCOptions{})
	dom := LoadDomain{Lo: []float64{0, 0, 81}, Hi: []float64{0, 10, 99}}
	debugHook = func(lp *lpdual.LP, c, y lpdual.Sparse) { debugInf(t, lp, c, y) }
	c, chk := certifyCheckable(t, n, dom, MarketRules{PriceCap: 1000}, 10*time.Second)
	t.Logf("MIP %v, proof %v, %d steps", c.PerMW, chk.PerMW, chk.Steps)
}

func TestLMPProofPJM5(t *testing.T) {
	n := pglibNet(t, "5_pjm")
	dom, _ := n.LoadBand(0.1)
	c, chk := certifyCheckable(t, n, dom, MarketRules{PriceCap: 1000}, 10*time.Second)
	t.Logf("MIP %v, proof %v, %d steps", c.PerMW, chk.PerMW, chk.Steps)
}
