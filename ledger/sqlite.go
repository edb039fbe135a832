package ledger

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// applicationID marks a SQLite file as a privopt ledger ("priv" in ASCII),
// stored in the header field PRAGMA application_id.
const applicationID = 0x70726976

// schemaVersion is PRAGMA user_version of the current schema.
const schemaVersion = 2

// busyTimeout is how long a spend waits for another process's transaction
// (SQLite busy handler) before failing: generous, because spends are short
// and waiting is always better than failing a release.
const busyTimeout = 60 * time.Second

// Options tune Open.
type Options struct {
	// Create makes Open create the file (and schema) when it does not exist.
	// Without it a missing file is an error: a mistyped path must not start
	// a fresh, empty budget.
	Create bool
}

var schema = []string{
	`CREATE TABLE IF NOT EXISTS datasets (
		name    TEXT PRIMARY KEY,
		epsilon REAL NOT NULL,
		delta   REAL NOT NULL,
		gamma   REAL NOT NULL,
		filter  TEXT NOT NULL,
		created TEXT NOT NULL
	) STRICT`,
	`CREATE TABLE IF NOT EXISTS spends (
		dataset     TEXT NOT NULL REFERENCES datasets(name),
		seq         INTEGER NOT NULL,
		time        TEXT NOT NULL,
		query       TEXT NOT NULL,
		mechanism   TEXT NOT NULL,
		params      TEXT NOT NULL,
		epsilon     REAL NOT NULL,
		delta       REAL NOT NULL,
		gamma       REAL NOT NULL,
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
		PRIMARY KEY (dataset, seq)
	) STRICT`,
	// Append-only: the audit log and the budgets cannot be edited through SQL.
	`CREATE TRIGGER IF NOT EXISTS spends_no_update BEFORE UPDATE ON spends BEGIN SELECT RAISE(ABORT, 'privopt ledger: spends are append-only'); END`,
	`CREATE TRIGGER IF NOT EXISTS spends_no_delete BEFORE DELETE ON spends BEGIN SELECT RAISE(ABORT, 'privopt ledger: spends are append-only'); END`,
	`CREATE TRIGGER IF NOT EXISTS datasets_no_update BEFORE UPDATE ON datasets BEGIN SELECT RAISE(ABORT, 'privopt ledger: budgets are immutable'); END`,
	`CREATE TRIGGER IF NOT EXISTS datasets_no_delete BEFORE DELETE ON datasets BEGIN SELECT RAISE(ABORT, 'privopt ledger: budgets are immutable'); END`,
}

// SQLiteStore is the default Store: one SQLite file in WAL mode with
// synchronous=FULL (a returned spend survives a process kill and a power
// loss), a busy timeout for concurrent processes, and write transactions that
// take the database's write lock at BEGIN (BEGIN IMMEDIATE), so that the
// read of the log and the append of a spend are one serializable step across
// processes.
type SQLiteStore struct {
	db   *sql.DB
	path string
	// mu serializes this process's Appends: SQLite's busy handler polls with
	// sleeps of up to 100 ms, so goroutines of one process queue here
	// instead (other processes still wait on the database lock).
	mu sync.Mutex
}

var _ Store = (*SQLiteStore)(nil)

// Open opens (or with opt.Create creates) the ledger file at path.
//
// Before anything is written it checks the file: an existing empty file, a
// header whose page count exceeds the file (truncation), a file that is not
// SQLite, a SQLite file that is not a privopt ledger, and a failing
// PRAGMA quick_check all give an error wrapping ErrCorrupt or ErrNotLedger
// that names the file; such a file is left untouched, so no recorded spend is
// lost by the attempt.
func Open(ctx context.Context, path string, opt Options) (*Ledger, error) {
	s, err := OpenSQLite(ctx, path, opt)
	if err != nil {
		return nil, err
	}
	return New(s), nil
}

