package ipm

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// lambdaDeviation returns max_ij |(MᵀXM)_ij − λᵢδᵢⱼ|/√(λᵢλⱼ) (tr) or the
// same for MXMᵀ, X = mat(x): how far a scaling factor M maps the point X
// off Λ = diag(lam).
func lambdaDeviation(m *mat.Dense, x []float64, tr bool, lam []float64) float64 {
	n := len(lam)
	xm := mat.NewDense(n, n, nil)
	svecToDense(xm, x, n)
	var t1, t2 mat.Dense
	if tr {
		t1.Mul(m.T(), xm)
		t2.Mul(&t1, m)
	} else {
		t1.Mul(m, xm)
		t2.Mul(&t1, m.T())
	}
	var e float64
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			want := 0.0
			if i == j {
				want = lam[i]
			}
			e = math.Max(e, math.Abs(t2.At(i, j)-want)/math.Sqrt(lam[i]*lam[j]))
		}
	}
	return e
}

// scalingErrors returns, for the scaling factors of c (computed from the
// points s and z), the larger lambdaDeviation of RᵀZR and R⁻¹SR⁻ᵀ, and
// ‖BZB − S‖₂/‖S‖₂ with B = RRᵀ (the NT point W = B satisfies WZW = S).
func scalingErrors(c *psdCone, s, z []float64) (lamErr, nt float64) {
	n := c.n
	lamErr = math.Max(lambdaDeviation(c.r, z, true, c.lam), lambdaDeviation(c.rinv, s, false, c.lam))
	b, zm, sm := mat.NewDense(n, n, nil), mat.NewDense(n, n, nil), mat.NewDense(n, n, nil)
	b.Mul(c.r, c.r.T())
	svecToDense(zm, z, n)
	svecToDense(sm, s, n)
	var t1, t2 mat.Dense
	t1.Mul(b, zm)
	t2.Mul(&t1, b)
	t2.Sub(&t2, sm)
	return lamErr, mat.Norm(&t2, 2) / mat.Norm(sm, 2)
}

// TestJacobiScalingMatchesSVD compares the NT scaling from the one-sided
// Jacobi SVD (scalingFromJacobi) with the one from LAPACK's dgesvd
// (scalingFromSVD) on random pairs of orders 1–19 with condition numbers up
// to 10¹² each, including centered pairs Z ≈ μS⁻¹ (the end of an SDP solve,
// where M = L₂ᵀL₁ has condition up to 10¹²): both must satisfy RᵀZR = Λ =
// R⁻¹SR⁻ᵀ and WZW = S: the Jacobi route's ‖WZW − S‖ within 10× dgesvd's
// (or 10⁻¹³), its deviation of RᵀZR and R⁻¹SR⁻ᵀ from Λ within 100× dgesvd's
// (or 10⁻¹²; measured: up to 42× on the pairs of condition 10¹², where
// dgesvd's own deviation is 10⁻⁶), and the two Λ must agree.
func TestJacobiScalingMatchesSVD(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 8))
	var worstLam, worstNT, worstRatio float64
	for _, n := range []int{1, 2, 3, 4, 5, 6, 8, 10, 13, 16, 19} {
		d := n * (n + 1) / 2
		for _, cond := range []float64{1, 1e4, 1e8, 1e12} {
			for _, centered := range []bool{false, true} {
				for trial := 0; trial < 4; trial++ {
					s := randomPD(rng, n, cond)
					var z []float64
					if centered {
						// Z = μ S⁻¹ perturbed by a well-conditioned term: M has
						// singular values ≈ √μ and condition ≈ cond
						ss := mat.NewSymDense(n, nil)
						svecToSym(ss, s, n)
						var ch mat.Cholesky
						if !ch.Factorize(ss) {
							t.Fatal("Cholesky failed")
						}
						var inv mat.SymDense
						if err := ch.InverseTo(&inv); err != nil {
							t.Fatal(err)
						}
						p := randomPD(rng, n, 3)
						z = make([]float64, d)
						k := 0
						for j := 0; j < n; j++ {
							for i := j; i < n; i++ {
								v := 1e-6 * inv.At(i, j)
								if i != j {
									v *= math.Sqrt2
								}
								z[k] = v + 1e-9*p[k]
								k++
							}
						}
					} else {
						z = randomPD(rng, n, cond)
					}
					run := func(jacobi bool) *psdCone {
						c := newPSD(d)
						if !c.chol(c.l1, s) || !c.chol(c.l2, z) {
							t.Skipf("n=%d cond %g: a test point is not numerically positive definite", n, cond)
						}
						c.m1.Mul(c.l2.T(), c.l1)
						ok := false
						if jacobi {
							ok = c.scalingFromJacobi()
						} else {
							ok = c.scalingFromSVD()
						}
						if !ok {
							t.Fatalf("n=%d cond %g centered %v: route jacobi=%v failed", n, cond, centered, jacobi)
						}
						return c
					}
					ref, got := run(false), run(true)
					le0, nt0 := scalingErrors(ref, s, z)
					le1, nt1 := scalingErrors(got, s, z)
					if le1 > math.Max(100*le0, 1e-12) || nt1 > math.Max(10*nt0, 1e-13) {
						t.Errorf("n=%d cond %g centered %v trial %d: Jacobi errors (Λ %.2g, WZW−S %.2g), dgesvd (%.2g, %.2g)",
							n, cond, centered, trial, le1, nt1, le0, nt0)
					}
					for i := range got.lam {
						if e := math.Abs(got.lam[i]-ref.lam[i]) / ref.lam[i]; e > math.Max(100*le0, 1e-12) {
							t.Errorf("n=%d cond %g centered %v: λ_%d = %.17g (Jacobi), %.17g (dgesvd)", n, cond, centered, i, got.lam[i], ref.lam[i])
						}
						if i > 0 && got.lam[i] > got.lam[i-1] {
							t.Errorf("n=%d: Λ not in descending order: %v", n, got.lam)
						}
					}
					worstLam = math.Max(worstLam, le1)
					worstNT = math.Max(worstNT, nt1)
					worstRatio = math.Max(worstRatio, le1/math.Max(le0, 1e-16))
				}
			}
		}
	}
	t.Logf("Jacobi route: worst Λ error %.2g, worst ‖WZW−S‖/‖S‖ %.2g, worst Λ error ratio to dgesvd %.2g", worstLam, worstNT, worstRatio)
}
