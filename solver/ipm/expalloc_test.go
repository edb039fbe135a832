package ipm

import (
	"context"
	"math/rand/v2"
	"runtime/debug"
	"testing"

	"github.com/privopt/privopt/solver"
)

// TestExpIterationsDoNotAllocate is TestIterationsDoNotAllocate for a
// problem with exponential cones (maximum entropy with a mean constraint):
// the iterations of the exp cone (scaling, step length, centrality, third-
// order correction) allocate nothing. Until round 10 the scratch arrays
// passed to the barrier's methods through an interface escaped to the heap,
// 140 allocations per iteration here (20 cones).
func TestExpIterationsDoNotAllocate(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	rng := rand.New(rand.NewPCG(26, 13))
	a := make([]float64, 20)
	for j := range a {
		a[j] = rng.Float64()
	}
	p, _ := expMaxEntMean(a, 0.35)
	s := New()
	allocs := func(iters int) (float64, solver.Status) {
		var st solver.Status
		n := testing.AllocsPerRun(3, func() {
			sol, err := s.Solve(context.Background(), p, solver.Settings{MaxIterations: iters})
			if err != nil {
				t.Fatalf("%d iterations: %v", iters, err)
			}
			st = sol.Status
		})
		return n, st
	}
	allocs(5)
	a3, st3 := allocs(3)
	a5, st5 := allocs(5)
	if st3 != solver.IterationLimit || st5 != solver.IterationLimit {
		t.Fatalf("status %v after 3 and %v after 5 iterations; the comparison needs solves ended by the limit", st3, st5)
	}
	if a5 != a3 {
		t.Errorf("%.0f allocations with 3 iterations, %.0f with 5: %.1f per iteration, want 0", a3, a5, (a5-a3)/2)
	}
}
