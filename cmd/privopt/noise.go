package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/privopt/privopt/internal/plot"
	"github.com/privopt/privopt/noise"
)

func init() {
	register(command{name: "noise", summary: "calibrate (ε,δ)-DP noise: textbook mechanisms or certified optimal noise", run: runNoise})
}

const noiseUsage = `Usage: privopt noise MECHANISM --epsilon E [--delta D] [--sensitivity S]
       [--loss l1|l2|pinball:τ] [--gap G] [--intervals N] [--json] [--plot FILE.svg] [--samples N]
       [--out FILE.json] [--k K]
       privopt noise --noise-file FILE.json [--json] [--plot FILE.svg] [--samples N]

MECHANISM is one of laplace, gaussian, analytic-gaussian, truncated-laplace,
staircase, quasi-gaussian, multi-gaussian, optimal. multi-gaussian is the
mixture of 2K+1 Gaussians of Liu & Selvi (Definition 3), σ tuned by their
Algorithm 6 (η = 0.01) and certified rigorously; --k K fixes K (1..64),
without it the K in 1..10 with the smallest E|X| is used; JSON adds k. The mechanism f(D) + X is (ε,δ)-DP for
queries of sensitivity S. Prints the noise's standard deviation, E|X|, support
and parameter; for optimal (loss --loss, default l1 as in Selvi et al.; the
releases' --noise optimal is the l2 one, query.OptimalLoss, printed by
--loss l2) also the certified upper bound, the lower bound on
any (ε,δ)-DP noise, their relative gap and the exact certificate. --json prints
one object with the fields mechanism, epsilon, delta, sensitivity, std,
mean_abs, variance, support ([lo, hi] or null), scale or sigma (or gamma,
bound), and for optimal upper_bound, lower_bound, gap, certified,
max_shortfall, intervals, graded_upper (the density lives on a graded grid,
chosen automatically for ε ≥ 5), lower_method (dithered, cell-infimum or
coverage: the relaxation behind lower_bound), time_s. --plot writes an SVG of the density with the
Laplace and analytic-Gaussian densities of the same (ε,δ,S). --samples N draws
N noise values from crypto/rand through the floating-point-safe release
(noise.Mechanism.Release of the value 0: snapping for laplace, the exact
discrete Gaussian for gaussian and analytic-gaussian, an exact discrete
truncated Laplace for truncated-laplace, an exact discrete quasi-Gaussian
for quasi-gaussian, an exact discrete multi-Gaussian for multi-gaussian,
exact samplers for staircase and optimal); the JSON
field samples_safe says so (false only for a density without a safe
sampler, with a warning on stderr). --out writes a piecewise-constant density (optimal) as JSON:
format, mechanism, epsilon, delta, sensitivity, edges (N+1 end points),
probabilities (N cell masses), weights (the exact law is weights/Σweights),
unit and index (edges = unit·index exactly), max_shortfall, certified, std,
mean_abs. --noise-file reads such a file, re-runs the exact certifier and
describes (and samples) the reloaded mechanism; it replaces MECHANISM and
the privacy flags. Exit status 0 on success, 1 on a failed run,
2 on bad usage (including invalid ε, δ, S or loss).

Flags:
`

type noiseOutput struct {
	Mechanism    string    `json:"mechanism"`
	Epsilon      float64   `json:"epsilon"`
	Delta        float64   `json:"delta"`
	Sensitivity  float64   `json:"sensitivity"`
	Std          float64   `json:"std"`
	MeanAbs      float64   `json:"mean_abs"`
	Variance     float64   `json:"variance"`
	Support      []float64 `json:"support"`
	Scale        *float64  `json:"scale,omitempty"`
	Sigma        *float64  `json:"sigma,omitempty"`
	Bound        *float64  `json:"bound,omitempty"`
	Gamma        *float64  `json:"gamma,omitempty"`
	K            *int      `json:"k,omitempty"`
	Loss         string    `json:"loss,omitempty"`
	UpperBound   *float64  `json:"upper_bound,omitempty"`
	LowerBound   *float64  `json:"lower_bound,omitempty"`
	Gap          *float64  `json:"gap,omitempty"`
	Certified    *bool     `json:"certified,omitempty"`
	MaxShortfall *float64  `json:"max_shortfall,omitempty"`
	Intervals    *int      `json:"intervals,omitempty"`
	GradedUpper  *bool     `json:"graded_upper,omitempty"`
	LowerMethod  string    `json:"lower_method,omitempty"`
	TimeS        *float64  `json:"time_s,omitempty"`
	Samples      []float64 `json:"samples,omitempty"`
	SamplesSafe  *bool     `json:"samples_safe,omitempty"`
}

