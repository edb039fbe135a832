package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/privopt/privopt/learn"
	"github.com/privopt/privopt/ledger/pgstore/pgtest"
	"github.com/privopt/privopt/noise"
)

// writeStreamCSV writes n rows (a, b, y) in raw units, some outside the
// public ranges, and returns them.
func writeStreamCSV(t *testing.T, n int) (string, [][3]float64) {
	r := rand.New(rand.NewPCG(11, 3))
	var b strings.Builder
	b.WriteString("a,y,b\n")
	rows := make([][3]float64, n)
	for i := range rows {
		a, c := 50+30*r.NormFloat64(), 10*r.Float64()
		y := 2*a - 3*c + 5*r.NormFloat64()
		rows[i] = [3]float64{a, y, c}
		fmt.Fprintf(&b, "%.17g,%.17g,%.17g\n", a, y, c)
	}
	path := filepath.Join(t.TempDir(), "rows.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, rows
}

// The SSP moments streamed from the CSV and aggregated inside PostgreSQL by
// one SQL query agree (with and without --ranges), and the releases drawn
// from them with the same noise seed give the same weights; the CLI runs
// on the table.
func TestRegressMomentsCSVAndPostgres(t *testing.T) {
	url := pgtest.URL(t)
	ctx := context.Background()
	path, rows := writeStreamCSV(t, 3000)
	table := strings.ReplaceAll(pgtest.Name("rows"), "-", "_")
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE TABLE "+table+" (a float8, y float8, b float8)"); err != nil {
		t.Fatal(err)
	}
	defer conn.Exec(ctx, "DROP TABLE "+table)
	src := make([][]any, len(rows))
	for i, r := range rows {
		src[i] = []any{r[0], r[1], r[2]}
	}
	if _, err := conn.CopyFrom(ctx, pgx.Identifier{table}, []string{"a", "y", "b"}, pgx.CopyFromRows(src)); err != nil {
		t.Fatal(err)
	}
	ranges := filepath.Join(t.TempDir(), "ranges.json")
	os.WriteFile(ranges, []byte(`{"a": [0, 100], "b": [0, 10], "y": [-100, 300]}`), 0o644)
	dbURL := url + "&table=" + table
	if !strings.Contains(url, "?") {
		dbURL = url + "?table=" + table
	}
	for _, rp := range []string{"", ranges} {
		var ms [2]*learn.Moments
		var specs [2]learn.Spec
		for i, data := range []string{path, dbURL} {
			specs[i] = learn.Spec{Loss: learn.Squared, Intercept: true, Bounds: learn.Bounds{X: 1, Y: 1}}
			m, names, _, err := regressMoments(ctx, flag.NewFlagSet("x", flag.ContinueOnError), data, "y", rp, learn.SSP, false, &specs[i])
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(names) != "[a b]" || m.N != 3000 {
				t.Fatalf("%s: names %v, n %d", data[:8], names, m.N)
			}
			ms[i] = m
		}
		for i := 0; i < 3; i++ {
			for j := i; j < 3; j++ {
				a, b := ms[0].Gram.At(i, j), ms[1].Gram.At(i, j)
				if math.Abs(a-b) > 1e-9*math.Max(1, math.Abs(a)) {
					t.Errorf("ranges %q: gram[%d,%d] CSV %.15g, PostgreSQL %.15g", rp, i, j, a, b)
				}
			}
			a, b := ms[0].XTy.AtVec(i), ms[1].XTy.AtVec(i)
			if math.Abs(a-b) > 1e-9*math.Max(1, math.Abs(a)) {
				t.Errorf("ranges %q: xty[%d] CSV %.15g, PostgreSQL %.15g", rp, i, a, b)
			}
		}
		p := learn.Privacy{Epsilon: 1, Delta: 1e-6, Mechanism: learn.AnalyticGaussian}
		var ws [2][]float64
		for i := range ws {
			rel, err := learn.PrepareMoments(ctx, *ms[i], specs[i], p)
			if err != nil {
				t.Fatal(err)
			}
			if ws[i], err = rel.Draw(ctx, noise.NewSeededSource(5)); err != nil {
				t.Fatal(err)
			}
		}
		for j := range ws[0] {
			if math.Abs(ws[0][j]-ws[1][j]) > 1e-9*math.Max(1, math.Abs(ws[0][j])) {
				t.Errorf("ranges %q: weight %d CSV %.12g, PostgreSQL %.12g", rp, j, ws[0][j], ws[1][j])
			}
		}
	}
	code, out, errs := runRegressCmd("--data", dbURL, "--target", "y", "--model", "ridge", "--strategy", "ssp",
		"--epsilon", "1", "--delta", "1e-6", "--ranges", ranges, "--json")
	if code != 0 {
		t.Fatalf("regress on PostgreSQL: exit %d: %s", code, errs)
	}
	var got regressOutput
	if err := json.Unmarshal([]byte(out), &got); err != nil || got.Plan.N != 3000 || len(got.Releases) != 1 || len(got.Releases[0].ReleasedValue) != 3 {
		t.Fatalf("regress on PostgreSQL: %v\n%s", err, out)
	}
	if code, _, errs := runRegressCmd("--data", dbURL, "--target", "y", "--model", "ridge", "--strategy", "projection", "--epsilon", "1"); code != 2 || !strings.Contains(errs, "ssp") {
		t.Fatalf("projection on PostgreSQL: exit %d: %s", code, errs)
	}
}

// The CLI's SSP path streams the CSV: same output shape as before, n rows.
func TestRegressStreamedCLI(t *testing.T) {
	path, _ := writeStreamCSV(t, 500)
	code, out, errs := runRegressCmd("--data", path, "--target", "y", "--model", "least-squares", "--strategy", "ssp",
		"--epsilon", "1", "--x-bound", "150", "--y-bound", "300", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got regressOutput
	if err := json.Unmarshal([]byte(out), &got); err != nil || got.Plan.N != 500 || len(got.Releases) != 1 || !hasKey(got.Releases[0].ReleasedValue, "(intercept)") || got.Plan.Guarantee.Certificate == nil {
		t.Fatalf("%v\n%s", err, out)
	}
}

// hasKey reports whether m has the key k (a released weight may be exactly 0:
// it lies on the output grid).
func hasKey(m map[string]float64, k string) bool {
	_, ok := m[k]
	return ok
}
