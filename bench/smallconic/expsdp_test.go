package main

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/ipm"
)

// solveOptimal solves p with the IPM and fails unless it is optimal.
func solveOptimal(t *testing.T, name string, p *solver.Problem) *solver.Solution {
	t.Helper()
	if err := p.Validate(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	sol, err := ipm.New().Solve(context.Background(), p, solver.Settings{})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if sol.Status != solver.Optimal {
		t.Fatalf("%s: status %v after %d iterations, want optimal", name, sol.Status, sol.Iterations)
	}
	return sol
}

// TestClosedForms: instances of the three families' conic forms whose
// optimum is known in closed form.
func TestClosedForms(t *testing.T) {
	// one block of order r of −1ᵀy s.t. Diag(y) ⪯ C
	ones := func(r int, diag float64) [][]float64 {
		C := make([][]float64, r)
		for i := range C {
			C[i] = make([]float64, r)
			for j := range C[i] {
				C[i][j] = 1
			}
			C[i][i] = diag
		}
		return C
	}
	diagonal := [][]float64{{2, 0, 0}, {0, -1, 0}, {0, 0, 0.5}}
	// entropy with x₁ ≤ 0.1 over 5 probabilities: x₁ = 0.1, the rest 0.225
	capped := -0.1*math.Log(0.1) - 0.9*math.Log(0.225)
	for _, tc := range []struct {
		name string
		p    *solver.Problem
		want float64
	}{
		// log(1 + e^{−2w}) on |w| ≤ 1: w = 1
		{"logistic one sample", logisticProblem([][]float64{{2}}, []float64{1}), math.Log1p(math.Exp(-2))},
		// log(1 + e^{−2w}) + log(1 + e^{2w}): w = 0
		{"logistic opposite labels", logisticProblem([][]float64{{2}, {2}}, []float64{1, -1}), 2 * math.Ln2},
		// two features, one sample a = (1, −3), y = −1: w = (−1, 1) makes −y aᵀw = −4
		{"logistic box corner", logisticProblem([][]float64{{1, -3}}, []float64{-1}), math.Log1p(math.Exp(-4))},
		{"entropy simplex", entropyProblem(5, nil, nil, nil), -math.Log(5)},
		{"entropy capped", entropyProblem(5, [][]float64{{1, 0, 0, 0, 0}}, []float64{0}, []float64{0.1}), -capped},
		// J − I: y = −1 (J ⪰ 0), the max-cut value of the complete graph
		{"max-cut K5", maxCutProblem([][][]float64{ones(5, 0)}), 5},
		{"max-cut K3 and K7", maxCutProblem([][][]float64{ones(3, 0), ones(7, 0)}), 10},
		// a diagonal C: y = diag C
		{"max-cut diagonal", maxCutProblem([][][]float64{diagonal}), -1.5},
		// the same over the matrices: minus the values above
		{"max-cut K5 over X", maxCutPrimal([][][]float64{ones(5, 0)}), -5},
		{"max-cut K3 and K7 over X", maxCutPrimal([][][]float64{ones(3, 0), ones(7, 0)}), -10},
		{"max-cut diagonal over X", maxCutPrimal([][][]float64{diagonal}), 1.5},
	} {
		sol := solveOptimal(t, tc.name, tc.p)
		if d := math.Abs(sol.Objective - tc.want); d > 1e-6*math.Max(1, math.Abs(tc.want)) {
			t.Errorf("%s: objective %.12g, want %.12g (difference %.3g)", tc.name, sol.Objective, tc.want, d)
		}
	}
}

// checkCertificate checks an optimal answer from the data alone: s = b − Ax
// in K, y in K*, Aᵀy + q = 0 and the gap qᵀx + bᵀy, each to tol relative to
// the data's scale.
func checkCertificate(t *testing.T, name string, p *solver.Problem, sol *solver.Solution, tol float64) {
	t.Helper()
	s := p.A.MulVecTo(nil, -1, sol.X, 0)
	for i := range s {
		s[i] += p.B[i]
	}
	if d, err := cone.ProductDistance(p.Cones, s); err != nil || d > tol {
		t.Errorf("%s: b − Ax is %.3g from K (%v)", name, d, err)
	}
	off := 0
	for _, c := range p.Cones {
		if !c.ContainsDual(sol.Y[off:off+c.Dim], tol) {
			t.Errorf("%s: y outside the dual of cone %v at row %d", name, c, off)
		}
		off += c.Dim
	}
	r := p.A.MulTransVecTo(nil, 1, sol.Y, 0)
	scale := 1.0
	for j := range r {
		r[j] += p.Q[j]
		scale = math.Max(scale, math.Abs(p.Q[j]))
		if math.Abs(r[j]) > tol*scale {
			t.Errorf("%s: (Aᵀy + q)_%d = %.3g", name, j, r[j])
			break
		}
	}
	pobj, dobj := 0.0, 0.0
	for j, v := range p.Q {
		pobj += v * sol.X[j]
	}
	for i, v := range p.B {
		dobj -= v * sol.Y[i]
	}
	if g := math.Abs(pobj - dobj); g > tol*math.Max(1, math.Abs(pobj)) {
		t.Errorf("%s: gap qᵀx + bᵀy = %.3g (primal %.10g, dual %.10g)", name, g, pobj, dobj)
	}
	if math.Abs(pobj-sol.Objective) > tol*math.Max(1, math.Abs(pobj)) {
		t.Errorf("%s: reported objective %.10g, qᵀx = %.10g", name, sol.Objective, pobj)
	}
}

// TestFamiliesPlantedStatus: generated instances of the exp, entropy, sdp
// and sdpx families at the smallest sizes are optimal, with a primal–dual
// certificate checked on the data (feasible s and y, Aᵀy + q = 0, gap).
func TestFamiliesPlantedStatus(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 26))
	for _, f := range []string{"exp", "entropy", "sdp", "sdpx"} {
		for _, n := range []int{10, 20} {
			for k := 0; k < 2; k++ {
				p, err := generate(rng, f, n)
				if err != nil {
					t.Fatal(err)
				}
				if wantStatus(f) != "optimal" {
					t.Fatalf("family %s planted %s", f, wantStatus(f))
				}
				sol := solveOptimal(t, f, p)
				checkCertificate(t, f, p, sol, 1e-6)
			}
		}
	}
}

