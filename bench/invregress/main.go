// Command invregress is the full adjacency-invariance sweep of
// `privopt regress` (issue 23): for every model × strategy × noise — the
// one-shot strategies and the iterative dp-gd, dp-sgd and dp-cd — it
//
//   - plans the release (learn.NewPlan, public inputs only; a refusal here
//     is public and reported);
//   - releases on -datasets random datasets drawn from the public domain
//     through the Go API (Plan.Release) and counts refusals after the plan
//     (there must be none);
//   - releases on -apipairs adjacent pairs through the Go API with the same
//     seed: the diabetes data scaled by -ranges (or generated data), one
//     row replaced by a random or an extreme row within the public domain
//     (a corner of the ranges box, target ±1), and checks that the released
//     values move by at most the calibrated sensitivity plus the grid
//     rounding (projection and program; the other strategies release a
//     post-processing of a noisy statistic that is not printed);
//   - runs the CLI binary -bin on -pairs adjacent pairs with the same seed,
//     text and JSON and a ledger, and checks with internal/invariance that
//     everything but the released values is identical.
//
// It prints one line per path: plan refused (public) or released, datasets
// released, refusals, API pairs, CLI pairs, largest |Δ released|/calibrated
// sensitivity, largest |Δ released|/bound.
//
//	go build -o privopt ./cmd/privopt && go run ./bench/invregress -bin ./privopt \
//	    -csv DIABETES.csv -ranges examples/diabetes/ranges.json
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/privopt/privopt/internal/invariance"
	"github.com/privopt/privopt/learn"
	"github.com/privopt/privopt/ledger"
	"github.com/privopt/privopt/noise"
)

var (
	bin      = flag.String("bin", "privopt", "privopt binary")
	datasets = flag.Int("datasets", 200, "random datasets per path (Go API)")
	pairs    = flag.Int("pairs", 4, "adjacent pairs per path (CLI)")
	apiPairs = flag.Int("apipairs", 200, "adjacent pairs per path (Go API)")
	only     = flag.String("only", "", "run only the paths whose \"model strategy noise\" contains this text")
	n        = flag.Int("n", 60, "rows")
	d        = flag.Int("d", 3, "features")
	lambda   = flag.Float64("lambda", 1, "λ for the regularized models (least-squares: 0)")
	eps      = flag.Float64("epsilon", 2, "ε")
	csvFile  = flag.String("csv", "", "CSV file (e.g. the diabetes data, target column \"target\") for the CLI pairs instead of generated data; needs -ranges")
	seed     = flag.Uint64("seed", 0, "added to every path's random-number seed (0: the seeds of the published runs); a new seed draws new datasets and pairs")
	ranges   = flag.String("ranges", "", "public ranges JSON of -csv: replaced rows are random corners or random points of the ranges")
)

