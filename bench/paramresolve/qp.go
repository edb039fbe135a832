package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/privopt/privopt/internal/randlp"
	"github.com/privopt/privopt/model"
	"github.com/privopt/privopt/solver/highs"
	"github.com/privopt/privopt/sparse"
)

// buildQP returns min ½‖x‖² + cᵀx s.t. Ax ≤ b, 0 ≤ x ≤ 1 on the rows of lp.
func buildQP(lp *randlp.LP, c []float64) *model.Model {
	m := model.New("randqp")
	x := m.Vector("x", len(lp.C))
	m.Bound(x, 0, 1)
	m.LessEq("cap", model.MulSparse(lp.A, x.Expr()), model.Const(lp.B...))
	m.Minimize(x.Expr().Dot(c), model.SumSquares(x.Expr()).Scale(0.5))
	return m
}

// runQP asks whether HiGHS's QP solver warm-starts: the QP rebuilt and
// solved by the HiGHS backend, against one persistent HiGHS instance
// (highs.LP with SetHessian) whose costs change (SetCosts) before each
// re-solve. model.Prepared re-solves QPs through the backend because the
// persistent instance saves no iterations.
func runQP(ctx context.Context, reps int) error {
	lp := randlp.New(1, 300, 1500, 10)
	n := lp.A.Cols
	fmt.Printf("\nQP on HiGHS: %d variables, %d rows, ½‖x‖² + cᵀx; costs change by up to ±5%%; %d repetitions (median)\n", n, lp.A.Rows, reps)
	inst := highs.NewLP(highs.Options{})
	defer inst.Close()
	lo, hi := make([]float64, n), make([]float64, n)
	for j := range hi {
		hi[j] = 1
	}
	if err := inst.AddColumns(lp.C, lo, hi); err != nil {
		return err
	}
	rlo := make([]float64, lp.A.Rows)
	for i := range rlo {
		rlo[i] = math.Inf(-1)
	}
	if err := inst.AddRows(rlo, lp.B, lp.A.Transpose()); err != nil {
		return err
	}
	eye := sparse.NewTriplets(n, n, n)
	for j := 0; j < n; j++ {
		eye.Append(j, j, 1)
	}
	if err := inst.SetHessian(eye.ToCSC()); err != nil {
		return err
	}
	if r, err := inst.Solve(ctx); err != nil || !r.Status.OK() {
		return fmt.Errorf("QP first solve: %v", err)
	}
	rng := rand.New(rand.NewPCG(4, 4))
	var cold, warm []time.Duration
	var itc, itw int
	for r := 0; r < reps; r++ {
		c := append([]float64(nil), lp.C...)
		for j := range c {
			c[j] *= 1 + 0.05*(2*rng.Float64()-1)
		}
		t0 := time.Now()
		rc, err := buildQP(lp, c).Solve(ctx, model.SolveOptions{Solver: highs.New()})
		if err != nil || !rc.Status.OK() {
			return fmt.Errorf("QP rebuild: %v", err)
		}
		cold = append(cold, time.Since(t0))
		t0 = time.Now()
		if err := inst.SetCosts(c); err != nil {
			return err
		}
		rw, err := inst.Solve(ctx)
		if err != nil || !rw.Status.OK() {
			return fmt.Errorf("QP persistent re-solve: %v", err)
		}
		warm = append(warm, time.Since(t0))
		itc += rc.Solution.Iterations
		itw += rw.Iterations
		if d := rw.Objective - rc.Objective; abs(d) > 1e-6*(1+abs(rc.Objective)) {
			return fmt.Errorf("QP: persistent objective %v differs from rebuild %v", rw.Objective, rc.Objective)
		}
	}
	fmt.Printf("%-24s %9s %10s %8s %8s %9s\n", "", "rebuild", "persistent", "it. reb.", "it. per.", "speed-up")
	c, w := median(cold), median(warm)
	fmt.Printf("%-24s %9s %10s %8d %8d %8.2f×\n", "costs ±5%", c.Round(time.Millisecond), w.Round(time.Millisecond), itc/reps, itw/reps, float64(c)/float64(w))
	return nil
}
