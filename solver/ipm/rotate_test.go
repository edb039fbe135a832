package ipm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestRotateRowsBitIdentical checks rotateRows (with its AVX kernel where
// the machine has one) against the scalar formula (x, y) ← (c·x − s·y,
// s·x + c·y), element by element to the last bit, for lengths 0 to 40 (the
// kernel's multiples of 4 and the scalar tails), and that the rotation
// keeps x² + y² (to 1e-14).
func TestRotateRowsBitIdentical(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 7))
	for n := 0; n <= 40; n++ {
		th := r.Float64() * 2 * math.Pi
		c, s := math.Cos(th), math.Sin(th)
		x, y := make([]float64, n), make([]float64, n+3) // y may be longer
		for i := range x {
			x[i] = r.NormFloat64()
		}
		for i := range y {
			y[i] = r.NormFloat64()
		}
		x0, y0 := append([]float64(nil), x...), append([]float64(nil), y...)
		rotateRows(x, y, c, s)
		for i := 0; i < n; i++ {
			cx, sy := c*x0[i], s*y0[i]
			sx, cy := s*x0[i], c*y0[i]
			wx, wy := cx-sy, sx+cy
			if math.Float64bits(x[i]) != math.Float64bits(wx) || math.Float64bits(y[i]) != math.Float64bits(wy) {
				t.Fatalf("n=%d, element %d: (%v, %v), scalar formula (%v, %v)", n, i, x[i], y[i], wx, wy)
			}
			if d := x[i]*x[i] + y[i]*y[i] - (x0[i]*x0[i] + y0[i]*y0[i]); math.Abs(d) > 1e-14*(1+x0[i]*x0[i]+y0[i]*y0[i]) {
				t.Fatalf("n=%d, element %d: x² + y² changed by %v", n, i, d)
			}
		}
		for i := n; i < len(y); i++ {
			if y[i] != y0[i] {
				t.Fatalf("n=%d: y[%d] beyond len(x) changed", n, i)
			}
		}
	}
}
