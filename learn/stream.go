package learn

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/privopt/privopt/accounting"
	"github.com/privopt/privopt/ledger"
)

// Moments are the sufficient statistics of the squared loss over n rows
// clipped to the public bounds (Bounds.Clip): the upper triangle of X̃ᵀX̃ and
// X̃ᵀy for the design X̃ = [X, 1] (or X without an intercept). The SSP
// strategy releases exactly these (prepareSSP), so a release from Moments
// equals the in-memory release on the same rows up to the order of the
// floating-point sums.
type Moments struct {
	N         int           // rows
	D         int           // features
	Intercept bool          // whether X̃ has the column of ones
	Gram      *mat.SymDense // X̃ᵀX̃ (k×k, k = D + 1 with an intercept)
	XTy       *mat.VecDense // X̃ᵀy (k)
}

// MomentsAccumulator sums the moments of rows added one at a time, in
// O(k²) memory whatever the number of rows: one pass, constant memory.
type MomentsAccumulator struct {
	s    Spec
	d, k int
	n    int
	gram []float64 // upper triangle, row-major k×k
	xty  []float64
	z    []float64
}

// NewMomentsAccumulator returns an empty accumulator for d features under
// the bounds and intercept of s.
func NewMomentsAccumulator(d int, s Spec) (*MomentsAccumulator, error) {
	if d < 1 {
		return nil, invalidf("moments: %d features, need at least 1", d)
	}
	if err := s.Validate(d); err != nil {
		return nil, err
	}
	k := s.weights(d)
	return &MomentsAccumulator{s: s, d: d, k: k, gram: make([]float64, k*k), xty: make([]float64, k), z: make([]float64, k)}, nil
}

// Add clips the row (x, y) exactly as Bounds.Clip — x ← x·min(1, X/‖x‖₂),
// y ← max(−Y, min(Y, y)) — and adds its outer products. x is not modified.
func (a *MomentsAccumulator) Add(x []float64, y float64) error {
	if len(x) != a.d {
		return invalidf("moments: row has %d features, want %d", len(x), a.d)
	}
	b := a.s.bounds()
	nr := 0.0
	for _, v := range x {
		nr += v * v
	}
	f := 1.0
	if nr = math.Sqrt(nr); nr > b.X {
		f = b.X / nr
	}
	for j, v := range x {
		a.z[j] = v * f
	}
	if a.k > a.d {
		a.z[a.d] = 1
	}
	y = math.Max(-b.Y, math.Min(b.Y, y))
	for i, zi := range a.z {
		row := a.gram[i*a.k:]
		for j := i; j < a.k; j++ {
			row[j] += zi * a.z[j]
		}
		a.xty[i] += zi * y
	}
	a.n++
	return nil
}

// Moments returns the sums so far.
func (a *MomentsAccumulator) Moments() Moments {
	g := mat.NewSymDense(a.k, nil)
	for i := 0; i < a.k; i++ {
		for j := i; j < a.k; j++ {
			g.SetSym(i, j, a.gram[i*a.k+j])
		}
	}
	return Moments{N: a.n, D: a.d, Intercept: a.k > a.d, Gram: g, XTy: mat.NewVecDense(a.k, append([]float64(nil), a.xty...))}
}

// MomentsOf returns the Moments of a dataset in memory (for tests and for
// comparing with a streamed or in-database computation).
func MomentsOf(data Data, s Spec) (Moments, error) {
	if err := data.Validate(); err != nil {
		return Moments{}, err
	}
	_, d := data.X.Dims()
	if err := s.Validate(d); err != nil {
		return Moments{}, err
	}
	clipped, _ := s.bounds().Clip(data)
	g, v := s.moments(clipped)
	return Moments{N: data.N(), D: d, Intercept: s.Intercept, Gram: g, XTy: v}, nil
}

