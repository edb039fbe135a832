package ipm

import (
	"math"

	"github.com/privopt/privopt/sparse"
)

// scaling holds the modified Ruiz equilibration (Ruiz 2001; as used by OSQP
// and Clarabel) of the KKT data:
//
//	P̂ = c·DPD,  q̂ = c·Dq,  Â = EAD,  b̂ = Eb,
//
// with D, E positive diagonal and E constant on every cone block that is not
// separable (second-order, PSD, exponential, power), so that ŝ = Es stays in
// the same cone. A solution (x̂, ŝ, ẑ) of the scaled problem maps back as
//
//	x = Dx̂,  s = E⁻¹ŝ,  y = Eẑ/c.
type scaling struct {
	d, e, dinv, einv []float64
	c                float64
}

// equilibrationSettled is the relative change of the scaling factors below
// which the Ruiz passes stop early: when every factor of a pass lies in
// [1 − equilibrationSettled, 1 + equilibrationSettled], every row and column
// ∞-norm of the scaled [P; A] is within about twice that of 1 (a factor is
// 1/√norm), which is what the equilibration is for; the remaining passes of
// Settings.EquilibrationIterations would change the scaling by less still.
// A rule in the measured factors, not a pass count: on small well-scaled
// problems most of the passes are skipped, badly scaled ones keep them all.
// Only for LP/QP/SOCP data (the callers' settle argument): with PSD blocks or
// non-symmetric cones the scaling, and so the arithmetic, stays that of all
// the passes.
const equilibrationSettled = 0.01

// withinFactor reports whether every entry of f lies within tol of 1.
func withinFactor(f []float64, tol float64) bool {
	for _, v := range f {
		if math.Abs(v-1) > tol {
			return false
		}
	}
	return true
}

func identityScaling(n, m int) *scaling {
	// one allocation, each slice's capacity cut at its length
	v := ones(2*n + 2*m)
	return &scaling{d: v[:n:n], e: v[n : n+m : n+m], dinv: v[n+m : 2*n+m : 2*n+m], einv: v[2*n+m:], c: 1}
}

func ones(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = 1
	}
	return v
}

// equilibrate scales p (upper triangle), q, a, b in place and returns the
// scaling. blocks lists [start, end) row ranges that need a common factor.
// With settle the passes end once one of them is settled (see
// equilibrationSettled). A non-nil stop is polled before every pass; when it fires the passes end
// early (the data and the scaling returned stay consistent).
func equilibrate(p, a *sparse.CSC, q, b []float64, blocks [][2]int, set *Settings, settle bool, stop func() bool) *scaling {
	n, m := a.Cols, a.Rows
	sc := identityScaling(n, m)
	if set.DisableEquilibration {
		return sc
	}
	lo, hi := set.EquilibrationMin, set.EquilibrationMax
	clip := func(v float64) float64 { return min(max(v, lo), hi) }
	// dcol, erow: this pass's factors; ncol, nrow: the norms of the next
	// pass, gathered in the sweep that scales A (fused, so every pass but
	// the first reads A once instead of twice; the products are the same)
	de := make([]float64, 2*(n+m))
	dcol, erow := de[:n:n], de[n:n+m:n+m]
	ncol, nrow := de[n+m:2*n+m:2*n+m], de[2*n+m:]
	fused := false
	for it := 0; it < set.EquilibrationIterations; it++ {
		if stop != nil && stop() {
			break
		}
		if fused {
			dcol, erow, ncol, nrow = ncol, nrow, dcol, erow
		} else {
			// column norms of [P; A] (P symmetric: column j of the full P
			// is the upper column j plus row j of the upper triangle)
			clear(dcol)
			clear(erow)
			symColMax(p, dcol)
			// (plain comparisons: the entries are finite and dcol, erow ≥
			// 0, so this is math.Max without its NaN and signed-zero
			// branches)
			for j := 0; j < n; j++ {
				dj := dcol[j]
				for k := a.ColPtr[j]; k < a.ColPtr[j+1]; k++ {
					v := math.Abs(a.Val[k])
					if v > dj {
						dj = v
					}
					if r := a.RowIdx[k]; v > erow[r] {
						erow[r] = v
					}
				}
				dcol[j] = dj
			}
		}
		fused = false
		for j := range dcol {
			if dcol[j] < 1e-12 {
				dcol[j] = 1
			} else {
				dcol[j] = 1 / math.Sqrt(dcol[j])
			}
			// keep the accumulated factor within [lo, hi]
			dcol[j] = clip(sc.d[j]*dcol[j]) / sc.d[j]
		}
		for i := range erow {
			if erow[i] < 1e-12 {
				erow[i] = 1
			} else {
				erow[i] = 1 / math.Sqrt(erow[i])
			}
		}
		for _, bl := range blocks {
			// a common factor: the geometric mean over the block
			var lg float64
			for i := bl[0]; i < bl[1]; i++ {
				lg += math.Log(erow[i])
			}
			f := math.Exp(lg / float64(bl[1]-bl[0]))
			for i := bl[0]; i < bl[1]; i++ {
				erow[i] = f
			}
		}
		for i := range erow {
			erow[i] = clip(sc.e[i]*erow[i]) / sc.e[i]
		}
		// this pass moves no row or column norm by more than
		// equilibrationSettled: the data are equilibrated, further passes
		// would rescale by less (Ruiz's contraction)
		settled := settle && withinFactor(dcol, equilibrationSettled) && withinFactor(erow, equilibrationSettled)
		scaleMat(p, dcol, dcol)
		if settled || it+1 == set.EquilibrationIterations {
			scaleMat(a, erow, dcol)
		} else {
			clear(ncol)
			clear(nrow)
			symColMax(p, ncol)
			// (a's slices in locals: the stores into its values would
			// otherwise reload them per entry)
			cp, ri, av := a.ColPtr, a.RowIdx, a.Val
			for j := 0; j < n; j++ {
				cj, dj := dcol[j], ncol[j]
				for k := cp[j]; k < cp[j+1]; k++ {
					r := ri[k]
					av[k] *= erow[r] * cj // as scaleMat
					v := math.Abs(av[k])
					if v > dj {
						dj = v
					}
					if v > nrow[r] {
						nrow[r] = v
					}
				}
				ncol[j] = dj
			}
			fused = true
		}
		for j := range dcol {
			sc.d[j] *= dcol[j]
		}
		for i := range erow {
			sc.e[i] *= erow[i]
		}
		if settled {
			break
		}
	}
	for j := range q {
		q[j] *= sc.d[j]
	}
	for i := range b {
		b[i] *= sc.e[i]
	}
	// cost scaling: c = 1/max(mean column norm of P, ‖q‖∞)
	var mean float64
	if p != nil && n > 0 {
		colmax := ncol
		clear(colmax)
		symColMax(p, colmax)
		for _, v := range colmax {
			mean += v
		}
		mean /= float64(n)
	}
	cs := math.Max(mean, normInf(q))
	if cs < 1e-12 {
		cs = 1
	}
	sc.c = clip(1 / cs)
	if p != nil {
		for k := range p.Val {
			p.Val[k] *= sc.c
		}
	}
	for j := range q {
		q[j] *= sc.c
	}
	for j := range sc.d {
		sc.dinv[j] = 1 / sc.d[j]
	}
	for i := range sc.e {
		sc.einv[i] = 1 / sc.e[i]
	}
	return sc
}

