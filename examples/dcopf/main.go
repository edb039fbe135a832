// Command dcopf is a runnable example of privopt's grid package: it solves the
// DC optimal power flow of a MATPOWER case (the bundled six-bus demo network
// when no file is given), then releases the optimal dispatch cost once with
// differential privacy by program perturbation (package opfrelease: certified
// sensitivity, market-rule backstops), and — as private diagnostics — compares
// it with the input and output perturbation baselines over simulated releases.
//
// Usage:
//
//	go run ./examples/dcopf [-alpha 1] [-epsilon 1] [CASE.m]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/privopt/privopt/grid"
	"github.com/privopt/privopt/opfrelease"
	"github.com/privopt/privopt/query"
)

func main() {
	alpha := flag.Float64("alpha", 1, "adjacency α (MW)")
	eps := flag.Float64("epsilon", 1, "privacy parameter ε")
	flag.Parse()
	if err := run(*alpha, *eps, flag.Arg(0)); err != nil {
		fmt.Fprintln(os.Stderr, "dcopf:", err)
		os.Exit(1)
	}
}

func run(alpha, eps float64, path string) error {
	ctx := context.Background()
	c := grid.DemoCase()
	dc := grid.DCOptions{} // MATPOWER's DC model
	if path != "" {
		var err error
		if c, err = grid.ReadCase(path); err != nil {
			return err
		}
		dc = grid.PowerModelsDC() // the model of the PGLib-OPF DC baselines
	}
	net, err := grid.NewNetwork(c, dc)
	if err != nil {
		return err
	}

	// 1. Nominal DC-OPF: cost, dispatch and nodal prices.
	opf, err := net.BuildOPF(grid.OPFOptions{Formulation: grid.BTheta})
	if err != nil {
		return err
	}
	sol, err := opf.Solve(ctx)
	if err != nil {
		return err
	}
	if !sol.Status.OK() {
		return fmt.Errorf("DC-OPF %v", sol.Status)
	}
	fmt.Printf("%s: optimal cost %.2f $/h (HiGHS %v)\n", c.Name, sol.Cost, sol.Time.Solve)
	for g, p := range sol.Dispatch {
		fmt.Printf("  generator %d at bus %d: %.2f MW\n", net.Gen[g]+1, net.BusID[net.GenBus[g]], p)
	}

	// 2. One private release of the cost (Laplace noise, vertex method). The
	// public plan: the case's loads play a published reference profile, and
	// the domain is ±10% around it; the sensitivity is certified over it for
	// one bus load differing by at most α. The release spends, solves at the
	// private loads (here the case's own) and adds the noise.
	opt := opfrelease.DefaultOptions()
	opt.Alpha, opt.Epsilon = alpha, eps
	plan, loads, err := opfrelease.ReferencePlan(ctx, net, opt, 0.1)
	if err != nil {
		return err
	}
	rel, err := plan.Release(ctx, loads, opfrelease.ReleaseOptions{Label: "case"})
	if err != nil {
		return err
	}
	fmt.Printf("\nprivate release: %.6g %s (estimate %.6g after the published offset %.6g)\n  guarantee: %s\n", rel.ReleasedValue, plan.Unit, rel.Estimate, plan.Offset, plan.Guarantee)
	for _, s := range plan.Notes {
		fmt.Println("  note:", s)
	}
	pr, err := plan.Solve(ctx, loads) // PRIVATE: for the diagnostics below
	if err != nil {
		return err
	}

	// 3. PRIVATE diagnostics: compare strategies over 1000 simulated releases
	// (computed from the unperturbed data; not for publication).
	ev, err := pr.Evaluate(ctx, opfrelease.EvalOptions{N: 1000, InputN: 200, Seed: 1})
	if err != nil {
		return err
	}
	fmt.Printf("\nPRIVATE DIAGNOSTICS (simulated, never publish):\n%-8s %9s %14s\n", "strategy", "loss (%)", "infeasible (%)")
	for _, r := range []struct {
		name string
		e    *query.Evaluation
	}{{"program", ev.Program}, {"input", ev.Input}, {"output", ev.Output}} {
		fmt.Printf("%-8s %9.3f %14.2f\n", r.name, r.e.MeanLossPct, 100*r.e.InfeasibleRate)
	}
	return nil
}
