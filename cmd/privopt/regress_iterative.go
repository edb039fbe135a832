package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/privopt/privopt/learn"
	"github.com/privopt/privopt/ledger/pgstore"
	"github.com/privopt/privopt/noise"
)

// iterativeUsage documents the iterative strategies of privopt regress.
const iterativeUsage = `
Iterative strategies (--strategy dp-gd|dp-sgd|dp-cd; --model l1-logistic
defaults to dp-cd): noisy private optimization (learn.TrainIterative).
dp-gd: proximal gradient descent on per-example gradients clipped to ℓ2 norm
--clip; dp-sgd: the same on Poisson minibatches of rate --batch-rate
(accounted without amplification); dp-cd: proximal coordinate descent
(Mangold et al. 2022) with per-example partial derivatives clipped to
[−clip, clip] and --coordinates updates per iteration (default ⌈k/4⌉). Each
step adds Gaussian noise; the number of steps is composed by the
privacy-loss-distribution accountant and the noise multiplier chosen by
bisection so that the whole run is (ε, δ)-DP (δ > 0 required). Models:
l1-logistic (λ‖w‖₁ with --lambda, default 1e-3), logistic and ridge (ridge λ,
default 0.1), least-squares. For dp-cd --x-bound bounds every feature value
|x_ij| (default 1; with --ranges features lie in [−1, 1]).
`

// iterativeFlags are the extra flags of the iterative strategies.
type iterativeFlags struct {
	iterations, coordinates int
	clip, step, batchRate   float64
	average                 bool
}

func registerIterativeFlags(fs *flag.FlagSet) *iterativeFlags {
	f := &iterativeFlags{}
	fs.IntVar(&f.iterations, "iterations", 100, "iterations T of dp-gd, dp-sgd, dp-cd")
	fs.IntVar(&f.coordinates, "coordinates", 0, "dp-cd: coordinate updates per iteration (0: ⌈k/4⌉)")
	fs.Float64Var(&f.clip, "clip", 0, "dp-gd/dp-sgd/dp-cd: public per-example gradient clip C (0: the loss's Lipschitz bound)")
	fs.Float64Var(&f.step, "step", 0, "dp-gd/dp-sgd/dp-cd: public step size (0: 1/smoothness bound)")
	fs.Float64Var(&f.batchRate, "batch-rate", 0.1, "dp-sgd: Poisson sampling rate q")
	fs.BoolVar(&f.average, "average", false, "dp-gd/dp-sgd/dp-cd: release the averaged iterate")
	return f
}

// isIterative reports whether the strategy (or the model's default) is
// iterative.
func isIterative(strategy, model string) bool {
	switch learn.Strategy(strategy) {
	case learn.DPGD, learn.DPSGD, learn.DPCD:
		return true
	}
	return model == "l1-logistic"
}

// iterativeArgs are the parsed flags of privopt regress.
type iterativeArgs struct {
	data, target, model, strategy, noise, ranges string
	lambda, epsilon, delta, xBound, yBound       float64
	intercept, json, planOnly                    bool
	seed                                         uint64
	ledger                                       ledgerFlags
	set                                          map[string]bool
	it                                           *iterativeFlags
}

