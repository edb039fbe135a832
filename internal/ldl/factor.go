package ldl

import (
	"fmt"
	"github.com/privopt/privopt/internal/arena"
	"math"
	"sort"

	"github.com/privopt/privopt/sparse"
)

// Factor is a numeric factorization P K Pᵀ = L D Lᵀ with L unit lower
// triangular and D diagonal, produced by Symbolic.Factor. It owns all the
// workspace its methods need, so Refactor, Solve and SolveRefine do not
// allocate; for the same reason a Factor must not be used from several
// goroutines at once (separate Factors of one Symbolic may).
type Factor struct {
	sym *Symbolic
	// fslab, islab: the allocations the arrays are cut from (Release)
	fslab []float64
	islab []int

	cx []float64 // values of the upper triangle of P K Pᵀ, in (sym.cp, sym.ci) order

	li   []int     // row indices of L, by columns (lengths given by sym.lp)
	lx   []float64 // values of L
	d    []float64 // D
	dinv []float64 // 1/D (simplicial method): the solves and the row updates multiply
	lnz  []int     // entries of each column of L filled so far (numeric work)

	y    []float64 // dense accumulator of the current row
	pat  []int     // row pattern stack
	flag []int     // visit marks
	// rowPat[rowPtr[k]:rowPtr[k+1]] is the pattern of row k of L in the
	// order the simplicial method visits it, recorded by its first complete
	// run: the pattern depends on the analyzed structure only, so later
	// runs skip the elimination-tree traversal and do the same arithmetic
	// in the same order. nil until recorded.
	rowPat, rowPtr []int
	// lpos[t] is the position in (li, lx) of the entry L(k,i) that
	// rowPat[t] = i of row k fills: lp[i] plus the entries of column i
	// filled by the rows before k. Recorded with rowPat; with it the replay
	// needs no fill counts (numericReplay).
	lpos []int

	signs []int8    // expected pivot signs in elimination order; nil: none
	sg    []float64 // signs as float64 (the replay's pivot rule); nil without signs
	reg   Regularization

	dynReg         int
	pos, neg, zero int

	// Supernodal method.
	sx                  []float64 // supernode value blocks
	shead, slink, skptr []int     // descendant lists: head per supernode, link, row pointer
	relpos              []int     // row → position in the current supernode
	ubuf                []float64 // dense update buffer
	wpack               []float64 // blockUpdate: multipliers d_t·L(j,t), four columns per t

	work         []float64 // Solve workspace
	r, dx, bcopy []float64 // SolveRefine workspace
	lastResidual float64
	last         *sparse.CSC // matrix of the last (re)factorization

	// The pattern of the last matrix scatter checked: its ColPtr and
	// RowIdx slices (first element and length) and where each of its
	// entries goes in cx (pmap). A later matrix with the very same slices
	// is scattered through pmap without the merge.
	patCP, patRI *int
	patNC, patNR int
	pmap         []int
}

