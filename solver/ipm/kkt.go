package ipm

import (
	"fmt"
	"github.com/privopt/privopt/internal/arena"
	"math"
	"runtime"
	"sort"

	"github.com/privopt/privopt/internal/ldl"
	"github.com/privopt/privopt/sparse"
	"gonum.org/v1/gonum/mat"
)

// ------------------------------------------------------------ KKT assembly

// coneSlot records where a cone's scaling block lives in the KKT values.
type coneSlot struct {
	c      conic
	off    int   // first row of the cone in z
	dense  []int // positions of the block's upper triangle, column by column; nil for diagonal-only blocks
	diag   []int // positions of the block's diagonal
	expand bool  // sparse SOC expansion
	p1pos  []int // positions of η²·v in the first extra column, then its diagonal
	p2pos  []int // positions of η²·u in the second extra column, then its diagonal
	buf    []float64
	elim   *schurBlock // non-nil: the block is eliminated into the x-block
}

// kktSystem is the quasi-definite matrix
//
//	[ P + εI      Aᵀ      ]
//	[ A        −(H + εI)  ]
//
// (upper triangle) with H the block-diagonal cone scaling, second-order cones
// above Settings.SOCExpandDim expanded sparsely: their block
// −η²(D + uuᵀ − vvᵀ) is the Schur complement of
//
//	[ −η²D    η²v    η²u ]
//	[ η²vᵀ   −η²      0  ]
//	[ η²uᵀ     0     +η² ]
//
// in two extra rows (Clarabel, Section 5.2; the choice of D, u, v keeps the
// matrix quasi-definite, see socCone.updateScaling). Scaling the extra rows
// by η² keeps their entries of the same magnitude as the cone block, and the
// extra rows get no static regularization, so the Schur complement is exact.
// PSD blocks that touch few columns are eliminated (see eliminatePSD and
// schurBlock).
//
// Vectors passed to solve have the full layout (x, z, extra rows); the
// matrix itself has the reduced layout (x, z of the kept rows, extra rows).
type kktSystem struct {
	// islab, fslab: the allocations the pattern and work arrays are cut
	// from (release)
	islab    []int
	fslab    []float64
	n, m     int
	dim      int   // order of the (reduced) matrix
	fdim     int   // length of full vectors: n + m + 2·(expanded cones)
	mr       int   // kept z rows
	zidx     []int // matrix index of z row i, −1 if eliminated
	k        *sparse.CSC
	signs    []int8
	xbase    []float64 // values of the x columns without Schur terms
	contig   []bool    // per column: rows above the diagonal consecutive (mulK; built on first use)
	sdpxb    *sdpxBase // x-block pattern without Schur terms (sdpxMulReducedExact; built on first use)
	signf    []float64 // signs as float64, 0 on the extra rows (mulKFast; built on first use)
	diagLast bool      // every column stores its diagonal last (mulKFast)
	slots    []coneSlot
	elims    []*schurBlock
	identity bool    // the scaling is the identity (initialization)
	threads  int     // goroutines for the PSD Schur complements
	eps      float64 // static regularization
	solver   kktSolver
	refine   int
	// refineRel, when positive, ends the refinement of solveReduced as
	// soon as the relative residual is below it (see earlyRefineStop); 0
	// refines to round-off.
	refineRel float64
	// solveErr is the largest relative residual ‖b − K₀x‖∞/(1 + ‖b‖∞) left
	// by the refined solves since the last factorization.
	solveErr float64
	// backErr is ‖b − K₀x‖∞/‖x‖∞ of the first solve after the last
	// factorization when that solve needed no refinement correction, 0
	// otherwise; nsolves counts the solves since the factorization (see
	// solveReduced).
	backErr float64
	nsolves int
	// interrupt, when non-nil, is polled by the assembly of the PSD Schur
	// complements (addSchur) between rows and between the panels of the
	// dense rule's Gram product, and stops it with ldl.ErrInterrupted: one
	// such product costs nc²·d/2 multiply-adds (seconds to minutes for
	// thousands of constraints), too long to wait for at a time limit.
	interrupt func() bool
	// workspaces
	rhs, res, dx []float64
	br, xr       []float64
	fres, fdx    []float64
}

