package ipm

import "math"

// jacobiSVDMaxOrder is the largest order of a PSD block whose NT scaling
// takes the one-sided Jacobi SVD (scalingFromJacobi) instead of LAPACK's
// dgesvd: every order below psdFastMinOrder, where the Gram route starts.
// Measured (instructions per scaling, random pairs of condition 10⁶,
// BenchmarkScalingRoutes under valgrind): order 4 19k against dgesvd's 39k,
// 6 53k against 81k, 10 207k against 244k, 16 778k against 740k: cheaper
// up to about order 12, 5% dearer at 16; a lower cutoff was not
// tried, as every change of a scaling's rounding moves the hinf iterates
// (BENCHMARKS.md, "SDPs, round 8").
const jacobiSVDMaxOrder = psdFastMinOrder - 1

// jacobiMaxSweeps bounds the cyclic sweeps of jacobiSVD; quadratic
// convergence makes 6–10 the usual count at the orders it serves.
const jacobiMaxSweeps = 40

// jacobiSVD computes the singular value decomposition M = UΣVᵀ of the n×n
// matrix M by one-sided (Hestenes) Jacobi rotations, as analysed by Demmel
// & Veselić (SIAM J. Matrix Anal. Appl. 13(4), 1992) and used by LAPACK's
// dgesvj (Drmač & Veselić, SIAM J. Matrix Anal. Appl. 29(4), 2008).
//
// On entry the rows of a (row-major, stride n) are the columns of M, i.e.
// a holds Mᵀ; vt is workspace. Cyclic sweeps rotate pairs of columns
// (m_p, m_q) of M and of V by the rotation that makes them orthogonal,
// skipping a pair whose cosine |m_pᵀm_q|/(‖m_p‖‖m_q‖) is already below
// n·ε, until a sweep rotates nothing. Then MV has orthogonal columns
// m_i = σᵢuᵢ. On return sig holds σ₁ ≥ … ≥ σₙ, the rows of a hold uᵢᵀ
// (so a = Uᵀ) and the rows of vt hold vᵢᵀ (vt = Vᵀ), permuted to that
// order. The singular values carry relative errors of order
// ε·cond(M·D⁻¹), D the column norms — at least as accurate as dgesvd's
// absolute error ε‖M‖ — and U is orthonormal to O(nε) by the stopping test.
// It reports false when a σᵢ is not positive or the sweeps do not stop.
func jacobiSVD(n int, a, vt, sig []float64) bool {
	for i := range vt[:n*n] {
		vt[i] = 0
	}
	for i := 0; i < n; i++ {
		vt[i*n+i] = 1
	}
	tol := float64(n) * 0x1p-53
	converged := false
	for sweep := 0; sweep < jacobiMaxSweeps && !converged; sweep++ {
		converged = true
		for i := 0; i < n; i++ {
			ai := a[i*n : i*n+n]
			sig[i] = dotUnitary(ai, ai)
		}
		for p := 0; p < n-1; p++ {
			ap, vp := a[p*n:p*n+n], vt[p*n:p*n+n]
			for q := p + 1; q < n; q++ {
				aq := a[q*n : q*n+n]
				alpha, beta := sig[p], sig[q]
				gamma := dotUnitary(ap, aq)
				if !(math.Abs(gamma) > tol*math.Sqrt(alpha)*math.Sqrt(beta)) {
					if math.IsNaN(gamma) {
						return false
					}
					continue
				}
				converged = false
				zeta := (beta - alpha) / (2 * gamma)
				t := 1 / (math.Abs(zeta) + math.Sqrt(1+zeta*zeta))
				if zeta < 0 {
					t = -t
				}
				c := 1 / math.Sqrt(1+t*t)
				s := c * t
				rotateRows(ap, aq, c, s)
				rotateRows(vp, vt[q*n:q*n+n], c, s)
				// the updated squared norms α − tγ, β + tγ; the one that
				// shrinks loses digits to cancellation, and a too large
				// norm would pass later pairs as orthogonal: recompute it
				if np := alpha - t*gamma; np >= alpha/4 {
					sig[p] = np
				} else {
					sig[p] = dotUnitary(ap, ap)
				}
				if nq := beta + t*gamma; nq >= beta/4 {
					sig[q] = nq
				} else {
					sig[q] = dotUnitary(aq, aq)
				}
			}
		}
	}
	if !converged {
		return false
	}
	for i := 0; i < n; i++ {
		ai := a[i*n : i*n+n]
		s := math.Sqrt(dotUnitary(ai, ai))
		if !(s > 0) || math.IsInf(s, 0) {
			return false
		}
		sig[i] = s
		f := 1 / s
		for k := range ai {
			ai[k] *= f
		}
	}
	// descending order (selection sort on rows: n ≤ jacobiSVDMaxOrder)
	for i := 0; i < n-1; i++ {
		k := i
		for j := i + 1; j < n; j++ {
			if sig[j] > sig[k] {
				k = j
			}
		}
		if k != i {
			sig[i], sig[k] = sig[k], sig[i]
			swapRows(a[i*n:i*n+n], a[k*n:k*n+n])
			swapRows(vt[i*n:i*n+n], vt[k*n:k*n+n])
		}
	}
	return true
}

