package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/privopt/privopt/grid"
	"github.com/privopt/privopt/internal/shareddata"
	"github.com/privopt/privopt/opfrelease"
)

// demoCase is the six-bus network bundled with package grid; its nominal cost
// 7060.66 $/h is checked against LMPs in grid's example.
var demoCase = filepath.Join("..", "..", "grid", "cases", "demo6.m")

func TestOPFNominalJSON(t *testing.T) {
	code, out, errs := runCmd(t, "opf", "--case", demoCase, "--nominal", "--dc-model", "matpower", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got struct {
		Status      string  `json:"status"`
		NominalCost float64 `json:"nominal_cost"`
		Dispatch    []struct {
			P float64 `json:"p_mw"`
		} `json:"dispatch"`
		LMP []struct {
			Bus int     `json:"bus"`
			LMP float64 `json:"lmp"`
		} `json:"lmp"`
		Time map[string]float64 `json:"time"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if got.Status != "optimal" || math.Abs(got.NominalCost-7060.66) > 0.01 || len(got.Dispatch) != 4 || len(got.LMP) != 6 {
		t.Errorf("%+v", got)
	}
	// Cost of the dispatch at the file's linear costs 12, 20, 35, 50 $/MWh.
	var cost float64
	for g, c := range []float64{12, 20, 35, 50} {
		cost += c * got.Dispatch[g].P
	}
	if math.Abs(cost-got.NominalCost) > 1e-6*cost {
		t.Errorf("dispatch cost %v vs nominal_cost %v", cost, got.NominalCost)
	}
	for _, k := range []string{"parse", "build", "solve", "total"} {
		if _, ok := got.Time[k]; !ok {
			t.Errorf("time.%s missing", k)
		}
	}
}

func TestOPFPrivateJSON(t *testing.T) {
	code, out, errs := runCmd(t, "opf", "--case", demoCase, "--dc-model", "matpower", "--query", "cost", "--alpha", "1", "--seed", "4", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"released_value", "guarantee", "epsilon", "delta", "sensitivity", "sensitivity_provenance", "certificate", "method", "noise", "noise_std", "load_band", "price_cap", "substitutions"} {
		if _, ok := got[k]; !ok {
			t.Errorf("field %q missing", k)
		}
	}
	// Timings depend on the loads (lazy rounds): private too.
	for _, k := range []string{"nominal_cost", "mean_cost", "expected_cost", "feasible", "private_diagnostics", "evaluation", "time"} {
		if _, ok := got[k]; ok {
			t.Errorf("field %q (a private value) present without --diagnostics", k)
		}
	}
	if got["sensitivity_provenance"] != "certified" || got["method"] != "vertex" || got["noise"] != "laplace" {
		t.Errorf("provenance %v method %v noise %v", got["sensitivity_provenance"], got["method"], got["noise"])
	}
	if g := got["guarantee"].(string); !strings.Contains(g, "certified") {
		t.Errorf("guarantee %q", g)
	}
	cert := got["certificate"].(map[string]any)
	if cert["method"] != "opf-price-cap" && cert["method"] != "opf-uncongested-merit-order" {
		t.Errorf("certificate %v", cert)
	}
	// With --diagnostics the private values come in their own labelled object.
	code, out, errs = runCmd(t, "opf", "--case", demoCase, "--dc-model", "matpower", "--query", "cost", "--seed", "4", "--json",
		"--diagnostics", "--evaluate", "300", "--input-n", "20")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	got = map[string]any{}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	d, ok := got["private_diagnostics"].(map[string]any)
	if !ok || !strings.Contains(d["warning"].(string), "PRIVATE") {
		t.Fatalf("private_diagnostics %v", got["private_diagnostics"])
	}
	if _, ok := d["time"].(map[string]any); !ok {
		t.Errorf("private_diagnostics.time missing: %v", d)
	}
	if math.Abs(d["nominal_cost"].(float64)-7060.66) > 0.01 {
		t.Errorf("nominal cost %v, want 7060.66", d["nominal_cost"])
	}
	ev := d["evaluation"].(map[string]any)
	for _, s := range []string{"program", "input", "output"} {
		st := ev[s].(map[string]any)
		for _, k := range []string{"loss_pct", "infeasible_pct", "cvar_pct"} {
			if _, ok := st[k]; !ok {
				t.Errorf("evaluation.%s.%s missing", s, k)
			}
		}
	}
}

// The privacy boundary: without --diagnostics, neither `opf --query` (text
// and JSON) nor `demo` prints a pre-noise value — the nominal cost, the
// expected cost or the pre-noise statistic (all three computed here from the
// same case and seed, to the printed precision) — nor words that announce one.
func TestPrivacyBoundary(t *testing.T) {
	c, err := grid.ReadCase(demoCase)
	if err != nil {
		t.Fatal(err)
	}
	net, err := grid.NewNetwork(c, grid.DCOptions{})
	if err != nil {
		t.Fatal(err)
	}
	opt := opfrelease.DefaultOptions()
	opt.ChanceSeed = 5
	pr, err := opfrelease.Prepare(context.Background(), net, opt)
	if err != nil {
		t.Fatal(err)
	}
	d, err := pr.Diagnostics(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	secrets := []string{fmt.Sprintf("%.2f", d.NominalCost), fmt.Sprintf("%.2f", d.ExpectedValue), fmt.Sprintf("%.2f", d.ExpectedCost),
		strconv.FormatFloat(d.NominalCost, 'g', -1, 64), strconv.FormatFloat(d.ExpectedValue, 'g', -1, 64)}
	runs := [][]string{
		{"opf", "--case", demoCase, "--dc-model", "matpower", "--query", "cost", "--seed", "5"},
		{"opf", "--case", demoCase, "--dc-model", "matpower", "--query", "cost", "--seed", "5", "--json"},
	}
	for _, args := range runs {
		code, out, errs := runCmd(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		for _, sec := range secrets {
			if strings.Contains(out, sec) {
				t.Errorf("%v prints the private value %s:\n%s", args, sec, out)
			}
		}
		for _, w := range []string{"nominal", "expected", "pre-noise", "feasible:"} {
			if strings.Contains(strings.ToLower(out), w) {
				t.Errorf("%v output mentions %q without --diagnostics:\n%s", args, w, out)
			}
		}
	}
	code, out, errs := runCmd(t, "demo", "--seed", "5")
	if code != 0 {
		t.Fatalf("demo: exit %d: %s", code, errs)
	}
	for _, w := range []string{"7060.66", "nominal", "expected", "loss"} {
		if strings.Contains(strings.ToLower(out), w) {
			t.Errorf("demo output mentions %q without --diagnostics:\n%s", w, out)
		}
	}
}

func TestOPFExitCodes(t *testing.T) {
	if code, _, _ := runCmd(t, "opf", "--nominal"); code != 2 {
		t.Errorf("missing --case: exit %d, want 2", code)
	}
	if code, _, _ := runCmd(t, "opf", "--case", demoCase, "--query", "costs"); code != 2 {
		t.Errorf("bad query: exit %d, want 2", code)
	}
	if code, _, errs := runCmd(t, "opf", "--case", filepath.Join("..", "..", "grid", "testdata", "bad", "gen_columns.m")); code != 1 || !strings.Contains(errs, "gen row 3") {
		t.Errorf("malformed case: exit %d, stderr %q", code, errs)
	}
	for _, bad := range [][]string{{"--eta", "0"}, {"--beta", "0"}, {"--eta", "1.5"}, {"--evaluate", "-3"}, {"--evaluate", "10"}, {"--plot", "x.svg"},
		{"--load-band", "-1"}, {"--price-cap", "0"}, {"--price-floor", "5"}, {"--noise", "cauchy"}, {"--method", "scenario"}} {
		args := append([]string{"opf", "--case", demoCase, "--query", "cost"}, bad...)
		code, _, errs := runCmd(t, args...)
		if code != 2 || !strings.Contains(errs, bad[0]) {
			t.Errorf("%v: exit %d (want 2), stderr %q", bad, code, errs)
		}
	}
	if code, _, errs := runCmd(t, "opf", "--case", demoCase, "--query", "gen-subset:1,2"); code != 1 || !strings.Contains(errs, "declare") {
		t.Errorf("gen-subset without a declared sensitivity: exit %d, stderr %q", code, errs)
	}
	// No data-dependent abort: α = 20 MW with bounded noise (its support far
	// wider than the generators' range) still releases, thanks to the market
	// rules.
	if code, _, errs := runCmd(t, "opf", "--case", demoCase, "--query", "cost", "--alpha", "20", "--noise", "truncated-laplace", "--delta", "1e-4", "--method", "robust", "--seed", "3"); code != 0 {
		t.Errorf("wide noise: exit %d, stderr %q", code, errs)
	}
}

func TestDemoRuns(t *testing.T) {
	code, out, errs := runCmd(t, "demo", "--seed", "1")
	if code != 0 || !strings.Contains(out, "released cost") || !strings.Contains(out, "certified") {
		t.Errorf("exit %d, stderr %q, out %q", code, errs, out)
	}
	code, out, errs = runCmd(t, "demo", "--seed", "1", "--diagnostics", "--evaluate", "200")
	if code != 0 || !strings.Contains(out, "PRIVATE DIAGNOSTICS") || !strings.Contains(out, "program") {
		t.Errorf("exit %d, stderr %q, out %q", code, errs, out)
	}
}

func TestOPFPlot(t *testing.T) {
	path := filepath.Join(t.TempDir(), "densities.svg")
	code, _, errs := runCmd(t, "opf", "--case", demoCase, "--query", "cost", "--alpha", "1", "--seed", "2", "--diagnostics", "--plot", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(b); !strings.HasPrefix(s, "<svg") || strings.Count(s, "<path") != 3 {
		t.Errorf("plot: %d paths", strings.Count(s, "<path"))
	}
	if code, _, _ := runCmd(t, "opf", "--case", demoCase, "--query", "cost", "--diagnostics", "--plot", filepath.Join(t.TempDir(), "no", "such", "dir.svg")); code != 2 {
		t.Errorf("unwritable --plot: exit %d, want 2 before any work", code)
	}
}

// The congested 118_ieee configuration of the issue (loads ×1.336), run
// through `privopt opf --query cost`: the certified sensitivity covers the
// true shift of the released statistic when bus 42's load grows by 1 MW
// (370.8 $/h = 2.98·c_max), which c_max·α = 124.6 would not.
func TestOPFCongested118CLI(t *testing.T) {
	c, err := grid.ReadCase(shareddata.Path(t, "pglib/pglib_opf_case118_ieee.m"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range c.Buses {
		c.Buses[i].Pd *= 1.336
	}
	path := filepath.Join(t.TempDir(), "case118_congested.json")
	fh, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := grid.WritePMJSON(fh, c); err != nil {
		t.Fatal(err)
	}
	fh.Close()
	code, out, errs := runCmd(t, "opf", "--case", path, "--query", "cost", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got struct {
		Sensitivity float64 `json:"sensitivity"`
		Provenance  string  `json:"sensitivity_provenance"`
		Guarantee   string  `json:"guarantee"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	// The true shift, from the same program on the two adjacent load vectors.
	c2, err := grid.ReadCase(path)
	if err != nil {
		t.Fatal(err)
	}
	net, err := grid.NewNetwork(c2, grid.PowerModelsDC())
	if err != nil {
		t.Fatal(err)
	}
	pr, err := opfrelease.Prepare(context.Background(), net, opfrelease.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	d := append([]float64(nil), net.Load...)
	v0, err := pr.ReleasedMeanAt(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	d[net.BusIndex[42]]++
	v1, err := pr.ReleasedMeanAt(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	shift := math.Abs(v1 - v0)
	t.Logf("CLI: sensitivity %.4g (%s); true shift at bus 42 +1 MW: %.2f", got.Sensitivity, got.Provenance, shift)
	if got.Provenance != "certified" || got.Sensitivity < shift || shift < 300 || !strings.HasPrefix(got.Guarantee, "(1") {
		t.Errorf("sensitivity %v (%s), shift %v, guarantee %q", got.Sensitivity, got.Provenance, shift, got.Guarantee)
	}
}

func TestOPFSecureRelease(t *testing.T) {
	code, out, errs := runCmd(t, "opf", "--case", demoCase, "--query", "cost", "--n-1", "--post-factor", "1.2", "--seed", "2")
	if code != 0 || !strings.Contains(out, "N-1 security:") || !strings.Contains(out, "certified by opf-price-cap") {
		t.Errorf("exit %d, stderr %q, out %q", code, errs, out)
	}
	if code, _, errs := runCmd(t, "opf", "--case", demoCase, "--query", "cost", "--n-1", "--post-factor", "0"); code != 2 || !strings.Contains(errs, "--post-factor") {
		t.Errorf("--post-factor 0: exit %d, stderr %q", code, errs)
	}
}
