// Package pgstore is a PostgreSQL ledger.Store, for several machines that
// release against one privacy budget.
//
//	s, err := pgstore.Open(ctx, "postgres://user@host/db")
//	l := ledger.New(s)
//
// Tables privopt_datasets and privopt_spends are created if missing; UPDATE
// and DELETE on them are refused by triggers (the audit log is append-only).
// Append locks the dataset's row (SELECT … FOR UPDATE) for the whole
// check-and-spend transaction, so concurrent spends from any number of
// machines are serialized; a committed spend is durable under PostgreSQL's
// default synchronous_commit. Times and parameters are stored as text
// (RFC 3339 with nanoseconds, JSON) so that the ledger's hash chain, computed
// over the exact values, verifies after a round trip; ε, δ, γ are double
// precision (exact for float64).
//
// Spends are O(1) in the log's length: Append reads the newest
// ledger.TailLen entries through the primary-key index (their running
// totals continue the filter), never the whole log.
//
// Driver: github.com/jackc/pgx/v5 (pure Go). The tests run when
// PRIVOPT_TEST_PG_URL names a database they may create tables in (make test
// starts a throwaway server and sets it; see package pgtest).
package pgstore
