package ipm

import "math"

// Multiple centrality correctors (Gondzio, "Multiple centrality corrections
// in a primal-dual method for linear programming", Comput. Optim. Appl. 6,
// 1996; Colombo & Gondzio, "Further development of multiple centrality
// correctors for interior point methods", Comput. Optim. Appl. 41, 2008),
// carried over to the symmetric cones through the Jordan algebra of the
// Nesterov–Todd scaled point, whose spectral decomposition plays the part of
// the componentwise products of linear programming (as in the spectral
// neighbourhoods of Alizadeh, Haeberly & Overton, SIAM J. Optim. 8, 1998):
//
// With the Mehrotra direction Δ and its step α, the trial step is
// α̃ = min(1, α + corrDelta), and the complementarity products of the trial
// point are the Jordan product
//
//	v = W⁻ᵀ(s + α̃Δs) ∘ W(z + α̃Δz)   (and τ̃κ̃ for the embedding's pair)
//
// with spectral decomposition v = Σᵢ vᵢcᵢ. The eigenvalues outside the box
// [corrBetaMin·σμ, corrBetaMax·σμ] are moved onto it, decreases capped at
// corrBetaMax·σμ (Gondzio 1996, Section 3):
//
//	t = Σᵢ tᵢcᵢ,  tᵢ = clampCorrection(vᵢ).
//
// The corrector Δc solves the Newton system with the factorization of the
// iteration, zero residual rows and the complementarity row
// λ∘(WΔz_c + W⁻ᵀΔs_c) = t (κΔτ_c + τΔκ_c = t_τκ for the pair). Δ + Δc
// replaces Δ when its step is at least α + corrGamma·corrDelta (Gondzio's
// acceptance test); at most corrMax correctors are tried. Only the outliers
// of the spectrum are moved, towards the central path, which lengthens the
// steps that a point close to the boundary of one cone shortens.
//
// A corrector costs one KKT solve, one symmetric eigendecomposition and a
// few n×n products per PSD block of order n, about 20n³ multiply-adds. It
// pays where the Schur complement assembly dominates an iteration, see
// correctorCount; the second one only where it dominates more clearly
// (corrSecondRatio). The measurements are in BENCHMARKS.md ("IPM
// termination rules"). corrDelta, corrGamma, corrBetaMin and corrBetaMax
// are the values of Gondzio (1996, Section 5: aspiration δ = 0.1,
// acceptance γ = 0.1, box [0.1σμ, 10σμ]), not tuned here; corrMax = 2 is
// the largest count whose cost (two solves and eigendecompositions) stays
// below one Schur assembly where corrSecondRatio admits the second.
const (
	corrMax     = 2
	corrDelta   = 0.1
	corrGamma   = 0.1
	corrBetaMin = 0.1
	corrBetaMax = 10
)

// corrCostRatio: the centrality correctors are used when the estimated
// multiply-adds of one Schur complement assembly are at least this multiple
// of Σ n³ over the PSD blocks (correctorCount): above it the iterations they
// save cost less than the correctors' eigendecompositions and products,
// below it more. Derived as the break-even: a corrector costs about Σ n³
// (its eigendecompositions and products), and it pays when it saves at
// least its own cost of assembly work (the measurements around the
// break-even are in BENCHMARKS.md).
const corrCostRatio = 1

// corrSecondRatio: the second corrector (corrMax) is tried only when the
// assembly-to-Σn³ ratio of correctorCount is at least this: below it a
// corrector's eigendecomposition and products cost about as much as the
// assembly they are meant to save. Derived: two correctors cost 2Σ n³, so
// the ratio at which the second breaks even is twice corrCostRatio
// (BENCHMARKS.md).
const corrSecondRatio = 2

// correctorCount is the number of centrality correctors tried per
// iteration. None unless the problem has only symmetric cones, at least one
// PSD block is eliminated into a Schur complement (kktSystem), and the
// estimated cost of one assembly (fknPlan.cost for the sparse rule,
// denseSchurCost for the dense one) is at least corrCostRatio·Σ n³ over the
// PSD blocks; one when it is below corrSecondRatio·Σ n³, else corrMax.
// Problems whose PSD blocks all stay in the KKT matrix (eliminatePSD: blocks
// touching more than 2d columns) are left without correctors.
func (w *workspace) correctorCount() int {
	if w.nonsym || len(w.kkt.elims) == 0 {
		return 0
	}
	var asm, n3 float64
	for _, eb := range w.kkt.elims {
		if eb.plan != nil {
			asm += eb.plan.cost
		} else {
			asm += denseSchurCost(eb.cone.n, len(eb.cols))
		}
	}
	for _, c := range w.cones {
		if pc, ok := c.(*psdCone); ok {
			n3 += math.Pow(float64(pc.n), 3)
		}
	}
	switch {
	case !(asm >= corrCostRatio*n3):
		return 0
	case asm < corrSecondRatio*n3:
		return 1
	}
	return corrMax
}

