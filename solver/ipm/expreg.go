package ipm

import "math"

// expSolveAtFloor reports whether the relative residual e of the constant
// KKT solve of this iteration (the solve factor makes right after the
// factorization: w.sol for the right-hand side w.rhs; adaptStaticReg's e is
// its residual) lies within expFloorFactor times the round-off of
// computing that residual. The computed residual b − K₀x carries an error
// of up to γ·(|b| + |K₀||x|) row by row (Higham, Accuracy and Stability of
// Numerical Algorithms, 2nd ed., §3.5 and §12.1: the residual of a
// backward-stable solve is at this level, whatever the solver); no smaller
// static regularization ε can bring a measured residual below it, so a
// descent of ε (adaptStaticReg) started by such a residual only costs
// factorizations. Near the optimum of an exponential-cone problem the
// scaling blocks grow like 1/μ (entries 10⁹ at μ = 10⁻⁸) and the residuals
// of well-solved systems reach 10⁻⁹, above kktSolveTol.
//
// Only for the class of nonsymEarly (well-scaled problems with exp or power
// cones and no PSD block) and only without eliminated blocks (the constant
// solve's vector then has the matrix's layout).
func (w *workspace) expSolveAtFloor(e float64) bool {
	ks := w.kkt
	if !w.nonsymEarly || len(ks.elims) > 0 || len(w.sol) != ks.dim {
		return false
	}
	f := ks.expAbsResidualBound(w.sol, w.rhs)
	return e <= expFloorFactor*f
}

// expFloorFactor: a residual up to this multiple of the componentwise
// round-off bound u·max_i(|b| + |K₀||x|)_i/(1 + ‖b‖∞) counts as round-off
// (expSolveAtFloor). The rigorous bound has γ_k = k·u/(1 − k·u) with k the
// entries of a row; 10 stands for the few entries per row of these KKT
// matrices (3 per exp block, plus A's column).
const expFloorFactor = 10

// expAbsResidualBound returns u·max_i(|b_i| + (|K₀||x|)_i)/(1 + ‖b‖∞), u the
// unit round-off 2⁻⁵³, with K₀ the unregularized matrix as in mulK (upper
// triangle stored, applied symmetrically). It costs one pass over the
// matrix, like mulK.
func (ks *kktSystem) expAbsResidualBound(x, b []float64) float64 {
	k := ks.k
	out := ks.res
	clear(out)
	nz := ks.n + ks.mr
	cols := k.Cols
	if cols > 0 && len(x) >= cols && len(out) >= cols && ks.fastK() {
		// the loop below in assembly (same operations, same order)
		absMulKColsAsm(&out[0], &x[0], cols, &k.ColPtr[0], &k.RowIdx[0], &k.Val[0], &ks.signf[0], ks.eps)
		cols = 0
	}
	for j := 0; j < cols; j++ {
		xj := math.Abs(x[j])
		for p := k.ColPtr[j]; p < k.ColPtr[j+1]; p++ {
			i := k.RowIdx[p]
			a := k.Val[p]
			if i == j {
				if j < nz {
					a -= ks.eps * float64(ks.signs[j])
				}
				out[j] += math.Abs(a) * xj
				continue
			}
			a = math.Abs(a)
			out[i] += a * xj
			out[j] += a * math.Abs(x[i])
		}
	}
	var m, nb float64
	for i, v := range out {
		ab := math.Abs(b[i])
		m = max(m, v+ab)
		nb = max(nb, ab)
	}
	return 0x1p-53 * m / (1 + nb)
}
