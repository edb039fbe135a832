// Command paramresolve measures re-solves through parameters (model.Param,
// model.Prepared) against rebuilding and solving from scratch:
//
//  1. a random sparse LP with 10,000 variables (package internal/randlp:
//     2,000 rows of 10 entries, 0 ≤ x ≤ 1, one equality) whose right-hand
//     side changes — 50 entries by up to ±5%, every entry by up to ±0.1%,
//     every entry by up to ±5% — solved by HiGHS cold (build + canonicalize +
//     solve) or warm (SetParam + re-solve from the previous basis);
//
//  2. 24 hourly DC-OPF solves of a pglib case (default
//     pglib_opf_case2383wp_k) with the loads scaled by a daily profile,
//     through grid.ParamOPF (load parameters; warm HiGHS for LPs) against
//     grid.BuildOPF + Solve per hour.
//
//  3. a QP (1,500 variables, 300 rows of package internal/randlp with the
//     objective ½‖x‖² + cᵀx) whose costs c change by up to ±5%, rebuilt and
//     solved by HiGHS, or re-solved in one persistent HiGHS instance
//     (highs.LP with SetHessian): does HiGHS's QP solver warm-start?
//
//  4. interior-point re-solves of an LP (right-hand side ±0.1%, ±5%) and an
//     SOCP (a projection whose centre moves ±5%): rebuild and cold start
//     against model.Prepared, which starts from the previous solution
//     (ipm.Solver.SolveFrom), with the mean iteration counts;
//
//  5. a λ path of package learn: learn.FitPath (one model with λ as a
//     parameter, re-solved per λ) against learn.Fit per λ, on ridge,
//     nonnegative ridge and hinge-loss problems, with the largest difference
//     of the weights.
//
// Times are wall-clock medians over -reps repetitions (LP, QP) and per-hour
// means (OPF). The LP's speed-up is also given per repetition (rebuild time
// over parameter time of the same repetition; min, median and max), which is
// robust to the load of a shared machine changing between repetitions.
// Usage:
//
//	go run ./bench/paramresolve [-reps 5] [-case pglib_opf_case2383wp_k] [-skip-lp] [-skip-opf] [-skip-qp] [-skip-ipm] [-skip-path]
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"time"

	"github.com/privopt/privopt/internal/randlp"
	"github.com/privopt/privopt/model"
)

func main() {
	reps := flag.Int("reps", 3, "repetitions per LP scenario")
	caseName := flag.String("case", "pglib_opf_case2383wp_k", "pglib case for the hourly DC-OPF")
	skipOPF := flag.Bool("skip-opf", false, "skip the DC-OPF part")
	skipLP := flag.Bool("skip-lp", false, "skip the 10,000-variable LP part")
	skipQP := flag.Bool("skip-qp", false, "skip the QP part")
	skipPath := flag.Bool("skip-path", false, "skip the λ path part")
	skipIPM := flag.Bool("skip-ipm", false, "skip the interior-point warm-start part")
	flag.Parse()
	ctx := context.Background()
	for _, part := range []struct {
		skip bool
		run  func() error
	}{
		{*skipLP, func() error { return runLP(ctx, *reps) }},
		{*skipQP, func() error { return runQP(ctx, *reps) }},
		{*skipIPM, func() error { return runIPM(ctx, *reps) }},
		{*skipPath, func() error { return runPath(ctx) }},
		{*skipOPF, func() error { return runOPF(ctx, *caseName) }},
	} {
		if part.skip {
			continue
		}
		if err := part.run(); err != nil {
			fmt.Fprintln(os.Stderr, "paramresolve:", err)
			os.Exit(1)
		}
	}
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func runLP(ctx context.Context, reps int) error {
	lp := randlp.New(1, 2000, 10000, 10)
	fmt.Printf("LP: %d variables, %d rows, %d nonzeros; %d repetitions (median)\n", lp.A.Cols, lp.A.Rows, lp.A.Nnz(), reps)
	fmt.Printf("%-24s %9s %9s %6s %9s  %s\n", "right-hand side change", "rebuild", "parameter", "iters", "speed-up", "per-rep speed-up min/median/max")
	for _, sc := range []struct {
		name string
		rows int
		f    float64
	}{{"50 entries, ±5%", 50, 0.05}, {"all entries, ±0.1%", lp.A.Rows, 0.001}, {"all entries, ±5%", lp.A.Rows, 0.05}} {
		rng := rand.New(rand.NewPCG(3, 3))
		var cold, warm []time.Duration
		var ratios []float64
		iters := 0
		m, p := lp.Build(lp.B, true)
		prep, err := m.Prepare(model.SolveOptions{})
		if err != nil {
			return err
		}
		if res, err := prep.Solve(ctx); err != nil || !res.Status.OK() {
			return fmt.Errorf("first solve: %v", err)
		}
		for r := 0; r < reps; r++ {
			b := lp.Perturb(rng, sc.rows, sc.f)
			t0 := time.Now()
			mc, _ := lp.Build(b, false)
			rc, err := mc.Solve(ctx, model.SolveOptions{})
			if err != nil || !rc.Status.OK() {
				return fmt.Errorf("cold solve: %v", err)
			}
			cold = append(cold, time.Since(t0))
			t0 = time.Now()
			if err := prep.SetParam(p, b...); err != nil {
				return err
			}
			rw, err := prep.Solve(ctx)
			if err != nil || !rw.Status.OK() {
				return fmt.Errorf("warm solve: %v", err)
			}
			warm = append(warm, time.Since(t0))
			ratios = append(ratios, float64(cold[r])/float64(warm[r]))
			iters += rw.Solution.Iterations
			if d := rw.Objective - rc.Objective; d > 1e-6*(1+abs(rc.Objective)) || -d > 1e-6*(1+abs(rc.Objective)) {
				return fmt.Errorf("warm objective %v differs from cold %v", rw.Objective, rc.Objective)
			}
			// Return to the base point so every repetition changes b from lp.B.
			if err := prep.SetParam(p, lp.B...); err != nil {
				return err
			}
			if _, err := prep.Solve(ctx); err != nil {
				return err
			}
		}
		prep.Close()
		c, w := median(cold), median(warm)
		slices.Sort(ratios)
		fmt.Printf("%-24s %9s %9s %6d %8.1f×  %.1f× / %.1f× / %.1f×\n", sc.name, c.Round(time.Millisecond), w.Round(time.Millisecond), iters/reps,
			float64(c)/float64(w), ratios[0], ratios[len(ratios)/2], ratios[len(ratios)-1])
	}
	return nil
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
