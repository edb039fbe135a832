package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/privopt/privopt/internal/invariance"
	"github.com/privopt/privopt/internal/shareddata"
	"github.com/privopt/privopt/ledger"
)

// regressPath is one model × strategy × noise of `privopt regress`.
type regressPath struct{ model, strategy, noise string }

// regressPaths lists every model × strategy × noise the command offers whose
// plan it accepts (the others are refused before any row is read, which
// regressRefusedPaths checks).
func regressPaths() []regressPath {
	var ps []regressPath
	for _, m := range []string{"least-squares", "ridge", "nonnegative", "monotone", "huber", "logistic"} {
		for _, st := range []string{"projection", "program", "objective", "adassp", "ssp"} {
			for _, nz := range []string{"laplace", "gaussian", "analytic-gaussian", "optimal"} {
				ps = append(ps, regressPath{m, st, nz})
			}
		}
	}
	// The iterative strategies (composed Gaussian accounting).
	for _, m := range []string{"l1-logistic", "logistic", "ridge", "least-squares"} {
		for _, st := range []string{"dp-gd", "dp-sgd", "dp-cd"} {
			for _, nz := range []string{"gaussian", "analytic-gaussian"} {
				ps = append(ps, regressPath{m, st, nz})
			}
		}
	}
	return ps
}

// writeRegressCSV writes rows (x, y) with header x0..x{d-1},y.
func writeRegressCSV(t testing.TB, path string, x [][]float64, y []float64) {
	t.Helper()
	var b strings.Builder
	for j := range x[0] {
		fmt.Fprintf(&b, "x%d,", j)
	}
	b.WriteString("y\n")
	for i := range x {
		for _, v := range x[i] {
			fmt.Fprintf(&b, "%.17g,", v)
		}
		fmt.Fprintf(&b, "%.17g\n", y[i])
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
}

// runRegressPair runs one path on a CSV (text, JSON, ledger) with seed 7
// and returns the outputs, or the exit code and stderr of a refusal.
func runRegressRun(t testing.TB, csv string, p regressPath, extra ...string) (invariance.Run, int, string) {
	t.Helper()
	dir := filepath.Dir(csv)
	led := filepath.Join(dir, "ledger.db")
	if code, _, errs := runLedgerCmd("init", "--ledger", led, "--dataset", "d", "--epsilon", "100", "--delta", "0.5"); code != 0 {
		t.Fatalf("ledger init: %s", errs)
	}
	args := append([]string{"--data", csv, "--target", "y", "--model", p.model, "--strategy", p.strategy, "--noise", p.noise,
		"--epsilon", "0.9", "--delta", "1e-5", "--seed", "7"}, extra...)
	if p.noise == "laplace" {
		args = append(args, "--delta", "0")
	}
	code, text, errs := runRegressCmd(append(args, "--ledger", led, "--dataset", "d")...)
	if code != 0 {
		return invariance.Run{}, code, errs
	}
	code, js, errs := runRegressCmd(append(args, "--json")...)
	if code != 0 {
		t.Fatalf("%v: text released but --json exits %d: %s", p, code, errs)
	}
	l, err := ledger.Open(context.Background(), led, ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	st, err := l.Status(context.Background(), "d")
	if err != nil {
		t.Fatal(err)
	}
	return invariance.Run{Text: text, JSON: []byte(js), Ledger: st.Releases}, 0, ""
}

// The adjacency-invariance harness on generated data (n = 40, d = 3): for
// every model × strategy × noise, the dataset and its neighbour with row 0
// replaced by an extreme row (on the bound: ‖x‖ = 1, y = −1) print the same
// plan, text (numbers of the release masked) and ledger entry, release
// values within the calibrated sensitivity, and either both release or both
// are refused by the plan before any row is read. The full sweep (diabetes,
// random rows, 200 datasets per path) is bench/invregress.
func TestRegressAdjacencyInvariance(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 1))
	n, d := 40, 3
	x := make([][]float64, n)
	y := make([]float64, n)
	for i := range x {
		x[i] = make([]float64, d)
		for j := range x[i] {
			x[i][j] = 0.5 * rng.NormFloat64()
		}
		y[i] = math.Tanh(x[i][0] + 0.5*x[i][1] + 0.3*rng.NormFloat64())
	}
	xa := append([][]float64(nil), x...)
	ya := append([]float64(nil), y...)
	xa[0], ya[0] = []float64{0, 0, 1}, -1
	released, refused, worst := 0, 0, 0.0
	for _, p := range regressPaths() {
		// The fast subset: every model × strategy with analytic Gaussian
		// noise, every noise on ridge and monotone (bench/invregress sweeps
		// all paths).
		if p.noise != "analytic-gaussian" && p.model != "ridge" && p.model != "monotone" {
			continue
		}
		da, db := filepath.Join(t.TempDir(), "data.csv"), filepath.Join(t.TempDir(), "data.csv")
		writeRegressCSV(t, da, x, y)
		writeRegressCSV(t, db, xa, ya)
		ra, ca, ea := runRegressRun(t, da, p, "--lambda", "1")
		rb, cb, eb := runRegressRun(t, db, p, "--lambda", "1")
		if ca != 0 || cb != 0 {
			if ca != cb || ea != eb || ca != 2 {
				t.Fatalf("%v: exit %d (%s) against %d (%s): a refusal must be a public usage error, the same on both", p, ca, ea, cb, eb)
			}
			refused++
			continue
		}
		rep, err := invariance.Compare(ra, rb)
		if err != nil {
			t.Fatalf("%v: %v", p, err)
		}
		released++
		worst = math.Max(worst, rep.Ratio())
	}
	t.Logf("%d paths released on both datasets, %d refused by the plan on both; largest |Δ released|/calibrated sensitivity %.3g", released, refused, worst)
	if released < 37 {
		t.Fatalf("only %d paths released", released)
	}
}