// CSVRows reads the rows of a CSV file with a header row one at a time,
// with one record buffer reused (constant memory): every column except the
// target is a feature, in file order (the same convention as ReadCSV).
//
// The public rule for malformed rows (CSVRule): the header is public and is
// checked when the reader is made; every later record is one row, and a
// record that does not parse — a wrong number of fields, a cell that is not
// a number, NaN or ±Inf, a quoting error — is replaced by the fixed public
// row of zeros (features and target 0, before any public preprocessing such
// as range scaling and clipping). Next never fails on the content of a row,
// so reading the private rows cannot refuse a release; Replaced counts the
// replacements, a private diagnostic.
type CSVRows struct {
	rd       *csv.Reader
	header   []string
	names    []string
	ti       int
	line     int
	x        []float64
	replaced int
}

// CSVRule states the public rule of CSVRows, ReadCSV and ReadCSVShape for
// malformed rows (printed in release plans).
const CSVRule = "the CSV header (column names) and the number of records n are public and read before the spend; after it every record is one row, and a record that does not parse (wrong field count, a cell that is not a finite number, a quoting error) is replaced by the fixed public row of zeros — no row refuses the release, and the replacement count is a private diagnostic"

// newCSVReader returns the csv.Reader of the rule: variable field counts and
// lazy quotes, so that only a structural I/O failure is an error.
func newCSVReader(r io.Reader) *csv.Reader {
	rd := csv.NewReader(r)
	rd.TrimLeadingSpace = true
	rd.ReuseRecord = true
	rd.FieldsPerRecord = -1
	rd.LazyQuotes = true
	return rd
}

// NewCSVRows reads the header of r and finds target.
func NewCSVRows(r io.Reader, target string) (*CSVRows, error) {
	rd := newCSVReader(r)
	h, err := rd.Read()
	if err != nil {
		return nil, invalidf("csv header: %v", err)
	}
	c := &CSVRows{rd: rd, header: append([]string(nil), h...), ti: -1, line: 1}
	for j, name := range c.header {
		if name == target {
			c.ti = j
		} else {
			c.names = append(c.names, name)
		}
	}
	if c.ti < 0 {
		return nil, invalidf("csv has no column %q (columns %v)", target, c.header)
	}
	if len(c.names) == 0 {
		return nil, invalidf("csv has no feature column besides %q", target)
	}
	c.x = make([]float64, len(c.names))
	return c, nil
}

// Names returns the feature names.
func (c *CSVRows) Names() []string { return c.names }

// Replaced returns the number of records replaced by the public row so far
// (private: it depends on the data).
func (c *CSVRows) Replaced() int { return c.replaced }

// Next returns the next row (x is reused by the next call), or io.EOF. A
// record that does not parse yields the public row of zeros (CSVRows); the
// only other error is a read failure of the underlying reader, whose text
// holds no cell.
func (c *CSVRows) Next() ([]float64, float64, error) {
	rec, err := c.rd.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, 0, io.EOF
		}
		if !isParseError(err) {
			return nil, 0, invalidf("csv: reading line %d failed", c.line+1)
		}
		rec = nil // a record that does not parse: the public row
	}
	c.line++
	y := 0.0
	k := 0
	ok := len(rec) == len(c.header)
	for j := 0; ok && j < len(rec); j++ {
		v, err := strconv.ParseFloat(rec[j], 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			ok = false
			break
		}
		if j == c.ti {
			y = v
		} else {
			c.x[k] = v
			k++
		}
	}
	if !ok {
		for j := range c.x {
			c.x[j] = 0
		}
		y = 0
		c.replaced++
	}
	return c.x, y, nil
}

// isParseError reports whether err is a csv.ParseError (a malformed
// record, not a read failure).
func isParseError(err error) bool {
	var pe *csv.ParseError
	return errors.As(err, &pe)
}

// RowMap is a public row-wise preprocessing applied before clipping (for
// example scaling by published ranges); it may modify x in place and
// returns the target.
type RowMap func(x []float64, y float64) float64

