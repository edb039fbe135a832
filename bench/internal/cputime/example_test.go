package cputime_test

import (
	"fmt"

	"github.com/privopt/privopt/bench/internal/cputime"
)

// CPU time spent between two points of a program.
func Example() {
	c0 := cputime.Process()
	s := 0
	for i := 0; i < 1_000_000; i++ {
		s += i
	}
	fmt.Println(s, cputime.Process() >= c0)
	// Output: 499999500000 true
}
