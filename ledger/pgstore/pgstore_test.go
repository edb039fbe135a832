package pgstore

import (
	"context"
	"strings"
	"testing"

	"github.com/privopt/privopt/accounting"
	"github.com/privopt/privopt/ledger"
	"github.com/privopt/privopt/ledger/internal/ledgertest"
	"github.com/privopt/privopt/ledger/pgstore/pgtest"
)

// TestPostgresAppendOnly: UPDATE and DELETE on the audit log and the
// budgets are refused by the triggers.
func TestPostgresAppendOnly(t *testing.T) {
	url := pgtest.URL(t)
	ctx := context.Background()
	s, err := Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	l := ledger.New(s)
	defer l.Close()
	ds := pgtest.Name("append-only")
	if err := l.Init(ctx, ds, accounting.Budget{Epsilon: 1}); err != nil {
		t.Fatal(err)
	}
	if err := l.Spend(ctx, ds, ledger.Entry{Query: "q", Mechanism: "laplace", Cost: accounting.Cost{Epsilon: 0.5}}); err != nil {
		t.Fatal(err)
	}
	// The log is append-only.
	if _, err := s.pool.Exec(ctx, "UPDATE privopt_spends SET epsilon = 0 WHERE dataset = $1", ds); err == nil {
		t.Fatal("UPDATE of the audit log succeeded")
	}
	if _, err := s.pool.Exec(ctx, "DELETE FROM privopt_datasets WHERE name = $1", ds); err == nil {
		t.Fatal("DELETE of a budget succeeded")
	}
}

// TestPostgresStoreContract runs the store contract of package ledgertest.
func TestPostgresStoreContract(t *testing.T) {
	url := pgtest.URL(t)
	ledgertest.Contract(t, "pg", func(t *testing.T) ledger.Store {
		s, err := Open(context.Background(), url)
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// TestPostgresUpgradesVersion1Table: a privopt_spends table without the
// columns of labels and running totals (as created before them) gets them
// on Open, in a schema of its own.
func TestPostgresUpgradesVersion1Table(t *testing.T) {
	url := pgtest.URL(t)
	ctx := context.Background()
	s, err := Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	schema := strings.ReplaceAll(pgtest.Name("v1"), "-", "_")
	for _, q := range []string{
		"CREATE SCHEMA " + schema,
		"CREATE TABLE " + schema + ".privopt_datasets (name TEXT PRIMARY KEY, epsilon DOUBLE PRECISION NOT NULL, delta DOUBLE PRECISION NOT NULL, gamma DOUBLE PRECISION NOT NULL, filter TEXT NOT NULL, created TEXT NOT NULL)",
		"CREATE TABLE " + schema + ".privopt_spends (dataset TEXT NOT NULL REFERENCES " + schema + ".privopt_datasets(name), seq BIGINT NOT NULL, time TEXT NOT NULL, query TEXT NOT NULL, mechanism TEXT NOT NULL, params TEXT NOT NULL, epsilon DOUBLE PRECISION NOT NULL, delta DOUBLE PRECISION NOT NULL, gamma DOUBLE PRECISION NOT NULL, sensitivity TEXT NOT NULL, guarantee TEXT NOT NULL, hash TEXT NOT NULL, PRIMARY KEY (dataset, seq))",
	} {
		if _, err := s.pool.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	defer s.pool.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE")
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	s2, err := Open(ctx, url+sep+"search_path="+schema)
	if err != nil {
		t.Fatal(err)
	}
	l := ledger.New(s2)
	defer l.Close()
	if err := l.Init(ctx, "d", accounting.Budget{Epsilon: 1}); err != nil {
		t.Fatal(err)
	}
	if err := l.Spend(ctx, "d", ledger.Entry{Query: "q", Mechanism: "laplace", Cost: accounting.Cost{Epsilon: 0.5}, Label: "h01"}); err != nil {
		t.Fatal(err)
	}
	st, err := l.Status(ctx, "d")
	if err != nil || st.Count != 1 || st.Releases[0].Label != "h01" {
		t.Fatalf("upgraded table: %+v %v", st, err)
	}
}
