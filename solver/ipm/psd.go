package ipm

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// psdCone is the cone of n×n positive semidefinite matrices in scaled svec
// coordinates (cone/cone.go). Its Nesterov–Todd scaling is computed as in
// Todd, Toh & Tütüncü (SIAM J. Optim. 8(3), 1998) and Clarabel (Section 4.3):
//
//	S = L₁L₁ᵀ, Z = L₂L₂ᵀ (Cholesky), L₂ᵀL₁ = UΣVᵀ (SVD),
//	R = L₁VΣ^{-1/2},  R⁻¹ = Σ^{-1/2}UᵀL₂ᵀ,
//	W(X) = RᵀXR,  W⁻ᵀ(X) = R⁻¹XR⁻ᵀ,  λ = W(Z) = W⁻ᵀ(S) = Σ,
//	H = WᵀW : X ↦ (RRᵀ) X (RRᵀ).
//
// The factors R, R⁻¹ and Σ are computed from the symmetric eigenproblem of
// the Gram matrix (L₂ᵀL₁)ᵀ(L₂ᵀL₁) = L₁ᵀZL₁ = VΣ²Vᵀ (scalingFromGram) when
// the scaled point is well enough centered (blocks of order psdFastMinOrder
// or more), else from the SVD: one-sided Jacobi below psdFastMinOrder
// (scalingFromJacobi), LAPACK's dgesvd otherwise and as the fallback.
//
// The Jordan product is X∘Y = (XY + YX)/2, e = I.
type psdCone struct {
	n, d   int
	lam    []float64 // eigenvalues of the scaled point (diagonal of Λ)
	r      *mat.Dense
	rinv   *mat.Dense
	b      *mat.Dense // RRᵀ, valid when bValid (formed on demand by mulH and denseH)
	bValid bool
	tq     *mat.TriDense // upper triangular T with TᵀT = (RRᵀ)⁻¹ (from R⁻¹ = QT)
	tqt    *mat.Dense    // Tᵀ (lower triangular, zero above the diagonal), row-major for schurFactorTo
	l1, l2 *mat.TriDense
	// lcond[k] caches the reciprocal-condition test of l1 (k = 0) and l2
	// (k = 1) for the step lengths (lcondOK[k]: valid; chol invalidates it)
	lcond   [2]float64
	lcondOK [2]bool
	// workspaces
	m1, m2, m3 *mat.Dense
	m4         *mat.Dense    // workspace of the second psdStep in stepLength
	m5         *mat.Dense    // congruence: the transposed factor (fastProducts), allocated on first use
	sym, sym2  *mat.SymDense // sym2: workspace of the second psdStep
	parallel   bool          // stepLength may use a second goroutine (Settings.Threads ≠ 1)
	lwz, lws   *lanczosWork  // step-length workspaces (psdstep.go), allocated on first use
	ew         *eigWork      // minEig's workspace, allocated on first use
	svd        *svdWork      // scalingFromSVD's workspaces, allocated on first use
	qrTau      []float64     // factorBinv: dgeqrf's τ and work array, allocated on first use
	qrWork     []float64
	gramV      *mat.Dense  // scalingFromGram: MᵀM, then its eigenvectors
	gramW      []float64   // scalingFromGram: eigenvalues
	gramEig    *symEigWork // scalingFromGram: eigensolver workspace
	tmp        []float64
}

func newPSD(d int) *psdCone {
	n := psdOrder(d)
	return &psdCone{n: n, d: d, lam: make([]float64, n),
		r: mat.NewDense(n, n, nil), rinv: mat.NewDense(n, n, nil), b: mat.NewDense(n, n, nil),
		tq: mat.NewTriDense(n, mat.Upper, nil), tqt: mat.NewDense(n, n, nil),
		l1: mat.NewTriDense(n, mat.Lower, nil), l2: mat.NewTriDense(n, mat.Lower, nil),
		m1: mat.NewDense(n, n, nil), m2: mat.NewDense(n, n, nil), m3: mat.NewDense(n, n, nil),
		m4: mat.NewDense(n, n, nil), sym: mat.NewSymDense(n, nil), sym2: mat.NewSymDense(n, nil), tmp: make([]float64, d)}
}

func psdOrder(d int) int {
	n := int(math.Round((math.Sqrt(8*float64(d)+1) - 1) / 2))
	return n
}

// svecToDense writes the symmetric matrix of svec v into m.
func svecToDense(m *mat.Dense, v []float64, n int) {
	r := m.RawMatrix()
	data, st := r.Data, r.Stride
	k := 0
	for j := 0; j < n; j++ {
		// row j from the diagonal on; column j below it
		row := data[j*st+j : j*st+n]
		seg := v[k : k+n-j]
		row[0] = seg[0]
		for i := 1; i < len(seg); i++ {
			x := seg[i] / math.Sqrt2
			row[i] = x
			data[(j+i)*st+j] = x
		}
		k += n - j
	}
}

// denseToSvec writes svec of the symmetric part of m into v.
func denseToSvec(v []float64, m *mat.Dense, n int) {
	r := m.RawMatrix()
	data, st := r.Data, r.Stride
	k := 0
	for j := 0; j < n; j++ {
		v[k] = data[j*st+j]
		k++
		for i := j + 1; i < n; i++ {
			v[k] = (data[i*st+j] + data[j*st+i]) / math.Sqrt2
			k++
		}
	}
}

