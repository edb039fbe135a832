package model

import (
	"math"
	"math/rand/v2"
	"testing"
)

// dense is an affine map x ↦ A·x + c in dense form, the independent reference
// every expression operation is checked against.
type dense struct {
	A [][]float64 // n × N
	c []float64
}

func newDense(n, N int) dense {
	d := dense{A: make([][]float64, n), c: make([]float64, n)}
	for i := range d.A {
		d.A[i] = make([]float64, N)
	}
	return d
}

// toDense converts e to dense form over N columns and checks the CSR
// invariant (strictly increasing columns, no explicit zeros).
func toDense(t *testing.T, e Expr, N int) dense {
	t.Helper()
	if err := e.Err(); err != nil {
		t.Fatalf("unexpected expression error: %v", err)
	}
	d := newDense(e.Len(), N)
	for i := 0; i < e.Len(); i++ {
		prev := -1
		e.Terms(i, func(col int, v float64) {
			if col <= prev {
				t.Fatalf("row %d: column %d after %d, want strictly increasing", i, col, prev)
			}
			if v == 0 {
				t.Fatalf("row %d: explicit zero at column %d", i, col)
			}
			prev = col
			d.A[i][col] = v
		})
	}
	copy(d.c, e.Constant())
	return d
}

// randAffine returns a random affine vector expression of length n over the
// columns of m (about density·N nonzeros per row, some rows empty, some
// constants zero) and its dense form.
func randAffine(rng *rand.Rand, m *Model, n int, density float64) (Expr, dense) {
	N := m.NumVars()
	d := newDense(n, N)
	b := NewExprBuilder(n)
	for i := 0; i < n; i++ {
		for j := 0; j < N; j++ {
			if rng.Float64() < density {
				v := math.Round(rng.NormFloat64()*100) / 16 // exact in binary: sums are exact
				if v == 0 {
					continue
				}
				col := j
				b.AddCol(m, i, col, v)
				d.A[i][col] += v
			}
		}
		if rng.Float64() < 0.7 {
			c := math.Round(rng.NormFloat64()*100) / 16
			b.AddConst(i, c)
			d.c[i] += c
		}
	}
	return b.Expr(), d
}

func randVec(rng *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = math.Round(rng.NormFloat64()*100) / 16
	}
	return v
}

// close reports |a − b| ≤ tol·max(1, |a|, |b|).
func close(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

func assertDense(t *testing.T, name string, got, want dense, tol float64) {
	t.Helper()
	if len(got.A) != len(want.A) {
		t.Fatalf("%s: length %d, want %d", name, len(got.A), len(want.A))
	}
	for i := range want.A {
		for j := range want.A[i] {
			if !close(got.A[i][j], want.A[i][j], tol) {
				t.Fatalf("%s: A[%d][%d] = %v, want %v", name, i, j, got.A[i][j], want.A[i][j])
			}
		}
		if !close(got.c[i], want.c[i], tol) {
			t.Fatalf("%s: c[%d] = %v, want %v", name, i, got.c[i], want.c[i])
		}
	}
}

func assertVec(t *testing.T, name string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: length %d, want %d (got %v)", name, len(got), len(want), got)
	}
	for i := range want {
		if !close(got[i], want[i], tol) {
			t.Fatalf("%s[%d] = %.12g, want %.12g (got %v, want %v)", name, i, got[i], want[i], got, want)
		}
	}
}
