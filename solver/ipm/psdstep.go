package ipm

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// Step length to the boundary of the PSD cone by a Lanczos estimate of the
// smallest eigenvalue, checked by a Cholesky factorization.
//
// For S = LLᵀ ≻ 0 and a direction D, the largest α with S + αD ⪰ 0 is
//
//	α* = 1/max(0, −γ),  γ = λ_min(X),  X = L⁻¹DL⁻ᵀ,
//
// (Todd, Toh & Tütüncü, SIAM J. Optim. 8(3), 1998). Only γ is
// needed, so instead of the full symmetric eigenvalue problem of X (a dense
// tridiagonal reduction, ≈ n³ multiply-adds with the two triangular solves
// that form X) the Lanczos process (Golub & Van Loan, Matrix Computations,
// 4th ed., Section 10.1) runs on the operator q ↦ L⁻¹(D(L⁻ᵀq)), 2n²
// multiply-adds per step, with full reorthogonalization, until the smallest
// Ritz value θ of the k×k tridiagonal matrix T_k has a residual
// δ = β_k|e_kᵀy| small against |θ|. A Ritz value is an upper bound,
// θ ≥ γ, so −1/θ could overshoot the boundary; the candidate is taken from
// θ(1 + 10⁻⁶) first (the Ritz value of an isolated extreme eigenvalue is
// accurate to O(δ²/gap)), then from the lower estimate θ − max(δ, ϵ|θ|) (an
// eigenvalue lies within δ of θ),
//
//	α_c = min(αmax, −1/(θ − margin)),
//
// and accepted only when S + α_cD has a Cholesky factorization, which proves
// α_c ≤ α* (the feasible steps form an interval containing 0). A missed
// eigenvalue (a start vector nearly orthogonal to its eigenvector) or a
// process that does not settle in lanczosMaxSteps steps falls back to the
// full eigenvalue problem (psdCone.psdStep), so the step is never longer
// than the exact one (up to the rounding of the Cholesky test).
const (
	lanczosMinOrder = 40   // smaller blocks use the full eigenvalue problem
	lanczosMaxSteps = 60   // Krylov dimension limit before the fallback
	lanczosRelTol   = 1e-4 // stop when δ ≤ lanczosRelTol·max(|θ|, 1/αmax)
	lanczosMargin   = 1e-3 // ϵ: the relative margin of the second candidate
	// lanczosTightMargin is the relative margin of the first candidate,
	// −1/(θ(1 + 10⁻⁶)): the Ritz value of an isolated extreme eigenvalue is
	// accurate to O(δ²/gap), so this candidate usually passes the check
	lanczosTightMargin = 1e-6
)

// lanczosWork holds the workspaces of one step-length computation, so that
// the two computations of psdCone.stepLength can run concurrently.
type lanczosWork struct {
	q          []float64 // Krylov basis, row j = q_j (lanczosMaxSteps+1 rows of length n)
	w, u       []float64
	alpha      []float64
	beta       []float64
	tri        []float64 // T_k for the Ritz values
	es         mat.EigenSym
	chk        []float64 // n×n: S + α_cD, factorized in place
	sv         []float64 // svec(S + α_cD)
	trconWork  []float64
	trconIwork []int
	ew         *eigWork // psdStep's workspaces
	fallbacks  int      // computations that fell back to the full eigenvalue problem
}

func newLanczosWork(n, d int) *lanczosWork {
	k := min(lanczosMaxSteps, n)
	return &lanczosWork{q: make([]float64, (k+1)*n), w: make([]float64, n), u: make([]float64, n),
		alpha: make([]float64, k), beta: make([]float64, k), tri: make([]float64, k*k),
		chk: make([]float64, n*n), sv: make([]float64, d), trconWork: make([]float64, 3*n), trconIwork: make([]int, n), ew: newEigWork(n)}
}

// psdStepFast returns the largest step α ≤ amax with base + α·dir ⪰ 0
// (base = LLᵀ in svec coordinates), computed as described above, with the
// full eigenvalue problem as the fallback. sym holds mat(dir) on return of
// the Lanczos path; m and sym are the fallback's workspaces.
func (c *psdCone) psdStepFast(l *mat.TriDense, base, dir []float64, amax float64, lw *lanczosWork, m *mat.Dense, sym *mat.SymDense) float64 {
	n := c.n
	if n < lanczosMinOrder {
		return c.psdStep(l, dir, amax, m, sym, lw.ew)
	}
	lr := l.RawTriangular()
	cond := c.trcon(l, lw.trconWork, lw.trconIwork)
	if math.IsInf(cond, 1) || cond > mat.ConditionTolerance {
		return 0
	}
	svecToSym(sym, dir, n)
	theta, delta, ok := lw.smallestRitz(lr, sym.RawSymmetric(), n, amax)
	if ok {
		// first the Ritz value itself (its error is O(δ²/gap), far below
		// δ for an isolated eigenvalue), then the bound θ − δ
		for _, margin := range [...]float64{lanczosTightMargin * math.Abs(theta), math.Max(delta, lanczosMargin*math.Abs(theta))} {
			lo := theta - margin
			a := amax
			if lo < 0 {
				a = math.Min(amax, -1/lo)
			}
			if lw.feasible(base, dir, a, n) {
				return a
			}
		}
	}
	lw.fallbacks++
	return c.psdStep(l, dir, amax, m, sym, lw.ew)
}

