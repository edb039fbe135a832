package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/privopt/privopt/internal/randlp"
	"github.com/privopt/privopt/model"
	"github.com/privopt/privopt/solver/highs"
)

// buildQP returns min ½‖x‖² + cᵀx s.t. Ax ≤ b, 0 ≤ x ≤ 1 on the rows of lp,
// with c a parameter "c" (returned) when param is set.
func buildQP(lp *randlp.LP, c []float64, param bool) (*model.Model, *model.Param) {
	m := model.New("randqp")
	x := m.Vector("x", len(lp.C))
	m.Bound(x, 0, 1)
	m.LessEq("cap", model.MulSparse(lp.A, x.Expr()), model.Const(lp.B...))
	quad := model.SumSquares(x.Expr()).Scale(0.5)
	if !param {
		m.Minimize(x.Expr().Dot(c), quad)
		return m, nil
	}
	m.Minimize(model.Expr{}, quad)
	p := m.Parameter("c", c...)
	m.AddObjectiveDot(p, x.Expr())
	return m, p
}

// runQP compares rebuilding a QP on HiGHS with re-solving it through a cost
// parameter in model.Prepared's persistent HiGHS instance.
func runQP(ctx context.Context, reps int) error {
	lp := randlp.New(1, 300, 1500, 10)
	fmt.Printf("\nQP on HiGHS: %d variables, %d rows, ½‖x‖² + cᵀx; costs change by up to ±5%%; %d repetitions (median)\n", lp.A.Cols, lp.A.Rows, reps)
	m, p := buildQP(lp, lp.C, true)
	prep, err := m.Prepare(model.SolveOptions{Solver: highs.New()})
	if err != nil {
		return err
	}
	defer prep.Close()
	if res, err := prep.Solve(ctx); err != nil || !res.Status.OK() {
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
		mc, _ := buildQP(lp, c, false)
		rc, err := mc.Solve(ctx, model.SolveOptions{Solver: highs.New()})
		if err != nil || !rc.Status.OK() {
			return fmt.Errorf("QP cold solve: %v", err)
		}
		cold = append(cold, time.Since(t0))
		t0 = time.Now()
		if err := prep.SetParam(p, c...); err != nil {
			return err
		}
		rw, err := prep.Solve(ctx)
		if err != nil || !rw.Status.OK() {
			return fmt.Errorf("QP warm solve: %v", err)
		}
		warm = append(warm, time.Since(t0))
		itc += rc.Solution.Iterations
		itw += rw.Solution.Iterations
		if d := rw.Objective - rc.Objective; abs(d) > 1e-6*(1+abs(rc.Objective)) {
			return fmt.Errorf("QP: parameter objective %v differs from rebuild %v", rw.Objective, rc.Objective)
		}
	}
	fmt.Printf("%-24s %9s %9s %8s %8s %9s\n", "", "rebuild", "parameter", "it. reb.", "it. par.", "speed-up")
	c, w := median(cold), median(warm)
	fmt.Printf("%-24s %9s %9s %8d %8d %8.2f×\n", "costs ±5%", c.Round(time.Millisecond), w.Round(time.Millisecond), itc/reps, itw/reps, float64(c)/float64(w))
	return nil
}