// csvPair returns the -csv file's text and a neighbour with row 1 + (p mod
// rows) replaced by a row within -ranges (a random corner for odd p).
func csvPair(rng *rand.Rand, p int) (string, string, error) {
	raw, err := os.ReadFile(*csvFile)
	if err != nil {
		return "", "", err
	}
	rb, err := os.ReadFile(*ranges)
	if err != nil {
		return "", "", err
	}
	var rg map[string][2]float64
	if err := json.Unmarshal(rb, &rg); err != nil {
		return "", "", err
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	head := strings.Split(lines[0], ",")
	row := make([]string, len(head))
	for j, h := range head {
		r := rg[h]
		u := rng.Float64()
		if p%2 == 1 {
			u = float64(rng.IntN(2))
		}
		row[j] = fmt.Sprint(r[0] + u*(r[1]-r[0]))
	}
	alt := append([]string(nil), lines...)
	alt[1+p%(len(lines)-1)] = strings.Join(row, ",")
	return strings.Join(lines, "\n") + "\n", strings.Join(alt, "\n") + "\n", nil
}

func spec(model string) learn.Spec {
	s := learn.Spec{Loss: learn.Squared, Lambda: *lambda, Intercept: true, Bounds: bounds(false)}
	switch model {
	case "least-squares":
		s.Lambda = 0
	case "nonnegative":
		s.Nonnegative = true
	case "monotone":
		s.Ordered = true
	case "huber":
		s.Loss, s.HuberDelta = learn.Huber, 1
	case "logistic":
		s.Loss = learn.Logistic
	}
	return s
}

// bounds are the CLI's: with -csv (--ranges) X = √d (entries in [−1, 1]
// for dp-cd), Y = 1; generated data use the default bounds.
func bounds(coordinate bool) learn.Bounds {
	if *csvFile == "" || coordinate {
		return learn.DefaultBounds
	}
	return learn.Bounds{X: math.Sqrt(float64(*d)), Y: 1}
}

// iterSpec is the CLI's iterative spec for model and method.
func iterSpec(model string, m learn.Strategy) learn.IterativeSpec {
	s := learn.IterativeSpec{Method: m, Intercept: true, Iterations: 100, Bounds: bounds(m == learn.DPCD)}
	switch model {
	case "l1-logistic":
		s.Loss, s.L1 = learn.Logistic, *lambda
	case "logistic":
		s.Loss, s.Ridge = learn.Logistic, *lambda
	case "ridge":
		s.Loss, s.Ridge = learn.Squared, *lambda
	case "least-squares":
		s.Loss = learn.Squared
	}
	if m == learn.DPSGD {
		s.BatchRate = 0.1
	}
	return s
}

// path is one model × strategy × noise.
type path struct {
	model string
	strat learn.Strategy
	noise learn.NoiseKind
}

func paths() []path {
	var ps []path
	for _, model := range []string{"least-squares", "ridge", "nonnegative", "monotone", "huber", "logistic"} {
		for _, strat := range []learn.Strategy{learn.Projection, learn.Program, learn.Objective, learn.AdaSSP, learn.SSP} {
			if (model == "logistic" || model == "huber") && (strat == learn.AdaSSP || strat == learn.SSP) {
				continue // usage errors of the CLI (squared-loss strategies)
			}
			for _, nz := range learn.NoiseKinds {
				ps = append(ps, path{model, strat, nz})
			}
		}
	}
	for _, model := range []string{"l1-logistic", "logistic", "ridge", "least-squares"} {
		for _, strat := range []learn.Strategy{learn.DPGD, learn.DPSGD, learn.DPCD} {
			for _, nz := range []learn.NoiseKind{learn.Gaussian, learn.AnalyticGaussian} {
				ps = append(ps, path{model, strat, nz})
			}
		}
	}
	return ps
}

func (p path) iterative() bool {
	return p.strat == learn.DPGD || p.strat == learn.DPSGD || p.strat == learn.DPCD
}

func (p path) classification() bool { return p.model == "logistic" || p.model == "l1-logistic" }

// plan plans the path for n rows of d features (as the CLI does).
func (p path) plan(ctx context.Context, rows int) (*learn.Plan, error) {
	delta := 1e-5
	if p.noise == learn.Laplace {
		delta = 0
	}
	ps := learn.PlanSpec{N: rows, Features: *d, Strategy: p.strat, Privacy: learn.Privacy{Epsilon: *eps, Delta: delta, Mechanism: p.noise}}
	if p.iterative() {
		is := iterSpec(p.model, p.strat)
		ps.Iterative = &is
	} else {
		ps.Spec = spec(p.model)
	}
	return learn.NewPlan(ctx, ps)
}

// domainRow draws a row of the public domain in the model's units: with
// -csv the ranges box [−1, 1]^d (a corner when extreme) and y ∈ [−1, 1]
// (±1 when extreme or for classification); otherwise the ball of the
// default bounds (on its sphere when extreme).
func domainRow(rng *rand.Rand, p path, extreme bool) ([]float64, float64) {
	x := make([]float64, *d)
	var y float64
	if *csvFile != "" {
		for j := range x {
			x[j] = 2*rng.Float64() - 1
			if extreme {
				x[j] = float64(2*rng.IntN(2) - 1)
			}
		}
		y = 2*rng.Float64() - 1
	} else {
		s := spec("ridge")
		x, y = s.RandomRow(rng, *d)
		if extreme {
			nr := 0.0
			for _, v := range x {
				nr += v * v
			}
			for j := range x {
				x[j] /= math.Sqrt(nr)
			}
		}
	}
	if extreme || p.classification() {
		y = math.Copysign(1, y)
	}
	return x, y
}

// randomData draws a dataset of rows from the public domain.
func randomData(rng *rand.Rand, p path, rows int) learn.Data {
	x := mat.NewDense(rows, *d, nil)
	y := make([]float64, rows)
	for i := 0; i < rows; i++ {
		r, t := domainRow(rng, p, false)
		x.SetRow(i, r)
		y[i] = t
	}
	return learn.Data{X: x, Y: y}
}

// scaledCSV reads -csv and scales it by -ranges as the CLI does (each value
// clamped to its range and mapped to [−1, 1]).
func scaledCSV() (learn.Data, error) {
	f, err := os.Open(*csvFile)
	if err != nil {
		return learn.Data{}, err
	}
	defer f.Close()
	data, names, err := learn.ReadCSV(f, "target")
	if err != nil {
		return learn.Data{}, err
	}
	rb, err := os.ReadFile(*ranges)
	if err != nil {
		return learn.Data{}, err
	}
	var rg map[string][2]float64
	if err := json.Unmarshal(rb, &rg); err != nil {
		return learn.Data{}, err
	}
	n, k := data.X.Dims()
	scale := func(v float64, r [2]float64) float64 {
		return (math.Max(r[0], math.Min(r[1], v)) - (r[0]+r[1])/2) / ((r[1] - r[0]) / 2)
	}
	for i := 0; i < n; i++ {
		for j := 0; j < k; j++ {
			data.X.Set(i, j, scale(data.X.At(i, j), rg[names[j]]))
		}
		data.Y[i] = scale(data.Y[i], rg["target"])
	}
	return data, nil
}

func writeCSV(path string, dt learn.Data) error {
	var b strings.Builder
	for j := 0; j < *d; j++ {
		fmt.Fprintf(&b, "x%d,", j)
	}
	b.WriteString("y\n")
	for i := 0; i < *n; i++ {
		for j := 0; j < *d; j++ {
			fmt.Fprintf(&b, "%.17g,", dt.X.At(i, j))
		}
		fmt.Fprintf(&b, "%.17g\n", dt.Y[i])
	}
	return os.WriteFile(path, []byte(b.String()), 0o600)
}

func cli(args ...string) (string, int, error) {
	var out, errb bytes.Buffer
	c := exec.Command(*bin, args...)
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return errb.String(), ee.ExitCode(), nil
	}
	return out.String(), 0, err
}

