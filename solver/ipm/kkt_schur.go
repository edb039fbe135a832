package ipm

import (
	"slices"
	"sync"
	"sync/atomic"

	"github.com/privopt/privopt/internal/ldl"
	"github.com/privopt/privopt/sparse"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// schurBlock is a PSD cone block eliminated from the KKT matrix: its rows
// A_p x − H_p z_p = r_p give z_p = H_p⁻¹(A_p x − r_p), and the x-block
// receives the Schur complement A_pᵀH_p⁻¹A_p (dense on the columns cols that
// the block's rows touch). This is the reduction CVXOPT uses for all cones
// and CSDP and SDPA for their PSD blocks; it avoids factoring the dense d×d
// scaling block and is more accurate on small ill-conditioned blocks (see
// eliminatePSD).
//
// The Schur complement is assembled by one of two rules, whichever the cost
// estimate of newKKT prefers: the sparse formulas of Fujisawa, Kojima &
// Nakata (fknPlan), or the dense factorization A_pᵀH⁻¹A_p = gt·gtᵀ with the
// rows of gt computed by psdCone.schurFactorTo (cheaper only when most data
// matrices are dense).
type schurBlock struct {
	cone *psdCone
	cols []int         // columns of A touched by the block's rows, increasing
	ap   *sparse.CSC   // d × len(cols): the block's rows of A on cols
	plan *fknPlan      // non-nil: sparse assembly
	gt   *mat.Dense    // dense rule only: rows svec(T mat(a_j) Tᵀ) (psdCone.mulSchurFactor), so that A_pᵀH⁻¹A_p = gt·gtᵀ
	sc   *mat.SymDense // A_pᵀH⁻¹A_p
	pos  []int         // positions of sc's upper triangle (a ≤ b at a + b(b+1)/2)
	v, w []float64     // length-d workspaces
	fb   []float64     // length d: F(b_p) of the current solveElim pass
	xc   []float64     // x restricted to cols
	hxc  []float64     // the x_c of which w holds H⁻¹A_p x_c (mulReducedExact), for recover
	hok  bool          // hxc and w are valid
	xt   []float64     // length len(cols) workspace
	sx   []float64     // length len(cols) workspace
	ws   []*schurWork  // per-worker workspaces of addSchur
}

// mulAp sets out = A_p·x (x indexed like cols).
func (eb *schurBlock) mulAp(out, x []float64) { eb.ap.MulVecTo(out, 1, x, 0) }

// mulGt sets out = gt·v (v of length d, out indexed like cols).
func (eb *schurBlock) mulGt(out, v []float64) {
	nc := len(out)
	if nc == 0 {
		return
	}
	eb.gemv(blas.NoTrans, out, v)
}

// mulGtT sets out = gtᵀ·x (x indexed like cols, out of length d).
func (eb *schurBlock) mulGtT(out, x []float64) {
	nc := len(x)
	if nc == 0 {
		clear(out)
		return
	}
	eb.gemv(blas.Trans, out, x)
}

// gemv sets y = G·x (blas.NoTrans) or Gᵀ·x for G the first len(cols) rows of
// gt: gonum's Dgemv as mat.VecDense.MulVec calls it on the slice, without
// its allocations and overlap checks (the same bits).
func (eb *schurBlock) gemv(t blas.Transpose, y, x []float64) {
	g := eb.gt.RawMatrix()
	g.Rows, g.Cols = len(eb.cols), eb.cone.d
	gblas.Dgemv(t, g.Rows, g.Cols, 1, g.Data, g.Stride, x, 1, 0, y, 1)
}

// mulSC sets eb.sx = sc·eb.xc: gonum's Dsymv as mat.VecDense.MulVec calls
// it, restated by symvUpper (the same bits, no allocation).
func (eb *schurBlock) mulSC() {
	r := eb.sc.RawSymmetric()
	symvUpper(len(eb.cols), r.Data, r.Stride, eb.xc, eb.sx)
}

// exactProduct gathers x_c = xr over the block's columns into eb.xc and
// sets eb.xt = A_pᵀ(H_p⁻¹(A_p x_c)) (H_p = I when identity), the block's
// Schur complement applied exactly; it records x_c as the argument of the
// last H_p⁻¹ product (eb.hxc, eb.hok).
func (eb *schurBlock) exactProduct(xr []float64, identity bool) {
	for c, j := range eb.cols {
		eb.xc[c] = xr[j]
	}
	eb.mulAp(eb.v, eb.xc)
	if identity {
		copy(eb.w, eb.v)
	} else {
		eb.cone.mulHinv(eb.w, eb.v)
	}
	copy(eb.hxc, eb.xc)
	eb.hok = true
	eb.mulApT(eb.xt, eb.w)
}

// mulApT sets out = A_pᵀ·v.
func (eb *schurBlock) mulApT(out, v []float64) { eb.ap.MulTransVecTo(out, 1, v, 0) }

// denseSchurCost estimates the multiply-adds of one dense-rule assembly of a
// block of order n with nc columns: nc products T·mat(a)·Tᵀ (n³/2 each) and
// the rank-d update gt·gtᵀ (nc²·d/2, counted at half a multiply-add per
// flop, being a matrix product).
func denseSchurCost(n, nc int) float64 {
	f, c := float64(n), float64(nc)
	d := f * (f + 1) / 2
	return c*f*f*f/2 + 0.25*c*c*d
}

// eliminatePSD reports whether a PSD block of svec dimension d whose rows
// touch nc columns of A is eliminated into a Schur complement (schurBlock):
// unless Settings.DisablePSDElimination, whenever nc ≤ psdSchurMaxCols·d, at
// every block size. The Schur complement A_pᵀH⁻¹A_p is then formed from the
// factor T of H⁻¹ (psdCone.schurFactorTo), as CSDP and SDPA form theirs, and
// its nc×nc dense block costs at most psdSchurMaxCols times the nonzeros
// that the block's rows would bring into the KKT matrix.
//
// The bound is a cost bound, not a tuned ratio: the dense nc×nc block has
// nc²/2 ≤ 2d² entries against the block's d×d scaling entries that the KKT
// matrix would hold otherwise (psdSchurMaxCols = 2). Small blocks are
// eliminated too, because the alternative fails on them: the quasi-definite
// LDLᵀ of a dense scaling block W² whose eigenvalues spread from μ to 1/μ
// (a dual without interior point) leaves directions with 30–100% error in
// the dual equation (measured on blocks of order 4–16 with nc/d = 0.5–0.8;
// the instances are in BENCHMARKS.md, "Solver trust, round 2: IPM tuning history").
func eliminatePSD(d, nc int, set *Settings) bool {
	return !set.DisablePSDElimination && nc <= psdSchurMaxCols*d
}

// psdSchurMaxCols: see eliminatePSD (a bound on the Schur block's entries
// relative to the scaling block's).
const psdSchurMaxCols = 2

// blockCols appends to dst the columns of A that rows off..off+d−1 touch,
// each once, read from at = Aᵀ; mark (one entry per column) records the
// block tag of the last block that listed a column and must not hold tag
// on entry.
func blockCols(dst []int, at *sparse.CSC, off, d int, mark []int, tag int) []int {
	for r := off; r < off+d; r++ {
		for q := at.ColPtr[r]; q < at.ColPtr[r+1]; q++ {
			if j := at.RowIdx[q]; mark[j] != tag {
				mark[j] = tag
				dst = append(dst, j)
			}
		}
	}
	return dst
}

// addSchur writes the x-block values: P + εI plus, for every eliminated
// block, A_pᵀH_p⁻¹A_p (H = I when ks.identity). It returns
// ldl.ErrInterrupted, with the x-block values incomplete, when ks.interrupt
// fires during the assembly.
func (ks *kktSystem) addSchur() error {
	if len(ks.elims) == 0 {
		return nil
	}
	// stopped polls ks.interrupt; once it has fired, every worker leaves its
	// loop at the next row or panel.
	var abort atomic.Bool
	stopped := func() bool {
		if abort.Load() {
			return true
		}
		if ks.interrupt != nil && ks.interrupt() {
			abort.Store(true)
			return true
		}
		return false
	}
	v := ks.k.Val
	copy(v[:len(ks.xbase)], ks.xbase)
	for _, eb := range ks.elims {
		nc := len(eb.cols)
		d := eb.cone.d
		workers := min(ks.threads, max(1, nc/8))
		if eb.plan != nil {
			if ks.identity {
				eb.plan.setG(nil)
			} else {
				eb.plan.setG(eb.cone.tq)
			}
			eb.plan.assemble(eb.sc, workers)
			if stopped() {
				return ldl.ErrInterrupted
			}
			ks.addSC(eb)
			continue
		}
		eb.work(workers - 1) // allocate the workspaces before going parallel
		gr := eb.gt.RawMatrix()
		ap := eb.ap
		if ks.identity {
			clear(gr.Data)
			for c := 0; c < nc; c++ {
				for q := ap.ColPtr[c]; q < ap.ColPtr[c+1]; q++ {
					gr.Data[c*gr.Stride+ap.RowIdx[q]] = ap.Val[q]
				}
			}
		} else {
			// rows svec(T mat(a_j) Tᵀ), split over the workers
			parallel(workers, func(k int) {
				ws := eb.work(k)
				for c := k * nc / workers; c < (k+1)*nc/workers && !stopped(); c++ {
					clear(ws.v)
					for q := ap.ColPtr[c]; q < ap.ColPtr[c+1]; q++ {
						ws.v[ap.RowIdx[q]] = ap.Val[q]
					}
					eb.cone.schurFactorTo(gr.Data[c*gr.Stride:c*gr.Stride+d], ws.v, ws.m1, ws.m2, ws.m3)
				}
			})
		}
		// S = gt·gtᵀ as a sum of rank-k updates (gramUpper) over column
		// panels of gt (panels of schurPanel columns keep the rows being
		// dotted in cache),
		// the panels split over the workers
		parallel(workers, func(k int) {
			ws := eb.work(k)
			sr := ws.s.RawSymmetric()
			clear(sr.Data)
			lo, hi := k*d/workers, (k+1)*d/workers
			for p := lo; p < hi && !stopped(); p += schurPanel {
				q := min(p+schurPanel, hi)
				gramUpper(sr, blas64.General{Rows: max(nc, 1), Cols: q - p, Stride: gr.Stride, Data: gr.Data[p:]})
			}
		})
		if stopped() {
			return ldl.ErrInterrupted
		}
		eb.sc.CopySym(eb.work(0).s)
		for k := 1; k < workers; k++ {
			eb.sc.AddSym(eb.sc, eb.work(k).s)
		}
		ks.addSC(eb)
	}
	return nil
}

// addSC adds the block's Schur complement to the x-block values.
func (ks *kktSystem) addSC(eb *schurBlock) {
	v := ks.k.Val
	raw := eb.sc.RawSymmetric()
	for b := range eb.cols {
		for a := 0; a <= b; a++ {
			v[eb.pos[a+b*(b+1)/2]] += raw.Data[a*raw.Stride+b]
		}
	}
}

// parallel runs f(0), …, f(workers−1) concurrently and waits for them.
func parallel(workers int, f func(k int)) {
	if workers <= 1 {
		f(0)
		return
	}
	var wg sync.WaitGroup
	for k := 0; k < workers; k++ {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			f(k)
		}(k)
	}
	wg.Wait()
}

