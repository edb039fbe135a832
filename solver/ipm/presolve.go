package ipm

import (
	"math"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/sparse"
)

// reduced is the problem the iteration works on: rotated second-order cones
// replaced by second-order cones through the orthogonal, symmetric row map
//
//	T(u, v, x) = ((u+v)/√2, (u−v)/√2, x),
//
// which maps {2uv ≥ ‖x‖², u, v ≥ 0} onto {t ≥ ‖(w, x)‖} and, being
// orthogonal, maps the dual cone the same way. The map is applied to the rows
// of A and b and undone on s and y (T = T⁻¹) in postprocessing.
type reduced struct {
	p     *sparse.CSC // upper triangle, nil when absent or empty
	q, b  []float64
	a     *sparse.CSC
	cones []cone.Cone
	rot   []int // first row of every rotated cone
}

func reduce(p *solver.Problem) *reduced {
	r := &reduced{q: append([]float64(nil), p.Q...), b: append([]float64(nil), p.B...)}
	if p.P != nil && p.P.Nnz() > 0 {
		r.p = valueCopy(p.P)
	}
	r.cones = append([]cone.Cone(nil), p.Cones...)
	off := 0
	mark := make([]int8, len(p.B)) // 1: u row, 2: v row of a rotated cone
	for i, c := range r.cones {
		if c.Kind == cone.RotatedSecondOrder {
			r.rot = append(r.rot, off)
			mark[off], mark[off+1] = 1, 2
			r.cones[i].Kind = cone.SecondOrder
		}
		off += c.Dim
	}
	if len(r.rot) == 0 {
		r.a = valueCopy(p.A)
		return r
	}
	t := sparse.NewTriplets(p.A.Rows, p.A.Cols, p.A.Nnz()+p.A.Nnz()/2)
	h := 1 / math.Sqrt2
	for j := 0; j < p.A.Cols; j++ {
		for k := p.A.ColPtr[j]; k < p.A.ColPtr[j+1]; k++ {
			i, v := p.A.RowIdx[k], p.A.Val[k]
			switch mark[i] {
			case 1:
				t.Append(i, j, h*v)
				t.Append(i+1, j, h*v)
			case 2:
				t.Append(i-1, j, h*v)
				t.Append(i, j, -h*v)
			default:
				t.Append(i, j, v)
			}
		}
	}
	r.a = t.ToCSC()
	for _, i := range r.rot {
		u, v := r.b[i], r.b[i+1]
		r.b[i], r.b[i+1] = h*(u+v), h*(u-v)
	}
	return r
}

// unrotate applies T to the rows of v belonging to rotated cones.
func (r *reduced) unrotate(v []float64) {
	h := 1 / math.Sqrt2
	for _, i := range r.rot {
		a, b := v[i], v[i+1]
		v[i], v[i+1] = h*(a+b), h*(a-b)
	}
}

// valueCopy returns a with its own copy of the values and a's pattern arrays
// shared: the equilibration scales the values in place, and nothing in the
// solver writes a pattern.
func valueCopy(a *sparse.CSC) *sparse.CSC {
	return &sparse.CSC{Rows: a.Rows, Cols: a.Cols, ColPtr: a.ColPtr, RowIdx: a.RowIdx, Val: append([]float64(nil), a.Val...)}
}
