package main

import (
	"github.com/privopt/privopt/internal/invariance"

	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeLogisticCSV writes 40 rows of two features in [−1, 1] and a 0/1
// label.
func writeLogisticCSV(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("a,b,label\n")
	for i := 0; i < 40; i++ {
		a, c := math.Sin(float64(i)), math.Cos(float64(3*i))
		lab := 0
		if a+0.5*c > 0 {
			lab = 1
		}
		fmt.Fprintf(&b, "%.4f,%.4f,%d\n", a, c, lab)
	}
	p := filepath.Join(t.TempDir(), "cls.csv")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// --model l1-logistic defaults to dp-cd: the JSON carries the strategy, the
// requested (ε, δ) for the whole run, T·P = 30·1 steps (3 weights with the
// intercept: P = ⌈3/4⌉ = 1) and the clipped-steps certificate with
// sensitivity 2C/n = 2/40; dp-gd runs T = 30 steps; l1-logistic with a
// one-shot strategy and δ = 0 are usage errors.
func TestRegressIterative(t *testing.T) {
	path := writeLogisticCSV(t)
	code, out, errs := runRegressCmd("--data", path, "--target", "label", "--model", "l1-logistic",
		"--epsilon", "1", "--delta", "1e-5", "--iterations", "30", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got regressOutput
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	g := got.Plan.Guarantee
	if got.Plan.Strategy != "dp-cd" || g.Epsilon != 1 || g.Delta != 1e-5 || g.Certificate == nil ||
		g.Certificate.Method != "clipped-noisy-steps" || g.Certificate.Params["steps"] != 30 ||
		math.Abs(g.Sensitivity-2.0/40) > 1e-15 || len(got.Releases) != 1 || len(got.Releases[0].ReleasedValue) != 3 {
		t.Fatalf("output %+v, guarantee %+v", got, g)
	}
	if err := g.Certificate.Verify(); err != nil {
		t.Fatal(err)
	}
	code, out, errs = runRegressCmd("--data", path, "--target", "label", "--model", "logistic", "--strategy", "dp-gd",
		"--epsilon", "1", "--delta", "1e-5", "--iterations", "30", "--json")
	if code != 0 {
		t.Fatalf("dp-gd: exit %d: %s", code, errs)
	}
	got = regressOutput{}
	if err := json.Unmarshal([]byte(out), &got); err != nil || got.Plan.Guarantee.Certificate.Params["steps"] != 30 {
		t.Fatalf("dp-gd output %v %s", err, out)
	}
	for _, args := range [][]string{
		{"--model", "l1-logistic", "--strategy", "projection", "--delta", "1e-5"},
		{"--model", "l1-logistic", "--strategy", "dp-cd"},
		{"--model", "huber", "--strategy", "dp-gd", "--delta", "1e-5"},
	} {
		code, _, errs := runRegressCmd(append([]string{"--data", path, "--target", "label", "--epsilon", "1"}, args...)...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (usage): %s", args, code, errs)
		}
	}
}

// Adjacency invariance: two CSVs differing in one row give JSON outputs
// that differ only in the released weights and intercept (everything else
// — guarantee, certificate, noise multiplier, bounds, n — is computed from
// public inputs).
func TestRegressIterativeAdjacentInvariance(t *testing.T) {
	path := writeLogisticCSV(t)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	lines[5] = "0.9000,-0.9000,0"
	path2 := filepath.Join(t.TempDir(), "adjacent.csv")
	if err := os.WriteFile(path2, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := func(p string) string {
		code, out, errs := runRegressCmd("--data", p, "--target", "label", "--model", "l1-logistic",
			"--epsilon", "1", "--delta", "1e-5", "--iterations", "10", "--json")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		return out
	}
	a, c := out(path), out(path2)
	if d, err := invariance.DiffJSON([]byte(a), []byte(c), "released_value", "estimate"); err != nil || len(d) > 0 {
		t.Fatalf("outputs of adjacent datasets differ beyond the weights: %v %v", d, err)
	}
}
