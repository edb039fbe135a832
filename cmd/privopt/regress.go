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
	"github.com/privopt/privopt/ledger/pgstore"
	"github.com/privopt/privopt/noise"
	"github.com/privopt/privopt/query"
)

func init() {
	register(command{name: "regress", summary: "release differentially private regression weights from a CSV file", run: runRegress})
}

const regressUsage = `Usage: privopt regress --data FILE.csv --target COLUMN
       --model least-squares|ridge|nonnegative|monotone|huber|logistic
       [--lambda L] --epsilon E [--delta D]
       [--strategy program|projection|objective|adassp|ssp|auto]
       [--noise laplace|gaussian|analytic-gaussian|optimal] [--x-bound B] [--y-bound B]
       [--ranges FILE.json] [--no-intercept] [--huber-delta H] [--accuracy TAU]
       [--seed N] [--json] [--plan-only] [--diagnostics] [--ledger FILE --dataset NAME]

Plans and prints one differentially private release of the model's weights
from the CSV file (header row; every column but the target is a feature).

Public plan, private release. The plan — certificate, sensitivity, calibrated
noise, output grid, solver accuracy, constraint margins, notes — is computed
from public inputs only: the flags, the public bounds, the column names and
n, the number of rows (public: neighbouring datasets replace one row within
the bounds and keep n). Then the release spends the budget (--ledger) and
only after that reads the rows: it clips them into the bounds, fits and adds
the noise. Everything printed except the released weights is the plan, so
it is identical for every dataset of the same shape; a release never
refuses after the spend (solver trouble is repaired until the public
accuracy target holds) and no message holds a data value.

The public bounds define the privacy domain: each row's feature vector is
scaled to ℓ2 norm ≤ --x-bound and the target clamped to [−y-bound, y-bound]
(defaults 1 and 1: scale the file by published ranges first; without
--ranges, --x-bound and --y-bound the plan warns that the defaults bound the
data). The intercept (on by default) is a constant-1 feature, regularized
like the others. Models: least-squares (λ = 0), ridge, nonnegative (w ≥ 0),
monotone (w₁ ≤ w₂ ≤ … in column order), huber, logistic (target 1 is +1,
every other value −1: a fixed public map, never a refusal). --lambda
defaults to 0.1 except for least-squares (0).

Strategies (every one certified; none samples a sensitivity):
  projection  output perturbation of the minimizer, then the projection onto
              the constraints; sensitivity 2L/(nλ) + 2τ (needs λ > 0)
  program     program perturbation: the minimizer over the constraints
              tightened by public margins, plus noise, so that the released
              weights satisfy the constraints jointly with probability ≥ 95%;
              the tightened set is data-independent, so the same certificate
              holds on it (needs λ > 0)
  objective   objective perturbation (squared and logistic loss)
  adassp      Wang 2018: λ_min, X̃ᵀX̃ and X̃ᵀy at ε/3 each (squared loss)
  ssp         one joint release of X̃ᵀX̃ and X̃ᵀy, certified for every λ, then
              a ridge fit with ridge σ√k chosen from the noise (squared loss)
  auto        ssp for least-squares, ridge, nonnegative and monotone;
              projection for huber and logistic
projection and program with λ = 0 are refused before anything is read (no
certified sensitivity): use ssp or adassp. τ (--accuracy, default 10⁻⁶ of
the exact-minimizer bound) is the public solver-accuracy target.
--noise defaults to laplace when δ = 0, else analytic-gaussian.

--ranges FILE.json declares public ranges {"column": [lo, hi], ...} for every
feature column (and optionally the target; not for logistic): each feature is
clamped to its range and mapped to [−1, 1] by (x − (lo + hi)/2)/((hi − lo)/2),
the target likewise, and the estimate is converted back to the CSV's units
(w_j·h_y/h_j and the implied intercept; post-processing). With --ranges,
--x-bound defaults to √d (no row is clipped; a smaller bound clips rows with
many extreme values but lowers the noise, e.g. 0.5·√d) and --y-bound to 1 in
the scaled units; --huber-delta stays in target units. Constraints apply to
the scaled weights: nonnegativity carries over to the CSV's units, ordering
only between columns of equal range width.

Malformed rows (a public rule): the header and the number of records are
read before the spend; after it, a record that does not parse (wrong field
count, a cell that is not a finite number) is replaced by the row of zeros
(then scaled and clipped like any row) and counted only under
--diagnostics. No row refuses a release and no message quotes a cell.

--plan-only prints the plan alone: it reads the CSV's header and counts its
rows (a PostgreSQL table: its columns and count(*)), and parses no value
(publish it first; the release's plan is identical). With --data
postgres://… the moments are aggregated in the database after the spend.

--seed N (N > 0) draws the noise from a deterministic generator: INSECURE,
for tests and audits only (the output says so); without it crypto/rand.

Output: the plan, then the release (label "data"): the released weights (in
the scaled units with --ranges) and the estimate in the CSV's units. --json
prints {"plan": {…public…}, "releases": [{"label", "released_value",
"estimate"}]} with the weights keyed by column name and "(intercept)".
--diagnostics adds the non-private fit and the clipping counts under
"private_diagnostics": they reveal the data and the output is then not a
release. Exit status 0 on success, 1 on a failed run, 2 on bad usage.

Flags:
`