func svecToSym(m *mat.SymDense, v []float64, n int) {
	// column j of the lower triangle is row j of the stored upper triangle
	r := m.RawSymmetric()
	k := 0
	for j := 0; j < n; j++ {
		row := r.Data[j*r.Stride+j : j*r.Stride+n]
		seg := v[k : k+n-j]
		row[0] = seg[0]
		for i := 1; i < len(seg); i++ {
			row[i] = seg[i] / math.Sqrt2
		}
		k += n - j
	}
}

func (c *psdCone) dim() int        { return c.d }
func (c *psdCone) degree() float64 { return float64(c.n) }
func (c *psdCone) symmetric() bool { return true }

func (c *psdCone) identity(v []float64) {
	clear(v)
	k := 0
	for j := 0; j < c.n; j++ {
		v[k] = 1
		k += c.n - j
	}
}

func (c *psdCone) unitInit(s, z []float64) { c.identity(s); c.identity(z) }

func (c *psdCone) minEig(v []float64) float64 {
	svecToSym(c.sym, v, c.n)
	if c.ew == nil {
		c.ew = newEigWork(c.n)
	}
	g, ok := c.ew.minEig(c.sym)
	if !ok {
		return math.NaN()
	}
	return g
}

func (c *psdCone) margin(v []float64) float64 {
	m := c.minEig(v)
	if math.IsNaN(m) {
		return math.Inf(-1)
	}
	return m
}

func (c *psdCone) addE(v []float64, a float64) {
	k := 0
	for j := 0; j < c.n; j++ {
		v[k] += a
		k += c.n - j
	}
}

// chol sets dst to the lower Cholesky factor L of mat(v) = LLᵀ and reports
// whether mat(v) is positive definite: LAPACK's dpotrf on the upper
// triangle (A = UᵀU, L = Uᵀ), the factorization of gonum's mat.Cholesky
// without its condition estimate (dlansy and dpocon, a third of the cost
// for the small blocks) and without allocation. c.sym is overwritten.
func (c *psdCone) chol(dst *mat.TriDense, v []float64) bool {
	n := c.n
	switch dst {
	case c.l1:
		c.lcondOK[0] = false
	case c.l2:
		c.lcondOK[1] = false
	}
	svecToSym(c.sym, v, n)
	u := c.sym.RawSymmetric()
	if _, ok := lapack64.Potrf(u); !ok {
		return false
	}
	l := dst.RawTriangular()
	for i := 0; i < n; i++ {
		row := l.Data[i*l.Stride : i*l.Stride+n]
		for j := 0; j <= i; j++ {
			row[j] = u.Data[j*u.Stride+i]
		}
		clear(row[i+1:])
	}
	return true
}

func (c *psdCone) updateScaling(s, z []float64, _ float64) bool {
	if !c.chol(c.l1, s) || !c.chol(c.l2, z) {
		return false
	}
	// M = L₂ᵀ L₁ (one triangular product on a dense copy of L₁; mat's
	// product of two triangular operands goes through element access)
	l1, l2, m1 := c.l1.RawTriangular(), c.l2.RawTriangular(), c.m1.RawMatrix()
	for i := 0; i < c.n; i++ {
		copy(m1.Data[i*m1.Stride:i*m1.Stride+c.n], l1.Data[i*l1.Stride:i*l1.Stride+c.n]) // chol zeroes the upper part
	}
	trmmLeftLower(true, c.n, c.n, l2.Data, l2.Stride, m1.Data, m1.Stride)
	ok := (c.n >= psdFastMinOrder && c.scalingFromGram()) ||
		(c.n <= jacobiSVDMaxOrder && c.scalingFromJacobi()) || c.scalingFromSVD()
	if !ok {
		return false
	}
	c.bValid = false
	c.factorBinv()
	return true
}

// gramCondLimit bounds the condition number λ_max/λ_min of the Gram matrix
// MᵀM = L₁ᵀZL₁ (the squared condition number of the scaled point) up to
// which scalingFromGram is used: its eigenvalues σᵢ² carry a relative error
// of about ε·cond(MᵀM), so σᵢ and the columns of U = MVΣ⁻¹ stay accurate to
// about 2·10⁻¹⁰ relative; a worse-centered point takes the SVD.
const gramCondLimit = 1e6

// psdFastMinOrder is the least order of a PSD block that uses the Gram
// route of the scaling (scalingFromGram) and the sparse path of
// schurFactorTo (schurFactorSparse). Chosen from measured quantities: the
// blocks that need the SVD and the dense products for accurate directions
// were all of order ≤ 16 (badly conditioned, duals without interior), and
// 20 is the first round order above them; where between 16 and the
// smallest order that profits the break-even lies has not been measured.
const psdFastMinOrder = 20

