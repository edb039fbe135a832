package ipm

import (
	"context"
	"math"
	"time"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/sparse"
	"gonum.org/v1/gonum/mat"
)

// facialReduction is one step of facial reduction (Borwein and Wolkowicz,
// J. Math. Anal. Appl. 83, 1981; the one-column case of Permenter and
// Parrilo, Math. Program. 171, 2018, §2) for a variable x_j whose whole
// column lies in one PSD block, with q_j = 0 and no quadratic term, and whose
// matrix F = smat(A_j) on that block is semidefinite. The dual equation of
// x_j is then ⟨F, Y⟩ = −q_j = 0 with Y ⪰ 0, and for semidefinite F that
// forces FY = 0: every dual feasible Y of the block lies in the face
// {V W Vᵀ : W ⪰ 0}, V a basis of the null space of F. The dual problem has
// no interior point (the IPM's Newton directions then lose the dual
// equation's accuracy as μ falls: BENCHMARKS.md, "SDPLIB gpp family, round
// 12"). The reduced problem replaces the block by VᵀS V ⪰ 0 (order k =
// n − rank F) and drops x_j, whose column VᵀFV is zero.
//
// V is the sparse basis V_R = I, V_P = −F_PP⁻¹F_PR, with P the pivots of a
// diagonally pivoted Cholesky factorization of ±F (rank F of them) and R the
// other indices of the block: an entry of a column outside the rows and
// columns P keeps its value and moves to its reduced index, so only the
// columns that touch P become denser.
//
// Recovery: the reduced solution (x, s', W) gives Y = V W Vᵀ, which meets
// the original dual equations exactly (⟨M, VWVᵀ⟩ = ⟨VᵀMV, W⟩ for every
// column M, and 0 for F), and the same objective terms (bᵀy likewise, q_j =
// 0). x_j = −σt with σF ⪰ 0 and t ≥ 0 found by a search (decades, then
// bisection) for the smallest value at which the block's slack S₀ + tσF
// has a Cholesky factorization, times facialSlackMargin; S₀ is b − Ax on
// the block with x_j = 0 plus the reduced iterate's residual r' = s' −
// (b' − A'x) placed on the rows and columns R (so VᵀS₀V = s' ≻ 0), accepted
// only when that residual is within solver.RowTolerance of every row's own
// terms (ownTermsResidual); the exact slack b − Ax is the second choice.
// Without r' the face part of b − Ax can be outside the cone by the
// iterate's residual, and no t exists. The point is re-checked on the
// caller's problem (solver.Certify, see solveFacial); when no point is
// found, or the reduced solve is neither OK nor primal infeasible, the
// original problem is solved instead.
type facialReduction struct {
	orig   *solver.Problem
	red    *solver.Problem
	col    int       // the dropped variable j
	sigma  float64   // σ: σF ⪰ 0
	cone   int       // index of the PSD cone
	off    int       // its first row in the original problem
	n, k   int       // order of the block before and after
	piv    []int     // P (block indices)
	rest   []int     // R (block indices), in order: reduced index a ↔ rest[a]
	pos    []int     // block index → reduced index (−1 for P)
	ppos   []int     // block index → index in P (−1 for R)
	g      []float64 // G = F_PP⁻¹F_PR, r × k row-major (V_P = −G)
	redOff int       // first row of the reduced block
	redDim int       // k(k+1)/2
}

// facialRankTol is the relative threshold of the pivoted Cholesky
// factorization: a remaining diagonal entry at most this times the largest
// |F_ij| ends it (rank F found), one below minus it, or an off-diagonal
// entry of the remaining Schur complement above it, shows F indefinite.
// Stated: the data are exact to about 1e-15 relative; three orders above
// that separates a rank deficiency from round-off.
const facialRankTol = 1e-12

// facialSlackMargin multiplies the smallest t found for the recovered slack
// (see facialReduction): the smallest is on the boundary of the cone to the
// precision of the search; twice it is well inside (λ_min of S₀ + tσF is
// concave and nondecreasing in t).
const facialSlackMargin = 2

// facialWorkBudget bounds the detection's dense work (the pivoted Cholesky
// factorizations, ns² per pivot on a support of ns indices) to this multiple
// of Σ n³ over the PSD blocks: each IPM iteration factors every block's
// scaling at a cost of at least n³, so the detection costs at most a few
// iterations however many columns pass the cheap tests.
const facialWorkBudget = 10