// OpenSQLite opens the SQLite store; see Open.
func OpenSQLite(ctx context.Context, path string, opt Options) (*SQLiteStore, error) {
	if path == "" || strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("%w: ledger file is %q, must be a non-empty path without '?' or '#'", ErrInvalid, path)
	}
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if !opt.Create {
			return nil, fmt.Errorf("ledger: %s does not exist (create it with privopt ledger init): %w", path, err)
		}
	case err != nil:
		return nil, fmt.Errorf("ledger: %w", err)
	case st.Size() == 0:
		return nil, fmt.Errorf("%w: %s is empty (0 bytes); a ledger file is never empty, so it was truncated; restore it from a backup", ErrCorrupt, path)
	default:
		if err := checkHeader(path, st.Size()); err != nil {
			return nil, err
		}
	}
	dsn := "file:" + path + fmt.Sprintf("?_pragma=busy_timeout(%d)&_txlock=immediate&_pragma=foreign_keys(1)&_pragma=synchronous(FULL)", busyTimeout.Milliseconds())
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("ledger: open %s: %w", path, err)
	}
	db.SetMaxOpenConns(4)
	s := &SQLiteStore{db: db, path: path}
	if err := s.init(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// checkHeader reads the 100-byte SQLite header (file format, Sec. 1.3 of the
// SQLite file-format documentation): magic string, page size at offset 16,
// database size in pages at offset 28, valid when the change counter (offset
// 24) equals the version-valid-for number (offset 92). A file shorter than
// the header's page count was truncated. Skipped while a non-empty -wal file
// exists (a checkpoint may legitimately be in progress; quick_check covers it).
func checkHeader(path string, size int64) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("ledger: %w", err)
	}
	defer f.Close()
	var h [100]byte
	if _, err := io.ReadFull(f, h[:]); err != nil {
		return fmt.Errorf("%w: %s has %d bytes, shorter than the 100-byte database header; it was truncated", ErrCorrupt, path, size)
	}
	if string(h[:16]) != "SQLite format 3\x00" {
		return fmt.Errorf("%w: %s does not start with the SQLite header (overwritten or not a ledger)", ErrCorrupt, path)
	}
	if st, err := os.Stat(path + "-wal"); err == nil && st.Size() > 0 {
		return nil
	}
	pageSize := int64(binary.BigEndian.Uint16(h[16:18]))
	if pageSize == 1 {
		pageSize = 65536
	}
	pages := int64(binary.BigEndian.Uint32(h[28:32]))
	valid := binary.BigEndian.Uint32(h[24:28]) == binary.BigEndian.Uint32(h[92:96])
	if valid && pages > 0 && size < pages*pageSize {
		return fmt.Errorf("%w: %s has %d bytes but its header records %d pages of %d bytes (%d bytes): the file was truncated; restore it from a backup", ErrCorrupt, path, size, pages, pageSize, pages*pageSize)
	}
	return nil
}

// corrupt classifies SQLite errors that mean a damaged file.
func (s *SQLiteStore) wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
			return fmt.Errorf("%w: %s: %s: %v; the file was left unchanged, restore it from a backup", ErrCorrupt, s.path, op, err)
		}
	}
	return fmt.Errorf("ledger: %s: %s: %w", s.path, op, err)
}

func (s *SQLiteStore) init(ctx context.Context) error {
	var app, ver int64
	if err := s.db.QueryRowContext(ctx, "PRAGMA application_id").Scan(&app); err != nil {
		return s.wrap("read header", err)
	}
	if err := s.db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&ver); err != nil {
		return s.wrap("read header", err)
	}
	var tables int
	if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema").Scan(&tables); err != nil {
		return s.wrap("read schema", err)
	}
	fresh := tables == 0 && app == 0
	if !fresh {
		if app != applicationID {
			return fmt.Errorf("%w: %s is a SQLite database with application id %#x, not a privopt ledger (%#x)", ErrNotLedger, s.path, app, applicationID)
		}
		if ver != schemaVersion && ver != 1 {
			return fmt.Errorf("%w: %s has ledger schema version %d, this privopt reads version %d", ErrNotLedger, s.path, ver, schemaVersion)
		}
		var res string
		rows, err := s.db.QueryContext(ctx, "PRAGMA quick_check")
		if err != nil {
			return s.wrap("integrity check", err)
		}
		var msgs []string
		for rows.Next() {
			if err := rows.Scan(&res); err != nil {
				rows.Close()
				return s.wrap("integrity check", err)
			}
			msgs = append(msgs, res)
		}
		if err := rows.Err(); err != nil {
			rows.Close()
			return s.wrap("integrity check", err)
		}
		rows.Close()
		if len(msgs) != 1 || msgs[0] != "ok" {
			if len(msgs) > 3 {
				msgs = append(msgs[:3], "…")
			}
			return fmt.Errorf("%w: %s fails the SQLite integrity check (%s); the file was left unchanged, restore it from a backup", ErrCorrupt, s.path, strings.Join(msgs, "; "))
		}
	}
	if _, err := s.db.ExecContext(ctx, "PRAGMA journal_mode=WAL"); err != nil {
		return s.wrap("set WAL mode", err)
	}
	if !fresh {
		if ver == 1 {
			return s.migrate1(ctx)
		}
		return nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return s.wrap("create schema", err)
	}
	defer tx.Rollback()
	for _, q := range schema {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return s.wrap("create schema", err)
		}
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA application_id=%d", applicationID)); err != nil {
		return s.wrap("create schema", err)
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version=%d", schemaVersion)); err != nil {
		return s.wrap("create schema", err)
	}
	return s.wrap("create schema", tx.Commit())
}

