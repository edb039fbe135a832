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

func init() {
	register(command{name: "regress", summary: "release differentially private regression weights from a CSV file", run: runRegress})
}

const regressUsage = `Usage: privopt regress --data FILE.csv --target COLUMN
       --model least-squares|ridge|nonnegative|monotone|huber|logistic
       [--lambda L] --epsilon E [--delta D]
       [--strategy program|projection|objective|adassp|ssp|auto]
       [--noise laplace|gaussian|analytic-gaussian|optimal] [--x-bound B] [--y-bound B]
       [--no-intercept] [--huber-delta H] [--json] [--diagnostics]

Fits the model on the CSV file (header row; every column but the target is a
feature) and prints one differentially private release of the weights, drawn
from crypto/rand, with its guarantee. The public bounds define the privacy
domain: each row's feature vector is scaled to ℓ2 norm ≤ --x-bound and the
target clamped to [−y-bound, y-bound] before fitting (defaults 1 and 1: scale
the file by published ranges first). They are never computed from the data.
The intercept (on by default) is a constant-1 feature, regularized like the
others. Models: least-squares (λ = 0: no certificate, the sensitivity is
sampled on 99 adjacent datasets and the guarantee is probabilistic), ridge,
nonnegative (w ≥ 0), monotone (w₁ ≤ w₂ ≤ … in column order), huber, logistic
(targets ±1; 0 is read as −1). --lambda defaults to 0.1 except for
least-squares (0). Strategies: projection (output perturbation + projection
onto the constraints; certified 2L/(nλ) sensitivity), objective (objective
perturbation; squared and logistic loss), program (program perturbation:
released weights satisfy the constraints with probability ≥ 95%; its
sensitivity is sampled on the released weights when there are constraints),
adassp (Wang 2018: λ_min, X̃ᵀX̃ and X̃ᵀy released at ε/3 each; squared-loss
models), ssp (one joint release of X̃ᵀX̃ and X̃ᵀy with a certified, tight
sensitivity, then a ridge fit with ridge σ√k chosen from the noise scale, not
--lambda; squared-loss models, certified even for least-squares), auto (ssp
for least-squares, ridge, nonnegative and monotone; projection for huber and
logistic). adassp and ssp project their fit onto the constraints.
--noise defaults to laplace when δ = 0, else analytic-gaussian.

Output: the weights by column name, the intercept, and the guarantee
(sensitivity, its norm and source: certified, sampled or declared, and the
certificate). Only published values are printed; --diagnostics adds the
non-private fit and the number of clipped rows, which are private: the output
is then not a release. --json prints one object with fields model, strategy,
n, weights, intercept (if fitted), guarantee, bounds, private (true only with
--diagnostics) and diagnostics. Exit status 0 on success, 1 on a failed run, 2
on bad usage.

Flags:
`

type regressOutput struct {
	Model       string             `json:"model"`
	Strategy    string             `json:"strategy"`
	N           int                `json:"n"`
	Weights     map[string]float64 `json:"weights"`
	Order       []string           `json:"columns"`
	Intercept   *float64           `json:"intercept,omitempty"`
	Guarantee   learn.Guarantee    `json:"guarantee"`
	Bounds      map[string]float64 `json:"bounds"`
	Private     bool               `json:"private"`
	Diagnostics *regressDiag       `json:"diagnostics,omitempty"`
}

type regressDiag struct {
	Note           string             `json:"note"`
	NonPrivate     map[string]float64 `json:"non_private_weights"`
	NonPrivateB    *float64           `json:"non_private_intercept,omitempty"`
	ClippedRows    int                `json:"clipped_rows"`
	ClippedTargets int                `json:"clipped_targets"`
}