func newKKT(p, a *sparse.CSC, cones []conic, set *Settings, stop func() bool) (*kktSystem, error) {
	n, m := a.Cols, a.Rows
	at := a.Transpose()
	// zidx and mark share one allocation; the pattern and the per-cone
	// position arrays share two more (ints, floats), cut below once the
	// order is known: on small problems the allocations are a visible part
	// of the setup.
	zm := make([]int, m+max(n, m))
	ks := &kktSystem{n: n, m: m, refine: set.RefineSteps, zidx: zm[:m:m], threads: set.Threads}
	if ks.threads == 0 {
		ks.threads = runtime.GOMAXPROCS(0)
	}
	for _, c := range cones {
		if pc, ok := c.(*psdCone); ok {
			pc.parallel = ks.threads > 1
		}
	}
	if set.DisableRefinement {
		ks.refine = 0
	}
	ks.slots = make([]coneSlot, len(cones))
	mark := zm[m:]
	for i := range mark {
		mark[i] = -1
	}
	// decide eliminations and the reduced z indices
	off, nexp := 0, 0
	for ci, c := range cones {
		d := c.dim()
		sl := coneSlot{c: c, off: off}
		if sc, ok := c.(*socCone); ok && sc.d > set.SOCExpandDim {
			sl.expand = true
			nexp++
		}
		if pc, ok := c.(*psdCone); ok && !set.DisablePSDElimination {
			cols := blockCols(nil, at, off, d, mark, ci)
			if eliminatePSD(d, len(cols), set) {
				sort.Ints(cols)
				nc := len(cols)
				eb := &schurBlock{cone: pc, cols: cols, sc: mat.NewSymDense(max(nc, 1), nil),
					pos: make([]int, nc*(nc+1)/2), v: make([]float64, d), w: make([]float64, d), fb: make([]float64, d), xc: make([]float64, nc), hxc: make([]float64, nc), xt: make([]float64, nc), sx: make([]float64, nc)}
				colIdx := make(map[int]int, nc)
				for k, j := range cols {
					colIdx[j] = k
				}
				tr := sparse.NewTriplets(d, nc, 0)
				for r := off; r < off+d; r++ {
					for q := at.ColPtr[r]; q < at.ColPtr[r+1]; q++ {
						tr.Append(r-off, colIdx[at.RowIdx[q]], at.Val[q])
					}
				}
				eb.ap = tr.ToCSC()
				pl := newFKNPlan(pc.n, eb.ap)
				if set.PSDSchurRule == PSDSchurSparse || (set.PSDSchurRule == PSDSchurAuto && pl.cost <= denseSchurCost(pc.n, nc)) {
					eb.plan = pl
				} else {
					eb.gt = mat.NewDense(max(nc, 1), d, nil)
				}
				sl.elim = eb
				ks.elims = append(ks.elims, eb)
			}
		}
		ks.slots[ci] = sl
		off += d
	}
	for i := range mark {
		mark[i] = -1
	}
	mr := 0
	for ci := range ks.slots {
		sl := &ks.slots[ci]
		for r := sl.off; r < sl.off+sl.c.dim(); r++ {
			if sl.elim != nil {
				ks.zidx[r] = -1
			} else {
				ks.zidx[r] = n + mr
				mr++
			}
		}
	}
	ks.mr = mr
	ks.dim = n + mr + 2*nexp
	ks.fdim = n + m + 2*nexp
	ks.signs = make([]int8, ks.dim)
	// An upper bound on the entries (P, the x diagonal, A, the cone blocks,
	// the Schur patterns): the pattern is built by appends into one
	// allocation. xcap bounds the entries of the x columns (P, the
	// diagonal, the Schur patterns); ni and nf count the per-cone arrays.
	xcap := n
	if p != nil {
		xcap += p.Nnz()
	}
	capK := xcap + a.Nnz()
	ni, nf := 0, 0
	for ci := range ks.slots {
		sl := &ks.slots[ci]
		d := sl.c.dim()
		switch {
		case sl.elim != nil:
			nc := len(sl.elim.cols)
			capK += nc * (nc + 1) / 2
			xcap += nc * (nc + 1) / 2
		case sl.expand:
			capK += d + 2*(d+1)
			ni += d + 2*(d+1)
		case isDiagOnly(sl.c):
			capK += d
			ni += d
		default:
			capK += d * (d + 1) / 2
			ni += d + d*(d+1)/2
			nf += d * d
		}
	}
	ia := arena.Ints.Get(ks.dim + 1 + capK + 2*n + ni)
	fa := arena.Floats.Get(capK + n + xcap + nf + ks.fdim + 4*ks.dim)
	ks.islab, ks.fslab = ia, fa
	il := func(k int) []int { return arena.Cut(&ia, k) }
	fl := func(k int) []float64 { return arena.Cut(&fa, k) }
	k := &sparse.CSC{Rows: ks.dim, Cols: ks.dim, ColPtr: il(ks.dim + 1)}
	k.RowIdx, k.Val = il(capK)[:0], fl(capK)[:0]

	// x columns: P's upper triangle, the diagonal, and the Schur patterns
	pval := fl(n)
	rowpos := il(n)
	rows := il(n)
	var maxd float64
	for j := 0; j < n; j++ {
		rows = rows[:0]
		add := func(i int) {
			if mark[i] != j {
				mark[i] = j
				rows = append(rows, i)
				pval[i] = 0
			}
		}
		if p != nil {
			for q := p.ColPtr[j]; q < p.ColPtr[j+1]; q++ {
				add(p.RowIdx[q])
				pval[p.RowIdx[q]] = p.Val[q]
			}
		}
		add(j)
		for _, eb := range ks.elims {
			if kb := sort.SearchInts(eb.cols, j); kb < len(eb.cols) && eb.cols[kb] == j {
				for _, i := range eb.cols[:kb+1] {
					add(i)
				}
			}
		}
		sort.Ints(rows)
		for _, i := range rows {
			rowpos[i] = len(k.Val)
			k.RowIdx = append(k.RowIdx, i)
			k.Val = append(k.Val, pval[i])
		}
		maxd = math.Max(maxd, math.Abs(pval[j]))
		for _, eb := range ks.elims {
			if kb := sort.SearchInts(eb.cols, j); kb < len(eb.cols) && eb.cols[kb] == j {
				for ka := 0; ka <= kb; ka++ {
					eb.pos[ka+kb*(kb+1)/2] = rowpos[eb.cols[ka]]
				}
			}
		}
		k.ColPtr[j+1] = len(k.Val)
		ks.signs[j] = 1
	}
	// static regularization: constant + proportional to the largest diagonal of P
	ks.eps = set.StaticReg + set.StaticRegProportional*maxd
	for j := 0; j < n; j++ {
		for q := k.ColPtr[j]; q < k.ColPtr[j+1]; q++ {
			if k.RowIdx[q] == j {
				k.Val[q] += ks.eps
			}
		}
	}
	ks.xbase = fl(xcap)[:len(k.Val)]
	copy(ks.xbase, k.Val)

	// z columns of the kept rows
	for ci := range ks.slots {
		sl := &ks.slots[ci]
		if sl.elim != nil {
			continue
		}
		d := sl.c.dim()
		diagOnly := isDiagOnly(sl.c) || sl.expand
		sl.diag = il(d)
		if !diagOnly {
			sl.dense = il(d * (d + 1) / 2)[:0]
			sl.buf = fl(d * d)
		}
		for jj := 0; jj < d; jj++ {
			row := sl.off + jj
			col := ks.zidx[row]
			for q := at.ColPtr[row]; q < at.ColPtr[row+1]; q++ {
				k.RowIdx = append(k.RowIdx, at.RowIdx[q])
				k.Val = append(k.Val, at.Val[q])
			}
			if !diagOnly {
				for ii := 0; ii <= jj; ii++ {
					sl.dense = append(sl.dense, len(k.Val))
					k.RowIdx = append(k.RowIdx, ks.zidx[sl.off+ii])
					k.Val = append(k.Val, 0)
				}
				sl.diag[jj] = len(k.Val) - 1
			} else {
				sl.diag[jj] = len(k.Val)
				k.RowIdx = append(k.RowIdx, col)
				k.Val = append(k.Val, 0)
			}
			k.ColPtr[col+1] = len(k.Val)
			ks.signs[col] = -1
		}
	}
	// extra columns of expanded second-order cones
	col := n + mr
	for ci := range ks.slots {
		sl := &ks.slots[ci]
		if !sl.expand {
			continue
		}
		d := sl.c.dim()
		for pass, pos := range []*[]int{&sl.p1pos, &sl.p2pos} {
			*pos = il(d + 1)
			for ii := 0; ii < d; ii++ {
				(*pos)[ii] = len(k.Val)
				k.RowIdx = append(k.RowIdx, ks.zidx[sl.off+ii])
				k.Val = append(k.Val, 0)
			}
			(*pos)[d] = len(k.Val)
			k.RowIdx = append(k.RowIdx, col)
			k.Val = append(k.Val, 0)
			k.ColPtr[col+1] = len(k.Val)
			if pass == 0 {
				ks.signs[col] = -1
			} else {
				ks.signs[col] = 1
			}
			col++
		}
	}
	ks.k = k
	reg := ldl.Regularization{Eps: set.DynamicRegEps, Delta: set.DynamicRegDelta}
	if set.DenseKKT {
		ks.solver = &denseLDL{signs: ks.signs, reg: reg}
	} else {
		ratio := float64(kktSupernodalRatio)
		if k.Cols <= kktSmallOrder {
			ratio = kktSupernodalRatioSmall
		}
		for _, c := range cones {
			if _, ok := c.(*psdCone); ok {
				ratio = 0 // ldl's default (see kktSupernodalRatio)
				break
			}
		}
		opts := ldl.Options{Interrupt: stop, SupernodalRatio: ratio}
		if k.Cols <= kktMinimumDegreeOrder && (symmetricNonPSD(cones) || expNonPSD(cones)) {
			opts.Ordering = ldl.MinimumDegree
		}
		sym, err := ldl.Analyze(k, opts)
		if err != nil {
			return nil, err
		}
		if lim := set.MaxFactorBytes; lim > 0 && 8*float64(sym.NnzL()) > float64(lim) {
			return nil, fmt.Errorf("%w: the LDLᵀ factor of the KKT matrix has %d nonzeros (%.3g GB), more than MaxFactorBytes = %d", ErrTooLarge, sym.NnzL(), 8*float64(sym.NnzL())/1e9, lim)
		}
		ks.solver = &sparseLDL{signs: ks.signs, reg: reg, sym: sym, ratio: ratio}
	}
	work := fl(ks.fdim + 4*ks.dim)
	ks.rhs, work = work[:ks.fdim:ks.fdim], work[ks.fdim:]
	ks.res, work = work[:ks.dim:ks.dim], work[ks.dim:]
	ks.dx, work = work[:ks.dim:ks.dim], work[ks.dim:]
	ks.br, ks.xr = work[:ks.dim:ks.dim], work[ks.dim:]
	return ks, nil
}

