package ipm

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privopt/privopt/solver"
)

// TestRandomSOCPCertified solves 300 random SOCPs (LP and QP objectives, up
// to seven second-order cones of dimension 1–12, an orthant; every fourth
// instance with one right-hand side pushed far out, which often makes it
// infeasible) and requires every answer to be certified: an optimum with small
// KKT residuals (at most 3 merely almost-optimal ones, with residuals checked
// at the reduced accuracy), or an infeasibility certificate checked against
// the data. It
// once caught a loss of accuracy near the optimum (numerical-error after 16
// iterations) that is now avoided by taking Δs from the primal equation in
// blocks with a large scaling.
func TestRandomSOCPCertified(t *testing.T) {
	rng := rand.New(rand.NewPCG(99, 1))
	count := map[solver.Status]int{}
	for trial := 0; trial < 300; trial++ {
		n := 5 + rng.IntN(30)
		var socs []int
		for k := rng.IntN(6); k >= 0; k-- {
			socs = append(socs, 1+rng.IntN(12))
		}
		p := randomSOCPDensity(rng, n, socs, 0.3)
		if trial%3 == 1 {
			p.P = nil
		}
		if trial%4 == 2 {
			p.B[0] = -1e3 - math.Abs(p.B[0])
		}
		sol := solveT(t, p, Settings{})
		count[sol.Status]++
		switch sol.Status {
		case solver.Optimal:
			checkKKT(t, p, sol, 1e-6)
		case solver.AlmostOptimal:
			checkKKT(t, p, sol, 1e-4)
		case solver.PrimalInfeasible:
			checkPrimalCert(t, p, sol.Y)
		default:
			t.Errorf("trial %d: status %v", trial, sol.Status)
		}
	}
	t.Logf("statuses: %v", count)
	// Full accuracy is expected on all but a few instances (2 of 300 ended
	// almost-optimal with one version of the factorization kernels).
	if count[solver.AlmostOptimal] > 3 {
		t.Errorf("%d instances only almost-optimal", count[solver.AlmostOptimal])
	}
}
