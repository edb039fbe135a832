package ipm

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"sync"

	"github.com/privopt/privopt/internal/ldl"
	"github.com/privopt/privopt/sparse"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// kktSolver factors and solves the quasi-definite KKT matrix given by its
// upper triangle (fixed pattern, values updated between calls).
type kktSolver interface {
	factor(upper *sparse.CSC) error
	solve(dst, b []float64)
	// regularized is the number of pivots of the last factorization that
	// dynamic regularization replaced.
	regularized() int
}

// ------------------------------------------------------------ sparse LDLᵀ

type sparseLDL struct {
	signs     []int8
	reg       ldl.Regularization
	sym       *ldl.Symbolic
	f         *ldl.Factor
	interrupt func() bool // polled inside factorizations (cancellation, time limit)
}

func (s *sparseLDL) factor(upper *sparse.CSC) error {
	if s.sym == nil {
		sym, err := ldl.Analyze(upper, ldl.Options{})
		if err != nil {
			return err
		}
		s.sym = sym
		sym.SetInterrupt(s.interrupt)
	}
	if s.f == nil {
		f, err := s.sym.Factor(upper, s.signs, s.reg)
		if err != nil {
			return err
		}
		s.f = f
		return nil
	}
	return s.f.Refactor(upper)
}

func (s *sparseLDL) solve(dst, b []float64) { s.f.Solve(dst, b) }

func (s *sparseLDL) regularized() int {
	if s.f == nil {
		return 0
	}
	return s.f.DynamicRegCount()
}

// ------------------------------------------------------------- dense LDLᵀ

// denseLDL is an O(N³) LDLᵀ factorization without pivoting with the same
// dynamic regularization rule as the sparse one; a fallback for tiny systems
// and a cross-check in tests.
type denseLDL struct {
	n     int
	a     []float64 // row-major; after factor, strict lower part holds L
	d     []float64
	signs []int8
	reg   ldl.Regularization
	nreg  int // pivots replaced by dynamic regularization in the last factor
}

func (f *denseLDL) regularized() int { return f.nreg }

func (f *denseLDL) factor(upper *sparse.CSC) error {
	n := upper.Cols
	if f.a == nil {
		f.n = n
		f.a = make([]float64, n*n)
		f.d = make([]float64, n)
	}
	a := f.a
	clear(a)
	f.nreg = 0
	for j := 0; j < n; j++ {
		for p := upper.ColPtr[j]; p < upper.ColPtr[j+1]; p++ {
			i := upper.RowIdx[p]
			a[i*n+j] = upper.Val[p]
			a[j*n+i] = upper.Val[p]
		}
	}
	for j := 0; j < n; j++ {
		dj := a[j*n+j]
		if sg := float64(f.signs[j]); sg*dj < f.reg.Eps {
			dj = sg * f.reg.Delta
			f.nreg++
		}
		if math.IsNaN(dj) || math.IsInf(dj, 0) {
			return fmt.Errorf("ipm: dense LDLᵀ pivot %d is %v", j, dj)
		}
		f.d[j] = dj
		for i := j + 1; i < n; i++ {
			a[i*n+j] /= dj
		}
		for i := j + 1; i < n; i++ {
			lij := a[i*n+j] * dj
			if lij == 0 {
				continue
			}
			row := a[i*n : i*n+i+1]
			for k := j + 1; k <= i; k++ {
				row[k] -= lij * a[k*n+j]
			}
		}
	}
	return nil
}

func (f *denseLDL) solve(dst, b []float64) {
	n, a := f.n, f.a
	copy(dst, b)
	for i := 0; i < n; i++ {
		s := dst[i]
		row := a[i*n : i*n+i]
		for k, l := range row {
			s -= l * dst[k]
		}
		dst[i] = s
	}
	for i := 0; i < n; i++ {
		dst[i] /= f.d[i]
	}
	for i := n - 1; i >= 0; i-- {
		s := dst[i]
		for k := i + 1; k < n; k++ {
			s -= a[k*n+i] * dst[k]
		}
		dst[i] = s
	}
}

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
	blas64.Gemv(t, 1, g, blas64.Vector{N: len(x), Inc: 1, Data: x}, 0, blas64.Vector{N: len(y), Inc: 1, Data: y})
}

