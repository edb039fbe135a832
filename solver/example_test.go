package solver_test

import (
	"fmt"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/sparse"
)

// Example builds the standard form of
//
//	minimize x₀ + x₁  subject to  x₀ + x₁ = 1,  x ≥ 0
//
// as Ax + s = b with a zero cone (the equality) and a nonnegative cone (−x + s = 0).
func Example() {
	t := sparse.NewTriplets(3, 2, 4)
	t.Append(0, 0, 1)
	t.Append(0, 1, 1)
	t.Append(1, 0, -1)
	t.Append(2, 1, -1)
	p := &solver.Problem{
		Q:     []float64{1, 1},
		A:     t.ToCSC(),
		B:     []float64{1, 0, 0},
		Cones: []cone.Cone{cone.NewZero(1), cone.NewNonnegative(2)},
	}
	fmt.Println(p.Validate(), p.NumVars(), p.NumRows(), p.IsLinearConic())
	// Output: <nil> 2 3 true
}
