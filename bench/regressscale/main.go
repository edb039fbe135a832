// Command regressscale generates regression rows and measures the
// data-that-does-not-fit-in-memory paths of regress (BENCHMARKS.md,
// "Regression at scale"):
//
//	go run ./bench/regressscale gen -n 100000000 | /usr/bin/time -v privopt regress --data /dev/stdin --target y --model ridge --strategy ssp --epsilon 1 --delta 1e-6 --ranges RANGES.json
//	go run ./bench/regressscale gen -n 10000000 > rows.csv
//	go run ./bench/regressscale load -csv rows.csv -pg URL -table rows
//	go run ./bench/regressscale compare -csv rows.csv -pg URL -table rows
//
// gen writes n rows "a,b,c,y" (seeded; y linear in a, b, c plus noise; a
// few rows outside the public ranges of ranges.json printed by -ranges).
// load copies a CSV into a new PostgreSQL table. compare computes the SSP
// moments by streaming the CSV and by one SQL aggregate in PostgreSQL,
// draws the release from both with the same noise seed and prints the
// times and the largest weight difference.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/privopt/privopt/learn"
	"github.com/privopt/privopt/noise"
)

func main() {
	if len(os.Args) < 2 {
		fail(fmt.Errorf("usage: regressscale gen|load|compare [flags]"))
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	n := fs.Int("n", 1000000, "gen: rows")
	seed := fs.Uint64("seed", 1, "gen: data seed; compare: noise seed")
	csvPath := fs.String("csv", "", "load, compare: CSV file")
	pg := fs.String("pg", "", "load, compare: PostgreSQL URL")
	table := fs.String("table", "rows", "load, compare: table name")
	fs.Parse(os.Args[2:])
	ctx := context.Background()
	switch os.Args[1] {
	case "gen":
		gen(*n, *seed)
	case "load":
		load(ctx, *csvPath, *pg, *table)
	case "compare":
		compare(ctx, *csvPath, *pg, *table, *seed)
	default:
		fail(fmt.Errorf("unknown mode %q", os.Args[1]))
	}
}

// Public ranges of the generated columns (ranges.json of the commands above).
var ranges = map[string][2]float64{"a": {-4, 4}, "b": {0, 10}, "c": {-1, 1}, "y": {-20, 20}}

func gen(n int, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 2))
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	defer w.Flush()
	w.WriteString("a,b,c,y\n")
	buf := make([]byte, 0, 64)
	for i := 0; i < n; i++ {
		a, b, c := r.NormFloat64(), 10*r.Float64(), 2*r.Float64()-1
		y := 1.5*a - 0.4*b + 2*c + 1 + r.NormFloat64()
		buf = buf[:0]
		for j, v := range []float64{a, b, c, y} {
			if j > 0 {
				buf = append(buf, ',')
			}
			buf = strconv.AppendFloat(buf, v, 'g', 7, 64)
		}
		buf = append(buf, '\n')
		w.Write(buf)
	}
}

func load(ctx context.Context, path, url, table string) {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		fail(err)
	}
	defer conn.Close(ctx)
	id := pgx.Identifier{table}.Sanitize()
	if _, err := conn.Exec(ctx, "DROP TABLE IF EXISTS "+id+"; CREATE TABLE "+id+" (a float8, b float8, c float8, y float8)"); err != nil {
		fail(err)
	}
	f, err := os.Open(path)
	if err != nil {
		fail(err)
	}
	defer f.Close()
	t0 := time.Now()
	tag, err := conn.PgConn().CopyFrom(ctx, f, "COPY "+id+" FROM STDIN WITH (FORMAT csv, HEADER true)")
	if err != nil {
		fail(err)
	}
	fmt.Printf("loaded %d rows in %.1f s\n", tag.RowsAffected(), time.Since(t0).Seconds())
}

func compare(ctx context.Context, path, url, table string, seed uint64) {
	spec := learn.Spec{Loss: learn.Squared, Intercept: true, Bounds: learn.Bounds{X: math.Sqrt(3), Y: 1}}
	names := []string{"a", "b", "c"}
	maps := make([]learn.ColumnMap, 3)
	for j, nm := range names {
		r := ranges[nm]
		maps[j] = learn.ColumnMap{Lo: r[0], Hi: r[1], Center: (r[0] + r[1]) / 2, Scale: (r[1] - r[0]) / 2}
	}
	ry := ranges["y"]
	ymap := learn.ColumnMap{Lo: ry[0], Hi: ry[1], Center: (ry[0] + ry[1]) / 2, Scale: (ry[1] - ry[0]) / 2}
	// CSV, streamed.
	t0 := time.Now()
	f, err := os.Open(path)
	if err != nil {
		fail(err)
	}
	rows, err := learn.NewCSVRows(f, "y")
	if err != nil {
		fail(err)
	}
	mc, err := learn.StreamMoments(ctx, rows, spec, func(x []float64, y float64) float64 {
		for j, v := range x {
			x[j] = (math.Max(maps[j].Lo, math.Min(maps[j].Hi, v)) - maps[j].Center) / maps[j].Scale
		}
		return (math.Max(ymap.Lo, math.Min(ymap.Hi, y)) - ymap.Center) / ymap.Scale
	})
	f.Close()
	if err != nil {
		fail(err)
	}
	tc := time.Since(t0)
	// PostgreSQL, one aggregate.
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		fail(err)
	}
	defer conn.Close(ctx)
	cols := []string{`"a"`, `"b"`, `"c"`}
	sql, err := learn.MomentsSQL(pgx.Identifier{table}.Sanitize(), cols, `"y"`, maps, ymap, spec)
	if err != nil {
		fail(err)
	}
	t1 := time.Now()
	vals := make([]float64, 1+10+4)
	dest := make([]any, len(vals))
	for i := range vals {
		dest[i] = &vals[i]
	}
	if err := conn.QueryRow(ctx, sql).Scan(dest...); err != nil {
		fail(err)
	}
	tp := time.Since(t1)
	mp, err := learn.MomentsFromRow(vals, 3, spec)
	if err != nil {
		fail(err)
	}
	p := learn.Privacy{Epsilon: 1, Delta: 1e-6, Mechanism: learn.AnalyticGaussian}
	var ws [2][]float64
	maxRel := 0.0
	for i, m := range []learn.Moments{mc, mp} {
		rel, err := learn.PrepareMoments(ctx, m, spec, p)
		if err != nil {
			fail(err)
		}
		if ws[i], err = rel.Draw(ctx, noise.NewSeededSource(seed)); err != nil {
			fail(err)
		}
	}
	for i := 0; i < 4; i++ {
		for j := i; j < 4; j++ {
			a, b := mc.Gram.At(i, j), mp.Gram.At(i, j)
			maxRel = math.Max(maxRel, math.Abs(a-b)/math.Max(1, math.Abs(a)))
		}
	}
	maxW := 0.0
	for j := range ws[0] {
		maxW = math.Max(maxW, math.Abs(ws[0][j]-ws[1][j]))
	}
	fmt.Printf("rows %d (CSV) %d (PostgreSQL)\nCSV streamed moments: %.1f s\nPostgreSQL one aggregate: %.1f s\nlargest relative moment difference %.3g\nweights (seed %d) CSV %v\nweights (seed %d) PostgreSQL %v\nlargest |Δw| %.3g\n",
		mc.N, mp.N, tc.Seconds(), tp.Seconds(), maxRel, seed, ws[0], seed, ws[1], maxW)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "regressscale:", err)
	os.Exit(1)
}
