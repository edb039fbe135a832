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
// columns, about three stored entries each) the Go loop spent about 140
// instructions per column on slice headers and bounds, the assembly spends
// about 40 (BENCHMARKS.md, "Small exp-cone solves: factorization and
// refinement, round 13").
func (ks *kktSystem) mulKFast(out, x []float64, from, to int) bool {
	if from >= to || !ks.fastK() {
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

// fastK reports whether the assembly products (mulKColsAsm,
// absMulKColsAsm) apply to the KKT matrix: on x86-64, when every column
// stores its diagonal last. The answer and the signs as float64 (signf) are
// computed on the first call (the pattern of ks.k is fixed after newKKT).
func (ks *kktSystem) fastK() bool {
	if !haveMulKAsm {
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
	return ks.diagLast
}

// setNonsymBlock writes the 3×3 block −(H + εI) of an exponential or power
// cone (H = h, row-major) into the KKT values v at the positions dense (the
// upper triangle column by column) and diag: update's loop over denseH's
// copy, unrolled, with the same stores in the same order (each diagonal
// entry is written, then has ε subtracted).
func setNonsymBlock(v []float64, dense, diag []int, h *[9]float64, eps float64) {
	dense, diag = dense[:6], diag[:3]
	v[dense[0]] = -h[0]
	v[diag[0]] -= eps
	v[dense[1]] = -h[3]
	v[dense[2]] = -h[4]
	v[diag[1]] -= eps
	v[dense[3]] = -h[6]
	v[dense[4]] = -h[7]
	v[dense[5]] = -h[8]
	v[diag[2]] -= eps
}

// expNonPSD reports whether every cone is zero, nonnegative, second-order
// or exponential, with at least one exponential cone: the problems on which
// kktMinimumDegreeOrder's rule was measured after symmetricNonPSD's
// (BENCHMARKS.md, "Small exp-cone solves: factorization and refinement,
// round 13": the bench/smallconic exp and entropy families at n = 10–200,
// 100 instances, every status the same, objectives within 3·10⁻⁹
// relative, 1,800 iterations against 1,797 with AMD; the CBLIB exp-cone
// instances with the same statuses and iteration counts; 2% fewer
// instructions per iteration at n = 50, the ordering's own cost).
func expNonPSD(cones []conic) bool {
	exp := false
	for _, c := range cones {
		switch c := c.(type) {
		case *zeroCone, *nonnegCone, *socCone:
		case *nonsymCone:
			if _, ok := c.f.(expBarriers); !ok {
				return false
			}
			exp = true
		default:
			return false
		}
	}
	return exp
}
