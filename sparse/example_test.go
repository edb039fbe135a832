package sparse_test

import (
	"fmt"

	"github.com/privopt/privopt/sparse"
)

func ExampleTriplets_ToCSC() {
	// A 2×3 matrix with a duplicate entry at (0, 2) that is summed.
	t := sparse.NewTriplets(2, 3, 4)
	t.Append(0, 0, 1)
	t.Append(1, 1, 2)
	t.Append(0, 2, 3)
	t.Append(0, 2, 4)
	a := t.ToCSC()
	fmt.Println(a.Nnz(), a.At(0, 2), a.MulVecTo(nil, 1, []float64{1, 1, 1}, 0))
	// Output: 3 7 [8 2]
}
