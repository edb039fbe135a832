package ipm_test

import (
	"context"
	"fmt"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/ipm"
	"github.com/privopt/privopt/sparse"
)

// Project points v onto the second-order cone (as in Example) for v = (0, 3, 4)
// and then v = (0.1, 3, 4.2), the second solve started from the first
// solution. Closed form: ((t + ‖x‖)/2)·(1, x/‖x‖), here (2.5, 1.5, 2) and
// (2.6307, 1.5291, 2.1407).
func ExampleSolver_SolveFrom() {
	proj := func(v []float64) *solver.Problem {
		a := sparse.NewTriplets(3, 3, 3)
		p := sparse.NewTriplets(3, 3, 3)
		for i := 0; i < 3; i++ {
			a.Append(i, i, -1)
			p.Append(i, i, 1)
		}
		return &solver.Problem{P: p.ToCSC(), Q: []float64{-v[0], -v[1], -v[2]}, A: a.ToCSC(),
			B: []float64{0, 0, 0}, Cones: []cone.Cone{cone.NewSecondOrder(3)}}
	}
	sv := ipm.New()
	ctx := context.Background()
	first, err := sv.Solve(ctx, proj([]float64{0, 3, 4}), solver.Settings{})
	if err != nil {
		fmt.Println(err)
		return
	}
	// omega 0: the default weight of the previous solution (DefaultWarmWeight).
	next, err := sv.SolveFrom(ctx, proj([]float64{0.1, 3, 4.2}), solver.Settings{}, first, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(first.Status, next.Status)
	fmt.Printf("u = (%.4f, %.4f, %.4f)\n", next.X[0], next.X[1], next.X[2])
	// Output:
	// optimal optimal
	// u = (2.6307, 1.5291, 2.1407)
}
