package auto_test

import (
	"context"
	"testing"

	"github.com/privopt/privopt/internal/solvertest"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/auto"
)

// solveScaled runs the default route on inst and returns an error message
// when the status differs from the constructed one or its solution or
// certificate fails the independent check on the scaled data (solvertest.Check:
// tolerance 10⁻⁶ for optimal points, 10⁻⁵ for certificates). AlmostOptimal
// counts as Optimal when its point checks out.
func solveScaled(t *testing.T, inst solvertest.Instance) (*solver.Solution, string) {
	t.Helper()
	sol, err := auto.New().Solve(context.Background(), inst.Problem, solver.Settings{})
	if err != nil {
		return nil, err.Error()
	}
	got := sol.Status
	if got == solver.AlmostOptimal {
		got = solver.Optimal
	}
	if got != inst.Want {
		return sol, "status " + sol.Status.String() + ", constructed " + inst.Want.String() + " (" + sol.Diagnostic + ")"
	}
	tol := 1e-5
	if got == solver.Optimal {
		tol = 1e-6
	}
	if msg := solvertest.Check(inst.Problem, sol, inst.Objective, tol); msg != "" {
		return sol, sol.Status.String() + " fails the independent check: " + msg + " (" + sol.Diagnostic + ")"
	}
	return sol, ""
}

// TestBadlyScaledStatuses is the acceptance test of the default route on the
// 500 badly scaled LPs and SOCPs of solvertest.Suite: every status equals the
// constructed one and every optimum and certificate checks out on the scaled
// data (so zero wrong "optimal").
func TestBadlyScaledStatuses(t *testing.T) {
	byBackend := map[string]int{}
	fallbacks := 0
	for _, inst := range solvertest.Suite() {
		sol, msg := solveScaled(t, inst)
		if msg != "" {
			t.Errorf("%s: %s", inst.Name, msg)
			continue
		}
		byBackend[sol.Solver]++
		if sol.Fallback != "" {
			fallbacks++
		}
	}
	t.Logf("answered by %v; %d after a rejected first answer", byBackend, fallbacks)
}

// TestBadlyScaledPrimalDualInfeasible: the 100 primal-and-dual infeasible
// instances of solvertest.PrimalDualSuite are "infeasible" on the default route
// (the primal certificate takes precedence, as in HiGHS), never "unbounded",
// which would claim a feasible point; the Farkas ray checks out.
func TestBadlyScaledPrimalDualInfeasible(t *testing.T) {
	byBackend := map[string]int{}
	both := 0
	for _, inst := range solvertest.PrimalDualSuite() {
		sol, msg := solveScaled(t, inst)
		if msg != "" {
			t.Errorf("%s: %s", inst.Name, msg)
			continue
		}
		byBackend[sol.Solver]++
		if sol.X != nil {
			// the improving ray kept next to the Farkas certificate
			ray := *sol
			ray.Status = solver.DualInfeasible
			if err := solver.CheckCertificate(inst.Problem, &ray, auto.CertificateTolerance); err != nil {
				t.Errorf("%s: the ray kept in X: %v", inst.Name, err)
			}
			both++
		}
	}
	t.Logf("answered by %v; %d with the improving ray as well (primal and dual infeasible shown by two certificates)", byBackend, both)
}