// TestLogisticAgainstProjectedGradient: the exp family's optimum equals the
// box-constrained logistic loss minimised directly (projected gradient
// descent with step 1/L, L = ¼‖A‖²_F, from w = 0, 20,000 steps).
func TestLogisticAgainstProjectedGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 26))
	d, N := 3, 8
	a := make([][]float64, N)
	y := make([]float64, N)
	L := 0.0
	for i := range a {
		a[i] = make([]float64, d)
		for j := range a[i] {
			a[i][j] = rng.NormFloat64()
			L += a[i][j] * a[i][j] / 4
		}
		y[i] = float64(2*rng.IntN(2) - 1)
	}
	loss := func(w []float64) (float64, []float64) {
		f, g := 0.0, make([]float64, d)
		for i := range a {
			z := 0.0
			for j := range w {
				z -= y[i] * a[i][j] * w[j]
			}
			f += math.Log1p(math.Exp(z))
			s := 1 / (1 + math.Exp(-z)) // d/dz log(1 + e^z)
			for j := range w {
				g[j] -= s * y[i] * a[i][j]
			}
		}
		return f, g
	}
	w := make([]float64, d)
	for it := 0; it < 20000; it++ {
		_, g := loss(w)
		for j := range w {
			w[j] = math.Max(-1, math.Min(1, w[j]-g[j]/L))
		}
	}
	want, _ := loss(w)
	sol := solveOptimal(t, "logistic", logisticProblem(a, y))
	if math.Abs(sol.Objective-want) > 1e-6*math.Max(1, want) {
		t.Errorf("conic optimum %.12g, projected gradient %.12g", sol.Objective, want)
	}
}

// TestMaxCutFormsAgree: the sdp and sdpx forms of the same weights are
// each other's duals, so their optimal values sum to zero.
func TestMaxCutFormsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 26))
	for _, n := range []int{10, 20, 30} {
		Cs := maxCutWeights(rng, n)
		lmi := solveOptimal(t, "sdp", maxCutProblem(Cs))
		mat := solveOptimal(t, "sdpx", maxCutPrimal(Cs))
		if d := math.Abs(lmi.Objective + mat.Objective); d > 1e-6*math.Max(1, math.Abs(lmi.Objective)) {
			t.Errorf("n = %d: LMI form %.12g, matrix form %.12g (sum %.3g)", n, lmi.Objective, mat.Objective, d)
		}
	}
}

// TestSDPOrders: block orders lie in 3…20 and sum to n.
func TestSDPOrders(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 26))
	for _, n := range []int{10, 20, 50, 100, 200} {
		for k := 0; k < 20; k++ {
			sum := 0
			for _, r := range sdpOrders(rng, n) {
				if r < 3 || r > 20 {
					t.Fatalf("n = %d: block order %d outside 3…20", n, r)
				}
				sum += r
			}
			if sum != n {
				t.Fatalf("n = %d: orders sum to %d", n, sum)
			}
		}
	}
}
