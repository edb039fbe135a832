package chance

import (
	"math"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/lindecision"
	_ "github.com/privopt/privopt/solver/auto" // registers auto, highs and ipm for solver.ByName
	"github.com/privopt/privopt/sparse"
	"gonum.org/v1/gonum/mat"
)

// cvar adds γ, z_1..z_S and the rows of eq. (13b), and sets the objective mix.
func (r *reformer) cvar(c *CVaR) error {
	base := r.l.Base()
	var sq *sqrtP
	if base.P != nil && base.P.Nnz() > 0 {
		var err error
		if sq, err = newSqrtP(base.P, c.MaxQuadraticDim); err != nil {
			return err
		}
	}
	s, w := c.resolved()
	noise := r.l.Noise()
	f, err := noise.Factor()
	if err != nil {
		return err
	}
	loss := r.l.LinearObjective()
	gamma := r.b.aux()
	r.b.objScale = 1 - w
	r.b.extraQ = map[int]float64{gamma: w}
	zeta := make([]float64, r.l.K())
	for t := 0; t < s; t++ {
		if err := r.pollSampling(t, s, "CVaR scenario"); err != nil {
			return err
		}
		noise.Sample(zeta, r.rng.Uint64, f)
		z := r.b.aux()
		r.b.extraQ[z] = w / ((1 - c.Alpha) * float64(s))
		rs := &r.b.nonneg
		row := rs.open(0) // z ≥ 0
		rs.term(row, z, 1)
		if sq == nil {
			row = rs.open(0) // z + γ − ℓ(x̄ + Xζ_s) ≥ 0
		} else {
			// (1, v, Lᵀx̃_s) ∈ rotated SOC: 2·1·v ≥ ‖Lᵀx̃_s‖², v = z + γ − qᵀx̃_s − r.
			rs = &r.b.conic
			rs.open(1)
			row = rs.open(0)
		}
		rs.term(row, z, 1)
		rs.term(row, gamma, 1)
		rs.affine(row, &loss.F0, -1)
		for j, v := range zeta {
			rs.affine(row, &loss.F[j], -v)
		}
		if sq != nil {
			var xi lindecision.Affine
			for col := 0; col < sq.rank; col++ {
				wr := rs.open(0)
				for t, i := range sq.idx {
					if lv := sq.l[t][col]; lv != 0 {
						r.l.DecisionAtTo(&xi, i, zeta)
						rs.affine(wr, &xi, lv)
					}
				}
			}
			r.b.cones = append(r.b.cones, cone.NewRotatedSecondOrder(2+sq.rank))
		}
	}
	return nil
}

// sqrtP is a factor L (|idx|×rank) with P = L Lᵀ restricted to the columns idx
// that P touches.
type sqrtP struct {
	idx  []int
	l    [][]float64
	rank int
}

// newSqrtP factors the PSD matrix P (upper triangle) by a symmetric eigen-
// decomposition of its non-zero block, dropping eigenvalues below 1e-12·λmax.
func newSqrtP(p *sparse.CSC, maxDim int) (*sqrtP, error) {
	if maxDim == 0 {
		maxDim = 2000
	}
	pos := map[int]int{}
	var idx []int
	touch := func(i int) {
		if _, ok := pos[i]; !ok {
			pos[i] = len(idx)
			idx = append(idx, i)
		}
	}
	for j := 0; j < p.Cols; j++ {
		for t := p.ColPtr[j]; t < p.ColPtr[j+1]; t++ {
			touch(p.RowIdx[t])
			touch(j)
		}
	}
	d := len(idx)
	if d > maxDim {
		return nil, invalidf("CVaR of a quadratic objective factors P densely; P touches %d columns, more than MaxQuadraticDim = %d", d, maxDim)
	}
	dense := mat.NewSymDense(d, nil)
	for j := 0; j < p.Cols; j++ {
		for t := p.ColPtr[j]; t < p.ColPtr[j+1]; t++ {
			a, b := pos[p.RowIdx[t]], pos[j]
			dense.SetSym(a, b, dense.At(a, b)+p.Val[t])
		}
	}
	var es mat.EigenSym
	if !es.Factorize(dense, true) {
		return nil, invalidf("CVaR: eigendecomposition of P failed")
	}
	vals := es.Values(nil)
	var vecs mat.Dense
	es.VectorsTo(&vecs)
	top := math.Max(vals[len(vals)-1], 0)
	sq := &sqrtP{idx: idx, l: make([][]float64, d)}
	var keep []int
	for c, v := range vals {
		if v < -1e-9*math.Max(1, top) {
			return nil, invalidf("CVaR: P has eigenvalue %v, must be positive semidefinite", v)
		}
		if v > 1e-12*top {
			keep = append(keep, c)
		}
	}
	sq.rank = len(keep)
	for t := range sq.l {
		sq.l[t] = make([]float64, sq.rank)
		for k, c := range keep {
			sq.l[t][k] = vecs.At(t, c) * math.Sqrt(vals[c])
		}
	}
	return sq, nil
}