// interceptKey names the intercept in released values and estimates.
const interceptKey = "(intercept)"

// regressOutput is what `privopt regress --json` prints: the public plan and
// the releases.
type regressOutput struct {
	Plan     regressPlan      `json:"plan"`
	Releases []regressRelease `json:"releases"`
}

// regressPlan is the learn plan with the command's public inputs.
type regressPlan struct {
	*learn.Plan
	Model   string                `json:"model"`
	Target  string                `json:"target"`
	Columns []string              `json:"columns"`
	Ranges  map[string][2]float64 `json:"ranges,omitempty"`
	Dataset string                `json:"dataset,omitempty"`
	Seeded  bool                  `json:"seeded"`
}

// regressRelease is one release: the released weights (the noisy statistic
// after the strategy's post-processing, in the model's units) and the
// estimate (in the CSV's units; equal to the released value without
// --ranges).
type regressRelease struct {
	Label         string             `json:"label"`
	ReleasedValue map[string]float64 `json:"released_value"`
	Estimate      map[string]float64 `json:"estimate"`
	Diagnostics   *regressDiag       `json:"private_diagnostics,omitempty"`
}

type regressDiag struct {
	Note           string             `json:"note"`
	NonPrivate     map[string]float64 `json:"non_private_weights"`
	ClippedRows    int                `json:"clipped_rows"`
	ClippedTargets int                `json:"clipped_targets"`
	// ReplacedRows counts the CSV records replaced by the public zero row
	// (learn.CSVRule).
	ReplacedRows int `json:"replaced_rows"`
}

// readRegressCSV reads the private rows after the spend (learn.CSVRule:
// malformed records become the public zero row, counted in replaced), maps
// logistic targets to ±1 and applies the public ranges.
func readRegressCSV(path, target string, logistic bool, rs *rangeScaling) (learn.Data, int, error) {
	f, err := os.Open(path)
	if err != nil {
		return learn.Data{}, 0, err
	}
	defer f.Close()
	data, _, replaced, err := learn.ReadCSVReplaced(f, target)
	if err != nil {
		return learn.Data{}, 0, err
	}
	if logistic {
		labels(data.Y)
	}
	if rs != nil {
		data = rs.apply(data)
	}
	return data, replaced, nil
}

// weightMap keys w by column name, the intercept (if w has one more entry)
// by interceptKey.
func weightMap(names []string, w []float64) map[string]float64 {
	m := map[string]float64{}
	for j, nm := range names {
		m[nm] = w[j]
	}
	if len(w) > len(names) {
		m[interceptKey] = w[len(names)]
	}
	return m
}

