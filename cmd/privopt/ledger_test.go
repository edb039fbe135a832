package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/privopt/privopt/accounting"
	"github.com/privopt/privopt/ledger"
)

func runLedgerCmd(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(context.Background(), append([]string{"ledger"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

func TestLedgerCLI(t *testing.T) {
	file := filepath.Join(t.TempDir(), "budget.db")
	if code, _, errs := runLedgerCmd("show", "--ledger", file); code != 1 || !strings.Contains(errs, "does not exist") {
		t.Fatalf("show on a missing file: exit %d, %s", code, errs)
	}
	if code, _, _ := runLedgerCmd("init", "--ledger", file, "--dataset", "grid", "--epsilon", "-1"); code != 2 {
		t.Fatalf("negative epsilon: exit %d", code)
	}
	if code, _, errs := runLedgerCmd("init", "--ledger", file, "--dataset", "grid", "--epsilon", "2", "--delta", "1e-6"); code != 0 {
		t.Fatalf("init: exit %d: %s", code, errs)
	}
	if code, _, errs := runLedgerCmd("init", "--ledger", file, "--dataset", "grid", "--epsilon", "3"); code != 1 || !strings.Contains(errs, "another budget") {
		t.Fatalf("re-init with another budget: exit %d: %s", code, errs)
	}
	// Two spends through the library (what a release command does).
	ctx := context.Background()
	l, err := ledger.Open(ctx, file, ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []float64{0.5, 0.25} {
		if err := l.Spend(ctx, "grid", ledger.Entry{Query: "total cost", Mechanism: "laplace", Cost: accounting.Cost{Epsilon: e, Delta: 1e-7},
			Params: map[string]float64{"scale": 1 / e}, Sensitivity: "1 declared, not verified", Guarantee: "assumed"}); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	code, out, errs := runLedgerCmd("show", "--ledger", file, "--dataset", "grid", "--json")
	if code != 0 {
		t.Fatalf("show: exit %d: %s", code, errs)
	}
	var sts []struct {
		Dataset   string
		Budget    map[string]float64
		Spent     map[string]float64
		Remaining map[string]float64
		Releases  []map[string]any
	}
	if err := json.Unmarshal([]byte(out), &sts); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(sts) != 1 || sts[0].Dataset != "grid" || sts[0].Budget["epsilon"] != 2 || sts[0].Spent["epsilon"] != 0.75 ||
		sts[0].Spent["delta"] != 2e-7 || sts[0].Remaining["epsilon"] != 1.25 || len(sts[0].Releases) != 2 {
		t.Fatalf("show --json: %s", out)
	}
	code, out, _ = runLedgerCmd("audit", "--ledger", file)
	if code != 0 || !strings.Contains(out, "#2") || !strings.Contains(out, "hash chain verified (2 entries)") {
		t.Fatalf("audit: exit %d\n%s", code, out)
	}
	code, out, _ = runLedgerCmd("export", "--ledger", file)
	var ex ledger.Export
	if code != 0 || json.Unmarshal([]byte(out), &ex) != nil || ex.Format != ledger.ExportFormat || len(ex.Datasets[0].Releases) != 2 {
		t.Fatalf("export: exit %d\n%s", code, out)
	}
	// A truncated file: clear error, exit 1, file untouched.
	b, _ := os.ReadFile(file)
	bad := filepath.Join(t.TempDir(), "bad.db")
	os.WriteFile(bad, b[:len(b)/2], 0o644)
	code, _, errs = runLedgerCmd("show", "--ledger", bad)
	if code != 1 || !strings.Contains(errs, "corrupted ledger") {
		t.Fatalf("truncated file: exit %d: %s", code, errs)
	}
	if code, _, _ := runLedgerCmd("frobnicate", "--ledger", file); code != 2 {
		t.Fatalf("unknown sub-command: exit %d", code)
	}
}
