package solvertest_test

import (
	"context"
	"fmt"

	"github.com/privopt/privopt/internal/solvertest"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/ipm"
)

// Example solves the first six instances of the suite with the IPM and
// checks each answer independently on the badly scaled data.
func Example() {
	for _, inst := range solvertest.Suite()[:6] {
		sol, err := ipm.New().Solve(context.Background(), inst.Problem, solver.Settings{})
		if err != nil {
			fmt.Println(err)
			return
		}
		tol := 1e-5
		if inst.Want == solver.Optimal {
			tol = 1e-6
		}
		verdict := "checks out"
		if msg := solvertest.Check(inst.Problem, sol, inst.Objective, tol); msg != "" {
			verdict = msg
		}
		fmt.Printf("%-20s %-10v %s\n", inst.Name, sol.Status, verdict)
	}
	// Output:
	// lp-0-optimal         optimal    checks out
	// socp-1-infeasible    infeasible checks out
	// lp-5-unbounded       unbounded  checks out
	// socp-3-optimal       optimal    checks out
	// lp-7-infeasible      infeasible checks out
	// socp-8-unbounded     unbounded  checks out
}
