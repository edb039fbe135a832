package chance

import (
	"fmt"
	"math"

	"github.com/privopt/privopt/lindecision"
	_ "github.com/privopt/privopt/solver/auto" // registers auto, highs and ipm for solver.ByName
)

// boxMethod is Vertex (the box of S sampled ζ, Prop. 3.3) and Robust (the
// noise support): the rows are enforced for every ζ in the box.
type boxMethod struct{}

func (boxMethod) apply(r *reformer, rows []int, a Approximation) (Guarantee, error) {
	g, err := r.boxGuarantee(a)
	if err != nil {
		return g, err
	}
	return g, r.boxRows(rows, g.Box)
}

// boxGuarantee computes the uncertainty box of Vertex (the component-wise
// range of S noise samples, Prop. 3.3) or Robust (the noise support) and the
// guarantee it gives.
func (r *reformer) boxGuarantee(a Approximation) (Guarantee, error) {
	k := r.l.K()
	noise := r.l.Noise()
	box := make([]Interval, k)
	g := Guarantee{Method: a.Method.String(), Eta: a.Eta, Beta: a.Beta, Kind: Conservative}
	if a.Method == Vertex {
		s, err := VertexSampleSize(a.Eta, a.Beta, k)
		if err != nil {
			return g, err
		}
		if a.SampleSize > 0 {
			if a.SampleSize < s {
				return g, invalidf("SampleSize %d is below the vertex sample size %d required for eta %v, beta %v, k %d", a.SampleSize, s, a.Eta, a.Beta, k)
			}
			s = a.SampleSize
		}
		g.SampleSize = s
		for j := range box {
			box[j] = Interval{math.Inf(1), math.Inf(-1)}
		}
		f, err := noise.Factor()
		if err != nil {
			return g, err
		}
		z := make([]float64, k)
		for t := 0; t < s; t++ {
			if err := r.pollSampling(t, s, "vertex"); err != nil {
				return g, err
			}
			noise.Sample(z, r.rng.Uint64, f)
			for j, v := range z {
				box[j].Lo = math.Min(box[j].Lo, v)
				box[j].Hi = math.Max(box[j].Hi, v)
			}
		}
	} else {
		g.Eta, g.Beta, g.Kind = 0, 0, Certain
		for j, d := range noise.Components {
			lo, hi := d.Support()
			if math.IsInf(lo, 0) || math.IsInf(hi, 0) || math.IsNaN(lo) || math.IsNaN(hi) {
				return g, invalidf("robust reformulation needs bounded noise support, component %d has support [%v, %v] (use a truncated or optimal bounded noise, or the vertex method)", j, lo, hi)
			}
			box[j] = Interval{lo, hi}
		}
	}
	for j := range box {
		box[j].Lo -= a.ReleaseMargin
		box[j].Hi += a.ReleaseMargin
	}
	g.Box = box
	return g, nil
}

// boxRows enforces the rows for every ζ in the box.
func (r *reformer) boxRows(rows []int, box []Interval) error {
	var ra lindecision.RandomAffine
	var supp, moving []int
	doneBlock := make(map[int]bool)
	for ri, i := range rows {
		if err := r.pollRows(ri, len(rows)); err != nil {
			return err
		}
		if bi := r.blockOf[i]; bi >= 0 {
			if !doneBlock[bi] {
				doneBlock[bi] = true
				if err := r.blockVertices(r.blocks[bi], box); err != nil {
					return err
				}
			}
			continue
		}
		r.l.SlackTo(&ra, i)
		rs := &r.b.nonneg
		supp = ra.RandomSupport(supp)
		// With at most two components whose coefficients are decision-dependent,
		// the 2^s vertex rows (s ≤ 2) are fewer than the 1 + 2s rows and s
		// auxiliaries of the t-formulation: enumerate them.
		moving = moving[:0]
		fixed := 0.0
		for _, j := range supp {
			f := &ra.F[j]
			c, w := 0.5*(box[j].Lo+box[j].Hi), 0.5*(box[j].Hi-box[j].Lo)
			if f.IsConstant() {
				fixed += c*f.Const - w*math.Abs(f.Const)
			} else if w > 0 {
				moving = append(moving, j)
			}
		}
		if len(moving) <= 2 {
			for v := 0; v < 1<<len(moving); v++ {
				row := rs.open(fixed)
				rs.affine(row, &ra.F0, 1)
				for _, j := range supp { // degenerate interval: ζ_j = Lo
					if box[j].Hi == box[j].Lo && !ra.F[j].IsConstant() {
						rs.affine(row, &ra.F[j], box[j].Lo)
					}
				}
				for b, j := range moving {
					z := box[j].Lo
					if v>>b&1 == 1 {
						z = box[j].Hi
					}
					rs.affine(row, &ra.F[j], z)
				}
			}
			continue
		}
		row := rs.open(0)
		rs.affine(row, &ra.F0, 1)
		for _, j := range supp {
			f := &ra.F[j]
			c, w := 0.5*(box[j].Lo+box[j].Hi), 0.5*(box[j].Hi-box[j].Lo)
			if f.IsConstant() {
				rs.b[row] += c*f.Const - w*math.Abs(f.Const)
				continue
			}
			rs.affine(row, f, c)
			if w == 0 {
				continue
			}
			t := r.b.aux()
			rs.term(row, t, -w)
			// t − f ≥ 0 and t + f ≥ 0.
			p := rs.open(0)
			rs.term(p, t, 1)
			rs.affine(p, f, -1)
			q := rs.open(0)
			rs.term(q, t, 1)
			rs.affine(q, f, 1)
		}
	}
	return nil
}

// blockVertices enforces a conic block at every vertex of the box restricted to
// the components that enter the block.
func (r *reformer) blockVertices(bl block, box []Interval) error {
	k := r.l.K()
	ras := make([]lindecision.RandomAffine, bl.c.Dim)
	inBlock := make([]bool, k)
	for t := range ras {
		r.l.SlackTo(&ras[t], bl.start+t)
		for _, j := range ras[t].RandomSupport(nil) {
			inBlock[j] = true
		}
	}
	var moving []int
	for j := 0; j < k; j++ {
		if inBlock[j] && box[j].Hi > box[j].Lo {
			moving = append(moving, j)
		}
	}
	if len(moving) > 62 || 1<<len(moving) > r.spec.MaxVertices {
		return fmt.Errorf("%w: cone block at rows %d..%d (%v) depends on %d noise components, 2^%d vertices exceed MaxVertices = %d; use the scenario method for this block (Spec.Groups) or raise MaxVertices",
			ErrTooManyVertices, bl.start, bl.start+bl.c.Dim-1, bl.c, len(moving), len(moving), r.spec.MaxVertices)
	}
	zeta := make([]float64, k)
	for j := 0; j < k; j++ {
		zeta[j] = 0.5 * (box[j].Lo + box[j].Hi)
	}
	nv := 1 << len(moving)
	for v := 0; v < nv; v++ {
		for b, j := range moving {
			if v>>b&1 == 1 {
				zeta[j] = box[j].Hi
			} else {
				zeta[j] = box[j].Lo
			}
		}
		for t := range ras {
			emitAt(&r.b.conic, &ras[t], zeta)
		}
		r.b.cones = append(r.b.cones, bl.c)
	}
	r.stats.Vertices += nv
	return nil
}