// mulSC sets eb.sx = sc·eb.xc: gonum's Dsymv as mat.VecDense.MulVec calls
// it, restated by symvUpper (the same bits, no allocation).
func (eb *schurBlock) mulSC() {
	r := eb.sc.RawSymmetric()
	symvUpper(len(eb.cols), r.Data, r.Stride, eb.xc, eb.sx)
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
	n, m     int
	dim      int   // order of the (reduced) matrix
	fdim     int   // length of full vectors: n + m + 2·(expanded cones)
	mr       int   // kept z rows
	zidx     []int // matrix index of z row i, −1 if eliminated
	k        *sparse.CSC
	signs    []int8
	xbase    []float64 // values of the x columns without Schur terms
	contig   []bool    // per column: rows above the diagonal consecutive (mulK; built on first use)
	slots    []coneSlot
	elims    []*schurBlock
	identity bool    // the scaling is the identity (initialization)
	threads  int     // goroutines for the PSD Schur complements
	eps      float64 // static regularization
	solver   kktSolver
	refine   int
	// solveErr is the largest relative residual ‖b − K₀x‖∞/(1 + ‖b‖∞) left
	// by the refined solves since the last factorization.
	solveErr float64
	// workspaces
	rhs, res, dx []float64
	br, xr       []float64
	fres, fdx    []float64
}

// eliminatePSD reports whether a PSD block of svec dimension d whose rows
// touch nc columns of A is eliminated into a Schur complement (schurBlock):
// unless Settings.DisablePSDElimination, whenever nc ≤ psdSchurMaxCols·d, at
// every block size. The Schur complement A_pᵀH⁻¹A_p is then formed from the
// factor T of H⁻¹ (psdCone.schurFactorTo), as CSDP and SDPA form theirs, and
// its nc×nc dense block costs at most psdSchurMaxCols times the nonzeros
// that the block's rows would bring into the KKT matrix.
//
// Small blocks used to stay in the KKT matrix (rule: d ≥ 21 and nc ≤ d/2).
// On SDPLIB's hinf problems (blocks of order 4–16, nc/d = 0.5–0.8), whose
// dual has no interior point, the quasi-definite LDLᵀ of the dense scaling
// blocks W² (eigenvalues from μ to 1/μ) left directions with 30–100% error
// in the dual equation, and the objective ended 4e-5 (hinf1) to 2e-4 (hinf3)
// relative off, outside the published digits; through the Schur complement
// every hinf instance ends within them (BENCHMARKS.md).
func eliminatePSD(d, nc int, set *Settings) bool {
	return !set.DisablePSDElimination && nc <= psdSchurMaxCols*d
}

// psdSchurMaxCols: see eliminatePSD.
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

