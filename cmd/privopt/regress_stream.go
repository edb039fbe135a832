package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/privopt/privopt/learn"
	"github.com/privopt/privopt/ledger/pgstore"
)

// regressMoments computes the clipped moments for the SSP strategy without
// holding the rows: --data FILE.csv is streamed in one pass (constant
// memory), --data postgres://…?table=NAME is aggregated inside PostgreSQL
// by one SQL query (learn.MomentsSQL), so the rows never leave the
// database. It returns nil moments for the strategies that need the rows in
// memory (and for --diagnostics, which refits on them). --ranges is applied
// row by row (CSV) or column by column in SQL, the same public map as
// rangeScaling.apply.
func regressMoments(ctx context.Context, fs *flag.FlagSet, path, target, rangesPath string, strat learn.Strategy, diag bool, spec *learn.Spec) (*learn.Moments, []string, *rangeScaling, error) {
	pg := pgstore.IsURL(path)
	if strat != learn.SSP || diag {
		if pg {
			return nil, nil, nil, usagef("--data postgres://… computes the moments inside the database: it needs --strategy ssp (or auto with a squared-loss model) and no --diagnostics")
		}
		return nil, nil, nil, nil
	}
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	scale := func(names []string) (*rangeScaling, error) {
		if rangesPath == "" {
			return nil, nil
		}
		rs, err := loadRanges(rangesPath, names, target, false)
		if err != nil {
			return nil, usageError{err}
		}
		if !set["x-bound"] {
			spec.Bounds.X = math.Sqrt(float64(len(names)))
		}
		return rs, nil
	}
	if pg {
		return sqlMoments(ctx, path, target, spec, scale)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, nil, err
	}
	defer f.Close()
	rows, err := learn.NewCSVRows(f, target)
	if err != nil {
		return nil, nil, nil, err
	}
	names := rows.Names()
	rs, err := scale(names)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := spec.Validate(len(names)); err != nil {
		return nil, nil, nil, usageError{err}
	}
	var m learn.RowMap
	if rs != nil {
		m = func(x []float64, y float64) float64 {
			for j, v := range x {
				x[j] = (math.Max(rs.lo[j], math.Min(rs.hi[j], v)) - rs.c[j]) / rs.h[j]
			}
			return (math.Max(rs.ylo, math.Min(rs.yhi, y)) - rs.cy) / rs.hy
		}
	}
	mom, err := learn.StreamMoments(ctx, rows, *spec, m)
	if err != nil {
		return nil, nil, nil, err
	}
	return &mom, names, rs, nil
}

// sqlMoments runs learn.MomentsSQL on the table named by the URL's table
// parameter (removed before connecting; schema.table allowed). Every column
// but the target is a feature, in table order. Errors never repeat the URL
// (it may hold a password).
func sqlMoments(ctx context.Context, raw, target string, spec *learn.Spec, scale func([]string) (*rangeScaling, error)) (*learn.Moments, []string, *rangeScaling, error) {
	conn, tbl, table, err := pgTable(ctx, raw)
	if err != nil {
		return nil, nil, nil, err
	}
	defer conn.Close(ctx)
	names, cols, tcol, err := pgColumns(ctx, conn, tbl, table, target)
	if err != nil {
		return nil, nil, nil, err
	}
	rs, err := scale(names)
	if err != nil {
		return nil, nil, nil, err
	}
	maps := make([]learn.ColumnMap, len(names))
	ymap := learn.Identity
	for j := range maps {
		maps[j] = learn.Identity
		if rs != nil {
			maps[j] = learn.ColumnMap{Lo: rs.lo[j], Hi: rs.hi[j], Center: rs.c[j], Scale: rs.h[j]}
		}
	}
	if rs != nil {
		ymap = learn.ColumnMap{Lo: rs.ylo, Hi: rs.yhi, Center: rs.cy, Scale: rs.hy}
	}
	sql, err := learn.MomentsSQL(tbl, cols, tcol, maps, ymap, *spec)
	if err != nil {
		return nil, nil, nil, usageError{err}
	}
	k := len(names)
	if spec.Intercept {
		k++
	}
	vals := make([]float64, 1+k*(k+1)/2+k)
	dest := make([]any, len(vals))
	for i := range vals {
		dest[i] = &vals[i]
	}
	if err := conn.QueryRow(ctx, sql).Scan(dest...); err != nil {
		return nil, nil, nil, fmt.Errorf("--data: moments of table %q: %w", table, err)
	}
	m, err := learn.MomentsFromRow(vals, len(names), *spec)
	if err != nil {
		return nil, nil, nil, err
	}
	if m.N == 0 {
		return nil, nil, nil, fmt.Errorf("--data: table %q has no rows", table)
	}
	return &m, names, rs, nil
}

