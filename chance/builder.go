package chance

import (
	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/lindecision"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/sparse"
)

// rowset accumulates rows "g(v) ∈ cone" in the standard form's convention: for
// g(v) = c + Σ coef·v the row is (−coef)·v + s = c.
type rowset struct {
	i, j []int
	v    []float64
	b    []float64
}

func (r *rowset) n() int { return len(r.b) }

// reserve grows the capacity for entries and rows, avoiding repeated
// reallocation on large problems.
func (r *rowset) reserve(entries, rows int) {
	if cap(r.v)-len(r.v) < entries {
		r.i = append(make([]int, 0, len(r.i)+entries), r.i...)
		r.j = append(make([]int, 0, len(r.j)+entries), r.j...)
		r.v = append(make([]float64, 0, len(r.v)+entries), r.v...)
	}
	if cap(r.b)-len(r.b) < rows {
		r.b = append(make([]float64, 0, len(r.b)+rows), r.b...)
	}
}

// open starts a new row with constant c and returns its local index.
func (r *rowset) open(c float64) int {
	r.b = append(r.b, c)
	return len(r.b) - 1
}

// term adds coef·v[col] to the row's g.
func (r *rowset) term(row, col int, coef float64) {
	if coef == 0 {
		return
	}
	r.i = append(r.i, row)
	r.j = append(r.j, col)
	r.v = append(r.v, -coef)
}

// affine adds scale·a(v) to the row's g.
func (r *rowset) affine(row int, a *lindecision.Affine, scale float64) {
	if scale == 0 {
		return
	}
	r.b[row] += scale * a.Const
	for t, c := range a.Idx {
		r.term(row, c, scale*a.Val[t])
	}
}

// builder assembles the deterministic counterpart.
type builder struct {
	nv     int // variables so far (lifted + auxiliary)
	zero   rowset
	nonneg rowset
	conic  rowset
	cones  []cone.Cone // conic blocks, in order, covering conic rows
	// Objective = objScale·(lifted expected objective) + Σ extraQ[c]·v[c].
	objScale float64
	extraQ   map[int]float64
}

func (b *builder) aux() int {
	b.nv++
	return b.nv - 1
}

// problem assembles the standard form with rows [zero | nonnegative | conic].
func (b *builder) problem(l *lindecision.Lifted) *solver.Problem {
	m0, m1, m2 := b.zero.n(), b.nonneg.n(), b.conic.n()
	m := m0 + m1 + m2
	nnz := len(b.zero.v) + len(b.nonneg.v) + len(b.conic.v)
	tr := sparse.NewTriplets(m, b.nv, nnz)
	add := func(r *rowset, off int) {
		for t := range r.v {
			tr.Append(r.i[t]+off, r.j[t], r.v[t])
		}
	}
	add(&b.zero, 0)
	add(&b.nonneg, m0)
	add(&b.conic, m0+m1)
	rhs := make([]float64, 0, m)
	rhs = append(rhs, b.zero.b...)
	rhs = append(rhs, b.nonneg.b...)
	rhs = append(rhs, b.conic.b...)
	var cones []cone.Cone
	if m0 > 0 {
		cones = append(cones, cone.NewZero(m0))
	}
	if m1 > 0 {
		cones = append(cones, cone.NewNonnegative(m1))
	}
	cones = append(cones, b.cones...)

	lp, lq, lr := l.Objective()
	q := make([]float64, b.nv)
	for i, v := range lq {
		q[i] = b.objScale * v
	}
	for c, v := range b.extraQ {
		q[c] += v
	}
	lr *= b.objScale
	var p *sparse.CSC
	if lp != nil && lp.Nnz() > 0 && b.objScale != 0 {
		val := lp.Val
		if b.objScale != 1 {
			val = make([]float64, len(lp.Val))
			for t, v := range lp.Val {
				val[t] = b.objScale * v
			}
		}
		p = &sparse.CSC{Rows: b.nv, Cols: b.nv, ColPtr: make([]int, b.nv+1), RowIdx: lp.RowIdx, Val: val}
		copy(p.ColPtr, lp.ColPtr)
		for j := lp.Cols + 1; j <= b.nv; j++ {
			p.ColPtr[j] = lp.ColPtr[lp.Cols]
		}
	}
	return &solver.Problem{P: p, Q: q, R: lr, A: tr.ToCSC(), B: rhs, Cones: cones}
}
