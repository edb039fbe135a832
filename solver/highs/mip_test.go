package highs

import (
	"context"
	"math"
	"testing"

	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/sparse"
)

// A 0/1 knapsack solved by enumeration: maximize 5x₁ + 4x₂ + 3x₃ subject to
// 2x₁ + 3x₂ + x₃ ≤ 5. The best of the 8 points is x = (1, 1, 0), value 9;
// the LP relaxation's value is 10 (x = (1, 2/3, 1)). SolveMIP must return the
// integer optimum with a proven dual bound in [9, 9(1 + gap)], not the
// relaxation's 10.
func TestSolveMIPKnapsack(t *testing.T) {
	c := []float64{5, 4, 3}
	w := []float64{2, 3, 1}
	best := math.Inf(-1)
	for m := 0; m < 8; m++ {
		var v, wt float64
		for j := 0; j < 3; j++ {
			if m>>j&1 == 1 {
				v, wt = v+c[j], wt+w[j]
			}
		}
		if wt <= 5 {
			best = math.Max(best, v)
		}
	}
	lp := NewLP(Options{})
	defer lp.Close()
	if err := lp.AddColumns(c, []float64{0, 0, 0}, []float64{1, 1, 1}); err != nil {
		t.Fatal(err)
	}
	tr := sparse.NewTriplets(3, 1, 3)
	for j, v := range w {
		tr.Append(j, 0, v)
	}
	if err := lp.AddRows([]float64{math.Inf(-1)}, []float64{5}, tr.ToCSC()); err != nil {
		t.Fatal(err)
	}
	if err := lp.SetObjectiveSense(true); err != nil {
		t.Fatal(err)
	}
	if err := lp.SetIntegral([]int{0, 1, 2}); err != nil {
		t.Fatal(err)
	}
	r, err := lp.SolveMIP(context.Background(), 0, 1e-9)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != solver.Optimal || math.Abs(r.Objective-best) > 1e-9 {
		t.Fatalf("status %v objective %v, want optimal %v", r.Status, r.Objective, best)
	}
	if r.DualBound < best-1e-9 || r.DualBound > best*(1+1e-6) {
		t.Errorf("dual bound %v, want in [%v, %v]", r.DualBound, best, best*(1+1e-6))
	}
	if r.X[0] != 1 || r.X[1] != 1 || r.X[2] != 0 {
		t.Errorf("x = %v, want (1, 1, 0)", r.X)
	}
	if err := lp.SetIntegral([]int{3}); err == nil {
		t.Error("column 3 of 3 accepted")
	}
	// A cancelled context stops the search without a wrong bound.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, err = lp.SolveMIP(ctx, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status == solver.Optimal && r.DualBound < best-1e-9 {
		t.Errorf("cancelled: dual bound %v below the optimum", r.DualBound)
	}
}
