package ipm

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
)

// projection is min u s.t. 2·u·1 ≥ ‖x − c‖² (a rotated cone), aᵀx ≤ 0, with
// optimum u = max(aᵀc, 0)²/(2‖a‖²) (half the squared distance from c to the
// half-space); c enters only b.
func projection(c []float64) *solver.Problem {
	a := []float64{1, 2, 2}
	rows := [][]float64{
		{-1, 0, 0, 0}, // u
		{0, 0, 0, 0},  // v = 1
		{0, -1, 0, 0}, // x − c
		{0, 0, -1, 0},
		{0, 0, 0, -1},
		{0, a[0], a[1], a[2]}, // aᵀx ≤ 0
	}
	return &solver.Problem{
		A:     dense(rows),
		B:     []float64{0, 1, -c[0], -c[1], -c[2], 0},
		Q:     []float64{1, 0, 0, 0},
		Cones: []cone.Cone{cone.NewRotatedSecondOrder(5), cone.NewNonnegative(1)},
	}
}

// SolveFrom re-solves from a previous solution: the answers match the closed
// form (through the rotated cone's coordinate map), an unusable previous
// solution gives exactly the cold iterations, and ω outside [0, 1) is an
// error naming it.
func TestSolveFrom(t *testing.T) {
	ctx := context.Background()
	sv := New()
	want := func(c []float64) float64 {
		d := math.Max(c[0]+2*c[1]+2*c[2], 0)
		return d * d / 18
	}
	c := []float64{3, 1, 1}
	prev, err := sv.Solve(ctx, projection(c), solver.Settings{})
	if err != nil || prev.Status != solver.Optimal {
		t.Fatal(err, prev.Status)
	}
	for _, c := range [][]float64{{3.1, 1, 0.9}, {2.9, 1.05, 1}, {0, 2, 1}, {-1, 0, 0}} {
		p := projection(c)
		cold, err := sv.Solve(ctx, p, solver.Settings{})
		if err != nil || cold.Status != solver.Optimal {
			t.Fatal(err, cold.Status)
		}
		warm, err := sv.SolveFrom(ctx, p, solver.Settings{}, prev, 0)
		if err != nil || warm.Status != solver.Optimal {
			t.Fatal(err, warm.Status)
		}
		if !close(warm.Objective, want(c), 1e-7) || !close(cold.Objective, want(c), 1e-7) {
			t.Fatalf("c = %v: warm %v, cold %v, closed form %v", c, warm.Objective, cold.Objective, want(c))
		}
		t.Logf("c = %v: cold %d, warm %d iterations", c, cold.Iterations, warm.Iterations)
		prev = warm
	}
	p := projection(c)
	cold, _ := sv.Solve(ctx, p, solver.Settings{})
	bad, err := sv.SolveFrom(ctx, p, solver.Settings{}, &solver.Solution{X: []float64{1}}, 0)
	if err != nil || bad.Iterations != cold.Iterations || bad.Objective != cold.Objective {
		t.Fatalf("unusable previous solution: %v, %d iterations (cold %d)", err, bad.Iterations, cold.Iterations)
	}
	for _, om := range []float64{-0.1, 1, math.NaN()} {
		if _, err := sv.SolveFrom(ctx, p, solver.Settings{}, cold, om); !errors.Is(err, ErrInvalidSettings) {
			t.Errorf("omega %v: %v", om, err)
		}
	}
}
