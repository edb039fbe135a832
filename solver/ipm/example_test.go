package ipm_test

import (
	"context"
	"fmt"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/ipm"
	"github.com/privopt/privopt/sparse"
)

// Project the point (0, 3, 4) onto the second-order cone {(t, x) : t ≥ ‖x‖}:
// minimize ½‖u − v‖² subject to u ∈ K, written as Au + s = b with A = −I,
// b = 0. The closed-form answer is ((t + ‖x‖)/2)·(1, x/‖x‖) = (2.5, 1.5, 2).
func Example() {
	t := sparse.NewTriplets(3, 3, 3)
	p := sparse.NewTriplets(3, 3, 3)
	for i := 0; i < 3; i++ {
		t.Append(i, i, -1)
		p.Append(i, i, 1)
	}
	prob := &solver.Problem{
		P:     p.ToCSC(),
		Q:     []float64{0, -3, -4}, // −v
		R:     12.5,                 // ½‖v‖², so the objective is ½‖u − v‖²
		A:     t.ToCSC(),
		B:     []float64{0, 0, 0},
		Cones: []cone.Cone{cone.NewSecondOrder(3)},
	}
	sol, err := ipm.New().Solve(context.Background(), prob, solver.Settings{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sol.Status)
	fmt.Printf("u = (%.6f, %.6f, %.6f), distance² / 2 = %.6f\n", sol.X[0], sol.X[1], sol.X[2], sol.Objective)
	// Output:
	// optimal
	// u = (2.500000, 1.500000, 2.000000), distance² / 2 = 6.250000
}

// Settings with tighter tolerances; zero fields keep their defaults.
func ExampleNewWithSettings() {
	sv, err := ipm.NewWithSettings(ipm.Settings{FeasTol: 1e-10, GapTol: 1e-10})
	fmt.Println(sv.Name(), err)
	_, err = ipm.NewWithSettings(ipm.Settings{GapTol: -1})
	fmt.Println(err)
	// Output:
	// ipm <nil>
	// ipm: invalid settings: GapTol is -1, must be ≥ 0 and finite (0 means default)
}
