// Command invregress is the full adjacency-invariance sweep of
// `privopt regress` (issue 23): for every model × strategy × noise it
//
//   - releases on -datasets random datasets through the Go API (learn.NewPlan
//     once, then Plan.Release on each) and counts refusals after the plan
//     (there must be none);
//   - runs the CLI binary -bin on -pairs adjacent pairs (generated data, row
//     0 replaced by a random or an extreme row within the bounds) with the
//     same seed, text and JSON and a ledger, and checks with
//     internal/invariance that everything but the released values is
//     identical and that the released values move by at most the calibrated
//     sensitivity.
//
// It prints one line per path: plan refused (public) or released, datasets
// released, refusals, pairs, largest |Δ released|/calibrated sensitivity.
//
//	go build -o privopt ./cmd/privopt && go run ./bench/invregress -bin ./privopt
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
	n        = flag.Int("n", 60, "rows")
	d        = flag.Int("d", 3, "features")
	lambda   = flag.Float64("lambda", 1, "λ for the regularized models (least-squares: 0)")
	eps      = flag.Float64("epsilon", 2, "ε")
	csvFile  = flag.String("csv", "", "CSV file (e.g. the diabetes data, target column \"target\") for the CLI pairs instead of generated data; needs -ranges")
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
	s := learn.Spec{Loss: learn.Squared, Lambda: *lambda, Intercept: true, Bounds: learn.DefaultBounds}
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

func data(rng *rand.Rand, s learn.Spec) learn.Data {
	x := mat.NewDense(*n, *d, nil)
	y := make([]float64, *n)
	for i := 0; i < *n; i++ {
		r, t := s.RandomRow(rng, *d)
		x.SetRow(i, r)
		y[i] = t
	}
	return learn.Data{X: x, Y: y}
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
		args = append(args, "--ranges", *ranges)
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
	fmt.Printf("%-14s %-10s %-17s %-8s %8s %8s %6s %8s %8s\n", "model", "strategy", "noise", "plan", "released", "refused", "pairs", "max|Δ|/Δ", "|Δ|/bound")
	totalPairs, totalReleases, totalRefusals, worstAll, worstBound := 0, 0, 0, 0.0, 0.0
	for _, model := range []string{"least-squares", "ridge", "nonnegative", "monotone", "huber", "logistic"} {
		for _, strat := range []learn.Strategy{learn.Projection, learn.Program, learn.Objective, learn.AdaSSP, learn.SSP} {
			for _, nz := range learn.NoiseKinds {
				s := spec(model)
				if *csvFile != "" && model == "logistic" {
					continue // the diabetes target is not a label
				}
				if model == "logistic" && (strat == learn.AdaSSP || strat == learn.SSP) || model == "huber" && (strat == learn.AdaSSP || strat == learn.SSP) {
					continue // usage errors of the CLI (squared-loss strategies)
				}
				delta := 1e-5
				if nz == learn.Laplace {
					delta = 0
				}
				pl, err := learn.NewPlan(ctx, learn.PlanSpec{Spec: s, N: *n, Features: *d, Strategy: strat, Privacy: learn.Privacy{Epsilon: *eps, Delta: delta, Noise: nz}})
				if err != nil {
					fmt.Printf("%-14s %-10s %-17s %-8s  (%s)\n", model, strat, nz, "refused", strings.SplitN(err.Error(), ": ", 3)[2])
					continue
				}
				rng := rand.New(rand.NewPCG(uint64(len(model)), uint64(len(nz))))
				refused := 0
				for k := 0; k < *datasets; k++ {
					if _, err := pl.Release(ctx, data(rng, s), learn.ReleaseOptions{Source: noise.NewSeededSource(uint64(k + 1))}); err != nil {
						refused++
					}
				}
				worst, wb := 0.0, 0.0
				for p := 0; p < *pairs; p++ {
					a := data(rng, s)
					x, y := s.RandomRow(rng, *d)
					if p%2 == 1 { // extreme row: on the bound
						nr := 0.0
						for _, v := range x {
							nr += v * v
						}
						for j := range x {
							x[j] /= math.Sqrt(nr)
						}
						y = math.Copysign(1, y)
					}
					b := learn.Replace(a, 0, x, y)
					da, db := filepath.Join(tmp, "a"), filepath.Join(tmp, "b")
					os.RemoveAll(da)
					os.RemoveAll(db)
					os.MkdirAll(da, 0o700)
					os.MkdirAll(db, 0o700)
					var ta, tb string
					if *csvFile != "" {
						if ta, tb, err = csvPair(rng, p); err != nil {
							panic(err)
						}
					}
					ra, ca, err := run(da, a, ta, model, string(strat), string(nz))
					if err != nil {
						panic(err)
					}
					rb, cb, err := run(db, b, tb, model, string(strat), string(nz))
					if err != nil {
						panic(err)
					}
					if ca != 0 || cb != 0 {
						fmt.Fprintf(os.Stderr, "FAIL %s %s %s: exit %d / %d\n", model, strat, nz, ca, cb)
						os.Exit(1)
					}
					rep, err := invariance.Compare(ra, rb)
					if err != nil {
						fmt.Fprintf(os.Stderr, "FAIL %s %s %s: %v\n", model, strat, nz, err)
						os.Exit(1)
					}
					worst, wb = math.Max(worst, rep.Ratio()), math.Max(wb, rep.BoundRatio())
				}
				totalPairs += *pairs
				totalReleases += *datasets
				totalRefusals += refused
				worstAll, worstBound = math.Max(worstAll, worst), math.Max(worstBound, wb)
				fmt.Printf("%-14s %-10s %-17s %-8s %8d %8d %6d %8.3f %8.3f\n", model, strat, nz, "public", *datasets, refused, *pairs, worst, wb)
			}
		}
	}
	fmt.Printf("total: %d releases on random datasets, %d refusals after the plan; %d adjacent pairs identical but for the released values; largest |Δ released|/calibrated sensitivity %.3f, largest |Δ released|/(calibrated sensitivity + grid rounding) %.3f\n",
		totalReleases, totalRefusals, totalPairs, worstAll, worstBound)
}
