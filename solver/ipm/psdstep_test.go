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
	q := randomOrthogonal(rng, n)
	lam := make([]float64, n)
	for k := range lam {
		lam[k] = math.Pow(cond, -float64(k)/float64(max(n-1, 1)))
	}
	return svecQDQ(q, lam)
}

// randomOrthogonal returns the Q factor of an n×n matrix of standard normal
// entries.
func randomOrthogonal(rng *rand.Rand, n int) *mat.Dense {
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
	return &q
}

// svecQDQ returns svec of Q diag(d) Qᵀ, summed one rank-one term at a time.
func svecQDQ(q *mat.Dense, d []float64) []float64 {
	n := len(d)
	m := mat.NewDense(n, n, nil)
	for k := 0; k < n; k++ {
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				m.Set(i, j, m.At(i, j)+d[k]*q.At(i, k)*q.At(j, k))
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
				ref := c.psdStep(c.l1, d, 1, c.m1, c.sym, newEigWork(c.n))
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

// TestNTScalingGram compares the NT scaling from the Gram eigenproblem with
// the one from the SVD of L₂ᵀL₁ on random positive definite pairs: the
// scaling matrix B = RRᵀ (unique) must agree, and both must satisfy the
// defining identities RᵀZR = Λ = R⁻¹SR⁻ᵀ, to the accuracy the condition of
// the pair allows. Pairs beyond gramCondLimit must take the SVD.
func TestNTScalingGram(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	for _, tc := range []struct {
		name       string
		n          int
		condS      float64
		condZ      float64
		complement bool // Z ≈ μS⁻¹ (a centered, ill-conditioned pair)
		wantGram   bool
	}{
		{"n=30 well conditioned", 30, 10, 10, false, true},
		{"n=50 cond 1e4 each", 50, 1e4, 1e4, false, false},
		{"n=60 centered cond 1e10", 60, 1e10, 0, true, true},
		{"n=40 ill conditioned pair", 40, 1e8, 1e3, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := tc.n
			d := n * (n + 1) / 2
			for trial := 0; trial < 3; trial++ {
				s := randomPD(rng, n, tc.condS)
				var z []float64
				if tc.complement {
					// Z = L⁻ᵀPL⁻¹ (S = LLᵀ, P well conditioned): L₁ᵀZL₁ = P,
					// both S and Z have condition ≈ 1e10
					ss := mat.NewSymDense(n, nil)
					svecToSym(ss, s, n)
					var ch mat.Cholesky
					ch.Factorize(ss)
					var l, linv mat.TriDense
					ch.LTo(&l)
					if err := linv.InverseTri(&l); err != nil {
						t.Fatal(err)
					}
					p := randomPD(rng, n, 3)
					pm := mat.NewDense(n, n, nil)
					svecToDense(pm, p, n)
					var t1, t2 mat.Dense
					t1.Mul(linv.T(), pm)
					t2.Mul(&t1, &linv)
					z = make([]float64, d)
					denseToSvec(z, &t2, n)
				} else {
					z = randomPD(rng, n, tc.condZ)
				}
				type result struct {
					lam      []float64
					b        *mat.Dense
					usedGram bool
					r, rinv  *mat.Dense
				}
				run := func(gram bool) result {
					c := newPSD(d)
					if !c.chol(c.l1, s) || !c.chol(c.l2, z) {
						t.Fatal("Cholesky failed")
					}
					c.m1.Copy(c.l1)
					c.m1.Mul(c.l2.T(), c.l1)
					used := false
					if gram {
						used = c.scalingFromGram()
					}
					if !used && !c.scalingFromSVD() {
						t.Fatal("SVD failed")
					}
					c.formB()
					lam := append([]float64(nil), c.lam...)
					return result{lam, mat.DenseCopyOf(c.b), used, mat.DenseCopyOf(c.r), mat.DenseCopyOf(c.rinv)}
				}
				ref, got := run(false), run(true)
				if got.usedGram != tc.wantGram {
					t.Fatalf("trial %d: Gram route used %v, want %v", trial, got.usedGram, tc.wantGram)
				}
				if !got.usedGram {
					continue
				}
				var diff mat.Dense
				diff.Sub(got.b, ref.b)
				if e := mat.Norm(&diff, 1) / mat.Norm(ref.b, 1); e > 1e-8 {
					t.Errorf("trial %d: ‖B_gram − B_svd‖/‖B_svd‖ = %g", trial, e)
				}
				// RᵀZR = Λ and R⁻¹SR⁻ᵀ = Λ
				for k, pair := range []struct {
					m   *mat.Dense
					x   []float64
					tr  bool
					nam string
				}{{got.r, z, true, "RᵀZR"}, {got.rinv, s, false, "R⁻¹SR⁻ᵀ"}} {
					e := lambdaDeviation(pair.m, pair.x, pair.tr, got.lam)
					if e > 1e-7 {
						t.Errorf("trial %d: %s (%d) differs from Λ by %g (relative to √λᵢλⱼ)", trial, pair.nam, k, e)
					}
				}
			}
		})
	}
}

// TestSymEig checks symEigWork against gonum's EigenSym (eigenvalues) and
// the identities AV = VΛ, VᵀV = I on random symmetric matrices, including
// indefinite ones, repeated eigenvalues and a diagonal matrix.
func TestSymEig(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 21))
	for _, n := range []int{1, 2, 7, 40, 130} {
		for _, kind := range []string{"random", "repeated", "diagonal"} {
			a := mat.NewSymDense(n, nil)
			switch kind {
			case "random":
				for i := 0; i < n; i++ {
					for j := i; j < n; j++ {
						a.SetSym(i, j, rng.NormFloat64())
					}
				}
			case "repeated": // I + uuᵀ: eigenvalue 1 of multiplicity n−1
				u := make([]float64, n)
				for i := range u {
					u[i] = rng.NormFloat64()
				}
				for i := 0; i < n; i++ {
					for j := i; j < n; j++ {
						v := u[i] * u[j]
						if i == j {
							v++
						}
						a.SetSym(i, j, v)
					}
				}
			case "diagonal":
				for i := 0; i < n; i++ {
					a.SetSym(i, i, float64((i*7)%n)-3)
				}
			}
			var es mat.EigenSym
			if !es.Factorize(a, false) {
				t.Fatal("EigenSym failed")
			}
			want := es.Values(nil)
			raw := make([]float64, n*n)
			for i := 0; i < n; i++ {
				for j := i; j < n; j++ {
					raw[i*n+j] = a.At(i, j)
				}
			}
			w := newSymEigWork(n)
			vals := make([]float64, n)
			if !w.factorize(raw, n, vals) {
				t.Fatalf("n=%d %s: no convergence", n, kind)
			}
			scale := math.Max(1, math.Abs(want[0])+math.Abs(want[n-1]))
			for i := range vals {
				if math.Abs(vals[i]-want[i]) > 1e-12*scale*float64(n) {
					t.Errorf("n=%d %s: λ%d = %.15g, EigenSym %.15g", n, kind, i, vals[i], want[i])
				}
			}
			v := mat.NewDense(n, n, raw)
			var av, vtv mat.Dense
			av.Mul(a, v)
			vtv.Mul(v.T(), v)
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					if e := math.Abs(av.At(i, j) - v.At(i, j)*vals[j]); e > 1e-12*scale*float64(n) {
						t.Fatalf("n=%d %s: (AV − VΛ)[%d,%d] = %g", n, kind, i, j, e)
					}
					id := 0.0
					if i == j {
						id = 1
					}
					if e := math.Abs(vtv.At(i, j) - id); e > 1e-13*float64(n) {
						t.Fatalf("n=%d %s: (VᵀV − I)[%d,%d] = %g", n, kind, i, j, e)
					}
				}
			}
		}
	}
}

