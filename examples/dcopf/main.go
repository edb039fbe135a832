// Command dcopf is a runnable example of privopt's grid package: it solves the
// DC optimal power flow of a MATPOWER case (the bundled six-bus demo network
// when no file is given), then releases the optimal dispatch cost with
// differential privacy by program perturbation and compares it with the input
// and output perturbation baselines over simulated releases.
//
// Usage:
//
//	go run ./examples/dcopf [-alpha 1] [-epsilon 1] [CASE.m]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/privopt/privopt/grid"
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

	// 2. Private release of the cost (Laplace noise, vertex method).
	pr, err := net.PrivateRelease(ctx, grid.PrivateOptions{Query: grid.Query{Kind: grid.QueryCost}, Alpha: alpha, Epsilon: eps})
	if errors.Is(err, grid.ErrPrivateInfeasible) {
		fmt.Println("private program infeasible: lower α or use bounded noise with the robust method")
		return nil
	}
	if err != nil {
		return err
	}
	fmt.Printf("\nprivate release (ε = %g, α = %g MW, sensitivity %.4g $/h):\n", eps, alpha, pr.Sensitivity)
	fmt.Printf("  released cost %.2f $/h, expected cost of the private dispatch %.2f $/h, dispatch feasible: %v\n",
		pr.Released, pr.MeanCost, pr.Feasible)

	// 3. Compare strategies over 1000 simulated releases.
	ev, err := pr.Evaluate(ctx, grid.EvaluateOptions{N: 1000, InputN: 200})
	if err != nil {
		return err
	}
	fmt.Printf("\n%-8s %9s %14s\n", "strategy", "loss (%)", "infeasible (%)")
	fmt.Printf("%-8s %9.3f %14.2f\n", "program", ev.Program.LossPct, ev.Program.InfeasiblePct)
	fmt.Printf("%-8s %9.3f %14.2f\n", "input", ev.Input.LossPct, ev.Input.InfeasiblePct)
	fmt.Printf("%-8s %9.3f %14.2f\n", "output", ev.Output.LossPct, ev.Output.InfeasiblePct)
	return nil
}
