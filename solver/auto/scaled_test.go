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

// TestUnboundedByFeasiblePoint: on the unbounded LPs and SOCPs of
// solvertest.Suite (badly scaled; HiGHS answers the LPs, the IPM the SOCPs)
// the route's "unbounded" answers carry the backend's feasible point, which
// passes solver.CheckFeasible on the caller's data — so that no feasibility
// problem had to be solved for them (reported per family; at least half) —
// and every answer keeps the constructed status.
func TestUnboundedByFeasiblePoint(t *testing.T) {
	withPoint, unbounded := map[bool]int{}, map[bool]int{}
	for _, inst := range solvertest.Suite() {
		if inst.Want != solver.DualInfeasible {
			continue
		}
		lp := inst.Problem.IsLinearConic()
		sol, msg := solveScaled(t, inst)
		if msg != "" {
			t.Errorf("%s: %s", inst.Name, msg)
			continue
		}
		unbounded[lp]++
		if sol.FeasiblePoint != nil {
			withPoint[lp]++
			if err := solver.CheckFeasible(inst.Problem, sol.FeasiblePoint, auto.CertificateTolerance); err != nil {
				t.Errorf("%s: the feasible point: %v", inst.Name, err)
			}
		}
	}
	for _, lp := range []bool{true, false} {
		name := map[bool]string{true: "LPs", false: "SOCPs"}[lp]
		t.Logf("%d unbounded %s, %d decided by the backend's feasible point", unbounded[lp], name, withPoint[lp])
		if withPoint[lp] < unbounded[lp]/2 {
			t.Errorf("a feasible point on %d of %d unbounded %s, want at least half", withPoint[lp], unbounded[lp], name)
		}
	}
}