// schurPanel is the number of svec coordinates per rank-k update in addSchur.
const schurPanel = 256

// schurWork is one worker's workspace for addSchur.
type schurWork struct {
	v, w       []float64
	m1, m2, m3 *mat.Dense
	s          *mat.SymDense
}

func (eb *schurBlock) work(k int) *schurWork {
	for len(eb.ws) <= k {
		n, d, nc := eb.cone.n, eb.cone.d, max(len(eb.cols), 1)
		eb.ws = append(eb.ws, &schurWork{v: make([]float64, d), w: make([]float64, d),
			m1: mat.NewDense(n, n, nil), m2: mat.NewDense(n, n, nil), m3: mat.NewDense(n, n, nil),
			s: mat.NewSymDense(nc, nil)})
	}
	return eb.ws[k]
}

// useDenseSchur switches every eliminated block assembled by the sparse
// formulas to the dense rule and reports whether there was one.
// denseSchurCheap reports whether the dense rule's assembly of the blocks
// now assembled by the sparse rule costs at most densePrecaution times
// theirs (denseSchurCost against fknPlan.cost), so that switching on
// regularized pivots, before any refined solve has failed, is a cheap
// precaution.
func (ks *kktSystem) denseSchurCheap() bool {
	var dense, sparse float64
	for _, eb := range ks.elims {
		if eb.plan != nil {
			dense += denseSchurCost(eb.cone.n, len(eb.cols))
			sparse += eb.plan.cost
		}
	}
	return dense <= densePrecaution*sparse
}

