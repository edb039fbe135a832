package learn

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/privopt/privopt/noise"
)

// genCSV writes n rows of y = 0.5·x0 − 0.25·x1 + 0.1 + noise, with rows
// beyond the bounds (so clipping matters).
func genCSV(n int, seed uint64) string {
	r := rand.New(rand.NewPCG(seed, 1))
	var b strings.Builder
	b.WriteString("x0,target,x1\n")
	for i := 0; i < n; i++ {
		x0, x1 := 1.5*r.NormFloat64(), r.Float64()*2-1
		y := 0.5*x0 - 0.25*x1 + 0.1 + 0.3*r.NormFloat64()
		fmt.Fprintf(&b, "%.17g,%.17g,%.17g\n", x0, y, x1)
	}
	return b.String()
}

// Streamed moments equal the in-memory moments of ReadCSV + Clip (the SSP
// statistic) to rounding, and the SSP release from them equals Prepare's
// SSP release with the same noise seed.
func TestStreamMomentsMatchInMemory(t *testing.T) {
	ctx := context.Background()
	text := genCSV(2000, 7)
	s := Spec{Loss: Squared, Intercept: true, Bounds: Bounds{X: 1.2, Y: 1}}
	data, names, err := ReadCSV(strings.NewReader(text), "target")
	if err != nil {
		t.Fatal(err)
	}
	want, err := MomentsOf(data, s)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := NewCSVRows(strings.NewReader(text), "target")
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(rows.Names()) != fmt.Sprint(names) {
		t.Fatalf("names %v, ReadCSV %v", rows.Names(), names)
	}
	got, err := StreamMoments(ctx, rows, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.N != 2000 || got.D != 2 {
		t.Fatalf("n %d d %d", got.N, got.D)
	}
	for i := 0; i < 3; i++ {
		for j := i; j < 3; j++ {
			if a, b := got.Gram.At(i, j), want.Gram.At(i, j); math.Abs(a-b) > 1e-10*math.Max(1, math.Abs(b)) {
				t.Errorf("gram[%d,%d] streamed %.15g, in memory %.15g", i, j, a, b)
			}
		}
		if a, b := got.XTy.AtVec(i), want.XTy.AtVec(i); math.Abs(a-b) > 1e-10*math.Max(1, math.Abs(b)) {
			t.Errorf("xty[%d] streamed %.15g, in memory %.15g", i, a, b)
		}
	}
	if got.Gram.At(2, 2) != 2000 {
		t.Errorf("intercept entry %v, want n = 2000", got.Gram.At(2, 2))
	}
	p := Privacy{Epsilon: 1, Delta: 1e-6, Mechanism: AnalyticGaussian}
	r1, err := PrepareMoments(ctx, got, s, p)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := Prepare(ctx, data, s, SSP, p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r1.Guarantee().Statement != r2.Guarantee().Statement {
		t.Errorf("guarantees differ:\n%s\n%s", r1.Guarantee().Statement, r2.Guarantee().Statement)
	}
	w1, err := r1.Draw(ctx, noise.NewSeededSource(3))
	if err != nil {
		t.Fatal(err)
	}
	w2, err := r2.Draw(ctx, noise.NewSeededSource(3))
	if err != nil {
		t.Fatal(err)
	}
	for j := range w1 {
		if math.Abs(w1[j]-w2[j]) > 1e-9*math.Max(1, math.Abs(w2[j])) {
			t.Errorf("weight %d: streamed %.12g, in memory %.12g", j, w1[j], w2[j])
		}
	}
}

// The streaming reader allocates at most one short-lived string per row
// (encoding/csv's record text; the record slice and the sums are reused), so
// nothing proportional to the rows is retained (the 10⁸-row memory
// measurement is in BENCHMARKS.md).
func TestStreamMomentsAllocations(t *testing.T) {
	text := genCSV(5000, 9)
	s := Spec{Loss: Squared, Intercept: true}
	allocs := testing.AllocsPerRun(3, func() {
		rows, err := NewCSVRows(bytes.NewReader([]byte(text)), "target")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := StreamMoments(context.Background(), rows, s, nil); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 5000+100 {
		t.Errorf("%v allocations for 5,000 rows: more than one per row", allocs)
	}
}

// Malformed input names the line and column, never the value.
func TestStreamMomentsErrors(t *testing.T) {
	// Malformed records are replaced by the public row of zeros (CSVRule):
	// the moments equal those of the file with those rows zeroed, and no
	// error refuses (the count is a private diagnostic).
	bad := "a,y\n1,0.5\nsecret-7.5x,1\n2,NaN\n3\n4,1,9\n0.25,-0.5\n"
	good := "a,y\n1,0.5\n0,0\n0,0\n0,0\n0,0\n0.25,-0.5\n"
	s := Spec{Loss: Squared, Intercept: true, Bounds: Bounds{X: 1, Y: 1}}
	var ms [2]Moments
	for i, text := range []string{bad, good} {
		rows, err := NewCSVRows(strings.NewReader(text), "y")
		if err != nil {
			t.Fatal(err)
		}
		if ms[i], err = StreamMoments(context.Background(), rows, s, nil); err != nil {
			t.Fatal(err)
		}
		if want := []int{4, 0}[i]; rows.Replaced() != want {
			t.Fatalf("replaced %d records, want %d", rows.Replaced(), want)
		}
	}
	if !mat.EqualApprox(ms[0].Gram, ms[1].Gram, 0) || !mat.EqualApprox(ms[0].XTy, ms[1].XTy, 0) || ms[0].N != 6 {
		t.Fatalf("moments with replaced rows %v differ from the zero-row file %v", ms[0], ms[1])
	}
	names, n, err := ReadCSVShape(strings.NewReader(bad), "y")
	if err != nil || n != 6 || len(names) != 1 {
		t.Fatalf("shape %v %d %v, want 6 records of 1 feature", names, n, err)
	}
	data, _, rep, err := ReadCSVReplaced(strings.NewReader(bad), "y")
	if err != nil || data.N() != 6 || rep != 4 || data.X.At(1, 0) != 0 || data.Y[2] != 0 {
		t.Fatalf("ReadCSVReplaced: n %d, replaced %d, %v", data.N(), rep, err)
	}
	if _, err := NewCSVRows(strings.NewReader("a,b\n"), "y"); err == nil || strings.Contains(err.Error(), "secret") {
		t.Fatal("missing target accepted")
	}
}
