package auto_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/auto"
	"github.com/privopt/privopt/solver/highs"
	"github.com/privopt/privopt/solver/ipm"
	"github.com/privopt/privopt/sparse"
)

// randomBoxQP returns min ½xᵀPx + qᵀx s.t. A_eq x = b_eq, A_in x ≤ b_in,
// l ≤ x ≤ u with P = LLᵀ of random rank (often singular), box widths spread
// over 10^-3..10^6, rows built around a point of the box (feasible), except
// that every tenth problem gets an equality row pushed outside the box's
// image (infeasible).
func randomBoxQP(rng *rand.Rand, k int) (*solver.Problem, bool) {
	n := 2 + rng.IntN(11)
	rank := rng.IntN(n + 1)
	width := make([]float64, n)
	center := make([]float64, n)
	for j := range width {
		width[j] = math.Pow(10, -3+9*rng.Float64())
		center[j] = (rng.Float64()*2 - 1) * width[j]
	}
	x0 := make([]float64, n)
	for j := range x0 {
		x0[j] = center[j] + (rng.Float64()-0.5)*width[j]
	}
	// P = LLᵀ (upper triangle)
	L := make([][]float64, n)
	for i := range L {
		L[i] = make([]float64, rank)
		for r := range L[i] {
			L[i][r] = rng.NormFloat64()
		}
	}
	pt := sparse.NewTriplets(n, n, n*n)
	for j := 0; j < n; j++ {
		for i := 0; i <= j; i++ {
			var v float64
			for r := 0; r < rank; r++ {
				v += L[i][r] * L[j][r]
			}
			if v != 0 {
				pt.Append(i, j, v)
			}
		}
	}
	q := make([]float64, n)
	for j := range q {
		q[j] = rng.NormFloat64() * 10
	}
	meq, min := rng.IntN(n/2+1), rng.IntN(n+1)
	infeasible := k%10 == 9 && meq > 0
	rows := meq + min + 2*n
	at := sparse.NewTriplets(rows, n, rows*n)
	b := make([]float64, 0, rows)
	row := func(r int, slack float64) {
		var ax float64
		for j := 0; j < n; j++ {
			if rng.Float64() < 0.6 {
				v := rng.NormFloat64()
				at.Append(r, j, v)
				ax += v * x0[j]
			}
		}
		b = append(b, ax+slack)
	}
	for r := 0; r < meq; r++ {
		row(r, 0)
	}
	if infeasible {
		// row 0 becomes Σ|a_j|·(|center_j| + width_j) + 1 = a·x: impossible in the box
		t := sparse.NewTriplets(rows, n, rows*n)
		var big float64
		for j := 0; j < n; j++ {
			t.Append(0, j, 1)
			big += math.Abs(center[j]) + width[j]
		}
		b[0] = big + 1
		for k := range at.V {
			if at.I[k] != 0 {
				t.Append(at.I[k], at.J[k], at.V[k])
			}
		}
		at = t
	}
	for r := meq; r < meq+min; r++ {
		row(r, rng.Float64())
	}
	for j := 0; j < n; j++ { // x_j ≤ center + width/2, −x_j ≤ −(center − width/2)
		at.Append(meq+min+2*j, j, 1)
		at.Append(meq+min+2*j+1, j, -1)
		b = append(b, center[j]+width[j]/2, -(center[j] - width[j]/2))
	}
	p := &solver.Problem{P: pt.ToCSC(), Q: q, A: at.ToCSC(), B: b,
		Cones: []cone.Cone{cone.NewZero(meq), cone.NewNonnegative(min + 2*n)}}
	return p, infeasible
}

