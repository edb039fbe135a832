package ipm_test

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/ipm"
	"github.com/privopt/privopt/sparse"
)

// TestCancelledDuringSetup: with a context that is already cancelled, the
// IPM stops inside the symbolic analysis of the KKT matrix (the AMD loop
// polls it) or the convexity test of P, and reports Cancelled, not an error
// and not "not convex".
func TestCancelledDuringSetup(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 2))
	const m, n = 400, 600
	tr := sparse.NewTriplets(m, n, 4*n)
	for j := 0; j < n; j++ {
		for k := 0; k < 4; k++ {
			tr.Append(rng.IntN(m), j, rng.NormFloat64())
		}
	}
	pt := sparse.NewTriplets(n, n, n)
	for j := 0; j < n; j++ {
		pt.Append(j, j, 1)
	}
	b := make([]float64, m)
	for i := range b {
		b[i] = 1
	}
	lp := &solver.Problem{Q: make([]float64, n), A: tr.ToCSC(), B: b, Cones: []cone.Cone{cone.NewNonnegative(m)}}
	qp := *lp
	qp.P = pt.ToCSC()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for name, p := range map[string]*solver.Problem{"LP": lp, "QP": &qp} {
		sol, err := ipm.New().Solve(ctx, p, solver.Settings{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if sol.Status != solver.Cancelled || sol.Iterations != 0 || !strings.Contains(sol.Diagnostic, "setup") {
			t.Errorf("%s: status %v after %d iterations (%s), want cancelled during the setup", name, sol.Status, sol.Iterations, sol.Diagnostic)
		}
	}
}
