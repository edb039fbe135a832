package ldl

import (
	"fmt"
	"github.com/privopt/privopt/internal/arena"
	"math"

	"github.com/privopt/privopt/sparse"
)

// Symbolic is the result of Analyze: a fill-reducing permutation P and the
// symbolic factorization of P K Pᵀ (elimination tree and column pointers of
// L). It depends only on the sparsity pattern, is immutable, and may be shared
// by any number of Factors, also concurrently.
type Symbolic struct {
	n int
	// slab is the allocation the kept index arrays are cut from (Release)
	slab []int
	// interrupt, when set (SetInterrupt), is polled during numeric
	// factorizations.
	interrupt func() bool
	// analyzing is Options.Interrupt while Analyze runs; aborted records
	// that it fired (pollAnalyze).
	analyzing func() bool
	aborted   bool
	perm      []int // perm[k] = original index of pivot k
	iperm     []int // iperm[perm[k]] = k

	// The analyzed pattern of the original upper triangle (copies).
	colPtr, rowIdx []int

	// Upper triangle of C = P K Pᵀ: column k holds the rows i ≤ k (unsorted).
	cp, ci []int
	// amap[p] is the position in (cp, ci) of entry p of the original pattern.
	amap []int

	parent   []int // elimination tree of C; -1 at a root
	lp       []int // column pointers of the strictly lower part of L, length n+1
	ordering Ordering
	dense    int // number of rows postponed as dense by AMD

	sn *supernodes // nil: simplicial factorization
}

// autoSupernodalRatio is the threshold of flops(L)/nnz(L) above which Auto
// selects the supernodal factorization. CHOLMOD uses 40 for the same choice;
// here the supernodal code already wins from about 5 on (grid Laplacians, KKT
// matrices, the SOC KKT benchmark) and loses below (arrow matrices, ratio 2).
const autoSupernodalRatio = 5

