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
	c, err := grid.ReadCase(filepath.Join("..", "grid", "testdata", "case3_congested.m"))
	if err != nil {
		t.Fatal(err)
	}
	net, err := grid.NewNetwork(c, grid.DCOptions{})
	if err != nil {
		t.Fatal(err)
	}
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