// scalingFromGram sets λ, R and R⁻¹ from the symmetric eigendecomposition
// of the Gram matrix of M = L₂ᵀL₁ (c.m1, left intact):
//
//	MᵀM = L₁ᵀZL₁ = VΣ²Vᵀ,  U = MVΣ⁻¹,
//	R = L₁VΣ^{-1/2},  R⁻¹ = Σ^{-1/2}UᵀL₂ᵀ = Σ^{-3/2}(L₂MV)ᵀ,
//
// the same R and R⁻¹ as the SVD of M (Todd, Toh & Tütüncü, SIAM J. Optim.
// 8(3), 1998, discuss both forms; the SVD avoids squaring the condition
// number, hence gramCondLimit) at about half of its cost: one symmetric
// eigenproblem with vectors (symEigWork) instead of a singular value
// decomposition with both singular vector sets. It
// reports false, leaving λ, R and R⁻¹ unspecified, when MᵀM is not
// positive definite to working accuracy or its condition number exceeds
// gramCondLimit.
func (c *psdCone) scalingFromGram() bool {
	n := c.n
	if c.gramW == nil {
		c.gramW = make([]float64, n)
		c.gramEig = newSymEigWork(n)
		c.gramV = mat.NewDense(n, n, nil)
	}
	mr := c.m1.RawMatrix()
	vr := c.gramV.RawMatrix()
	g := blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: vr.Stride, Data: vr.Data}
	syrkUpperTrans(n, n, mr.Data, mr.Stride, g.Data, g.Stride)
	if !c.gramEig.factorize(g.Data, g.Stride, c.gramW) {
		return false
	}
	ev := c.gramW // ascending
	if !(ev[0] > 0) || ev[n-1] > gramCondLimit*ev[0] {
		return false
	}
	// descending order, as the singular values of scalingFromSVD, so that
	// the two routes order Λ alike
	for i, j := 0, n-1; i < j; i, j = i+1, j-1 {
		ev[i], ev[j] = ev[j], ev[i]
		for k := 0; k < n; k++ {
			vr.Data[k*vr.Stride+i], vr.Data[k*vr.Stride+j] = vr.Data[k*vr.Stride+j], vr.Data[k*vr.Stride+i]
		}
	}
	// V now holds the eigenvectors as columns; R = L₁V Σ^{-1/2}
	c.r.Copy(c.gramV)
	l1, l2, r := c.l1.RawTriangular(), c.l2.RawTriangular(), c.r.RawMatrix()
	trmmLeftLower(false, n, n, l1.Data, l1.Stride, r.Data, r.Stride)
	// m2 = L₂(MV)
	p := c.m2.RawMatrix()
	gemmNN(n, n, n, mr.Data, mr.Stride, vr.Data, vr.Stride, p.Data, p.Stride)
	trmmLeftLower(false, n, n, l2.Data, l2.Stride, p.Data, p.Stride)
	rr := c.r.RawMatrix()
	ri := c.rinv.RawMatrix()
	for i := 0; i < n; i++ {
		sig := math.Sqrt(ev[i])
		c.lam[i] = sig
		f := 1 / math.Sqrt(sig)
		f3 := f / sig
		for j := 0; j < n; j++ {
			rr.Data[j*rr.Stride+i] *= f
			ri.Data[i*ri.Stride+j] = p.Data[j*p.Stride+i] * f3
		}
	}
	return true
}

// scalingFromSVD sets λ, R and R⁻¹ from the SVD L₂ᵀL₁ = UΣVᵀ of M = L₂ᵀL₁
// (held in c.m1, overwritten). The SVD is LAPACK's dgesvd with both
// singular vector sets, called as gonum's mat.SVD calls it (same job
// options and workspace length, so the same factors) on workspaces kept
// between iterations.
func (c *psdCone) scalingFromSVD() bool {
	n := c.n
	if c.svd == nil {
		c.svd = newSVDWork(n)
	}
	w := c.svd
	if !lapack64.Gesvd(lapack.SVDAll, lapack.SVDAll, c.m1.RawMatrix(), w.u, w.vt, w.s, w.work, len(w.work)) {
		return false
	}
	sig := w.s
	for i := 0; i < n; i++ {
		if !(sig[i] > 0) {
			return false
		}
		c.lam[i] = sig[i]
	}
	// R = L₁VΣ^{-1/2}: V (the transpose of dgesvd's Vᵀ), then L₁·V in place
	// (mat.Dense.Mul's route for a triangular left factor: a copy and
	// Dtrmm, which trmmLeftLower restates bit for bit)
	rr, ri := c.r.RawMatrix(), c.rinv.RawMatrix()
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			rr.Data[j*rr.Stride+i] = w.vt.Data[i*w.vt.Stride+j]
		}
	}
	l1, l2 := c.l1.RawTriangular(), c.l2.RawTriangular()
	trmmLeftLower(false, n, n, l1.Data, l1.Stride, rr.Data, rr.Stride)
	// R⁻¹ = Σ^{-1/2}UᵀL₂ᵀ = Σ^{-1/2}(L₂U)ᵀ: L₂·U in place on dgesvd's U
	// (mat.Dense.Mul's route for Uᵀ·L₂ᵀ), transposed
	trmmLeftLower(false, n, n, l2.Data, l2.Stride, w.u.Data, w.u.Stride)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			ri.Data[i*ri.Stride+j] = w.u.Data[j*w.u.Stride+i]
		}
	}
	for i := 0; i < n; i++ {
		f := 1 / math.Sqrt(sig[i])
		for j := 0; j < n; j++ {
			rr.Data[j*rr.Stride+i] *= f
			ri.Data[i*ri.Stride+j] *= f
		}
	}
	return true
}

