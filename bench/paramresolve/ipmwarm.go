package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/privopt/privopt/internal/randlp"
	"github.com/privopt/privopt/model"
	"github.com/privopt/privopt/solver/ipm"
)

// runIPM compares, on the interior-point method, rebuilding and solving cold
// with model.Prepared's re-solve from the previous solution
// (ipm.Solver.SolveFrom): an LP whose right-hand side moves by up to ±0.1%
// or ±5%, and an SOCP (projection of a point c onto the LP's feasible set,
// min ‖x − c‖₂) whose centre moves by up to ±5%.
func runIPM(ctx context.Context, reps int) error {
	lp := randlp.New(1, 200, 1000, 10)
	fmt.Printf("\nInterior-point re-solves (%d variables, %d rows): rebuild + cold start vs Prepared (warm start); %d repetitions (median time, mean iterations)\n", lp.A.Cols, lp.A.Rows, reps)
	fmt.Printf("%-26s %9s %9s %8s %8s %9s %6s\n", "change", "rebuild", "prepared", "it. cold", "it. warm", "speed-up", "warm")
	rng := rand.New(rand.NewPCG(6, 6))
	c0 := make([]float64, lp.A.Cols)
	for j := range c0 {
		c0[j] = 0.5 + 0.5*rng.NormFloat64()
	}
	socp := func(c []float64, param bool) (*model.Model, *model.Param) {
		m := model.New("proj")
		x := m.Vector("x", lp.A.Cols)
		m.Bound(x, 0, 1)
		m.LessEq("cap", model.MulSparse(lp.A, x.Expr()), model.Const(lp.B...))
		var centre model.Arg = model.Const(c...)
		var p *model.Param
		if param {
			p = m.Parameter("c", c...)
			centre = p
		}
		m.MinimizeFn(model.Norm2(model.AsFn(x).Sub(centre)))
		return m, p
	}
	type scenario struct {
		name  string
		build func(v []float64, param bool) (*model.Model, *model.Param)
		base  []float64
		next  func() []float64
	}
	perturb := func(v []float64, f float64) []float64 {
		o := append([]float64(nil), v...)
		for j := range o {
			o[j] *= 1 + f*(2*rng.Float64()-1)
		}
		return o
	}
	for _, sc := range []scenario{
		{"LP, b ±0.1%", lp.Build, lp.B, func() []float64 { return perturb(lp.B, 0.001) }},
		{"LP, b ±5%", lp.Build, lp.B, func() []float64 { return perturb(lp.B, 0.05) }},
		{"SOCP, centre ±5%", socp, c0, func() []float64 { return perturb(c0, 0.05) }},
	} {
		opts := model.SolveOptions{Solver: ipm.New()}
		m, p := sc.build(sc.base, true)
		prep, err := m.Prepare(opts)
		if err != nil {
			return err
		}
		if res, err := prep.Solve(ctx); err != nil || !res.Status.OK() {
			return fmt.Errorf("%s: first solve: %v", sc.name, err)
		}
		var cold, warm []time.Duration
		itc, itw, nwarm := 0, 0, 0
		for r := 0; r < reps; r++ {
			v := sc.next()
			t0 := time.Now()
			mc, _ := sc.build(v, false)
			rc, err := mc.Solve(ctx, opts)
			if err != nil || !rc.Status.OK() {
				return fmt.Errorf("%s: cold solve: %v", sc.name, err)
			}
			cold = append(cold, time.Since(t0))
			t0 = time.Now()
			if err := prep.SetParam(p, v...); err != nil {
				return err
			}
			rw, err := prep.Solve(ctx)
			if err != nil || !rw.Status.OK() {
				return fmt.Errorf("%s: warm solve: %v", sc.name, err)
			}
			warm = append(warm, time.Since(t0))
			itc += rc.Solution.Iterations
			itw += rw.Solution.Iterations
			if strings.HasPrefix(rw.Diagnostic, "warm start") {
				nwarm++
			}
			if d := rw.Objective - rc.Objective; abs(d) > 1e-6*(1+abs(rc.Objective)) {
				return fmt.Errorf("%s: warm objective %v differs from cold %v", sc.name, rw.Objective, rc.Objective)
			}
		}
		prep.Close()
		c, w := median(cold), median(warm)
		fmt.Printf("%-26s %9s %9s %8.1f %8.1f %8.2f× %3d/%d\n", sc.name, c.Round(time.Millisecond), w.Round(time.Millisecond),
			float64(itc)/float64(reps), float64(itw)/float64(reps), float64(c)/float64(w), nwarm, reps)
	}
	return nil
}
