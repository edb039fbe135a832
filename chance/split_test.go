package chance

import (
	"testing"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/sparse"
)

// TestWithinBaseReference: a proposal is accepted on a row the reference
// point (the solver's lower copy) misses by its tolerance when it misses it
// no more, and rejected when it misses it by more or misses a row the
// reference satisfies.
func TestWithinBaseReference(t *testing.T) {
	// Rows: x0 + x1 = 1 (zero cone), x0 ≤ 1, x1 ≤ 1 (nonnegative).
	tr := sparse.NewTriplets(3, 2, 4)
	tr.Append(0, 0, 1)
	tr.Append(0, 1, 1)
	tr.Append(1, 0, 1)
	tr.Append(2, 1, 1)
	p := &solver.Problem{Q: []float64{0, 0}, A: tr.ToCSC(), B: []float64{1, 1, 1},
		Cones: []cone.Cone{cone.NewZero(1), cone.NewNonnegative(2)}}
	ref := []float64{1 + 1e-8, 0} // misses x0 ≤ 1 and the equality by 1e-8
	for _, c := range []struct {
		x    []float64
		want bool
	}{
		{[]float64{0.5, 0.5}, true},
		{ref, true},                         // no worse than the reference
		{[]float64{1 + 1e-8, 1e-12}, true},  // within 1e-9 of the reference
		{[]float64{1 + 1e-6, 0}, false},     // worse than the reference
		{[]float64{1e-8, 1 + 1e-8}, false},  // misses x1 ≤ 1, which the reference meets
		{[]float64{0.5 + 1e-7, 0.5}, false}, // misses the equality by more
	} {
		if got := withinBase(p, c.x, ref); got != c.want {
			t.Errorf("withinBase(%v) = %v, want %v", c.x, got, c.want)
		}
	}
}
