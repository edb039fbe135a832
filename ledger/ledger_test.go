package ledger

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/privopt/privopt/accounting"
)

func openTemp(t *testing.T) (*Ledger, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "budget.db")
	l, err := Open(context.Background(), path, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l, path
}

func entry(q string, eps, delta float64) Entry {
	return Entry{Query: q, Mechanism: "laplace", Params: map[string]float64{"scale": 1 / eps},
		Cost: accounting.Cost{Epsilon: eps, Delta: delta}, Sensitivity: "1 declared, not verified",
		Guarantee: "assumed"}
}

func TestSpendUntilBudget(t *testing.T) {
	ctx := context.Background()
	l, path := openTemp(t)
	if err := l.Init(ctx, "d", accounting.Budget{Epsilon: 1, Delta: 1e-6}); err != nil {
		t.Fatal(err)
	}
	// 0.1 is not dyadic: ten float sums of 0.1 exceed 1 in float64
	// (0.1+…+0.1 = 0.9999999999999999 after 10, but the exact sum of the
	// float64 0.1 is 1.0000000000000000555 > 1): the exact filter admits 9.
	n := 0
	for i := 0; i < 20; i++ {
		err := l.Spend(ctx, "d", entry("q", 0.1, 1e-7))
		if err == nil {
			n++
			continue
		}
		var be *BudgetError
		if !errors.As(err, &be) || !errors.Is(err, ErrBudgetExceeded) {
			t.Fatalf("spend %d: %v", i, err)
		}
		if be.Releases != int64(n) || be.Dataset != "d" || be.Budget.Epsilon != 1 {
			t.Fatalf("budget error %+v", be)
		}
		if !strings.Contains(err.Error(), `dataset "d"`) || !strings.Contains(err.Error(), "remaining") {
			t.Fatalf("message %q", err)
		}
		break
	}
	if n != 9 {
		t.Fatalf("admitted %d spends of 0.1 against 1, want 9 (exact sum of ten float64 0.1 exceeds 1)", n)
	}
	// δ: 9·1e-7 spent, 1e-7 left; ε 0.1 no longer fits but ε 0.0999 does with δ 1e-7.
	if err := l.Spend(ctx, "d", entry("q", 0.09, 2e-7)); !errors.Is(err, ErrBudgetExceeded) {
		t.Fatalf("delta overdraft admitted: %v", err)
	}
	if err := l.Spend(ctx, "d", entry("q", 0.09, 1e-7)); err != nil {
		t.Fatal(err)
	}
	l.Close()
	// Reopen: everything persisted.
	l2, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l2.Close()
	st, err := l2.Status(ctx, "d")
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Releases) != 10 || st.Releases[9].Seq != 10 || st.Releases[0].Params["scale"] != 10 {
		t.Fatalf("status after reopen: %d releases", len(st.Releases))
	}
	if st.Spent.Epsilon < 0.99 || st.Spent.Epsilon > 1 {
		t.Fatalf("spent ε %v", st.Spent.Epsilon)
	}
}

func TestInitAndUnknown(t *testing.T) {
	ctx := context.Background()
	l, _ := openTemp(t)
	b := accounting.Budget{Epsilon: 2}
	if err := l.Init(ctx, "a", b); err != nil {
		t.Fatal(err)
	}
	if err := l.Init(ctx, "a", b); err != nil {
		t.Fatalf("idempotent init: %v", err)
	}
	if err := l.Init(ctx, "a", accounting.Budget{Epsilon: 3}); !errors.Is(err, ErrDatasetExists) {
		t.Fatalf("re-init with a larger budget: %v", err)
	}
	if err := l.Spend(ctx, "b", entry("q", 0.1, 0)); !errors.Is(err, ErrUnknownDataset) {
		t.Fatalf("spend on unknown dataset: %v", err)
	}
	if err := l.Init(ctx, "c", accounting.Budget{Epsilon: -1}); !errors.Is(err, accounting.ErrInvalid) {
		t.Fatalf("negative budget: %v", err)
	}
	if err := l.Spend(ctx, "a", entry("q", 0.1, 1.5)); !errors.Is(err, accounting.ErrInvalid) {
		t.Fatalf("δ = 1.5: %v", err)
	}
	if _, err := Open(ctx, filepath.Join(t.TempDir(), "missing.db"), Options{}); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file without Create: %v", err)
	}
}

// TestAppendOnlyAndTamper: SQL cannot edit the log; a row edited after the
// triggers are dropped breaks the hash chain and is reported as corruption.
func TestAppendOnlyAndTamper(t *testing.T) {
	ctx := context.Background()
	l, path := openTemp(t)
	must(t, l.Init(ctx, "d", accounting.Budget{Epsilon: 1}))
	for i := 0; i < 3; i++ {
		must(t, l.Spend(ctx, "d", entry("q", 0.25, 0)))
	}
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("UPDATE spends SET epsilon = 0 WHERE seq = 2"); err == nil || !strings.Contains(err.Error(), "append-only") {
		t.Fatalf("update of the log: %v", err)
	}
	if _, err := db.Exec("DELETE FROM spends"); err == nil {
		t.Fatal("delete of the log succeeded")
	}
	if _, err := db.Exec("DROP TRIGGER spends_no_update"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("UPDATE spends SET epsilon = 0 WHERE seq = 2"); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Status(ctx, "d"); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("tampered log: %v", err)
	}
	if err := l.Spend(ctx, "d", entry("q", 0.25, 0)); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("spend on a tampered log: %v", err)
	}
}

func TestExportJSON(t *testing.T) {
	ctx := context.Background()
	l, _ := openTemp(t)
	must(t, l.Init(ctx, "d", accounting.Budget{Epsilon: 1, Delta: 1e-5}))
	must(t, l.Spend(ctx, "d", entry("total cost", 0.5, 0)))
	var buf bytes.Buffer
	must(t, l.Export(ctx, &buf))
	var ex Export
	if err := json.Unmarshal(buf.Bytes(), &ex); err != nil {
		t.Fatal(err)
	}
	if ex.Format != ExportFormat || len(ex.Datasets) != 1 || ex.Datasets[0].Spent.Epsilon != 0.5 ||
		ex.Datasets[0].Remaining.Epsilon != 0.5 || ex.Datasets[0].Releases[0].Query != "total cost" {
		t.Fatalf("export %s", buf.String())
	}
	// The exported chain verifies on its own.
	if err := verifyChain("d", ex.Datasets[0].Releases); err != nil {
		t.Fatal(err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
