package noise

import (
	"math"
	"sort"
)

var _ Distribution = (*PiecewiseConstant)(nil)

// PiecewiseConstant is a mixture of uniform distributions on consecutive
// intervals [e_j, e_{j+1}), j = 0..N−1, with probabilities p_j:
//
//	f(x) = p_j / (e_{j+1} − e_j)  for x ∈ [e_j, e_{j+1}).
//
// The distribution is defined exactly by the stored float64 weights divided by
// their exact sum; Certify and Release use exactly that definition. When built
// by Optimize the edges are integer multiples of a unit β (e_j = β·π_j, exact in
// real arithmetic), which Certify exploits.
type PiecewiseConstant struct {
	edges []float64
	probs []float64 // normalized in float64 (probs[j] = w[j]/Σw, rounded)
	w     []float64 // weights as given; the exact distribution is w/Σw
	cum   []float64 // cum[j] = Σ_{i<j} probs[i]
	unit  float64   // > 0: edges[j] = unit·index[j] exactly
	index []int
}

// NewPiecewiseConstant returns the mixture of uniforms on the cells of edges
// (strictly increasing, finite, N+1 values) with weights probs (N values, ≥ 0,
// finite, positive sum; they are normalized by their exact sum).
func NewPiecewiseConstant(edges, probs []float64) (*PiecewiseConstant, error) {
	if len(edges) < 2 || len(edges) != len(probs)+1 {
		return nil, paramErr("Edges", len(edges), "must have len(probs)+1 ≥ 2 entries")
	}
	for i, e := range edges {
		if math.IsNaN(e) || math.IsInf(e, 0) || (i > 0 && !(e > edges[i-1])) {
			return nil, paramErr("Edges", e, "must be finite and strictly increasing")
		}
	}
	return newPiecewise(append([]float64(nil), edges...), append([]float64(nil), probs...), 0, nil)
}

// newGridPiecewise builds the distribution on edges unit·index (exact).
func newGridPiecewise(unit float64, index []int, probs []float64) (*PiecewiseConstant, error) {
	edges := make([]float64, len(index))
	for i, k := range index {
		edges[i] = unit * float64(k)
	}
	return newPiecewise(edges, append([]float64(nil), probs...), unit, append([]int(nil), index...))
}

func newPiecewise(edges, w []float64, unit float64, index []int) (*PiecewiseConstant, error) {
	s := 0.0
	for _, p := range w {
		if math.IsNaN(p) || math.IsInf(p, 0) || p < 0 {
			return nil, paramErr("Probs", p, "must be finite and ≥ 0")
		}
		s += p
	}
	if !(s > 0) {
		return nil, paramErr("Probs", s, "must have a positive sum")
	}
	d := &PiecewiseConstant{edges: edges, w: w, unit: unit, index: index}
	d.probs = make([]float64, len(w))
	d.cum = make([]float64, len(w)+1)
	for j, p := range w {
		d.probs[j] = p / s
		d.cum[j+1] = d.cum[j] + d.probs[j]
	}
	return d, nil
}

// Edges returns a copy of the cell edges e_0 < … < e_N.
func (d *PiecewiseConstant) Edges() []float64 { return append([]float64(nil), d.edges...) }

// Probs returns a copy of the normalized cell probabilities.
func (d *PiecewiseConstant) Probs() []float64 { return append([]float64(nil), d.probs...) }

// Len returns the number of cells N.
func (d *PiecewiseConstant) Len() int { return len(d.probs) }

func (d *PiecewiseConstant) cell(x float64) int {
	return sort.SearchFloat64s(d.edges, math.Nextafter(x, math.Inf(1))) - 1 // edges[j] ≤ x < edges[j+1]
}

// PDF returns p_j/(e_{j+1} − e_j) on cell j, 0 outside [e_0, e_N).
func (d *PiecewiseConstant) PDF(x float64) float64 {
	j := d.cell(x)
	if j < 0 || j >= len(d.probs) {
		return 0
	}
	return d.probs[j] / (d.edges[j+1] - d.edges[j])
}

// CDF returns Σ_{i<j} p_i + p_j·(x − e_j)/(e_{j+1} − e_j) on cell j.
func (d *PiecewiseConstant) CDF(x float64) float64 {
	j := d.cell(x)
	if j < 0 {
		return 0
	}
	if j >= len(d.probs) {
		return 1
	}
	return math.Min(1, d.cum[j]+d.probs[j]*(x-d.edges[j])/(d.edges[j+1]-d.edges[j]))
}

// Quantile inverts CDF (the first cell whose cumulative mass reaches p).
func (d *PiecewiseConstant) Quantile(p float64) float64 {
	n := len(d.probs)
	j := sort.SearchFloat64s(d.cum[1:], p)
	for j < n-1 && d.probs[j] == 0 {
		j++
	}
	if j >= n {
		return d.edges[n]
	}
	t := 0.0
	if d.probs[j] > 0 {
		t = math.Max(0, math.Min(1, (p-d.cum[j])/d.probs[j]))
	}
	return d.edges[j] + t*(d.edges[j+1]-d.edges[j])
}

// Mean returns Σ p_j (e_j + e_{j+1})/2.
func (d *PiecewiseConstant) Mean() float64 {
	s := 0.0
	for j, p := range d.probs {
		s += p * (d.edges[j] + d.edges[j+1]) / 2
	}
	return s
}

// Variance returns Σ p_j (e_j² + e_j e_{j+1} + e_{j+1}²)/3 − mean².
func (d *PiecewiseConstant) Variance() float64 {
	m := d.Mean()
	return math.Max(0, d.ExpectedLoss(L2())-m*m)
}

// MeanAbs returns E|X| = Σ p_j·avg_{cell j}|x|.
func (d *PiecewiseConstant) MeanAbs() float64 { return d.ExpectedLoss(L1()) }

// ExpectedLoss returns E c(X) = Σ p_j·(1/|cell j|)∫_{cell j} c.
func (d *PiecewiseConstant) ExpectedLoss(l Loss) float64 {
	s := 0.0
	for j, p := range d.probs {
		if p > 0 {
			s += p * l.Average(d.edges[j], d.edges[j+1])
		}
	}
	return s
}

// Support returns [e_0, e_N].
func (d *PiecewiseConstant) Support() (lo, hi float64) { return d.edges[0], d.edges[len(d.edges)-1] }

// Sample picks a cell with probability p_j and a uniform point inside it (both
// from full-precision uniforms). For releases use Mechanism.Release, which
// samples the exact distribution and rounds the output to a grid without
// floating-point leakage.
func (d *PiecewiseConstant) Sample(src Source) float64 {
	src = orCrypto(src)
	u := uniform01(src)
	j := min(sort.SearchFloat64s(d.cum[1:], u), len(d.probs)-1)
	for j > 0 && d.probs[j] == 0 {
		j--
	}
	return d.edges[j] + uniform01(src)*(d.edges[j+1]-d.edges[j])
}
