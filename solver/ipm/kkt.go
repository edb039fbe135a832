package ipm

import (
	"fmt"
	"math"
	"runtime"
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
}

func (f *denseLDL) factor(upper *sparse.CSC) error {
	n := upper.Cols
	if f.a == nil {
		f.n = n
		f.a = make([]float64, n*n)
		f.d = make([]float64, n)
	}
	a := f.a
	clear(a)
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
// the block's rows touch). This is the reduction CVXOPT uses for all cones; it
// pays off for a large PSD block constraining few variables, where the dense
// d×d scaling block would dominate the factorization.
type schurBlock struct {
	cone *psdCone
	cols []int         // columns of A touched by the block's rows, increasing
	ap   *mat.Dense    // d × len(cols): the block's rows of A on cols
	gt   *mat.Dense    // rows svec(T mat(a_j) Tᵀ) (psdCone.mulSchurFactor), so that A_pᵀH⁻¹A_p = gt·gtᵀ
	sc   *mat.SymDense // A_pᵀH⁻¹A_p
	pos  []int         // positions of sc's upper triangle (a ≤ b at a + b(b+1)/2)
	v, w []float64     // length-d workspaces
	fb   []float64     // length d: F(b_p) of the current solveElim pass
	xc   []float64     // x restricted to cols
	xt   []float64     // length len(cols) workspace
	sx   []float64     // length len(cols) workspace
	ws   []*schurWork  // per-worker workspaces of addSchur
}

// mulAp sets out = A_p·x (x indexed like cols).
func (eb *schurBlock) mulAp(out, x []float64) {
	if len(x) == 0 {
		clear(out)
		return
	}
	mat.NewVecDense(len(out), out).MulVec(eb.ap, mat.NewVecDense(len(x), x))
}

// mulGt sets out = gt·v (v of length d, out indexed like cols).
func (eb *schurBlock) mulGt(out, v []float64) {
	nc := len(out)
	if nc == 0 {
		return
	}
	mat.NewVecDense(nc, out).MulVec(eb.gt.Slice(0, nc, 0, eb.cone.d), mat.NewVecDense(len(v), v))
}

// mulGtT sets out = gtᵀ·x (x indexed like cols, out of length d).
func (eb *schurBlock) mulGtT(out, x []float64) {
	nc := len(x)
	if nc == 0 {
		clear(out)
		return
	}
	mat.NewVecDense(len(out), out).MulVec(eb.gt.Slice(0, nc, 0, eb.cone.d).T(), mat.NewVecDense(nc, x))
}

// mulApT sets out = A_pᵀ·v.
func (eb *schurBlock) mulApT(out, v []float64) {
	if len(out) == 0 {
		return
	}
	mat.NewVecDense(len(out), out).MulVec(eb.ap.T(), mat.NewVecDense(len(v), v))
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
// Large PSD blocks that touch few columns are eliminated (see schurBlock).
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
	slots    []coneSlot
	elims    []*schurBlock
	identity bool    // the scaling is the identity (initialization)
	threads  int     // goroutines for the PSD Schur complements
	eps      float64 // static regularization
	solver   kktSolver
	refine   int
	// workspaces
	rhs, res, dx []float64
	br, xr       []float64
	fres, fdx    []float64
}

// psdSchurMinDim is the smallest PSD block (svec dimension) that is
// eliminated, when its rows touch at most half as many columns as it has rows.
const psdSchurMinDim = 21

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
		if pc, ok := c.(*psdCone); ok && !set.DisablePSDElimination && d >= psdSchurMinDim {
			var cols []int
			for r := off; r < off+d; r++ {
				for q := at.ColPtr[r]; q < at.ColPtr[r+1]; q++ {
					if j := at.RowIdx[q]; mark[j] != ci {
						mark[j] = ci
						cols = append(cols, j)
					}
				}
			}
			if len(cols) <= d/2 {
				sort.Ints(cols)
				nc := len(cols)
				eb := &schurBlock{cone: pc, cols: cols, ap: mat.NewDense(d, max(nc, 1), nil),
					gt: mat.NewDense(max(nc, 1), d, nil), sc: mat.NewSymDense(max(nc, 1), nil),
					pos: make([]int, nc*(nc+1)/2), v: make([]float64, d), w: make([]float64, d), fb: make([]float64, d), xc: make([]float64, nc), xt: make([]float64, nc), sx: make([]float64, nc)}
				colIdx := make(map[int]int, nc)
				for k, j := range cols {
					colIdx[j] = k
				}
				for r := off; r < off+d; r++ {
					for q := at.ColPtr[r]; q < at.ColPtr[r+1]; q++ {
						eb.ap.Set(r-off, colIdx[at.RowIdx[q]], at.Val[q])
					}
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
		eb.work(workers - 1) // allocate the workspaces before going parallel
		gr := eb.gt.RawMatrix()
		if ks.identity {
			eb.gt.Copy(eb.ap.T())
		} else {
			// rows svec(T mat(a_j) Tᵀ), split over the workers
			parallel(workers, func(k int) {
				ws := eb.work(k)
				for c := k * nc / workers; c < (k+1)*nc/workers; c++ {
					mat.Col(ws.v, c, eb.ap)
					eb.cone.schurFactorTo(gr.Data[c*gr.Stride:c*gr.Stride+d], ws.v, ws.m1, ws.m2, ws.m3)
				}
			})
		}
		// S = gt·gtᵀ as a sum of rank-k updates over column panels of gt
		// (panels of schurPanel columns keep the rows being dotted in cache),
		// the panels split over the workers
		parallel(workers, func(k int) {
			ws := eb.work(k)
			sr := ws.s.RawSymmetric()
			clear(sr.Data)
			lo, hi := k*d/workers, (k+1)*d/workers
			for p := lo; p < hi; p += schurPanel {
				q := min(p+schurPanel, hi)
				blas64.Syrk(blas.NoTrans, 1, blas64.General{Rows: max(nc, 1), Cols: q - p, Stride: gr.Stride, Data: gr.Data[p:]}, 1, sr)
			}
		})
		eb.sc.CopySym(eb.work(0).s)
		for k := 1; k < workers; k++ {
			eb.sc.AddSym(eb.sc, eb.work(k).s)
		}
		for b := 0; b < nc; b++ {
			for a := 0; a <= b; a++ {
				v[eb.pos[a+b*(b+1)/2]] += eb.sc.At(a, b)
			}
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
	if err != nil {
		return fmt.Errorf("ipm: KKT factorization: %w", err)
	}
	return nil
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
func (ks *kktSystem) mulK(out, x []float64) {
	k := ks.k
	clear(out)
	nz := ks.n + ks.mr
	for j := 0; j < k.Cols; j++ {
		xj := x[j]
		var s float64
		for p := k.ColPtr[j]; p < k.ColPtr[j+1]; p++ {
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

// solve solves the full KKT system K·x = b (layout x, z, extra rows). With
// eliminated blocks, each pass solves the reduced system and recovers their z
// rows, and iterative refinement runs on the full unregularized system.
func (ks *kktSystem) solve(x, b []float64) {
	if len(ks.elims) == 0 {
		ks.solveReduced(x, b, ks.refine)
		return
	}
	ks.solveElim(x, b)
	if ks.refine == 0 {
		return
	}
	if ks.fres == nil {
		ks.fres, ks.fdx = make([]float64, ks.fdim), make([]float64, ks.fdim)
	}
	refineSolution(x, b, ks.fres, ks.fdx, ks.refine, ks.mulFull, ks.solveElim)
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
			mat.NewVecDense(nc, sx).MulVec(eb.sc, mat.NewVecDense(nc, eb.xc))
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

// solveElim is one elimination pass: reduce b, solve the reduced system,
// recover the eliminated z rows.
func (ks *kktSystem) solveElim(x, b []float64) {
	n := ks.n
	br, xr := ks.br, ks.xr
	copy(br[:n], b[:n])
	for i, r := range ks.zidx {
		if r >= 0 {
			br[r] = b[n+i]
		}
	}
	copy(br[n+ks.mr:], b[n+ks.m:])
	// br_x += A_pᵀ H_p⁻¹ b_p
	for ci := range ks.slots {
		eb := ks.slots[ci].elim
		if eb == nil {
			continue
		}
		off := ks.slots[ci].off
		if ks.identity {
			eb.mulApT(eb.xc, b[n+off:n+off+eb.cone.d])
		} else {
			// A_pᵀH_p⁻¹b_p = gt·F(b_p) with F = psdCone.schurFactorTo (H⁻¹ = FᵀF)
			eb.cone.schurFactorTo(eb.fb, b[n+off:n+off+eb.cone.d], eb.cone.m1, eb.cone.m2, nil)
			eb.mulGt(eb.xc, eb.fb)
		}
		for c, j := range eb.cols {
			br[j] += eb.xc[c]
		}
	}
	ks.solveReduced(xr, br, 0)
	copy(x[:n], xr[:n])
	for i, r := range ks.zidx {
		if r >= 0 {
			x[n+i] = xr[r]
		}
	}
	copy(x[n+ks.m:], xr[n+ks.mr:])
	// z_p = H_p⁻¹(A_p x − b_p)
	for ci := range ks.slots {
		eb := ks.slots[ci].elim
		if eb == nil {
			continue
		}
		off := ks.slots[ci].off
		d := eb.cone.d
		for c, j := range eb.cols {
			eb.xc[c] = xr[j]
		}
		if ks.identity {
			eb.mulAp(eb.v, eb.xc)
			for r := 0; r < d; r++ {
				eb.v[r] -= b[n+off+r]
			}
			copy(x[n+off:n+off+d], eb.v)
			continue
		}
		// H_p⁻¹(A_p x − b_p) = Fᵀ(gtᵀx − F(b_p)), F(b_p) from the reduction above
		eb.mulGtT(eb.v, eb.xc)
		for r := 0; r < d; r++ {
			eb.v[r] -= eb.fb[r]
		}
		eb.cone.schurFactorTransTo(x[n+off:n+off+d], eb.v, eb.cone.m1, eb.cone.m2)
	}
}

func (ks *kktSystem) hinv(eb *schurBlock, out, v []float64) {
	if ks.identity {
		copy(out, v)
		return
	}
	eb.cone.mulHinv(out, v)
}

// solveReduced solves K₀·x = b for the matrix as stored, with the regularized
// factorization and iterative refinement (at most ks.refine steps, stopping
// when the residual is at round-off level or stops decreasing).
func (ks *kktSystem) solveReduced(x, b []float64, refine int) {
	ks.solver.solve(x, b)
	if refine == 0 {
		return
	}
	refineSolution(x, b, ks.res, ks.dx, refine, ks.mulK, ks.solver.solve)
}

// refineSolution improves an approximate solution x of K·x = b by at most
// steps rounds of iterative refinement: res = b − K·x with mul (the exact
// operator), dx from solve (the regularized factorization), x += dx. It stops
// when the residual reaches round-off level (1e-12 + 1e-13·‖b‖∞) or stops
// halving, and undoes a correction that made the residual larger. res and dx
// are workspaces of len(x).
func refineSolution(x, b, res, dx []float64, steps int, mul, solve func(dst, src []float64)) {
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
			break
		}
		if r <= tol || !(r < prev/2) {
			break
		}
		prev = r
		solve(dx, res)
		for i := range x {
			x[i] += dx[i]
		}
	}
}
