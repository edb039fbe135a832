package main

import (
	"context"
	"math"
	"testing"

	"github.com/privopt/privopt/internal/shareddata"
	"github.com/privopt/privopt/solver"
)

// TestGridInstancesBothRoutes: the DC-OPF LPs of the 5- and 14-bus PGLib
// cases are LPs of the sizes the crossover table reports (A's nonzeros),
// and the two routes the crossover compares — HiGHS first (a vertex) and
// the IPM first (an interior point of the optimal face) — reach the same
// optimal value to 10⁻⁷ relative: two independent solvers.
func TestGridInstancesBothRoutes(t *testing.T) {
	shareddata.Path(t, "pglib/pglib_opf_case14_ieee.m")
	insts, err := gridInstances([]string{"5_pjm", "14_ieee"})
	if err != nil {
		t.Fatal(err)
	}
	nnz := map[string]int{ // as measured (BENCHMARKS.md, "Small LPs on the default route, round 9")
		"dcopf-lin-btheta_5_pjm": 58, "dcopf-lin-ptdf_5_pjm": 63, "dcopf-pwl-ptdf_5_pjm": 63,
		"dcopf-lin-btheta_14_ieee": 151, "dcopf-lin-ptdf_14_ieee": 169, "dcopf-pwl-ptdf_14_ieee": 169,
	}
	if len(insts) != len(nnz) {
		t.Fatalf("%d instances, want %d", len(insts), len(nnz))
	}
	ctx := context.Background()
	for _, in := range insts {
		if got := in.p.A.Nnz(); got != nnz[in.name] {
			t.Errorf("%s: nnz(A) = %d, want %d", in.name, got, nnz[in.name])
		}
		h, err := lpFirst(-1).Solve(ctx, in.p, solver.Settings{})
		if err != nil {
			t.Fatal(err)
		}
		i, err := lpFirst(math.MaxInt).Solve(ctx, in.p, solver.Settings{})
		if err != nil {
			t.Fatal(err)
		}
		if h.Status != solver.Optimal || i.Status != solver.Optimal || h.Solver != "highs" || i.Solver != "ipm" {
			t.Fatalf("%s: %v by %s, %v by %s; want optimal by highs and by ipm", in.name, h.Status, h.Solver, i.Status, i.Solver)
		}
		if d := math.Abs(h.Objective - i.Objective); d > 1e-7*math.Max(1, math.Abs(h.Objective)) {
			t.Errorf("%s: objectives %v (highs) and %v (ipm) differ by %v", in.name, h.Objective, i.Objective, d)
		}
	}
}
