package solver_test

import (
	"math"
	"strings"
	"testing"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/sparse"
)

// smallRowLP is min −x₁ − x₂ s.t. 10⁶x₁ ≤ 10⁶ and r·x₂ ≤ r (rows with terms
// 10⁶ and r), optimum x = (1, 1), y = (10⁻⁶, 1/r).
func smallRowLP(r float64) *solver.Problem {
	t := sparse.NewTriplets(2, 2, 2)
	t.Append(0, 0, 1e6)
	t.Append(1, 1, r)
	return &solver.Problem{Q: []float64{-1, -1}, A: t.ToCSC(), B: []float64{1e6, r},
		Cones: []cone.Cone{cone.NewNonnegative(2)}}
}

// TestRowAccuracySmallRow: a point violating the small row by 11% of its
// terms, with the slack reported as b − Ax (as HiGHS does), has a global
// PrimalCone of 2.5·10⁻⁶; the row-wise Primal is the violation over the row's
// terms plus RowFloor times its coefficient at ‖x‖∞.
func TestRowAccuracySmallRow(t *testing.T) {
	const r = 1e-5
	p := smallRowLP(r)
	x := []float64{1, 1.25}
	s := []float64{0, r - r*1.25} // −0.25r: the row is violated by 0.25r
	y := []float64{1e-6, 1 / r}
	acc, err := solver.Measure(p, x, s, y)
	if err != nil {
		t.Fatal(err)
	}
	viol, terms, floor := 0.25*r, r+1.25*r+0.25*r, solver.RowFloor*r*1.25
	if want := viol / (terms + floor); math.Abs(acc.Rows.Primal-want) > 1e-12*want || acc.Rows.Row != 1 {
		t.Errorf("Rows.Primal = %v at row %d, want %v at row 1", acc.Rows.Primal, acc.Rows.Row, want)
	}
	if acc.PrimalCone > 1e-5 || acc.PrimalResidual != 0 {
		t.Errorf("the global primal measures were expected to be small: %v", acc)
	}
	// The violated row is active (y = 1/r): its objective impact is
	// |y|·0.25r = 0.25 over the objective scale min(|pobj|, |dobj|) =
	// min(2.25, 2).
	if want := 0.25 / 2; math.Abs(acc.Rows.Sensitivity-want) > 1e-12 {
		t.Errorf("Rows.Sensitivity = %v, want %v", acc.Rows.Sensitivity, want)
	}
	sol := &solver.Solution{Status: solver.Optimal, X: x, S: s, Y: y}
	solver.Certify(p, sol, 1e-8, 1e-5)
	if sol.Status != solver.NumericalError || !strings.Contains(sol.Diagnostic, "row-wise: primal") {
		t.Errorf("Certify: %v (%s), want numerical-error naming the row-wise primal violation", sol.Status, sol.Diagnostic)
	}
	exact := &solver.Solution{Status: solver.Optimal, X: []float64{1, 1}, S: []float64{0, 0}, Y: y}
	solver.Certify(p, exact, 1e-8, 1e-5)
	if exact.Status != solver.Optimal {
		t.Errorf("the exact optimum: %v (%s)", exact.Status, exact.Diagnostic)
	}
}

// TestRowAccuracyRowScaling: scaling a row by ρ > 0 (and its dual by 1/ρ)
// leaves the row-wise Primal unchanged (its terms and its floor both scale by
// ρ), as RowAccuracy promises.
func TestRowAccuracyRowScaling(t *testing.T) {
	x := []float64{0.9, 1.1}
	s := []float64{0.05, -0.02}
	y := []float64{1.1e-6, 1e5 * 0.9}
	base, err := solver.Measure(smallRowLP(1e-5), x, s, y)
	if err != nil {
		t.Fatal(err)
	}
	for _, rho := range []float64{1e-6, 1e3, 1e8} {
		ys := []float64{y[0], y[1] / rho}
		ss := []float64{s[0], s[1] * rho}
		acc, err := solver.Measure(smallRowLP(1e-5*rho), x, ss, ys)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(acc.Rows.Primal-base.Rows.Primal) > 1e-12*base.Rows.Primal || acc.Rows.Row != base.Rows.Row {
			t.Errorf("ρ = %g: %v, unscaled %v", rho, acc.Rows, base.Rows)
		}
	}
}