func fp(x float64) *float64 { return &x }

func parseLoss(s string) (noise.Loss, error) {
	switch {
	case s == "l1":
		return noise.L1(), nil
	case s == "l2":
		return noise.L2(), nil
	case strings.HasPrefix(s, "pinball:"):
		tau, err := strconv.ParseFloat(strings.TrimPrefix(s, "pinball:"), 64)
		if err != nil {
			return noise.Loss{}, usagef("--loss %q: τ must be a number", s)
		}
		return noise.Pinball(tau)
	}
	return noise.Loss{}, usagef("--loss is %q, must be l1, l2 or pinball:τ", s)
}

func runNoise(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("noise", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), noiseUsage)
		fs.PrintDefaults()
	}
	eps := fs.Float64("epsilon", math.NaN(), "privacy parameter ε > 0 (required)")
	delta := fs.Float64("delta", 0, "privacy parameter δ")
	sens := fs.Float64("sensitivity", 1, "query sensitivity Δ > 0")
	lossName := fs.String("loss", "l1", "loss for optimal and staircase: l1, l2 or pinball:τ")
	gap := fs.Float64("gap", 0, "optimal: refine until the relative gap is at most G (0: one solve)")
	intervals := fs.Int("intervals", 0, "optimal: approximate number of cells (0: package default)")
	asJSON := fs.Bool("json", false, "print JSON")
	plotFile := fs.String("plot", "", "write an SVG plot of the density to FILE")
	samples := fs.Int("samples", 0, "draw N noise samples (crypto/rand, floating-point-safe release where available)")
	outFile := fs.String("out", "", "write the piecewise-constant density (optimal) as JSON to FILE")
	noiseFile := fs.String("noise-file", "", "read a piecewise density written by --out instead of computing one")
	kFlag := fs.Int("k", 0, "multi-gaussian: number K of side components per side (0: best of 1..10 for E|X|)")
	var mech string
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil
			}
			return usagef("%v", err)
		}
		if fs.NArg() == 0 {
			break
		}
		if mech != "" {
			return usagef("want exactly one MECHANISM, got %q and %q", mech, fs.Arg(0))
		}
		mech = fs.Arg(0)
		args = fs.Args()[1:]
	}
	if mech == "" && *noiseFile == "" {
		return usagef("missing MECHANISM (see 'privopt noise -h')")
	}
	if mech != "" && *noiseFile != "" {
		return usagef("give either MECHANISM (%q) or --noise-file, not both", mech)
	}
	if math.IsNaN(*eps) && !flagSet(fs, "epsilon") && *noiseFile == "" {
		return usagef("--epsilon is required")
	}
	// Every flag is checked, whatever the mechanism, before any work (the
	// plot file included): an invalid value is an error, never ignored.
	epsCheck := floatIn("epsilon", *eps, 0, math.Inf(1), openLo)
	if *noiseFile != "" && !flagSet(fs, "epsilon") {
		epsCheck = nil // the file carries ε
	}
	if err := checkFlags(
		epsCheck,
		floatIn("delta", *delta, 0, 1, openHi),
		floatIn("sensitivity", *sens, 0, math.Inf(1), openLo),
		floatIn("gap", *gap, 0, math.Inf(1), closed),
		intIn("intervals", *intervals, 0, 5_000_000),
		intIn("samples", *samples, 0, 10_000_000),
		intIn("k", *kFlag, 0, noise.MaxMultiGaussianK),
		writableFile("plot", *plotFile),
		writableFile("out", *outFile),
	); err != nil {
		return err
	}
	for _, name := range []string{"gap", "intervals", "loss"} {
		if flagSet(fs, name) && mech != "optimal" && !(name == "loss" && mech == "staircase") {
			return usagef("--%s does not apply to MECHANISM %s (only to optimal%s)", name, mech, map[bool]string{true: " and staircase"}[name == "loss"])
		}
	}
	if flagSet(fs, "k") && mech != "multi-gaussian" {
		return usagef("--k does not apply to MECHANISM %s (only to multi-gaussian)", mech)
	}
	loss, err := parseLoss(*lossName)
	if err != nil {
		return asUsage(err)
	}
	p := noise.Params{Epsilon: *eps, Delta: *delta, Sensitivity: *sens}
	var m *noise.Mechanism
	var opt *noise.OptimalResult
	switch mech {
	case "":
		m, err = loadNoiseFile(*noiseFile)
	case "laplace":
		m, err = noise.LaplaceMechanism(p)
	case "gaussian":
		m, err = noise.GaussianMechanism(p)
	case "analytic-gaussian":
		m, err = noise.AnalyticGaussianMechanism(p)
	case "truncated-laplace":
		m, err = noise.TruncatedLaplaceMechanism(p)
	case "staircase":
		m, err = noise.StaircaseMechanism(p, loss)
	case "quasi-gaussian":
		m, err = noise.QuasiGaussianMechanism(p)
	case "multi-gaussian":
		m, err = noise.MultiGaussianMechanism(p, noise.MultiGaussianOptions{K: *kFlag})
	case "optimal":
		last := time.Now()
		o := noise.OptimalOptions{Loss: loss, Gap: *gap, Intervals: *intervals, Symmetric: loss.Name != "" && !strings.HasPrefix(loss.Name, "pinball"),
			Progress: func(pr noise.OptimizeProgress) {
				if time.Since(last) > 500*time.Millisecond {
					last = time.Now()
					fmt.Fprintf(stderr, "privopt noise: %s bound, refinement %d, round %d: %d cells, relaxation %.6g\n", pr.Stage, pr.Refinement, pr.Round, pr.Intervals, pr.Objective)
				}
			}}
		opt, err = noise.Optimize(ctx, p, o)
		if err == nil {
			m = opt.Mechanism
		}
	default:
		return usagef("unknown MECHANISM %q: want laplace, gaussian, analytic-gaussian, truncated-laplace, staircase, quasi-gaussian, multi-gaussian or optimal", mech)
	}
	if err != nil {
		return asUsage(err)
	}
	out := describe(m, opt)
	if *samples > 0 {
		if out.Samples, err = drawSamples(ctx, m, *samples, stderr); err != nil {
			return err
		}
		safe := sampleSafe(m)
		out.SamplesSafe = &safe
	}
	if *outFile != "" {
		if err := writeNoiseFile(*outFile, m); err != nil {
			return err
		}
	}
	if *plotFile != "" {
		if err := writeNoisePlot(*plotFile, m); err != nil {
			return err
		}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	printNoise(stdout, out)
	return nil
}