// svdWork holds scalingFromSVD's workspaces: dgesvd's U, Vᵀ, singular
// values and work array (of the length dgesvd's query asks for).
type svdWork struct {
	u, vt   blas64.General
	s, work []float64
}

func newSVDWork(n int) *svdWork {
	w := &svdWork{u: blas64.General{Rows: n, Cols: n, Stride: n, Data: make([]float64, n*n)},
		vt: blas64.General{Rows: n, Cols: n, Stride: n, Data: make([]float64, n*n)},
		s:  make([]float64, n)}
	q := []float64{0}
	lapack64.Gesvd(lapack.SVDAll, lapack.SVDAll, blas64.General{Rows: n, Cols: n, Stride: n, Data: make([]float64, n*n)}, w.u, w.vt, w.s, q, -1)
	w.work = make([]float64, int(q[0]))
	return w
}

// factorBinv sets T (upper triangular, TᵀT = B⁻¹ = R⁻ᵀR⁻¹) from the QR
// decomposition R⁻¹ = QT, without squaring the condition number of R⁻¹:
// LAPACK's dgeqrf as gonum's mat.QR calls it (same workspace length, so the
// same T), without mat.QR's condition estimate and allocations.
func (c *psdCone) factorBinv() {
	n := c.n
	if c.qrTau == nil {
		c.qrTau = make([]float64, n)
		q := []float64{0}
		lapack64.Geqrf(c.m1.RawMatrix(), c.qrTau, q, -1)
		c.qrWork = make([]float64, int(q[0]))
	}
	a := c.m1.RawMatrix()
	ri := c.rinv.RawMatrix()
	for i := 0; i < n; i++ {
		copy(a.Data[i*a.Stride:i*a.Stride+n], ri.Data[i*ri.Stride:i*ri.Stride+n])
	}
	lapack64.Geqrf(a, c.qrTau, c.qrWork, len(c.qrWork))
	for i := 0; i < n; i++ {
		row := a.Data[i*a.Stride : i*a.Stride+n]
		for j := i; j < n; j++ {
			c.tq.SetTri(i, j, row[j])
			c.tqt.Set(j, i, row[j])
		}
		clear(row[:i]) // m1 = T, as mat.QR.RTo left it
	}
}

// congruence: out = svec(L X Lᵀ) or with trans, svec(Lᵀ X L).
func (c *psdCone) congruence(out []float64, l *mat.Dense, trans bool, v []float64) {
	if c.fastProducts() {
		a := l.RawMatrix()
		if trans {
			t := c.m5.RawMatrix()
			for i := 0; i < c.n; i++ {
				for j := 0; j < c.n; j++ {
					t.Data[j*t.Stride+i] = a.Data[i*a.Stride+j]
				}
			}
			a = t
		}
		c.congruenceNT(out, a, v)
		return
	}
	// the products of gonum's mat.Dense.Mul (Dgemm), the AᵀB and AB ones
	// through gemmTN and gemmNN (blasx.go: the same bits, without mat's
	// dispatch and overlap checks, which cost as much as the products on
	// blocks of order 10)
	n := c.n
	svecToDense(c.m1, v, n)
	lr, m1, m2, m3 := l.RawMatrix(), c.m1.RawMatrix(), c.m2.RawMatrix(), c.m3.RawMatrix()
	if trans {
		gemmTN(n, n, n, lr.Data, lr.Stride, m1.Data, m1.Stride, m2.Data, m2.Stride)
		gemmNN(n, n, n, m2.Data, m2.Stride, lr.Data, lr.Stride, m3.Data, m3.Stride)
	} else {
		gemmNN(n, n, n, lr.Data, lr.Stride, m1.Data, m1.Stride, m2.Data, m2.Stride)
		blas64.Gemm(blas.NoTrans, blas.Trans, 1, m2, lr, 0, m3) // mat.Dense.Mul's call for m2·Lᵀ
	}
	denseToSvec(out, c.m3, n)
}

// fastProducts reports whether the block's dense products go through
// addMulNT (fused multiply-adds, blocks of order psdFastMinOrder or more;
// the small blocks keep gonum's products, and with them their iterates),
// allocating its workspace on first use.
func (c *psdCone) fastProducts() bool {
	if !haveFMA || c.n < psdFastMinOrder {
		return false
	}
	if c.m5 == nil {
		c.m5 = mat.NewDense(c.n, c.n, nil)
	}
	return true
}

// congruenceNT sets out = svec(A X Aᵀ), X = mat(v), by two addMulNT
// products: Y = A·X (rows of A against rows of X, X symmetric), then
// W = Y·Aᵀ, whose symmetric part gives svec as in the dense products
// (2n³ fused multiply-adds; forming only W's upper triangle saves a quarter
// but drops the averaging of the off-diagonal pairs, and a degenerate
// order-124 instance then ended 5.4e-5 from its reference, outside the
// tolerance).
func (c *psdCone) congruenceNT(out []float64, a blas64.General, v []float64) {
	n := c.n
	svecToDense(c.m1, v, n)
	x, y, w := c.m1.RawMatrix(), c.m2.RawMatrix(), c.m3.RawMatrix()
	clear(y.Data)
	addMulNT(y.Data, y.Stride, a, x, false)
	clear(w.Data)
	addMulNT(w.Data, w.Stride, y, a, false)
	denseToSvec(out, c.m3, n)
}

