package learn

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// ErrInvalid is wrapped by every validation error of this package.
var ErrInvalid = errors.New("learn: invalid input")

func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

// Data is a dataset: n rows of d features and n targets (for classification,
// labels ±1).
type Data struct {
	X *mat.Dense // n×d
	Y []float64  // n
}

// N returns the number of rows.
func (d Data) N() int { return len(d.Y) }

// Validate checks shapes and finiteness.
func (d Data) Validate() error {
	if d.X == nil {
		return invalidf("data X is nil")
	}
	n, p := d.X.Dims()
	if n != len(d.Y) {
		return invalidf("data X has %d rows and Y has %d entries", n, len(d.Y))
	}
	if n == 0 || p == 0 {
		return invalidf("data is empty (%d×%d)", n, p)
	}
	for i := 0; i < n; i++ {
		for j := 0; j < p; j++ {
			if v := d.X.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return invalidf("data X[%d][%d] is %v, must be finite", i, j, v)
			}
		}
		if v := d.Y[i]; math.IsNaN(v) || math.IsInf(v, 0) {
			return invalidf("data Y[%d] is %v, must be finite", i, v)
		}
	}
	return nil
}

// Bounds are the declared public bounds of one row: ‖xᵢ‖₂ ≤ X (the features,
// without the intercept column) and |yᵢ| ≤ Y. They define the data domain of
// every privacy guarantee of this package and must not be computed from the
// private data.
type Bounds struct {
	X float64 // bound on the ℓ₂ norm of each feature row, > 0
	Y float64 // bound on |yᵢ|, > 0 (unused by classification losses)
}

// DefaultBounds are X = Y = 1: features and targets already scaled by public
// ranges (for example x_j ← (x_j − mid_j)/(half-width_j·√d) with a published
// range per feature).
var DefaultBounds = Bounds{X: 1, Y: 1}

// Validate checks X, Y > 0 and finite.
func (b Bounds) Validate() error {
	if !(b.X > 0) || math.IsInf(b.X, 0) {
		return invalidf("bounds X is %v, must be > 0 and finite", b.X)
	}
	if !(b.Y > 0) || math.IsInf(b.Y, 0) {
		return invalidf("bounds Y is %v, must be > 0 and finite", b.Y)
	}
	return nil
}

// ClipReport counts the rows Clip changed (private: for diagnostics only).
type ClipReport struct {
	Rows, Targets int
}

// Clip returns a copy of d with every row inside the bounds: xᵢ ← xᵢ·min(1,
// X/‖xᵢ‖₂) and yᵢ ← max(−Y, min(Y, yᵢ)). Clipping is a fixed row-wise map, so
// it maps adjacent datasets to adjacent datasets inside the domain and every
// guarantee for the clipped data holds for the raw data.
func (b Bounds) Clip(d Data) (Data, ClipReport) {
	n, p := d.X.Dims()
	x := mat.DenseCopyOf(d.X)
	y := append([]float64(nil), d.Y...)
	var rep ClipReport
	for i := 0; i < n; i++ {
		row := x.RawRowView(i)
		nr := 0.0
		for _, v := range row[:p] {
			nr += v * v
		}
		if nr = math.Sqrt(nr); nr > b.X {
			for j := range row[:p] {
				row[j] *= b.X / nr
			}
			rep.Rows++
		}
		if c := math.Max(-b.Y, math.Min(b.Y, y[i])); c != y[i] {
			y[i] = c
			rep.Targets++
		}
	}
	return Data{X: x, Y: y}, rep
}