// feasible reports whether base + a·dir has a Cholesky factorization.
func (lw *lanczosWork) feasible(base, dir []float64, a float64, n int) bool {
	sv := lw.sv
	for i := range sv {
		sv[i] = base[i] + a*dir[i]
	}
	s := blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: n, Data: lw.chk}
	k := 0
	for j := 0; j < n; j++ {
		row := s.Data[j*n+j : j*n+n]
		seg := sv[k : k+n-j]
		row[0] = seg[0]
		for i := 1; i < len(seg); i++ {
			row[i] = seg[i] / math.Sqrt2
		}
		k += n - j
	}
	_, ok := lapack64.Potrf(s)
	return ok
}

// smallestRitz runs the Lanczos process on X = L⁻¹DL⁻ᵀ (D in the upper
// triangle of dm) and returns the smallest Ritz value θ and its residual
// norm δ; ok is false when the process did not settle.
func (lw *lanczosWork) smallestRitz(lr blas64.Triangular, dm blas64.Symmetric, n int, amax float64) (theta, delta float64, ok bool) {
	kmax := min(lanczosMaxSteps, n)
	q := lw.q
	// deterministic start vector with components of both signs and varied
	// magnitudes (a multiplicative congruential sequence)
	q0 := q[:n]
	seed := uint32(12345)
	for i := range q0 {
		seed = seed*1664525 + 1013904223
		q0[i] = float64(seed>>8)/float64(1<<24) - 0.5
	}
	floats.Scale(1/floats.Norm(q0, 2), q0)
	w, u := lw.w, lw.u
	for j := 0; j < kmax; j++ {
		qj := q[j*n : (j+1)*n]
		// w = L⁻¹ D L⁻ᵀ q_j
		copy(u, qj)
		blas64.Trsv(blas.Trans, lr, blas64.Vector{N: n, Inc: 1, Data: u})
		symvUpper(n, dm.Data, dm.Stride, u, w) // dm: upper triangle
		blas64.Trsv(blas.NoTrans, lr, blas64.Vector{N: n, Inc: 1, Data: w})
		a := floats.Dot(qj, w)
		lw.alpha[j] = a
		// full reorthogonalization against q_0..q_j (twice is enough)
		for pass := 0; pass < 2; pass++ {
			for i := 0; i <= j; i++ {
				qi := q[i*n : (i+1)*n]
				floats.AddScaled(w, -floats.Dot(qi, w), qi)
			}
		}
		b := floats.Norm(w, 2)
		lw.beta[j] = b
		scale := math.Max(math.Abs(a), 1)
		for i := 0; i < j; i++ {
			scale = math.Max(scale, math.Abs(lw.alpha[i])+lw.beta[i])
		}
		invariant := b <= 1e-12*scale
		if invariant || j == kmax-1 || (j >= 4 && j%3 == 1) {
			theta, delta = lw.ritz(j + 1)
			if invariant {
				delta = 0
			}
			// δ small against |θ|, or against 1/αmax when the step is not
			// blocked (θ ≥ 0 or −1/θ far beyond αmax); the Cholesky
			// check of the caller decides
			converged := delta <= lanczosRelTol*math.Max(math.Abs(theta), 1/amax)
			if converged || invariant {
				return theta, delta, true
			}
		}
		if j+1 < kmax {
			floats.ScaleTo(q[(j+1)*n:(j+2)*n], 1/b, w)
		}
	}
	return theta, delta, false
}

// ritz returns the smallest eigenvalue θ of T_k and the residual norm
// β_k|y_k| of its Ritz pair (y the unit eigenvector of T_k).
func (lw *lanczosWork) ritz(k int) (theta, delta float64) {
	data := lw.tri[:k*k]
	clear(data)
	for i := 0; i < k; i++ {
		data[i*k+i] = lw.alpha[i]
		if i+1 < k {
			data[i*k+i+1] = lw.beta[i]
		}
	}
	t := mat.NewSymDense(k, data)
	if !lw.es.Factorize(t, true) {
		return math.NaN(), math.Inf(1)
	}
	var vecs mat.Dense
	lw.es.VectorsTo(&vecs)
	theta = lw.es.Values(nil)[0]
	delta = lw.beta[k-1] * math.Abs(vecs.At(k-1, 0))
	return theta, delta
}