// mulSchurFactor computes out = svec(T mat(v) Tᵀ) with T upper triangular
// and TᵀT = B⁻¹, so that ⟨out(u), out(v)⟩ = tr(U B⁻¹ V B⁻¹) = uᵀH⁻¹v. T is
// the triangular factor of the QR decomposition R⁻¹ = QT (B⁻¹ = R⁻ᵀR⁻¹ =
// TᵀT), computed without squaring the condition number; the two triangular
// products cost half of a general congruence.
func (c *psdCone) mulSchurFactor(out, v []float64) {
	c.schurFactorTo(out, v, c.m1, c.m2, c.m3)
}

// schurFactorTo is mulSchurFactor with caller-owned n×n workspaces, safe for
// concurrent calls after updateScaling (m3 is unused).
//
// Only the upper triangle of W = T M Tᵀ (M = mat(v)) is formed, row by row:
// row j of W on columns i ≥ j needs row j of Y = TM only on columns k ≥ j,
//
//	Y[j,k] = Σ_{l≥j} T[j,l] M[l,k],  W[j,i] = Σ_{k≥i} Y[j,k] T[i,k]  (k ≥ j),
//
// about n³/3 + n³/6 multiply-adds instead of the n³ of two full triangular
// products; per row one matrix-vector product with M[j:, j:] (M symmetric)
// and one triangular matrix-vector product with T[j:, j:]. Row j of W's upper
// triangle is column j of W's lower triangle, i.e. the j-th segment of svec(W).
func (c *psdCone) schurFactorTo(out, v []float64, m1, m2, _ *mat.Dense) {
	n := c.n
	if c.schurFactorSparse(out, v, m2) {
		return
	}
	svecToDense(m1, v, n)
	mr := m1.RawMatrix()
	tr := c.tq.RawTriangular()
	y := m2.RawMatrix().Data[:n]
	off := 0
	for j := 0; j < n; j++ {
		r := n - j
		// y = Y[j, j:] = M[j:, j:]·T[j, j:]ᵀ (M symmetric), then
		// y ← T[j:, j:]·y = W[j, j:]
		yj := y[:r]
		gblas.Dgemv(blas.NoTrans, r, r, 1, mr.Data[j*mr.Stride+j:], mr.Stride, tr.Data[j*tr.Stride+j:j*tr.Stride+n], 1, 0, yj, 1)
		gblas.Dtrmv(blas.Upper, blas.NoTrans, blas.NonUnit, r, tr.Data[j*tr.Stride+j:], tr.Stride, yj, 1)
		seg := out[off : off+r]
		seg[0] = y[0]
		for i := 1; i < r; i++ {
			seg[i] = y[i] * math.Sqrt2
		}
		off += r
	}
}

// schurFactorSparse computes out = svec(T M Tᵀ) (M = mat(v)) as in
// schurFactorTo when that is cheaper from the nonzeros of M (cost below),
// and reports whether it did. With t_k the k-th column of T (upper triangular:
// nonzero in rows 0..k),
//
//	T M Tᵀ = Σ_{a>b} M_ab (t_a t_bᵀ + t_b t_aᵀ) + Σ_a M_aa t_a t_aᵀ,
//
// each term filling only rows and columns 0..a: (a+1)² multiply-adds per
// nonzero off the diagonal, (a+1)²/2 on it, against n³/2 for the dense
// product; the sparse path is taken when its total is below n³/6. A diagonal or
// two-entry data matrix (max-cut, graph partitioning and QAP relaxations)
// costs O(n²) instead of O(n³) per column of the dense Schur rule.
// m2 supplies two n-vectors of scratch.
func (c *psdCone) schurFactorSparse(out, v []float64, m2 *mat.Dense) bool {
	n := c.n
	if n < psdFastMinOrder {
		return false
	}
	// cost of the sparse path in multiply-adds against a third of the
	// dense path's n³/2 (whose matrix-vector kernels run about three times
	// faster per multiply-add than these scalar loops)
	budget := float64(n) * float64(n) * float64(n) / 6
	var cost float64
	k := 0
	for b := 0; b < n; b++ {
		for a := b; a < n; a, k = a+1, k+1 {
			if v[k] != 0 {
				w := float64(a + 1)
				if a == b {
					cost += w * w / 2
				} else {
					cost += w * w
				}
				if cost > budget {
					return false
				}
			}
		}
	}
	clear(out)
	tr := c.tq.RawTriangular()
	scratch := m2.RawMatrix().Data
	ta, tb := scratch[:n], scratch[n:2*n]
	column := func(dst []float64, k int) {
		for i := 0; i <= k; i++ {
			dst[i] = tr.Data[i*tr.Stride+k]
		}
	}
	k = 0
	for b := 0; b < n; b++ {
		for a := b; a < n; a, k = a+1, k+1 {
			x := v[k]
			if x == 0 {
				continue
			}
			column(ta, a)
			if a == b {
				// W[j, i] += x t_a[j] t_a[i], j ≤ i ≤ a
				for j := 0; j <= a; j++ {
					seg := out[j*n-j*(j-1)/2 : j*n-j*(j-1)/2+a-j+1]
					f := x * ta[j]
					seg[0] += f * ta[j]
					fs := f * math.Sqrt2
					for i := 1; i < len(seg); i++ {
						seg[i] += fs * ta[j+i]
					}
				}
				continue
			}
			// off the diagonal svec holds √2·M_ab
			m := x / math.Sqrt2
			column(tb, b)
			clear(tb[b+1 : a+1])
			// W[j, i] += m (t_a[j] t_b[i] + t_b[j] t_a[i]), j ≤ i ≤ a
			for j := 0; j <= a; j++ {
				seg := out[j*n-j*(j-1)/2 : j*n-j*(j-1)/2+a-j+1]
				fa, fb := m*ta[j], m*tb[j]
				seg[0] += 2 * fa * tb[j]
				fa, fb = fa*math.Sqrt2, fb*math.Sqrt2
				for i := 1; i < len(seg); i++ {
					seg[i] += fa*tb[j+i] + fb*ta[j+i]
				}
			}
		}
	}
	return true
}

