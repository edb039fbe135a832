package pgstore

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/privopt/privopt/accounting"
	"github.com/privopt/privopt/ledger"
	"github.com/privopt/privopt/ledger/internal/ledgertest"
	"github.com/privopt/privopt/ledger/pgstore/pgtest"
)

// TestPostgresContract runs the ledger contract on a PostgreSQL database:
// 8 goroutines (each with its own pool) spend ε = 1/64 against ε = 1 until
// refused; exactly 64 spends must be admitted and the chain must verify.
// It needs PRIVOPT_TEST_PG_URL (set by make test; see package pgtest).
func TestPostgresContract(t *testing.T) {
	url := pgtest.URL(t)
	ctx := context.Background()
	s, err := Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	l := ledger.New(s)
	defer l.Close()
	ds := pgtest.Name("contract")
	if err := l.Init(ctx, ds, accounting.Budget{Epsilon: 1}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	total := 0
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s2, err := Open(ctx, url)
			if err != nil {
				t.Error(err)
				return
			}
			l2 := ledger.New(s2)
			defer l2.Close()
			for {
				err := l2.Spend(ctx, ds, ledger.Entry{Query: "q", Mechanism: "laplace", Cost: accounting.Cost{Epsilon: 1.0 / 64}})
				if errors.Is(err, ledger.ErrBudgetExceeded) {
					return
				}
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				total++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	st, err := l.Status(ctx, ds)
	if err != nil {
		t.Fatal(err)
	}
	if total != 64 || len(st.Releases) != 64 || st.Spent.Epsilon != 1 {
		t.Fatalf("admitted %d, logged %d, spent %v; want 64, 64, 1", total, len(st.Releases), st.Spent.Epsilon)
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
