package lpdual_test

import (
	"fmt"
	"math"

	"github.com/privopt/privopt/lpdual"
)

// maximize x + y subject to x + 2y ≤ 4, 3x + y ≤ 6, 0 ≤ x, y ≤ 10: the
// optimum is 2.8 at (1.6, 1.2), with dual (0.4, 0.2). The safe bound from that
// dual is the optimum (rounded up by a few units in the last place); from a
// cruder dual it is larger but still a bound.
func Example() {
	lp := &lpdual.LP{Lo: []float64{0, 0}, Hi: []float64{10, 10}}
	lp.AddRow(math.Inf(-1), 4, []int{0, 1}, []float64{1, 2})
	lp.AddRow(math.Inf(-1), 6, []int{0, 1}, []float64{3, 1})
	c := lpdual.FromDense([]float64{1, 1})
	b, _ := lpdual.MaxBound(lp, c, lpdual.FromDense([]float64{0.4, 0.2}), nil)
	fmt.Printf("%.9f\n", b)
	b, _ = lpdual.MaxBound(lp, c, lpdual.FromDense([]float64{1, 0}), nil)
	fmt.Printf("%.9f\n", b)
	// Output:
	// 2.800000000
	// 4.000000000
}