// TestRandomBoxQPs: 200 random small convex QPs with box bounds spanning
// 1e-3..1e6. The IPM never ends in a numerical error or almost-optimal, IPM
// and HiGHS agree on the outcome (solved or infeasible), optimal values agree
// within HiGHS's certified accuracy, and the default route answers every one
// with Optimal or a certified infeasibility.
func TestRandomBoxQPs(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 2026))
	ctx := context.Background()
	var numerical, disagree, optimal, infeasible, highsAlmost int
	for k := 0; k < 200; k++ {
		p, wantInfeasible := randomBoxQP(rng, k)
		si, err := ipm.New().Solve(ctx, p, solver.Settings{})
		if err != nil {
			t.Fatalf("QP %d: ipm: %v", k, err)
		}
		sh, err := highs.New().Solve(ctx, p, solver.Settings{})
		if err != nil {
			t.Fatalf("QP %d: highs: %v", k, err)
		}
		sa, err := auto.New().Solve(ctx, p, solver.Settings{})
		if err != nil {
			t.Fatalf("QP %d: auto: %v", k, err)
		}
		if si.Status == solver.NumericalError || si.Status == solver.AlmostOptimal {
			numerical++
			t.Errorf("QP %d (n = %d): ipm %v: %s", k, p.NumVars(), si.Status, si.Diagnostic)
		}
		want := solver.Optimal
		if wantInfeasible {
			want = solver.PrimalInfeasible
		}
		// HiGHS's QP solver stops at its dual tolerance 1e-7; with boxes 10⁶
		// wide that moves the objective by up to 1e-5 relative, and the
		// re-check then says AlmostOptimal: same outcome, honest accuracy.
		if si.Status != want {
			t.Errorf("QP %d: ipm %v, want %v", k, si.Status, want)
			continue
		}
		if class(sh.Status) != class(want) {
			// Known: HiGHS's active-set QP solver sometimes stops with dual
			// residuals of 1e-7..1e-3 on boxes 10⁶ wide (its answer then
			// fails the re-check). It must never be a wrong Optimal.
			disagree++
			t.Logf("QP %d: highs %v (%s), ipm %v", k, sh.Status, sh.Diagnostic, si.Status)
			if sh.Status == solver.Optimal || sh.Status == solver.PrimalInfeasible || sh.Status == solver.DualInfeasible {
				t.Errorf("QP %d: highs claims %v, the answer is %v", k, sh.Status, want)
			}
			continue
		}
		if sh.Status == solver.AlmostOptimal {
			highsAlmost++
		}
		if want == solver.Optimal {
			optimal++
			// HiGHS's objective is within its certified sensitivity (plus gap)
			tol := 1e-7 + sh.Accuracy.Sensitivity + sh.Accuracy.Gap
			if d := math.Abs(si.Objective - sh.Objective); d > tol*math.Max(1, math.Abs(sh.Objective)) {
				t.Errorf("QP %d: objectives ipm %.12g, highs %.12g differ by more than HiGHS's certified %.2g", k, si.Objective, sh.Objective, tol)
			}
		} else {
			infeasible++
		}
		if sa.Status != want {
			t.Errorf("QP %d: default route %v (%s), want %v", k, sa.Status, sa.Diagnostic, want)
		}
	}
	// Measured: 17 of 200 (all NumericalError on HiGHS's side). The bound
	// catches a regression of either backend or of the re-check.
	if disagree > 20 {
		t.Errorf("HiGHS and the IPM disagree on %d of 200 QPs, more than the 20 allowed", disagree)
	}
	t.Logf("200 QPs: %d optimal, %d infeasible; ipm numerical outcomes %d; outcome disagreements %d; HiGHS almost-optimal %d", optimal, infeasible, numerical, disagree, highsAlmost)
}

// class maps a status to its outcome: a solution (Optimal or AlmostOptimal),
// or the status itself.
func class(s solver.Status) solver.Status {
	if s.OK() {
		return solver.Optimal
	}
	return s
}

// stub is a backend that returns a fixed status.
type stub struct {
	name   string
	status solver.Status
}

func (s stub) Name() string            { return s.name }
func (stub) Supports(k cone.Kind) bool { return k == cone.Zero || k == cone.Nonnegative }
func (s stub) Solve(_ context.Context, p *solver.Problem, _ solver.Settings) (*solver.Solution, error) {
	return &solver.Solution{Status: s.status, Solver: s.name, Diagnostic: "stub answer"}, nil
}

// TestFallbackRecorded: when the first backend's answer is rejected, the
// second answers and the solution records the rejected backend.
func TestFallbackRecorded(t *testing.T) {
	tr := sparse.NewTriplets(1, 1, 1)
	tr.Append(0, 0, -1)
	p := &solver.Problem{Q: []float64{1}, A: tr.ToCSC(), B: []float64{-2}, Cones: []cone.Cone{cone.NewNonnegative(1)}} // min x s.t. x ≥ 2
	s, err := auto.NewWith(stub{"broken", solver.NumericalError}, ipm.New())
	if err != nil {
		t.Fatal(err)
	}
	s.SmallLPNnz = -1 // the LP/QP backend first, whatever the size
	sol, err := s.Solve(context.Background(), p, solver.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if sol.Status != solver.Optimal || sol.Solver != "ipm" || sol.Fallback != "broken" || math.Abs(sol.Objective-2) > 1e-7 {
		t.Errorf("got status %v, solver %q, fallback %q, objective %v; want optimal 2 by ipm after broken", sol.Status, sol.Solver, sol.Fallback, sol.Objective)
	}
	if sol.Diagnostic == "" {
		t.Error("no diagnostic for the fallback")
	}
}