// runRegressIterative is privopt regress with an iterative strategy.
func runRegressIterative(ctx context.Context, a iterativeArgs, stdout io.Writer) error {
	strat := learn.Strategy(a.strategy)
	if a.strategy == "auto" {
		strat = learn.DPCD
	}
	switch strat {
	case learn.DPGD, learn.DPSGD, learn.DPCD:
	default:
		return usagef("--model l1-logistic needs --strategy dp-gd, dp-sgd or dp-cd, not %q", a.strategy)
	}
	spec := learn.IterativeSpec{Method: strat, Intercept: a.intercept, Iterations: a.it.iterations, Clip: a.it.clip,
		StepSize: a.it.step, Coordinates: a.it.coordinates, Average: a.it.average}
	lam := a.lambda
	switch a.model {
	case "l1-logistic":
		spec.Loss = learn.Logistic
		if math.IsNaN(lam) {
			lam = 1e-3
		}
		spec.L1 = lam
	case "logistic", "ridge":
		spec.Loss = learn.Logistic
		if a.model == "ridge" {
			spec.Loss = learn.Squared
		}
		if math.IsNaN(lam) {
			lam = 0.1
		}
		spec.Ridge = lam
	case "least-squares":
		spec.Loss = learn.Squared
	default:
		return usagef("--strategy %s supports --model l1-logistic, logistic, ridge or least-squares, not %q", strat, a.model)
	}
	if strat == learn.DPSGD {
		spec.BatchRate = a.it.batchRate
	}
	if err := checkFlags(intAtLeast("iterations", a.it.iterations, 1), intAtLeast("coordinates", a.it.coordinates, 0),
		floatIn("clip", a.it.clip, 0, math.Inf(1), closed), floatIn("step", a.it.step, 0, math.Inf(1), closed),
		floatIn("batch-rate", a.it.batchRate, 0, 1, openLo), floatIn("delta", a.delta, 0, 1, open)); err != nil {
		return err
	}
	priv := learn.Privacy{Epsilon: a.epsilon, Delta: a.delta, Mechanism: learn.NoiseKind(a.noise)}.WithDefault()
	if pgstore.IsURL(a.data) {
		return usagef("--strategy %s reads the rows from a CSV file; --data postgres://… needs --strategy ssp", strat)
	}
	// The public shape (column names, n), the ranges, then the plan: no
	// value of the data is read before the spend.
	f, err := os.Open(a.data)
	if err != nil {
		return err
	}
	names, n, err := learn.ReadCSVShape(f, a.target)
	f.Close()
	if err != nil {
		return usageError{err}
	}
	spec.Bounds = learn.Bounds{X: a.xBound, Y: a.yBound}
	var rs *rangeScaling
	if a.ranges != "" {
		rs, err = loadRanges(a.ranges, names, a.target, spec.Loss == learn.Logistic)
		if err != nil {
			return usageError{err}
		}
		if !a.set["x-bound"] && strat != learn.DPCD {
			spec.Bounds.X = math.Sqrt(float64(len(names)))
		}
	}
	plan, err := learn.NewPlan(ctx, learn.PlanSpec{N: n, Features: len(names), Strategy: strat, Privacy: priv, Iterative: &spec})
	if err != nil {
		if errors.Is(err, learn.ErrInvalid) {
			return usageError{err}
		}
		return err
	}
	out := regressOutput{Plan: regressPlan{Plan: plan, Model: a.model, Target: a.target, Columns: names, Dataset: a.ledger.dataset, Seeded: a.seed != 0}}
	p := *plan
	p.Notes = append(append([]string(nil), plan.Notes...), learn.CSVRule)
	if rs != nil {
		out.Plan.Ranges = rs.ranges
		p.Notes = append(p.Notes, "features (and the target, if ranged) are clamped to the public ranges and scaled to [−1, 1]; the estimate is converted back to the CSV's units (post-processing)")
	} else if !a.set["x-bound"] && !a.set["y-bound"] {
		p.Notes = append(p.Notes, fmt.Sprintf("warning: no --ranges, --x-bound or --y-bound: every row is clipped to the default bounds (X = %g, |y| ≤ %g); unless the CSV is already scaled by public ranges the weights describe the clipped data", spec.Bounds.X, spec.Bounds.Y))
	}
	if a.seed != 0 {
		p.Notes = append(p.Notes, "warning: seeded noise (--seed) is for tests and audits only; the release is not private")
	}
	out.Plan.Plan = &p
	if a.planOnly {
		out.Releases = []regressRelease{}
		return emitRegress(stdout, out, names, a.json)
	}
	led, err := a.ledger.open(ctx)
	if err != nil {
		return err
	}
	if led != nil {
		defer led.Close()
	}
	var src noise.Source
	if a.seed != 0 {
		src = noise.NewSeededSource(a.seed)
	}
	ro := learn.ReleaseOptions{Source: src, Ledger: led, Dataset: a.ledger.dataset, Query: "regress " + a.model + " on " + dataName(a.data)}
	read := func(ctx context.Context) (learn.Data, error) {
		d, _, err := readRegressCSV(a.data, a.target, spec.Loss == learn.Logistic, rs)
		return d, err
	}
	w, err := plan.ReleaseFrom(ctx, read, ro)
	if err != nil {
		return err
	}
	rel := regressRelease{Label: "data", ReleasedValue: weightMap(names, w), Estimate: weightMap(names, w)}
	if rs != nil {
		rel.Estimate = weightMap(names, rs.unscale(w, spec.Intercept)) // the CSV's units: post-processing
	}
	out.Releases = []regressRelease{rel}
	return emitRegress(stdout, out, names, a.json)
}