// v2Columns are the spends columns schema version 2 added (labels, curve,
// composition, running totals).
var v2Columns = []string{"curve", "case_name", "label", "user_label", "batch", "composition", "state"}

// migrate1 upgrades a version-1 ledger in one transaction: the new columns
// are added empty. The old entries keep their hashes (every new field is
// omitted from the hashed JSON when empty) and have no running totals; the
// first spend after the upgrade replays the log once (see Ledger.Spend).
func (s *SQLiteStore) migrate1(ctx context.Context) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return s.wrap("upgrade schema", err)
	}
	defer tx.Rollback()
	for _, c := range v2Columns {
		if _, err := tx.ExecContext(ctx, "ALTER TABLE spends ADD COLUMN "+c+" TEXT NOT NULL DEFAULT ''"); err != nil {
			return s.wrap("upgrade schema", err)
		}
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version=%d", schemaVersion)); err != nil {
		return s.wrap("upgrade schema", err)
	}
	return s.wrap("upgrade schema", tx.Commit())
}

// Close closes the database.
func (s *SQLiteStore) Close() error { return s.db.Close() }

// CreateDataset implements Store.
func (s *SQLiteStore) CreateDataset(ctx context.Context, d Dataset) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return s.wrap("begin", err)
	}
	defer tx.Rollback()
	old, err := loadDataset(ctx, tx, d.Name)
	switch {
	case err == nil:
		if old.Budget != d.Budget || old.Filter != d.Filter {
			return fmt.Errorf("%w: %q has budget (ε %g, δ %g, γ %g, %s filter), asked (ε %g, δ %g, γ %g, %s filter)", ErrDatasetExists, d.Name,
				old.Budget.Epsilon, old.Budget.Delta, old.Budget.Gamma, old.Filter, d.Budget.Epsilon, d.Budget.Delta, d.Budget.Gamma, d.Filter)
		}
		return nil
	case !errors.Is(err, ErrUnknownDataset):
		return s.wrap("read dataset", err)
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO datasets(name, epsilon, delta, gamma, filter, created) VALUES (?, ?, ?, ?, ?, ?)",
		d.Name, d.Budget.Epsilon, d.Budget.Delta, d.Budget.Gamma, d.Filter, d.Created.UTC().Format(time.RFC3339Nano)); err != nil {
		return s.wrap("create dataset", err)
	}
	return s.wrap("commit", tx.Commit())
}

type querier interface {
	QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row
	QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
}

func loadDataset(ctx context.Context, q querier, name string) (Dataset, error) {
	var d Dataset
	var created string
	err := q.QueryRowContext(ctx, "SELECT name, epsilon, delta, gamma, filter, created FROM datasets WHERE name = ?", name).
		Scan(&d.Name, &d.Budget.Epsilon, &d.Budget.Delta, &d.Budget.Gamma, &d.Filter, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return d, fmt.Errorf("%w: %q (create its budget with privopt ledger init)", ErrUnknownDataset, name)
	}
	if err != nil {
		return d, err
	}
	d.Created, err = time.Parse(time.RFC3339Nano, created)
	if err != nil {
		return d, fmt.Errorf("%w: dataset %q has creation time %q: %v", ErrCorrupt, name, created, err)
	}
	return d, nil
}

// entryColumns are the spends columns in the order of scanEntry and
// entryArgs.
const entryColumns = "seq, time, query, mechanism, params, epsilon, delta, gamma, sensitivity, guarantee, curve, case_name, label, user_label, batch, composition, state, hash"

// EntryRow is an entry as stored in one table row (times RFC 3339 with
// nanoseconds, params and curve JSON), shared by the SQL stores.
type EntryRow struct {
	Time, Params, Curve string
	E                   Entry
}

// Dest returns the scan destinations in the order of entryColumns.
func (r *EntryRow) Dest() []any {
	e := &r.E
	return []any{&e.Seq, &r.Time, &e.Query, &e.Mechanism, &r.Params, &e.Cost.Epsilon, &e.Cost.Delta, &e.Cost.Gamma,
		&e.Sensitivity, &e.Guarantee, &r.Curve, &e.Case, &e.Label, &e.UserLabel, &e.Batch, &e.Composition, (*string)(&e.State), &e.Hash}
}

// Entry decodes the text columns.
func (r *EntryRow) Entry(dataset string) (Entry, error) {
	e := r.E
	var err error
	if e.Time, err = time.Parse(time.RFC3339Nano, r.Time); err != nil {
		return e, fmt.Errorf("%w: dataset %q entry %d has time %q", ErrCorrupt, dataset, e.Seq, r.Time)
	}
	if r.Params != "" {
		if err := json.Unmarshal([]byte(r.Params), &e.Params); err != nil {
			return e, fmt.Errorf("%w: dataset %q entry %d has parameters %q", ErrCorrupt, dataset, e.Seq, r.Params)
		}
	}
	if r.Curve != "" {
		if err := json.Unmarshal([]byte(r.Curve), &e.Curve); err != nil {
			return e, fmt.Errorf("%w: dataset %q entry %d has curve %q", ErrCorrupt, dataset, e.Seq, r.Curve)
		}
	}
	return e, nil
}