// densePrecaution bounds the cost ratio dense/sparse assembly up to which
// regularized pivots of the sparse rule's Schur complement switch to the
// dense rule at once (update): where the dense assembly costs at most this
// multiple of the sparse one, switching early keeps the directions accurate
// for little time; above it the refined solves of the sparse rule are kept
// until one actually fails. Measured (BENCHMARKS.md, "Solver trust, round 2: IPM tuning history"): ill-conditioned
// blocks with a dense/sparse cost ratio of 5.4–9.0 needed the early switch
// (a numerical error without it), blocks with ratios 31–198 reached the same
// grades without it in half the CPU time; 10 lies between the two groups.
const densePrecaution = 10

func (ks *kktSystem) useDenseSchur() bool {
	switched := false
	for _, eb := range ks.elims {
		if eb.plan == nil {
			continue
		}
		eb.plan = nil
		eb.gt = mat.NewDense(max(len(eb.cols), 1), eb.cone.d, nil)
		switched = true
	}
	return switched
}

// sparseSchur reports whether every eliminated block is assembled by the
// sparse rule.
func (ks *kktSystem) sparseSchur() bool {
	for _, eb := range ks.elims {
		if eb.plan == nil {
			return false
		}
	}
	return true
}

// reduce sets br = the reduced right-hand side of b: the x part plus
// A_pᵀH_p⁻¹b_p for every eliminated block, the kept z rows and the extra
// rows. It leaves F(b_p) (dense rule) or H_p⁻¹b_p (sparse rule) in the
// block's fb for recover.
func (ks *kktSystem) reduce(br, b []float64) {
	n := ks.n
	copy(br[:n], b[:n])
	for i, r := range ks.zidx {
		if r >= 0 {
			br[r] = b[n+i]
		}
	}
	copy(br[n+ks.mr:], b[n+ks.m:])
	for ci := range ks.slots {
		eb := ks.slots[ci].elim
		if eb == nil {
			continue
		}
		off := ks.slots[ci].off
		bp := b[n+off : n+off+eb.cone.d]
		switch {
		case ks.identity:
			eb.mulApT(eb.xc, bp)
		case eb.plan != nil:
			eb.cone.mulHinv(eb.fb, bp)
			eb.mulApT(eb.xc, eb.fb)
		default:
			// A_pᵀH_p⁻¹b_p = gt·F(b_p) with F = psdCone.schurFactorTo (H⁻¹ = FᵀF)
			eb.cone.schurFactorTo(eb.fb, bp, eb.cone.m1, eb.cone.m2, nil)
			eb.mulGt(eb.xc, eb.fb)
		}
		for c, j := range eb.cols {
			br[j] += eb.xc[c]
		}
	}
}

