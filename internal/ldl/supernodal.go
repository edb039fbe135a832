package ldl

import "math"

// Supernodal factorization. A supernode is a range of consecutive columns
// f..l of L forming a chain in the elimination tree (parent(j) = j+1) whose
// columns share the row structure {f..l} ∪ R, R = struct(L(:,l)); its columns
// are stored together as a dense column-major block of (l−f+1+|R|) rows, so the
// numeric work runs in dense kernels on contiguous memory. Fundamental
// supernodes (identical structures) are merged further ("relaxed", as in
// Ashcraft & Grimes, "The influence of relaxed supernode partitions on the
// multifrontal method", ACM TOMS 15(4), 1989) when the explicit zeros this
// introduces stay small. The numeric factorization is left-looking: supernode
// J is assembled from the entries of P K Pᵀ, updated by every descendant K
// with rows in J's columns,
//
//	X_J ← X_J − L_K(r, :) D_K L_K(c, :)ᵀ,
//
// and then factorized densely, X_J = L_J D_J L_J(diag)ᵀ (Ng & Peyton, "Block
// sparse Cholesky algorithms on advanced uniprocessor computers", SIAM J. Sci.
// Comput. 14(5), 1993; here in LDLᵀ form without pivoting).

// Relaxation rule: merge a column into the current supernode if the merged
// supernode has at most relaxCols[i] columns and a fraction of explicit zeros
// below relaxZeros[i] for some i (the shape of CHOLMOD's defaults).
var (
	relaxCols  = [...]int{4, 16, 48, math.MaxInt}
	relaxZeros = [...]float64{1, 0.8, 0.1, 0.05}
)

// Sibling columns with identical structures are merged while the supernode has
// at most maxSiblingCols columns and less than maxSiblingZeros explicit zeros
// (their diagonal block is zero below the diagonal).
const (
	maxSiblingCols  = 64
	maxSiblingZeros = 0.5
)

// supernodes holds the supernodal symbolic structure.
type supernodes struct {
	start   []int // supernode J has columns start[J]..start[J+1]-1
	of      []int // of[j] = supernode containing column j
	rowPtr  []int // rows of J: rows[rowPtr[J]:rowPtr[J+1]], first its own columns
	rows    []int
	valPtr  []int // values of J: a column-major block at valPtr[J], leading dimension = its row count
	cpos    []int // position in the value array of each entry of the upper triangle of C
	maxRows int
	maxCols int
}