func runRegress(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("regress", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), regressUsage)
		fs.PrintDefaults()
	}
	dataPath := fs.String("data", "", "CSV file with a header row (required)")
	target := fs.String("target", "", "target column (required)")
	modelName := fs.String("model", "", "least-squares, ridge, nonnegative, monotone, huber or logistic (required)")
	lambda := fs.Float64("lambda", math.NaN(), "ridge λ ≥ 0 (default 0.1; 0 for least-squares)")
	eps := fs.Float64("epsilon", math.NaN(), "privacy parameter ε > 0 (required)")
	delta := fs.Float64("delta", 0, "privacy parameter δ ∈ [0, 1)")
	strategy := fs.String("strategy", "auto", "program, projection, objective, adassp, ssp or auto")
	noiseName := fs.String("noise", "", "laplace, gaussian, analytic-gaussian or optimal")
	xb := fs.Float64("x-bound", 1, "public bound on each row's feature ℓ2 norm (rows are clipped)")
	yb := fs.Float64("y-bound", 1, "public bound on |target| (targets are clamped)")
	noIcpt := fs.Bool("no-intercept", false, "fit without an intercept")
	huber := fs.Float64("huber-delta", 1, "Huber threshold (target units)")
	asJSON := fs.Bool("json", false, "print JSON")
	diag := fs.Bool("diagnostics", false, "also print the non-private fit (the output is then private)")
	var lf ledgerFlags
	lf.register(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return usagef("%v", err)
	}
	if fs.NArg() > 0 {
		return usagef("unexpected arguments %q", fs.Args())
	}
	switch {
	case *dataPath == "":
		return usagef("--data is required")
	case *target == "":
		return usagef("--target is required")
	case math.IsNaN(*eps):
		return usagef("--epsilon is required")
	}
	spec := learn.Spec{Loss: learn.Squared, Intercept: !*noIcpt, Bounds: learn.Bounds{X: *xb, Y: *yb}, Lambda: 0.1}
	switch *modelName {
	case "least-squares":
		spec.Lambda = 0
	case "ridge":
	case "nonnegative":
		spec.Nonnegative = true
	case "monotone":
		spec.Ordered = true
	case "huber":
		spec.Loss, spec.HuberDelta = learn.Huber, *huber
	case "logistic":
		spec.Loss = learn.Logistic
	default:
		return usagef("--model is %q, must be least-squares, ridge, nonnegative, monotone, huber or logistic", *modelName)
	}
	if !math.IsNaN(*lambda) {
		spec.Lambda = *lambda
	}
	strat := learn.Strategy(*strategy)
	if *strategy == "auto" {
		strat = learn.Projection
		if spec.Loss == learn.Squared {
			strat = learn.SSP
		}
	}
	switch strat {
	case learn.Projection, learn.Objective, learn.Program:
	case learn.AdaSSP, learn.SSP:
		if spec.Loss != learn.Squared {
			return usagef("--strategy %s is for the squared-loss models (least-squares, ridge, nonnegative, monotone), not --model %s", strat, *modelName)
		}
	default:
		return usagef("--strategy is %q, must be program, projection, objective, adassp, ssp or auto", *strategy)
	}
	priv := learn.Privacy{Epsilon: *eps, Delta: *delta, Noise: learn.NoiseKind(*noiseName)}
	if err := priv.Validate(); err != nil {
		return usageError{err}
	}
	f, err := os.Open(*dataPath)
	if err != nil {
		return err
	}
	data, names, err := learn.ReadCSV(f, *target)
	f.Close()
	if err != nil {
		return err
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
	if err := spec.Validate(len(names)); err != nil {
		return usageError{err}
	}
	var opt learn.Options
	if spec.Lambda == 0 && (strat == learn.Projection || strat == learn.Program) {
		smp, err := learn.SampledSensitivity(ctx, data, spec, 0.1, 0.1, 1)
		if err != nil {
			return err
		}
		opt.Sampled = smp
	}
	led, err := lf.open(ctx)
	if err != nil {
		return err
	}
	if led != nil {
		defer led.Close()
	}
	rel, err := learn.Prepare(ctx, data, spec, strat, priv, opt)
	if err != nil {
		if errors.Is(err, learn.ErrInvalid) {
			return usageError{err}
		}
		return err
	}
	g := rel.Guarantee()
	if led != nil { // check and record the spend before any noise is drawn
		e := ledger.Entry{Query: "regress " + *modelName + " on " + filepath.Base(*dataPath), Mechanism: string(g.Noise),
			Params:      map[string]float64{"sensitivity": g.Sensitivity, "noise_std": g.NoiseStd, "weights": float64(len(names))},
			Cost:        accounting.Cost{Epsilon: g.Epsilon, Delta: g.Delta, Gamma: g.Gamma},
			Sensitivity: fmt.Sprintf("%.6g %s", g.Sensitivity, g.Source), Guarantee: g.Statement}
		if err := led.Spend(ctx, lf.dataset, e); err != nil {
			return err
		}
	}
	w, err := rel.Draw(ctx, nil)
	if err != nil {
		return err
	}
	out := regressOutput{Model: *modelName, Strategy: string(strat), N: data.N(), Weights: map[string]float64{}, Order: names,
		Guarantee: g, Bounds: map[string]float64{"x": *xb, "y": *yb}}
	for j, nm := range names {
		out.Weights[nm] = w[j]
	}
	if spec.Intercept {
		out.Intercept = &w[len(names)]
	}
	if *diag {
		out.Private = true
		wnp, err := learn.Fit(ctx, data, spec)
		if err != nil {
			return err
		}
		_, rep := spec.Bounds.Clip(data)
		d := &regressDiag{Note: "PRIVATE: the non-private fit and clipping counts reveal the data; do not publish this output",
			NonPrivate: map[string]float64{}, ClippedRows: rep.Rows, ClippedTargets: rep.Targets}
		for j, nm := range names {
			d.NonPrivate[nm] = wnp[j]
		}
		if spec.Intercept {
			d.NonPrivateB = &wnp[len(names)]
		}
		out.Diagnostics = d
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	fmt.Fprintf(stdout, "private %s weights (%s, n = %d)\n", *modelName, strat, data.N())
	for _, nm := range names {
		fmt.Fprintf(stdout, "  %-16s %12.6g\n", nm, out.Weights[nm])
	}
	if out.Intercept != nil {
		fmt.Fprintf(stdout, "  %-16s %12.6g\n", "(intercept)", *out.Intercept)
	}
	fmt.Fprintf(stdout, "guarantee: %s\n", g.Statement)
	if out.Diagnostics != nil {
		fmt.Fprintf(stdout, "%s\n  non-private: %v\n  clipped rows %d, clipped targets %d\n", out.Diagnostics.Note, out.Diagnostics.NonPrivate, out.Diagnostics.ClippedRows, out.Diagnostics.ClippedTargets)
	}
	return nil
}
