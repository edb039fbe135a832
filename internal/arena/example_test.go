package arena_test

import (
	"fmt"

	"github.com/privopt/privopt/internal/arena"
)

// Three arrays of lengths 2, 3 and 1 from one allocation of 6 floats.
func ExampleCut() {
	buf := make([]float64, 6)
	x, y, z := arena.Cut(&buf, 2), arena.Cut(&buf, 3), arena.Cut(&buf, 1)
	y[0] = 7
	x = append(x, 9) // reallocates: y is not overwritten
	fmt.Println(len(x), cap(y), len(z), y[0], len(buf))
	// Output: 3 3 1 7 0
}
