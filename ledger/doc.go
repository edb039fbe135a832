// Package ledger is a persistent, concurrent, crash-safe privacy budget.
//
// Each dataset (or group of data subjects) has a budget (ε, δ, γ) fixed at
// creation, a privacy filter that decides whether a further release fits
// (package accounting, all valid for adaptively chosen releases: "basic",
// the basic-composition filter of Rogers, Roth, Ullman and Vadhan 2016;
// "rdp(alpha=A)", the Rényi-DP filter of Feldman and Zrnic 2021; "gdp", the
// Gaussian-DP filter of Smith and Thakurta 2022, for exactly Gaussian
// releases only — the library's floating-point-safe Gaussian releases add
// discrete Gaussian noise, recorded with a "discrete-gaussian" curve that
// the RDP filter accounts by its zCDP and the GDP filter refuses;
// "pld-batch(delta=D)", basic composition whose batches fixed in advance are
// charged their PLD composition, PLDBatch; InitFilter), and an
// append-only audit log: every spend with its time, labels (case, hour or
// column label, free-text user label), query, mechanism, mechanism
// parameters, sensitivity provenance, guarantee string and composition
// statement, chained by SHA-256 so that an edited, removed or reordered row is
// detected. A batch of releases fixed in advance (a day of hourly releases
// under one plan) is charged once at its PLD-composed cost (SpendBatch,
// accounting.BatchCost).
//
// # O(1) spends
//
// Every entry stores the filter's running totals after it (Entry.State,
// covered by the hash). A spend reads only the newest TailLen entries — an
// index lookup — verifies their links of the chain, continues the filter from
// the newest State and appends: its cost does not grow with the log
// (BENCHMARKS.md: flat from 100 to 100,000 entries on SQLite and
// PostgreSQL). Budget answers from the same tail. Status, Verify and the
// exports read the whole log, verify the whole chain and replay the filter
// to check every stored State.
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
// empty budget. A missing file is an error unless Options.Create is set. A
// file of schema version 1 (before labels and running totals) is upgraded in
// place by Open: its entries keep their hashes, and the first spend replays
// the old log once.
//
// # Other stores
//
// Store is six methods; the transaction contract of Append is the whole
// requirement (package ledgertest checks it). Package ledger/pgstore is a
// PostgreSQL store (for several machines spending one budget): its Append is
// BEGIN; SELECT … FROM datasets WHERE name = $1 FOR UPDATE; read the newest
// entries; INSERT; COMMIT — the row lock on the dataset serializes spends
// across machines exactly like SQLite's write lock. pgstore.OpenLedger opens
// a file or a postgres:// URL (what --ledger means in the command-line tool
// and the service).
package ledger