// Analyze computes a fill-reducing ordering and the symbolic factorization
// (elimination tree, column counts, column pointers of L) of the n×n symmetric
// matrix K whose upper triangle, diagonal included, is given in CSC form. Row
// indices must be strictly increasing within each column, no entry may lie below
// the diagonal, and every diagonal entry must be present in the pattern (its
// value may be zero). The values of upper are ignored.
//
// The elimination tree and the column counts of L are computed together in
// O(nnz(L)) time by the row-subtree traversal of Liu (SIAM J. Matrix Anal. Appl.
// 11(1), 1990), in the form of Davis's LDL package (ACM TOMS 31(4), 2005).
// An AMD ordering is followed by a postorder of the elimination tree (same
// fill, contiguous subtrees). For the supernodal method Analyze also
// partitions the columns into supernodes and computes their row lists. The
// cost is O(nnz(K) + nnz(L)) beyond the ordering.
func Analyze(upper *sparse.CSC, opts Options) (*Symbolic, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	n, err := checkUpperPattern(upper)
	if err != nil {
		return nil, err
	}
	s := &Symbolic{n: n, ordering: opts.Ordering, analyzing: opts.Interrupt}
	// built only when needed: formatting costs more than a small matrix's analysis
	interrupted := func() error {
		return fmt.Errorf("%w: during the symbolic analysis (n = %d, %d entries)", ErrInterrupted, n, upper.ColPtr[n])
	}
	nnz := upper.ColPtr[n]
	// The index arrays the analysis keeps are slices of one allocation,
	// each cut to its length; the scratch arrays share a second one (4n+1
	// ints, enough for the largest step, setPostorder). On small matrices
	// the allocations cost as much as the analysis itself.
	keep := arena.Ints.Get(5*n + 3 + 3*nnz)
	s.slab = keep
	il := func(k int) []int { return arena.Cut(&keep, k) }
	s.colPtr, s.rowIdx = il(n+1), il(nnz)
	copy(s.colPtr, upper.ColPtr[:n+1])
	copy(s.rowIdx, upper.RowIdx[:nnz])
	s.iperm, s.cp, s.ci, s.amap = il(n), il(n+1), il(nnz), il(nnz)
	s.parent, s.lp = il(n), il(n+1)
	work := arena.Ints.Get(4*n + 1) // scratch, released on return
	defer arena.Ints.Release(work)
	switch opts.Ordering {
	case Natural:
		s.perm = make([]int, n)
		for i := range s.perm {
			s.perm[i] = i
		}
	case Given:
		if err := checkPerm(opts.Perm, n); err != nil {
			return nil, err
		}
		s.perm = append([]int(nil), opts.Perm...)
	case MinimumDegree:
		if n > MaxMinimumDegreeOrder {
			return nil, invalidf("the MinimumDegree ordering takes matrices of order at most %d, this one has order %d", MaxMinimumDegreeOrder, n)
		}
		// the ordering also yields the elimination tree and the column
		// counts (in elimination order), so setPerm's pass is not needed
		s.perm = mdOrder(n, upper.ColPtr, upper.RowIdx, s.parent, work[:n])
		for k, i := range s.perm {
			s.iperm[i] = k
		}
		s.lp[0] = 0
		for k, c := range work[:n] {
			s.lp[k+1] = s.lp[k] + c
		}
	case AMD:
		dense := opts.DenseFactor
		if dense == 0 {
			dense = defaultDenseFactor
		}
		s.perm, s.dense = amdOrder(n, upper.ColPtr, upper.RowIdx, dense, opts.Interrupt)
		if s.perm == nil {
			return nil, interrupted()
		}
	}
	if opts.Ordering != MinimumDegree {
		s.setPerm(s.perm, work)
	}
	if s.aborted {
		return nil, interrupted()
	}
	if opts.Ordering == AMD || opts.Ordering == MinimumDegree {
		// A postorder of the elimination tree is an equivalent ordering
		// (same fill) whose subtrees are contiguous, which makes supernodes
		// consecutive and improves locality.
		post := postorder(s.parent, work)
		s.setPostorder(post, work[n:])
		if s.aborted {
			return nil, interrupted()
		}
	}
	method := opts.Method
	if method == Auto {
		method = Simplicial
		ratio := opts.SupernodalRatio
		if ratio == 0 {
			ratio = autoSupernodalRatio
		}
		if s.NnzL() > 0 && s.FactorFlops() >= ratio*float64(s.NnzL()) {
			method = Supernodal
		}
	}
	if method == Supernodal {
		s.buildSupernodes()
		if s.aborted {
			return nil, interrupted()
		}
	}
	s.analyzing = nil
	s.interrupt = opts.Interrupt
	return s, nil
}

// Release hands the analysis's index arrays to the next Analyze (the
// arena.Ints pool) and returns s to its zero value. Neither s nor a Factor
// made from it may be used afterwards. It is for callers that solve many
// small systems one after another; without it the arrays are garbage
// collected as usual.
func (s *Symbolic) Release() {
	arena.Ints.Release(s.slab)
	*s = Symbolic{}
}

// pollAnalyze polls Options.Interrupt at every 256th k during Analyze and
// reports whether the analysis was interrupted (now or before).
func (s *Symbolic) pollAnalyze(k int) bool {
	if !s.aborted && s.analyzing != nil && k&255 == 0 && s.analyzing() {
		s.aborted = true
	}
	return s.aborted
}

// setPerm installs the permutation and recomputes the permuted matrix, the
// elimination tree and the column counts into the arrays Analyze cut for
// them (iperm, cp, ci, amap, parent, lp); work holds at least 2n ints.
func (s *Symbolic) setPerm(p, work []int) {
	s.perm = p
	for k, i := range p {
		s.iperm[i] = k
	}
	s.permuteUpper(work)
	s.etreeAndCounts(work)
}

// setPostorder relabels the analysis by a postorder post of its elimination
// tree (post[k] = current index of the k-th node): the permutation becomes
// perm∘post and C is permuted again, but the elimination tree and the column
// counts are those of the old labels renamed (a topological relabeling of the
// tree does not change which rows of L are nonzero), so they are mapped in
// O(n) instead of recomputed. The new arrays are formed in work (at least
// 3n+1 ints, not overlapping post) and copied over the old ones.
func (s *Symbolic) setPostorder(post, work []int) {
	n := s.n
	p, parent, lp := work[:n:n], work[n:2*n:2*n], work[2*n:3*n+1]
	ipost := s.iperm // reused: overwritten with the new inverse below
	for k, q := range post {
		p[k] = s.perm[q]
		ipost[q] = k
	}
	lp[0] = 0
	for k, q := range post {
		if r := s.parent[q]; r >= 0 {
			parent[k] = ipost[r]
		} else {
			parent[k] = -1
		}
		lp[k+1] = lp[k] + s.lp[q+1] - s.lp[q]
	}
	copy(s.perm, p)
	copy(s.parent, parent)
	copy(s.lp, lp)
	for k, i := range s.perm {
		s.iperm[i] = k
	}
	s.permuteUpper(work)
}