// isDiagOnly reports whether cone c's scaling block is diagonal (zero and
// nonnegative cones).
// symmetricNonPSD reports whether every cone is zero, nonnegative or
// second-order (an LP, QP or SOCP): the problems kktMinimumDegreeOrder was
// measured on.
func symmetricNonPSD(cones []conic) bool {
	for _, c := range cones {
		switch c.(type) {
		case *zeroCone, *nonnegCone, *socCone:
		default:
			return false
		}
	}
	return true
}

func isDiagOnly(c conic) bool {
	switch c.(type) {
	case *zeroCone, *nonnegCone:
		return true
	}
	return false
}

// update writes the current cone scalings into the matrix and refactors it.
func (ks *kktSystem) update() error {
	ks.identity = false
	ks.solveErr = 0
	ks.backErr, ks.nsolves = 0, 0
	if err := ks.addSchur(); err != nil {
		return fmt.Errorf("ipm: Schur complement assembly: %w", err)
	}
	v := ks.k.Val
	eps := ks.eps
	for ci := range ks.slots {
		sl := &ks.slots[ci]
		if sl.elim != nil {
			continue
		}
		d := sl.c.dim()
		switch c := sl.c.(type) {
		case *zeroCone:
			for _, p := range sl.diag {
				v[p] = -eps
			}
		case *nonnegCone:
			for i, p := range sl.diag {
				v[p] = -c.w[i]*c.w[i] - eps
			}
		default:
			if sl.expand {
				sc := c.(*socCone)
				e2, d0, u, vv := sc.expansion()
				for i, p := range sl.diag {
					dd := 1.0
					if i == 0 {
						dd = d0
					}
					v[p] = -e2*dd - eps
				}
				for i := 0; i < d; i++ {
					v[sl.p1pos[i]] = e2 * vv[i]
					v[sl.p2pos[i]] = e2 * u[i]
				}
				v[sl.p1pos[d]] = -e2
				v[sl.p2pos[d]] = e2
				continue
			}
			if nc, ok := c.(*nonsymCone); ok && len(sl.dense) == 6 && len(sl.diag) == 3 {
				setNonsymBlock(v, sl.dense, sl.diag, &nc.hs, eps)
				continue
			}
			hb := c.(hBlock)
			hb.denseH(sl.buf)
			q := 0
			for jj := 0; jj < d; jj++ {
				for ii := 0; ii <= jj; ii++ {
					v[sl.dense[q]] = -sl.buf[jj*d+ii]
					q++
				}
				v[sl.diag[jj]] -= eps
			}
		}
	}
	err := ks.solver.factor(ks.k)
	if (err != nil || ks.solver.regularized() > 0 && ks.denseSchurCheap()) && ks.useDenseSchur() {
		// The sparse formulas compute M_ij = tr(F_i G F_j G) entry by entry
		// from G = B⁻¹; near a degenerate optimum (G with entries of very
		// different magnitudes) their rounding can make M indefinite, which
		// shows as regularized pivots of the x-block (measured: 121 of 125
		// pivots of a graph-partitioning SDP's x-block regularized, then a
		// NaN solve). The dense rule's
		// M = gt·gtᵀ is a Gram matrix, positive semidefinite by
		// construction: use it for the rest of the solve. Regularized
		// pivots alone switch only where the dense rule is cheap
		// (denseSchurCheap); elsewhere the refined solves are tried first
		// and a failed one switches (solve).
		return ks.update()
	}
	if err != nil {
		return fmt.Errorf("ipm: KKT factorization: %w", err)
	}
	return nil
}