// centralityCorrect applies the multiple centrality correctors to the
// combined direction in w.dx, w.ds, w.dz, w.dtau, w.dkappa with step a and
// centring target sm = σμ, and returns the step of the direction it leaves
// there (a or longer). Symmetric cones only.
func (w *workspace) centralityCorrect(a, sm float64) float64 {
	if w.corrS == nil {
		m, n := w.m, w.n
		w.corrS, w.corrZ, w.corrV = make([]float64, m), make([]float64, m), make([]float64, m)
		w.corrX0, w.corrZ0 = make([]float64, n), make([]float64, m)
		w.corrPSD = make([]psdTargetWork, len(w.cones))
		if w.dxKeep == nil {
			w.dxKeep, w.dsKeep, w.dzKeep = make([]float64, n), make([]float64, m), make([]float64, m)
		}
	}
	lo, hi := corrBetaMin*sm, corrBetaMax*sm
	for k := 0; k < w.correctors && a < 1; k++ {
		at := math.Min(1, a+corrDelta)
		for i := range w.s {
			w.corrS[i] = w.s[i] + at*w.ds[i]
			w.corrZ[i] = w.z[i] + at*w.dz[i]
		}
		for i, c := range w.cones {
			v := w.block(w.corrV, i)
			c.combinedDsShift(v, w.block(w.corrZ, i), w.block(w.corrS, i), 0)
			if !centralityTarget(c, &w.corrPSD[i], v, lo, hi) {
				return a
			}
		}
		tk := clampCorrection((w.tau+at*w.dtau)*(w.kappa+at*w.dkappa), lo, hi)
		// solveNewton's complementarity rows read λ∘(WΔz + W⁻ᵀΔs) = −dS
		for i := range w.corrV {
			w.corrV[i] = -w.corrV[i]
		}
		w.keepStep()
		if !w.solveNewton(w.corrX0, w.corrZ0, 0, w.corrV, -tk) {
			w.restoreStep()
			return a
		}
		for j := range w.dx {
			w.dx[j] += w.dxKeep[j]
		}
		for i := range w.ds {
			w.ds[i] += w.dsKeep[i]
			w.dz[i] += w.dzKeep[i]
		}
		w.dtau += w.dtauKeep
		w.dkappa += w.dkappaKeep
		a2 := w.stepLength(1)
		if !(a2 >= a+corrGamma*corrDelta) {
			w.restoreStep()
			return a
		}
		a = a2
	}
	return a
}

// clampCorrection returns the move of an eigenvalue v of the trial
// products onto the box [lo, hi], a decrease capped at hi (Gondzio 1996,
// Section 3):
//
//	lo − v if v < lo;  max(hi − v, −hi) if v > hi;  0 otherwise.
func clampCorrection(v, lo, hi float64) float64 {
	switch {
	case v < lo:
		return lo - v
	case v > hi:
		return math.Max(hi-v, -hi)
	}
	return 0
}

// centralityTarget overwrites the Jordan product v of a trial point in cone c
// with the corrector target t = Σᵢ clampCorrection(vᵢ)cᵢ over the spectral
// decomposition v = Σᵢ vᵢcᵢ: componentwise for the orthant; with
// vᵢ = v₀ ± ‖v̄‖, cᵢ = ½(1, ±v̄/‖v̄‖) for the second-order cone; with the
// eigendecomposition of mat(v) for the PSD cone (ws: its workspace); zero
// for the zero cone. It reports false for the non-symmetric cones and a
// failed eigendecomposition.
func centralityTarget(c conic, ws *psdTargetWork, v []float64, lo, hi float64) bool {
	switch cc := c.(type) {
	case *zeroCone:
		clear(v)
	case *nonnegCone:
		for i := range v {
			v[i] = clampCorrection(v[i], lo, hi)
		}
	case *socCone:
		nb := norm2(v[1:])
		t1 := clampCorrection(v[0]+nb, lo, hi)
		t2 := clampCorrection(v[0]-nb, lo, hi)
		v[0] = (t1 + t2) / 2
		f := 0.0
		if nb > 0 {
			f = (t1 - t2) / (2 * nb)
		}
		for i := 1; i < len(v); i++ {
			v[i] *= f
		}
	case *psdCone:
		return psdTarget(ws, v, cc.n, lo, hi)
	default:
		return false
	}
	return true
}