func newKKT(p, a *sparse.CSC, cones []conic, set *Settings, stop func() bool) (*kktSystem, error) {
	n, m := a.Cols, a.Rows
	at := a.Transpose()
	ks := &kktSystem{n: n, m: m, refine: set.RefineSteps, zidx: make([]int, m), threads: set.Threads}
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
	mark := make([]int, max(n, m))
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
	k := &sparse.CSC{Rows: ks.dim, Cols: ks.dim, ColPtr: make([]int, ks.dim+1)}

	// x columns: P's upper triangle, the diagonal, and the Schur patterns
	pval := make([]float64, n)
	rowpos := make([]int, n)
	var rows []int
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
	ks.xbase = append([]float64(nil), k.Val...)

	// z columns of the kept rows
	for ci := range ks.slots {
		sl := &ks.slots[ci]
		if sl.elim != nil {
			continue
		}
		d := sl.c.dim()
		_, isZero := sl.c.(*zeroCone)
		_, isNN := sl.c.(*nonnegCone)
		diagOnly := isZero || isNN || sl.expand
		sl.diag = make([]int, d)
		if !diagOnly {
			sl.dense = make([]int, 0, d*(d+1)/2)
			sl.buf = make([]float64, d*d)
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
			*pos = make([]int, d+1)
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
		sym, err := ldl.Analyze(k, ldl.Options{Interrupt: stop})
		if err != nil {
			return nil, err
		}
		if lim := set.MaxFactorBytes; lim > 0 && 8*float64(sym.NnzL()) > float64(lim) {
			return nil, fmt.Errorf("%w: the LDLᵀ factor of the KKT matrix has %d nonzeros (%.3g GB), more than MaxFactorBytes = %d", ErrTooLarge, sym.NnzL(), 8*float64(sym.NnzL())/1e9, lim)
		}
		ks.solver = &sparseLDL{signs: ks.signs, reg: reg, sym: sym}
	}
	ks.rhs = make([]float64, ks.fdim)
	ks.res = make([]float64, ks.dim)
	ks.dx = make([]float64, ks.dim)
	ks.br = make([]float64, ks.dim)
	ks.xr = make([]float64, ks.dim)
	return ks, nil
}

// addSchur writes the x-block values: P + εI plus, for every eliminated
// block, A_pᵀH_p⁻¹A_p (H = I when ks.identity).
func (ks *kktSystem) addSchur() {
	if len(ks.elims) == 0 {
		return
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
				for c := k * nc / workers; c < (k+1)*nc/workers; c++ {
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
			for p := lo; p < hi; p += schurPanel {
				q := min(p+schurPanel, hi)
				gramUpper(sr, blas64.General{Rows: max(nc, 1), Cols: q - p, Stride: gr.Stride, Data: gr.Data[p:]})
			}
		})
		eb.sc.CopySym(eb.work(0).s)
		for k := 1; k < workers; k++ {
			eb.sc.AddSym(eb.sc, eb.work(k).s)
		}
		ks.addSC(eb)
	}
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

// update writes the current cone scalings into the matrix and refactors it.
func (ks *kktSystem) update() error {
	ks.identity = false
	ks.solveErr = 0
	ks.addSchur()
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
		// shows as regularized pivots of the x-block (gpp124-1 of SDPLIB:
		// 121 of 125 at iteration 25, then a NaN solve). The dense rule's
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
// until one actually fails (BENCHMARKS.md, "IPM termination rules").
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

// factorIdentity factors the matrix with H = I in every block (the
// initialization of Clarabel and CVXOPT).
func (ks *kktSystem) factorIdentity() error {
	ks.identity = true
	ks.addSchur()
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
	k := ks.k
	clear(out)
	nz := ks.n + ks.mr
	for j := 0; j < k.Cols; j++ {
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

// solve solves the full KKT system K·x = b (layout x, z, extra rows). With
// eliminated blocks assembled by the sparse rule, b is reduced onto the kept
// rows (b_x += A_pᵀH_p⁻¹b_p), the reduced system is solved and refined
// against its exact operator (mulReducedExact: the Schur complements applied
// as A_pᵀH_p⁻¹A_p, not as their assembled matrices, so refinement also
// removes the rounding of the assembly), and the eliminated z rows are
// recovered from x, z_p = H_p⁻¹(A_p x − b_p): each refinement step costs one
// product with H_p⁻¹ per block and a solve with the factorization. With the
// dense rule, refinement runs on the full system (mulFull).
func (ks *kktSystem) solve(x, b []float64) {
	if len(ks.elims) == 0 {
		ks.solveReduced(x, b, ks.refine)
		return
	}
	if !ks.sparseSchur() {
		// dense rule: refinement on the full system, whose z_p rows
		// (A_p x − H_p z_p, two dense products per block) also correct the
		// recovered z_p — the accuracy the tail of a near-degenerate solve
		// needs, once the sparse rule has been abandoned (qap10 of SDPLIB:
		// 64 instead of 36 iterations with the reduced refinement alone)
		ks.solveElim(x, b)
		if ks.refine > 0 {
			if ks.fres == nil {
				ks.fres, ks.fdx = make([]float64, ks.fdim), make([]float64, ks.fdim)
			}
			r := refineSolution(x, b, ks.fres, ks.fdx, ks.refine, ks.mulFull, ks.solveElim)
			ks.solveErr = math.Max(ks.solveErr, r/(1+normInf(b)))
		}
		return
	}
	br, xr := ks.br, ks.xr
	for _, eb := range ks.elims {
		eb.hok = false
	}
	ks.reduce(br, b)
	ks.solver.solve(xr, br)
	r := 0.0
	if ks.refine > 0 {
		r = refineSolution(xr, br, ks.res, ks.dx, ks.refine, ks.mulReducedExact, ks.solver.solve)
	} else if !finite(xr) {
		r = math.NaN()
	}
	if !(r <= solveAccuracy*(1+normInf(br))) && ks.useDenseSchur() {
		// A refined solve that failed (or is not finite) despite a
		// factorization without regularized pivots (update's test): the
		// same remedy, the dense rule for the rest of the solve.
		if ks.update() == nil {
			ks.solve(x, b)
			return
		}
	}
	ks.solveErr = math.Max(ks.solveErr, r/(1+normInf(br)))
	ks.recover(x, xr, b)
}

// solveAccuracy is the relative residual ‖b − K_red·x‖∞/(1 + ‖b‖∞) of a
// refined reduced solve above which the sparse Schur assembly is abandoned
// for the dense rule: a clearly failed solve. (Refined solves with a sound
// factorization reach about 1e-13 on SDPLIB, slowly converging ones 1e-8 —
// qap10 at iteration 8 —, which the next iterations survive, while the
// dense rule costs m²d/2 per iteration.)
const solveAccuracy = 1e-5

// setStaticReg replaces the static regularization ε by eps: in the stored
// x-block diagonal now, in the cone blocks at the next update.
func (ks *kktSystem) setStaticReg(eps float64) {
	d := eps - ks.eps
	k := ks.k
	for j := 0; j < ks.n; j++ {
		for q := k.ColPtr[j]; q < k.ColPtr[j+1]; q++ {
			if k.RowIdx[q] == j {
				ks.xbase[q] += d
			}
		}
	}
	ks.eps = eps
}

// finite reports whether every entry of v is finite.
func finite(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// mulFull computes out = K₀·x for the full (unreduced, unregularized) system.
func (ks *kktSystem) mulFull(out, x []float64) {
	n := ks.n
	xr := ks.xr
	copy(xr[:n], x[:n])
	for i, r := range ks.zidx {
		if r >= 0 {
			xr[r] = x[n+i]
		}
	}
	copy(xr[n+ks.mr:], x[n+ks.m:])
	ks.mulK(ks.res, xr)
	copy(out[:n], ks.res[:n])
	for i, r := range ks.zidx {
		if r >= 0 {
			out[n+i] = ks.res[r]
		}
	}
	copy(out[n+ks.m:], ks.res[n+ks.mr:])
	for ci := range ks.slots {
		eb := ks.slots[ci].elim
		if eb == nil {
			continue
		}
		off := ks.slots[ci].off
		d := eb.cone.d
		zp := x[n+off : n+off+d]
		for c, j := range eb.cols {
			eb.xc[c] = x[j]
		}
		// x rows: remove the Schur term, add A_pᵀ z_p
		nc := len(eb.cols)
		sx := eb.sx
		if nc > 0 {
			eb.mulSC()
		}
		eb.mulApT(eb.xt, zp)
		for a, ja := range eb.cols {
			out[ja] += eb.xt[a] - sx[a]
		}
		// z_p rows: A_p x − H_p z_p
		if ks.identity {
			copy(eb.w, zp)
		} else {
			eb.cone.mulH(eb.w, zp)
		}
		eb.mulAp(eb.v, eb.xc)
		for r := 0; r < d; r++ {
			out[n+off+r] = eb.v[r] - eb.w[r]
		}
	}
}

// solveElim is one elimination pass without refinement: reduce b, solve the
// reduced system, recover the eliminated z rows.
func (ks *kktSystem) solveElim(x, b []float64) {
	ks.reduce(ks.br, b)
	ks.solver.solve(ks.xr, ks.br)
	ks.recover(x, ks.xr, b)
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
	ks.mulK(out, xr)
	for _, eb := range ks.elims {
		nc := len(eb.cols)
		if nc == 0 {
			continue
		}
		for c, j := range eb.cols {
			eb.xc[c] = xr[j]
		}
		// − stored M·x_c
		eb.mulSC()
		eb.mulAp(eb.v, eb.xc)
		if ks.identity {
			copy(eb.w, eb.v)
		} else {
			eb.cone.mulHinv(eb.w, eb.v)
		}
		copy(eb.hxc, eb.xc)
		eb.hok = true
		eb.mulApT(eb.xt, eb.w)
		for c, j := range eb.cols {
			out[j] += eb.xt[c] - eb.sx[c]
		}
	}
}

// solveReduced solves K₀·x = b for the matrix as stored, with the regularized
// factorization and iterative refinement (at most ks.refine steps, stopping
// when the residual is at round-off level or stops decreasing).
func (ks *kktSystem) solveReduced(x, b []float64, refine int) {
	ks.solver.solve(x, b)
	if refine == 0 {
		return
	}
	r := refineSolution(x, b, ks.res, ks.dx, refine, ks.mulK, ks.solver.solve)
	ks.solveErr = math.Max(ks.solveErr, r/(1+normInf(b)))
}

// refineSolution improves an approximate solution x of K·x = b by at most
// steps rounds of iterative refinement: res = b − K·x with mul (the exact
// operator), dx from solve (the regularized factorization), x += dx. It stops
// when the residual reaches round-off level (1e-12 + 1e-13·‖b‖∞) or stops
// halving, and undoes a correction that made the residual larger. res and dx
// are workspaces of len(x). It returns ‖b − K·x‖∞ of the returned x (when the
// steps run out, the residual before the last, unchecked correction), NaN
// when the solve produced non-finite values.
func refineSolution(x, b, res, dx []float64, steps int, mul, solve func(dst, src []float64)) float64 {
	tol := 1e-12 + 1e-13*normInf(b)
	prev := math.Inf(1)
	for it := 0; it < steps; it++ {
		mul(res, x)
		for i := range res {
			res[i] = b[i] - res[i]
		}
		r := normInf(res)
		if r > prev {
			// the last correction made things worse: undo it
			for i := range x {
				x[i] -= dx[i]
			}
			return prev
		}
		if r <= tol || !(r < prev/2) {
			return r
		}
		prev = r
		solve(dx, res)
		for i := range x {
			x[i] += dx[i]
		}
	}
	return prev
}