// unblocked reports whether the step amax is certainly not blocked by the
// block whose scaled direction is X = L⁻¹DL⁻ᵀ (upper triangle of x), so
// that psdStep's answer min(amax, −1/λ_min(X)) is amax without the
// eigenvalue problem: the same value, bit for bit, as dsyev's path. Only
// for orders below lanczosMinOrder (the error bound below uses n < 40).
//
// The test is a Cholesky factorization of Y = I + t·X with
// t = amax·(1 + unblockedMargin). In floating point its success proves
// λ_min(Y) ≥ −c·n²·ε·‖Y‖₂ with c ≤ 2 (Higham, Accuracy and Stability of
// Numerical Algorithms, 2nd ed., Thm. 10.3: R̂ᵀR̂ = Y + ΔY with
// |ΔY| ≤ γ_{n+1}|R̂ᵀ||R̂|; the rounding of forming Y included), so
//
//	λ_min(X) ≥ −1/t − c·n²·ε·(1/t + ‖X‖₂),
//
// and dsyev's computed eigenvalue g lies within p(n)·ε·‖X‖₂ of λ_min(X),
// p(n) ≤ n (LAPACK Users' Guide, 3rd ed., §4.7). With
// amax·‖X‖_F ≤ unblockedNormLimit and n < 40 the two errors together are
// below (2·40² + 40)·2.3·10⁻¹⁶·(1 + 10⁵) < 10⁻⁷ relative to 1/amax, a
// thousandth of the margin 1/amax − 1/t ≈ unblockedMargin/amax, so
// g > −(1 − 9·10⁻⁵)/amax and −1/g > amax even after rounding: psdStep
// returns amax either way. A NaN or Inf in X fails the norm test (the
// eigenvalue path then decides, as before). A block whose direction blocks
// the step (λ_min(X) < −1/t) fails the factorization and takes the
// eigenvalue problem.
func (ew *eigWork) unblocked(x blas64.Symmetric, n int, amax float64) bool {
	if n == 0 || n >= lanczosMinOrder || !(amax > 0) {
		return false
	}
	var f float64
	for i := 0; i < n; i++ {
		row := x.Data[i*x.Stride+i : i*x.Stride+n]
		f += row[0] * row[0]
		for _, v := range row[1:] {
			f += 2 * v * v
		}
	}
	if !(amax*math.Sqrt(f) <= unblockedNormLimit) {
		return false
	}
	if len(ew.chk) < n*n {
		ew.chk = make([]float64, n*n)
	}
	return cholShifted(ew.chk, x.Data, x.Stride, n, 1, amax*(1+unblockedMargin))
}

// cholShifted reports whether Y = shift·I + scale·X has a Cholesky
// factorization Y = RᵀR, for the symmetric n×n X given by its upper triangle
// (row-major, stride ldx); y (n² entries) is the workspace that receives R.
// A NaN anywhere fails the test.
func cholShifted(y, x []float64, ldx, n int, shift, scale float64) bool {
	y = y[:n*n]
	for i := 0; i < n; i++ {
		row := x[i*ldx+i : i*ldx+n]
		yr := y[i*n+i : i*n+n]
		for k, v := range row {
			yr[k] = scale * v
		}
		yr[0] += shift
	}
	for i := 0; i < n; i++ {
		d := y[i*n+i]
		for k := 0; k < i; k++ {
			r := y[k*n+i]
			d -= r * r
		}
		if !(d > 0) {
			return false
		}
		d = math.Sqrt(d)
		y[i*n+i] = d
		for j := i + 1; j < n; j++ {
			v := y[i*n+j]
			for k := 0; k < i; k++ {
				v -= y[k*n+i] * y[k*n+j]
			}
			y[i*n+j] = v / d
		}
	}
	return true
}

// unblockedMargin is the relative margin of unblocked's Cholesky test: a
// step is settled without the eigenvalue problem when it stays feasible up
// to (1 + unblockedMargin)·amax. Derived, not tuned: a thousand times the
// bound on the rounding errors of the test and of dsyev under
// unblockedNormLimit (see unblocked), and small, so that blocks that
// nearly block the step still skip the eigenvalue problem.
const unblockedMargin = 1e-4

// unblockedNormLimit bounds amax·‖X‖_F for unblocked's test (see there for
// the error bound it gives). A direction this large against its point is
// left to the eigenvalue problem.
const unblockedNormLimit = 1e5
