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
	var got struct {
		Plan     map[string]any   `json:"plan"`
		Releases []map[string]any `json:"releases"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"guarantee", "epsilon", "delta", "sensitivity", "sensitivity_provenance", "certificate", "method", "noise", "noise_std",
		"release_grid", "released_noise_rms_bound", "offset", "noise_interval", "accuracy_target", "domain", "price_cap", "notes", "chance_seed"} {
		if _, ok := got.Plan[k]; !ok {
			t.Errorf("plan field %q missing", k)
		}
	}
	if len(got.Releases) != 1 || got.Releases[0]["label"] != "case" {
		t.Fatalf("releases %v: want one labelled case", got.Releases)
	}
	r := got.Releases[0]
	if len(r) != 3 {
		t.Errorf("release %v: want exactly label, released_value, estimate", r)
	}
	off := got.Plan["offset"].(float64)
	if math.Abs(r["released_value"].(float64)-off-r["estimate"].(float64)) > 1e-9*math.Abs(off) {
		t.Errorf("estimate %v ≠ released %v − offset %v", r["estimate"], r["released_value"], off)
	}
	if g := got.Plan["grid"]; g != nil {
		t.Errorf("unexpected field grid %v", g)
	}
	if step := got.Plan["release_grid"].(float64); step <= 0 || math.Mod(r["released_value"].(float64), step) != 0 {
		t.Errorf("released value %v not on the published grid %v", r["released_value"], step)
	}
	if got.Plan["sensitivity_provenance"] != "certified" || got.Plan["method"] != "vertex" || got.Plan["noise"] != "laplace" {
		t.Errorf("provenance %v method %v noise %v", got.Plan["sensitivity_provenance"], got.Plan["method"], got.Plan["noise"])
	}
	// Without a domain: the price-cap bound, backstops at every bus.
	cert := got.Plan["certificate"].(map[string]any)
	if cert["method"] != "opf-price-cap" {
		t.Errorf("certificate without a domain: %v", cert["method"])
	}
	// With --diagnostics the private values come in their own labelled objects.
	code, out, errs = runCmd(t, "opf", "--case", demoCase, "--dc-model", "matpower", "--query", "cost", "--seed", "4", "--json",
		"--diagnostics", "--evaluate", "300", "--input-n", "20")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var dg struct {
		Releases []struct {
			Diag map[string]any `json:"private_diagnostics"`
		} `json:"releases"`
		Eval map[string]any `json:"private_evaluation"`
	}
	if err := json.Unmarshal([]byte(out), &dg); err != nil {
		t.Fatal(err)
	}
	d := dg.Releases[0].Diag
	if d == nil || !strings.Contains(d["warning"].(string), "PRIVATE") {
		t.Fatalf("private_diagnostics %v", d)
	}
	for _, k := range []string{"statistic", "clamped_buses", "solves", "seconds"} {
		if _, ok := d[k]; !ok {
			t.Errorf("private_diagnostics.%s missing", k)
		}
	}
	ev := dg.Eval["strategies"].(map[string]any)
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
	pub, loads, err := opfrelease.Split(net)
	if err != nil {
		t.Fatal(err)
	}
	opt := opfrelease.DefaultOptions()
	opt.ChanceSeed = 5
	plan, err := opfrelease.NewPlan(context.Background(), pub, opt)
	if err != nil {
		t.Fatal(err)
	}
	pr, err := plan.Solve(context.Background(), loads)
	if err != nil {
		t.Fatal(err)
	}
	d, err := pr.Diagnostics(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var total float64
	for _, v := range loads.Values() {
		total += v
	}
	secrets := []string{fmt.Sprintf("%.2f", d.NominalCost), fmt.Sprintf("%.2f", d.ExpectedValue), fmt.Sprintf("%.2f", d.ExpectedCost),
		strconv.FormatFloat(d.NominalCost, 'g', -1, 64), strconv.FormatFloat(d.ExpectedValue, 'g', -1, 64),
		fmt.Sprintf("total load %.1f", total), fmt.Sprintf("%.6g MW]", total)}
	runs := [][]string{
		{"opf", "--case", demoCase, "--query", "cost", "--seed", "5"},
		{"opf", "--case", demoCase, "--query", "cost", "--seed", "5", "--json"},
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
		{"--band", "-1"}, {"--price-cap", "0"}, {"--price-floor", "5"}, {"--noise", "cauchy"}, {"--method", "scenario"}} {
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
	// The public domain: ±10% around the (published) congested profile.
	net, pub, refMW := caseFile(t, path)
	loads, err := opfrelease.NewLoads(pub, refMW)
	if err != nil {
		t.Fatal(err)
	}
	ref := filepath.Join(t.TempDir(), "ref.csv")
	var b strings.Builder
	b.WriteString("bus,mw\n")
	for i, v := range loads.Values() {
		fmt.Fprintf(&b, "%d,%v\n", net.BusID[i], v)
	}
	if err := os.WriteFile(ref, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCmd(t, "opf", "--case", path, "--reference", ref, "--band", "0.1", "--query", "cost", "--seed", "3", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got struct {
		Plan struct {
			Sensitivity float64 `json:"sensitivity"`
			Provenance  string  `json:"sensitivity_provenance"`
			Guarantee   string  `json:"guarantee"`
		} `json:"plan"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	// The true shift, from the same plan's program on the two adjacent load vectors.
	dom, _ := grid.ReferenceBand(loads.Values(), 0.1)
	opt := opfrelease.DefaultOptions()
	opt.Domain, opt.ChanceSeed = &dom, 3
	plan, err := opfrelease.NewPlan(context.Background(), pub, opt)
	if err != nil {
		t.Fatal(err)
	}
	pr, err := plan.Solve(context.Background(), loads)
	if err != nil {
		t.Fatal(err)
	}
	v0, err := pr.ReleasedMeanAt(context.Background(), loads)
	if err != nil {
		t.Fatal(err)
	}
	d := loads.Values()
	d[net.BusIndex[42]]++
	l1, _ := opfrelease.NewLoads(pub, d)
	v1, err := pr.ReleasedMeanAt(context.Background(), l1)
	if err != nil {
		t.Fatal(err)
	}
	shift := math.Abs(v1 - v0)
	g := got.Plan
	t.Logf("CLI: sensitivity %.4g (%s); true shift at bus 42 +1 MW: %.2f", g.Sensitivity, g.Provenance, shift)
	if g.Provenance != "certified" || g.Sensitivity < shift || shift < 300 || !strings.HasPrefix(g.Guarantee, "(1") {
		t.Errorf("sensitivity %v (%s), shift %v, guarantee %q", g.Sensitivity, g.Provenance, shift, g.Guarantee)
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

func TestVersion(t *testing.T) {
	code, out, _ := runCmd(t, "--version")
	if code != 0 || !strings.HasPrefix(out, "privopt "+Version) || !strings.Contains(out, "go1.") {
		t.Errorf("--version: exit %d, %q", code, out)
	}
}

// --max-memory: a guard below the plan's estimate is a plan-time usage
// error (exit 2), identical for two adjacent private load files (one bus
// +α), so it reveals nothing about them; a guard above it releases, and
// --progress prints the midpoint solve's cut rounds on stderr.
func TestOPFMemoryGuard(t *testing.T) {
	c, err := grid.ReadCase(demoCase)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var files []string
	for k, bump := range []float64{0, 1} {
		var b strings.Builder
		b.WriteString("bus,h1\n")
		for i, bus := range c.Buses {
			d := bus.Pd
			if i == 1 {
				d += bump
			}
			fmt.Fprintf(&b, "%d,%g\n", bus.ID, d)
		}
		files = append(files, filepath.Join(dir, fmt.Sprintf("loads%d.csv", k)))
		if err := os.WriteFile(files[k], []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var refusals []string
	for _, f := range files {
		code, out, errs := runCmd(t, "opf", "--case", demoCase, "--query", "cost", "--n-1", "--seed", "2", "--max-memory", "1MiB", "--loads", f)
		if code != 2 || out != "" || !strings.Contains(errs, "N-1 memory guard") || !strings.Contains(errs, "above the guard 1.00 MiB") {
			t.Fatalf("guard 1 MiB: exit %d, stdout %q, stderr %q", code, out, errs)
		}
		refusals = append(refusals, errs)
	}
	if refusals[0] != refusals[1] {
		t.Fatalf("adjacent loads give different refusals:\n%s\n%s", refusals[0], refusals[1])
	}
	code, out, errs := runCmd(t, "opf", "--case", demoCase, "--query", "cost", "--n-1", "--seed", "2", "--max-memory", "2GB", "--progress", "--loads", files[0])
	if code != 0 || !strings.Contains(out, "N-1 memory        estimated peak") || !strings.Contains(errs, "privopt opf: N-1 plan (public midpoint solve): done:") {
		t.Fatalf("guard 2 GB: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if strings.Count(errs, "\n") != strings.Count(errs, "privopt opf: N-1 plan") {
		t.Fatalf("stderr holds lines other than the plan's progress: %q", errs)
	}
	for _, bad := range [][]string{{"--n-1", "--max-memory", "5x"}, {"--n-1", "--max-memory", "-1"}, {"--max-memory", "1GB"}} {
		args := append([]string{"opf", "--case", demoCase, "--query", "cost"}, bad...)
		if code, _, errs := runCmd(t, args...); code != 2 || !strings.Contains(errs, "--max-memory") {
			t.Errorf("%v: exit %d (want 2), stderr %q", bad, code, errs)
		}
	}
}

func TestParseBytes(t *testing.T) {
	for s, want := range map[string]int64{"0": 0, "123": 123, "2GB": 2e9, "512MiB": 512 << 20, "1.5 KiB": 1536, "7B": 7} {
		if got, err := parseBytes(s); err != nil || got != want {
			t.Errorf("parseBytes(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"", "-1", "GB", "1TB", "NaN"} {
		if _, err := parseBytes(s); err == nil {
			t.Errorf("parseBytes(%q) accepted", s)
		}
	}
}