// psdTargetWork is the per-block workspace of psdTarget.
type psdTargetWork struct {
	eig     *symEigWork
	a, vals []float64
	t       []float64
	idx     []int
	chk     []float64 // n×n workspace of inBox
}

// inBox reports whether every eigenvalue of the symmetric V (upper triangle
// of the row-major n×n a) certainly lies in [lo, hi], so that psdTarget's
// target is zero without the eigendecomposition: the same zero, bit for bit,
// as the eigendecomposition's path (which clears v and adds no outlier)
// whenever that path converges. The certificate is two Cholesky
// factorizations, of V − (lo + s)·I and of (hi − s)·I − V with the shift
// s = inBoxShift·e, e = 4n²·ε·(‖V‖_F + |lo| + |hi|): a successful
// factorization in floating point bounds the eigenvalues beyond lo + s − e
// and hi − s + e (Higham, Accuracy and Stability of Numerical Algorithms,
// 2nd ed., Thm. 10.3; the shifted matrix's norm is at most
// ‖V‖_F + |lo| + |hi|), and the QL eigenvalues of symEigWork lie within
// n·ε·‖V‖₂ < e of the exact ones (backward stable; Wilkinson & Reinsch),
// so none of them crosses lo or hi. Only for blocks below lanczosMinOrder
// (the orders where the constant 4 covers the bounds' n-dependence) and
// when the box is wider than the two shifts.
func (ws *psdTargetWork) inBox(a []float64, n int, lo, hi float64) bool {
	if n == 0 || n >= lanczosMinOrder {
		return false
	}
	var f float64
	for i := 0; i < n; i++ {
		row := a[i*n+i : i*n+n]
		f += row[0] * row[0]
		for _, x := range row[1:] {
			f += 2 * x * x
		}
	}
	e := 4 * float64(n*n) * 0x1p-52 * (math.Sqrt(f) + math.Abs(lo) + math.Abs(hi))
	s := inBoxShift * e
	if !(lo+s < hi-s) { // also false for a NaN or Inf in V
		return false
	}
	if len(ws.chk) < n*n {
		ws.chk = make([]float64, n*n)
	}
	return cholShifted(ws.chk, a, n, n, -(lo+s), 1) && cholShifted(ws.chk, a, n, n, hi-s, -1)
}

// inBoxShift is the factor of inBox's shift over the error bound e: the
// eigenvalues must clear the box's ends by ten times the bound (a stated
// safety factor over a bound that is itself pessimistic, not a tuned value).
const inBoxShift = 10

// psdTarget is centralityTarget for an order-n PSD block: v = svec(V) with
// V = QΛQᵀ becomes svec(Σᵢ clampCorrection(Λᵢᵢ) qᵢqᵢᵀ), a sum over the
// outliers of the spectrum only. ws's buffers are allocated on first use.
func psdTarget(ws *psdTargetWork, v []float64, n int, lo, hi float64) bool {
	if ws.eig == nil {
		ws.eig = newSymEigWork(n)
		ws.a, ws.vals, ws.t = make([]float64, n*n), make([]float64, n), make([]float64, n)
	}
	// the upper triangle of the row-major matrix: row j holds column j of
	// svec's lower triangle (off-diagonal entries scaled by √2)
	a := ws.a
	k := 0
	for j := 0; j < n; j++ {
		a[j*n+j] = v[k]
		for i := j + 1; i < n; i++ {
			a[j*n+i] = v[k+i-j] / math.Sqrt2
		}
		k += n - j
	}
	if ws.inBox(a, n, lo, hi) {
		clear(v)
		return true
	}
	if !ws.eig.factorize(a, n, ws.vals) {
		return false
	}
	t, idx := ws.t[:0], ws.idx[:0]
	for i, l := range ws.vals {
		if d := clampCorrection(l, lo, hi); d != 0 {
			t = append(t, d)
			idx = append(idx, i)
		}
	}
	ws.idx = idx
	clear(v)
	if len(idx) == 0 {
		return true
	}
	// eigenvector l is column l of the row-major a
	k = 0
	for j := 0; j < n; j++ {
		for i := j; i < n; i++ {
			var s float64
			for p, l := range idx {
				s += a[i*n+l] * t[p] * a[j*n+l]
			}
			if i != j {
				s *= math.Sqrt2
			}
			v[k] = s
			k++
		}
	}
	return true
}