// StreamMoments reads every row of rows in one pass (ctx is checked every
// 65,536 rows), applies m (nil: none), clips and sums. Memory is O(k²).
func StreamMoments(ctx context.Context, rows *CSVRows, s Spec, m RowMap) (Moments, error) {
	acc, err := NewMomentsAccumulator(len(rows.names), s)
	if err != nil {
		return Moments{}, err
	}
	for i := 0; ; i++ {
		if i&0xffff == 0 {
			if err := ctx.Err(); err != nil {
				return Moments{}, err
			}
		}
		x, y, err := rows.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return Moments{}, err
		}
		if m != nil {
			y = m(x, y)
		}
		if err := acc.Add(x, y); err != nil {
			return Moments{}, err
		}
	}
	if acc.n == 0 {
		return Moments{}, invalidf("csv has no data rows")
	}
	return acc.Moments(), nil
}

// PrepareMoments prepares an SSP release (the only strategy whose statistic
// is the moments; see Strategy SSP) from Moments computed anywhere — in
// memory, streamed from a file, or by one SQL aggregate inside a database
// (MomentsSQL). The guarantee and the noise are those of Prepare with
// strategy SSP on the same rows.
func PrepareMoments(ctx context.Context, m Moments, s Spec, p Privacy) (*Releaser, error) {
	if err := s.Validate(m.D); err != nil {
		return nil, err
	}
	if m.Intercept != s.Intercept {
		return nil, invalidf("moments were computed with intercept %v, spec has %v", m.Intercept, s.Intercept)
	}
	if k := s.weights(m.D); m.Gram == nil || m.Gram.SymmetricDim() != k || m.XTy == nil || m.XTy.Len() != k {
		return nil, invalidf("moments do not have dimension %d", k)
	}
	if m.N < 1 {
		return nil, invalidf("moments of %d rows", m.N)
	}
	p = p.WithDefault()
	if err := p.Validate(); err != nil {
		return nil, err
	}
	g := Guarantee{Strategy: SSP, Noise: p.Mechanism, Epsilon: p.Epsilon, Delta: p.Delta}
	return prepareSSPMoments(ctx, m.Gram, m.XTy, m.N, m.D, s, p, g)
}

// ColumnMap is the public per-column preprocessing of MomentsSQL: value v
// of a column becomes (max(Lo, min(Hi, v)) − Center)/Scale; Lo = −Inf,
// Hi = +Inf, Center = 0, Scale = 1 is the identity.
type ColumnMap struct {
	Lo, Hi, Center, Scale float64
}

// Identity is the ColumnMap that leaves a column unchanged.
var Identity = ColumnMap{Lo: math.Inf(-1), Hi: math.Inf(1), Center: 0, Scale: 1}

func (c ColumnMap) sql(col string) string {
	e := "COALESCE(" + col + ", 0)::float8"
	if !math.IsInf(c.Hi, 1) {
		e = fmt.Sprintf("LEAST(%s, %s)", e, lit(c.Hi))
	}
	if !math.IsInf(c.Lo, -1) {
		e = fmt.Sprintf("GREATEST(%s, %s)", e, lit(c.Lo))
	}
	if c.Center != 0 || c.Scale != 1 {
		e = fmt.Sprintf("((%s - %s) / %s)", e, lit(c.Center), lit(c.Scale))
	}
	return e
}

func lit(v float64) string { return "'" + strconv.FormatFloat(v, 'g', -1, 64) + "'::float8" }

