package highs_test

import (
	"context"
	"fmt"
	"math"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/highs"
	"github.com/privopt/privopt/sparse"
)

// Solve max 3x + 5y s.t. x ≤ 4, 2y ≤ 12, 3x + 2y ≤ 18, x, y ≥ 0 (as a
// minimization of −3x − 5y in standard form).
func ExampleSolver_Solve() {
	t := sparse.NewTriplets(5, 2, 6)
	t.Append(0, 0, 1)  // x ≤ 4
	t.Append(1, 1, 2)  // 2y ≤ 12
	t.Append(2, 0, 3)  // 3x + 2y ≤ 18
	t.Append(2, 1, 2)  //
	t.Append(3, 0, -1) // −x ≤ 0
	t.Append(4, 1, -1) // −y ≤ 0
	p := &solver.Problem{
		Q:     []float64{-3, -5},
		A:     t.ToCSC(),
		B:     []float64{4, 12, 18, 0, 0},
		Cones: []cone.Cone{cone.NewNonnegative(5)},
	}
	sol, err := highs.New().Solve(context.Background(), p, solver.Settings{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sol.Status, sol.X, sol.Objective)
	fmt.Printf("shadow prices: %.2f\n", sol.Y[:3])
	// Output:
	// optimal [2 6] -36
	// shadow prices: [0.00 1.50 1.00]
}

// A cutting-plane loop: maximize x + y over the unit disc, approximated by
// tangent cuts added where the current optimum violates x² + y² ≤ 1.
func ExampleLP() {
	lp := highs.NewLP(highs.Options{})
	defer lp.Close()
	inf := math.Inf(1)
	lp.AddColumns([]float64{1, 1}, []float64{-2, -2}, []float64{2, 2})
	lp.SetObjectiveSense(true)
	var res *highs.LPResult
	for iter := 0; iter < 50; iter++ {
		res, _ = lp.Solve(context.Background())
		x, y := res.X[0], res.X[1]
		r := math.Hypot(x, y)
		if r <= 1+1e-9 {
			break
		}
		cut := sparse.NewTriplets(2, 1, 2) // (x/r)·X + (y/r)·Y ≤ 1
		cut.Append(0, 0, x/r)
		cut.Append(1, 0, y/r)
		lp.AddRows([]float64{-inf}, []float64{1}, cut.ToCSC())
	}
	fmt.Printf("%v %.6f (√2 = %.6f)\n", res.Status, res.Objective, math.Sqrt2)
	// Output:
	// optimal 1.414214 (√2 = 1.414214)
}