// factorIdentity factors the matrix with H = I in every block (the
// initialization of Clarabel and CVXOPT).
func (ks *kktSystem) factorIdentity() error {
	ks.identity = true
	ks.backErr, ks.nsolves = 0, 0
	if err := ks.addSchur(); err != nil {
		return fmt.Errorf("ipm: Schur complement assembly: %w", err)
	}
	v := ks.k.Val
	for ci := range ks.slots {
		sl := &ks.slots[ci]
		for _, p := range sl.dense {
			v[p] = 0
		}
		for _, p := range sl.diag {
			v[p] = -1 - ks.eps
		}
		if sl.expand {
			d := sl.c.dim()
			for i := 0; i < d; i++ {
				v[sl.p1pos[i]] = 0
				v[sl.p2pos[i]] = 0
			}
			v[sl.p1pos[d]] = -1
			v[sl.p2pos[d]] = 1
		}
	}
	return ks.solver.factor(ks.k)
}

// mulK computes out = K₀·x with K₀ the unregularized (reduced) KKT matrix:
// the stored one minus ε·signs on the diagonal of the x and z columns.
// A column whose last stored entry is its diagonal (every column of the
// upper triangle with sorted rows) takes a branch-free loop over its
// off-diagonal entries; the operations and their order are those of the
// general loop, so the result is the same to the last bit.
func (ks *kktSystem) mulK(out, x []float64) {
	clear(out)
	ks.mulKCols(out, x, 0, ks.k.Cols)
}

