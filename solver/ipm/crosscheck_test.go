package ipm_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/privopt/privopt/cbf"
	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/ipm"
)

// crossReference is one entry of testdata/crosscheck/references.json, written by
// scripts/crosscheck/gen_instances.py from CVXOPT's solution.
type crossReference struct {
	Name          string   `json:"name"`
	File          string   `json:"file"`
	Kind          string   `json:"kind"`
	Status        string   `json:"status"`
	Objective     *float64 `json:"objective"`
	DualObjective *float64 `json:"dual_objective"`
}

// TestCrossCheckCVXOPT solves the committed random LP, SOCP, SDP and
// exponential-cone instances and compares with CVXOPT's results: the status must
// be identical and optimal objectives must agree to 1e-6 relative. Solutions and
// certificates are also checked directly against the problem data.
func TestCrossCheckCVXOPT(t *testing.T) {
	dir := filepath.Join("testdata", "crosscheck")
	raw, err := os.ReadFile(filepath.Join(dir, "references.json"))
	if err != nil {
		t.Fatal(err)
	}
	var refs struct {
		Instances []crossReference `json:"instances"`
	}
	if err := json.Unmarshal(raw, &refs); err != nil {
		t.Fatal(err)
	}
	if len(refs.Instances) < 16 {
		t.Fatalf("references.json lists %d instances, want at least 16", len(refs.Instances))
	}
	for _, ref := range refs.Instances {
		t.Run(ref.Name, func(t *testing.T) {
			f, err := cbf.ReadFile(filepath.Join(dir, ref.File))
			if err != nil {
				t.Fatal(err)
			}
			if f.Maximize {
				t.Fatal("cross-check instances are minimizations; the references would need negating")
			}
			p := f.Problem
			sol, err := ipm.New().Solve(context.Background(), p, solver.Settings{})
			if err != nil {
				t.Fatalf("Solve: %v", err)
			}
			if got := sol.Status.String(); got != ref.Status {
				msg := fmt.Sprintf("status %q, CVXOPT %q (iterations %d, objective %.12g", got, ref.Status, sol.Iterations, sol.Objective)
				if ref.Objective != nil {
					msg += fmt.Sprintf(", CVXOPT objective %.12g", *ref.Objective)
				}
				t.Fatal(msg + ")")
			}
			switch sol.Status {
			case solver.Optimal:
				want := *ref.Objective
				if d := math.Abs(sol.Objective - want); d > 1e-6*math.Max(1, math.Abs(want)) {
					t.Errorf("objective %.12g, CVXOPT %.12g (difference %.3g)", sol.Objective, want, d)
				}
				checkOptimal(t, p, sol)
			case solver.PrimalInfeasible:
				checkPrimalCertificate(t, p, sol.Y)
			case solver.DualInfeasible:
				checkDualCertificate(t, p, sol.X)
			}
		})
	}
}

// checkOptimal verifies primal feasibility b − Ax ∈ K and dual feasibility
// y ∈ K*, q + Aᵀy = 0 (P = 0 in these instances) to 1e-6 relative to the data.
func checkOptimal(t *testing.T, p *solver.Problem, sol *solver.Solution) {
	t.Helper()
	m := p.NumRows()
	s := make([]float64, m)
	p.A.MulVecTo(s, 1, sol.X, 0)
	scale := 1.0
	for i := range s {
		scale = math.Max(scale, math.Abs(p.B[i]))
		s[i] = p.B[i] - s[i]
	}
	if d, err := cone.ProductDistance(p.Cones, s); err != nil || d > 1e-6*scale {
		t.Errorf("b − Ax is at distance %g from K (err %v)", d, err)
	}
	dual := make([]cone.Cone, len(p.Cones))
	for i, c := range p.Cones {
		dual[i] = c.Dual()
	}
	if d, err := cone.ProductDistance(dual, sol.Y); err != nil || d > 1e-6*math.Max(1, norm(sol.Y)) {
		t.Errorf("y is at distance %g from K* (err %v)", d, err)
	}
	r := make([]float64, p.NumVars())
	p.A.MulTransVecTo(r, 1, sol.Y, 0)
	for j := range r {
		if v := r[j] + p.Q[j]; math.Abs(v) > 1e-6*math.Max(1, math.Abs(p.Q[j])) {
			t.Errorf("dual residual (q + Aᵀy)[%d] = %g", j, v)
			break
		}
	}
}

// checkPrimalCertificate verifies y ∈ K*, Aᵀy ≈ 0, bᵀy < 0 (normalized by bᵀy).
func checkPrimalCertificate(t *testing.T, p *solver.Problem, y []float64) {
	t.Helper()
	var by float64
	for i, v := range p.B {
		by += v * y[i]
	}
	if !(by < 0) {
		t.Fatalf("infeasibility certificate has bᵀy = %g, want < 0", by)
	}
	yn := make([]float64, len(y))
	for i := range y {
		yn[i] = y[i] / -by
	}
	dual := make([]cone.Cone, len(p.Cones))
	for i, c := range p.Cones {
		dual[i] = c.Dual()
	}
	if d, err := cone.ProductDistance(dual, yn); err != nil || d > 1e-6 {
		t.Errorf("certificate y/(−bᵀy) is at distance %g from K* (err %v)", d, err)
	}
	aty := make([]float64, p.NumVars())
	p.A.MulTransVecTo(aty, 1, yn, 0)
	if n := norm(aty); n > 1e-6 {
		t.Errorf("‖Aᵀy‖/(−bᵀy) = %g, want ≈ 0", n)
	}
}

// checkDualCertificate verifies −Ax ∈ K and qᵀx < 0 (normalized by qᵀx).
func checkDualCertificate(t *testing.T, p *solver.Problem, x []float64) {
	t.Helper()
	var qx float64
	for j, v := range p.Q {
		qx += v * x[j]
	}
	if !(qx < 0) {
		t.Fatalf("unboundedness certificate has qᵀx = %g, want < 0", qx)
	}
	xn := make([]float64, len(x))
	for j := range x {
		xn[j] = x[j] / -qx
	}
	ax := make([]float64, p.NumRows())
	p.A.MulVecTo(ax, 1, xn, 0)
	for i := range ax {
		ax[i] = -ax[i]
	}
	if d, err := cone.ProductDistance(p.Cones, ax); err != nil || d > 1e-6 {
		t.Errorf("−Ax/(−qᵀx) is at distance %g from K (err %v)", d, err)
	}
}

func norm(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v * v
	}
	return math.Sqrt(s)
}