func (s *Symbolic) buildSupernodes() {
	n := s.n
	cnt := make([]int, n)
	for j := 0; j < n; j++ {
		cnt[j] = s.lp[j+1] - s.lp[j]
	}
	// inter[j] = |struct(L(:,j−1)) ∩ struct(L(:,j))|, counted during one
	// traversal of the row subtrees: a row k in both columns visits both nodes,
	// and the second visit counts it.
	inter := make([]int, n)
	flag := make([]int, n)
	for k := 0; k < n; k++ {
		if s.pollAnalyze(k) {
			return
		}
		flag[k] = k
		for p := s.cp[k]; p < s.cp[k+1]; p++ {
			for i := s.ci[p]; flag[i] != k; i = s.parent[i] {
				flag[i] = k
				if i > 0 && flag[i-1] == k {
					inter[i]++
				}
				if i+1 < k && flag[i+1] == k {
					inter[i+1]++
				}
			}
		}
	}
	sn := &supernodes{of: make([]int, n)}
	sn.start = append(sn.start, 0)
	f := 0
	actual := 0 // Σ (cnt[c]+1) over the current supernode
	for j := 0; j < n; j++ {
		if j > f {
			// Can column j join the supernode f..j-1? Either j is the parent
			// of j−1 (a chain: exact if the structures nest without extra
			// rows, else relaxed), or j−1 and j are siblings with identical
			// structures (leaves of one clique, as the rows of a cone block
			// in a KKT matrix). Both keep struct(L(:,c)) beyond the last
			// column inside struct(L(:,last)) for every column c of the
			// supernode, which the row lists below rely on.
			nc := j - f + 1
			stored := nc*(nc+1)/2 + nc*cnt[j]
			zeros := float64(stored-actual-cnt[j]-1) / float64(stored)
			var ok bool
			switch {
			case s.parent[j-1] == j:
				ok = cnt[j-1] == cnt[j]+1
				for i, c := range relaxCols {
					if !ok && nc <= c && zeros < relaxZeros[i] {
						ok = true
					}
				}
			case cnt[j] > 0 && cnt[j-1] == cnt[j] && inter[j] == cnt[j]:
				ok = nc <= maxSiblingCols && zeros < maxSiblingZeros
			}
			if !ok {
				sn.start = append(sn.start, j)
				f = j
				actual = 0
			}
		}
		actual += cnt[j] + 1
		sn.of[j] = len(sn.start) - 1
	}
	if n > 0 {
		sn.start = append(sn.start, n)
	}
	ns := len(sn.start) - 1
	sn.rowPtr = make([]int, ns+1)
	sn.valPtr = make([]int, ns+1)
	for J := 0; J < ns; J++ {
		nc := sn.start[J+1] - sn.start[J]
		m := nc + cnt[sn.start[J+1]-1]
		sn.rowPtr[J+1] = sn.rowPtr[J] + m
		sn.valPtr[J+1] = sn.valPtr[J] + m*nc
		sn.maxRows = max(sn.maxRows, m)
		sn.maxCols = max(sn.maxCols, nc)
	}
	sn.rows = make([]int, sn.rowPtr[ns])
	next := make([]int, ns) // next free slot for rows beyond the supernode
	for J := 0; J < ns; J++ {
		p := sn.rowPtr[J]
		for c := sn.start[J]; c < sn.start[J+1]; c++ {
			sn.rows[p] = c
			p++
		}
		next[J] = p
	}
	// R_J = struct(L(:,l)): row k belongs to it iff the row subtree of k
	// contains l. Rows are visited in increasing order, so R_J is sorted.
	for i := range flag {
		flag[i] = -1
	}
	for k := 0; k < n; k++ {
		if s.pollAnalyze(k) {
			return
		}
		flag[k] = k
		for p := s.cp[k]; p < s.cp[k+1]; p++ {
			for i := s.ci[p]; flag[i] != k; i = s.parent[i] {
				flag[i] = k
				J := sn.of[i]
				if i == sn.start[J+1]-1 {
					sn.rows[next[J]] = k
					next[J]++
				}
			}
		}
	}
	for J := 0; J < ns; J++ {
		if next[J] != sn.rowPtr[J+1] {
			panic("ldl: internal error: supernode row count differs from the column count")
		}
	}
	// Position of every entry C(i,k), i ≤ k, in the value blocks: it is
	// L-position (k, i), in the supernode J of column i, whose row list is
	// sorted, so the row offset of k is found by binary search (O(log m) per
	// entry; scanning the columns of C per supernode instead would be
	// quadratic when a few dense rows belong to every supernode).
	sn.cpos = make([]int, len(s.ci))
	for k := 0; k < n; k++ {
		for p := s.cp[k]; p < s.cp[k+1]; p++ {
			i := s.ci[p]
			J := sn.of[i]
			rowsJ := sn.rows[sn.rowPtr[J]:sn.rowPtr[J+1]]
			lo, hi := i-sn.start[J], len(rowsJ) // rowsJ[i-f] = i ≤ k
			for lo < hi {
				mid := int(uint(lo+hi) >> 1)
				if rowsJ[mid] < k {
					lo = mid + 1
				} else {
					hi = mid
				}
			}
			sn.cpos[p] = sn.valPtr[J] + lo + (i-sn.start[J])*len(rowsJ)
		}
	}
	s.sn = sn
}

// pollWork is the number of multiply-adds of the supernodal factorization
// between two polls of the interrupt (about 20–60 µs).
const pollWork = 1 << 16

