package opfrelease_test

import (
	"bytes"
	"context"
	"fmt"

	"github.com/privopt/privopt/grid"
	"github.com/privopt/privopt/noise"
	"github.com/privopt/privopt/opfrelease"
)

// Release the optimal dispatch cost of the bundled six-bus network once. The
// plan is computed from public inputs only — the network without its loads
// and a public domain (here ±30% around a published reference profile, for
// which the demo case's own loads stand in) — and printed before any private
// value is read. Its congested corridor makes the price-cap bound the
// certified one (cap 100 $/MWh: 100 $/h per MW of α, plus twice the solver
// accuracy τ). The release then spends, solves and adds the noise.
func Example() {
	net, err := grid.NewNetwork(grid.DemoCase(), grid.DCOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	pub, loads, err := opfrelease.Split(net) // public network, private loads
	if err != nil {
		fmt.Println(err)
		return
	}
	dom, _ := grid.ReferenceBand(loads.Values(), 0.3)
	opt := opfrelease.DefaultOptions()
	opt.Rules.PriceCap = 100
	opt.Domain, opt.DomainSource = &dom, "published reference profile ± 30%"
	opt.ChanceSeed = 1 // reproducible uncertainty set (public, data-independent)
	plan, err := opfrelease.NewPlan(context.Background(), pub, opt)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(plan.Guarantee)
	fmt.Println("certificate verifies:", plan.Certificate.Verify() == nil)
	fmt.Println("released on a grid of", plan.ReleaseGrid)
	// A seeded source only to make the example's output stable: real releases
	// leave Source nil (crypto randomness).
	rel, err := plan.Release(context.Background(), loads, opfrelease.ReleaseOptions{Label: "hour 0", Source: noise.NewSeededSource(7)})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("estimate = released − offset:", rel.Estimate == rel.ReleasedValue-plan.Offset)
	// Output:
	// (1.000002, 0)-DP; sensitivity 100.001 (ℓ1, certified by opf-price-cap) (ε includes the floating-point snapping term)
	// certificate verifies: true
	// released on a grid of 128
	// estimate = released − offset: true
}

// Certify once, release every hour: the plan is saved to a file (its
// public inputs, certificate and public JSON), published, and loaded for
// each release; LoadPlan rebuilds it, reuses the checked certificate, and
// refuses a file that does not reproduce the saved plan.
func ExampleLoadPlan() {
	net, err := grid.NewNetwork(grid.DemoCase(), grid.DCOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	pub, loads, err := opfrelease.Split(net)
	if err != nil {
		fmt.Println(err)
		return
	}
	dom, _ := grid.ReferenceBand(loads.Values(), 0.3)
	opt := opfrelease.DefaultOptions()
	opt.Domain, opt.DomainSource, opt.ChanceSeed = &dom, "published reference profile ± 30%", 1
	plan, err := opfrelease.NewPlan(context.Background(), pub, opt)
	if err != nil {
		fmt.Println(err)
		return
	}
	file, err := plan.File()
	if err != nil {
		fmt.Println(err)
		return
	}
	var saved bytes.Buffer
	if err := file.Write(&saved); err != nil {
		fmt.Println(err)
		return
	}
	// Later (another process, the same network file):
	loaded, err := opfrelease.LoadPlan(context.Background(), &saved, pub)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(loaded.Guarantee == plan.Guarantee, loaded.Offset == plan.Offset)
	// Output:
	// true true
}

// The withdrawal domain of a plan: the public demand box shifted by the
// network's shunt withdrawals. A cost certificate for releases on this
// network (`privopt certify`, Options.CertificateFile) is computed over it.
// Here bus 2 of the demo case gets a 3 MW shunt withdrawal (Gs).
func ExamplePublicNetwork_WithdrawalDomain() {
	c := grid.DemoCase()
	c.Buses = append([]grid.Bus(nil), c.Buses...)
	c.Buses[1].Gs = 3
	net, err := grid.NewNetwork(c, grid.DCOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	pub, loads, err := opfrelease.Split(net)
	if err != nil {
		fmt.Println(err)
		return
	}
	dom, _ := grid.ReferenceBand(loads.Values(), 0.1)
	w := pub.WithdrawalDomain(dom)
	for i := range 3 {
		fmt.Printf("bus %d: demand [%.4g, %.4g] MW, withdrawal [%.4g, %.4g] MW\n", net.BusID[i], dom.Lo[i], dom.Hi[i], w.Lo[i], w.Hi[i])
	}
	// Output:
	// bus 1: demand [0, 0] MW, withdrawal [0, 0] MW
	// bus 2: demand [0, 0] MW, withdrawal [3, 3] MW
	// bus 3: demand [108, 132] MW, withdrawal [108, 132] MW
}
