package ipm

// sdpxBase is the pattern of the x-block of the reduced KKT matrix without
// its Schur complement terms: for every x column j, the positions q of the
// stored matrix (ks.k) in colPtr[j]..colPtr[j+1] of pos whose value in
// ks.xbase (P and the static regularization) is nonzero, and the diagonal.
// Built once by sdpxBaseOf: the x-block's values other than the diagonal
// never change after newKKT (setStaticReg moves the diagonal only).
type sdpxBase struct {
	colPtr []int
	pos    []int
}

// sdpxBaseOf builds ks.sdpxb on first use.
func (ks *kktSystem) sdpxBaseOf() *sdpxBase {
	if ks.sdpxb != nil {
		return ks.sdpxb
	}
	k := ks.k
	b := &sdpxBase{colPtr: make([]int, ks.n+1)}
	for j := 0; j < ks.n; j++ {
		for q := k.ColPtr[j]; q < k.ColPtr[j+1]; q++ {
			if ks.xbase[q] != 0 || k.RowIdx[q] == j {
				b.pos = append(b.pos, q)
			}
		}
		b.colPtr[j+1] = len(b.pos)
	}
	ks.sdpxb = b
	return b
}

// sdpxMulReducedExact computes out = K_red·xr for the reduced unregularized
// system with every Schur complement applied exactly, as mulReducedExact
// does, without the assembled Schur complements: mulReducedExact forms the
// stored matrix's product (mulK, the x-block's dense Schur entries
// included) and subtracts the assembled A_pᵀH_p⁻¹A_p·x_c again (mulSC), two
// products with each dense nc×nc block that cancel; here the x columns are
// multiplied by their values without the Schur terms (ks.xbase on the
// pattern sdpxBase), the other columns as in mulK, and the blocks' exact
// products A_pᵀ(H_p⁻¹(A_p x)) added. The same operator, without the
// cancellation (its rounding, of the order of the unit roundoff times
// ‖A_pᵀH_p⁻¹A_p‖·‖x‖, is gone) and without 2·nc² multiply-adds per block.
func (ks *kktSystem) sdpxMulReducedExact(out, xr []float64) {
	k, base := ks.k, ks.sdpxBaseOf()
	n := ks.n
	clear(out)
	for j := 0; j < n; j++ {
		xj := xr[j]
		var s float64
		for _, q := range base.pos[base.colPtr[j]:base.colPtr[j+1]] {
			i, a := k.RowIdx[q], ks.xbase[q]
			if i == j {
				a -= ks.eps * float64(ks.signs[j])
				out[j] += a * xj
				continue
			}
			out[i] += a * xj
			s += a * xr[i]
		}
		out[j] += s
	}
	ks.mulKCols(out, xr, n, k.Cols)
	for _, eb := range ks.elims {
		if len(eb.cols) == 0 {
			continue
		}
		eb.exactProduct(xr, ks.identity)
		for c, j := range eb.cols {
			out[j] += eb.xt[c]
		}
	}
}

// sdpxExactBase selects sdpxMulReducedExact for mulReducedExact (a variable
// so that the tests can compare the two).
var sdpxExactBase = true
