package auto_test

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/auto"
	"github.com/privopt/privopt/solver/ipm"
	"github.com/privopt/privopt/sparse"
)

// sparseLP is min qᵀx s.t. Ax ≤ b (x free) with A m×n random sparse, b =
// Ax₀ + s₀ (s₀ > 0) and q = −Aᵀy₀ (y₀ ≥ 0): primal and dual feasible.
func sparseLP(m, n, perRow int, seed uint64) *solver.Problem {
	rng := rand.New(rand.NewPCG(seed, 7))
	t := sparse.NewTriplets(m, n, m*perRow+n)
	for i := 0; i < m; i++ {
		for k := 0; k < perRow; k++ {
			t.Append(i, rng.IntN(n), rng.NormFloat64())
		}
	}
	for j := 0; j < n; j++ {
		t.Append(rng.IntN(m), j, rng.NormFloat64())
	}
	A := t.ToCSC()
	x0 := make([]float64, n)
	for j := range x0 {
		x0[j] = 2*rng.Float64() - 1
	}
	b := A.MulVecTo(nil, 1, x0, 0)
	y0 := make([]float64, m)
	for i := range b {
		b[i] += 0.1 + rng.Float64()
		y0[i] = rng.Float64()
	}
	return &solver.Problem{Q: A.MulTransVecTo(nil, -1, y0, 0), A: A, B: b, Cones: []cone.Cone{cone.NewNonnegative(m)}}
}

// blocker is a backend that never answers on its own: it waits for its
// context to be cancelled and reports Cancelled.
type blocker struct{ cancelled atomic.Bool }

func (*blocker) Name() string              { return "blocker" }
func (*blocker) Supports(k cone.Kind) bool { return k == cone.Zero || k == cone.Nonnegative }
func (b *blocker) Solve(ctx context.Context, p *solver.Problem, _ solver.Settings) (*solver.Solution, error) {
	<-ctx.Done()
	b.cancelled.Store(true)
	return &solver.Solution{Status: solver.Cancelled}, nil
}

// concurrentWith is the route over first and the IPM, racing them on p
// (skipped when the machine has fewer than two CPUs).
func concurrentWith(t *testing.T, first solver.Solver, p *solver.Problem) *auto.Solver {
	t.Helper()
	s, err := auto.NewWith(first, ipm.New())
	if err != nil {
		t.Fatal(err)
	}
	s.ConcurrentNnz = 1
	if !s.Concurrent(p) {
		t.Skip("fewer than two CPUs: no concurrent route")
	}
	return s
}

// TestConcurrentRouteCancelsLoser: on the concurrent route the IPM's
// verified optimum wins over a first backend that never answers, which is
// cancelled; the answer equals the sequential IPM's, and the race is
// recorded.
func TestConcurrentRouteCancelsLoser(t *testing.T) {
	p := sparseLP(120, 100, 4, 1)
	blk := &blocker{}
	s := concurrentWith(t, blk, p)
	sol, err := s.Solve(context.Background(), p, solver.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	ref, err := ipm.New().Solve(context.Background(), p, solver.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if sol.Status != solver.Optimal || sol.Solver != "ipm" || !blk.cancelled.Load() {
		t.Fatalf("status %v by %s, blocker cancelled %v; want optimal by ipm, blocker cancelled (%s)", sol.Status, sol.Solver, blk.cancelled.Load(), sol.Diagnostic)
	}
	if !strings.Contains(sol.Diagnostic, "concurrent route: ipm answered first") || !strings.Contains(sol.Diagnostic, "blocker cancelled") {
		t.Errorf("diagnostic %q does not record the race", sol.Diagnostic)
	}
	if math.Abs(sol.Objective-ref.Objective) > 1e-12*math.Abs(ref.Objective) {
		t.Errorf("objective %.12g, the IPM alone %.12g", sol.Objective, ref.Objective)
	}
}

// TestConcurrentRouteDefaultBackends: HiGHS and the IPM raced on an LP above
// the threshold give the optimum HiGHS alone finds (to 10⁻⁷ relative, HiGHS's
// tolerance), whichever wins; below the threshold the route is sequential.
func TestConcurrentRouteDefaultBackends(t *testing.T) {
	p := sparseLP(300, 250, 5, 2)
	s := auto.New()
	s.ConcurrentNnz = p.A.Nnz()
	if !s.Concurrent(p) {
		t.Skip("fewer than two CPUs: no concurrent route")
	}
	sol, err := s.Solve(context.Background(), p, solver.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	seq := auto.New()
	seq.ConcurrentNnz = p.A.Nnz() + 1
	if seq.Concurrent(p) {
		t.Fatal("one nonzero below the threshold is concurrent")
	}
	ref, err := seq.Solve(context.Background(), p, solver.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if sol.Status != solver.Optimal || ref.Status != solver.Optimal || math.Abs(sol.Objective-ref.Objective) > 1e-7*math.Abs(ref.Objective) {
		t.Fatalf("concurrent %v %.10g by %s, sequential %v %.10g", sol.Status, sol.Objective, sol.Solver, ref.Status, ref.Objective)
	}
	if !strings.Contains(sol.Diagnostic, "concurrent route: "+sol.Solver+" answered first") || strings.Contains(ref.Diagnostic, "concurrent") {
		t.Errorf("diagnostics: concurrent %q, sequential %q", sol.Diagnostic, ref.Diagnostic)
	}
	t.Logf("won by %s: %s", sol.Solver, sol.Diagnostic)
}

// stubborn is a backend that does not stop when its context is cancelled:
// it returns only after release is closed (an HiGHS simplex iteration that
// takes seconds, made deterministic). It records the problem it was given.
type stubborn struct {
	release chan struct{}
	got     chan *solver.Problem
}

func (*stubborn) Name() string              { return "stubborn" }
func (*stubborn) Supports(k cone.Kind) bool { return k == cone.Zero || k == cone.Nonnegative }
func (b *stubborn) Solve(ctx context.Context, p *solver.Problem, _ solver.Settings) (*solver.Solution, error) {
	b.got <- p
	<-b.release
	return &solver.Solution{Status: solver.Cancelled}, nil
}

// TestConcurrentRouteDoesNotWaitForLoser: a loser that keeps running after
// the cancellation does not hold the answer back. The route returns the
// IPM's optimum while the loser is still blocked (it is released only after
// Solve returned: if Solve waited for it, the test would never finish),
// records that the loser was still stopping, and the loser worked on a
// private copy of the problem, so the caller may modify p at once.
func TestConcurrentRouteDoesNotWaitForLoser(t *testing.T) {
	p := sparseLP(120, 100, 4, 3)
	slow := &stubborn{release: make(chan struct{}), got: make(chan *solver.Problem, 1)}
	defer close(slow.release)
	s := concurrentWith(t, slow, p)
	sol, err := s.Solve(context.Background(), p, solver.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if sol.Status != solver.Optimal || sol.Solver != "ipm" {
		t.Fatalf("status %v by %s (%s); want optimal by ipm", sol.Status, sol.Solver, sol.Diagnostic)
	}
	if !strings.Contains(sol.Diagnostic, "stubborn cancelled (still stopping after") {
		t.Errorf("diagnostic %q does not record the loser still stopping", sol.Diagnostic)
	}
	if q := <-slow.got; q == p || &q.B[0] == &p.B[0] || &q.A.Val[0] == &p.A.Val[0] {
		t.Error("the loser shares the caller's problem data")
	}
	p.B[0] = math.NaN() // the caller reuses p while the loser still runs
}
