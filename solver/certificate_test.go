package solver_test

import (
	"errors"
	"math"
	"testing"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/sparse"
)

// farkasLP is x ≥ 1 and x ≤ 0 (rows −x ≤ −r, x ≤ 0 with the first row scaled
// by r), infeasible with the certificate y = (1/r, 1): Aᵀy = 0, bᵀy = −1.
func farkasLP(r float64) *solver.Problem {
	t := sparse.NewTriplets(2, 1, 2)
	t.Append(0, 0, -r)
	t.Append(1, 0, 1)
	return &solver.Problem{Q: []float64{0}, A: t.ToCSC(), B: []float64{-r, 0}, Cones: []cone.Cone{cone.NewNonnegative(2)}}
}

// rayLP is min −x₁ s.t. (c·x₁, x₂) in the second-order cone in the form
// b − Ax = (c·x₁, x₂) ∈ SOC (A = −diag(c, 1), b = 0) plus x₂ = 0: unbounded
// along x = (1/c, 0)·t with qᵀx = −1/c·t.
func rayLP(c float64) *solver.Problem {
	t := sparse.NewTriplets(3, 2, 3)
	t.Append(0, 0, -c)
	t.Append(1, 1, -1)
	t.Append(2, 1, 1)
	return &solver.Problem{Q: []float64{-1, 0}, A: t.ToCSC(), B: []float64{0, 0, 0},
		Cones: []cone.Cone{cone.NewSecondOrder(2), cone.NewZero(1)}}
}

// TestCheckCertificate: exact certificates pass at any row scaling (10⁻⁸ …
// 10⁸), perturbed ones fail with ErrInvalidCertificate, and a status without
// a certificate is an invalid request.
func TestCheckCertificate(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    *solver.Problem
		sol  solver.Solution
		ok   bool
	}{
		{"farkas", farkasLP(1), solver.Solution{Status: solver.PrimalInfeasible, Y: []float64{1, 1}}, true},
		{"farkas row 1e-8", farkasLP(1e-8), solver.Solution{Status: solver.PrimalInfeasible, Y: []float64{1e8, 1}}, true},
		{"farkas row 1e8", farkasLP(1e8), solver.Solution{Status: solver.PrimalInfeasible, Y: []float64{1e-8, 1}}, true},
		// Aᵀy = −1 + 1.001: 1e-3 of the terms' magnitude
		{"farkas off by 1e-3", farkasLP(1), solver.Solution{Status: solver.PrimalInfeasible, Y: []float64{1, 1.001}}, false},
		// projected onto K*: y = (1, 0) leaves Aᵀy = −1
		{"farkas outside K*", farkasLP(1), solver.Solution{Status: solver.PrimalInfeasible, Y: []float64{1, -1}}, false},
		{"farkas bᵀy ≥ 0", farkasLP(1), solver.Solution{Status: solver.PrimalInfeasible, Y: []float64{0, 1}}, false},
		{"farkas missing", farkasLP(1), solver.Solution{Status: solver.PrimalInfeasible}, false},
		{"ray", rayLP(1), solver.Solution{Status: solver.DualInfeasible, X: []float64{1, 0}}, true},
		{"ray scaled 1e8", rayLP(1e8), solver.Solution{Status: solver.DualInfeasible, X: []float64{1e-8, 0}}, true},
		// −Ax = (1, 1.001) leaves the SOC and x₂ = 0 fails
		{"ray outside K", rayLP(1), solver.Solution{Status: solver.DualInfeasible, X: []float64{1, 1.001}}, false},
		{"ray not improving", rayLP(1), solver.Solution{Status: solver.DualInfeasible, X: []float64{-1, 0}}, false},
		{"ray NaN", rayLP(1), solver.Solution{Status: solver.DualInfeasible, X: []float64{1, math.NaN()}}, false},
	} {
		err := solver.CheckCertificate(tc.p, &tc.sol, 1e-6)
		if tc.ok && err != nil {
			t.Errorf("%s: valid certificate rejected: %v", tc.name, err)
		}
		if !tc.ok && !errors.Is(err, solver.ErrInvalidCertificate) {
			t.Errorf("%s: got %v, want ErrInvalidCertificate", tc.name, err)
		}
	}
	if err := solver.CheckCertificate(farkasLP(1), &solver.Solution{Status: solver.Optimal}, 1e-6); !errors.Is(err, solver.ErrInvalidProblem) {
		t.Errorf("optimal status: got %v, want ErrInvalidProblem", err)
	}
}

// TestCheckFeasible: b − Ax ∈ K relative to |bᵢ| + |(Ax)ᵢ|. On
// x₁ + x₂ ≤ 1, x₁ ≥ 0, x₂ ≥ 0 (rows b − Ax = (1 − x₁ − x₂, x₁, x₂)): (0.25,
// 0.5) passes; (0.6, 0.5) violates row 0 by 0.1 and fails; a violation of
// 1e-12 passes at tol 1e-9; a huge point along a direction that cancels in
// the first row, x = (10¹², −10¹² + 1.1), violates it by 0.1 and fails
// although 0.1 is tiny next to the terms Σ|aᵢₖxₖ| = 2·10¹² (it fails on
// its other rows too, x₂ < 0 — the scale of those is |x₂| itself).
func TestCheckFeasible(t *testing.T) {
	a := sparse.NewTriplets(3, 2, 4)
	a.Append(0, 0, 1)
	a.Append(0, 1, 1)
	a.Append(1, 0, -1)
	a.Append(2, 1, -1)
	p := &solver.Problem{Q: []float64{-1, -1}, A: a.ToCSC(), B: []float64{1, 0, 0}, Cones: []cone.Cone{cone.NewNonnegative(3)}}
	if err := solver.CheckFeasible(p, []float64{0.25, 0.5}, 1e-9); err != nil {
		t.Errorf("feasible point rejected: %v", err)
	}
	if err := solver.CheckFeasible(p, []float64{0.5 - 1e-12, 0.5 + 2e-12}, 1e-9); err != nil {
		t.Errorf("point violating row 0 by 1e-12 rejected at tol 1e-9: %v", err)
	}
	for _, x := range [][]float64{{0.6, 0.5}, {1e12, -1e12 + 1.1}} {
		err := solver.CheckFeasible(p, x, 1e-9)
		if !errors.Is(err, solver.ErrInvalidCertificate) {
			t.Errorf("x = %v: err %v, want solver.ErrInvalidCertificate", x, err)
		}
	}
	if err := solver.CheckFeasible(p, []float64{1}, 1e-9); !errors.Is(err, solver.ErrInvalidCertificate) {
		t.Errorf("wrong length: err %v", err)
	}
	if err := solver.CheckFeasible(p, []float64{0, 0}, 0); !errors.Is(err, solver.ErrInvalidProblem) {
		t.Errorf("tol 0: err %v", err)
	}
}
