package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/privopt/privopt/accounting"
	"github.com/privopt/privopt/learn"
	"github.com/privopt/privopt/ledger"
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
	intercept, json                              bool
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
	noiseName := learn.NoiseKind(a.noise)
	if noiseName == "" {
		noiseName = learn.AnalyticGaussian
	}
	priv := learn.IterativePrivacy{Epsilon: a.epsilon, Delta: a.delta, Noise: noiseName}
	f, err := os.Open(a.data)
	if err != nil {
		return err
	}
	data, names, err := learn.ReadCSV(f, a.target)
	f.Close()
	if err != nil {
		return err
	}
	spec.Bounds = learn.Bounds{X: a.xBound, Y: a.yBound}
	var rs *rangeScaling
	if a.ranges != "" {
		rs, err = loadRanges(a.ranges, names, a.target, spec.Loss == learn.Logistic)
		if err != nil {
			return usageError{err}
		}
		data = rs.apply(data)
		if !a.set["x-bound"] && strat != learn.DPCD {
			spec.Bounds.X = math.Sqrt(float64(len(names)))
		}
	}
	if spec.Loss == learn.Logistic {
		for i, y := range data.Y {
			switch y {
			case 1:
			case 0, -1:
				data.Y[i] = -1
			default:
				return fmt.Errorf("logistic target in CSV line %d is %v, must be -1, 0 or 1", i+2, y)
			}
		}
	}
	led, err := a.ledger.open(ctx)
	if err != nil {
		return err
	}
	if led != nil {
		defer led.Close()
	}
	rel, err := learn.PrepareIterative(ctx, data, spec, priv)
	if err != nil {
		if errors.Is(err, learn.ErrInvalid) {
			return usageError{err}
		}
		return err
	}
	g := rel.Guarantee()
	if led != nil { // check and record the spend before any noise is drawn
		e := ledger.Entry{Query: "regress " + a.model + " on " + filepath.Base(a.data), Mechanism: string(g.Noise),
			Params:      map[string]float64{"sensitivity": g.Sensitivity, "noise_std": g.NoiseStd, "weights": float64(len(names)), "steps": g.Certificate.Params["steps"]},
			Cost:        accounting.Cost{Epsilon: g.Epsilon, Delta: g.Delta},
			Sensitivity: fmt.Sprintf("%.6g %s", g.Sensitivity, g.Source), Guarantee: g.Statement}
		if err := led.Spend(ctx, a.ledger.dataset, e); err != nil {
			return err
		}
	}
	w, err := rel.Draw(ctx, nil)
	if err != nil {
		return err
	}
	out := iterOutput{Plan: iterPlan{Model: a.model, Strategy: string(strat), N: data.N(), Columns: names, Guarantee: g,
		Bounds: map[string]float64{"x": spec.Bounds.X, "y": spec.Bounds.Y}, Dataset: a.ledger.dataset}}
	rel1 := regressRelease{Label: "data", ReleasedValue: map[string]float64{}, Estimate: map[string]float64{}}
	put := func(m map[string]float64, w []float64) {
		for j, nm := range names {
			m[nm] = w[j]
		}
		if spec.Intercept || rs != nil {
			m["(intercept)"] = w[len(names)]
		}
	}
	put(rel1.ReleasedValue, w)
	if rs != nil {
		put(rel1.Estimate, rs.unscale(w, spec.Intercept)) // the CSV's units: post-processing
	} else {
		put(rel1.Estimate, w)
	}
	out.Releases = []regressRelease{rel1}
	if a.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	out.printText(stdout)
	return nil
}

// iterOutput is the JSON of an iterative release: the public plan (model,
// strategy, n, columns, bounds, guarantee with its certificate) and the
// release, as for the other strategies ({"plan", "releases"}).
type iterOutput struct {
	Plan     iterPlan         `json:"plan"`
	Releases []regressRelease `json:"releases"`
}

type iterPlan struct {
	Model     string             `json:"model"`
	Strategy  string             `json:"strategy"`
	N         int                `json:"n"`
	Columns   []string           `json:"columns"`
	Bounds    map[string]float64 `json:"bounds"`
	Guarantee learn.Guarantee    `json:"guarantee"`
	Dataset   string             `json:"dataset,omitempty"`
}

// printText prints the plan and the release as text.
func (out *iterOutput) printText(stdout io.Writer) {
	p := out.Plan
	fmt.Fprintf(stdout, "private %s weights (%s, n = %d)\n", p.Model, p.Strategy, p.N)
	fmt.Fprintf(stdout, "guarantee: %s\n", p.Guarantee.Statement)
	for _, r := range out.Releases {
		fmt.Fprintf(stdout, "release %s:\n", r.Label)
		names := append([]string(nil), p.Columns...)
		if _, ok := r.ReleasedValue["(intercept)"]; ok {
			names = append(names, "(intercept)")
		}
		for _, nm := range names {
			fmt.Fprintf(stdout, "  %-16s %12.6g (estimate %.6g)\n", nm, r.ReleasedValue[nm], r.Estimate[nm])
		}
	}
}
