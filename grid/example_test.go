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
