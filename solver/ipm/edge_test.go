package ipm

import (
	"math"
	"testing"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/sparse"
)

// TestEdgeCases: an unconstrained QP (minimizer −P⁻¹q), a problem with no
// variables (feasibility of b ∈ K), and empty cone blocks.
func TestEdgeCases(t *testing.T) {
	p := &solver.Problem{P: upperOf([][]float64{{2, 0}, {0, 4}}), Q: []float64{-2, 4}, A: sparse.NewCSC(0, 2), B: nil}
	sol := solveT(t, p, Settings{})
	if sol.Status != solver.Optimal || !close(sol.X[0], 1, 1e-7) || !close(sol.X[1], -1, 1e-7) || !close(sol.Objective, -3, 1e-8) {
		t.Errorf("unconstrained QP: %v x %v objective %v, want (1, −1), −3", sol.Status, sol.X, sol.Objective)
	}
	// no variables: s = b must lie in K
	p = &solver.Problem{Q: nil, A: sparse.NewCSC(2, 0), B: []float64{1, 2}, Cones: []cone.Cone{nn(2)}}
	sol = solveT(t, p, Settings{})
	if sol.Status != solver.Optimal || !close(sol.Objective, 0, 1e-9) {
		t.Errorf("no variables, feasible: %v objective %v", sol.Status, sol.Objective)
	}
	p.B = []float64{1, -2}
	sol = solveT(t, p, Settings{})
	if sol.Status != solver.PrimalInfeasible {
		t.Errorf("no variables, infeasible: %v", sol.Status)
	}
	// empty blocks among others
	p = &solver.Problem{Q: []float64{1}, A: dense([][]float64{{-1}}), B: []float64{-2}, Cones: []cone.Cone{cone.NewZero(0), nn(1), nn(0)}}
	sol = solveT(t, p, Settings{})
	if sol.Status != solver.Optimal || !close(sol.X[0], 2, 1e-7) {
		t.Errorf("empty blocks: %v x %v, want 2", sol.Status, sol.X)
	}
	// a redundant (duplicated) equality row and a free variable direction with P = 0 column
	p = &solver.Problem{Q: []float64{1, 0}, A: dense([][]float64{{1, 1}, {1, 1}, {-1, 0}}), B: []float64{1, 1, 0}, Cones: []cone.Cone{cone.NewZero(2), nn(1)}}
	sol = solveT(t, p, Settings{})
	if sol.Status != solver.Optimal || !close(sol.Objective, 0, 1e-7) {
		t.Errorf("redundant equalities: %v objective %v, want 0", sol.Status, sol.Objective)
	}
}

// TestNonsymmetricCertificates: eˣ ≤ t with t ≤ −1 is infeasible; min −t
// s.t. eˣ ≤ t is unbounded along the ray (0, 1) (min −x would be unbounded too,
// but along a curve only, without a certificate); the power cone x^½ y^½ ≥ |z| with x + y ≤ 1 and
// z ≥ 1 is infeasible (|z| ≤ (x+y)/2 ≤ ½).
func TestNonsymmetricCertificates(t *testing.T) {
	// vars x, t: s = (x, 1, t) ∈ K_exp, and t ≤ −1
	p := &solver.Problem{
		Q:     []float64{0, 0},
		A:     dense([][]float64{{-1, 0}, {0, 0}, {0, -1}, {0, 1}}),
		B:     []float64{0, 1, 0, -1},
		Cones: []cone.Cone{cone.NewExponential(), nn(1)},
	}
	sol := solveT(t, p, Settings{})
	if sol.Status != solver.PrimalInfeasible {
		t.Fatalf("exp infeasible: status %v", sol.Status)
	}
	y := sol.Y
	if by := dot(p.B, y); math.Abs(by+1) > 1e-9 {
		t.Errorf("bᵀy = %v", by)
	}
	if e := normInf(p.A.MulTransVecTo(nil, 1, y, 0)); e > 1e-6 {
		t.Errorf("‖Aᵀy‖ = %v", e)
	}
	// y ∈ K_exp*: u < 0, −u·exp(v/u) ≤ e·w (or the boundary piece u = 0, v, w ≥ 0)
	if u, v, w := y[0], y[1], y[2]; !(u <= 1e-9 && (u > -1e-12 && v >= -1e-7 && w >= -1e-7 || -u*math.Exp(v/u) <= math.E*w+1e-7)) || y[3] < -1e-9 {
		t.Errorf("y = %v not in K_exp* × R+", y)
	}
	p2 := &solver.Problem{
		Q:     []float64{0, -1},
		A:     dense([][]float64{{-1, 0}, {0, 0}, {0, -1}}),
		B:     []float64{0, 1, 0},
		Cones: []cone.Cone{cone.NewExponential()},
	}
	sol = solveT(t, p2, Settings{})
	if sol.Status != solver.DualInfeasible {
		t.Fatalf("exp unbounded: status %v", sol.Status)
	}
	if qx := dot(p2.Q, sol.X); math.Abs(qx+1) > 1e-9 {
		t.Errorf("qᵀx = %v", qx)
	}
	// vars x, y, z: (x, y, z) ∈ K_pow(½), x + y ≤ 1, z ≥ 1
	p3 := &solver.Problem{
		Q:     []float64{0, 0, 0},
		A:     dense([][]float64{{1, 1, 0}, {0, 0, -1}, {-1, 0, 0}, {0, -1, 0}, {0, 0, -1}}),
		B:     []float64{1, -1, 0, 0, 0},
		Cones: []cone.Cone{nn(2), cone.NewPower(0.5)},
	}
	sol = solveT(t, p3, Settings{})
	if sol.Status != solver.PrimalInfeasible {
		t.Fatalf("power infeasible: status %v", sol.Status)
	}
	if by := dot(p3.B, sol.Y); math.Abs(by+1) > 1e-9 {
		t.Errorf("bᵀy = %v", by)
	}
	if e := normInf(p3.A.MulTransVecTo(nil, 1, sol.Y, 0)); e > 1e-6 {
		t.Errorf("‖Aᵀy‖ = %v", e)
	}
}
