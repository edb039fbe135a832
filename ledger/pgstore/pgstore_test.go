package pgstore

import (
	"context"
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
