package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// A release command with --ledger spends against the dataset's budget before
// drawing noise; the release that would exceed the budget exits 1 naming the
// budget and what is left, and nothing more is recorded.
func TestReleaseCommandsSpendThroughLedger(t *testing.T) {
	file := filepath.Join(t.TempDir(), "budget.db")
	if code, _, errs := runCmd(t, "ledger", "init", "--ledger", file, "--dataset", "grid", "--epsilon", "1.5"); code != 0 {
		t.Fatalf("ledger init: exit %d: %s", code, errs)
	}
	opf := []string{"opf", "--case", demoCase, "--query", "cost", "--ledger", file, "--dataset", "grid"}
	if code, out, errs := runCmd(t, opf...); code != 0 || !strings.Contains(out, "released value") {
		t.Fatalf("first release: exit %d: %s %s", code, out, errs)
	}
	code, _, errs := runCmd(t, opf...)
	if code != 1 || !strings.Contains(errs, "budget") || !strings.Contains(errs, "no noise was drawn") {
		t.Fatalf("second release (ε ≈ 1 more against 0.5 left): exit %d, stderr %q", code, errs)
	}
	code, out, errs := runCmd(t, "ledger", "show", "--ledger", file, "--dataset", "grid", "--json")
	if code != 0 {
		t.Fatalf("ledger show: exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "certified") || strings.Count(out, `"guarantee"`) != 1 {
		t.Errorf("ledger after one admitted release:\n%s", out)
	}
	var any0 any
	if err := json.Unmarshal([]byte(out), &any0); err != nil {
		t.Errorf("ledger show --json: %v", err)
	}
	if code, _, errs := runCmd(t, "opf", "--case", demoCase, "--query", "cost", "--ledger", file); code != 2 || !strings.Contains(errs, "--dataset") {
		t.Errorf("--ledger without --dataset: exit %d, stderr %q", code, errs)
	}
	if code, _, _ := runCmd(t, "opf", "--case", demoCase, "--query", "cost", "--ledger", file+".typo", "--dataset", "grid"); code != 1 {
		t.Errorf("a missing ledger file: exit %d, want 1 (never a fresh budget)", code)
	}
}