// mulHinv computes out = H⁻¹v = svec(B⁻¹ mat(v) B⁻¹), B = RRᵀ, as
// svec(Tᵀ (T M Tᵀ) T) with B⁻¹ = TᵀT (schurFactorTo, then
// schurFactorTransTo; both form only the upper triangle, n³/2
// multiply-adds each).
func (c *psdCone) mulHinv(out, v []float64) {
	c.schurFactorTo(c.tmp, v, c.m1, c.m2, nil)
	c.schurFactorTransTo(out, c.tmp, c.m1, c.m2)
}

// schurFactorTransTo computes out = svec(Tᵀ mat(w) T), the adjoint of
// schurFactorTo (so that H⁻¹ is the adjoint times schurFactorTo), with
// caller-owned n×n workspaces. Only the upper triangle of Z = Tᵀ W T is
// formed:
//
//	Y[a,i] = Σ_{b≤i} W[a,b] T[b,i] (i ≥ a),  Z[j,i] = Σ_{a≤j} T[a,j] Y[a,i]  (i ≥ j),
//
// about n³/3 + n³/6 multiply-adds, as matrix-vector products (the b ≤ a part
// of Y's row a is a dense product, the b > a part a triangular one).
func (c *psdCone) schurFactorTransTo(out, w []float64, m1, m2 *mat.Dense) {
	n := c.n
	svecToDense(m1, w, n)
	wr := m1.RawMatrix()
	tr := c.tq.RawTriangular()
	yr := m2.RawMatrix()
	tmp := out[:n] // scratch until the second loop writes out
	for a := 0; a < n; a++ {
		r := n - a
		// Y[a, a:] = T[0:a+1, a:]ᵀ·W[a, 0:a+1] + (0, T[a+1:, a+1:]ᵀ·W[a, a+1:])
		ya := yr.Data[a*yr.Stride+a : a*yr.Stride+n]
		gblas.Dgemv(blas.Trans, a+1, r, 1, tr.Data[a:], tr.Stride, wr.Data[a*wr.Stride:a*wr.Stride+a+1], 1, 0, ya, 1)
		if r > 1 {
			t := tmp[:r-1]
			copy(t, wr.Data[a*wr.Stride+a+1:a*wr.Stride+n])
			trmvUpperTrans(r-1, tr.Data[(a+1)*tr.Stride+a+1:], tr.Stride, t)
			floats.Add(ya[1:], t)
		}
	}
	// Z[j, j:] = Y[0:j+1, j:]ᵀ·T[0:j+1, j]; row j of Z's upper triangle is
	// column j of svec(Z)'s lower triangle
	off := 0
	for j := 0; j < n; j++ {
		r := n - j
		seg := out[off : off+r]
		gblas.Dgemv(blas.Trans, j+1, r, 1, yr.Data[j:], yr.Stride, tr.Data[j:], tr.Stride, 0, seg, 1)
		for i := 1; i < r; i++ {
			seg[i] *= math.Sqrt2
		}
		off += r
	}
}

// formB forms B = RRᵀ (one symmetric rank-n update) if the current scaling
// has not formed it yet; an eliminated block (kkt.go, schurBlock) never needs
// it.
func (c *psdCone) formB() {
	if c.bValid {
		return
	}
	n := c.n
	br := c.b.RawMatrix()
	blas64.Syrk(blas.NoTrans, 1, c.r.RawMatrix(), 0, blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: br.Stride, Data: br.Data})
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			br.Data[j*br.Stride+i] = br.Data[i*br.Stride+j]
		}
	}
	c.bValid = true
}

func (c *psdCone) mulH(out, v []float64) {
	c.formB()
	if c.fastProducts() {
		c.congruenceNT(out, c.b.RawMatrix(), v) // B symmetric: B X B = B X Bᵀ
		return
	}
	n := c.n
	svecToDense(c.m1, v, n)
	b, m1, m2, m3 := c.b.RawMatrix(), c.m1.RawMatrix(), c.m2.RawMatrix(), c.m3.RawMatrix()
	gemmNN(n, n, n, b.Data, b.Stride, m1.Data, m1.Stride, m2.Data, m2.Stride) // = mat.Dense.Mul(B, M), bit for bit
	gemmNN(n, n, n, m2.Data, m2.Stride, b.Data, b.Stride, m3.Data, m3.Stride)
	denseToSvec(out, c.m3, n)
}