func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == name {
			set = true
		}
	})
	return set
}

// asUsage turns invalid-parameter errors into usage errors (exit code 2).
func asUsage(err error) error {
	if errors.Is(err, noise.ErrInvalidParam) {
		return usageError{err}
	}
	return err
}

func describe(m *noise.Mechanism, opt *noise.OptimalResult) noiseOutput {
	d := m.Dist
	out := noiseOutput{Mechanism: m.Name, Epsilon: m.Params.Epsilon, Delta: m.Params.Delta, Sensitivity: m.Params.Sensitivity,
		Std: noise.Std(d), MeanAbs: d.MeanAbs(), Variance: d.Variance()}
	if lo, hi := d.Support(); !math.IsInf(lo, 0) && !math.IsInf(hi, 0) {
		out.Support = []float64{lo, hi}
	}
	switch x := d.(type) {
	case *noise.Laplace:
		out.Scale = fp(x.Scale)
	case *noise.TruncatedLaplace:
		out.Scale, out.Bound = fp(x.Scale), fp(x.Bound)
	case *noise.Gaussian:
		out.Sigma = fp(x.Sigma)
	case *noise.QuasiGaussian:
		out.Sigma = fp(x.Sigma)
	case *noise.MultiGaussian:
		k := x.K
		out.Sigma, out.K = fp(x.Sigma), &k
	case *noise.Staircase:
		out.Gamma = fp(x.Gamma)
	}
	if opt != nil {
		cert := opt.Certificate.Certified
		n := opt.Intervals
		out.UpperBound, out.LowerBound, out.Gap = fp(opt.UpperBound), fp(opt.LowerBound), fp(opt.Gap)
		out.Certified, out.MaxShortfall, out.Intervals = &cert, fp(opt.Certificate.MaxShortfall), &n
		out.TimeS = fp(opt.Time.Seconds())
		graded := opt.GradedUpper
		out.GradedUpper = &graded
		out.LowerMethod = opt.LowerMethod
		out.Loss = opt.LossName
	}
	return out
}

