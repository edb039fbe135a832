package pgstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/privopt/privopt/ledger"
)

// Store is a ledger.Store on a PostgreSQL database.
type Store struct {
	pool *pgxpool.Pool
}

var _ ledger.Store = (*Store)(nil)

var schema = []string{
	`CREATE TABLE IF NOT EXISTS privopt_datasets (
		name    TEXT PRIMARY KEY,
		epsilon DOUBLE PRECISION NOT NULL,
		delta   DOUBLE PRECISION NOT NULL,
		gamma   DOUBLE PRECISION NOT NULL,
		filter  TEXT NOT NULL,
		created TEXT NOT NULL)`,
	`CREATE TABLE IF NOT EXISTS privopt_spends (
		dataset     TEXT NOT NULL REFERENCES privopt_datasets(name),
		seq         BIGINT NOT NULL,
		time        TEXT NOT NULL,
		query       TEXT NOT NULL,
		mechanism   TEXT NOT NULL,
		params      TEXT NOT NULL,
		epsilon     DOUBLE PRECISION NOT NULL,
		delta       DOUBLE PRECISION NOT NULL,
		gamma       DOUBLE PRECISION NOT NULL,
		sensitivity TEXT NOT NULL,
		guarantee   TEXT NOT NULL,
		curve       TEXT NOT NULL,
		case_name   TEXT NOT NULL,
		label       TEXT NOT NULL,
		user_label  TEXT NOT NULL,
		batch       TEXT NOT NULL,
		composition TEXT NOT NULL,
		state       TEXT NOT NULL,
		hash        TEXT NOT NULL,
		PRIMARY KEY (dataset, seq))`,
	// Tables created before labels and running totals get the new columns
	// (empty: the ledger replays such a log once, see ledger.Ledger.Spend);
	// the ALTER (an exclusive lock) runs only when they are missing.
	`DO $$ BEGIN
		IF NOT EXISTS (SELECT 1 FROM information_schema.columns
			WHERE table_schema = current_schema() AND table_name = 'privopt_spends' AND column_name = 'state') THEN
			ALTER TABLE privopt_spends ADD COLUMN curve TEXT NOT NULL DEFAULT '',
				ADD COLUMN case_name TEXT NOT NULL DEFAULT '', ADD COLUMN label TEXT NOT NULL DEFAULT '',
				ADD COLUMN user_label TEXT NOT NULL DEFAULT '', ADD COLUMN batch TEXT NOT NULL DEFAULT '',
				ADD COLUMN composition TEXT NOT NULL DEFAULT '', ADD COLUMN state TEXT NOT NULL DEFAULT '';
		END IF;
	END $$`,
	`CREATE OR REPLACE FUNCTION privopt_append_only() RETURNS trigger AS $$
	BEGIN RAISE EXCEPTION 'privopt ledger: % on % is refused (append-only)', TG_OP, TG_TABLE_NAME; END $$ LANGUAGE plpgsql`,
	`CREATE OR REPLACE TRIGGER privopt_spends_append_only BEFORE UPDATE OR DELETE ON privopt_spends
	FOR EACH ROW EXECUTE FUNCTION privopt_append_only()`,
	`CREATE OR REPLACE TRIGGER privopt_datasets_immutable BEFORE UPDATE OR DELETE ON privopt_datasets
	FOR EACH ROW EXECUTE FUNCTION privopt_append_only()`,
}

