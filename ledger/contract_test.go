package ledger_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/privopt/privopt/ledger"
	"github.com/privopt/privopt/ledger/internal/ledgertest"
)

func TestSQLiteStoreContract(t *testing.T) {
	path := filepath.Join(t.TempDir(), "budget.db")
	ledgertest.Contract(t, "sqlite", func(t *testing.T) ledger.Store {
		s, err := ledger.OpenSQLite(context.Background(), path, ledger.Options{Create: true})
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

func TestMemoryStoreContract(t *testing.T) {
	s := ledger.NewMemoryStore()
	ledgertest.Contract(t, "mem", func(t *testing.T) ledger.Store { return shared{s} })
}

// shared is one MemoryStore seen by several ledgers (Close is a no-op).
type shared struct{ *ledger.MemoryStore }