// denseH writes the matrix of X ↦ BXB in svec coordinates:
// H[(ij),(kl)] = a_ij a_kl (B_ik B_jl + B_il B_jk), a = 1 off the diagonal
// and 1/√2 on it.
func (c *psdCone) denseH(out []float64) {
	c.formB()
	n, d := c.n, c.d
	b := c.b.RawMatrix()
	B := func(i, j int) float64 { return b.Data[i*b.Stride+j] }
	col := 0
	for l := 0; l < n; l++ {
		for k := l; k < n; k++ {
			akl := 1.0
			if k == l {
				akl = 1 / math.Sqrt2
			}
			row := 0
			for j := 0; j < n; j++ {
				for i := j; i < n; i++ {
					aij := 1.0
					if i == j {
						aij = 1 / math.Sqrt2
					}
					out[col*d+row] = aij * akl * (B(i, k)*B(j, l) + B(i, l)*B(j, k))
					row++
				}
			}
			col++
		}
	}
}

func (c *psdCone) affineDs(ds, _ []float64) {
	clear(ds)
	k := 0
	for j := 0; j < c.n; j++ {
		ds[k] = c.lam[j] * c.lam[j]
		k += c.n - j
	}
}

// psdJordan: out = svec((XY + YX)/2).
func (c *psdCone) jordan(out, x, y []float64) {
	svecToDense(c.m1, x, c.n)
	svecToDense(c.m2, y, c.n)
	if c.fastProducts() {
		// M = XY: M_ij = Σ_k X_ik Y_jk (Y symmetric)
		m := c.m3.RawMatrix()
		clear(m.Data)
		addMulNT(m.Data, m.Stride, c.m1.RawMatrix(), c.m2.RawMatrix(), false)
	} else {
		m1, m2, m3 := c.m1.RawMatrix(), c.m2.RawMatrix(), c.m3.RawMatrix()
		gemmNN(c.n, c.n, c.n, m1.Data, m1.Stride, m2.Data, m2.Stride, m3.Data, m3.Stride) // = mat.Dense.Mul, bit for bit
	}
	n := c.n
	m := c.m3.RawMatrix()
	data, st := m.Data, m.Stride
	k := 0
	for j := 0; j < n; j++ {
		out[k] = data[j*st+j]
		k++
		for i := j + 1; i < n; i++ {
			// (XY + YX)/2 at (i,j) = (M(i,j) + M(j,i))/2 with M = XY, since YX = Mᵀ
			out[k] = (data[i*st+j] + data[j*st+i]) / 2 * math.Sqrt2
			k++
		}
	}
}

func (c *psdCone) combinedDsShift(shift, dz, ds []float64, sigmaMu float64) {
	// shift = (W⁻ᵀΔs)∘(WΔz) − σμI
	c.congruence(shift, c.r, true, dz) // RᵀΔZR
	copy(dz, shift)
	c.congruence(shift, c.rinv, false, ds) // R⁻¹ΔSR⁻ᵀ
	copy(ds, shift)
	c.jordan(shift, ds, dz)
	k := 0
	for j := 0; j < c.n; j++ {
		shift[k] -= sigmaMu
		k += c.n - j
	}
}

func (c *psdCone) dsOffset(out, ds []float64) {
	// out = Wᵀ(Λ \ D) = R (Λ \ D) Rᵀ with (Λ \ D)_ij = 2D_ij/(λ_i + λ_j)
	tmp := c.tmp
	k := 0
	for j := 0; j < c.n; j++ {
		for i := j; i < c.n; i++ {
			tmp[k] = 2 * ds[k] / (c.lam[i] + c.lam[j])
			k++
		}
	}
	c.congruence(out, c.r, false, tmp)
}

// psdStep: largest α ≤ amax with LLᵀ + αD ⪰ 0, via the smallest eigenvalue γ of
// L⁻¹DL⁻ᵀ: α = −1/γ when γ < 0. m, sym and ew are caller-owned workspaces.
func (c *psdCone) psdStep(l *mat.TriDense, d []float64, amax float64, m *mat.Dense, sym *mat.SymDense, ew *eigWork) float64 {
	n := c.n
	lr := l.RawTriangular()
	// the same conditioning test as mat.TriDense.InverseTri
	cond := c.trcon(l, ew.trcon, ew.itrcon)
	if math.IsInf(cond, 1) || cond > mat.ConditionTolerance {
		return 0
	}
	// m = L⁻¹ D L⁻ᵀ by two triangular solves
	svecToDense(m, d, n)
	mr := m.RawMatrix()
	trsmLeftLower(n, n, lr.Data, lr.Stride, mr.Data, mr.Stride) // gonum's Dtrsm(Left, NoTrans), the same bits
	gblas.Dtrsm(blas.Right, lr.Uplo, blas.Trans, lr.Diag, mr.Rows, mr.Cols, 1, lr.Data, lr.Stride, mr.Data, mr.Stride)
	sr := sym.RawSymmetric()
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			sr.Data[i*sr.Stride+j] = (mr.Data[i*mr.Stride+j] + mr.Data[j*mr.Stride+i]) / 2
		}
	}
	if ew.unblocked(sr, n, amax) {
		return amax
	}
	g, ok := ew.minEig(sym)
	if !ok {
		return 0
	}
	if g >= 0 {
		return amax
	}
	return math.Min(amax, -1/g)
}

