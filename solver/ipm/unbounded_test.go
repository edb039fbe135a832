package ipm

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privopt/privopt/internal/solvertest"
	"github.com/privopt/privopt/solver"
)

// TestFeasibleAlongRay: the feasible point that ends a dual infeasible solve
// early (feasibleAlongRay) is a proof, so it must never appear on a problem
// without one. 1,000 generated primal-and-dual infeasible LPs and SOCPs
// (solvertest.Random, badly scaled: coefficients 10⁻⁸ … 10⁸) solved without
// grace iterations: no answer carries a FeasiblePoint. 500 generated
// unbounded ones: every FeasiblePoint passes solver.CheckFeasible at the
// IPM's tolerance, and the early end is the rule (reported, at least half).
func TestFeasibleAlongRay(t *testing.T) {
	s, err := NewWithSettings(Settings{Termination: Termination{DualInfeasibleGrace: NoGrace}})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(26, 4))
	rays := 0
	for k := 0; k < 1000; k++ {
		inst := solvertest.Random(rng, solvertest.PrimalDualInfeasible, k, k%2 == 0)
		sol, err := s.Solve(context.Background(), inst.Problem, solver.Settings{})
		if err != nil {
			t.Fatalf("%s: %v", inst.Name, err)
		}
		if sol.Status == solver.DualInfeasible {
			rays++
		}
		if sol.FeasiblePoint != nil {
			t.Errorf("%s (primal and dual infeasible): status %v with a feasible point (%v)", inst.Name, sol.Status,
				solver.CheckFeasible(inst.Problem, sol.FeasiblePoint, 1e-8))
		}
	}
	found, unb := 0, 0
	for k := 0; k < 500; k++ {
		inst := solvertest.Random(rng, solvertest.Unbounded, k, k%2 == 0)
		sol, err := s.Solve(context.Background(), inst.Problem, solver.Settings{})
		if err != nil {
			t.Fatalf("%s: %v", inst.Name, err)
		}
		if sol.Status == solver.DualInfeasible {
			unb++
		}
		if sol.FeasiblePoint == nil {
			continue
		}
		found++
		if err := solver.CheckFeasible(inst.Problem, sol.FeasiblePoint, 1e-8); err != nil {
			t.Errorf("%s: the feasible point fails: %v", inst.Name, err)
		}
		if sol.Status != solver.DualInfeasible {
			t.Errorf("%s: feasible point with status %v", inst.Name, sol.Status)
		}
	}
	t.Logf("primal and dual infeasible: %d of 1000 answered unbounded (ray only, no point); unbounded: %d of 500 answered unbounded, %d with a feasible point", rays, unb, found)
	if found < 250 {
		t.Errorf("a feasible point on %d of 500 unbounded problems, want at least half", found)
	}
}

// TestSocShift: socShift against the definition, u − t·v ∈ SOC exactly up
// to t and not beyond, on random pairs (u inside, v inside or outside the
// cone).
func TestSocShift(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 5))
	in := func(u, v []float64, t float64) bool {
		var r float64
		for k := 1; k < len(u); k++ {
			d := u[k] - t*v[k]
			r += d * d
		}
		h := u[0] - t*v[0]
		return h >= 0 && h*h >= r
	}
	for trial := 0; trial < 2000; trial++ {
		d := 2 + rng.IntN(4)
		u, v := make([]float64, d), make([]float64, d)
		var nu float64
		for k := 1; k < d; k++ {
			u[k], v[k] = rng.NormFloat64(), rng.NormFloat64()
			nu += u[k] * u[k]
		}
		u[0] = math.Sqrt(nu) * (1 + rng.Float64())
		v[0] = 3 * rng.NormFloat64()
		ts := socShift(u, v)
		if !(ts >= 0) {
			t.Fatalf("u inside the cone, socShift = %v", ts)
		}
		if ts > 1e6 {
			if !in(u, v, 1e6) {
				t.Fatalf("socShift = %v but u − 1e6·v is outside", ts)
			}
			continue
		}
		if !in(u, v, ts*(1-1e-9)) || in(u, v, ts*(1+1e-6)+1e-12) {
			t.Fatalf("trial %d: socShift = %v is not the boundary (u %v, v %v)", trial, ts, u, v)
		}
	}
	if got := socShift([]float64{1, 2}, []float64{1, 0}); got != -1 {
		t.Errorf("u outside the cone: socShift = %v, want −1", got)
	}
}