// pgTable connects to the PostgreSQL URL raw and returns the connection and
// the sanitized table named by its table parameter (removed before
// connecting; schema.table allowed). Errors never repeat the URL (it may
// hold a password).
func pgTable(ctx context.Context, raw string) (*pgx.Conn, string, string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, "", "", usagef("--data: not a valid PostgreSQL URL")
	}
	q := u.Query()
	table := q.Get("table")
	if table == "" {
		return nil, "", "", usagef("--data postgres://…: name the table with the URL parameter table=NAME (e.g. ?table=public.readings)")
	}
	q.Del("table")
	u.RawQuery = q.Encode()
	conn, err := pgx.Connect(ctx, u.String())
	if err != nil {
		return nil, "", "", fmt.Errorf("--data: connect to PostgreSQL: %w", err)
	}
	return conn, pgx.Identifier(strings.Split(table, ".")).Sanitize(), table, nil
}

// pgColumns returns the feature names and sanitized columns (every column
// but the target, in table order) and the sanitized target column: the
// public schema, no row read.
func pgColumns(ctx context.Context, conn *pgx.Conn, tbl, table, target string) (names, cols []string, tcol string, err error) {
	rows, err := conn.Query(ctx, "SELECT * FROM "+tbl+" LIMIT 0")
	if err != nil {
		return nil, nil, "", fmt.Errorf("--data: table %q: %w", table, err)
	}
	for _, fd := range rows.FieldDescriptions() {
		id := pgx.Identifier{fd.Name}.Sanitize()
		if fd.Name == target {
			tcol = id
			continue
		}
		names, cols = append(names, fd.Name), append(cols, id)
	}
	rows.Close()
	if tcol == "" {
		return nil, nil, "", fmt.Errorf("--data: table %q has no column %q (columns %v)", table, target, names)
	}
	return names, cols, tcol, nil
}

// pgShape returns the public shape of the table: the feature names and the
// number of rows n (SELECT count(*)), with no value read, so that the plan
// is made and the budget spent before the moments are aggregated.
func pgShape(ctx context.Context, raw, target string) ([]string, int, error) {
	conn, tbl, table, err := pgTable(ctx, raw)
	if err != nil {
		return nil, 0, err
	}
	defer conn.Close(ctx)
	names, _, _, err := pgColumns(ctx, conn, tbl, table, target)
	if err != nil {
		return nil, 0, err
	}
	var n int64
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM "+tbl).Scan(&n); err != nil {
		return nil, 0, fmt.Errorf("--data: rows of table %q: %w", table, err)
	}
	if n == 0 {
		return nil, 0, fmt.Errorf("--data: table %q has no rows", table)
	}
	return names, int(n), nil
}

// prepareRegress prepares the release from the moments when they were
// computed (SSP), otherwise from the rows.
func prepareRegress(ctx context.Context, data learn.Data, m *learn.Moments, s learn.Spec, strat learn.Strategy, p learn.Privacy, opt learn.Options) (*learn.Releaser, error) {
	if m != nil {
		return learn.PrepareMoments(ctx, *m, s, p)
	}
	return learn.Prepare(ctx, data, s, strat, p, opt)
}

// nRows is the number of rows of the release's data.
func nRows(data learn.Data, m *learn.Moments) int {
	if m != nil {
		return m.N
	}
	return data.N()
}

// dataName is the public name of --data in the ledger: the file's base name,
// or "table NAME" for a PostgreSQL URL (never the URL, which may hold
// credentials).
func dataName(path string) string {
	if !pgstore.IsURL(path) {
		return filepath.Base(path)
	}
	if u, err := url.Parse(path); err == nil && u.Query().Get("table") != "" {
		return "table " + u.Query().Get("table")
	}
	return "a PostgreSQL table"
}
