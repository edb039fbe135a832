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
	r, err := lp.SolveMIP(context.Background(), MIPLimits{RelGap: 1e-9})
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
	r, err = lp.SolveMIP(ctx, MIPLimits{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status == solver.Optimal && r.DualBound < best-1e-9 {
		t.Errorf("cancelled: dual bound %v below the optimum", r.DualBound)
	}
}

// multiKnapsack is a 0/1 knapsack with 20 items and 5 capacity rows, from a
// fixed linear congruential sequence, and its optimum by enumerating the
// 2²⁰ points.
func multiKnapsack(t *testing.T) (*LP, float64) {
	const n, m = 20, 5
	seq := uint64(12345)
	next := func() float64 {
		seq = seq*6364136223846793005 + 1442695040888963407
		return float64(seq>>33%90 + 10)
	}
	c := make([]float64, n)
	w := make([][]float64, m)
	for j := range c {
		c[j] = next()
	}
	capy := make([]float64, m)
	for i := range w {
		w[i] = make([]float64, n)
		var s float64
		for j := range w[i] {
			w[i][j] = next()
			s += w[i][j]
		}
		capy[i] = math.Floor(s / 2)
	}
	best := math.Inf(-1)
	for mask := 0; mask < 1<<n; mask++ {
		ok := true
		for i := 0; i < m && ok; i++ {
			var s float64
			for j := 0; j < n; j++ {
				if mask>>j&1 == 1 {
					s += w[i][j]
				}
			}
			ok = s <= capy[i]
		}
		if !ok {
			continue
		}
		var v float64
		for j := 0; j < n; j++ {
			if mask>>j&1 == 1 {
				v += c[j]
			}
		}
		best = math.Max(best, v)
	}
	lp := NewLP(Options{RandomSeed: 3})
	lo, hi := make([]float64, n), make([]float64, n)
	cols := make([]int, n)
	for j := range hi {
		hi[j], cols[j] = 1, j
	}
	if err := lp.AddColumns(c, lo, hi); err != nil {
		t.Fatal(err)
	}
	tr := sparse.NewTriplets(n, m, n*m)
	rlo := make([]float64, m)
	for i := range w {
		rlo[i] = math.Inf(-1)
		for j, v := range w[i] {
			tr.Append(j, i, v)
		}
	}
	if err := lp.AddRows(rlo, capy, tr.ToCSC()); err != nil {
		t.Fatal(err)
	}
	if err := lp.SetObjectiveSense(true); err != nil {
		t.Fatal(err)
	}
	if err := lp.SetIntegral(cols); err != nil {
		t.Fatal(err)
	}
	return lp, best
}

// The LP-iteration budget stops the search at a deterministic point: two
// runs on fresh copies of the program stop with the same bound, nodes and
// iterations, the bound is never below the enumerated optimum, and without
// the budget the search closes at the optimum. (A second solve of the same
// LP object starts from what the first left behind, so it may differ.)
func TestSolveMIPWorkBudget(t *testing.T) {
	var first *MIPResult
	var best float64
	for run := 0; run < 2; run++ {
		var lp *LP
		lp, best = multiKnapsack(t)
		defer lp.Close()
		r, err := lp.SolveMIP(context.Background(), MIPLimits{RelGap: 1e-9, MaxLPIterations: 40})
		if err != nil {
			t.Fatal(err)
		}
		if r.Stop != MIPStopWork || !r.Stop.Reproducible() || r.LPIterations < 40 {
			t.Fatalf("run %d: stop %q after %d LP iterations, want the work budget of 40", run, r.Stop, r.LPIterations)
		}
		if r.DualBound < best-1e-9 {
			t.Errorf("run %d: dual bound %v below the enumerated optimum %v", run, r.DualBound, best)
		}
		if first == nil {
			first = r
		} else if r.DualBound != first.DualBound || r.Nodes != first.Nodes || r.LPIterations != first.LPIterations {
			t.Errorf("rerun: bound %v, %d nodes, %d iterations; first run %v, %d, %d", r.DualBound, r.Nodes, r.LPIterations, first.DualBound, first.Nodes, first.LPIterations)
		}
	}
	lp, _ := multiKnapsack(t)
	defer lp.Close()
	r, err := lp.SolveMIP(context.Background(), MIPLimits{RelGap: 1e-9})
	if err != nil {
		t.Fatal(err)
	}
	if r.Stop != MIPStopGap || math.Abs(r.Objective-best) > 1e-9 || r.DualBound > best*(1+1e-8) {
		t.Errorf("unlimited: stop %q, objective %v, bound %v; enumerated optimum %v", r.Stop, r.Objective, r.DualBound, best)
	}
	if r.LPIterations <= first.LPIterations {
		t.Errorf("unlimited search used %d LP iterations, the budgeted one %d", r.LPIterations, first.LPIterations)
	}
	if _, err := lp.SolveMIP(context.Background(), MIPLimits{MaxNodes: -1}); err == nil {
		t.Error("negative MaxNodes accepted")
	}
}
