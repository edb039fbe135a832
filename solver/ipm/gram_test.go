package ipm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
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

// TestAddMulNT compares addMulNT (full and upper) with gonum's Gemm for
// shapes that are not multiples of the 4×2 blocks or of gramTile, and checks
// that upper leaves the entries below the diagonal untouched.
func TestAddMulNT(t *testing.T) {
	if !haveFMA {
		t.Skip("addMulNT needs AVX2 and FMA3")
	}
	rng := rand.New(rand.NewPCG(5, 14))
	for _, sh := range []struct{ rows, cols, k int }{{1, 1, 1}, {3, 5, 7}, {6, 6, 4}, {130, 129, 21}, {250, 250, 250}} {
		for _, upper := range []bool{false, true} {
			if upper && sh.rows != sh.cols {
				continue
			}
			a := blas64.General{Rows: sh.rows, Cols: sh.k, Stride: sh.k, Data: make([]float64, sh.rows*sh.k)}
			b := blas64.General{Rows: sh.cols, Cols: sh.k, Stride: sh.k, Data: make([]float64, sh.cols*sh.k)}
			for i := range a.Data {
				a.Data[i] = rng.NormFloat64()
			}
			for i := range b.Data {
				b.Data[i] = rng.NormFloat64()
			}
			c := make([]float64, sh.rows*sh.cols)
			for i := range c {
				c[i] = rng.NormFloat64()
			}
			want := blas64.General{Rows: sh.rows, Cols: sh.cols, Stride: sh.cols, Data: append([]float64(nil), c...)}
			blas64.Gemm(blas.NoTrans, blas.Trans, 1, a, b, 1, want)
			c0 := append([]float64(nil), c...)
			addMulNT(c, sh.cols, a, b, upper)
			for i := 0; i < sh.rows; i++ {
				for j := 0; j < sh.cols; j++ {
					got := c[i*sh.cols+j]
					if upper && i > j {
						if got != c0[i*sh.cols+j] {
							t.Fatalf("%v upper: (%d,%d) below the diagonal changed", sh, i, j)
						}
						continue
					}
					if w := want.Data[i*sh.cols+j]; math.Abs(got-w) > 1e-12*float64(sh.k+1) {
						t.Fatalf("%v upper=%v: (%d,%d) = %v, Gemm %v", sh, upper, i, j, got, w)
					}
				}
			}
		}
	}
}

// TestCongruenceFast compares the addMulNT products of a PSD block of order
// ≥ psdFastMinOrder (congruence, mulH, jordan) with gonum's dense products.
func TestCongruenceFast(t *testing.T) {
	if !haveFMA {
		t.Skip("addMulNT needs AVX2 and FMA3")
	}
	rng := rand.New(rand.NewPCG(6, 14))
	for _, n := range []int{psdFastMinOrder, 37} {
		d := n * (n + 1) / 2
		c := newPSD(d)
		l := mat.NewDense(n, n, nil)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				l.Set(i, j, rng.NormFloat64())
			}
		}
		c.b.Mul(l, l.T())
		c.bValid = true
		v, y := make([]float64, d), make([]float64, d)
		for i := range v {
			v[i], y[i] = rng.NormFloat64(), rng.NormFloat64()
		}
		x := mat.NewDense(n, n, nil)
		svecToDense(x, v, n)
		ym := mat.NewDense(n, n, nil)
		svecToDense(ym, y, n)
		check := func(name string, got []float64, w *mat.Dense) {
			t.Helper()
			want := make([]float64, d)
			denseToSvec(want, w, n)
			for k := range want {
				if math.Abs(got[k]-want[k]) > 1e-10*(1+math.Abs(want[k])) {
					t.Fatalf("n=%d %s: svec[%d] = %v, dense %v", n, name, k, got[k], want[k])
				}
			}
		}
		got := make([]float64, d)
		var p, w mat.Dense
		c.congruence(got, l, false, v)
		p.Mul(l, x)
		w.Mul(&p, l.T())
		check("L X Lᵀ", got, &w)
		c.congruence(got, l, true, v)
		p.Mul(l.T(), x)
		w.Mul(&p, l)
		check("Lᵀ X L", got, &w)
		c.mulH(got, v)
		p.Mul(c.b, x)
		w.Mul(&p, c.b)
		check("B X B", got, &w)
		c.jordan(got, v, y)
		p.Mul(x, ym)
		var q mat.Dense
		q.Mul(ym, x)
		w.Add(&p, &q)
		w.Scale(0.5, &w)
		check("X∘Y", got, &w)
	}
}
