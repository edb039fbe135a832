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

// Release the optimal cost with (ε, δ)-differential privacy for loads that
// differ by at most α = 1 MW, using bounded (truncated Laplace) noise and the
// robust method, so every released cost comes from a feasible dispatch.
func ExampleNetwork_PrivateRelease() {
	net, err := grid.NewNetwork(grid.DemoCase(), grid.DCOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	pr, err := net.PrivateRelease(context.Background(), grid.PrivateOptions{
		Query: grid.Query{Kind: grid.QueryCost}, Alpha: 1, Epsilon: 1, Delta: 1e-4,
		Noise: "truncated-laplace", Method: grid.Robust,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	// pr.Released is random; the guarantee and the expected cost are not. Here
	// the support is A = (50/ε)·ln(1 + (e^ε − 1)/(2δ)) = 452.9 and, as gen 1 is
	// the marginal unit on both ends, the expected cost is C* + A.
	fmt.Printf("sensitivity %.0f $/h, noise support ±%.1f $/h\n", pr.Sensitivity, pr.ZetaHi)
	fmt.Printf("nominal %.2f $/h, expected private %.2f $/h\n", pr.NominalCost, pr.MeanCost)
	fmt.Println("released cost attainable:", pr.Feasible)
	// Output:
	// sensitivity 50 $/h, noise support ±452.9 $/h
	// nominal 7060.66 $/h, expected private 7513.59 $/h
	// released cost attainable: true
}
