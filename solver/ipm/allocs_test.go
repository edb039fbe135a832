package ipm_test

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"sync"
	"testing"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/ipm"
	"github.com/privopt/privopt/sparse"
)

// TestIterationsDoNotAllocate checks that the interior-point iterations of
// LPs, QPs and SOCPs allocate nothing: a solve stopped after 5 iterations and
// one stopped after 3 (both ended by the iteration limit, so with the same
// finishing work) make the same number of heap allocations, all of them
// setup and finish (testing.AllocsPerRun; measured: 59, 87 and 60 for the
// three problems; 97, 126 and 108 before the setup arrays shared
// allocations). The garbage collector is off while it counts, and each
// problem is solved once before: a collection, or another problem's solve,
// leaves the setup's buffer pools (internal/arena) in another state, so the
// next solve allocates setup arrays again, which is not an iteration's
// allocation.
func TestIterationsDoNotAllocate(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	rng := rand.New(rand.NewPCG(26, 7))
	probs := map[string]*solver.Problem{
		"lp":   randomLinearConic(rng, 30, 5, 40, false),
		"qp":   randomLinearConic(rng, 30, 5, 40, true),
		"socp": withBall(randomLinearConic(rng, 30, 5, 40, false), 10),
	}
	s := ipm.New()
	for name, p := range probs {
		allocs := func(iters int) (float64, solver.Status) {
			var st solver.Status
			a := testing.AllocsPerRun(3, func() {
				sol, err := s.Solve(context.Background(), p, solver.Settings{MaxIterations: iters})
				if err != nil {
					t.Fatalf("%s, %d iterations: %v", name, iters, err)
				}
				st = sol.Status
			})
			return a, st
		}
		allocs(5) // both measurements start from this problem's pooled buffers
		a3, st3 := allocs(3)
		a5, st5 := allocs(5)
		if st3 != solver.IterationLimit || st5 != solver.IterationLimit {
			t.Fatalf("%s: status %v after 3 and %v after 5 iterations; the comparison needs solves ended by the limit", name, st3, st5)
		}
		if a5 != a3 {
			t.Errorf("%s: %.0f allocations with 3 iterations, %.0f with 5: %.1f per iteration, want 0", name, a3, a5, (a5-a3)/2)
		}
	}
}

// withBall appends the second-order cone rows ‖(x₁, x₂, x₃)‖ ≤ r to p
// (s = (r, x₁, x₂, x₃) in the cone; the planted points of randomLinearConic
// have entries of order one, so the problem stays feasible for r = 10).
func withBall(p *solver.Problem, r float64) *solver.Problem {
	m, n := p.A.Rows, p.A.Cols
	t := sparse.NewTriplets(m+4, n, p.A.Nnz()+3)
	for j := 0; j < n; j++ {
		for k := p.A.ColPtr[j]; k < p.A.ColPtr[j+1]; k++ {
			t.Append(p.A.RowIdx[k], j, p.A.Val[k])
		}
	}
	for i := 1; i <= 3; i++ {
		t.Append(m+i, i, -1)
	}
	q := *p
	q.A = t.ToCSC()
	q.B = append(append([]float64(nil), p.B...), r, 0, 0, 0)
	q.Cones = append(append([]cone.Cone(nil), p.Cones...), cone.NewSecondOrder(4))
	return &q
}