// postorder returns a postorder of the forest given by parent (children in
// increasing order), computed without recursion in work (at least 4n ints;
// the result is work[:n]).
func postorder(parent, work []int) []int {
	n := len(parent)
	post, head, next, stack := work[:0:n], work[n:2*n], work[2*n:3*n], work[3*n:3*n:4*n]
	for i := range head {
		head[i] = -1
	}
	for j := n - 1; j >= 0; j-- {
		if p := parent[j]; p != -1 {
			next[j] = head[p]
			head[p] = j
		}
	}
	for r := 0; r < n; r++ {
		if parent[r] != -1 {
			continue
		}
		stack = append(stack, r)
		for len(stack) > 0 {
			p := stack[len(stack)-1]
			if c := head[p]; c != -1 {
				head[p] = next[c]
				stack = append(stack, c)
			} else {
				stack = stack[:len(stack)-1]
				post = append(post, p)
			}
		}
	}
	return post
}

// Method returns the numeric factorization method Factor will use.
func (s *Symbolic) Method() Method {
	if s.sn != nil {
		return Supernodal
	}
	return Simplicial
}

// Supernodes returns the number of supernodes (0 for the simplicial method).
func (s *Symbolic) Supernodes() int {
	if s.sn == nil {
		return 0
	}
	return len(s.sn.start) - 1
}

// checkUpperPattern validates the structure of an upper-triangular CSC pattern
// and returns its order n.
func checkUpperPattern(a *sparse.CSC) (int, error) {
	if a == nil {
		return 0, invalidf("matrix is nil")
	}
	if a.Rows != a.Cols {
		return 0, invalidf("matrix is %d×%d, must be square", a.Rows, a.Cols)
	}
	n := a.Cols
	if n < 0 {
		return 0, invalidf("matrix order is %d, must be ≥ 0", n)
	}
	if len(a.ColPtr) != n+1 {
		return 0, invalidf("len(ColPtr) is %d, want Cols+1 = %d", len(a.ColPtr), n+1)
	}
	if a.ColPtr[0] != 0 {
		return 0, invalidf("ColPtr[0] is %d, want 0", a.ColPtr[0])
	}
	if nnz := a.ColPtr[n]; nnz > len(a.RowIdx) {
		return 0, invalidf("ColPtr[%d] is %d but len(RowIdx) is %d", n, nnz, len(a.RowIdx))
	}
	for j := 0; j < n; j++ {
		lo, hi := a.ColPtr[j], a.ColPtr[j+1]
		if hi < lo {
			return 0, invalidf("ColPtr decreases at column %d (%d > %d)", j, lo, hi)
		}
		prev := -1
		for p := lo; p < hi; p++ {
			i := a.RowIdx[p]
			if i < 0 {
				return 0, invalidf("row index %d out of range in column %d", i, j)
			}
			if i > j {
				return 0, invalidf("entry (%d,%d) lies below the diagonal; pass the upper triangle only", i, j)
			}
			if i <= prev {
				return 0, invalidf("row indices not strictly increasing in column %d", j)
			}
			prev = i
		}
		if prev != j {
			return 0, invalidf("diagonal entry (%d,%d) is missing from the pattern; store it, even as zero", j, j)
		}
	}
	return n, nil
}