// TestSchurFactorSparse compares svec(T M Tᵀ) of schurFactorTo with the
// product formed by gonum for data matrices with few nonzeros (the sparse
// path: diagonal, off-diagonal pairs, both) and a denser one (the dense
// path), T random upper triangular.
func TestSchurFactorSparse(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 4))
	for _, n := range []int{8, 33, 90} { // 8: the dense path (below psdFastMinOrder)
		d := n * (n + 1) / 2
		c := newPSD(d)
		tm := mat.NewDense(n, n, nil)
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				x := rng.NormFloat64()
				c.tq.SetTri(i, j, x)
				tm.Set(i, j, x)
			}
		}
		for _, nnz := range []int{0, 1, 2, n / 8, n} {
			v := make([]float64, d)
			for k := 0; k < nnz; k++ {
				v[rng.IntN(d)] = rng.NormFloat64()
			}
			if nnz == 1 { // a diagonal entry
				clear(v)
				j := rng.IntN(n)
				v[j*n-j*(j-1)/2] = 1.5
			}
			got := make([]float64, d)
			c.schurFactorTo(got, v, c.m1, c.m2, nil)
			mm := mat.NewDense(n, n, nil)
			svecToDense(mm, v, n)
			var t1, t2 mat.Dense
			t1.Mul(tm, mm)
			t2.Mul(&t1, tm.T())
			want := make([]float64, d)
			denseToSvec(want, &t2, n)
			scale := 1.0
			for _, x := range want {
				scale = math.Max(scale, math.Abs(x))
			}
			for k := range want {
				if math.Abs(got[k]-want[k]) > 1e-12*scale {
					t.Fatalf("n=%d nnz=%d: svec entry %d = %g, want %g", n, nnz, k, got[k], want[k])
				}
			}
		}
	}
}

