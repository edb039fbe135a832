package sparse

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// randomTriplets returns a triplet list with duplicates and its dense sum.
func randomTriplets(rng *rand.Rand, m, n, k int) (*Triplets, [][]float64) {
	t := NewTriplets(m, n, k)
	d := make([][]float64, m)
	for i := range d {
		d[i] = make([]float64, n)
	}
	for range k {
		i, j := rng.IntN(m), rng.IntN(n)
		v := float64(rng.IntN(7) - 3) // small integers: exact sums, some cancel to zero
		t.Append(i, j, v)
		d[i][j] += v
	}
	return t, d
}

func TestToCSCMatchesDenseSum(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		m, n := 1+rng.IntN(12), 1+rng.IntN(12)
		tr, want := randomTriplets(rng, m, n, rng.IntN(60))
		a := tr.ToCSC()
		if err := a.Validate(); err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		got := a.Dense()
		for i := range want {
			for j := range want[i] {
				if got[i][j] != want[i][j] {
					t.Fatalf("trial %d: (%d,%d) = %v, want %v", trial, i, j, got[i][j], want[i][j])
				}
				if a.At(i, j) != want[i][j] {
					t.Fatalf("trial %d: At(%d,%d) = %v, want %v", trial, i, j, a.At(i, j), want[i][j])
				}
			}
		}
		for p, v := range a.Val {
			if v == 0 {
				t.Fatalf("trial %d: stored explicit zero at %d", trial, p)
			}
		}
	}
}

func TestMulVecAndTranspose(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 100 {
		m, n := 1+rng.IntN(9), 1+rng.IntN(9)
		tr, d := randomTriplets(rng, m, n, 30)
		a := tr.ToCSC()
		x := make([]float64, n)
		for j := range x {
			x[j] = rng.NormFloat64()
		}
		y := make([]float64, m)
		for i := range y {
			y[i] = rng.NormFloat64()
		}
		ax := a.MulVecTo(nil, 1, x, 0)
		aty := a.MulTransVecTo(nil, 1, y, 0)
		for i := 0; i < m; i++ {
			var s float64
			for j := 0; j < n; j++ {
				s += d[i][j] * x[j]
			}
			if math.Abs(ax[i]-s) > 1e-12 {
				t.Fatalf("Ax[%d] = %v, want %v", i, ax[i], s)
			}
		}
		for j := 0; j < n; j++ {
			var s float64
			for i := 0; i < m; i++ {
				s += d[i][j] * y[i]
			}
			if math.Abs(aty[j]-s) > 1e-12 {
				t.Fatalf("Aᵀy[%d] = %v, want %v", j, aty[j], s)
			}
		}
		// beta accumulates: dst = 2·A·x + 3·dst.
		dst := append([]float64(nil), y...)
		a.MulVecTo(dst, 2, x, 3)
		for i := range dst {
			if want := 2*ax[i] + 3*y[i]; math.Abs(dst[i]-want) > 1e-12 {
				t.Fatalf("alpha/beta: got %v, want %v", dst[i], want)
			}
		}
		at := a.Transpose()
		if err := at.Validate(); err != nil {
			t.Fatal(err)
		}
		if att := at.Transpose(); !equalCSC(att, a) {
			t.Fatal("transpose twice differs from the original")
		}
	}
}

func equalCSC(a, b *CSC) bool {
	if a.Rows != b.Rows || a.Cols != b.Cols || a.Nnz() != b.Nnz() {
		return false
	}
	for j := range a.ColPtr {
		if a.ColPtr[j] != b.ColPtr[j] {
			return false
		}
	}
	for p := range a.RowIdx {
		if a.RowIdx[p] != b.RowIdx[p] || a.Val[p] != b.Val[p] {
			return false
		}
	}
	return true
}

func TestValidateRejects(t *testing.T) {
	cases := []struct {
		name string
		a    CSC
	}{
		{"short colptr", CSC{Rows: 2, Cols: 2, ColPtr: []int{0, 0}}},
		{"unsorted rows", CSC{Rows: 3, Cols: 1, ColPtr: []int{0, 2}, RowIdx: []int{2, 1}, Val: []float64{1, 1}}},
		{"duplicate rows", CSC{Rows: 3, Cols: 1, ColPtr: []int{0, 2}, RowIdx: []int{1, 1}, Val: []float64{1, 1}}},
		{"row out of range", CSC{Rows: 1, Cols: 1, ColPtr: []int{0, 1}, RowIdx: []int{1}, Val: []float64{1}}},
		{"NaN", CSC{Rows: 1, Cols: 1, ColPtr: []int{0, 1}, RowIdx: []int{0}, Val: []float64{math.NaN()}}},
		{"length mismatch", CSC{Rows: 1, Cols: 1, ColPtr: []int{0, 1}, RowIdx: []int{0}}},
	}
	for _, c := range cases {
		if err := c.a.Validate(); err == nil {
			t.Errorf("%s: Validate accepted an invalid matrix", c.name)
		}
	}
	if err := NewCSC(3, 4).Validate(); err != nil {
		t.Errorf("empty matrix: %v", err)
	}
}

func BenchmarkToCSC(b *testing.B) {
	for _, nnz := range []int{10_000, 1_000_000} {
		b.Run(fmt.Sprintf("nnz=%d", nnz), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(5, 6))
			m := nnz / 10
			tr := NewTriplets(m, m, nnz)
			for range nnz {
				tr.Append(rng.IntN(m), rng.IntN(m), rng.NormFloat64())
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				tr.ToCSC()
			}
		})
	}
}
