// Package ledger is a persistent, concurrent, crash-safe privacy budget.
//
// Each dataset (or group of data subjects) has a budget (ε, δ, γ) fixed at
// creation, a privacy filter that decides whether a further release fits
// (package accounting; the basic-composition filter of Rogers, Roth, Ullman
// and Vadhan 2016, valid for adaptively chosen parameters), and an append-only
// audit log: every spend with its time, query, mechanism, mechanism
// parameters, sensitivity provenance and guarantee string, chained by SHA-256
// so that an edited, removed or reordered row is detected.
//
// # Check-and-spend before noise
//
//	l, err := ledger.Open(ctx, "budget.db", ledger.Options{})
//	err = l.Spend(ctx, "grid-2026", ledger.Entry{Query: …, Mechanism: "laplace",
//		Cost: accounting.Cost{Epsilon: 0.1}, Sensitivity: …, Guarantee: …})
//	var be *ledger.BudgetError
//	if errors.As(err, &be) { … } // refused: names budget, spent, remaining; draw no noise
//	// only now draw the noise and release
//
// Spend reads the dataset's log, runs the filter and appends the entry in one
// store transaction that holds the database's write lock from its first read
// (SQLite BEGIN IMMEDIATE), so two processes can never both pass the check on
// the same remainder. The invariant the package keeps is
//
//	every release ⇒ its spend is committed and synced ⇒ Σ spends admitted by the filter ≤ budget,
//
// at the price that a crash between Spend and the release leaves a spend
// without a release (budget lost, privacy kept).
//
// # Storage
//
// The default Store is one SQLite file, through modernc.org/sqlite: SQLite
// compiled to pure Go, so the ledger needs no C compiler (the only cgo
// dependency of privopt stays HiGHS) and cross-compiles; it is maintained,
// tracks upstream SQLite releases and passes SQLite's own test suite. The
// cgo driver mattn/go-sqlite3 would add a second C toolchain dependency;
// pure-Go key-value stores (bbolt, Badger) lack SQL transactions over
// several processes with a busy timeout. The file runs in WAL mode with
// synchronous=FULL: a committed spend survives SIGKILL and power loss, readers
// never block the writer, and concurrent writers wait (busy timeout 60 s).
// UPDATE and DELETE on the log and the budgets are refused by triggers.
//
// A damaged file — truncated, overwritten, zero length, failing SQLite's
// quick_check, or with a broken hash chain — gives an error wrapping
// ErrCorrupt that names the file; Open writes nothing to such a file, so the
// recorded spends in it (and in its backups) are never replaced by a fresh,
// empty budget. A missing file is an error unless Options.Create is set.
//
// # Other stores
//
// Store is five methods; the transaction contract of Append is the whole
// requirement. Package ledger/pgstore is a PostgreSQL store (for several
// machines spending one budget): its Append is BEGIN; SELECT … FROM datasets
// WHERE name = $1 FOR UPDATE; read the log; INSERT; COMMIT — the row lock on
// the dataset serializes spends across machines exactly like SQLite's write
// lock. Ledger.Spend verifies the hash chain inside the transaction for every
// store.
package ledger
