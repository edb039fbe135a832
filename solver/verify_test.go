package solver_test

import (
	"math"
	"strings"
	"testing"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/sparse"
)

// lp is min x₁ + x₂ s.t. x₁ + x₂ = 1 (zero row), x ≥ 0 (rows −x ≤ 0), with
// the optimal pair x = (0.5, 0.5), y = (−1, 0, 0).
func lp() *solver.Problem {
	t := sparse.NewTriplets(3, 2, 4)
	t.Append(0, 0, 1)
	t.Append(0, 1, 1)
	t.Append(1, 0, -1)
	t.Append(2, 1, -1)
	return &solver.Problem{Q: []float64{1, 1}, A: t.ToCSC(), B: []float64{1, 0, 0},
		Cones: []cone.Cone{cone.NewZero(1), cone.NewNonnegative(2)}}
}

func TestMeasureExact(t *testing.T) {
	p := lp()
	acc, err := solver.Measure(p, []float64{0.5, 0.5}, []float64{0, 0.5, 0.5}, []float64{-1, 0, 0})
	if err != nil {
		t.Fatal(err)
	}
	if acc.Max() != 0 || acc.PrimalObjective != 1 || acc.DualObjective != 1 {
		t.Errorf("exact optimum measured as %v (objectives %v, %v)", acc, acc.PrimalObjective, acc.DualObjective)
	}
}

// TestCertifyDowngrades perturbs the optimal pair and checks each violation
// is caught and named: the status drops to AlmostOptimal (within 1e-5) or
// NumericalError, and a diagnostic explains it.
func TestCertifyDowngrades(t *testing.T) {
	p := lp()
	cases := []struct {
		name    string
		x, s, y []float64
		want    solver.Status
		field   func(solver.Accuracy) float64
		value   float64 // expected value of field
	}{
		{"primal residual", []float64{0.5, 0.5 + 1e-6}, []float64{0, 0.5, 0.5}, []float64{-1, 0, 0}, solver.AlmostOptimal,
			func(a solver.Accuracy) float64 { return a.PrimalResidual }, 1e-6 / (2 + 1e-6)},
		{"dual cone", []float64{0.5, 0.5}, []float64{0, 0.5, 0.5}, []float64{-1, -1e-3, 0}, solver.NumericalError,
			func(a solver.Accuracy) float64 { return a.DualCone }, 1e-3 / (1 + 1e-3)},
		{"primal cone", []float64{1.5, -0.5}, []float64{0, 1.5, -0.5}, []float64{-1, 0, 0}, solver.NumericalError,
			func(a solver.Accuracy) float64 { return a.PrimalCone }, 0.5 / 2.5},
	}
	for _, c := range cases {
		sol := &solver.Solution{Status: solver.Optimal, X: c.x, S: c.s, Y: c.y}
		acc := solver.Certify(p, sol, 1e-8, 1e-5)
		if sol.Status != c.want || sol.Diagnostic == "" || !strings.Contains(sol.Diagnostic, "re-check") {
			t.Errorf("%s: status %v, diagnostic %q; want %v with a diagnostic", c.name, sol.Status, sol.Diagnostic, c.want)
		}
		if got := c.field(acc); math.Abs(got-c.value) > 1e-9*c.value {
			t.Errorf("%s: measured %v, want about %v", c.name, got, c.value)
		}
	}
}

// TestSensitivityCatchesLargeDuals: a point whose residuals are small
// relative to the data but whose dual is huge moves the objective; the
// sensitivity term |y|ᵀ|r_p| reports it.
func TestSensitivityCatchesLargeDuals(t *testing.T) {
	// min x s.t. x = 1 scaled by 1e6 in the row: 1e6·x = 1e6, y = −1e-6… then
	// perturb x by 1e-9·(1 + 1e6) relative → objective error ≈ 1e-3.
	tr := sparse.NewTriplets(1, 1, 1)
	tr.Append(0, 0, 1e-6)
	p := &solver.Problem{Q: []float64{1}, A: tr.ToCSC(), B: []float64{1e-6}, Cones: []cone.Cone{cone.NewZero(1)}}
	// exact: x = 1, y = −1e6. A point x = 1.001 has primal residual 1e-9
	// (relative 1e-9) but objective error 1e-3.
	x := []float64{1.001}
	acc, err := solver.Measure(p, x, []float64{0}, []float64{-1e6})
	if err != nil {
		t.Fatal(err)
	}
	if acc.PrimalResidual > 2e-9 {
		t.Fatalf("primal residual %v, the example needs it tiny", acc.PrimalResidual)
	}
	if math.Abs(acc.Sensitivity-1e-3/1.001) > 1e-6 {
		t.Errorf("sensitivity %v, want ≈ 1e-3 (|y|·|r_p| = 1e6·1e-9 relative to the objective 1.001)", acc.Sensitivity)
	}
}
