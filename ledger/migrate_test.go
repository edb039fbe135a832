package ledger

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/privopt/privopt/accounting"
)

// A ledger file of schema version 1 (written before labels and running
// totals; built here with the version-1 DDL and hash) opens, keeps its
// spends and its chain, and continues: the first spend replays the old log,
// the budget is never forgotten.
func TestMigrateSchema1(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v1.db")
	db, err := sql.Open("sqlite", "file:"+path)
	must(t, err)
	for _, q := range []string{
		`CREATE TABLE datasets (name TEXT PRIMARY KEY, epsilon REAL NOT NULL, delta REAL NOT NULL, gamma REAL NOT NULL, filter TEXT NOT NULL, created TEXT NOT NULL) STRICT`,
		`CREATE TABLE spends (dataset TEXT NOT NULL REFERENCES datasets(name), seq INTEGER NOT NULL, time TEXT NOT NULL, query TEXT NOT NULL, mechanism TEXT NOT NULL, params TEXT NOT NULL, epsilon REAL NOT NULL, delta REAL NOT NULL, gamma REAL NOT NULL, sensitivity TEXT NOT NULL, guarantee TEXT NOT NULL, hash TEXT NOT NULL, PRIMARY KEY (dataset, seq)) STRICT`,
		`PRAGMA application_id=1886546294`, `PRAGMA user_version=1`,
		`INSERT INTO datasets VALUES ('d', 1, 0, 0, 'basic', '2026-01-01T00:00:00Z')`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	prev := ""
	for i := 1; i <= 3; i++ { // three v1 spends of ε 0.25, hashed as version 1 did
		e := Entry{Seq: int64(i), Time: time.Date(2026, 1, 1, i, 0, 0, 0, time.UTC), Query: "q", Mechanism: "laplace", Cost: accounting.Cost{Epsilon: 0.25}}
		e.Hash = chainHash(prev, e)
		prev = e.Hash
		if _, err := db.Exec(`INSERT INTO spends VALUES ('d', ?, ?, 'q', 'laplace', '{}', 0.25, 0, 0, '', '', ?)`, e.Seq, e.Time.Format(time.RFC3339Nano), e.Hash); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	l, err := Open(ctx, path, Options{})
	must(t, err)
	defer l.Close()
	b, err := l.Budget(ctx, "d")
	must(t, err)
	if b.Spent.Epsilon != 0.75 || b.Count != 3 {
		t.Fatalf("budget after the upgrade: %+v", b)
	}
	must(t, l.Spend(ctx, "d", entry("q", 0.25, 0)))
	if err := l.Spend(ctx, "d", entry("q", 0.25, 0)); !errors.Is(err, ErrBudgetExceeded) {
		t.Fatalf("fifth spend of 0.25 against 1: %v", err)
	}
	st, err := l.Status(ctx, "d")
	must(t, err)
	if st.Count != 4 || st.Spent.Epsilon != 1 || st.Releases[3].State != "1;0;0" {
		t.Fatalf("status after the upgrade: count %d, spent %v, state %q", st.Count, st.Spent, st.Releases[3].State)
	}
}
