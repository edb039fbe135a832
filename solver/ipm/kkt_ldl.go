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
//
// Problems with PSD blocks keep ldl's default: the tails of ill-conditioned
// SDPs depend on the rounding of the factorization, and with the simplicial
// one the SDPLIB instance hinf10 (flops/nnz between 5 and 12) ended in a
// numerical error instead of its optimum.
const kktSupernodalRatio = 12

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
