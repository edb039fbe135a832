package ipm

import (
	"fmt"
	"math"

	"github.com/privopt/privopt/internal/ldl"
	"github.com/privopt/privopt/sparse"
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

// kktSupernodalRatio is the flops(L)/nnz(L) from which the KKT matrix is
// factored by the supernodal method (ldl.Options.SupernodalRatio), instead
// of ldl's default 5, the break-even of one factorization and one solve.
// An iteration solves with each factorization about six times (the
// constant, predictor and corrector systems, each with one or two
// refinement steps), and on small factors the simplicial solve costs half
// the supernodal one while the factorizations cost the same. Measured on
// the KKT matrices of the bench/smallconic LPs (CPU time per call): at
// flops/nnz = 8.9 (n = 50) the factorizations took 29–36 µs either way and
// a solve 4.0 µs simplicial against 8.6 µs supernodal; at 17 (n = 100) the
// supernodal factorization took 86–102 µs against 153–166 µs, more than six
// solves recover (10–11.5 µs against 16–17 µs). 12 lies between.
// kktSupernodalRatioSmall replaces it on small matrices.
//
// Problems with PSD blocks keep ldl's default: the tails of ill-conditioned
// SDPs depend on the rounding of the factorization, and with the simplicial
// one the SDPLIB instance hinf10 (flops/nnz between 5 and 12) ended in a
// numerical error instead of its optimum.
const kktSupernodalRatio = 12

// kktSupernodalRatioSmall is kktSupernodalRatio for KKT matrices of order
// at most kktSmallOrder, measured whole-solve against whole-solve after the
// simplicial factorization's row update became a multiplication by 1/D
// (BENCHMARKS.md, "Small problems, round 7": both rules alternated solve by
// solve in one process, the median per family and size of the per-instance
// time ratio). Simplicial was 9–21% faster at flops/nnz 12–19.5 (LP and
// SOCP families at n = 75 and 100, QP at 14.8 5%), slower from 22.7 (QP
// n = 75: 6%; n = 100 at 30.8: 54%; every family at n = 200, 33–41:
// 3–35%), even at 25–29 (n = 150). Validated on instances of another seed
// at held-out sizes (n = 60, 90, 120, with the infeasible-LP family that
// was not measured before): 13–17% faster at n = 90 (15–17.6), within ±3%
// elsewhere.
const kktSupernodalRatioSmall = 20

// kktMinimumDegreeOrder: KKT matrices of at most this order are ordered by
// exact minimum degree on a bitset elimination graph (ldl.MinimumDegree)
// instead of AMD; the symbolic analysis of a small KKT matrix otherwise costs
// several numeric factorizations, most of it AMD's quotient-graph
// bookkeeping. Measured (BENCHMARKS.md, "Small problems, round 8"): the
// factors have the same size (420 instances of six families, two seeds:
// median nnz(L) ratio to AMD 1.000, per family and size 0.993–1.006 on
// orders ≤ 256, at most 1.05), and whole solves, paired with AMD in one
// process, are 5–10% faster on orders 150–225, neutral to mixed on orders
// 300–460 (SOCPs 9–12% slower at 315–357 on held-out sizes) and slower on
// the largest (920). Validated with another seed at sizes not measured
// before (orders 45–255: LP families and SOCPs 4–12% faster, QP 0.85–1.04,
// median 0.94). 256 is four 64-bit words per node. Only for LP/QP/SOCP KKT
// matrices (symmetricNonPSD): problems with PSD or non-symmetric cones keep
// AMD, as measured before. Since round 13 also for exp-cone problems
// without PSD blocks (expNonPSD; power cones keep AMD, not measured).
const kktMinimumDegreeOrder = 256

// kktSmallOrder bounds the KKT orders of those measurements (n = 200 SOCPs
// have order about 920); above it kktSupernodalRatio applies.
const kktSmallOrder = 1000

type sparseLDL struct {
	signs     []int8
	reg       ldl.Regularization
	sym       *ldl.Symbolic
	f         *ldl.Factor
	interrupt func() bool // polled inside factorizations (cancellation, time limit)
	ratio     float64     // ldl.Options.SupernodalRatio of the analysis
}

func (s *sparseLDL) factor(upper *sparse.CSC) error {
	if s.sym == nil {
		sym, err := ldl.Analyze(upper, ldl.Options{SupernodalRatio: s.ratio})
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

// denseLDL is an O(N³) LDLᵀ factorization in the matrix's own order, without
// pivoting, with the dynamic regularization rule of the sparse one (a pivot d
// with expected sign σ and σ·d < Eps becomes σ·Delta; the KKT matrix is
// quasi-definite, so every symmetric order has an LDLᵀ factor). It replaces
// the sparse factorization on small systems (Settings.DenseKKTMaxDim): no
// ordering, no symbolic analysis, and contiguous column updates.
//
// Order: the rows with negative expected sign (the cone rows) first, then
// the positive ones (the x rows). Eliminating the cone blocks first makes the
// x block P + εI + AᵀH⁻¹A, the normal equations; the matrix's own order
// would divide A by the static regularization ε of an LP's x pivots and
// leave a badly grown −H − AᵀA/ε for refinement to repair.
//
// Storage: the lower triangle of the permuted matrix column-major in an N×N
// array, a[j·N+i] for i ≥ j; after factor, column j below the diagonal holds
// L's column j.
type denseLDL struct {
	n     int
	a     []float64
	d     []float64
	perm  []int // perm[k] is the original index of position k
	inv   []int // inv[i] is the position of original index i
	w     []float64
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
		f.w = make([]float64, n)
		f.perm = make([]int, 0, n)
		f.inv = make([]int, n)
		for _, neg := range []bool{true, false} {
			for i, sg := range f.signs {
				if (sg < 0) == neg {
					f.inv[i] = len(f.perm)
					f.perm = append(f.perm, i)
				}
			}
		}
	}
	a, inv := f.a, f.inv
	clear(a)
	f.nreg = 0
	// entry (i, j) of the upper triangle goes to the lower triangle of the
	// permuted matrix: column min(π(i), π(j)), row max(π(i), π(j))
	for j := 0; j < n; j++ {
		pj := inv[j]
		for p := upper.ColPtr[j]; p < upper.ColPtr[j+1]; p++ {
			pi := inv[upper.RowIdx[p]]
			if pi > pj {
				a[pj*n+pi] += upper.Val[p]
			} else {
				a[pi*n+pj] += upper.Val[p]
			}
		}
	}
	for j := 0; j < n; j++ {
		col := a[j*n : (j+1)*n]
		dj := col[j]
		if sg := float64(f.signs[f.perm[j]]); sg*dj < f.reg.Eps {
			dj = sg * f.reg.Delta
			f.nreg++
		}
		if math.IsNaN(dj) || math.IsInf(dj, 0) {
			return fmt.Errorf("ipm: dense LDLᵀ pivot %d is %v", j, dj)
		}
		f.d[j] = dj
		col[j] = 1
		inv := 1 / dj
		// right-looking update of the trailing columns by w = dj·l:
		// a[k][k:] −= l_k·dj·l[k:], with l = col/dj after the loop
		for k := j + 1; k < n; k++ {
			wk := col[k]
			if wk == 0 {
				continue
			}
			lk := wk * inv
			ck := a[k*n+k : (k+1)*n]
			src := col[k:n]
			for i := range ck {
				ck[i] -= lk * src[i]
			}
		}
		for i := j + 1; i < n; i++ {
			col[i] *= inv
		}
	}
	return nil
}

func (f *denseLDL) solve(dst, b []float64) {
	x := f.w
	for k, i := range f.perm {
		x[k] = b[i]
	}
	f.solvePermuted(x)
	for k, i := range f.perm {
		dst[i] = x[k]
	}
}

// solvePermuted overwrites x by (LDLᵀ)⁻¹x in the factor's order.
func (f *denseLDL) solvePermuted(dst []float64) {
	n, a := f.n, f.a
	for j := 0; j < n; j++ {
		xj := dst[j]
		if xj == 0 {
			continue
		}
		l := a[j*n+j+1 : (j+1)*n]
		x := dst[j+1 : n]
		for i, v := range l {
			x[i] -= v * xj
		}
	}
	for i := 0; i < n; i++ {
		dst[i] /= f.d[i]
	}
	for j := n - 1; j >= 0; j-- {
		l := a[j*n+j+1 : (j+1)*n]
		x := dst[j+1 : n]
		s := dst[j]
		for i, v := range l {
			s -= v * x[i]
		}
		dst[j] = s
	}
}
