package opfrelease

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/privopt/privopt/grid"
)

// An "lmp-bound" certificate of the hand-solved three-bus case (the LMP at
// bus 3 is 50 $/MWh throughout the domain, see grid's TestLMPBoundClosedForm)
// becomes a query certificate whose registered verifier accepts it, and
// rejects it once the bound no longer covers α·per_mw + margin or per_mw
// drops below the proven price bound.
func TestLMPBoundQueryCertificate(t *testing.T) {
	net := case3Congested(t)
	dom := grid.LoadDomain{Lo: []float64{0, 0, 81}, Hi: []float64{0, 10, 99}}
	gc, err := net.CertifyCostBound(context.Background(), dom, 2, grid.DefaultMarketRules(), grid.LMPBoundOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if gc.Method != "lmp-bound" {
		t.Fatalf("method %q", gc.Method)
	}
	qc, err := queryCertificate(gc, dom, net, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	if qc.Method != MethodLMPBound || qc.Bound != gc.Bound+0.5 {
		t.Fatalf("query certificate %s bound %v", qc.Method, qc.Bound)
	}
	if err := qc.Verify(); err != nil {
		t.Fatal(err)
	}
	low := *qc
	low.Bound = gc.Bound // without the solver margin
	if low.Verify() == nil {
		t.Error("bound without the margin verified")
	}
	p := *qc
	p.Params = map[string]float64{}
	for k, v := range qc.Params {
		p.Params[k] = v
	}
	p.Params["per_mw"] = 40 // below the proven 50
	if p.Verify() == nil {
		t.Error("per_mw below the proven bound verified")
	}
}

// An N-1 plan that certifies (Security with LMPBound) on the hand-solved
// three-bus case gets the N-1 program's bound, 50 $/MWh (grid's
// TestN1LMPBoundClosedForm), as a query certificate its verifier accepts;
// a given lmp-bound-n1 certificate is refused by a plan at another post
// factor and by one without N-1.
func TestN1LMPBoundPlan(t *testing.T) {
	net := case3Congested(t)
	ctx := context.Background()
	opt := DefaultOptions()
	opt.Security = &Security{PostFactor: 1.5}
	opt.LMPBound = &grid.LMPBoundOptions{TimeLimit: 5e9}
	p, _, err := ReferencePlan(ctx, net, opt, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	if p.costCert.Method != "lmp-bound-n1" || p.costCert.PerMW < 50 || p.costCert.PerMW > 50.01 {
		t.Fatalf("plan certificate %s %v (%s)", p.costCert.Method, p.costCert.PerMW, p.costCert.Reason)
	}
	if p.Certificate == nil || p.Certificate.Method != MethodLMPBound || p.Certificate.Params["n1_post_factor"] != 1.5 {
		t.Fatalf("query certificate %+v", p.Certificate)
	}
	if err := p.Certificate.Verify(); err != nil {
		t.Fatal(err)
	}
	if err := checkN1Certificate(p.costCert, &Security{PostFactor: 1.2}); err == nil {
		t.Error("an lmp-bound-n1 certificate at post factor 1.5 accepted at 1.2")
	}
	if err := checkN1Certificate(p.costCert, nil); err == nil {
		t.Error("an lmp-bound-n1 certificate accepted without N-1")
	}
	if err := checkN1Certificate(p.costCert, &Security{PostFactor: 1.5}); err != nil {
		t.Error(err)
	}
	base := *p.costCert
	base.Method = "lmp-bound"
	if err := checkN1Certificate(&base, &Security{}); err == nil {
		t.Error("a base-case lmp-bound certificate accepted for N-1")
	}
}

// case3Congested reads grid's hand-solved three-bus case
// (grid/testdata/case3_congested.m).
func case3Congested(t *testing.T) *grid.Network {
	t.Helper()
	c, err := grid.ReadCase(filepath.Join("..", "grid", "testdata", "case3_congested.m"))
	if err != nil {
		t.Fatal(err)
	}
	net, err := grid.NewNetwork(c, grid.DCOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return net
}
