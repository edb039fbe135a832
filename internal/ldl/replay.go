package ldl

// The simplicial factorization replayed over a schedule recorded once.
//
// The pattern of every row of L (rowPat, in the order the up-looking method
// visits it) and the position in (li, lx) of each of its entries (lpos)
// depend on the analyzed structure only, so the first factorization records
// them and later ones with signs (the quasi-definite KKT matrices of the
// interior-point solvers) run as one straight loop over that schedule: no
// elimination-tree traversal, no fill counts, and the sign test and inertia
// count out of the row loop. The operations and their order are those of the
// recording run, so the factor is the same to the last bit (TestNumericReplay
// compares both forms bit for bit). On x86-64 the loop runs in assembly
// (numericRowsAsm): on KKT matrices of a few hundred columns with about three
// entries per column of L the Go loop spends most of its instructions on
// slice bounds and reloads, not on the arithmetic (BENCHMARKS.md, "Small
// exp-cone solves: factorization and refinement, round 13").

// numericReplay refactors C = P K Pᵀ over the recorded schedule (f.rowPat,
// f.rowPtr, f.lpos), with signs: row k's pivot d with sg[k]·d < Eps (or not
// a number) becomes sg[k]·Delta. The interrupt is polled every 256 rows,
// as in numeric.
func (f *Factor) numericReplay() error {
	s := f.sym
	n := s.n
	interrupt := s.interrupt
	f.dynReg = 0
	for k0 := 0; k0 < n; k0 += 256 {
		if interrupt != nil && interrupt() {
			return ErrInterrupted // y is all zero between rows
		}
		k1 := min(n, k0+256)
		if haveSimplicialAsm {
			f.dynReg += numericRowsAsm(k0, k1, &s.cp[0], sliceBase(s.ci), sliceBase(f.cx),
				&f.rowPtr[0], sliceBase(f.rowPat), sliceBase(f.lpos), &s.lp[0], sliceBase(f.li),
				sliceBase(f.lx), &f.y[0], &f.dinv[0], &f.d[0], &f.sg[0], f.reg.Eps, f.reg.Delta)
		} else {
			f.dynReg += f.numericRowsGo(k0, k1)
		}
	}
	f.pos, f.neg, f.zero = 0, 0, 0
	for _, dk := range f.d[:n] {
		switch {
		case dk > 0:
			f.pos++
		case dk < 0:
			f.neg++
		default:
			f.zero++
		}
	}
	return nil
}

// numericRowsGo is numericRowsAsm in Go: rows k0 ≤ k < k1 of the replay;
// it returns the number of regularized pivots.
func (f *Factor) numericRowsGo(k0, k1 int) int {
	s := f.sym
	cp, ci, cx := s.cp, s.ci, f.cx
	lp, li, lx := s.lp, f.li, f.lx
	rowPtr, rowPat, lpos := f.rowPtr, f.rowPat, f.lpos
	y, dinv, d, sg := f.y, f.dinv, f.d, f.sg
	eps, delta := f.reg.Eps, f.reg.Delta
	nreg := 0
	for k := k0; k < k1; k++ {
		for p := cp[k]; p < cp[k+1]; p++ {
			y[ci[p]] += cx[p]
		}
		dk := y[k]
		y[k] = 0
		for t := rowPtr[k]; t < rowPtr[k+1]; t++ {
			i, p1 := rowPat[t], lpos[t]
			yi := y[i]
			y[i] = 0
			for p := lp[i]; p < p1; p++ {
				y[li[p]] -= lx[p] * yi
			}
			lki := yi * dinv[i]
			dk -= lki * yi
			lx[p1] = lki
		}
		if !(sg[k]*dk >= eps) {
			dk = sg[k] * delta
			nreg++
		}
		d[k] = dk
		dinv[k] = 1 / dk
	}
	return nreg
}

// sliceBase returns &v[0], or nil for an empty slice (the assembly forms
// read no element of an empty array).
func sliceBase[T any](v []T) *T {
	if len(v) == 0 {
		return nil
	}
	return &v[0]
}
