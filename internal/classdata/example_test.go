package classdata_test

import (
	"fmt"

	"github.com/privopt/privopt/internal/classdata"
)

// Labels 0, 1, 2 with class 1 the most frequent become +1 for class 1 and
// −1 for the others (the papers' "majority class versus the rest").
func ExampleMajority() {
	fmt.Println(classdata.Majority([]float64{0, 1, 1, 2, 1, 0}))
	// Output: [-1 1 1 -1 1 -1]
}