// Factor computes P K Pᵀ = L D Lᵀ for a matrix K whose upper triangle has the
// analyzed pattern or a subset of it (absent entries are zeros; an entry outside
// the analyzed pattern is an error wrapping ErrPatternMismatch). Values must be
// finite.
//
// The numeric factorization is one of two methods (Options.Method):
// Simplicial is up-looking — row k of L solves the sparse triangular system
// L(0:k,0:k) D(0:k) L(k,0:k)ᵀ = C(0:k,k), whose pattern is the row subtree of
// k in the elimination tree, and
//
//	D(k) = C(k,k) − Σ_{i<k} L(k,i)² D(i)
//
// (Davis, "Algorithm 849: A concise sparse Cholesky factorization package",
// ACM TOMS 31(4), 2005); Supernodal is left-looking over supernodes with dense
// blocks (see Method). No pivoting is done: the permutation is the one from
// Analyze, which is safe for quasi-definite matrices (Vanderbei 1995), whose
// every symmetric permutation has an LDLᵀ factorization.
//
// signs[i] ∈ {+1, −1} is the expected sign of the pivot of row i in the
// original ordering (+1 for the primal block, −1 for the dual block of a
// quasi-definite KKT matrix). With signs, dynamic regularization replaces a
// pivot d with sign·d < reg.Eps by sign·reg.Delta, so the factor is that of a
// slightly perturbed matrix; DynamicRegCount reports how many pivots were
// replaced. With nil signs, reg is ignored and an exactly zero (or non-finite)
// pivot stops the factorization with a *PivotError (wrapping ErrZeroPivot).
func (s *Symbolic) Factor(upper *sparse.CSC, signs []int8, reg Regularization) (*Factor, error) {
	n := s.n
	if signs != nil {
		if len(signs) != n {
			return nil, invalidf("len(signs) is %d, want %d", len(signs), n)
		}
		for i, v := range signs {
			if v != 1 && v != -1 {
				return nil, invalidf("signs[%d] is %d, must be +1 or -1", i, v)
			}
		}
		if err := reg.Validate(); err != nil {
			return nil, err
		}
	}
	// The arrays as slices of two allocations (floats, ints), each cut to
	// its length.
	nf, ni := len(s.ci)+5*n, 0
	if sn := s.sn; sn != nil {
		ns := len(sn.start) - 1
		nf += sn.valPtr[ns] + sn.maxRows*32
		ni += 3*ns + n
	} else {
		nnzL := s.lp[n]
		nf += nnzL + 2*n
		ni += nnzL + 3*n
	}
	fa, ia := arena.Floats.Get(nf), arena.Ints.Get(ni)
	fslab, islab := fa, ia
	fl := func(k int) []float64 { return arena.Cut(&fa, k) }
	il := func(k int) []int { return arena.Cut(&ia, k) }
	f := &Factor{
		sym:   s,
		fslab: fslab,
		islab: islab,
		cx:    fl(len(s.ci)),
		d:     fl(n),
		reg:   reg,
		work:  fl(n),
		r:     fl(n),
		dx:    fl(n),
		bcopy: fl(n),
	}
	if sn := s.sn; sn != nil {
		ns := len(sn.start) - 1
		f.sx = fl(sn.valPtr[ns])
		f.shead = il(ns)
		f.slink = il(ns)
		f.skptr = il(ns)
		f.relpos = il(n)
		f.ubuf = fl(sn.maxRows * 32)
	} else {
		nnzL := s.lp[n]
		f.li = il(nnzL)
		f.lx = fl(nnzL)
		f.lnz = il(n)
		f.dinv = fl(n)
		f.y = fl(n)
		f.pat = il(n)
		f.flag = il(n)
	}
	if signs != nil {
		f.signs = make([]int8, n)
		f.sg = make([]float64, n)
		for k, i := range s.perm {
			f.signs[k] = signs[i]
			f.sg[k] = float64(signs[i])
		}
	}
	if err := f.Refactor(upper); err != nil {
		return nil, err
	}
	return f, nil
}

// Release hands the factor's arrays to the next Factor (the arena pools) and
// returns f to its zero value; f must not be used afterwards. Its Symbolic
// is not released (Symbolic.Release).
func (f *Factor) Release() {
	arena.Floats.Release(f.fslab)
	arena.Ints.Release(f.islab)
	arena.Ints.Release(f.rowPat)
	arena.Ints.Release(f.rowPtr)
	arena.Ints.Release(f.lpos)
	arena.Ints.Release(f.pmap)
	*f = Factor{}
}

// Refactor recomputes the numeric factorization for new values of a matrix with
// the analyzed pattern (or a subset of it), with the signs and regularization
// given to Factor. It reuses all memory and does not allocate (except once
// for a pattern with more entries than any before). A matrix whose ColPtr and
// RowIdx are the very slices of the previous call is taken to have the
// pattern that call checked: only its values are read (and checked to be
// finite), so a pattern must not be changed in place — pass new slices. On
// error the Factor holds no valid factorization until a later Refactor
// succeeds.
func (f *Factor) Refactor(upper *sparse.CSC) error {
	f.last = nil
	if err := f.scatter(upper); err != nil {
		return err
	}
	var err error
	if f.sym.sn != nil {
		err = f.numericSupernodal()
	} else {
		err = f.numeric()
	}
	if err != nil {
		return err
	}
	f.last = upper
	return nil
}

// SetRegularization changes the dynamic regularization rule used by later
// calls of Refactor. It has no effect on a Factor created without signs.
func (f *Factor) SetRegularization(reg Regularization) error {
	if err := reg.Validate(); err != nil {
		return err
	}
	f.reg = reg
	return nil
}

