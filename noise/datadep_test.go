package noise

import (
	"context"
	"errors"
	"testing"
)

// Data-dependent noise (Section 3): certified, its loss is at most the
// data-independent optimum on the same grid (using one density for every
// query interval is feasible), and its lower bound is below its upper bound.
func TestDataDependent(t *testing.T) {
	p := Params{Epsilon: 1, Delta: 0.2, Sensitivity: 2}
	r, err := OptimizeDataDependent(context.Background(), p, DataDependentOptions{Ranges: 4, Granularity: 4})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Certified || r.MaxShortfall > 0 || len(r.Dists) != 4 {
		t.Fatalf("not certified: %+v", r)
	}
	di := optimizeT(t, p, OptimalOptions{Granularity: 4, SkipLowerBound: true})
	t.Logf("data-dependent UB %.5f LB %.5f, data-independent UB %.5f", r.UpperBound, r.LowerBound, di.UpperBound)
	if r.UpperBound > di.UpperBound*(1+1e-5) {
		t.Errorf("data-dependent loss %v > data-independent %v", r.UpperBound, di.UpperBound)
	}
	if !(r.LowerBound <= r.UpperBound) {
		t.Errorf("LB %v > UB %v", r.LowerBound, r.UpperBound)
	}
	// Each density is certified on its own pair constraints; in particular
	// the pair (i, i) with shifts ±β.
	for i, d := range r.Dists {
		if c, _ := Certify(d, Params{Epsilon: 1, Delta: 0.2, Sensitivity: r.Beta}); !c.Certified {
			t.Errorf("density %d not private for shifts ≤ β: %+v", i, c)
		}
	}
	if _, err := OptimizeDataDependent(context.Background(), p, DataDependentOptions{Ranges: 0}); !errors.Is(err, ErrInvalidParam) {
		t.Errorf("Ranges 0: %v", err)
	}
	if _, err := OptimizeDataDependent(context.Background(), p, DataDependentOptions{Ranges: 2, Weights: []float64{1}}); !errors.Is(err, ErrInvalidParam) {
		t.Errorf("bad weights: %v", err)
	}
}
