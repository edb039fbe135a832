package grid_test

import (
	"context"
	"fmt"

	"github.com/privopt/privopt/grid"
)

// Solve the DC-OPF of the bundled six-bus network and read the nodal prices:
// the 80 MW corridor 1–4 congests, so prices differ from bus to bus.
func Example() {
	net, err := grid.NewNetwork(grid.DemoCase(), grid.DCOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	opf, err := net.BuildOPF(grid.OPFOptions{Formulation: grid.PTDF})
	if err != nil {
		fmt.Println(err)
		return
	}
	sol, err := opf.Solve(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("status %v, cost %.2f $/h\n", sol.Status, sol.Cost)
	for i, lmp := range sol.LMP {
		fmt.Printf("bus %d: %.2f $/MWh\n", net.BusID[i], lmp)
	}
	// Output:
	// status optimal, cost 7060.66 $/h
	// bus 1: 12.00 $/MWh
	// bus 2: 28.07 $/MWh
	// bus 3: 32.63 $/MWh
	// bus 4: 41.09 $/MWh
	// bus 5: 35.00 $/MWh
	// bus 6: 34.32 $/MWh
}

// Certify the sensitivity of the optimal cost to one bus load changing by at
// most α = 1 MW over a declared domain. In testdata/case2_merit.m (80 MW at
// 10 $/MWh and 100 MW at 30 $/MWh serve 100 MW through an unlimited line) the
// network cannot congest, so the bound is the marginal price over the domain's
// total load; on demo6, whose 1–4 corridor binds, only the price-cap bound
// holds.
func ExampleNetwork_CertifyCostSensitivity() {
	c, err := grid.ReadCase("testdata/case2_merit.m")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, kc := range []*grid.Case{c, grid.DemoCase()} {
		net, err := grid.NewNetwork(kc, grid.DCOptions{})
		if err != nil {
			fmt.Println(err)
			return
		}
		dom, _ := net.LoadBand(0.1) // each load within ±10%
		cert, err := net.CertifyCostSensitivity(dom, 1, grid.MarketRules{PriceCap: 100})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: %s, %.4g $/h per MW\n", kc.Name, cert.Method, cert.PerMW)
		if err := net.VerifyCostCertificate(cert, dom); err != nil {
			fmt.Println(err)
		}
	}
	// Output:
	// case2_merit: uncongested-merit-order, 30 $/h per MW
	// demo6: price-cap, 100 $/h per MW
}

// Certify the N-1 program of the hand-solved three-bus loop: only branch
// 1–3 is limited (50 MW), and after the outage of 1–2 or 2–3 its flow must
// stay within 1.5 × 50 MW. The 50 $/MWh unit at bus 3 (100 MW) can serve
// bus 3's load alone, so no price exceeds 50 $/MWh, which bus 3 reaches
// already in the base case: the N-1 bound proves exactly 50. The four
// post-contingency rows are the two directions of two (outage, monitored)
// pairs; both pairs are kept (the N-1 cut generation at the domain's
// corners needs them).
func ExampleNetwork_CertifyN1LMPBound() {
	c, err := grid.ReadCase("testdata/case3_congested.m")
	if err != nil {
		fmt.Println(err)
		return
	}
	net, err := grid.NewNetwork(c, grid.DCOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	dom := grid.LoadDomain{Lo: []float64{0, 0, 81}, Hi: []float64{0, 10, 99}}
	cert, ev, err := net.CertifyN1LMPBound(context.Background(), dom, 1, grid.MarketRules{PriceCap: 1000}, grid.N1BoundOptions{PostFactor: 1.5})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: %.4g $/h per MW; %d rows, %d pairs kept, screened %v\n", cert.Method, cert.PerMW, ev.Rows, len(ev.Kept), ev.Screened)
	// Output:
	// lmp-bound-n1: 50 $/h per MW; 4 rows, 2 pairs kept, screened true
}