func dotUnitary(x, y []float64) float64 {
	y = y[:len(x)]
	var s0, s1 float64
	k := 0
	for ; k+2 <= len(x); k += 2 {
		s0 += x[k] * y[k]
		s1 += x[k+1] * y[k+1]
	}
	if k < len(x) {
		s0 += x[k] * y[k]
	}
	return s0 + s1
}

func swapRows(x, y []float64) {
	for k := range x {
		x[k], y[k] = y[k], x[k]
	}
}

// scalingFromJacobi sets λ, R and R⁻¹ from the SVD M = L₂ᵀL₁ = UΣVᵀ
// (c.m1, overwritten) computed by jacobiSVD: the same factors as
// scalingFromSVD,
//
//	R = L₁VΣ^{-1/2},  R⁻¹ = Σ^{-1/2}UᵀL₂ᵀ = Σ^{-1/2}(L₂U)ᵀ,
//
// up to the signs of the singular vector pairs (which leave R Rᵀ, R⁻ᵀR⁻¹
// and the scaled point Λ unchanged) and rounding. It reports false when
// jacobiSVD does.
func (c *psdCone) scalingFromJacobi() bool {
	n := c.n
	if c.svd == nil {
		c.svd = newSVDWork(n)
	}
	w := c.svd
	// a = Mᵀ (rows = columns of M), in w.u's storage
	m := c.m1.RawMatrix()
	a := w.u.Data
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			a[j*n+i] = m.Data[i*m.Stride+j]
		}
	}
	if !jacobiSVD(n, a, w.vt.Data, w.s) {
		return false
	}
	copy(c.lam, w.s)
	rr, ri := c.r.RawMatrix(), c.rinv.RawMatrix()
	// R = L₁V: V's columns are the rows of vt
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			rr.Data[j*rr.Stride+i] = w.vt.Data[i*n+j]
		}
	}
	l1, l2 := c.l1.RawTriangular(), c.l2.RawTriangular()
	trmmLeftLower(false, n, n, l1.Data, l1.Stride, rr.Data, rr.Stride)
	// L₂U in m1 (U's columns are the rows of a), then R⁻¹ = (L₂U)ᵀ
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			m.Data[j*m.Stride+i] = a[i*n+j]
		}
	}
	trmmLeftLower(false, n, n, l2.Data, l2.Stride, m.Data, m.Stride)
	for i := 0; i < n; i++ {
		f := 1 / math.Sqrt(w.s[i])
		for j := 0; j < n; j++ {
			rr.Data[j*rr.Stride+i] *= f
			ri.Data[i*ri.Stride+j] = m.Data[j*m.Stride+i] * f
		}
	}
	return true
}