// numericSupernodal runs the left-looking supernodal LDLᵀ factorization.
func (f *Factor) numericSupernodal() error {
	s := f.sym
	sn := s.sn
	ns := len(sn.start) - 1
	x, d := f.sx, f.d
	clear(x)
	for q, pos := range sn.cpos {
		x[pos] = f.cx[q]
	}
	head, link, kptr, relpos, ubuf := f.shead, f.slink, f.skptr, f.relpos, f.ubuf
	for J := range head {
		head[J] = -1
	}
	signs := f.signs
	eps, delta := f.reg.Eps, f.reg.Delta
	f.dynReg, f.pos, f.neg, f.zero = 0, 0, 0, 0
	const chunk = 32 // columns of an update computed at a time
	interrupt := s.interrupt
	// work counts the multiply-adds since the last poll of interrupt: it is
	// polled at the first supernode and then once pollWork of them have
	// been done (a poll reads the clock and a context; thousands of small
	// supernodes would otherwise poll for every few hundred flops)
	work := 0
	for J := 0; J < ns; J++ {
		if interrupt != nil && (J == 0 || work >= pollWork) {
			if work = 0; interrupt() {
				return ErrInterrupted
			}
		}
		fc, lc := sn.start[J], sn.start[J+1]
		nc := lc - fc
		rowsJ := sn.rows[sn.rowPtr[J]:sn.rowPtr[J+1]]
		m := len(rowsJ)
		xJ := x[sn.valPtr[J] : sn.valPtr[J]+m*nc]
		for t, r := range rowsJ {
			relpos[r] = t
		}
		// Updates from descendants.
		for K := head[J]; K != -1; {
			nextK := link[K]
			rowsK := sn.rows[sn.rowPtr[K]:sn.rowPtr[K+1]]
			mK := len(rowsK)
			ncK := sn.start[K+1] - sn.start[K]
			xK := x[sn.valPtr[K] : sn.valPtr[K]+mK*ncK]
			dK := d[sn.start[K]:sn.start[K+1]]
			pk := kptr[K]
			pk2 := pk
			for pk2 < mK && rowsK[pk2] < lc {
				pk2++
			}
			na := mK - pk
			for b0 := pk; b0 < pk2; b0 += chunk {
				b1 := min(b0+chunk, pk2)
				if work += na * (b1 - b0) * ncK; interrupt != nil && work >= pollWork {
					if work = 0; interrupt() {
						return ErrInterrupted // a large supernode's updates take long
					}
				}
				// U(:, b) = L_K(pk:, :) D_K L_K(b, :)ᵀ for b in b0..b1-1,
				// rows a ≥ b only; U is na × (b1−b0), column-major.
				u := ubuf[:na*(b1-b0)]
				clear(u)
				for b := b0; b < b1; b++ {
					ucol := u[(b-b0)*na+(b-pk) : (b-b0+1)*na]
					subMulCols(ucol, xK, mK, b, dK, 0, ncK, -1)
				}
				for b := b0; b < b1; b++ {
					colJ := xJ[(rowsK[b]-fc)*m : (rowsK[b]-fc+1)*m]
					ucol := u[(b-b0)*na : (b-b0+1)*na]
					for a := b; a < mK; a++ {
						colJ[relpos[rowsK[a]]] -= ucol[a-pk]
					}
				}
			}
			if pk2 < mK {
				kptr[K] = pk2
				J2 := sn.of[rowsK[pk2]]
				link[K] = head[J2]
				head[J2] = K
			}
			K = nextK
		}
		// Dense LDLᵀ of the supernode's columns, left-looking within the
		// block: column j (rows j..m−1) ← column j − Σ_{t<j} L(j,t) d_t L(:,t),
		// then d_j is its diagonal and the rest is divided by d_j. This also
		// computes the rows below the diagonal block.
		//
		// A supernode of blockedMinCols columns or more (the dense Schur
		// complements of the SDP blocks) is processed in panels of
		// blockedPanel columns: before a panel, its columns get the
		// contribution of all earlier columns at once (blockUpdate, a
		// matrix product), and within the panel the left-looking loop runs
		// over the panel's own earlier columns only.
		dJ := d[fc:lc]
		blocked := haveFMA && !disableBlocked && nc >= blockedMinCols
		t0 := 0
		for j := 0; j < nc; j++ {
			if work += (m - j) * (j - t0); interrupt != nil && work >= pollWork {
				if work = 0; interrupt() {
					return ErrInterrupted
				}
			}
			if blocked && j%blockedPanel == 0 {
				t0 = j
				f.blockUpdate(xJ, m, dJ, j, min(j+blockedPanel, nc))
			}
			colj := xJ[j*m+j : (j+1)*m]
			subMulCols(colj, xJ, m, j, dJ, t0, j, 1)
			dj := colj[0]
			k := fc + j
			if signs != nil {
				sg := float64(signs[k])
				if !(sg*dj >= eps) {
					dj = sg * delta
					f.dynReg++
				}
			} else if dj == 0 || math.IsNaN(dj) || math.IsInf(dj, 0) {
				return &PivotError{Index: s.perm[k], Step: k}
			}
			d[k] = dj
			switch {
			case dj > 0:
				f.pos++
			case dj < 0:
				f.neg++
			default:
				f.zero++
			}
			inv := 1 / dj
			colj[0] = 1
			for a := 1; a < len(colj); a++ {
				colj[a] *= inv
			}
		}
		if m > nc {
			kptr[J] = nc
			J2 := sn.of[rowsJ[nc]]
			link[J] = head[J2]
			head[J2] = J
		}
	}
	return nil
}

