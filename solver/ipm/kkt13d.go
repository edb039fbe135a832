package ipm

// mulKFast runs mulKCols(out, x, from, to) in assembly when every column of
// the KKT matrix stores its diagonal last (the upper triangle with sorted
// rows and the diagonal in the pattern, as newKKT builds it) and reports
// whether it did. The assembly form (mulKColsAsm) performs mulKCols'
// operations in its order — per column j: out[i] += a·x_j and s += a·x_i
// over the entries above the diagonal, then out[j] += (K_jj − ε·σ_j)·x_j and
// out[j] += s, σ_j the expected pivot sign of the x and z rows and 0 for
// the extra rows — so the product is the same to the last bit
// (TestMulKFast). On the KKT matrices of small exp-cone problems (160
// columns, about three stored entries each) the Go loop spends about 140
// instructions per column on slice headers and bounds, the assembly about
// 30 (BENCHMARKS.md, "Small exp-cone solves: factorization and refinement,
// round 13").
func (ks *kktSystem) mulKFast(out, x []float64, from, to int) bool {
	if !haveMulKAsm || from >= to {
		return false
	}
	if ks.signf == nil {
		k := ks.k
		ok := true
		for j := 0; j < k.Cols && ok; j++ {
			hi := k.ColPtr[j+1]
			ok = hi > k.ColPtr[j] && k.RowIdx[hi-1] == j
		}
		ks.diagLast = ok
		ks.signf = make([]float64, k.Cols)
		for j := 0; j < ks.n+ks.mr; j++ {
			ks.signf[j] = float64(ks.signs[j])
		}
	}
	if !ks.diagLast {
		return false
	}
	k := ks.k
	_, _ = out[to-1], x[to-1]
	if len(out) < k.Cols || len(x) < k.Cols {
		return false
	}
	mulKColsAsm(&out[0], &x[0], from, to, &k.ColPtr[0], &k.RowIdx[0], &k.Val[0], &ks.signf[0], ks.eps)
	return true
}
