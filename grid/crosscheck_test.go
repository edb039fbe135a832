package grid_test

import (
	"context"
	"math"
	"testing"

	"github.com/privopt/privopt/chance"
	"github.com/privopt/privopt/grid"
	"github.com/privopt/privopt/internal/shareddata"
	"github.com/privopt/privopt/query"
)

// TestPrivateAgainstGenericProgramPerturbation cross-checks the DC-OPF-specific
// private program (vertex-split form, two coupled OPF copies) with the generic
// program perturbation of package query (lift of the canonical nominal LP to the
// decision rule x̃ = x̄ + Xζ for every column, robust counterpart from package
// chance). With bounded noise and the robust method both are exact
// reformulations of the same program, so the optimal expected costs must agree.
func TestPrivateAgainstGenericProgramPerturbation(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"pglib_opf_case5_pjm", "pglib_opf_case14_ieee", "pglib_opf_case57_ieee"} {
		c, err := grid.ReadCase(shareddata.Path(t, "pglib/"+name+".m"))
		if err != nil {
			t.Fatal(err)
		}
		n, err := grid.NewNetwork(c, grid.PowerModelsDC())
		if err != nil {
			t.Fatal(err)
		}
		pr, err := n.PrivateRelease(ctx, grid.PrivateOptions{Alpha: 1, Epsilon: 1, Delta: 1e-4, Noise: "truncated-laplace", Method: grid.Robust})
		if err != nil {
			t.Fatal(err)
		}
		// The same program through package query, on the PTDF nominal LP.
		opf, err := n.BuildOPF(grid.OPFOptions{Formulation: grid.PTDF, LinearCost: true})
		if err != nil {
			t.Fatal(err)
		}
		can, err := opf.Model.Canonicalize()
		if err != nil {
			t.Fatal(err)
		}
		cols := make([]int, n.NumGens())
		for g := range cols {
			cols[g] = opf.P.Col(g)
		}
		sol, err := query.Solve(ctx, can.Problem, query.Spec{
			Query: query.WeightedSum(cols, pr.Cost),
			Privacy: query.Privacy{Mechanism: query.TruncatedLaplace, Epsilon: 1, Delta: 1e-4,
				Sensitivity: query.Sensitivity{Value: pr.Sensitivity, Norm: 1, Source: query.Declared}},
			Chance: chance.Spec{Approximation: chance.Approximation{Method: chance.Robust}},
		})
		if err != nil {
			t.Fatalf("%s: query.Solve: %v", name, err)
		}
		t.Logf("%s: grid %.4f, query %.4f (C* %.4f)", name, pr.MeanCost, sol.Objective, pr.NominalCost)
		if math.Abs(sol.Objective-pr.MeanCost) > 1e-6*pr.MeanCost {
			t.Errorf("%s: generic program perturbation %.6f, grid %.6f", name, sol.Objective, pr.MeanCost)
		}
	}
}