func run(dir string, dt learn.Data, text, model, strat, nz string) (invariance.Run, int, error) {
	csv := filepath.Join(dir, "data.csv")
	target := "y"
	if text != "" {
		target = "target"
		if err := os.WriteFile(csv, []byte(text), 0o600); err != nil {
			return invariance.Run{}, 0, err
		}
	} else if err := writeCSV(csv, dt); err != nil {
		return invariance.Run{}, 0, err
	}
	led := filepath.Join(dir, "ledger.db")
	if _, code, err := cli("ledger", "init", "--ledger", led, "--dataset", "d", "--epsilon", "1000", "--delta", "0.5"); err != nil || code != 0 {
		return invariance.Run{}, 0, fmt.Errorf("ledger init: exit %d %v", code, err)
	}
	delta := "1e-5"
	if nz == "laplace" {
		delta = "0"
	}
	args := []string{"regress", "--data", csv, "--target", target, "--model", model, "--strategy", strat, "--noise", nz,
		"--epsilon", fmt.Sprint(*eps), "--delta", delta, "--seed", "11"}
	if model != "least-squares" {
		args = append(args, "--lambda", fmt.Sprint(*lambda))
	}
	if text != "" {
		rp := *ranges
		if model == "logistic" || model == "l1-logistic" {
			// A label takes no range: the features' ranges only (the CLI
			// maps target 1 to +1 and every other value to −1).
			rb, err := os.ReadFile(*ranges)
			if err != nil {
				return invariance.Run{}, 0, err
			}
			var rg map[string][2]float64
			if err := json.Unmarshal(rb, &rg); err != nil {
				return invariance.Run{}, 0, err
			}
			delete(rg, "target")
			rb, _ = json.Marshal(rg)
			rp = filepath.Join(dir, "ranges.json")
			if err := os.WriteFile(rp, rb, 0o600); err != nil {
				return invariance.Run{}, 0, err
			}
		}
		args = append(args, "--ranges", rp)
	}
	text, code, err := cli(append(args, "--ledger", led, "--dataset", "d")...)
	if err != nil || code != 0 {
		return invariance.Run{}, code, err
	}
	js, code, err := cli(append(args, "--json")...)
	if err != nil || code != 0 {
		return invariance.Run{}, code, fmt.Errorf("json run: exit %d: %s %v", code, js, err)
	}
	l, err := ledger.Open(context.Background(), led, ledger.Options{})
	if err != nil {
		return invariance.Run{}, 0, err
	}
	defer l.Close()
	st, err := l.Status(context.Background(), "d")
	if err != nil {
		return invariance.Run{}, 0, err
	}
	return invariance.Run{Text: text, JSON: []byte(js), Ledger: st.Releases}, 0, nil
}

