package ipm

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
)

// TestTrmvUpperMatchesGonum checks trmvUpper against gonum's
// Dtrmv(Upper, NoTrans, NonUnit) bit for bit, and dotGonum against the
// exact sum of its products within rounding, on random triangles of orders
// 1–25 (every residue of the four partial sums) and strides above n.
func TestTrmvUpperMatchesGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 2))
	for n := 1; n <= 25; n++ {
		for _, pad := range []int{0, 3} {
			lda := n + pad
			a := make([]float64, n*lda)
			for i := range a {
				// magnitudes over 16 binades, so that the order of the sums shows
				a[i] = rng.NormFloat64() * math.Ldexp(1, rng.IntN(16)-8)
			}
			x := make([]float64, n)
			for i := range x {
				x[i] = rng.NormFloat64() * math.Ldexp(1, rng.IntN(16)-8)
			}
			want := append([]float64(nil), x...)
			gblas.Dtrmv(blas.Upper, blas.NoTrans, blas.NonUnit, n, a, lda, want, 1)
			got := append([]float64(nil), x...)
			trmvUpper(n, a, lda, got)
			for i := range got {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					t.Fatalf("n=%d lda=%d: x[%d] = %v, gonum's Dtrmv %v", n, lda, i, got[i], want[i])
				}
			}
			// dotGonum of row 0 with x against a compensated (exact to
			// ~1e-30 relative) sum: within n·ε of the sum of |products|
			row := a[:n]
			var s, c, abs float64
			for i := range row {
				p := row[i] * x[i]
				e := math.FMA(row[i], x[i], -p) // the product's rounding error
				tt := s + p
				if math.Abs(s) >= math.Abs(p) {
					c += (s - tt) + p
				} else {
					c += (p - tt) + s
				}
				c += e
				s = tt
				abs += math.Abs(p)
			}
			exact := s + c
			if d := math.Abs(dotGonum(row, x) - exact); d > float64(n)*0x1p-52*abs {
				t.Errorf("n=%d: dotGonum off the exact sum %v by %v (sum of |products| %v)", n, exact, d, abs)
			}
		}
	}
}