// newFacialReduction returns the first reduction that p admits (columns in
// order), or nil.
func newFacialReduction(p *solver.Problem) *facialReduction {
	if p.A == nil {
		return nil
	}
	// cone of every row
	starts := make([]int, len(p.Cones))
	off := 0
	budget := 0.0
	for i, c := range p.Cones {
		starts[i] = off
		off += c.Dim
		if c.Kind == cone.PSD {
			n := float64(cone.PSDOrder(c.Dim))
			budget += facialWorkBudget * n * n * n
		}
	}
	coneOf := func(r int) int {
		lo, hi := 0, len(starts)-1
		for lo < hi {
			mid := (lo + hi + 1) / 2
			if starts[mid] <= r {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		return lo
	}
	a := p.A
	idxCone := -1 // the cone of si, sj
	var si, sj []int32
	for j := 0; j < a.Cols; j++ {
		if p.Q[j] != 0 || a.ColPtr[j] == a.ColPtr[j+1] || hasQuadColumn(p.P, j) {
			continue
		}
		ci := coneOf(a.RowIdx[a.ColPtr[j]])
		c := p.Cones[ci]
		if c.Kind != cone.PSD {
			continue
		}
		lo, hi := starts[ci], starts[ci]+c.Dim
		inside := true
		for q := a.ColPtr[j]; q < a.ColPtr[j+1]; q++ {
			if r := a.RowIdx[q]; r < lo || r >= hi {
				inside = false
				break
			}
		}
		if !inside {
			continue
		}
		n := cone.PSDOrder(c.Dim)
		if idxCone != ci {
			idxCone = ci
			si, sj = svecIndex(n)
		}
		if fr := tryFacial(p, j, ci, lo, n, si, sj, &budget); fr != nil {
			return fr
		}
		if budget <= 0 {
			return nil
		}
	}
	return nil
}

func hasQuadColumn(pm *sparse.CSC, j int) bool {
	if pm == nil || pm.Nnz() == 0 {
		return false
	}
	for q := pm.ColPtr[j]; q < pm.ColPtr[j+1]; q++ {
		if pm.Val[q] != 0 {
			return true
		}
	}
	for c := j + 1; c < pm.Cols; c++ {
		for q := pm.ColPtr[c]; q < pm.ColPtr[c+1]; q++ {
			if pm.RowIdx[q] == j && pm.Val[q] != 0 {
				return true
			}
		}
	}
	return false
}

// blockEntry is an entry (i, j), i ≥ j, of a symmetric block with its
// matrix value (off-diagonal svec values divided by √2).
type blockEntry struct {
	i, j int
	v    float64
}

// blockEntries returns the entries of column j of a in rows [off, off+d) of
// an order-n PSD block, as matrix entries.
func blockEntries(a *sparse.CSC, j, off, d int, si, sj []int32) []blockEntry {
	var out []blockEntry
	for q := a.ColPtr[j]; q < a.ColPtr[j+1]; q++ {
		r := a.RowIdx[q] - off
		if r < 0 || r >= d || a.Val[q] == 0 {
			continue
		}
		e := blockEntry{int(si[r]), int(sj[r]), a.Val[q]}
		if e.i != e.j {
			e.v /= math.Sqrt2
		}
		out = append(out, e)
	}
	return out
}

// tryFacial tests column j (all in the PSD cone ci at row off, order n) and
// builds the reduction when its matrix is semidefinite and singular.
func tryFacial(p *solver.Problem, j, ci, off, n int, si, sj []int32, budget *float64) *facialReduction {
	d := n * (n + 1) / 2
	ents := blockEntries(p.A, j, off, d, si, sj)
	// support: indices with a nonzero diagonal; a semidefinite matrix has
	// zero rows where its diagonal is zero, and diagonals of one sign
	nd := 0
	for _, e := range ents {
		if e.i == e.j {
			nd++
		}
	}
	if nd == 0 || nd*(nd+1)/2 < len(ents) {
		return nil // an off-diagonal entry outside the support
	}
	diag := make([]float64, n)
	for _, e := range ents {
		if e.i == e.j {
			diag[e.i] = e.v
		}
	}
	sigma := 0.0
	var sup []int
	spos := make([]int, n)
	for i := range spos {
		spos[i] = -1
	}
	for i, v := range diag {
		if v == 0 {
			continue
		}
		s := math.Copysign(1, v)
		if sigma == 0 {
			sigma = s
		} else if s != sigma {
			return nil
		}
		spos[i] = len(sup)
		sup = append(sup, i)
	}
	if sigma == 0 {
		return nil
	}
	for _, e := range ents {
		if spos[e.i] < 0 || spos[e.j] < 0 {
			return nil
		}
	}
	// pivoted Cholesky of σF on the support
	ns := len(sup)
	f := make([]float64, ns*ns)
	scale := 0.0
	for _, e := range ents {
		a, b := spos[e.i], spos[e.j]
		f[a*ns+b] = sigma * e.v
		f[b*ns+a] = sigma * e.v
		scale = math.Max(scale, math.Abs(e.v))
	}
	orig := append([]float64(nil), f...)
	tol := facialRankTol * scale
	done := make([]bool, ns)
	var pivS []int
	for {
		if *budget -= float64(ns) * float64(ns); *budget <= 0 {
			return nil
		}
		best, bi := 0.0, -1
		for i := 0; i < ns; i++ {
			if done[i] {
				continue
			}
			if v := f[i*ns+i]; v < -tol {
				return nil
			} else if v > best {
				best, bi = v, i
			}
		}
		if bi < 0 || best <= tol {
			break
		}
		done[bi] = true
		pivS = append(pivS, bi)
		for u := 0; u < ns; u++ {
			if done[u] {
				continue
			}
			lu := f[u*ns+bi] / best
			if lu == 0 {
				continue
			}
			for v := 0; v < ns; v++ {
				if !done[v] {
					f[u*ns+v] -= lu * f[bi*ns+v]
				}
			}
		}
	}
	r := len(pivS)
	for u := 0; u < ns; u++ {
		for v := 0; v < ns; v++ {
			if !done[u] && !done[v] && math.Abs(f[u*ns+v]) > tol {
				return nil // indefinite
			}
		}
	}
	if r == 0 || r >= n {
		return nil // zero column, or the face is {0}
	}
	fr := &facialReduction{orig: p, col: j, sigma: sigma, cone: ci, off: off, n: n, k: n - r}
	fr.pos, fr.ppos = make([]int, n), make([]int, n)
	isPiv := make([]bool, n)
	for _, s := range pivS {
		isPiv[sup[s]] = true
	}
	for i := 0; i < n; i++ {
		fr.pos[i], fr.ppos[i] = -1, -1
		if isPiv[i] {
			fr.ppos[i] = len(fr.piv)
			fr.piv = append(fr.piv, i)
		} else {
			fr.pos[i] = len(fr.rest)
			fr.rest = append(fr.rest, i)
		}
	}
	// G = F_PP⁻¹ F_PR (r × k) from the original values
	fpp := mat.NewSymDense(r, nil)
	fpr := mat.NewDense(r, fr.k, nil)
	for a, ia := range fr.piv {
		sa := spos[ia]
		for b, ib := range fr.piv {
			fpp.SetSym(a, b, orig[sa*ns+spos[ib]])
		}
		for b, ib := range fr.rest {
			if sb := spos[ib]; sb >= 0 {
				fpr.Set(a, b, orig[sa*ns+sb])
			}
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(fpp) {
		return nil
	}
	var gm mat.Dense
	if err := ch.SolveTo(&gm, fpr); err != nil {
		return nil
	}
	fr.g = make([]float64, r*fr.k)
	for a := 0; a < r; a++ {
		for b := 0; b < fr.k; b++ {
			fr.g[a*fr.k+b] = gm.At(a, b)
		}
	}
	fr.build()
	return fr
}

// congruence returns the svec entries (reduced block rows, scaled values) of
// VᵀMV for the block matrix M given by its entries.
func (fr *facialReduction) congruence(ents []blockEntry, acc []float64) (rows []int, vals []float64) {
	k := fr.k
	touches := false
	for _, e := range ents {
		if fr.ppos[e.i] >= 0 || fr.ppos[e.j] >= 0 {
			touches = true
			break
		}
	}
	if !touches {
		for _, e := range ents {
			a, b := fr.pos[e.i], fr.pos[e.j]
			if a < b {
				a, b = b, a
			}
			v := e.v
			if a != b {
				v *= math.Sqrt2
			}
			rows = append(rows, b*k-b*(b-1)/2+(a-b))
			vals = append(vals, v)
		}
		return rows, vals
	}
	// dense accumulation of the lower triangle (acc is k×k, row-major)
	clear(acc)
	row := func(u int) (unit int, dense []float64) {
		if p := fr.ppos[u]; p >= 0 {
			return -1, fr.g[p*k : (p+1)*k] // row u of V is −G[p, :]
		}
		return fr.pos[u], nil
	}
	add := func(c float64, u, v int) { // acc += c·(V_u ⊗ V_v)
		ua, ud := row(u)
		va, vd := row(v)
		switch {
		case ud == nil && vd == nil:
			acc[ua*k+va] += c
		case ud == nil:
			for b := 0; b < k; b++ {
				acc[ua*k+b] -= c * vd[b]
			}
		case vd == nil:
			for a := 0; a < k; a++ {
				acc[a*k+va] -= c * ud[a]
			}
		default:
			for a := 0; a < k; a++ {
				if ud[a] == 0 {
					continue
				}
				ca := c * ud[a]
				for b := 0; b < k; b++ {
					acc[a*k+b] += ca * vd[b]
				}
			}
		}
	}
	for _, e := range ents {
		add(e.v, e.i, e.j)
		if e.i != e.j {
			add(e.v, e.j, e.i)
		}
	}
	for b := 0; b < k; b++ {
		for a := b; a < k; a++ {
			v := acc[a*k+b]
			if a != b {
				v = (v + acc[b*k+a]) / math.Sqrt2 // √2 times the symmetric part
			}
			if v != 0 {
				rows = append(rows, b*k-b*(b-1)/2+(a-b))
				vals = append(vals, v)
			}
		}
	}
	return rows, vals
}

// build sets fr.red.
func (fr *facialReduction) build() {
	p := fr.orig
	d := fr.n * (fr.n + 1) / 2
	fr.redOff = fr.off
	fr.redDim = fr.k * (fr.k + 1) / 2
	shift := fr.redDim - d
	m2 := len(p.B) + shift
	n2 := p.A.Cols - 1
	si, sj := svecIndex(fr.n)
	acc := make([]float64, fr.k*fr.k)
	newRow := func(r int) int {
		if r >= fr.off+d {
			return r + shift
		}
		return r
	}
	t := sparse.NewTriplets(m2, n2, p.A.Nnz())
	for j := 0; j < p.A.Cols; j++ {
		if j == fr.col {
			continue
		}
		jj := j
		if j > fr.col {
			jj--
		}
		var ents []blockEntry
		for q := p.A.ColPtr[j]; q < p.A.ColPtr[j+1]; q++ {
			r := p.A.RowIdx[q]
			if r >= fr.off && r < fr.off+d {
				continue
			}
			t.Append(newRow(r), jj, p.A.Val[q])
		}
		ents = blockEntries(p.A, j, fr.off, d, si, sj)
		if len(ents) > 0 {
			rows, vals := fr.congruence(ents, acc)
			for i, r := range rows {
				t.Append(fr.redOff+r, jj, vals[i])
			}
		}
	}
	b := make([]float64, m2)
	var bents []blockEntry
	for r, v := range p.B {
		if r >= fr.off && r < fr.off+d {
			if v != 0 {
				e := blockEntry{int(si[r-fr.off]), int(sj[r-fr.off]), v}
				if e.i != e.j {
					e.v /= math.Sqrt2
				}
				bents = append(bents, e)
			}
			continue
		}
		b[newRow(r)] = v
	}
	if len(bents) > 0 {
		rows, vals := fr.congruence(bents, acc)
		for i, r := range rows {
			b[fr.redOff+r] = vals[i]
		}
	}
	q := make([]float64, 0, n2)
	q = append(q, p.Q[:fr.col]...)
	q = append(q, p.Q[fr.col+1:]...)
	red := &solver.Problem{Q: q, R: p.R, A: t.ToCSC(), B: b, Cones: append([]cone.Cone(nil), p.Cones...)}
	red.Cones[fr.cone] = cone.NewPSD(fr.k)
	if p.P != nil && p.P.Nnz() > 0 {
		pt := sparse.NewTriplets(n2, n2, p.P.Nnz())
		for c := 0; c < p.P.Cols; c++ {
			for qq := p.P.ColPtr[c]; qq < p.P.ColPtr[c+1]; qq++ {
				r := p.P.RowIdx[qq]
				if r == fr.col || c == fr.col {
					continue
				}
				rr, cc := r, c
				if r > fr.col {
					rr--
				}
				if c > fr.col {
					cc--
				}
				pt.Append(rr, cc, p.P.Val[qq])
			}
		}
		red.P = pt.ToCSC()
	}
	fr.red = red
}

// recoverY maps the reduced dual vector onto the original problem: the
// block is V W Vᵀ, the other rows are copied.
func (fr *facialReduction) recoverY(ry []float64) []float64 {
	p := fr.orig
	n, k := fr.n, fr.k
	d := n * (n + 1) / 2
	y := make([]float64, len(p.B))
	copy(y[:fr.off], ry[:fr.redOff])
	copy(y[fr.off+d:], ry[fr.redOff+fr.redDim:])
	w := ry[fr.redOff : fr.redOff+fr.redDim]
	wm := make([]float64, k*k)
	for b := 0; b < k; b++ {
		for a := b; a < k; a++ {
			v := w[b*k-b*(b-1)/2+(a-b)]
			if a != b {
				v /= math.Sqrt2
			}
			wm[a*k+b], wm[b*k+a] = v, v
		}
	}
	// Y = V W Vᵀ, V_R = I, V_P = −G: Y_RR = W, Y_PR = −G W, Y_PP = G W Gᵀ
	r := len(fr.piv)
	gw := make([]float64, r*k)
	for a := 0; a < r; a++ {
		for c := 0; c < k; c++ {
			ga := fr.g[a*k+c]
			if ga == 0 {
				continue
			}
			for b := 0; b < k; b++ {
				gw[a*k+b] += ga * wm[c*k+b]
			}
		}
	}
	ym := func(u, v int) float64 {
		pu, pv := fr.ppos[u], fr.ppos[v]
		switch {
		case pu < 0 && pv < 0:
			return wm[fr.pos[u]*k+fr.pos[v]]
		case pu >= 0 && pv < 0:
			return -gw[pu*k+fr.pos[v]]
		case pu < 0 && pv >= 0:
			return -gw[pv*k+fr.pos[u]]
		}
		s := 0.0
		for c := 0; c < k; c++ {
			s += gw[pu*k+c] * fr.g[pv*k+c]
		}
		return s
	}
	blk := y[fr.off : fr.off+d]
	for jj := 0; jj < n; jj++ {
		for ii := jj; ii < n; ii++ {
			v := ym(ii, jj)
			if ii != jj {
				v *= math.Sqrt2
			}
			blk[jj*n-jj*(jj-1)/2+(ii-jj)] = v
		}
	}
	return y
}

// recoverX maps a reduced primal point (rx, rs) onto the original problem:
// x_j = −σt with t as described at facialReduction, s on the block as
// described below, rs elsewhere. ok is
// false when no t up to facialMaxSteps decades was found.
func (fr *facialReduction) recoverX(rx, rs []float64, exact bool) (x, s []float64, t float64, ok bool) {
	p := fr.orig
	n := fr.n
	d := n * (n + 1) / 2
	x = make([]float64, p.A.Cols)
	copy(x[:fr.col], rx[:fr.col])
	copy(x[fr.col+1:], rx[fr.col:])
	// the reduced residual on the block, r' = s' − b' + A'x (svec)
	rres := make([]float64, fr.redDim)
	{
		ar := make([]float64, len(fr.red.B))
		fr.red.A.MulVecTo(ar, 1, rx, 0)
		for i := range rres {
			r := fr.redOff + i
			if !exact {
				rres[i] = rs[r] - fr.red.B[r] + ar[r]
			}
		}
	}
	// S₀ (with r' on R×R) and σF on the block
	s0 := mat.NewSymDense(n, nil)
	fm := mat.NewSymDense(n, nil)
	si, sj := svecIndex(n)
	for r, v := range p.B[fr.off : fr.off+d] {
		if si[r] != sj[r] {
			v /= math.Sqrt2
		}
		s0.SetSym(int(si[r]), int(sj[r]), v)
	}
	a := p.A
	for j := 0; j < a.Cols; j++ {
		xj := x[j]
		if j != fr.col && xj == 0 {
			continue
		}
		for q := a.ColPtr[j]; q < a.ColPtr[j+1]; q++ {
			r := a.RowIdx[q] - fr.off
			if r < 0 || r >= d {
				continue
			}
			i1, j1 := int(si[r]), int(sj[r])
			v := a.Val[q]
			if i1 != j1 {
				v /= math.Sqrt2
			}
			if j == fr.col {
				fm.SetSym(i1, j1, fm.At(i1, j1)+fr.sigma*v)
			} else {
				s0.SetSym(i1, j1, s0.At(i1, j1)-xj*v)
			}
		}
	}
	for b := 0; b < fr.k; b++ {
		for a2 := b; a2 < fr.k; a2++ {
			v := rres[b*fr.k-b*(b-1)/2+(a2-b)]
			if a2 != b {
				v /= math.Sqrt2
			}
			i, j := fr.rest[a2], fr.rest[b]
			s0.SetSym(i, j, s0.At(i, j)+v)
		}
	}
	m := mat.NewSymDense(n, nil)
	var ch mat.Cholesky
	pd := func(t float64) bool {
		m.CopySym(s0)
		if t != 0 {
			for i := 0; i < n; i++ {
				for j := i; j < n; j++ {
					if f := fm.At(i, j); f != 0 {
						m.SetSym(i, j, m.At(i, j)+t*f)
					}
				}
			}
		}
		return ch.Factorize(m)
	}
	if !pd(0) {
		// decades up from 1e-8·‖S₀‖/‖σF‖, then bisection in the last decade
		fn := mat.Norm(fm, math.Inf(1))
		sn := math.Max(1, mat.Norm(s0, math.Inf(1)))
		lo, hi := 0.0, 1e-8*sn/fn
		found := false
		for it := 0; it < facialMaxSteps; it++ {
			if pd(hi) {
				found = true
				break
			}
			lo, hi = hi, 10*hi
		}
		if !found {
			return nil, nil, 0, false
		}
		for it := 0; it < 6; it++ {
			mid := (lo + hi) / 2
			if pd(mid) {
				hi = mid
			} else {
				lo = mid
			}
		}
		t = facialSlackMargin * hi
	}
	x[fr.col] = -fr.sigma * t
	// s = b − Ax, plus on the block the reduced iterate's residual r' =
	// s' − (b' − A'x) embedded in the rows and columns R (V_Rᵀ = I), so
	// that VᵀSV = s' ≻ 0: the point keeps the reduced iterate's primal
	// residual instead of the slack b − Ax whose face part may be outside
	// the cone by that residual
	s = make([]float64, len(p.B))
	ax := make([]float64, len(p.B))
	a.MulVecTo(ax, 1, x, 0)
	for r := range s {
		s[r] = p.B[r] - ax[r]
	}
	copy(s[:fr.off], rs[:fr.redOff])
	copy(s[fr.off+d:], rs[fr.redOff+fr.redDim:])
	for b := 0; b < fr.k; b++ {
		for a2 := b; a2 < fr.k; a2++ {
			i, j := fr.rest[a2], fr.rest[b]
			if i < j {
				i, j = j, i
			}
			s[fr.off+j*n-j*(j-1)/2+(i-j)] += rres[b*fr.k-b*(b-1)/2+(a2-b)]
		}
	}
	return x, s, t, true
}

// facialMaxSteps bounds the decades of the search for t: 1e-8 to 1e22
// times ‖S₀‖/‖σF‖, beyond which the point is useless in double precision.
const facialMaxSteps = 30

func scaledSym(a *mat.SymDense, t float64) *mat.SymDense {
	var m mat.SymDense
	m.ScaleSym(t, a)
	return &m
}

// facialHistory is the number of the reduced solve's last iterates kept for
// the recovery (memory: that many copies of x and s). On the SDPLIB gpp
// instances the walk back stops at the final point or the one before it.
const facialHistory = 4

// solveFacial solves p through its facial reduction fr; it returns nil when
// the original problem must be solved instead (see facialReduction).
//
// The dropped variable t grows like the inverse of the reduced slack's
// smallest eigenvalue, so like 1/μ when the original problem has no optimal
// x (its optimal set is then approached as t → ∞), and the re-check's
// cone distance of the slack is computed with a rounding error of about
// 1e-16·t·‖σF‖. The final reduced iterate is therefore not always the best
// point for the original problem: the reduced solve's iterates are kept,
// and the latest of them (the final point first, then backwards) whose
// recovered point gets the best grade of solver.Certify on p is returned
// (the last facialHistory iterates are kept).
// The walk back stops at the first Optimal grade, and once a point's relative
// gap exceeds the reduced tolerance (earlier iterates only have larger gaps).
func (sv *Solver) solveFacial(ctx context.Context, fr *facialReduction, s solver.Settings) *solver.Solution {
	start := time.Now()
	var hist [][2][]float64
	inner := &Solver{set: sv.set}
	inner.set.iterates = func(x, s []float64) {
		if len(hist) == facialHistory {
			hist = append(hist[:0], hist[1:]...)
		}
		hist = append(hist, [2][]float64{x, s})
	}
	rs, err := inner.solve(ctx, fr.red, s, nil) // one step: no reduction of the reduced problem
	if err != nil || rs == nil {
		return nil
	}
	if !rs.Status.OK() && rs.Status != solver.PrimalInfeasible {
		return nil
	}
	sol := &solver.Solution{Status: rs.Status, Objective: rs.Objective, DualObjective: rs.DualObjective,
		Iterations: rs.Iterations, Diagnostic: rs.Diagnostic, Solver: "ipm"}
	if rs.Y != nil {
		sol.Y = fr.recoverY(rs.Y)
	}
	if rs.Status == solver.PrimalInfeasible {
		sol.SolveTime = time.Since(start)
		return sol
	}
	set := sv.set
	set.fill()
	tol, rtol := set.tol(), set.reducedTol()
	var best *solver.Solution
	var bestAcc solver.Accuracy
	try := func(rx, rsl []float64, exact bool) (stop bool) {
		x, sl, _, ok := fr.recoverX(rx, rsl, exact)
		if !ok {
			return false
		}

		if !exact && !fr.ownTermsResidual(x, sl) {
			return true
		}
		cand := &solver.Solution{Status: rs.Status, X: x, S: sl, Y: sol.Y, Iterations: rs.Iterations,
			Diagnostic: rs.Diagnostic, Solver: "ipm"}
		acc, err := solver.Measure(fr.orig, x, sl, sol.Y)
		if err != nil {
			return false
		}
		acc = solver.CertifyMeasured(cand, acc, tol, rtol)
		hadOK := best != nil && best.Status.OK()
		if best == nil || statusRank(cand.Status) > statusRank(best.Status) {
			best, bestAcc = cand, acc
		}
		return cand.Status == solver.Optimal || acc.Gap > rtol || hadOK
	}
	walk := func(exact bool) {
		if rs.X != nil && rs.S != nil && try(rs.X, rs.S, exact) {
			return
		}
		for i := len(hist) - 1; i >= 0; i-- {
			if try(hist[i][0], hist[i][1], exact) {
				return
			}
		}
	}
	walk(false)
	if best == nil || !best.Status.OK() {
		walk(true)
	}
	if best == nil {
		return nil
	}
	best.Accuracy = bestAcc
	px := make([]float64, len(best.X))
	symMulVec(px, fr.orig.P, best.X)
	xpx := dot(best.X, px)
	best.Objective = 0.5*xpx + dot(fr.orig.Q, best.X) + fr.orig.R
	best.DualObjective = -0.5*xpx - dot(fr.orig.B, best.Y) + fr.orig.R
	best.SolveTime = time.Since(start)
	return best
}

// ownTermsResidual reports whether every row of the block meets
// |bᵢ − (Ax)ᵢ − sᵢ| ≤ solver.RowTolerance·Tᵢ with Tᵢ = |bᵢ| + Σₖ|aᵢₖxₖ| +
// |sᵢ| the row's own terms: the row-wise re-check (solver.RowAccuracy)
// without its floor, whose global scale ‖x‖∞ includes the dropped variable
// and would hide a residual embedded in rows that variable does not touch.
func (fr *facialReduction) ownTermsResidual(x, s []float64) bool {
	p := fr.orig
	d := fr.n * (fr.n + 1) / 2
	terms := make([]float64, d)
	res := make([]float64, d)
	for r := 0; r < d; r++ {
		res[r] = p.B[fr.off+r] - s[fr.off+r]
		terms[r] = math.Abs(p.B[fr.off+r]) + math.Abs(s[fr.off+r])
	}
	a := p.A
	for j := 0; j < a.Cols; j++ {
		if x[j] == 0 {
			continue
		}
		for q := a.ColPtr[j]; q < a.ColPtr[j+1]; q++ {
			r := a.RowIdx[q] - fr.off
			if r < 0 || r >= d {
				continue
			}
			v := a.Val[q] * x[j]
			res[r] -= v
			terms[r] += math.Abs(v)
		}
	}
	for r := range res {
		if math.Abs(res[r]) > solver.RowTolerance*terms[r] {
			return false
		}
	}
	return true
}