// Open connects to the database named by connString (a PostgreSQL URL or
// key=value string; PostgreSQL ≥ 14 for CREATE OR REPLACE TRIGGER) and
// creates the schema if needed.
func Open(ctx context.Context, connString string) (*Store, error) {
	pool, err := pgxpool.New(ctx, connString)
	if err != nil {
		return nil, fmt.Errorf("pgstore: connect: %w", err)
	}
	// One advisory lock serializes concurrent schema creation.
	tx, err := pool.Begin(ctx)
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("pgstore: begin: %w", err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(7370726976)"); err != nil {
		pool.Close()
		return nil, fmt.Errorf("pgstore: lock schema: %w", err)
	}
	for _, q := range schema {
		if _, err := tx.Exec(ctx, q); err != nil {
			pool.Close()
			return nil, fmt.Errorf("pgstore: create schema: %w", err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("pgstore: create schema: %w", err)
	}
	return &Store{pool: pool}, nil
}

// Close closes the connection pool.
func (s *Store) Close() error {
	s.pool.Close()
	return nil
}

// CreateDataset implements ledger.Store.
func (s *Store) CreateDataset(ctx context.Context, d ledger.Dataset) error {
	tag, err := s.pool.Exec(ctx, `INSERT INTO privopt_datasets(name, epsilon, delta, gamma, filter, created)
		VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (name) DO NOTHING`,
		d.Name, d.Budget.Epsilon, d.Budget.Delta, d.Budget.Gamma, d.Filter, d.Created.UTC().Format(time.RFC3339Nano))
	if err != nil {
		return fmt.Errorf("pgstore: create dataset %q: %w", d.Name, err)
	}
	if tag.RowsAffected() == 1 {
		return nil
	}
	old, err := loadDataset(ctx, s.pool, d.Name, false)
	if err != nil {
		return err
	}
	if old.Budget != d.Budget || old.Filter != d.Filter {
		return fmt.Errorf("%w: %q has budget (ε %g, δ %g, γ %g, %s filter), asked (ε %g, δ %g, γ %g, %s filter)", ledger.ErrDatasetExists, d.Name,
			old.Budget.Epsilon, old.Budget.Delta, old.Budget.Gamma, old.Filter, d.Budget.Epsilon, d.Budget.Delta, d.Budget.Gamma, d.Filter)
	}
	return nil
}

type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

func loadDataset(ctx context.Context, q querier, name string, forUpdate bool) (ledger.Dataset, error) {
	sql := "SELECT name, epsilon, delta, gamma, filter, created FROM privopt_datasets WHERE name = $1"
	if forUpdate {
		sql += " FOR UPDATE"
	}
	var d ledger.Dataset
	var created string
	err := q.QueryRow(ctx, sql, name).Scan(&d.Name, &d.Budget.Epsilon, &d.Budget.Delta, &d.Budget.Gamma, &d.Filter, &created)
	if errors.Is(err, pgx.ErrNoRows) {
		return d, fmt.Errorf("%w: %q (create its budget with privopt ledger init)", ledger.ErrUnknownDataset, name)
	}
	if err != nil {
		return d, fmt.Errorf("pgstore: read dataset %q: %w", name, err)
	}
	if d.Created, err = time.Parse(time.RFC3339Nano, created); err != nil {
		return d, fmt.Errorf("%w: dataset %q has creation time %q", ledger.ErrCorrupt, name, created)
	}
	return d, nil
}

// loadLog reads the whole log (newest = false) or the newest
// ledger.TailLen entries (newest = true; an index scan on the primary key),
// oldest first.
func loadLog(ctx context.Context, q querier, name string, newest bool) ([]ledger.Entry, error) {
	cols, _, _ := ledger.EntryColumns(ledger.Entry{})
	sql := "SELECT " + cols + " FROM privopt_spends WHERE dataset = $1 ORDER BY seq"
	if newest {
		sql += fmt.Sprintf(" DESC LIMIT %d", ledger.TailLen)
	}
	rows, err := q.Query(ctx, sql, name)
	if err != nil {
		return nil, fmt.Errorf("pgstore: read log of %q: %w", name, err)
	}
	defer rows.Close()
	var log []ledger.Entry
	for rows.Next() {
		var r ledger.EntryRow
		if err := rows.Scan(r.Dest()...); err != nil {
			return nil, fmt.Errorf("pgstore: read log of %q: %w", name, err)
		}
		e, err := r.Entry(name)
		if err != nil {
			return nil, err
		}
		log = append(log, e)
	}
	if newest {
		slices.Reverse(log)
	}
	return log, rows.Err()
}

// Append implements ledger.Store: the dataset row is locked FOR UPDATE for
// the whole transaction; only the newest entries are read.
func (s *Store) Append(ctx context.Context, dataset string, prepare func(ledger.Dataset, []ledger.Entry) ([]ledger.Entry, error)) error {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("pgstore: begin: %w", err)
	}
	defer tx.Rollback(ctx)
	d, err := loadDataset(ctx, tx, dataset, true)
	if err != nil {
		return err
	}
	tail, err := loadLog(ctx, tx, dataset, true)
	if err != nil {
		return err
	}
	es, err := prepare(d, tail)
	if err != nil {
		return err
	}
	for _, e := range es {
		cols, args, err := ledger.EntryColumns(e)
		if err != nil {
			return err
		}
		ph := make([]string, len(args)+1)
		for i := range ph {
			ph[i] = fmt.Sprintf("$%d", i+1)
		}
		if _, err := tx.Exec(ctx, "INSERT INTO privopt_spends(dataset, "+cols+") VALUES ("+strings.Join(ph, ", ")+")",
			append([]any{dataset}, args...)...); err != nil {
			return fmt.Errorf("pgstore: record spend on %q: %w", dataset, err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("pgstore: commit spend on %q: %w", dataset, err)
	}
	return nil
}

// Tail implements ledger.Store.
func (s *Store) Tail(ctx context.Context, dataset string) (ledger.Dataset, []ledger.Entry, error) {
	return s.load(ctx, dataset, true)
}

// Load implements ledger.Store.
func (s *Store) Load(ctx context.Context, dataset string) (ledger.Dataset, []ledger.Entry, error) {
	return s.load(ctx, dataset, false)
}

func (s *Store) load(ctx context.Context, dataset string, newest bool) (ledger.Dataset, []ledger.Entry, error) {
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return ledger.Dataset{}, nil, fmt.Errorf("pgstore: begin: %w", err)
	}
	defer tx.Rollback(ctx)
	d, err := loadDataset(ctx, tx, dataset, false)
	if err != nil {
		return d, nil, err
	}
	log, err := loadLog(ctx, tx, dataset, newest)
	return d, log, err
}

// Datasets implements ledger.Store.
func (s *Store) Datasets(ctx context.Context) ([]string, error) {
	rows, err := s.pool.Query(ctx, "SELECT name FROM privopt_datasets ORDER BY name")
	if err != nil {
		return nil, fmt.Errorf("pgstore: list datasets: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, fmt.Errorf("pgstore: list datasets: %w", err)
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

// IsURL reports whether target names a PostgreSQL database (a postgres:// or
// postgresql:// URL) rather than a ledger file.
func IsURL(target string) bool {
	return strings.HasPrefix(target, "postgres://") || strings.HasPrefix(target, "postgresql://")
}

// OpenLedger opens the ledger named by target: a PostgreSQL URL opens this
// store (creating its tables if needed), anything else the SQLite file of
// ledger.Open with opt. It is what --ledger FILE|postgres://… means in the
// command-line tool and the service.
func OpenLedger(ctx context.Context, target string, opt ledger.Options) (*ledger.Ledger, error) {
	if !IsURL(target) {
		return ledger.Open(ctx, target, opt)
	}
	s, err := Open(ctx, target)
	if err != nil {
		return nil, err
	}
	return ledger.New(s), nil
}