// EntryColumns returns the column list of a spends row (after dataset) and
// the values of e in that order.
func EntryColumns(e Entry) (string, []any, error) {
	params := "{}"
	if len(e.Params) > 0 {
		b, err := json.Marshal(e.Params)
		if err != nil {
			return "", nil, fmt.Errorf("%w: parameters: %v", ErrInvalid, err)
		}
		params = string(b)
	}
	curve := ""
	if e.Curve != nil {
		b, err := json.Marshal(e.Curve)
		if err != nil {
			return "", nil, fmt.Errorf("%w: curve: %v", ErrInvalid, err)
		}
		curve = string(b)
	}
	return entryColumns, []any{e.Seq, e.Time.UTC().Format(time.RFC3339Nano), e.Query, e.Mechanism, params,
		e.Cost.Epsilon, e.Cost.Delta, e.Cost.Gamma, e.Sensitivity, e.Guarantee, curve, e.Case, e.Label, e.UserLabel,
		e.Batch, e.Composition, string(e.State), e.Hash}, nil
}

// loadLog reads the whole log (newest = false) or the newest TailLen
// entries (newest = true), oldest first.
func loadLog(ctx context.Context, q querier, name string, newest bool) ([]Entry, error) {
	sql := "SELECT " + entryColumns + " FROM spends WHERE dataset = ? ORDER BY seq"
	if newest {
		sql += fmt.Sprintf(" DESC LIMIT %d", TailLen)
	}
	rows, err := q.QueryContext(ctx, sql, name)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var log []Entry
	for rows.Next() {
		var r EntryRow
		if err := rows.Scan(r.Dest()...); err != nil {
			return nil, err
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

// Append implements Store: BEGIN IMMEDIATE (the write lock, waiting up to the
// busy timeout), read the dataset and the newest entries (an index lookup on
// the primary key), prepare, INSERT, COMMIT.
func (s *SQLiteStore) Append(ctx context.Context, dataset string, prepare func(Dataset, []Entry) ([]Entry, error)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return s.wrap("begin", err)
	}
	defer tx.Rollback()
	d, err := loadDataset(ctx, tx, dataset)
	if err != nil {
		if errors.Is(err, ErrUnknownDataset) || errors.Is(err, ErrCorrupt) {
			return err
		}
		return s.wrap("read dataset", err)
	}
	tail, err := loadLog(ctx, tx, dataset, true)
	if err != nil {
		if errors.Is(err, ErrCorrupt) {
			return err
		}
		return s.wrap("read log", err)
	}
	es, err := prepare(d, tail)
	if err != nil {
		return err
	}
	for _, e := range es {
		cols, args, err := EntryColumns(e)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "INSERT INTO spends(dataset, "+cols+") VALUES (?"+strings.Repeat(", ?", len(args))+")",
			append([]any{dataset}, args...)...); err != nil {
			return s.wrap("record spend", err)
		}
	}
	return s.wrap("commit spend", tx.Commit())
}

// Tail implements Store.
func (s *SQLiteStore) Tail(ctx context.Context, dataset string) (Dataset, []Entry, error) {
	return s.load(ctx, dataset, true)
}

// Load implements Store.
func (s *SQLiteStore) Load(ctx context.Context, dataset string) (Dataset, []Entry, error) {
	return s.load(ctx, dataset, false)
}

func (s *SQLiteStore) load(ctx context.Context, dataset string, newest bool) (Dataset, []Entry, error) {
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return Dataset{}, nil, s.wrap("begin", err)
	}
	defer tx.Rollback()
	d, err := loadDataset(ctx, tx, dataset)
	if err != nil {
		if errors.Is(err, ErrUnknownDataset) || errors.Is(err, ErrCorrupt) {
			return d, nil, err
		}
		return d, nil, s.wrap("read dataset", err)
	}
	log, err := loadLog(ctx, tx, dataset, newest)
	if err != nil {
		if errors.Is(err, ErrCorrupt) {
			return d, nil, err
		}
		return d, nil, s.wrap("read log", err)
	}
	return d, log, nil
}

// Datasets implements Store.
func (s *SQLiteStore) Datasets(ctx context.Context) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT name FROM datasets ORDER BY name")
	if err != nil {
		return nil, s.wrap("list datasets", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, s.wrap("list datasets", err)
		}
		out = append(out, n)
	}
	return out, s.wrap("list datasets", rows.Err())
}
