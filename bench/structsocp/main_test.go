package main

import (
	"context"
	"fmt"
	"testing"

	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/ipm"
)

// TestStructuredOptimal solves the structured SOCP at a tenth of the issue's
// size and checks the answer: status optimal, the re-check on the generated
// data within 1e-8, and the objective between the weak-duality bounds of the
// construction, −bᵀy₀ ≤ optimum ≤ qᵀx₀, strictly inside (y₀, x₀ strictly
// feasible, so neither bound is the optimum).
func TestStructuredOptimal(t *testing.T) {
	p, x0, y0, err := structured(2000, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.A.Nnz(); got != 5800 {
		t.Errorf("nonzeros: %d, want 5800 (6·200 + 8·250 + 6·100 + 2000)", got)
	}
	sol, err := ipm.New().Solve(context.Background(), p, solver.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	acc, err := solver.Measure(p, sol.X, sol.S, sol.Y)
	if err != nil {
		t.Fatal(err)
	}
	if sol.Status != solver.Optimal || !acc.Meets(1e-8) {
		t.Fatalf("status %v, re-check %v", sol.Status, acc)
	}
	var upper, lower float64
	for j, v := range x0 {
		upper += p.Q[j] * v
	}
	for i, v := range y0 {
		lower -= p.B[i] * v
	}
	if !(lower < sol.Objective && sol.Objective < upper) {
		t.Errorf("objective %.10g outside the weak-duality bounds (%.10g, %.10g)", sol.Objective, lower, upper)
	}
}

func TestStructuredRejectsSize(t *testing.T) {
	if _, _, _, err := structured(1001, 1); err == nil {
		t.Error("n = 1001 accepted, want an error (not a multiple of 40)")
	}
}

// BenchmarkStructuredSOCP times the IPM on the structured SOCP; n=20000 is
// the shape (2,500 SOCs, 1,000 rotated SOCs, 58,000 nonzeros).
func BenchmarkStructuredSOCP(b *testing.B) {
	for _, n := range []int{2000, 20000} {
		p, _, _, err := structured(n, 1)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sol, err := ipm.New().Solve(context.Background(), p, solver.Settings{})
				if err != nil || sol.Status != solver.Optimal {
					b.Fatalf("status %v, error %v", sol.Status, err)
				}
			}
		})
	}
}
