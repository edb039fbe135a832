package highs

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/sparse"
)

// benchLP returns a random LP in standard form with nnz nonzeros in general
// rows (10 per row) plus box bounds −1 ≤ x ≤ 1 as singleton rows, the layout
// the model package produces.
func benchLP(nnz int) *solver.Problem {
	rng := rand.New(rand.NewPCG(1, uint64(nnz)))
	m := nnz / 10
	n := 2 * m
	t := sparse.NewTriplets(m+2*n, n, nnz+2*n)
	for i := 0; i < m; i++ {
		for k := 0; k < 10; k++ {
			t.Append(i, rng.IntN(n), rng.NormFloat64())
		}
	}
	b := make([]float64, m+2*n)
	for i := 0; i < m; i++ {
		b[i] = 1 + rng.Float64()
	}
	for j := 0; j < n; j++ {
		t.Append(m+2*j, j, -1)
		t.Append(m+2*j+1, j, 1)
		b[m+2*j], b[m+2*j+1] = 1, 1
	}
	q := make([]float64, n)
	for j := range q {
		q[j] = rng.NormFloat64()
	}
	return &solver.Problem{Q: q, A: t.ToCSC(), B: b, Cones: []cone.Cone{cone.NewNonnegative(m + 2*n)}}
}

// BenchmarkCopyIn measures the backend's copy-in path: converting the standard
// form (singleton rows to bounds, 32-bit indices) and passing it to a fresh
// HiGHS instance in one call; no solve.
func BenchmarkCopyIn(b *testing.B) {
	for _, nnz := range []int{10_000, 100_000, 1_000_000} {
		p := benchLP(nnz)
		b.Run(fmt.Sprintf("nnz=%d", nnz), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				d, err := newStdLP(p)
				if err != nil {
					b.Fatal(err)
				}
				in := newInstance()
				if err := d.pass(in); err != nil {
					b.Fatal(err)
				}
				in.destroy()
			}
		})
	}
}

// BenchmarkConvert measures only the Go-side conversion (newStdLP).
func BenchmarkConvert(b *testing.B) {
	for _, nnz := range []int{10_000, 100_000, 1_000_000} {
		p := benchLP(nnz)
		b.Run(fmt.Sprintf("nnz=%d", nnz), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				d, err := newStdLP(p)
				if err != nil {
					b.Fatal(err)
				}
				d.release()
			}
		})
	}
}

// BenchmarkLPAddRows measures appending a batch of 100 cuts over 2,000
// columns (the cutting-plane pattern of package noise) and the warm re-solve.
func BenchmarkLPAddRows(b *testing.B) {
	rng := rand.New(rand.NewPCG(2, 3))
	n, k := 2000, 100
	cost := make([]float64, n)
	lo := make([]float64, n)
	up := make([]float64, n)
	for j := range cost {
		cost[j] = -rng.Float64()
		up[j] = 1
	}
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		lp := NewLP(Options{})
		if err := lp.AddColumns(cost, lo, up); err != nil {
			b.Fatal(err)
		}
		rows, rlo, rup := cutRowsBench(rng, n, k)
		b.StartTimer()
		if err := lp.AddRows(rlo, rup, rows); err != nil {
			b.Fatal(err)
		}
		if _, err := lp.Solve(context.Background()); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		lp.Close()
		b.StartTimer()
	}
}

func cutRowsBench(rng *rand.Rand, n, k int) (*sparse.CSC, []float64, []float64) {
	t := sparse.NewTriplets(n, k, k*50)
	lo := make([]float64, k)
	up := make([]float64, k)
	for r := 0; r < k; r++ {
		for e := 0; e < 50; e++ {
			t.Append(rng.IntN(n), r, rng.Float64())
		}
		lo[r] = math.Inf(-1)
		up[r] = 5
	}
	return t.ToCSC(), lo, up
}
