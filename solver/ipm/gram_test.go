package ipm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// TestGramUpper compares gramUpper with the Gram matrix summed in extended
// precision (math.FMA-free float64 sums of exact products are not exact, so
// the reference is the same sum in a different order with a tolerance of a
// few ulps of Σ|a_ik a_jk|), for shapes that exercise every edge of the 4×2
// blocking and the tiles: rows and columns not multiples of 4, 2 or
// gramTile, a single row, strided panels, and a nonzero starting C. The
// lower triangle must be left untouched.
func TestGramUpper(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 14))
	for _, sh := range []struct{ rows, cols, stride int }{
		{1, 1, 1}, {1, 7, 9}, {2, 3, 3}, {3, 4, 4}, {5, 3, 5}, {7, 13, 20}, {9, 4, 4},
		{130, 257, 300}, {257, 64, 64}, {300, 5, 11},
	} {
		t.Run(fmt.Sprintf("%dx%d", sh.rows, sh.cols), func(t *testing.T) {
			n, k := sh.rows, sh.cols
			a := make([]float64, n*sh.stride)
			for i := range a {
				a[i] = rng.NormFloat64()
			}
			c := make([]float64, n*n)
			for i := range c {
				c[i] = rng.NormFloat64()
			}
			c0 := append([]float64(nil), c...)
			gramUpper(blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: n, Data: c}, blas64.General{Rows: n, Cols: k, Stride: sh.stride, Data: a})
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					got := c[i*n+j]
					if j < i {
						if got != c0[i*n+j] {
							t.Fatalf("lower entry (%d,%d) changed: %v → %v", i, j, c0[i*n+j], got)
						}
						continue
					}
					want, mag := c0[i*n+j], math.Abs(c0[i*n+j])
					for p := k - 1; p >= 0; p-- {
						x := a[i*sh.stride+p] * a[j*sh.stride+p]
						want += x
						mag += math.Abs(x)
					}
					if math.Abs(got-want) > 4*float64(k+1)*0x1p-52*mag {
						t.Fatalf("(%d,%d): got %v, want %v (|Σ| %v)", i, j, got, want, mag)
					}
				}
			}
		})
	}
}

// BenchmarkGramUpper times one rank-256 update of a 1021×1021 Gram matrix
// (a panel of the dense Schur rule of SDPLIB qap10: m = 1021, svec
// dimension 5151), gramUpper against gonum's Syrk.
func BenchmarkGramUpper(b *testing.B) {
	const rows, d = 1021, 5151
	rng := rand.New(rand.NewPCG(1, 2))
	a := make([]float64, rows*d)
	for i := range a {
		a[i] = rng.NormFloat64()
	}
	c := blas64.Symmetric{Uplo: blas.Upper, N: rows, Stride: rows, Data: make([]float64, rows*rows)}
	panel := blas64.General{Rows: rows, Cols: schurPanel, Stride: d, Data: a}
	b.Run("gramUpper", func(b *testing.B) {
		for b.Loop() {
			gramUpper(c, panel)
		}
	})
	b.Run("gonumSyrk", func(b *testing.B) {
		for b.Loop() {
			blas64.Syrk(blas.NoTrans, 1, panel, 1, c)
		}
	})
}