// symColMax raises dcol[j] to the largest |entry| of column j of the
// symmetric P given by its upper triangle (nil: no change).
func symColMax(p *sparse.CSC, dcol []float64) {
	if p == nil {
		return
	}
	for j := 0; j < p.Cols; j++ {
		for k := p.ColPtr[j]; k < p.ColPtr[j+1]; k++ {
			i := p.RowIdx[k]
			v := math.Abs(p.Val[k])
			dcol[j] = max(dcol[j], v)
			dcol[i] = max(dcol[i], v)
		}
	}
}

// scaleMat sets M ← diag(r)·M·diag(c).
func scaleMat(mt *sparse.CSC, r, c []float64) {
	if mt == nil {
		return
	}
	cp, ri, v := mt.ColPtr, mt.RowIdx, mt.Val
	for j := 0; j < mt.Cols; j++ {
		cj := c[j]
		for k := cp[j]; k < cp[j+1]; k++ {
			v[k] *= r[ri[k]] * cj
		}
	}
}

// symMulVec computes out = P·x for P given by its upper triangle.
func symMulVec(out []float64, p *sparse.CSC, x []float64) {
	clear(out)
	if p == nil {
		return
	}
	for j := 0; j < p.Cols; j++ {
		xj := x[j]
		var s float64
		for k := p.ColPtr[j]; k < p.ColPtr[j+1]; k++ {
			i := p.RowIdx[k]
			out[i] += p.Val[k] * xj
			if i != j {
				s += p.Val[k] * x[i]
			}
		}
		out[j] += s
	}
}

// rowSpread returns the ratio of the largest to the smallest row
// equilibration factor (E; 1 for the identity scaling, +Inf when a factor is
// not positive). The column factors D are left out: the rows are where a
// solve residual measured globally can hide a residual large against a row of
// small terms (earlyRefineSpread).
func (sc *scaling) rowSpread() float64 {
	lo, hi := math.Inf(1), 0.0
	for _, f := range sc.e {
		lo, hi = min(lo, f), max(hi, f)
	}
	if len(sc.e) == 0 {
		return 1
	}
	if !(lo > 0) {
		return math.Inf(1)
	}
	return hi / lo
}