// recover writes the full solution x from the reduced one xr: x and the kept
// z rows copied, the eliminated z rows z_p = H_p⁻¹(A_p x − b_p), using the
// fb left by reduce.
func (ks *kktSystem) recover(x, xr, b []float64) {
	n := ks.n
	copy(x[:n], xr[:n])
	for i, r := range ks.zidx {
		if r >= 0 {
			x[n+i] = xr[r]
		}
	}
	copy(x[n+ks.m:], xr[n+ks.mr:])
	for ci := range ks.slots {
		eb := ks.slots[ci].elim
		if eb == nil {
			continue
		}
		off := ks.slots[ci].off
		d := eb.cone.d
		zp := x[n+off : n+off+d]
		for c, j := range eb.cols {
			eb.xc[c] = xr[j]
		}
		switch {
		case ks.identity:
			eb.mulAp(zp, eb.xc)
			for r := range zp {
				zp[r] -= b[n+off+r]
			}
		case eb.plan != nil:
			// H_p⁻¹(A_p x − b_p) = H_p⁻¹A_p x − fb, with H_p⁻¹A_p x from
			// the last refinement residual when it was taken at this x
			if eb.hok && slices.Equal(eb.hxc, eb.xc) {
				copy(zp, eb.w)
			} else {
				eb.mulAp(eb.v, eb.xc)
				eb.cone.mulHinv(zp, eb.v)
			}
			for r := range zp {
				zp[r] -= eb.fb[r]
			}
		default:
			// H_p⁻¹(A_p x − b_p) = Fᵀ(gtᵀx − F(b_p))
			eb.mulGtT(eb.v, eb.xc)
			for r := 0; r < d; r++ {
				eb.v[r] -= eb.fb[r]
			}
			eb.cone.schurFactorTransTo(zp, eb.v, eb.cone.m1, eb.cone.m2)
		}
	}
}

// mulReducedExact computes out = K_red·xr for the reduced unregularized
// system with every Schur complement applied exactly: the stored matrix
// (mulK) with, per eliminated block, its assembled A_pᵀH_p⁻¹A_p replaced by
// A_pᵀ(H_p⁻¹(A_p x)) (H_p⁻¹ by the triangular factor T, TᵀT = H_p⁻¹'s matrix
// B⁻¹).
func (ks *kktSystem) mulReducedExact(out, xr []float64) {
	if sdpxExactBase {
		ks.sdpxMulReducedExact(out, xr)
		return
	}
	ks.mulK(out, xr)
	for _, eb := range ks.elims {
		nc := len(eb.cols)
		if nc == 0 {
			continue
		}
		eb.exactProduct(xr, ks.identity)
		// − stored M·x_c
		eb.mulSC()
		for c, j := range eb.cols {
			out[j] += eb.xt[c] - eb.sx[c]
		}
	}
}
