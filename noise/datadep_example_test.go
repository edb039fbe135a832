package noise_test

import (
	"context"
	"fmt"

	"github.com/privopt/privopt/noise"
)

// Data-dependent noise with a non-uniform partition of the query range: with
// sensitivity Δ = 1 and β = Δ/2, the query values φ₀ + [0, 8) are grouped as
// [0, 3), [3, 3.5), [3.5, 4), [4, 4.5), [4.5, 5), [5, 8) (fine near the middle,
// where most answers are expected, coarse in the tails); one density each.
func ExampleOptimizeDataDependent_nonUniform() {
	p := noise.Params{Epsilon: 1, Delta: 0.1, Sensitivity: 1}
	r, err := noise.OptimizeDataDependent(context.Background(), p, noise.DataDependentOptions{
		Granularity: 2,
		RangeEdges:  []int{0, 6, 7, 8, 9, 10, 16}, // units of β = 0.5
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("densities:", len(r.Dists), "certified:", r.Certified)
	fmt.Println("lower bound ≤ upper bound:", r.LowerBound <= r.UpperBound)
	// The density for a query answer φ is Dists[Index(φ − φ₀)].
	for _, off := range []float64{1.2, 3.6, 4.99, 7.5} {
		fmt.Printf("offset %.2f → density %d\n", off, r.Index(off))
	}
	// Output:
	// densities: 6 certified: true
	// lower bound ≤ upper bound: true
	// offset 1.20 → density 0
	// offset 3.60 → density 2
	// offset 4.99 → density 4
	// offset 7.50 → density 5
}