func printNoise(w io.Writer, o noiseOutput) {
	fmt.Fprintf(w, "mechanism   %s\nguarantee   (ε, δ) = (%g, %g) for sensitivity %g\n", o.Mechanism, o.Epsilon, o.Delta, o.Sensitivity)
	if o.Scale != nil {
		fmt.Fprintf(w, "scale       %.6g\n", *o.Scale)
	}
	if o.Bound != nil {
		fmt.Fprintf(w, "bound       %.6g\n", *o.Bound)
	}
	if o.Sigma != nil {
		fmt.Fprintf(w, "sigma       %.6g\n", *o.Sigma)
	}
	if o.Gamma != nil {
		fmt.Fprintf(w, "gamma       %.6g\n", *o.Gamma)
	}
	if o.K != nil {
		fmt.Fprintf(w, "k           %d\n", *o.K)
	}
	fmt.Fprintf(w, "std         %.6g\nE|X|        %.6g\n", o.Std, o.MeanAbs)
	if o.Support != nil {
		fmt.Fprintf(w, "support     [%.6g, %.6g]\n", o.Support[0], o.Support[1])
	} else {
		fmt.Fprintf(w, "support     (-inf, inf)\n")
	}
	if o.UpperBound != nil {
		fmt.Fprintf(w, "loss        %s\nupper bound %.6g (loss of this noise)\nlower bound %.6g (any (ε,δ)-DP noise; %s relaxation)\ngap         %.3f%%\n", o.Loss, *o.UpperBound, *o.LowerBound, o.LowerMethod, 100**o.Gap)
		fmt.Fprintf(w, "certified   %v (exact max shortfall %.3g)\nintervals   %d\ntime        %.3fs\n", *o.Certified, *o.MaxShortfall, *o.Intervals, *o.TimeS)
	}
	for _, s := range o.Samples {
		fmt.Fprintf(w, "%.17g\n", s)
	}
}

// writeNoisePlot draws the density of m with the Laplace and analytic-Gaussian
// densities of the same (ε, δ, Δ) (the latter only for δ ∈ (0, 1)).
func writeNoisePlot(path string, m *noise.Mechanism) error {
	p := m.Params
	lap, _ := noise.LaplaceMechanism(p)
	ag, agErr := noise.AnalyticGaussianMechanism(p)
	lo, hi := m.Dist.Quantile(0.001), m.Dist.Quantile(0.999)
	R := math.Max(math.Max(-lo, hi), lap.Dist.Quantile(0.995))
	if agErr == nil {
		R = math.Max(R, ag.Dist.Quantile(0.999))
	}
	R *= 1.05
	const n = 2001
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = -R + 2*R*float64(i)/(n-1)
	}
	dens := func(d noise.Distribution) []float64 {
		ys := make([]float64, n)
		for i, x := range xs {
			ys[i] = d.PDF(x)
		}
		return ys
	}
	fig := plot.Figure{
		Title:  fmt.Sprintf("%s noise, (ε, δ) = (%g, %g), sensitivity %g", m.Name, p.Epsilon, p.Delta, p.Sensitivity),
		XLabel: "noise x", YLabel: "density",
		Series: []plot.Series{{Name: m.Name, X: xs, Y: dens(m.Dist)}},
	}
	if m.Name != "laplace" {
		fig.Series = append(fig.Series, plot.Series{Name: fmt.Sprintf("laplace (%g, 0)", p.Epsilon), X: xs, Y: dens(lap.Dist), Dashed: true})
	}
	if agErr == nil && m.Name != "analytic-gaussian" {
		fig.Series = append(fig.Series, plot.Series{Name: "analytic-gaussian", X: xs, Y: dens(ag.Dist), Dashed: true})
	}
	return fig.WriteSVGFile(path)
}