func runRegress(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("regress", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), regressUsage)
		fs.PrintDefaults()
		fmt.Fprint(fs.Output(), iterativeUsage)
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
	accuracy := fs.Float64("accuracy", 0, "public solver-accuracy target τ (0: 10⁻⁶ of the exact-minimizer sensitivity)")
	seed := fs.Uint64("seed", 0, "INSECURE: deterministic noise for tests and audits (0: cryptographic randomness); a seeded release is not private")
	asJSON := fs.Bool("json", false, "print JSON")
	diag := fs.Bool("diagnostics", false, "also print the non-private fit (the output is then private)")
	planOnly := fs.Bool("plan-only", false, "print the public plan (certificate, noise, grid, margins, notes) and read no value of the data (only its header and row count)")
	var lf ledgerFlags
	lf.register(fs)
	iter := registerIterativeFlags(fs)
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
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	if isIterative(*strategy, *modelName) { // dp-gd, dp-sgd, dp-cd, l1-logistic: regress_iterative.go
		return runRegressIterative(ctx, iterativeArgs{data: *dataPath, target: *target, model: *modelName, strategy: *strategy,
			noise: *noiseName, ranges: *rangesPath, lambda: *lambda, epsilon: *eps, delta: *delta, xBound: *xb, yBound: *yb,
			intercept: !*noIcpt, json: *asJSON, planOnly: *planOnly, seed: *seed, ledger: lf, set: set, it: iter}, stdout)
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
	priv, err := query.ParseSpec(*noiseName, *eps, *delta)
	if err != nil {
		return usageError{err}
	}
	// The public shape first — column names and n — with no value read: the
	// CSV's header and record count, or a PostgreSQL table's columns and
	// count(*) (SSP only: its moments are aggregated in the database). The
	// plan, then the spend, then the rows (or the moments).
	pg := pgstore.IsURL(*dataPath)
	if pg && (strat != learn.SSP || *diag) {
		return usagef("--data postgres://… computes the moments inside the database: it needs --strategy ssp (or auto with a squared-loss model) and no --diagnostics")
	}
	var names []string
	var nrows int
	var rs *rangeScaling
	if pg {
		var err error
		if names, nrows, err = pgShape(ctx, *dataPath, *target); err != nil {
			return err
		}
	} else {
		f, err := os.Open(*dataPath)
		if err != nil {
			return err
		}
		names, nrows, err = learn.ReadCSVShape(f, *target)
		f.Close()
		if err != nil {
			return usageError{err}
		}
	}
	if *rangesPath != "" {
		var err error
		rs, err = loadRanges(*rangesPath, names, *target, spec.Loss == learn.Logistic)
		if err != nil {
			return usageError{err}
		}
		if !set["x-bound"] {
			spec.Bounds.X = math.Sqrt(float64(len(names)))
		}
		if rs.hy != 1 && spec.Loss == learn.Huber {
			spec.HuberDelta /= rs.hy
		}
	}
	if err := spec.Validate(len(names)); err != nil {
		return usageError{err}
	}
	if *planOnly && (*diag || lf.file != "") {
		return usagef("--plan-only reads no value of the data: it takes no --diagnostics or --ledger")
	}
	// The plan: public inputs only (the flags, the bounds, the column names
	// and n); it never sees the rows.
	plan, err := learn.NewPlan(ctx, learn.PlanSpec{Spec: spec, N: nrows, Features: len(names), Strategy: strat, Privacy: priv, Accuracy: *accuracy})
	if err != nil {
		if errors.Is(err, learn.ErrInvalid) {
			return usageError{err}
		}
		return err
	}
	out := regressOutput{Plan: regressPlan{Plan: plan, Model: *modelName, Target: *target, Columns: names, Dataset: lf.dataset, Seeded: *seed != 0}}
	notes := append([]string(nil), plan.Notes...)
	if !pgstore.IsURL(*dataPath) {
		notes = append(notes, learn.CSVRule)
	}
	if rs != nil {
		out.Plan.Ranges = rs.ranges
		notes = append(notes, "features (and the target, if ranged) are clamped to the public ranges and scaled to [−1, 1]; the estimate is converted back to the CSV's units (post-processing)")
	} else if !set["x-bound"] && !set["y-bound"] {
		notes = append(notes, fmt.Sprintf("warning: no --ranges, --x-bound or --y-bound: every row is clipped to the default bounds ‖x‖₂ ≤ %g, |y| ≤ %g; unless the CSV is already scaled by public ranges the weights describe the clipped data", spec.Bounds.X, spec.Bounds.Y))
	}
	if *seed != 0 {
		notes = append(notes, "warning: seeded noise (--seed) is for tests and audits only; the release is not private")
	}
	p := *plan
	p.Notes = notes
	out.Plan.Plan = &p
	if *planOnly {
		out.Releases = []regressRelease{}
		return emitRegress(stdout, out, names, *asJSON)
	}
	led, err := lf.open(ctx)
	if err != nil {
		return err
	}
	if led != nil {
		defer led.Close()
	}
	var src noise.Source
	if *seed != 0 {
		src = noise.NewSeededSource(*seed)
	}
	ro := learn.ReleaseOptions{Source: src, Ledger: led, Dataset: lf.dataset, Query: "regress " + *modelName + " on " + dataName(*dataPath)}
	var w []float64
	var model learn.Data
	replaced := 0
	switch {
	case strat == learn.SSP && !*diag:
		// Spend, then stream the moments in one pass (learn.CSVRule: a
		// malformed record is the public zero row, never a refusal) or
		// aggregate them inside PostgreSQL.
		read := func(ctx context.Context) (learn.Moments, error) {
			sp := spec
			m, _, _, err := regressMoments(ctx, fs, *dataPath, *target, *rangesPath, strat, false, &sp)
			if err != nil {
				return learn.Moments{}, err
			}
			return *m, nil
		}
		if w, err = plan.ReleaseMomentsFrom(ctx, read, ro); err != nil {
			return err
		}
	default:
		// Spend, then read the rows (learn.CSVRule), clamp them by the
		// public ranges; the plan clips them into the bounds.
		read := func(ctx context.Context) (learn.Data, error) {
			var err error
			model, replaced, err = readRegressCSV(*dataPath, *target, spec.Loss == learn.Logistic, rs)
			return model, err
		}
		if w, err = plan.ReleaseFrom(ctx, read, ro); err != nil {
			return err
		}
	}
	rel := regressRelease{Label: "data", ReleasedValue: weightMap(names, w), Estimate: weightMap(names, w)}
	if rs != nil {
		rel.Estimate = weightMap(names, rs.unscale(w, spec.Intercept))
	}
	if *diag {
		wnp, err := learn.Fit(ctx, model, spec)
		if err != nil {
			return err
		}
		_, rep := spec.Bounds.Clip(model)
		if rs != nil {
			wnp = rs.unscale(wnp, spec.Intercept)
		}
		rel.Diagnostics = &regressDiag{Note: "PRIVATE: the non-private fit and clipping counts reveal the data; do not publish this output",
			NonPrivate: weightMap(names, wnp), ClippedRows: rep.Rows, ClippedTargets: rep.Targets, ReplacedRows: replaced}
	}
	out.Releases = []regressRelease{rel}
	return emitRegress(stdout, out, names, *asJSON)
}

