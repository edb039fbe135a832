package auto_test

import (
	"context"
	"math"
	"testing"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/auto"
	"github.com/privopt/privopt/solver/highs"
	"github.com/privopt/privopt/sparse"
)

// tieLP is min x₁ + x₂ s.t. x₁ + x₂ ≥ 1, x ≥ 0 (A with 3 nonzeros): its
// optimal face is the segment from (1, 0) to (0, 1), optimum 1. HiGHS's
// simplex returns a vertex, an interior-point method the face's center
// (½, ½).
func tieLP() *solver.Problem {
	tr := sparse.NewTriplets(3, 2, 4)
	tr.Append(0, 0, -1)
	tr.Append(0, 1, -1)
	tr.Append(1, 0, -1)
	tr.Append(2, 1, -1)
	return &solver.Problem{Q: []float64{1, 1}, A: tr.ToCSC(), B: []float64{-1, 0, 0}, Cones: []cone.Cone{cone.NewNonnegative(3)}}
}

// widerLP is an LP whose A has n nonzeros (x ≥ 0 row by row, min Σ x).
func widerLP(n int) *solver.Problem {
	tr := sparse.NewTriplets(n, n, n)
	q := make([]float64, n)
	for j := 0; j < n; j++ {
		tr.Append(j, j, -1)
		q[j] = 1
	}
	return &solver.Problem{Q: q, A: tr.ToCSC(), B: make([]float64, n), Cones: []cone.Cone{cone.NewNonnegative(n)}}
}

// TestSmallLPRoute: an LP with at most DefaultSmallLPNnz nonzeros starts
// with the IPM, one more nonzero with HiGHS; SmallLPNnz = −1 and a warm
// start keep HiGHS first; on tieLP the two routes return the two answers
// the closed form predicts (the face's center, a vertex), both of value 1.
func TestSmallLPRoute(t *testing.T) {
	s := auto.New()
	for _, c := range []struct {
		nnz  int
		want string
	}{{auto.DefaultSmallLPNnz, "ipm"}, {auto.DefaultSmallLPNnz + 1, "highs"}} {
		if got := s.Route(widerLP(c.nnz))[0].Name(); got != c.want {
			t.Errorf("LP with %d nonzeros: first backend %s, want %s", c.nnz, got, c.want)
		}
	}
	ctx := context.Background()
	sol, err := s.Solve(ctx, tieLP(), solver.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if sol.Status != solver.Optimal || sol.Solver != "ipm" || math.Abs(sol.Objective-1) > 1e-7 ||
		math.Abs(sol.X[0]-0.5) > 1e-4 || math.Abs(sol.X[1]-0.5) > 1e-4 {
		t.Errorf("default route: %v by %s, objective %v, x %v; want optimal 1 by ipm at (½, ½)", sol.Status, sol.Solver, sol.Objective, sol.X)
	}
	vertex := func(name string, s *auto.Solver, set solver.Settings) {
		t.Helper()
		sol, err := s.Solve(ctx, tieLP(), set)
		if err != nil {
			t.Fatal(err)
		}
		lo := math.Min(math.Abs(sol.X[0]), math.Abs(sol.X[1]))
		if sol.Status != solver.Optimal || sol.Solver != "highs" || math.Abs(sol.Objective-1) > 1e-9 || lo > 1e-12 {
			t.Errorf("%s: %v by %s, objective %v, x %v; want optimal 1 by highs at a vertex", name, sol.Status, sol.Solver, sol.Objective, sol.X)
		}
	}
	v := auto.New()
	v.SmallLPNnz = -1
	vertex("SmallLPNnz = -1", v, solver.Settings{})
	vertex("NewSimplexFirst", auto.NewSimplexFirst(), solver.Settings{})
	vertex("warm start", auto.New(), solver.Settings{Warm: &solver.WarmStart{}})
}

// TestSmallLPFallback: a small LP whose IPM answer is rejected is answered
// by HiGHS, and the solution records the rejected backend.
func TestSmallLPFallback(t *testing.T) {
	s, err := auto.NewWith(highs.New(), stub{"broken", solver.NumericalError})
	if err != nil {
		t.Fatal(err)
	}
	sol, err := s.Solve(context.Background(), tieLP(), solver.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if sol.Status != solver.Optimal || sol.Solver != "highs" || sol.Fallback != "broken" || math.Abs(sol.Objective-1) > 1e-9 {
		t.Errorf("got %v by %s (fallback %q), objective %v; want optimal 1 by highs after broken", sol.Status, sol.Solver, sol.Fallback, sol.Objective)
	}
}