// scatter copies the values of upper into cx, checking that the pattern of
// upper is contained in the analyzed pattern (a merge of the row lists of each
// column) and that the values are finite.
func (f *Factor) scatter(upper *sparse.CSC) error {
	s := f.sym
	n := s.n
	if upper == nil {
		return invalidf("matrix is nil")
	}
	if upper.Rows != n || upper.Cols != n {
		return mismatchf("matrix is %d×%d, analyzed %d×%d", upper.Rows, upper.Cols, n, n)
	}
	if len(upper.ColPtr) != n+1 || upper.ColPtr[0] != 0 {
		return invalidf("ColPtr has length %d (want %d) or does not start at 0", len(upper.ColPtr), n+1)
	}
	nnz := upper.ColPtr[n]
	if len(upper.RowIdx) < nnz || len(upper.Val) < nnz {
		return invalidf("ColPtr[%d] is %d but len(RowIdx) = %d, len(Val) = %d", n, nnz, len(upper.RowIdx), len(upper.Val))
	}
	cx, amap, srow := f.cx, s.amap, s.rowIdx
	ri, rv := upper.RowIdx, upper.Val
	if nnz > 0 && &upper.ColPtr[0] == f.patCP && &ri[0] == f.patRI && len(upper.ColPtr) == f.patNC && len(ri) == f.patNR {
		// The pattern checked by an earlier call: values only.
		pmap := f.pmap[:nnz]
		rv := rv[:len(pmap)]
		// finiteness summed, not tested per entry: v − v is 0 for a
		// finite v and NaN otherwise, so acc ≠ 0 iff an entry is not
		// finite (the copy is the same; on error the Factor is invalid
		// anyway)
		acc := 0.0
		for p, q := range pmap {
			v := rv[p]
			acc += v - v
			cx[q] = v
		}
		if acc != 0 {
			for p, v := range rv {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					j := sort.Search(n, func(c int) bool { return upper.ColPtr[c+1] > p })
					return invalidf("entry (%d,%d) is %v, must be finite", ri[p], j, v)
				}
			}
		}
		// (the analyzed entries this pattern lacks were zeroed by the
		// checked call and only a checked call writes them)
		return nil
	}
	f.patCP = nil
	if cap(f.pmap) < nnz {
		f.pmap = arena.Ints.Get(nnz)
	}
	pmap := f.pmap[:nnz]
	for j := 0; j < n; j++ {
		q, qe := s.colPtr[j], s.colPtr[j+1]
		lo, hi := upper.ColPtr[j], upper.ColPtr[j+1]
		if hi < lo || hi > nnz {
			return invalidf("ColPtr is not non-decreasing at column %d", j)
		}
		for p := lo; p < hi; p++ {
			i := ri[p]
			for q < qe && srow[q] < i {
				cx[amap[q]] = 0
				q++
			}
			if q == qe || srow[q] != i {
				if i > j {
					return invalidf("entry (%d,%d) lies below the diagonal; pass the upper triangle only", i, j)
				}
				return mismatchf("entry (%d,%d) is not in the analyzed pattern (or rows are unsorted)", i, j)
			}
			v := rv[p]
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return invalidf("entry (%d,%d) is %v, must be finite", i, j, v)
			}
			cx[amap[q]] = v
			pmap[p] = amap[q]
			q++
		}
		for ; q < qe; q++ {
			cx[amap[q]] = 0
		}
	}
	if nnz > 0 {
		f.patCP, f.patRI, f.patNC, f.patNR = &upper.ColPtr[0], &ri[0], len(upper.ColPtr), len(ri)
	}
	return nil
}