// trcon returns LAPACK's dtrcon estimate (condition number in the 1-norm,
// the test of mat.TriDense.InverseTri) of the triangular factor l, with work
// and iwork its workspaces (3n and n). For the Cholesky factors l1 and l2 the
// estimate is kept until the next chol into the same factor: the step
// lengths of one iteration (affine, combined, correctors; Lanczos and its
// fallback) all test the same two factors. The value is the same as a fresh
// call's, so are the steps.
func (c *psdCone) trcon(l *mat.TriDense, work []float64, iwork []int) float64 {
	k := -1
	switch l {
	case c.l1:
		k = 0
	case c.l2:
		k = 1
	}
	if k >= 0 && c.lcondOK[k] {
		return c.lcond[k]
	}
	cond := lapack64.Trcon(mat.CondNorm, l.RawTriangular(), work, iwork)
	if k >= 0 {
		c.lcond[k], c.lcondOK[k] = cond, true
	}
	return cond
}

// stepLength computes the two step lengths (psdStepFast) concurrently when c.parallel
// and the block is of order psdParallelMinOrder or more (each with its own
// workspaces); a smaller block's two computations take less time than
// starting a goroutine and waiting for it.
func (c *psdCone) stepLength(dz, ds, z, s []float64, a float64) (float64, float64) {
	if c.lwz == nil {
		c.lwz, c.lws = newLanczosWork(c.n, c.d), newLanczosWork(c.n, c.d)
	}
	if !c.parallel || c.n < psdParallelMinOrder {
		return c.psdStepFast(c.l2, z, dz, a, c.lwz, c.m1, c.sym), c.psdStepFast(c.l1, s, ds, a, c.lws, c.m4, c.sym2)
	}
	var az float64
	done := make(chan struct{}, 1)
	go func() {
		az = c.psdStepFast(c.l2, z, dz, a, c.lwz, c.m1, c.sym)
		done <- struct{}{}
	}()
	as := c.psdStepFast(c.l1, s, ds, a, c.lws, c.m4, c.sym2)
	<-done
	return az, as
}

// psdParallelMinOrder is the least order of a PSD block whose two step
// lengths are computed concurrently.
const psdParallelMinOrder = psdFastMinOrder

func (c *psdCone) logdet(v []float64) float64 {
	svecToSym(c.sym, v, c.n)
	u := c.sym.RawSymmetric()
	if _, ok := lapack64.Potrf(u); !ok {
		return math.Inf(-1)
	}
	var det float64
	for i := 0; i < c.n; i++ {
		det += 2 * math.Log(u.Data[i*u.Stride+i])
	}
	return det
}

func (c *psdCone) barrier(z, s, dz, ds []float64, a float64) float64 {
	tmp := c.tmp
	for i := range tmp {
		tmp[i] = s[i] + a*ds[i]
	}
	ls := c.logdet(tmp)
	for i := range tmp {
		tmp[i] = z[i] + a*dz[i]
	}
	lz := c.logdet(tmp)
	if math.IsInf(ls, -1) || math.IsInf(lz, -1) {
		return math.Inf(1)
	}
	return -ls - lz
}

// eigWork holds the workspaces of the smallest eigenvalue of a symmetric
// matrix by LAPACK's dsyev without vectors (psdStep, minEig), so that the
// eigenvalue problem of every iteration allocates nothing: the same routine,
// with the same workspace length, as gonum's mat.EigenSym, hence the same
// values. trcon and itrcon are the workspaces of psdStep's condition
// estimate.
type eigWork struct {
	a      blas64.Symmetric // copy of the matrix (dsyev overwrites it)
	w      []float64        // eigenvalues, ascending
	work   []float64
	trcon  []float64
	itrcon []int
	chk    []float64 // n×n: I + t·X of unblocked, factorized in place
}

func newEigWork(n int) *eigWork {
	ew := &eigWork{a: blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: max(n, 1), Data: make([]float64, n*n)},
		w: make([]float64, n), trcon: make([]float64, 3*n), itrcon: make([]int, n)}
	q := []float64{0}
	lapack64.Syev(lapack.EVNone, ew.a, ew.w, q, -1)
	ew.work = make([]float64, int(q[0]))
	return ew
}

// minEig returns the smallest eigenvalue of sym (its upper triangle), false
// when dsyev did not converge.
func (ew *eigWork) minEig(sym *mat.SymDense) (float64, bool) {
	r := sym.RawSymmetric()
	n := ew.a.N
	for i := 0; i < n; i++ {
		copy(ew.a.Data[i*ew.a.Stride+i:i*ew.a.Stride+n], r.Data[i*r.Stride+i:i*r.Stride+n])
	}
	if !lapack64.Syev(lapack.EVNone, ew.a, ew.w, ew.work, len(ew.work)) {
		return 0, false
	}
	return ew.w[0], true
}