func main() {
	flag.Parse()
	ctx := context.Background()
	tmp, err := os.MkdirTemp("", "invregress")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(tmp)
	base := learn.Data{}
	if *csvFile != "" {
		if base, err = scaledCSV(); err != nil {
			panic(err)
		}
		*n, *d = base.X.Dims()
	}
	fmt.Printf("%-14s %-10s %-17s %-8s %8s %8s %8s %6s %8s %9s\n", "model", "strategy", "noise", "plan", "released", "refused", "apipairs", "pairs", "max|Δ|/Δ", "|Δ|/bound")
	totalPairs, totalAPI, totalReleases, totalRefusals, worstAll, worstBound := 0, 0, 0, 0, 0.0, 0.0
	for _, p := range paths() {
		if *only != "" && !strings.Contains(fmt.Sprintf("%s %s %s", p.model, p.strat, p.noise), *only) {
			continue
		}
		pl, err := p.plan(ctx, *n)
		if err != nil {
			fmt.Printf("%-14s %-10s %-17s %-8s  (%s)\n", p.model, p.strat, p.noise, "refused", strings.SplitN(err.Error(), ": ", 3)[2])
			continue
		}
		rng := rand.New(rand.NewPCG(uint64(len(p.model))+*seed, uint64(len(p.noise))+uint64(len(p.strat))))
		refused := 0
		for k := 0; k < *datasets; k++ {
			if _, err := pl.Release(ctx, randomData(rng, p, *n), learn.ReleaseOptions{Source: noise.NewSeededSource(uint64(k + 1))}); err != nil {
				refused++
			}
		}
		bounded := (p.strat == learn.Projection || p.strat == learn.Program) && p.noise != learn.Optimal
		bound := pl.CalibratedSensitivity + pl.ReleaseGrid
		if p.noise == learn.Laplace {
			bound = pl.CalibratedSensitivity + float64(pl.Weights)*pl.ReleaseGrid
		}
		worst, wb := 0.0, 0.0
		for q := 0; q < *apiPairs; q++ {
			a := base
			if *csvFile == "" {
				a = randomData(rng, p, *n)
			} else if p.classification() {
				a = learn.Data{X: base.X, Y: make([]float64, *n)}
				for i, v := range base.Y {
					a.Y[i] = math.Copysign(1, v)
				}
			}
			x, y := domainRow(rng, p, q%2 == 1)
			b := learn.Replace(a, q%*n, x, y)
			src := uint64(1000 + q)
			wa, err := pl.Release(ctx, a, learn.ReleaseOptions{Source: noise.NewSeededSource(src)})
			if err != nil {
				refused++
				continue
			}
			wbv, err := pl.Release(ctx, b, learn.ReleaseOptions{Source: noise.NewSeededSource(src)})
			if err != nil {
				refused++
				continue
			}
			dist := 0.0
			for j := range wa {
				dist += (wa[j] - wbv[j]) * (wa[j] - wbv[j])
			}
			dist = math.Sqrt(dist)
			if bounded && dist > bound*(1+1e-12) {
				fmt.Fprintf(os.Stderr, "FAIL %s %s %s: API pair %d moves the release by %v > bound %v\n", p.model, p.strat, p.noise, q, dist, bound)
				os.Exit(1)
			}
			worst = math.Max(worst, dist/pl.CalibratedSensitivity)
			if bounded {
				wb = math.Max(wb, dist/bound)
			}
		}
		for q := 0; q < *pairs; q++ {
			da, db := filepath.Join(tmp, "a"), filepath.Join(tmp, "b")
			os.RemoveAll(da)
			os.RemoveAll(db)
			os.MkdirAll(da, 0o700)
			os.MkdirAll(db, 0o700)
			var ta, tb string
			var a, b learn.Data
			if *csvFile != "" {
				if ta, tb, err = csvPair(rng, q); err != nil {
					panic(err)
				}
			} else {
				a = randomData(rng, p, *n)
				x, y := domainRow(rng, p, q%2 == 1)
				b = learn.Replace(a, 0, x, y)
			}
			ra, ca, err := run(da, a, ta, p.model, string(p.strat), string(p.noise))
			if err != nil {
				panic(err)
			}
			rb, cb, err := run(db, b, tb, p.model, string(p.strat), string(p.noise))
			if err != nil {
				panic(err)
			}
			if ca != 0 || cb != 0 {
				fmt.Fprintf(os.Stderr, "FAIL %s %s %s: exit %d / %d\n", p.model, p.strat, p.noise, ca, cb)
				os.Exit(1)
			}
			rep, err := invariance.Compare(ra, rb)
			if err != nil {
				fmt.Fprintf(os.Stderr, "FAIL %s %s %s: %v\n", p.model, p.strat, p.noise, err)
				os.Exit(1)
			}
			worst, wb = math.Max(worst, rep.Ratio()), math.Max(wb, rep.BoundRatio())
		}
		totalPairs += *pairs
		totalAPI += *apiPairs
		totalReleases += *datasets
		totalRefusals += refused
		worstAll, worstBound = math.Max(worstAll, worst), math.Max(worstBound, wb)
		fmt.Printf("%-14s %-10s %-17s %-8s %8d %8d %8d %6d %8.3f %9.3f\n", p.model, p.strat, p.noise, "public", *datasets, refused, *apiPairs, *pairs, worst, wb)
	}
	fmt.Printf("total: %d releases on random datasets and %d API pairs, %d refusals after the plan; %d CLI pairs identical but for the released values; largest |Δ released|/calibrated sensitivity %.3f, largest |Δ released|/(calibrated sensitivity + grid rounding) %.3f (projection and program)\n",
		totalReleases, totalAPI, totalRefusals, totalPairs, worstAll, worstBound)
}