// TestSetupAllocations bounds the heap allocations of whole solves of small
// LPs, QPs and SOCPs. The setup cuts its arrays from a few allocations
// (equilibration, KKT pattern, symbolic analysis, cone vectors), so the count
// hardly changes from 10 to 60 variables. Measured with testing.AllocsPerRun
// at n = 10 and 60: LP 53, 51; QP 75, 75; SOCP 54, 53 (before the arena
// pools: 69, 70; 99, 101; 71, 72). The pools also bound the bytes: a solve
// after the warm-up takes its largest arrays from them, so its bytes are the
// small per-solve objects and the returned point (measured at n = 60: LP
// 48 kB, QP 98 kB, SOCP 50 kB; with the pools disabled 184, 248 and 186 kB).
func TestSetupAllocations(t *testing.T) {
	// The setup's largest arrays come from the internal/arena pools, which
	// a garbage collection empties: without collections during the count,
	// every solve after AllocsPerRun's warm-up takes them from the pools.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	rng := rand.New(rand.NewPCG(26, 8))
	s := ipm.New()
	var bytes float64 // of the last solve count measured
	count := func(p *solver.Problem) float64 {
		var st solver.Status
		// The fewest of three counts, for the reason given below for bytes.
		a := math.Inf(1)
		for range 3 {
			a = math.Min(a, testing.AllocsPerRun(3, func() {
				sol, err := s.Solve(context.Background(), p, solver.Settings{})
				if err != nil {
					t.Fatal(err)
				}
				st = sol.Status
			}))
		}
		if st != solver.Optimal {
			t.Fatalf("status %v, want optimal", st)
		}
		// The fewest bytes of five solves: a sync.Pool keeps one array per
		// P in a slot other Ps cannot take, so a solve whose goroutine moved
		// to another P since the last one (likely on a loaded machine)
		// allocates arrays the pools hold; the count is of the solve that
		// did not move.
		bytes = math.Inf(1)
		for range 5 {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			if _, err := s.Solve(context.Background(), p, solver.Settings{}); err != nil {
				t.Fatal(err)
			}
			runtime.ReadMemStats(&after)
			bytes = math.Min(bytes, float64(after.TotalAlloc-before.TotalAlloc))
		}
		return a
	}
	for _, c := range []struct {
		name  string
		qp    bool
		balls int
		max   float64
		maxKB float64
	}{{"lp", false, 0, 60, 100}, {"qp", true, 0, 85, 150}, {"socp", false, 1, 60, 100}} {
		var prev float64
		for _, n := range []int{10, 60} {
			p := randomLinearConic(rng, n, 5, 2*n, c.qp)
			for range c.balls {
				p = withBall(p, 10)
			}
			a := count(p)
			t.Logf("%s, n = %d: %.0f allocations, %.0f bytes per solve", c.name, n, a, bytes)
			if n == 60 && bytes > c.maxKB*1e3 {
				t.Errorf("%s, n = %d: %.0f bytes per solve, want at most %.0f kB (are the setup arrays taken from the arena pools?)", c.name, n, bytes, c.maxKB)
			}
			if a > c.max {
				t.Errorf("%s, n = %d: %.0f allocations per solve, want at most %.0f", c.name, n, a, c.max)
			}
			if n > 10 && a > prev+2 {
				t.Errorf("%s: %.0f allocations at n = 10, %.0f at n = %d; the setup's count should not grow with the size", c.name, prev, a, n)
			}
			prev = a
		}
	}
}

// TestPooledSetupConcurrentIdentical solves LPs, QPs and SOCPs of several
// sizes from four goroutines at once, so that solves of different sizes take
// and release each other's setup arrays (the internal/arena pools), and
// checks every answer bit for bit against a solve of the same problem alone:
// status, iterations, objective and every entry of x, s and y. A buffer
// released while still in use, or handed out uncleared, changes them.
func TestPooledSetupConcurrentIdentical(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 9))
	var probs []*solver.Problem
	for _, n := range []int{10, 17, 30, 45} {
		probs = append(probs, randomLinearConic(rng, n, 5, 2*n, false), randomLinearConic(rng, n, 5, 2*n, true),
			withBall(randomLinearConic(rng, n, 5, 2*n, false), 10))
	}
	s := ipm.New()
	solve := func(p *solver.Problem) *solver.Solution {
		sol, err := s.Solve(context.Background(), p, solver.Settings{})
		if err != nil {
			t.Error(err)
			return nil
		}
		return sol
	}
	want := make([]*solver.Solution, len(probs))
	for i, p := range probs {
		if want[i] = solve(p); want[i] == nil {
			return
		}
	}
	same := func(a, b []float64) bool {
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
				return false
			}
		}
		return true
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range 3 * len(probs) {
				i := (r*(g+1) + g) % len(probs) // each goroutine its own order
				got := solve(probs[i])
				if got == nil {
					return
				}
				w := want[i]
				if got.Status != w.Status || got.Iterations != w.Iterations || math.Float64bits(got.Objective) != math.Float64bits(w.Objective) ||
					!same(got.X, w.X) || !same(got.S, w.S) || !same(got.Y, w.Y) {
					t.Errorf("problem %d, goroutine %d: %v after %d iterations, objective %.17g; alone %v after %d, %.17g (or x, s, y differ)",
						i, g, got.Status, got.Iterations, got.Objective, w.Status, w.Iterations, w.Objective)
					return
				}
			}
		}()
	}
	wg.Wait()
}
