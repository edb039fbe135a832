package highs

import (
	"context"
	"math"
	"testing"

	"github.com/privopt/privopt/sparse"
)

// SetRowBoundsSet (unsorted indices) gives the LP that SetRowBounds row by row
// gives, and SetHessian turns the LP into a QP with a closed form:
// min ½(x₁² + x₂²) − 2x₁ − 3x₂ s.t. x₁ + x₂ ≤ u has x = (2, 3) for u ≥ 5 and
// x = (2 + (u−5)/2, 3 + (u−5)/2) below; clearing the Hessian restores the LP.
func TestSetRowBoundsSetAndHessian(t *testing.T) {
	ctx := context.Background()
	lp := NewLP(Options{})
	defer lp.Close()
	if err := lp.AddColumns([]float64{-2, -3}, []float64{0, 0}, []float64{10, 10}); err != nil {
		t.Fatal(err)
	}
	rows := sparse.NewTriplets(2, 3, 6)
	rows.Append(0, 0, 1) // row 0: x₁ + x₂
	rows.Append(1, 0, 1)
	rows.Append(0, 1, 1) // row 1: x₁
	rows.Append(1, 2, 1) // row 2: x₂
	inf := math.Inf(1)
	if err := lp.AddRows([]float64{-inf, -inf, -inf}, []float64{4, inf, inf}, rows.ToCSC()); err != nil {
		t.Fatal(err)
	}
	// LP: min −2x₁ − 3x₂, x₁ + x₂ ≤ 4, x₁ ≤ 3, x₂ ≤ 1 → x = (3, 1), −9.
	if err := lp.SetRowBoundsSet([]int{2, 1}, []float64{-inf, -inf}, []float64{1, 3}); err != nil {
		t.Fatal(err)
	}
	res, err := lp.Solve(ctx)
	if err != nil || math.Abs(res.Objective+9) > 1e-9 {
		t.Fatalf("LP after SetRowBoundsSet: %v %+v", err, res)
	}
	if err := lp.SetRowBoundsSet([]int{1, 2}, []float64{-inf, -inf}, []float64{inf, inf}); err != nil {
		t.Fatal(err)
	}
	if err := lp.SetHessian(diag(1, 1)); err != nil {
		t.Fatal(err)
	}
	for _, u := range []float64{4, 7, 1} {
		if err := lp.SetRowBoundsSet([]int{0}, []float64{-inf}, []float64{u}); err != nil {
			t.Fatal(err)
		}
		res, err := lp.Solve(ctx)
		if err != nil || !res.Status.OK() {
			t.Fatalf("QP u = %v: %v %+v", u, err, res)
		}
		sh := math.Min(0, (u-5)/2)
		want := []float64{2 + sh, 3 + sh}
		for j := range want {
			if math.Abs(res.X[j]-want[j]) > 1e-6 {
				t.Fatalf("QP u = %v: x = %v, want %v", u, res.X, want)
			}
		}
	}
	if err := lp.SetHessian(nil); err != nil {
		t.Fatal(err)
	}
	if err := lp.SetRowBoundsSet([]int{0}, []float64{-inf}, []float64{4}); err != nil {
		t.Fatal(err)
	}
	res, err = lp.Solve(ctx)
	if err != nil || math.Abs(res.Objective+12) > 1e-9 { // x = (0, 4)
		t.Fatalf("LP after clearing the Hessian: %v %+v", err, res)
	}

	for name, err := range map[string]error{
		"duplicate row":  lp.SetRowBoundsSet([]int{1, 1}, []float64{0, 0}, []float64{1, 1}),
		"row range":      lp.SetRowBoundsSet([]int{3}, []float64{0}, []float64{1}),
		"lengths":        lp.SetRowBoundsSet([]int{0}, []float64{0, 1}, []float64{1, 2}),
		"lower > upper":  lp.SetRowBoundsSet([]int{0}, []float64{2}, []float64{1}),
		"lower triangle": lp.SetHessian(lowerEntry()),
		"not convex":     lp.SetHessian(negDiag()),
	} {
		if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func diag(v ...float64) *sparse.CSC {
	t := sparse.NewTriplets(len(v), len(v), len(v))
	for i, x := range v {
		t.Append(i, i, x)
	}
	return t.ToCSC()
}

func lowerEntry() *sparse.CSC {
	t := sparse.NewTriplets(2, 2, 1)
	t.Append(1, 0, 1)
	return t.ToCSC()
}

func negDiag() *sparse.CSC { return diag(-1, 1) }