// numeric runs the up-looking LDLᵀ factorization of C = P K Pᵀ.
func (f *Factor) numeric() error {
	s := f.sym
	n := s.n
	cp, ci, cx := s.cp, s.ci, f.cx
	lp, parent := s.lp, s.parent
	li, lx, d, dinv, lnz := f.li, f.lx, f.d, f.dinv, f.lnz
	y, pat, flag := f.y, f.pat, f.flag
	signs := f.signs
	eps, delta := f.reg.Eps, f.reg.Delta
	f.dynReg, f.pos, f.neg, f.zero = 0, 0, 0, 0
	interrupt := s.interrupt
	rowPat, rowPtr, lpos := f.rowPat, f.rowPtr, f.lpos
	record := rowPtr == nil
	if !record && signs != nil {
		return f.numericReplay()
	}
	if record {
		// (appends stay within the capacity: the pattern has NnzL entries)
		rowPat, rowPtr = arena.Ints.Get(s.NnzL())[:0], arena.Ints.Get(n + 1)[:1]
		lpos = arena.Ints.Get(s.NnzL())[:0]
	}
	for k := 0; k < n; k++ {
		if interrupt != nil && k&255 == 0 && interrupt() {
			return ErrInterrupted // y is all zero between rows
		}
		lnz[k] = 0
		var rowK []int
		if record {
			// Pattern of row k of L: the union of the tree paths from
			// each C(i,k), stored in topological order in pat[top:n].
			top := n
			flag[k] = k
			for p := cp[k]; p < cp[k+1]; p++ {
				i := ci[p]
				y[i] += cx[p]
				length := 0
				for ; flag[i] != k; i = parent[i] {
					pat[length] = i
					length++
					flag[i] = k
				}
				for length > 0 {
					top--
					length--
					pat[top] = pat[length]
				}
			}
			rowK = pat[top:n]
			rowPat = append(rowPat, rowK...)
			rowPtr = append(rowPtr, len(rowPat))
		} else {
			for p := cp[k]; p < cp[k+1]; p++ {
				y[ci[p]] += cx[p]
			}
			rowK = rowPat[rowPtr[k]:rowPtr[k+1]]
		}
		dk := y[k]
		y[k] = 0
		// L(k,i) = y_i / D(i) is computed as y_i · (1/D(i)) (QDLDL's
		// convention; a multiplication instead of a division in the
		// innermost row loop), and the row index k of L(k,i) is stored
		// only on the recording run: later runs fill the same positions
		// with the same indices.
		for _, i := range rowK {
			yi := y[i]
			y[i] = 0
			p0 := lp[i]
			p1 := p0 + lnz[i]
			// an index loop, as in solvePermuted
			for p := p0; p < p1; p++ {
				y[li[p]] -= lx[p] * yi
			}
			lki := yi * dinv[i]
			dk -= lki * yi
			if record {
				li[p1] = k
				lpos = append(lpos, p1)
			}
			lx[p1] = lki
			lnz[i]++
		}
		if signs != nil {
			sg := float64(signs[k])
			if !(sg*dk >= eps) {
				dk = sg * delta
				f.dynReg++
			}
		} else if dk == 0 || math.IsNaN(dk) || math.IsInf(dk, 0) {
			// Reset the accumulator invariant (y = 0) before leaving.
			clear(y)
			return &PivotError{Index: s.perm[k], Step: k}
		}
		d[k] = dk
		dinv[k] = 1 / dk
		switch {
		case dk > 0:
			f.pos++
		case dk < 0:
			f.neg++
		default:
			f.zero++
		}
	}
	if record {
		f.rowPat, f.rowPtr, f.lpos = rowPat, rowPtr, lpos
	}
	return nil
}

// Symbolic returns the symbolic analysis the factor was computed from.
func (f *Factor) Symbolic() *Symbolic { return f.sym }

// DynamicRegCount returns the number of pivots replaced by dynamic
// regularization in the last (re)factorization.
func (f *Factor) DynamicRegCount() int { return f.dynReg }

// Inertia returns the numbers of positive, negative and zero entries of D,
// which by Sylvester's law of inertia are those of the eigenvalues of the
// factorized (possibly regularized) matrix.
func (f *Factor) Inertia() (pos, neg, zero int) { return f.pos, f.neg, f.zero }

// D returns a copy of the diagonal of D in elimination order.
func (f *Factor) D() []float64 { return append([]float64(nil), f.d...) }

// Solve solves the factorized (possibly regularized) system K x = b,
//
//	x = Pᵀ L⁻ᵀ D⁻¹ L⁻¹ P b,
//
// and returns x in dst. A nil dst is allocated; otherwise Solve does not
// allocate, and dst may alias b. It panics if len(b) or len(dst) differ from N.
func (f *Factor) Solve(dst, b []float64) []float64 {
	n := f.sym.n
	if len(b) != n {
		panic(fmt.Sprintf("ldl: Solve: len(b) = %d, want %d", len(b), n))
	}
	if dst == nil {
		dst = make([]float64, n)
	} else if len(dst) != n {
		panic(fmt.Sprintf("ldl: Solve: len(dst) = %d, want %d", len(dst), n))
	}
	x := f.work
	perm := f.sym.perm
	if haveSimplicialAsm && n > 0 && f.sym.sn == nil {
		// the loops below in assembly (perm is a permutation of 0..n−1,
		// so every index is in range)
		solvePermAsm(&dst[0], &b[0], &x[:n][0], &perm[:n][0], n, &f.sym.lp[:n+1][0], sliceBase(f.li), sliceBase(f.lx), &f.dinv[:n][0])
		return dst
	}
	for k, i := range perm {
		x[k] = b[i]
	}
	f.solvePermuted(x)
	for k, i := range perm {
		dst[i] = x[k]
	}
	return dst
}

