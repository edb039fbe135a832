package main

import (
	"encoding/csv"
	"strings"
	"testing"

	"github.com/privopt/privopt/ledger/pgstore/pgtest"
)

// --ledger takes a postgres:// URL in every command: init, a release that is
// admitted, one that is refused, show (with the composition) and the CSV
// export with the release's case label.
func TestReleaseCommandsSpendThroughPostgres(t *testing.T) {
	url := pgtest.URL(t)
	ds := pgtest.Name("cli")
	if code, out, errs := runCmd(t, "ledger", "init", "--ledger", url, "--dataset", ds, "--epsilon", "1.5"); code != 0 || !strings.Contains(out, "basic composition") {
		t.Fatalf("ledger init: exit %d: %s %s", code, out, errs)
	}
	if code, _, errs := runCmd(t, "ledger", "init", "--ledger", url, "--dataset", ds+"-g", "--epsilon", "1", "--filter", "gdp"); code != 2 || !strings.Contains(errs, "δ > 0") {
		t.Fatalf("gdp filter without δ: exit %d: %s", code, errs)
	}
	opf := []string{"opf", "--case", demoCase, "--query", "cost", "--ledger", url, "--dataset", ds}
	if code, out, errs := runCmd(t, opf...); code != 0 || !strings.Contains(out, "released value") {
		t.Fatalf("first release: exit %d: %s %s", code, out, errs)
	}
	if code, _, errs := runCmd(t, opf...); code != 1 || !strings.Contains(errs, "no noise was drawn") {
		t.Fatalf("second release: exit %d, stderr %q", code, errs)
	}
	code, out, errs := runCmd(t, "ledger", "show", "--ledger", url, "--dataset", ds)
	if code != 0 || !strings.Contains(out, "releases  1") || !strings.Contains(out, "composition basic composition filter") {
		t.Fatalf("ledger show: exit %d: %s %s", code, out, errs)
	}
	code, out, errs = runCmd(t, "ledger", "export", "--ledger", url, "--format", "csv")
	if code != 0 {
		t.Fatalf("export: exit %d: %s", code, errs)
	}
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range rows {
		if r[0] == ds {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("export has %d rows of %s:\n%s", n, ds, out)
	}
}