// mulKCols adds to out the products of mulK's columns from ≤ j < to (each
// column's entries above and on the diagonal and their symmetric
// counterparts).
func (ks *kktSystem) mulKCols(out, x []float64, from, to int) {
	if ks.mulKFast(out, x, from, to) {
		return
	}
	k := ks.k
	nz := ks.n + ks.mr
	for j := from; j < to; j++ {
		xj := x[j]
		lo, hi := k.ColPtr[j], k.ColPtr[j+1]
		if hi > lo && k.RowIdx[hi-1] == j {
			rows, vals := k.RowIdx[lo:hi-1], k.Val[lo:hi-1]
			vals = vals[:len(rows)]
			var s float64
			if nr := len(rows); nr >= 8 && ks.contiguous(j) {
				// contiguous rows (the dense Schur complement columns):
				// the updates of out as one ldl.AddScaled (same rounding),
				// the dot product in order
				i0 := rows[0]
				xs := x[i0 : i0+nr]
				for p, a := range vals {
					s += a * xs[p]
				}
				ldl.AddScaled(out[i0:i0+nr], xj, vals)
			} else {
				for p, i := range rows {
					a := vals[p]
					out[i] += a * xj
					s += a * x[i]
				}
			}
			a := k.Val[hi-1]
			if j < nz {
				a -= ks.eps * float64(ks.signs[j])
			}
			out[j] += a * xj
			out[j] += s
			continue
		}
		var s float64
		for p := lo; p < hi; p++ {
			i := k.RowIdx[p]
			a := k.Val[p]
			if i == j {
				if j < nz {
					a -= ks.eps * float64(ks.signs[j])
				}
				out[j] += a * xj
				continue
			}
			out[i] += a * xj
			s += a * x[i]
		}
		out[j] += s
	}
}

// contiguous reports whether the entries of column j above its diagonal
// (the last entry) sit in consecutive rows, in order, as in the dense Schur
// complement columns of the x-block. The pattern of ks.k is fixed after
// newKKT, so the answers are computed once (ks.contig).
func (ks *kktSystem) contiguous(j int) bool {
	if ks.contig == nil {
		k := ks.k
		ks.contig = make([]bool, k.Cols)
		for c := 0; c < k.Cols; c++ {
			lo, hi := k.ColPtr[c], k.ColPtr[c+1]-1
			ok := hi > lo
			for p := lo; ok && p < hi; p++ {
				ok = k.RowIdx[p] == k.RowIdx[lo]+(p-lo)
			}
			ks.contig[c] = ok
		}
	}
	return ks.contig[j]
}
