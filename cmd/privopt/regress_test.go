package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/privopt/privopt/internal/shareddata"
	"github.com/privopt/privopt/learn"
	"github.com/privopt/privopt/ledger"
)

func runRegressCmd(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(context.Background(), append([]string{"regress"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

// The diabetes CSV (raw units: rows have ‖x‖ up to about 400, targets up to
// 346) released as ridge weights: the JSON names every feature column, holds
// the intercept and a certified guarantee whose bound is 2L/(nλ) for the
// declared bounds, and no non-private value.
func TestRegressJSONDiabetes(t *testing.T) {
	path := shareddata.Path(t, "regression/diabetes.csv")
	code, out, errs := runRegressCmd("--data", path, "--target", "target", "--model", "ridge", "--lambda", "1",
		"--epsilon", "1", "--delta", "1e-5", "--x-bound", "400", "--y-bound", "400", "--strategy", "projection", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got regressOutput
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(got.Releases) != 1 || got.Releases[0].Label != "data" {
		t.Fatalf("releases %+v", got.Releases)
	}
	r := got.Releases[0]
	for _, c := range []string{"age", "sex", "bmi", "bp", "s1", "s2", "s3", "s4", "s5", "s6", "(intercept)"} {
		if _, ok := r.ReleasedValue[c]; !ok {
			t.Fatalf("released value lacks column %q: %v", c, r.ReleasedValue)
		}
		if r.Estimate[c] != r.ReleasedValue[c] {
			t.Fatalf("estimate %v differs from the released value %v without --ranges", r.Estimate, r.ReleasedValue)
		}
	}
	if got.Plan.N != 442 || r.Diagnostics != nil {
		t.Fatalf("output %+v", got)
	}
	g := got.Plan.Guarantee
	// X̃ = √(400² + 1), R = 400/√1, L = X̃(400 + X̃·400), bound 2L/442 + 2τ
	// with τ = 10⁻⁶·2L/442 (the default solver accuracy).
	xt := 400.00125
	want := 2 * xt * (400 + xt*400) / 442 * (1 + 2e-6)
	if got.Plan.AccuracyTarget != 1e-6*2*xt*(400+xt*400)/442 && math.Abs(got.Plan.AccuracyTarget/(1e-6*2*xt*(400+xt*400)/442)-1) > 1e-9 {
		t.Fatalf("solver accuracy %v", got.Plan.AccuracyTarget)
	}
	if g.Source != "certified" || g.Certificate == nil || g.Certificate.Method != "erm-strong-convexity" ||
		!(g.Sensitivity > 0.999999*want && g.Sensitivity < 1.000001*want) {
		t.Fatalf("guarantee %+v, want certified bound %v", g, want)
	}
	if !strings.HasPrefix(g.Statement, "(1, 1e-05)-DP; sensitivity") {
		t.Fatalf("statement %q", g.Statement)
	}
}

// The default strategy for squared-loss models is SSP: least squares gets a
// certified guarantee (method ssp-joint-moments, bound from
// learn.SSPSensitivity's closed form, recomputed here); adassp runs too; ssp
// with a non-squared loss is a usage error.
func TestRegressSSPDefault(t *testing.T) {
	path := shareddata.Path(t, "regression/diabetes.csv")
	code, out, errs := runRegressCmd("--data", path, "--target", "target", "--model", "least-squares",
		"--epsilon", "1", "--delta", "1e-5", "--x-bound", "400", "--y-bound", "400", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got regressOutput
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	// Δ₂² = 2X⁴ + 2X² + 2X²Y² + max((1 + Y²)²/2, (1 − Y²)²/2 + 4Y²), X = Y = 400.
	x2 := 400.0 * 400
	q := (1 + x2) * (1 + x2) / 2
	if alt := (1-x2)*(1-x2)/2 + 4*x2; alt > q {
		q = alt
	}
	want := math.Sqrt(2*x2*x2 + 2*x2 + 2*x2*x2 + q)
	g := got.Plan.Guarantee
	if got.Plan.Strategy != "ssp" || g.Source != "certified" || g.Certificate == nil || g.Certificate.Method != "ssp-joint-moments" ||
		math.Abs(g.Sensitivity-want) > 1e-9*want || !strings.HasPrefix(g.Statement, "(1, 1e-05)-DP; sensitivity") {
		t.Fatalf("strategy %q, guarantee %+v, want certified ssp bound %v", got.Plan.Strategy, g, want)
	}
	if code, out, errs := runRegressCmd("--data", path, "--target", "target", "--model", "ridge", "--strategy", "adassp",
		"--epsilon", "1", "--delta", "1e-5", "--x-bound", "400", "--y-bound", "400", "--json"); code != 0 || !strings.Contains(out, "adassp-sufficient-statistics") {
		t.Fatalf("adassp: exit %d: %s %s", code, out, errs)
	}
	if code, _, errs := runRegressCmd("--data", path, "--target", "target", "--model", "huber", "--strategy", "ssp",
		"--epsilon", "1", "--delta", "1e-5"); code != 2 || !strings.Contains(errs, "--model huber") {
		t.Fatalf("ssp with huber: exit %d, %s", code, errs)
	}
}

// Least squares with projection or program has no certificate: refused
// before the data are read (exit 2, even for a file that does not parse
// beyond its header); --diagnostics marks the output private; a bad model
// is a usage error. The default bounds produce a public warning.
func TestRegressRefusalsAndDiagnostics(t *testing.T) {
	path := shareddata.Path(t, "regression/diabetes.csv")
	for _, st := range []string{"projection", "program"} {
		code, _, errs := runRegressCmd("--data", path, "--target", "target", "--model", "least-squares",
			"--epsilon", "2", "--x-bound", "400", "--y-bound", "400", "--strategy", st, "--json")
		if code != 2 || !strings.Contains(errs, "no certified sensitivity") {
			t.Fatalf("%s: exit %d: %s", st, code, errs)
		}
	}
	// The command: monotone program perturbation at ε = 3.7 used to
	// refuse on one dataset with a data value in the message and release on
	// its neighbour. Now the plan refuses it on every dataset of the shape,
	// with the same public message (the tightened set outgrows the noise at
	// n = 442, λ = 0.1).
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	lines[1] = "80,2,45,140,320,250,100,9,6.5,130,0"
	alt := filepath.Join(t.TempDir(), "diabetes.csv")
	if err := os.WriteFile(alt, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var first string
	for i, p := range []string{path, alt} {
		code, _, errs := runRegressCmd("--data", p, "--target", "target", "--model", "monotone", "--strategy", "program",
			"--noise", "analytic-gaussian", "--epsilon", "3.7", "--delta", "1e-5")
		if code != 2 || !strings.Contains(errs, "tightened set grows") || (i == 1 && errs != first) {
			t.Fatalf("%s: exit %d: %s (first: %s)", p, code, errs, first)
		}
		first = errs
	}
	code, out, errs := runRegressCmd("--data", path, "--target", "target", "--model", "ridge",
		"--epsilon", "2", "--strategy", "projection", "--json", "--diagnostics")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got regressOutput
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if d := got.Releases[0].Diagnostics; d == nil || len(d.NonPrivate) != 11 || d.ClippedRows != 442 {
		t.Fatalf("diagnostics %+v", d)
	}
	warned := false
	for _, n := range got.Plan.Notes {
		warned = warned || strings.Contains(n, "default bounds")
	}
	if !warned || strings.Contains(got.Plan.Guarantee.Statement, "sampled") {
		t.Fatalf("plan notes %q, statement %q", got.Plan.Notes, got.Plan.Guarantee.Statement)
	}
	if code, _, _ := runRegressCmd("--data", path, "--target", "target", "--model", "lasso", "--epsilon", "1"); code != 2 {
		t.Fatalf("unknown model: exit %d, want 2", code)
	}
	if code, _, _ := runRegressCmd("--data", path, "--target", "nope", "--model", "ridge", "--epsilon", "1"); code != 2 && code != 1 {
		t.Fatalf("unknown target: exit %d", code)
	}
	if code, _, _ := runRegressCmd("--data", path, "--target", "target", "--model", "ridge", "--epsilon", "-1"); code != 2 {
		t.Fatalf("negative epsilon: exit %d, want 2", code)
	}
}

// --ranges: features and target scaled by declared ranges (wide enough that
// nothing is clamped), released by SSP at ε = 10⁷ (σ ≈ Δ/√(2ε): noise and ridge
// negligible) and converted back: the published weights predict like the
// ordinary least-squares fit in the CSV's units, solved independently here.
// A range file missing a feature column is a usage error naming it.
func TestRegressRanges(t *testing.T) {
	path := shareddata.Path(t, "regression/diabetes.csv")
	ranges := `{"age": [0, 100], "sex": [0, 3], "bmi": [10, 50], "bp": [40, 160], "s1": [80, 320], "s2": [30, 260],
		"s3": [10, 110], "s4": [1, 10], "s5": [3, 7], "s6": [50, 130], "target": [0, 400]}`
	rf := filepath.Join(t.TempDir(), "ranges.json")
	if err := os.WriteFile(rf, []byte(ranges), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runRegressCmd("--data", path, "--target", "target", "--model", "least-squares",
		"--epsilon", "1e7", "--delta", "1e-5", "--ranges", rf, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got regressOutput
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if got.Plan.Ranges == nil || math.Abs(got.Plan.BoundX-math.Sqrt(10)) > 1e-12 || got.Plan.BoundY != 1 {
		t.Fatalf("output %+v", got)
	}
	est := got.Releases[0].Estimate
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	data, names, err := learn.ReadCSV(f, "target")
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	n, d := data.X.Dims()
	a := mat.NewDense(n, d+1, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			a.Set(i, j, data.X.At(i, j))
		}
		a.Set(i, d, 1)
	}
	var ols mat.VecDense
	if err := ols.SolveVec(a, mat.NewVecDense(n, data.Y)); err != nil {
		t.Fatal(err)
	}
	rms := 0.0
	for i := 0; i < n; i++ {
		p, q := est["(intercept)"], ols.AtVec(d)
		for j, nm := range names {
			p += est[nm] * data.X.At(i, j)
			q += ols.AtVec(j) * data.X.At(i, j)
		}
		rms += (p - q) * (p - q)
	}
	rms = math.Sqrt(rms / float64(n))
	t.Logf("RMS difference of predictions from OLS: %.4g", rms)
	if rms > 0.8 { // 1% of the target's standard deviation (77)
		t.Fatalf("predictions differ from OLS by RMS %v", rms)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"age": [0, 100]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runRegressCmd("--data", path, "--target", "target", "--model", "ridge", "--epsilon", "1", "--delta", "1e-5", "--ranges", bad); code != 2 || !strings.Contains(errs, `"sex" has no range`) {
		t.Fatalf("missing range: exit %d, %s", code, errs)
	}
}

// --plan-only prints the release's plan without parsing a value: the same
// plan bytes as a release's JSON, also for a file whose values do not parse
// (the shape is all it reads); it takes no --ledger.
func TestRegressPlanOnly(t *testing.T) {
	path := shareddata.Path(t, "regression/diabetes.csv")
	args := []string{"--data", path, "--target", "target", "--model", "monotone", "--strategy", "program", "--lambda", "1",
		"--epsilon", "3.7", "--delta", "1e-5", "--seed", "2", "--json"}
	code, rel, errs := runRegressCmd(args...)
	if code != 0 {
		t.Fatalf("release: exit %d: %s", code, errs)
	}
	code, plan, errs := runRegressCmd(append(args, "--plan-only")...)
	if code != 0 {
		t.Fatalf("plan: exit %d: %s", code, errs)
	}
	var a, b struct {
		Plan     json.RawMessage   `json:"plan"`
		Releases []json.RawMessage `json:"releases"`
	}
	if err := json.Unmarshal([]byte(rel), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(plan), &b); err != nil {
		t.Fatal(err)
	}
	if string(a.Plan) != string(b.Plan) || len(a.Releases) != 1 || len(b.Releases) != 0 {
		t.Fatalf("plan-only plan differs from the release's:\n%s\n----\n%s", b.Plan, a.Plan)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	for i := 1; i < len(lines); i++ {
		lines[i] = strings.Repeat("x,", 10) + "x"
	}
	garbage := filepath.Join(t.TempDir(), "diabetes.csv")
	if err := os.WriteFile(garbage, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	args[1] = garbage
	code, plan2, errs := runRegressCmd(append(args, "--plan-only")...)
	if code != 0 || plan2 != plan {
		t.Fatalf("plan-only on an unparsable file of the same shape: exit %d %s\n%s", code, errs, plan2)
	}
	if code, _, _ := runRegressCmd(append(args, "--plan-only", "--ledger", "x.db", "--dataset", "d")...); code != 2 {
		t.Fatalf("--plan-only with --ledger: exit %d, want 2", code)
	}
}

// The public rule for malformed rows (learn.CSVRule): after the spend a
// record that does not parse is the row of zeros, never a refusal. For a
// one-shot path, the streamed SSP path and an iterative path, a file with
// malformed records (a text cell, NaN, a short record, a long one) releases
// exactly what the file with those records zeroed releases (same seed),
// with a ledger entry each, and no output or error quotes a cell.
func TestRegressMalformedRowsPublicRule(t *testing.T) {
	dir := t.TempDir()
	var bad, zero strings.Builder
	bad.WriteString("a,b,y\n")
	zero.WriteString("a,b,y\n")
	for i := 0; i < 30; i++ {
		row := fmt.Sprintf("%.3f,%.3f,%.3f\n", math.Sin(float64(i)), math.Cos(float64(i)), math.Sin(float64(2*i)))
		switch i {
		case 3:
			bad.WriteString("0.5,secret-917,1\n")
		case 7:
			bad.WriteString("NaN,0.2,0.1\n")
		case 11:
			bad.WriteString("0.4\n")
		case 13:
			bad.WriteString("0.1,0.2,0.3,0.4\n")
		default:
			bad.WriteString(row)
			zero.WriteString(row)
			continue
		}
		zero.WriteString("0,0,0\n")
	}
	pb, pz := filepath.Join(dir, "bad.csv"), filepath.Join(dir, "zero.csv")
	os.WriteFile(pb, []byte(bad.String()), 0o600)
	os.WriteFile(pz, []byte(zero.String()), 0o600)
	led := filepath.Join(dir, "ledger.db")
	if code, _, errs := runLedgerCmd("init", "--ledger", led, "--dataset", "d", "--epsilon", "100", "--delta", "0.5"); code != 0 {
		t.Fatalf("ledger init: %s", errs)
	}
	for _, args := range [][]string{
		{"--model", "ridge", "--strategy", "projection"},
		{"--model", "ridge", "--strategy", "ssp"},
		{"--model", "logistic", "--strategy", "dp-gd", "--iterations", "5"},
	} {
		var outs [2]string
		for i, p := range []string{pb, pz} {
			code, out, errs := runRegressCmd(append([]string{"--data", p, "--target", "y", "--epsilon", "1", "--delta", "1e-5", "--seed", "9", "--json",
				"--ledger", led, "--dataset", "d"}, args...)...)
			if code != 0 {
				t.Fatalf("%v on %s: exit %d: %s", args, filepath.Base(p), code, errs)
			}
			if strings.Contains(out+errs, "secret") {
				t.Fatalf("%v: output quotes a cell:\n%s%s", args, out, errs)
			}
			outs[i] = strings.ReplaceAll(out, "bad.csv", "zero.csv")
		}
		if outs[0] != outs[1] {
			t.Fatalf("%v: malformed records are not the public zero row:\n%s\n----\n%s", args, outs[0], outs[1])
		}
	}
	l, err := ledger.Open(context.Background(), led, ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	st, err := l.Status(context.Background(), "d")
	if err != nil || len(st.Releases) != 6 {
		t.Fatalf("%d ledger entries (%v), want 6", len(st.Releases), err)
	}
}