// permuteUpper builds the upper triangle of C = P K Pᵀ and the map from the
// original entries to it, into the arrays cp, ci and amap; work holds at
// least n ints.
func (s *Symbolic) permuteUpper(work []int) {
	n := s.n
	clear(s.cp)
	for j := 0; j < n; j++ {
		pj := s.iperm[j]
		for p := s.colPtr[j]; p < s.colPtr[j+1]; p++ {
			s.cp[max(pj, s.iperm[s.rowIdx[p]])+1]++
		}
	}
	for k := 0; k < n; k++ {
		s.cp[k+1] += s.cp[k]
	}
	next := work[:n:n]
	copy(next, s.cp[:n])
	for j := 0; j < n; j++ {
		pj := s.iperm[j]
		for p := s.colPtr[j]; p < s.colPtr[j+1]; p++ {
			pi := s.iperm[s.rowIdx[p]]
			c, r := max(pi, pj), min(pi, pj)
			q := next[c]
			next[c]++
			s.ci[q] = r
			s.amap[p] = q
		}
	}
}

// etreeAndCounts computes the elimination tree of C and the column pointers of
// L: the pattern of row k of L is the set of nodes on the tree paths from the
// nonzeros C(i,k), i < k, up to k (the row subtree), so walking those paths once
// with a marker both finds parent pointers and counts entries per column.
// work holds at least 2n ints.
func (s *Symbolic) etreeAndCounts(work []int) {
	n := s.n
	flag, cnt := work[:n:n], work[n:2*n:2*n]
	clear(cnt)
	for k := 0; k < n; k++ {
		if s.pollAnalyze(k) {
			return
		}
		s.parent[k] = -1
		flag[k] = k
		for p := s.cp[k]; p < s.cp[k+1]; p++ {
			for i := s.ci[p]; flag[i] != k; i = s.parent[i] {
				if s.parent[i] == -1 {
					s.parent[i] = k
				}
				cnt[i]++
				flag[i] = k
			}
		}
	}
	s.lp[0] = 0
	for k := 0; k < n; k++ {
		s.lp[k+1] = s.lp[k] + cnt[k]
	}
}

// N returns the order of the analyzed matrix.
func (s *Symbolic) N() int { return s.n }

// NnzL returns the number of entries of the unit lower-triangular factor L
// strictly below its diagonal (the fill of the factorization; the unit
// diagonal and D are not counted).
func (s *Symbolic) NnzL() int { return s.lp[s.n] }

// Perm returns a copy of the permutation: Perm()[k] is the original index of
// the k-th pivot, so the factorization is of P K Pᵀ with (P K Pᵀ)(k,l) =
// K(Perm()[k], Perm()[l]).
func (s *Symbolic) Perm() []int { return append([]int(nil), s.perm...) }

// Ordering returns the ordering method used by Analyze.
func (s *Symbolic) Ordering() Ordering { return s.ordering }

// DenseCount returns the number of rows AMD detected as dense and ordered last
// (0 for the other orderings).
func (s *Symbolic) DenseCount() int { return s.dense }

// FactorFlops returns the number of floating-point multiply-add pairs of one
// numeric factorization, Σⱼ |L(:,j)|·(|L(:,j)|+3)/2 over the columns of L, a
// machine-independent measure of the cost of an ordering.
func (s *Symbolic) FactorFlops() float64 {
	var f float64
	for j := 0; j < s.n; j++ {
		c := float64(s.lp[j+1] - s.lp[j])
		f += c * (c + 3) / 2
	}
	return f
}

// defaultDenseFactor is AMD's default dense-row threshold factor: rows with more
// than max(16, 10·√n) entries are dense (Amestoy, Davis & Duff, AMD user guide).
const defaultDenseFactor = 10

func denseThreshold(n int, factor float64) int {
	if factor < 0 {
		return n // never dense
	}
	t := factor * math.Sqrt(float64(n))
	return int(math.Min(float64(n), math.Max(16, t)))
}

// SetInterrupt installs a function that the numeric factorizations of every
// Factor of s (Factor, Refactor) poll every 256 columns (simplicial), or per
// supernode, per 32-column block of its updates and every 32 of its columns
// (supernodal); when it returns true the factorization stops with an error
// wrapping ErrInterrupted and the Factor holds no valid factorization until a
// later Refactor succeeds. Pass a cheap function (e.g. one reading
// context.Context.Err); nil removes it. Not safe to call during a
// factorization.
func (s *Symbolic) SetInterrupt(fn func() bool) { s.interrupt = fn }