// MomentsSQL returns one SQL query (PostgreSQL dialect, one aggregate over
// the table, so it runs unchanged on a Citus distributed table where the
// sums are computed on the shards) whose single result row is
//
//	n, then the upper triangle of X̃ᵀX̃ row by row, then X̃ᵀy
//
// over the rows of table after the per-column maps (features in, in order,
// then the target) and the clipping of Bounds.Clip: f = min(1, X/‖x‖₂),
// x ← f·x, y ← max(−Y, min(Y, y)). NULL is read as 0 (a fixed row-wise
// map). table and the column names must already be quoted identifiers
// (e.g. pgx.Identifier.Sanitize). MomentsFromRow turns the row into Moments.
func MomentsSQL(table string, features []string, target string, maps []ColumnMap, ymap ColumnMap, s Spec) (string, error) {
	d := len(features)
	if err := s.Validate(d); err != nil {
		return "", err
	}
	if len(maps) != d {
		return "", invalidf("moments sql: %d column maps for %d features", len(maps), d)
	}
	b := s.bounds()
	var z []string
	for j, c := range features {
		z = append(z, fmt.Sprintf("%s AS z%d", maps[j].sql(c), j))
	}
	z = append(z, ymap.sql(target)+" AS t")
	var sq []string
	for j := 0; j < d; j++ {
		sq = append(sq, fmt.Sprintf("z%d*z%d", j, j))
	}
	norm := "sqrt(" + strings.Join(sq, " + ") + ")"
	var cl []string
	for j := 0; j < d; j++ {
		cl = append(cl, fmt.Sprintf("z%d * f AS x%d", j, j))
	}
	cl = append(cl, fmt.Sprintf("GREATEST(%s, LEAST(%s, t)) AS y", lit(-b.Y), lit(b.Y)))
	k := s.weights(d)
	v := func(i int) string {
		if i == d {
			return "1"
		}
		return fmt.Sprintf("x%d", i)
	}
	aggs := []string{"count(*)::float8"}
	for i := 0; i < k; i++ {
		for j := i; j < k; j++ {
			aggs = append(aggs, fmt.Sprintf("COALESCE(sum(%s*%s), 0)", v(i), v(j)))
		}
	}
	for i := 0; i < k; i++ {
		aggs = append(aggs, fmt.Sprintf("COALESCE(sum(%s*y), 0)", v(i)))
	}
	// OFFSET 0 keeps PostgreSQL from inlining the per-row expressions into
	// every aggregate (it does not share common subexpressions): each row's
	// z, f, x and y are computed once.
	q := fmt.Sprintf(`SELECT %s FROM (SELECT %s FROM (SELECT *, CASE WHEN %s > %s THEN %s / %s ELSE 1 END AS f FROM (SELECT %s FROM %s OFFSET 0) AS s OFFSET 0) AS r OFFSET 0) AS c`,
		strings.Join(aggs, ", "), strings.Join(cl, ", "), norm, lit(b.X), lit(b.X), norm, strings.Join(z, ", "), table)
	return q, nil
}

// MomentsFromRow converts the result row of MomentsSQL to Moments.
func MomentsFromRow(row []float64, d int, s Spec) (Moments, error) {
	k := s.weights(d)
	if len(row) != 1+k*(k+1)/2+k {
		return Moments{}, invalidf("moments row has %d values, want %d", len(row), 1+k*(k+1)/2+k)
	}
	g := mat.NewSymDense(k, nil)
	p := 1
	for i := 0; i < k; i++ {
		for j := i; j < k; j++ {
			g.SetSym(i, j, row[p])
			p++
		}
	}
	return Moments{N: int(row[0]), D: d, Intercept: s.Intercept, Gram: g, XTy: mat.NewVecDense(k, append([]float64(nil), row[p:]...))}, nil
}

// LedgerEntry is the audit-log entry of a release with guarantee g: query
// names it, weights is the number of released weights. The release's
// privacy curve is derived by ledger.CurveOf from the mechanism, the
// sensitivity and the noise std recorded here.
func (g Guarantee) LedgerEntry(query string, weights int) ledger.Entry {
	return ledger.Entry{Query: query, Mechanism: string(g.Noise),
		Params:      map[string]float64{"sensitivity": g.Sensitivity, "noise_std": g.NoiseStd, "weights": float64(weights)},
		Cost:        accounting.Cost{Epsilon: g.Epsilon, Delta: g.Delta, Gamma: g.Gamma},
		Sensitivity: fmt.Sprintf("%.6g %s", g.Sensitivity, g.Source), Guarantee: g.Statement}
}
