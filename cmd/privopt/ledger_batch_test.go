package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/privopt/privopt/accounting"
	"github.com/privopt/privopt/internal/invariance"
)

// writeHourlyLoads writes a LOADS.csv of demo6 with k columns h000… (the
// case's loads times a daily shape 0.9 … 1.1).
func writeHourlyLoads(t *testing.T, path string, k int) {
	net, _, _ := caseFile(t, demoCase)
	labels, cols := make([]string, k), make([][]float64, k)
	for h := range cols {
		labels[h] = fmt.Sprintf("h%03d", h)
		for _, d := range net.Load {
			cols[h] = append(cols[h], d*(0.9+0.2*float64(h%24)/24))
		}
	}
	if err := invariance.WriteLoadsCSV(path, net, labels, cols); err != nil {
		t.Fatal(err)
	}
}

// `privopt opf --loads` with 24 columns on a dataset under the PLD-batch
// composition spends the batch's PLD cost in one ledger transaction (the
// ledger's spent is exactly the batch charge of 24 releases of the plan's ε,
// below 24ε); `ledger audit` states the composition on every line; the next
// day does not fit and exits 1 with nothing spent. The same day on a basic
// dataset spends 24 separate releases.
func TestOPFBatchSpend(t *testing.T) {
	dir := t.TempDir()
	file, loads := filepath.Join(dir, "budget.db"), filepath.Join(dir, "loads.csv")
	writeHourlyLoads(t, loads, 24)
	for _, c := range [][]string{
		{"--dataset", "day", "--epsilon", "3", "--delta", "1e-6", "--filter", "pld-batch(delta=1e-7)"},
		{"--dataset", "basic", "--epsilon", "3", "--delta", "1e-6"},
	} {
		if code, _, errs := runLedgerCmd(append([]string{"init", "--ledger", file}, c...)...); code != 0 {
			t.Fatalf("init %v: exit %d: %s", c, code, errs)
		}
	}
	opf := func(ds string) (int, string, string) {
		var out, errb bytes.Buffer
		code := run(context.Background(), []string{"opf", "--case", demoCase, "--query", "cost",
			"--epsilon", "0.1", "--loads", loads, "--ledger", file, "--dataset", ds, "--json"}, &out, &errb)
		return code, out.String(), errb.String()
	}
	code, stdout, errs := opf("day")
	if code != 0 {
		t.Fatalf("opf: exit %d: %s", code, errs)
	}
	var out struct {
		Plan struct {
			Epsilon float64 `json:"epsilon"`
		} `json:"plan"`
		Releases []json.RawMessage `json:"releases"`
		Batch    *struct {
			Releases    int             `json:"releases"`
			Cost        accounting.Cost `json:"cost"`
			Composition string          `json:"composition"`
		} `json:"batch"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatal(err)
	}
	want, _, err := accounting.PLDBatchFilter{Delta: 1e-7}.BatchCharge(accounting.Charge{Cost: accounting.Cost{Epsilon: out.Plan.Epsilon}}, 24)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Releases) != 24 || out.Batch == nil || out.Batch.Releases != 24 || out.Batch.Cost != want || !(want.Epsilon < 24*out.Plan.Epsilon) {
		t.Fatalf("batch %+v for %d releases, want the charge %+v < %g", out.Batch, len(out.Releases), want, 24*out.Plan.Epsilon)
	}
	_, show, _ := runLedgerCmd("show", "--ledger", file, "--json")
	var st []struct {
		Dataset string          `json:"dataset"`
		Spent   accounting.Cost `json:"spent"`
		Count   int             `json:"count"`
	}
	if err := json.Unmarshal([]byte(show), &st); err != nil {
		t.Fatal(err)
	}
	for _, s := range st {
		if s.Dataset == "day" && (s.Spent != want || s.Count != 24) {
			t.Errorf("ledger show: %+v, want spent %+v over 24 entries", s, want)
		}
	}
	_, audit, _ := runLedgerCmd("audit", "--ledger", file, "--dataset", "day")
	if n := strings.Count(audit, "PLD composition"); n < 24 {
		t.Errorf("the audit states the PLD composition on %d lines, want ≥ 24:\n%s", n, audit)
	}
	if code, _, errs := opf("day"); code != 1 || !strings.Contains(errs, "budget") {
		t.Errorf("second day: exit %d: %s", code, errs)
	}
	// Basic dataset: 24 separate spends, 24ε > the batch charge.
	if code, _, errs := opf("basic"); code != 0 {
		t.Fatalf("opf basic: exit %d: %s", code, errs)
	}
	_, show, _ = runLedgerCmd("show", "--ledger", file, "--json")
	if err := json.Unmarshal([]byte(show), &st); err != nil {
		t.Fatal(err)
	}
	for _, s := range st {
		if s.Dataset == "basic" && (s.Count != 24 || !(s.Spent.Epsilon > want.Epsilon)) {
			t.Errorf("basic dataset %+v", s)
		}
		if s.Dataset == "day" && s.Count != 24 {
			t.Errorf("the refused second day spent: %+v", s)
		}
	}
}

// A Gaussian OPF release (discrete Gaussian noise) on a dataset under the
// Gaussian-DP filter is refused with the reason (exit 1, nothing recorded,
// no value printed); under the RDP filter it is admitted and recorded with
// its discrete-gaussian curve.
func TestOPFDiscreteGaussianFilters(t *testing.T) {
	file := filepath.Join(t.TempDir(), "budget.db")
	for _, c := range [][]string{
		{"--dataset", "g", "--epsilon", "2", "--delta", "1e-6", "--filter", "gdp"},
		{"--dataset", "r", "--epsilon", "4", "--delta", "1e-6", "--filter", "rdp(alpha=16)"},
	} {
		if code, _, errs := runLedgerCmd(append([]string{"init", "--ledger", file}, c...)...); code != 0 {
			t.Fatalf("init %v: exit %d: %s", c, code, errs)
		}
	}
	opf := func(ds string) (int, string, string) {
		var out, errb bytes.Buffer
		code := run(context.Background(), []string{"opf", "--case", demoCase, "--query", "cost",
			"--epsilon", "1", "--delta", "1e-7", "--noise", "analytic-gaussian", "--ledger", file, "--dataset", ds}, &out, &errb)
		return code, out.String(), errb.String()
	}
	if code, out, errs := opf("g"); code != 1 || !strings.Contains(errs, "discrete Gaussian") || strings.Contains(out, "\ncase ") {
		t.Errorf("gdp dataset: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if code, _, errs := opf("r"); code != 0 {
		t.Fatalf("rdp dataset: exit %d: %s", code, errs)
	}
	_, audit, _ := runLedgerCmd("show", "--ledger", file, "--json")
	var st []struct {
		Dataset  string `json:"dataset"`
		Count    int    `json:"count"`
		Releases []struct {
			Curve *accounting.Curve `json:"curve"`
		} `json:"releases"`
	}
	if err := json.Unmarshal([]byte(audit), &st); err != nil {
		t.Fatal(err)
	}
	for _, s := range st {
		switch s.Dataset {
		case "g":
			if s.Count != 0 {
				t.Errorf("the refused release was recorded on g: %+v", s)
			}
		case "r":
			if s.Count != 1 || s.Releases[0].Curve == nil || s.Releases[0].Curve.Kind != accounting.CurveDiscreteGaussian {
				t.Errorf("rdp dataset: %+v", s)
			}
		}
	}
}
