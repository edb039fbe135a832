package ipm

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/sparse"
)

// TestMaxFactorBytes: a lone 300×300 PSD variable (svec dimension 45,150)
// needs 8·45150² ≈ 16 GB of dense KKT blocks; it is rejected with ErrTooLarge
// before allocation (it once ran to 3 GB and beyond), and a small cap rejects
// a 10×10 block while the default accepts it.
func TestMaxFactorBytes(t *testing.T) {
	psd := func(n int) *solver.Problem {
		d := n * (n + 1) / 2
		tr := sparse.NewTriplets(d, d, d)
		for i := 0; i < d; i++ {
			tr.Append(i, i, -1)
		}
		q := make([]float64, d)
		for j := 0; j < n; j++ {
			q[cone.SVecIndex(n, j, j)] = 1 // minimize trace
		}
		return &solver.Problem{Q: q, A: tr.ToCSC(), B: make([]float64, d), Cones: []cone.Cone{cone.NewPSD(n)}}
	}
	_, err := New().Solve(context.Background(), psd(300), solver.Settings{})
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("PSD 300: error %v, want ErrTooLarge", err)
	}
	s, err := NewWithSettings(Settings{MaxFactorBytes: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Solve(context.Background(), psd(10), solver.Settings{}); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("PSD 10 under a 1000-byte cap: error %v, want ErrTooLarge", err)
	}
	sol, err := New().Solve(context.Background(), psd(10), solver.Settings{})
	if err != nil || sol.Status != solver.Optimal || sol.Objective > 1e-6 {
		t.Fatalf("PSD 10: %v, %+v; want optimal with objective 0 (trace of X ⪰ 0)", err, sol)
	}
}

// TestMaxFactorBytesSparse: the sparse factor's size nnz(L) is checked after
// the symbolic analysis, before the numeric factorization allocates: a
// 1,000-byte cap rejects a small LP that the default accepts.
func TestMaxFactorBytesSparse(t *testing.T) {
	// min x₁ + x₂ s.t. x₁ + x₂ ≥ 1, x ≥ 0: optimum 1.
	tr := sparse.NewTriplets(3, 2, 4)
	tr.Append(0, 0, -1)
	tr.Append(0, 1, -1)
	tr.Append(1, 0, -1)
	tr.Append(2, 1, -1)
	p := &solver.Problem{Q: []float64{1, 1}, A: tr.ToCSC(), B: []float64{-1, 0, 0}, Cones: []cone.Cone{cone.NewNonnegative(3)}}
	s, err := NewWithSettings(Settings{MaxFactorBytes: 8})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Solve(context.Background(), p, solver.Settings{}); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("8-byte cap: error %v, want ErrTooLarge", err)
	}
	sol, err := New().Solve(context.Background(), p, solver.Settings{})
	if err != nil || sol.Status != solver.Optimal || math.Abs(sol.Objective-1) > 1e-7 {
		t.Fatalf("default cap: %v, %+v; want optimal with objective 1", err, sol)
	}
}