// solveSupernodal overwrites x with (L D Lᵀ)⁻¹ x. Per supernode, the rows
// below the diagonal block are gathered into (or accumulated in) a dense
// buffer, so the inner loops run over contiguous memory.
func (f *Factor) solveSupernodal(x []float64) {
	sn := f.sym.sn
	ns := len(sn.start) - 1
	buf := f.ubuf
	for J := 0; J < ns; J++ {
		fc, nc := sn.start[J], sn.start[J+1]-sn.start[J]
		rowsJ := sn.rows[sn.rowPtr[J]:sn.rowPtr[J+1]]
		m := len(rowsJ)
		xJ := f.sx[sn.valPtr[J] : sn.valPtr[J]+m*nc]
		xd := x[fc : fc+nc]
		w := buf[:m-nc]
		clear(w)
		for t := 0; t < nc; t++ {
			xt := xd[t]
			if xt == 0 {
				continue
			}
			col := xJ[t*m : (t+1)*m]
			// xd −= xt·col, as AddScaled with −xt: fl(c·(−t)) = −fl(c·t)
			// and d + (−p) = d − p exactly, so the same bits
			AddScaled(xd[t+1:nc], -xt, col[t+1:nc])
			AddScaled(w, xt, col[nc:m])
		}
		for a, r := range rowsJ[nc:] {
			x[r] -= w[a]
		}
	}
	for j, dj := range f.d {
		x[j] /= dj
	}
	for J := ns - 1; J >= 0; J-- {
		fc, nc := sn.start[J], sn.start[J+1]-sn.start[J]
		rowsJ := sn.rows[sn.rowPtr[J]:sn.rowPtr[J+1]]
		m := len(rowsJ)
		xJ := f.sx[sn.valPtr[J] : sn.valPtr[J]+m*nc]
		xd := x[fc : fc+nc]
		g := buf[:m-nc]
		for a, r := range rowsJ[nc:] {
			g[a] = x[r]
		}
		for t := nc - 1; t >= 0; t-- {
			col := xJ[t*m : (t+1)*m]
			v := xd[t]
			for a := t + 1; a < nc; a++ {
				v -= col[a] * xd[a]
			}
			below := col[nc:m]
			below = below[:len(g)]
			for a, gv := range g {
				v -= below[a] * gv
			}
			xd[t] = v
		}
	}
}

// blockedMinCols is the least number of columns of a supernode factored in
// panels (numericSupernodal), and blockedPanel the panel width. The panels
// change the rounding of the factorization, and with it where an
// interior-point solve meets its first regularized pivot (the switch of the
// SDP Schur assembly to the dense rule) and the tails of degenerate SDPs:
// with a threshold of 64 columns two of them ended outside their
// tolerances and one switched rules earlier (40% more time per iteration),
// so only the large dense supernodes, where the time is, take them
// (measured: the supernodes that dominate the factorization time have
// 666–1106 columns; 512 is the power of two below them).
const (
	blockedMinCols = 512
	blockedPanel   = 32
)

// disableBlocked turns the panel path off (BenchmarkDenseSupernode's
// column-by-column reference).
var disableBlocked = false

