package ipm

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// randomPD returns svec of Q diag(λ) Qᵀ with a random orthogonal Q and
// eigenvalues log-spaced over [1/cond, 1].
func randomPD(rng *rand.Rand, n int, cond float64) []float64 {
	a := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			a.Set(i, j, rng.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(a)
	var q mat.Dense
	qr.QTo(&q)
	m := mat.NewDense(n, n, nil)
	for k := 0; k < n; k++ {
		lk := math.Pow(cond, -float64(k)/float64(max(n-1, 1)))
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				m.Set(i, j, m.At(i, j)+lk*q.At(i, k)*q.At(j, k))
			}
		}
	}
	v := make([]float64, n*(n+1)/2)
	denseToSvec(v, m, n)
	return v
}

// exactStep is the largest α ≤ amax with S + αD ⪰ 0 from the generalized
// eigenvalues of the pencil (D, S): α = −1/λ_min(S^{-1/2} D S^{-1/2}), with
// S^{-1/2} from the eigendecomposition of S (independent of the Cholesky
// route of psdStep and of the Lanczos route of psdStepFast).
func exactStep(s, d []float64, n int, amax float64) float64 {
	ss := mat.NewSymDense(n, nil)
	svecToSym(ss, s, n)
	var es mat.EigenSym
	es.Factorize(ss, true)
	vals := es.Values(nil)
	var v mat.Dense
	es.VectorsTo(&v)
	for k := 0; k < n; k++ {
		f := 1 / math.Sqrt(vals[k])
		for i := 0; i < n; i++ {
			v.Set(i, k, v.At(i, k)*f)
		}
	}
	dd := mat.NewDense(n, n, nil)
	svecToDense(dd, d, n)
	var t1, t2 mat.Dense
	t1.Mul(v.T(), dd)
	t2.Mul(&t1, &v)
	sym := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			sym.SetSym(i, j, (t2.At(i, j)+t2.At(j, i))/2)
		}
	}
	es.Factorize(sym, false)
	g := es.Values(nil)[0]
	if g >= 0 {
		return amax
	}
	return math.Min(amax, -1/g)
}

// TestPSDStepLanczos compares the Lanczos step length with the exact one on
// random pairs (well and ill conditioned S, blocking and non-blocking
// directions): it must never be longer and at most 1% shorter.
func TestPSDStepLanczos(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 14))
	for _, tc := range []struct {
		name string
		n    int
		cond float64
		dirs float64 // scale of the random direction
		pd   bool    // direction PD (never blocking)
	}{
		{"n=50 cond=10", 50, 10, 1, false},
		{"n=80 cond=1e6", 80, 1e6, 1e-3, false},
		{"n=120 cond=1e10", 120, 1e10, 1e-6, false},
		{"n=60 PD direction", 60, 100, 1, true},
		{"n=45 small direction", 45, 10, 1e-3, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := tc.n
			c := newPSD(n * (n + 1) / 2)
			for trial := 0; trial < 5; trial++ {
				s := randomPD(rng, n, tc.cond)
				d := make([]float64, len(s))
				if tc.pd {
					copy(d, randomPD(rng, n, 10))
				} else {
					for i := range d {
						d[i] = tc.dirs * rng.NormFloat64()
					}
				}
				if !c.chol(c.l1, s) {
					t.Fatal("Cholesky of S failed")
				}
				want := exactStep(s, d, n, 1)
				lw := newLanczosWork(n, len(s))
				got := c.psdStepFast(c.l1, s, d, 1, lw, c.m1, c.sym)
				if lw.fallbacks != 0 {
					t.Errorf("trial %d: fell back to the full eigenvalue problem", trial)
				}
				ref := c.psdStep(c.l1, d, 1, c.m1, c.sym)
				if got > want*(1+1e-9) || got < 0.99*want {
					t.Errorf("trial %d: Lanczos step %.10g, exact %.10g (psdStep %.10g)", trial, got, want, ref)
				}
				if math.Abs(ref-want) > 1e-6*want {
					t.Errorf("trial %d: psdStep %.10g, exact %.10g", trial, ref, want)
				}
			}
		})
	}
}
