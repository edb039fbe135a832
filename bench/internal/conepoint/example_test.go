package conepoint_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/privopt/privopt/bench/internal/conepoint"
	"github.com/privopt/privopt/cone"
)

// Example draws points of the dual cones of a second-order, a PSD and a zero
// cone (the last is the free cone) and checks them with package cone.
func Example() {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range []cone.Cone{cone.NewSecondOrder(5), cone.NewPSD(4), cone.NewZero(3)} {
		p := conepoint.Interior(rng, c, true)
		fmt.Println(c.Kind, c.ContainsDual(p, 0))
	}
	// Output:
	// second-order true
	// psd true
	// zero true
}