// blockUpdate subtracts from the columns j0..j1−1 of the column-major
// supernode block x (m rows) the contributions of all earlier columns,
//
//	x(a, j) −= Σ_{t<j0} L(a,t)·d_t·L(j,t),  a ≥ j,
//
// the update a right-looking blocked LDLᵀ applies to a panel (Golub & Van
// Loan, Matrix Computations, 4th ed., §4.2.9, for the Cholesky form). The
// rows of the panel's diagonal block go through subMulCols; the rows below
// it are a matrix product done in register blocks of 8 rows × 4 columns
// (update8x4FMA, with the multipliers d_t·L(j,t) packed four columns per t),
// remainders one column at a time (subMulColsAt).
func (f *Factor) blockUpdate(x []float64, m int, d []float64, j0, j1 int) {
	if j0 == 0 {
		return
	}
	for j := j0; j < j1; j++ {
		subMulCols(x[j*m+j:j*m+j1], x, m, j, d, 0, j0, 1)
	}
	rows := m - j1
	r8 := rows &^ 7
	j := j0
	if r8 > 0 {
		if cap(f.wpack) < 4*j0 {
			f.wpack = make([]float64, 4*j0)
		}
		w := f.wpack[:4*j0]
		for ; j+4 <= j1; j += 4 {
			for t := 0; t < j0; t++ {
				dt := d[t]
				col := x[t*m+j : t*m+j+4]
				w[4*t], w[4*t+1], w[4*t+2], w[4*t+3] = dt*col[0], dt*col[1], dt*col[2], dt*col[3]
			}
			for a := j1; a < j1+r8; a += 8 {
				update8x4FMA(&x[j*m+a], m, &x[a], m, &w[0], j0)
			}
			if r8 < rows {
				for jj := j; jj < j+4; jj++ {
					subMulColsAt(x[jj*m+j1+r8:(jj+1)*m], x, m, jj, j1+r8, d, 0, j0)
				}
			}
		}
	}
	// columns left over (fewer than four, or no full block of eight rows):
	// the rows below the diagonal block one column at a time
	for ; j < j1; j++ {
		if rows > 0 {
			subMulColsAt(x[j*m+j1:(j+1)*m], x, m, j, j1, d, 0, j0)
		}
	}
}

// subMulColsAt is subMulCols with the multipliers taken from row r and the
// sources from row s on: dst[a] −= Σ_t d_t·x(r,t)·x(s+a,t).
func subMulColsAt(dst, x []float64, m, r, s int, d []float64, t0, t1 int) {
	for t := t0; t < t1; t++ {
		c := d[t] * x[t*m+r]
		if c == 0 {
			continue
		}
		src := x[t*m+s : t*m+s+len(dst)]
		for a, v := range src {
			dst[a] -= c * v
		}
	}
}

// subMulCols computes, for the columns t in t0..t1−1 of the column-major block
// x with leading dimension m,
//
//	dst[a] −= sign·Σ_t d[t]·x(r,t)·x(r+a,t)
//
// where dst holds rows r.. of one column (len(dst) ≤ m−r). With sign = −1 it
// accumulates (dst += …), as the update of a descendant needs. Columns are
// processed four at a time so dst is read and written once per four columns;
// on x86-64 with AVX through subMul4AVX, whose rounding is the scalar loop's.
func subMulCols(dst, x []float64, m, r int, d []float64, t0, t1 int, sign float64) {
	n := len(dst)
	if n == 0 {
		return
	}
	t := t0
	for ; t+4 <= t1; t += 4 {
		s0 := x[t*m+r : t*m+r+n]
		s1 := x[(t+1)*m+r : (t+1)*m+r+n]
		s2 := x[(t+2)*m+r : (t+2)*m+r+n]
		s3 := x[(t+3)*m+r : (t+3)*m+r+n]
		c0 := sign * d[t] * s0[0]
		c1 := sign * d[t+1] * s1[0]
		c2 := sign * d[t+2] * s2[0]
		c3 := sign * d[t+3] * s3[0]
		if c0 == 0 && c1 == 0 && c2 == 0 && c3 == 0 {
			continue
		}
		a := 0
		if haveAVX && n >= 8 {
			a = n &^ 3
			cs := [4]float64{c0, c1, c2, c3}
			subMul4AVX(&dst[0], &s0[0], &s1[0], &s2[0], &s3[0], a, &cs)
		}
		for ; a < n; a++ {
			dst[a] -= c0*s0[a] + c1*s1[a] + c2*s2[a] + c3*s3[a]
		}
	}
	for ; t < t1; t++ {
		s0 := x[t*m+r : t*m+r+n]
		c0 := sign * d[t] * s0[0]
		if c0 == 0 {
			continue
		}
		for a := range dst {
			dst[a] -= c0 * s0[a]
		}
	}
}