// emitRegress prints out as indented JSON or as text.
func emitRegress(w io.Writer, out regressOutput, names []string, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	printRegress(w, out, names)
	return nil
}

// labels maps logistic targets to ±1 in place: 1 stays +1, anything else is
// −1 (a fixed public map: no target refuses a release).
func labels(y []float64) {
	for i, v := range y {
		if v != 1 {
			y[i] = -1
		}
	}
}

// printRegress prints the plan (public) and the releases.
func printRegress(w io.Writer, out regressOutput, names []string) {
	p := out.Plan
	g := p.Guarantee
	fmt.Fprintf(w, "plan (public: computed from the flags, the bounds, the column names and n before any row is read)\n")
	fmt.Fprintf(w, "  model             %s (%s loss, λ = %g, constraints %s, intercept %v), strategy %s\n", p.Model, p.Loss, p.Lambda, p.Constraints, p.Intercept, p.Strategy)
	fmt.Fprintf(w, "  data              n = %d rows, %d features; rows clipped to ‖x‖₂ ≤ %g, |y| ≤ %g\n", p.N, p.Features, p.BoundX, p.BoundY)
	fmt.Fprintf(w, "  guarantee         %s\n", g.Statement)
	fmt.Fprintf(w, "  noise             %s, std %.6g per coordinate (released noise RMS ≤ %.6g), calibrated to sensitivity %.6g\n", g.Noise, g.NoiseStd, p.ReleasedNoiseRMS, p.CalibratedSensitivity)
	if p.ReleaseGrid > 0 {
		fmt.Fprintf(w, "  output grid       %g (the noisy statistic is a multiple of it)\n", p.ReleaseGrid)
	}
	if p.AccuracyTarget > 0 {
		fmt.Fprintf(w, "  solver accuracy   τ = %.6g (public target, certified per release)\n", p.AccuracyTarget)
	}
	if sc := p.Schedule; sc != nil {
		fmt.Fprintf(w, "  schedule          %d iterations × %d updates = %d noisy steps, step size %.6g, batch rate %g, clip %v, noise multiplier %.6g (per-step sensitivity %.6g, noise std %.6g), %s\n",
			sc.Iterations, sc.UpdatesPerIteration, sc.Steps, sc.StepSize, sc.BatchRate, sc.Clip, sc.NoiseMultiplier, sc.StepSensitivity, sc.StepNoiseStd, sc.Accountant)
	}
	if p.L1 > 0 {
		fmt.Fprintf(w, "  l1 penalty        λ₁ = %g\n", p.L1)
	}
	if m := p.ConstraintMargins; m != nil {
		fmt.Fprintf(w, "  margins           %s (η = %g)\n", m, p.Eta)
	}
	for _, n := range p.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
	for _, r := range out.Releases {
		fmt.Fprintf(w, "release %s: private %s weights\n", r.Label, p.Model)
		cols := append(append([]string(nil), names...), interceptKey)
		for _, nm := range cols {
			v, ok := r.ReleasedValue[nm]
			e, eok := r.Estimate[nm]
			if !ok && !eok {
				continue
			}
			if p.Ranges != nil {
				fmt.Fprintf(w, "  %-16s %14.8g  (estimate in CSV units %14.8g)\n", nm, v, e)
				continue
			}
			fmt.Fprintf(w, "  %-16s %14.8g\n", nm, v)
		}
		if d := r.Diagnostics; d != nil {
			fmt.Fprintf(w, "%s\n  non-private: %v\n  clipped rows %d, clipped targets %d\n", d.Note, d.NonPrivate, d.ClippedRows, d.ClippedTargets)
		}
	}
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
