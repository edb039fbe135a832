package ipm

import (
	"testing"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/sparse"
)

// TestEdgeCases: an unconstrained QP (minimizer −P⁻¹q), a problem with no
// variables (feasibility of b ∈ K), and empty cone blocks.
func TestEdgeCases(t *testing.T) {
	p := &solver.Problem{P: upperOf([][]float64{{2, 0}, {0, 4}}), Q: []float64{-2, 4}, A: sparse.NewCSC(0, 2), B: nil}
	sol := solveT(t, p, Settings{})
	if sol.Status != solver.Optimal || !close(sol.X[0], 1, 1e-7) || !close(sol.X[1], -1, 1e-7) || !close(sol.Objective, -3, 1e-8) {
		t.Errorf("unconstrained QP: %v x %v objective %v, want (1, −1), −3", sol.Status, sol.X, sol.Objective)
	}
	// no variables: s = b must lie in K
	p = &solver.Problem{Q: nil, A: sparse.NewCSC(2, 0), B: []float64{1, 2}, Cones: []cone.Cone{nn(2)}}
	sol = solveT(t, p, Settings{})
	if sol.Status != solver.Optimal || !close(sol.Objective, 0, 1e-9) {
		t.Errorf("no variables, feasible: %v objective %v", sol.Status, sol.Objective)
	}
	p.B = []float64{1, -2}
	sol = solveT(t, p, Settings{})
	if sol.Status != solver.PrimalInfeasible {
		t.Errorf("no variables, infeasible: %v", sol.Status)
	}
	// empty blocks among others
	p = &solver.Problem{Q: []float64{1}, A: dense([][]float64{{-1}}), B: []float64{-2}, Cones: []cone.Cone{cone.NewZero(0), nn(1), nn(0)}}
	sol = solveT(t, p, Settings{})
	if sol.Status != solver.Optimal || !close(sol.X[0], 2, 1e-7) {
		t.Errorf("empty blocks: %v x %v, want 2", sol.Status, sol.X)
	}
	// a redundant (duplicated) equality row and a free variable direction with P = 0 column
	p = &solver.Problem{Q: []float64{1, 0}, A: dense([][]float64{{1, 1}, {1, 1}, {-1, 0}}), B: []float64{1, 1, 0}, Cones: []cone.Cone{cone.NewZero(2), nn(1)}}
	sol = solveT(t, p, Settings{})
	if sol.Status != solver.Optimal || !close(sol.Objective, 0, 1e-7) {
		t.Errorf("redundant equalities: %v objective %v, want 0", sol.Status, sol.Objective)
	}
}
