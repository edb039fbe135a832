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
}

// ------------------------------------------------------------ sparse LDLᵀ

type sparseLDL struct {
	signs []int8
	reg   ldl.Regularization
	sym   *ldl.Symbolic
	f     *ldl.Factor
}

func (s *sparseLDL) factor(upper *sparse.CSC) error {
	if s.sym == nil {
		sym, err := ldl.Analyze(upper, ldl.Options{})
		if err != nil {
			return err
		}
		s.sym = sym
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
	p1, p2 int   // columns of the extra rows (expanded SOC)
	p1pos  []int // positions of η·v in column p1, then the diagonal
	p2pos  []int // positions of η·u in column p2, then the diagonal
	buf    []float64
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
type kktSystem struct {
	n, m, dim int
	k         *sparse.CSC
	signs     []int8
	pdiag     []int     // diagonal positions of the x columns
	pdiagVal  []float64 // P's diagonal
	slots     []coneSlot
	eps       float64 // static regularization
	solver    kktSolver
	refine    int
	// workspaces
	rhs, res, dx []float64
}

func newKKT(p, a *sparse.CSC, cones []conic, set *Settings) (*kktSystem, error) {
	n, m := a.Cols, a.Rows
	nexp := 0
	for _, c := range cones {
		if sc, ok := c.(*socCone); ok && sc.d > set.SOCExpandDim {
			nexp++
		}
	}
	dim := n + m + 2*nexp
	ks := &kktSystem{n: n, m: m, dim: dim, signs: make([]int8, dim), refine: set.RefineSteps}
	if set.DisableRefinement {
		ks.refine = 0
	}
	at := a.Transpose()
	// count entries
	nnz := n + m + 2*nexp
	if p != nil {
		nnz += p.Nnz()
	}
	nnz += a.Nnz()
	for _, c := range cones {
		switch c.(type) {
		case *zeroCone, *nonnegCone:
		default:
			d := c.dim()
			if sc, ok := c.(*socCone); ok && sc.d > set.SOCExpandDim {
				nnz += 2 * d
			} else {
				nnz += d * (d - 1) / 2
			}
		}
	}
	k := &sparse.CSC{Rows: dim, Cols: dim, ColPtr: make([]int, dim+1), RowIdx: make([]int, 0, nnz), Val: make([]float64, 0, nnz)}
	ks.pdiag = make([]int, n)
	ks.pdiagVal = make([]float64, n)
	for j := 0; j < n; j++ {
		hasDiag := false
		if p != nil {
			for q := p.ColPtr[j]; q < p.ColPtr[j+1]; q++ {
				i := p.RowIdx[q]
				if i == j {
					hasDiag = true
					ks.pdiag[j] = len(k.Val)
					ks.pdiagVal[j] = p.Val[q]
				}
				k.RowIdx = append(k.RowIdx, i)
				k.Val = append(k.Val, p.Val[q])
			}
		}
		if !hasDiag {
			ks.pdiag[j] = len(k.Val)
			k.RowIdx = append(k.RowIdx, j)
			k.Val = append(k.Val, 0)
		}
		k.ColPtr[j+1] = len(k.Val)
		ks.signs[j] = 1
	}
	ks.slots = make([]coneSlot, len(cones))
	off := 0
	for ci, c := range cones {
		d := c.dim()
		sl := coneSlot{c: c, off: off, diag: make([]int, d)}
		sc, isSOC := c.(*socCone)
		_, isZero := c.(*zeroCone)
		_, isNN := c.(*nonnegCone)
		sl.expand = isSOC && sc.d > set.SOCExpandDim
		diagOnly := isZero || isNN || sl.expand
		if !diagOnly {
			sl.dense = make([]int, 0, d*(d+1)/2)
			sl.buf = make([]float64, d*d)
		}
		for jj := 0; jj < d; jj++ {
			row := off + jj
			col := n + row
			for q := at.ColPtr[row]; q < at.ColPtr[row+1]; q++ {
				k.RowIdx = append(k.RowIdx, at.RowIdx[q])
				k.Val = append(k.Val, at.Val[q])
			}
			if !diagOnly {
				for ii := 0; ii <= jj; ii++ {
					sl.dense = append(sl.dense, len(k.Val))
					k.RowIdx = append(k.RowIdx, n+off+ii)
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
		ks.slots[ci] = sl
		off += d
	}
	col := n + m
	for ci := range ks.slots {
		sl := &ks.slots[ci]
		if !sl.expand {
			continue
		}
		d := sl.c.dim()
		sl.p1, sl.p2 = col, col+1
		for pass, pos := range []*[]int{&sl.p1pos, &sl.p2pos} {
			*pos = make([]int, d+1)
			for ii := 0; ii < d; ii++ {
				(*pos)[ii] = len(k.Val)
				k.RowIdx = append(k.RowIdx, n+sl.off+ii)
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
	// static regularization: constant + proportional to the largest diagonal
	var maxd float64
	for j := 0; j < n; j++ {
		maxd = math.Max(maxd, math.Abs(ks.pdiagVal[j]))
	}
	ks.eps = set.StaticReg + set.StaticRegProportional*maxd
	reg := ldl.Regularization{Eps: set.DynamicRegEps, Delta: set.DynamicRegDelta}
	if set.DenseKKT {
		ks.solver = &denseLDL{signs: ks.signs, reg: reg}
	} else {
		ks.solver = &sparseLDL{signs: ks.signs, reg: reg}
	}
	ks.rhs = make([]float64, dim)
	ks.res = make([]float64, dim)
	ks.dx = make([]float64, dim)
	for j := 0; j < n; j++ {
		k.Val[ks.pdiag[j]] = ks.pdiagVal[j] + ks.eps
	}
	return ks, nil
}

// update writes the current cone scalings into the matrix and refactors it.
func (ks *kktSystem) update() error {
	v := ks.k.Val
	eps := ks.eps
	for ci := range ks.slots {
		sl := &ks.slots[ci]
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

// mulK computes out = K₀·x with K₀ the unregularized KKT matrix (the stored
// one minus ε·signs on the diagonal), from the upper triangle.
func (ks *kktSystem) mulK(out, x []float64) {
	k := ks.k
	clear(out)
	for j := 0; j < k.Cols; j++ {
		xj := x[j]
		var s float64
		for p := k.ColPtr[j]; p < k.ColPtr[j+1]; p++ {
			i := k.RowIdx[p]
			a := k.Val[p]
			if i == j {
				if j < ks.n+ks.m {
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

// solve solves K₀·x = b with the regularized factorization and iterative
// refinement (at most ks.refine steps, stopping when the residual is at
// round-off level).
func (ks *kktSystem) solve(x, b []float64) {
	ks.solver.solve(x, b)
	if ks.refine == 0 {
		return
	}
	nb := normInf(b)
	tol := 1e-12 + 1e-13*nb
	prev := math.Inf(1)
	for it := 0; it < ks.refine; it++ {
		ks.mulK(ks.res, x)
		for i := range ks.res {
			ks.res[i] = b[i] - ks.res[i]
		}
		r := normInf(ks.res)
		if r > prev {
			// the last correction made things worse: undo it
			for i := range x {
				x[i] -= ks.dx[i]
			}
			break
		}
		if r <= tol || !(r < prev/2) {
			// converged, or no longer improving
			break
		}
		prev = r
		ks.solver.solve(ks.dx, ks.res)
		for i := range x {
			x[i] += ks.dx[i]
		}
	}
}