// solvePermuted overwrites x with (L D Lᵀ)⁻¹ x.
func (f *Factor) solvePermuted(x []float64) {
	if f.sym.sn != nil {
		f.solveSupernodal(x)
		return
	}
	n := f.sym.n
	if haveSimplicialAsm && n > 0 {
		solveSimplicialAsm(&x[:n][0], n, &f.sym.lp[0], sliceBase(f.li), sliceBase(f.lx), &f.dinv[:n][0])
		return
	}
	f.solveSimplicialGo(x)
}

// solveSimplicialGo is solvePermuted's simplicial method in Go (the form
// solveSimplicialAsm follows, and the method off x86-64).
func (f *Factor) solveSimplicialGo(x []float64) {
	n := f.sym.n
	lp, li, lx, dinv := f.sym.lp, f.li, f.lx, f.dinv
	for j := 0; j < n; j++ {
		xj := x[j]
		if xj == 0 {
			continue
		}
		// index loops, not subslices: the columns of small KKT factors
		// hold about three entries, and two slice headers per column cost
		// as much as the products (instruction counts, BENCHMARKS.md
		// "Small exp-cone solves, round 11"); same operations, same order
		for p, p1 := lp[j], lp[j+1]; p < p1; p++ {
			x[li[p]] -= lx[p] * xj
		}
	}
	dinv = dinv[:n]
	for j := range dinv {
		x[j] *= dinv[j]
	}
	for j := n - 1; j >= 0; j-- {
		s := x[j]
		for p, p1 := lp[j], lp[j+1]; p < p1; p++ {
			s -= lx[p] * x[li[p]]
		}
		x[j] = s
	}
}

// SolveRefine solves K x = b with the factor and improves x by iterative
// refinement against the matrix K whose upper triangle is upperK (typically the
// unregularized matrix, while the factor may hold a regularized one):
//
//	r = b − K x,  stop if ‖r‖∞ ≤ tol·(1 + ‖b‖∞),  x ← x + (L D Lᵀ)⁻¹ r,
//
// for at most iters corrections; a correction that does not decrease ‖r‖∞ is
// undone and ends the loop. It returns x (in dst, allocated if nil; dst may
// alias b) and the number of corrections kept. A nil upperK means the matrix of
// the last Factor/Refactor call. upperK only needs to be an n×n upper triangle;
// its pattern may differ from the analyzed one. SolveRefine does not allocate
// (except a nil dst). It panics on length mismatches.
func (f *Factor) SolveRefine(dst, b []float64, upperK *sparse.CSC, iters int, tol float64) ([]float64, int) {
	n := f.sym.n
	if len(b) != n {
		panic(fmt.Sprintf("ldl: SolveRefine: len(b) = %d, want %d", len(b), n))
	}
	if upperK == nil {
		upperK = f.last
	}
	if upperK == nil || upperK.Rows != n || upperK.Cols != n {
		panic("ldl: SolveRefine: upperK is nil or not n×n")
	}
	bc := f.bcopy
	copy(bc, b)
	x := f.Solve(dst, bc)
	bnorm := normInf(bc)
	r := f.r
	rnorm := residual(r, upperK, x, bc)
	steps := 0
	for steps < iters && rnorm > tol*(1+bnorm) {
		dx := f.Solve(f.dx, r)
		for i := range x {
			x[i] += dx[i]
		}
		nr := residual(r, upperK, x, bc)
		if !(nr < rnorm) {
			for i := range x {
				x[i] -= dx[i]
			}
			break
		}
		rnorm = nr
		steps++
	}
	f.lastResidual = rnorm
	return x, steps
}

// LastResidual returns ‖b − K x‖∞ at the end of the last SolveRefine call.
func (f *Factor) LastResidual() float64 { return f.lastResidual }

// residual sets r = b − K x for the symmetric K given by its upper triangle and
// returns ‖r‖∞.
func residual(r []float64, upper *sparse.CSC, x, b []float64) float64 {
	copy(r, b)
	ri, rv := upper.RowIdx, upper.Val
	for j := 0; j < upper.Cols; j++ {
		xj := x[j]
		s := 0.0
		for p := upper.ColPtr[j]; p < upper.ColPtr[j+1]; p++ {
			i := ri[p]
			v := rv[p]
			r[i] -= v * xj
			if i != j {
				s += v * x[i]
			}
		}
		r[j] -= s
	}
	return normInf(r)
}

func normInf(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		if a := math.Abs(x); a > m || a != a {
			m = a
			if a != a {
				return a
			}
		}
	}
	return m
}