// TestUnblockedMatchesEigen checks psdStep's shortcut (eigWork.unblocked)
// against the eigenvalue path it skips: whenever the Cholesky test of
// I + t·X settles a step, dsyev's smallest eigenvalue gives the same step
// amax, bit for bit; and the test does settle most unblocked steps and
// rejects every blocked one. Directions range from well inside the cone to
// just past the margin, on points of condition 1 to 10¹².
func TestUnblockedMatchesEigen(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 7))
	var settled, unblockedSteps, blocked int
	for trial := 0; trial < 3000; trial++ {
		n := 1 + rng.IntN(16)
		d := n * (n + 1) / 2
		c := newPSD(d)
		ew := newEigWork(n)
		s := randomPD(rng, n, math.Pow(10, 12*rng.Float64()))
		l := mat.NewTriDense(n, mat.Lower, nil)
		if !c.chol(l, s) {
			t.Fatalf("trial %d: random point not positive definite", trial)
		}
		// a direction scaled so that the exact step lies around amax
		dir := make([]float64, d)
		for i := range dir {
			dir[i] = rng.NormFloat64()
		}
		amax := []float64{1, 0.5, 0.99}[trial%3]
		a0 := exactStep(s, dir, n, math.Inf(1))
		if math.IsInf(a0, 1) {
			continue
		}
		f := a0 / amax * math.Pow(10, 2*rng.Float64()-1)
		if trial%5 == 0 {
			f = a0 / amax * (1 + 1e-5*rng.Float64()) // just past the margin
		}
		for i := range dir {
			dir[i] *= f
		}
		m := mat.NewDense(n, n, nil)
		sym := mat.NewSymDense(n, nil)
		got := c.psdStep(l, dir, amax, m, sym, ew)
		// the eigenvalue path alone on the same X (psdStep left it in sym)
		g, ok := ew.minEig(sym)
		want := amax
		switch {
		case !ok:
			want = 0
		case g < 0:
			want = math.Min(amax, -1/g)
		}
		if got != want {
			t.Fatalf("trial %d (n=%d, amax=%g): step %v, eigenvalue path %v", trial, n, amax, got, want)
		}
		ex := exactStep(s, dir, n, math.Inf(1))
		if ex < amax*(1-1e-9) {
			blocked++
		} else if ex >= amax*(1+2*unblockedMargin) {
			unblockedSteps++
		}
		if ew.unblocked(sym.RawSymmetric(), n, amax) {
			settled++
			if ex < amax*(1-1e-9) {
				t.Fatalf("trial %d: blocked step (exact %v < amax %v) settled as unblocked", trial, ex, amax)
			}
		}
	}
	t.Logf("%d settled by the test, %d clearly unblocked, %d blocked", settled, unblockedSteps, blocked)
	if settled < unblockedSteps*9/10 || blocked == 0 {
		t.Fatalf("the test settled %d of %d clearly unblocked steps (blocked: %d)", settled, unblockedSteps, blocked)
	}
}