// Diabetes (raw units, clipped by the bounds): a path and its neighbour with
// the largest row replaced by an extreme one.
func TestRegressAdjacencyDiabetes(t *testing.T) {
	path := shareddata.Path(t, "regression/diabetes.csv")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	cols := len(strings.Split(lines[0], ","))
	ext := make([]string, cols)
	for j := range ext {
		ext[j] = "0"
	}
	ext[0], ext[cols-1] = "1000", "-1000" // outside every range: clamped to a corner
	ranges := filepath.Join("..", "..", "examples", "diabetes", "ranges.json")
	alt := append([]string(nil), lines...)
	alt[1] = strings.Join(ext, ",")
	for _, p := range []regressPath{{"ridge", "projection", "analytic-gaussian"}, {"huber", "program", "laplace"}, {"least-squares", "ssp", "gaussian"},
		{"ridge", "dp-cd", "analytic-gaussian"}, {"monotone", "objective", "analytic-gaussian"}} {
		da, db := filepath.Join(t.TempDir(), "diabetes.csv"), filepath.Join(t.TempDir(), "diabetes.csv")
		if err := os.WriteFile(da, raw, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(db, []byte(strings.Join(alt, "\n")+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		extra := []string{"--target", "target", "--ranges", ranges, "--lambda", "1"}
		ra, ca, ea := runRegressRun(t, da, p, extra...)
		rb, cb, eb := runRegressRun(t, db, p, extra...)
		if ca != 0 || cb != 0 {
			t.Fatalf("%v: exit %d %s / %d %s", p, ca, ea, cb, eb)
		}
		rep, err := invariance.Compare(ra, rb)
		if err != nil {
			t.Fatalf("%v: %v", p, err)
		}
		t.Logf("%v: |Δ released| = %.4g, calibrated sensitivity %.4g", p, rep.Dist, rep.Calibrated)
	}
}
