package lphighs_test

import (
	"context"
	"fmt"

	"github.com/privopt/privopt/noise"
	_ "github.com/privopt/privopt/noise/lphighs"
)

// With lphighs imported, noise.Optimize solves the optimal-noise LPs with
// HiGHS: (1, 0.2)-DP noise for sensitivity 1 on 40 cells, certified exactly.
func Example() {
	r, err := noise.Optimize(context.Background(), noise.Params{Epsilon: 1, Delta: 0.2, Sensitivity: 1},
		noise.OptimalOptions{Intervals: 40, Symmetric: true, SkipLowerBound: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("certified %v, E|X| %.2f\n", r.Certificate.Certified, r.UpperBound)
	// Output:
	// certified true, E|X| 0.56
}
