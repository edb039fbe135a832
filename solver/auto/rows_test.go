package auto_test

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/privopt/privopt/internal/solvertest"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/auto"
	"github.com/privopt/privopt/solver/highs"
)

// issueLP is the badly scaled LP of the row-wise re-check's motivating
// failure: 16 free variables, 35 rows with terms 10³…10⁶ except row 0 (terms
// about 10⁻⁶), columns scaled by 10^U(−3, 3). HiGHS's simplex stops at a
// point that violates row 0 by 5% of its terms; the global re-check
// (Accuracy) measures the violation as 10⁻¹³ and passes it at HiGHS's
// tolerance 10⁻⁷.
func issueLP() solvertest.MixedInstance {
	return solvertest.OneSmallRow(rand.New(rand.NewPCG(329, 26)), 1e-7, 3)
}

// TestIssueSmallRowNotOptimal: HiGHS alone no longer reports the wrong point
// as optimal (the row-wise re-check names row 0); the route with HiGHS
// first answers with the planted optimum after rejecting HiGHS's answer, and
// the default route (this LP is small: the IPM first) with the IPM's.
func TestIssueSmallRowNotOptimal(t *testing.T) {
	inst := issueLP()
	ctx := context.Background()
	h, err := highs.New().Solve(ctx, inst.Problem, solver.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	wrong := solvertest.Judge(inst.Problem, h, inst.Objective, 1e-5)
	t.Logf("highs: %v, judge: %q, %v", h.Status, wrong, h.Accuracy.Rows)
	if wrong == "" {
		t.Fatalf("HiGHS's answer is right (%v): the instance no longer reproduces the failure", h.Status)
	}
	if h.Status == solver.Optimal {
		t.Errorf("HiGHS's wrong answer is still Optimal: %s", wrong)
	}
	if h.Accuracy.Rows.Row != 0 || !strings.Contains(h.Diagnostic, "row-wise") {
		t.Errorf("the re-check should name row 0: rows %v, diagnostic %q", h.Accuracy.Rows, h.Diagnostic)
	}
	if g := h.Accuracy; !g.Meets(1e-7) {
		t.Errorf("the global re-check was expected to miss the violation, it reports %v", g)
	}
	// The route with HiGHS first (SmallLPNnz = −1: this LP is small enough
	// for the IPM first by default) rejects HiGHS's answer and falls back;
	// the default route's IPM answers first. Both answers are right.
	vertex := auto.New()
	vertex.SmallLPNnz = -1
	for _, c := range []struct {
		name             string
		s                *auto.Solver
		solver, fallback string
	}{{"HiGHS first", vertex, "ipm", "highs"}, {"default route", auto.New(), "ipm", ""}} {
		sol, err := c.s.Solve(ctx, inst.Problem, solver.Settings{})
		if err != nil {
			t.Fatal(err)
		}
		if sol.Status != solver.Optimal || sol.Solver != c.solver || sol.Fallback != c.fallback {
			t.Errorf("%s: %v by %s (fallback %q), want optimal by %s (fallback %q): %s", c.name, sol.Status, sol.Solver, sol.Fallback, c.solver, c.fallback, sol.Diagnostic)
		}
		if msg := solvertest.Judge(inst.Problem, sol, inst.Objective, 1e-6); msg != "" {
			t.Errorf("%s: the answer is wrong: %s", c.name, msg)
		}
	}
}

// TestMixedScaleNoWrongOptimal is the fast part of the mixed-scale property
// test (bench/mixedscale runs 1,600): 240 LPs, QPs and SOCPs whose row blocks
// span 10⁻⁶ … 10⁶ and 60 one-small-row LPs on the default route; no answer
// claimed Optimal may be wrong by the independent judge (objective and every
// row of x on its own scale, 10⁻⁵), and at most 3% may end without an OK
// status.
func TestMixedScaleNoWrongOptimal(t *testing.T) {
	insts := solvertest.MixedSuite(240)
	for seed := 0; seed < 60; seed++ {
		rng := rand.New(rand.NewPCG(uint64(seed), 26))
		insts = append(insts, solvertest.OneSmallRow(rng, []float64{1e-5, 1e-7, 1e-8, 1e-3}[seed%4], float64(seed%3)*1.5))
	}
	s := auto.New()
	notOK, fallbacks := 0, 0
	for _, in := range insts {
		sol, err := s.Solve(context.Background(), in.Problem, solver.Settings{})
		if err != nil {
			t.Fatalf("%s: %v", in.Name, err)
		}
		if sol.Fallback != "" {
			fallbacks++
		}
		if !sol.Status.OK() {
			notOK++
			continue
		}
		if msg := solvertest.Judge(in.Problem, sol, in.Objective, 1e-5); msg != "" && sol.Status == solver.Optimal {
			t.Errorf("%s: wrong optimal by %s: %s (%s)", in.Name, sol.Solver, msg, sol.Diagnostic)
		}
	}
	t.Logf("%d instances, %d without an OK status, %d answered after a rejected first answer", len(insts), notOK, fallbacks)
	if notOK > len(insts)*3/100 {
		t.Errorf("%d of %d instances without an OK status", notOK, len(insts))
	}
}
