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

	"gonum.org/v1/gonum/mat"

	"github.com/privopt/privopt/learn"
)

func init() {
	register(command{name: "regress", summary: "release differentially private regression weights from a CSV file", run: runRegress})
}

const regressUsage = `Usage: privopt regress --data FILE.csv --target COLUMN
       --model least-squares|ridge|nonnegative|monotone|huber|logistic
       [--lambda L] --epsilon E [--delta D]
       [--strategy program|projection|objective|adassp|ssp|auto]
       [--noise laplace|gaussian|analytic-gaussian|optimal] [--x-bound B] [--y-bound B]
       [--ranges FILE.json] [--no-intercept] [--huber-delta H] [--json] [--diagnostics]

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

--ranges FILE.json declares public ranges {"column": [lo, hi], ...} for every
feature column (and optionally the target; not for logistic): each feature is
clamped to its range and mapped to [−1, 1] by (x − (lo + hi)/2)/((hi − lo)/2),
the target likewise, and the published weights are converted back to the
CSV's units (w_j·h_y/h_j and the implied intercept; post-processing). With
--ranges, --x-bound defaults to √d (no row is clipped; a smaller bound clips
rows with many extreme values but lowers the noise, e.g. 0.5·√d) and
--y-bound to 1 in the scaled units; --huber-delta stays in target units. Constraints apply to
the scaled weights: nonnegativity carries over to the CSV's units, ordering
only between columns of equal range width.

Output: the weights by column name, the intercept, and the guarantee
(sensitivity, its norm and source: certified, sampled or declared, and the
certificate). Only published values are printed; --diagnostics adds the
non-private fit and the number of clipped rows, which are private: the output
is then not a release. --json prints one object with fields model, strategy,
n, weights, intercept (if fitted or implied by --ranges), guarantee, bounds,
scaled (with --ranges: the ranges and the release in their units), private
(true only with --diagnostics) and diagnostics. Exit status 0 on success, 1 on a failed run, 2
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
	Scaled      *scaledOutput      `json:"scaled,omitempty"`
	Diagnostics *regressDiag       `json:"diagnostics,omitempty"`
}

// scaledOutput is the release in the units of --ranges (features and target
// scaled to [−1, 1]), from which the published weights are converted.
type scaledOutput struct {
	Note      string                `json:"note"`
	Ranges    map[string][2]float64 `json:"ranges"`
	Weights   map[string]float64    `json:"weights"`
	Intercept *float64              `json:"intercept,omitempty"`
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
	rangesPath := fs.String("ranges", "", "JSON file of public ranges {\"column\": [lo, hi], ...}: features (and the target) are scaled to [−1, 1] by them")
	xb := fs.Float64("x-bound", 1, "public bound on each row's feature ℓ2 norm (rows are clipped; with --ranges the default is √d)")
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
	// SSP needs only the clipped moments: stream the CSV in one pass, or
	// aggregate inside PostgreSQL (regress_stream.go); nil otherwise.
	moments, names, rs, err := regressMoments(ctx, fs, *dataPath, *target, *rangesPath, strat, *diag, &spec)
	if err != nil {
		return err
	}
	var data learn.Data
	if moments == nil {
		f, err := os.Open(*dataPath)
		if err != nil {
			return err
		}
		data, names, err = learn.ReadCSV(f, *target)
		f.Close()
		if err != nil {
			return err
		}
	}
	if *rangesPath != "" && moments == nil {
		set := map[string]bool{}
		fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
		rs, err = loadRanges(*rangesPath, names, *target, spec.Loss == learn.Logistic)
		if err != nil {
			return usageError{err}
		}
		data = rs.apply(data)
		if !set["x-bound"] {
			spec.Bounds.X = math.Sqrt(float64(len(names)))
		}
		if rs.hy != 1 && spec.Loss == learn.Huber {
			spec.HuberDelta /= rs.hy
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
	rel, err := prepareRegress(ctx, data, moments, spec, strat, priv, opt)
	if err != nil {
		if errors.Is(err, learn.ErrInvalid) {
			return usageError{err}
		}
		return err
	}
	g := rel.Guarantee()
	if led != nil { // check and record the spend before any noise is drawn
		e := g.LedgerEntry("regress "+*modelName+" on "+dataName(*dataPath), len(names))
		e.Case = dataName(*dataPath)
		if err := led.Spend(ctx, lf.dataset, e); err != nil {
			return err
		}
	}
	w, err := rel.Draw(ctx, nil)
	if err != nil {
		return err
	}
	out := regressOutput{Model: *modelName, Strategy: string(strat), N: nRows(data, moments), Weights: map[string]float64{}, Order: names,
		Guarantee: g, Bounds: map[string]float64{"x": spec.Bounds.X, "y": spec.Bounds.Y}}
	if rs != nil {
		out.Scaled = &scaledOutput{Note: "weights and intercept are in the CSV's units (post-processing of the scaled release below)",
			Ranges: rs.ranges, Weights: map[string]float64{}}
		for j, nm := range names {
			out.Scaled.Weights[nm] = w[j]
		}
		if spec.Intercept {
			out.Scaled.Intercept = &w[len(names)]
		}
		w = rs.unscale(w, spec.Intercept)
	}
	for j, nm := range names {
		out.Weights[nm] = w[j]
	}
	if spec.Intercept || rs != nil {
		out.Intercept = &w[len(names)]
	}
	if *diag {
		out.Private = true
		wnp, err := learn.Fit(ctx, data, spec)
		if err != nil {
			return err
		}
		_, rep := spec.Bounds.Clip(data)
		if rs != nil {
			wnp = rs.unscale(wnp, spec.Intercept)
		}
		d := &regressDiag{Note: "PRIVATE: the non-private fit and clipping counts reveal the data; do not publish this output",
			NonPrivate: map[string]float64{}, ClippedRows: rep.Rows, ClippedTargets: rep.Targets}
		for j, nm := range names {
			d.NonPrivate[nm] = wnp[j]
		}
		if spec.Intercept || rs != nil {
			d.NonPrivateB = &wnp[len(names)]
		}
		out.Diagnostics = d
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	fmt.Fprintf(stdout, "private %s weights (%s, n = %d)\n", *modelName, strat, nRows(data, moments))
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

// rangeScaling is the public preprocessing of --ranges: x_j ← (clamp(x_j) −
// c_j)/h_j per feature and y ← (clamp(y) − c_y)/h_y (c_y = 0, h_y = 1 when
// the target has no range).
type rangeScaling struct {
	ranges map[string][2]float64
	c, h   []float64
	cy, hy float64
	lo, hi []float64
	ylo    float64
	yhi    float64
}

// loadRanges reads the JSON ranges file; every feature column needs a range
// with lo < hi, both finite.
func loadRanges(path string, names []string, target string, logistic bool) (*rangeScaling, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--ranges: %w", err)
	}
	var m map[string][2]float64
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("--ranges %s: %v (want {\"column\": [lo, hi], ...})", path, err)
	}
	known := map[string]bool{target: true}
	for _, nm := range names {
		known[nm] = true
	}
	for nm, r := range m {
		if !known[nm] {
			return nil, fmt.Errorf("--ranges %s: column %q is not in the CSV", path, nm)
		}
		if !(r[0] < r[1]) || math.IsInf(r[0], 0) || math.IsInf(r[1], 0) {
			return nil, fmt.Errorf("--ranges %s: column %q has range [%v, %v], need finite lo < hi", path, nm, r[0], r[1])
		}
	}
	rs := &rangeScaling{ranges: m, cy: 0, hy: 1, ylo: math.Inf(-1), yhi: math.Inf(1)}
	for _, nm := range names {
		r, ok := m[nm]
		if !ok {
			return nil, fmt.Errorf("--ranges %s: feature column %q has no range (every feature needs one)", path, nm)
		}
		rs.lo, rs.hi = append(rs.lo, r[0]), append(rs.hi, r[1])
		rs.c, rs.h = append(rs.c, (r[0]+r[1])/2), append(rs.h, (r[1]-r[0])/2)
	}
	if r, ok := m[target]; ok {
		if logistic {
			return nil, fmt.Errorf("--ranges %s: the logistic target %q takes no range (labels ±1)", path, target)
		}
		rs.ylo, rs.yhi, rs.cy, rs.hy = r[0], r[1], (r[0]+r[1])/2, (r[1]-r[0])/2
	}
	return rs, nil
}

// apply returns the clamped, scaled copy of d.
func (rs *rangeScaling) apply(d learn.Data) learn.Data {
	n, k := d.X.Dims()
	x := mat.NewDense(n, k, nil)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		for j := 0; j < k; j++ {
			v := math.Max(rs.lo[j], math.Min(rs.hi[j], d.X.At(i, j)))
			x.Set(i, j, (v-rs.c[j])/rs.h[j])
		}
		y[i] = (math.Max(rs.ylo, math.Min(rs.yhi, d.Y[i])) - rs.cy) / rs.hy
	}
	return learn.Data{X: x, Y: y}
}

// unscale converts weights of the scaled model (with intercept b when
// intercept) to the CSV's units: w_j·h_y/h_j and the intercept c_y +
// h_y·(b − Σ_j w_j c_j/h_j). The result always has the intercept last.
func (rs *rangeScaling) unscale(w []float64, intercept bool) []float64 {
	k := len(rs.c)
	out := make([]float64, k+1)
	b := 0.0
	if intercept {
		b = w[k]
	}
	for j := 0; j < k; j++ {
		out[j] = w[j] * rs.hy / rs.h[j]
		b -= w[j] * rs.c[j] / rs.h[j]
	}
	out[k] = rs.cy + rs.hy*b
	return out
}
