package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	code, out, errs := runCmd(t, "opf", "--case", demoCase, "--dc-model", "matpower", "--query", "cost", "--alpha", "1",
		"--evaluate", "500", "--input-n", "20", "--seed", "4", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"nominal_cost", "released_cost", "mean_cost", "epsilon", "delta", "sensitivity", "method", "noise", "time", "evaluation"} {
		if _, ok := got[k]; !ok {
			t.Errorf("field %q missing", k)
		}
	}
	if got["sensitivity"].(float64) != 50 || got["method"] != "vertex" || got["noise"] != "laplace" {
		t.Errorf("sensitivity %v method %v noise %v", got["sensitivity"], got["method"], got["noise"])
	}
	ev := got["evaluation"].(map[string]any)
	for _, s := range []string{"program", "input", "output"} {
		st := ev[s].(map[string]any)
		for _, k := range []string{"loss_pct", "infeasible_pct", "cvar_pct"} {
			if _, ok := st[k]; !ok {
				t.Errorf("evaluation.%s.%s missing", s, k)
			}
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
	// α = 20 MW: the noise interval is far wider than the generators' range.
	code, _, errs := runCmd(t, "opf", "--case", demoCase, "--query", "cost", "--alpha", "20", "--noise", "truncated-laplace", "--delta", "1e-4", "--method", "robust")
	if code != 1 || !strings.Contains(errs, "infeasible") || !strings.Contains(errs, "hint") {
		t.Errorf("infeasible private program: exit %d, stderr %q", code, errs)
	}
}

func TestDemoRuns(t *testing.T) {
	code, out, errs := runCmd(t, "demo", "--evaluate", "200", "--seed", "1")
	if code != 0 || !strings.Contains(out, "program") || !strings.Contains(out, "7060.66") {
		t.Errorf("exit %d, stderr %q, out %q", code, errs, out)
	}
}

func TestOPFPlot(t *testing.T) {
	path := filepath.Join(t.TempDir(), "densities.svg")
	code, _, errs := runCmd(t, "opf", "--case", demoCase, "--query", "cost", "--alpha", "1", "--seed", "2", "--plot", path)
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
}
