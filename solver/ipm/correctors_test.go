package ipm

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestClampCorrection(t *testing.T) {
	const lo, hi = 0.1, 10
	cases := []struct {
		name string
		v    float64
		want float64
	}{
		{"inside", 1, 0},
		{"at the lower end", lo, 0},
		{"at the upper end", hi, 0},
		{"below", 0.04, lo - 0.04},
		{"negative", -3, lo + 3},
		{"above", 12, -2},
		{"far above: capped at −hi", 50, -hi},
	}
	for _, c := range cases {
		if got := clampCorrection(c.v, lo, hi); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("%s: clampCorrection(%v) = %v, want %v", c.name, c.v, got, c.want)
		}
	}
}

// TestPSDTarget checks the spectral target of the PSD cone against
// Q diag(clampCorrection(λ)) Qᵀ formed from a known eigendecomposition
// (random orthogonal Q, eigenvalues on both sides of the box and inside it).
func TestPSDTarget(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 3))
	const lo, hi = 0.1, 10
	for _, n := range []int{1, 2, 5, 12, 40} {
		q := randomOrthogonal(rng, n)
		lam := make([]float64, n)
		for k := range lam {
			switch k % 4 {
			case 0:
				lam[k] = -0.5 + 0.5*rng.Float64() // below the box, negative
			case 1:
				lam[k] = lo * rng.Float64() // below the box
			case 2:
				lam[k] = 1 + rng.Float64() // inside
			case 3:
				lam[k] = hi * (1 + 4*rng.Float64()) // above
			}
		}
		build := func(d []float64) []float64 { return svecQDQ(q, d) }
		v := build(lam)
		tgt := make([]float64, n)
		for k, l := range lam {
			tgt[k] = clampCorrection(l, lo, hi)
		}
		want := build(tgt)
		var ws psdTargetWork
		if !psdTarget(&ws, v, n, lo, hi) {
			t.Fatalf("n = %d: eigendecomposition failed", n)
		}
		for k := range v {
			if math.Abs(v[k]-want[k]) > 1e-10*(1+math.Abs(want[k])) {
				t.Fatalf("n = %d: svec entry %d is %v, want %v", n, k, v[k], want[k])
			}
		}
		// a point on the central path needs no correction
		c := newPSD(n * (n + 1) / 2)
		e := make([]float64, len(v))
		c.identity(e)
		if !psdTarget(&ws, e, n, lo, hi) || normInf(e) != 0 {
			t.Errorf("n = %d: the target of the identity is %v, want 0", n, e)
		}
	}
}

// TestSOCTarget checks the second-order cone's target against the spectral
// formula v = λ₁c₁ + λ₂c₂, c₁,₂ = ½(1, ±u), ‖u‖ = 1.
func TestSOCTarget(t *testing.T) {
	const lo, hi = 0.1, 10
	u := []float64{0.6, 0, -0.8}
	cases := []struct{ l1, l2 float64 }{
		{20, 0.01}, // both outside
		{5, 0.5},   // both inside
		{3, -1},    // the smaller one infeasible
		{40, 2},    // the larger one far above
	}
	for _, c := range cases {
		spec := func(a, b float64) []float64 {
			v := []float64{(a + b) / 2, 0, 0, 0}
			for i, ui := range u {
				v[i+1] = (a - b) / 2 * ui
			}
			return v
		}
		v := spec(c.l1, c.l2)
		want := spec(clampCorrection(c.l1, lo, hi), clampCorrection(c.l2, lo, hi))
		if !centralityTarget(newSOC(4, nil), nil, v, lo, hi) {
			t.Fatal("centralityTarget refused the second-order cone")
		}
		for i := range v {
			if math.Abs(v[i]-want[i]) > 1e-14*(1+math.Abs(want[i])) {
				t.Errorf("λ = (%v, %v): target %v, want %v", c.l1, c.l2, v, want)
				break
			}
		}
	}
	// the orthant is componentwise, the non-symmetric cones have no target
	v := []float64{0.01, 1, 30}
	centralityTarget(newNonneg(3, nil), nil, v, lo, hi)
	if want := []float64{0.09, 0, -10}; math.Abs(v[0]-want[0]) > 1e-15 || v[1] != 0 || v[2] != want[2] {
		t.Errorf("orthant target %v, want %v", v, want)
	}
	if centralityTarget(&nonsymCone{f: expBarriers{}}, nil, []float64{1, 1, 1}, lo, hi) {
		t.Error("centralityTarget accepted the exponential cone")
	}
}

// TestInBoxMatchesEigen checks psdTarget's shortcut (psdTargetWork.inBox)
// against the eigendecomposition it skips: whenever the two Cholesky tests
// certify the box, every eigenvalue symEigWork computes lies in [lo, hi]
// (so the eigendecomposition's path also leaves the zero target); spectra
// well inside the box are certified, and spectra with an eigenvalue outside
// it (by 10⁻⁹ relative or more) never are.
func TestInBoxMatchesEigen(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 11))
	const lo, hi = 0.1, 10
	var inside, certified, outside int
	for trial := 0; trial < 2000; trial++ {
		n := 1 + rng.IntN(16)
		q := randomOrthogonal(rng, n)
		lam := make([]float64, n)
		for k := range lam {
			lam[k] = lo + (hi-lo)*rng.Float64()
		}
		kind := trial % 4
		switch kind {
		case 1: // well inside
			for k := range lam {
				lam[k] = 2*lo + (hi/2-2*lo)*rng.Float64()
			}
		case 2: // one eigenvalue just below the box
			lam[rng.IntN(n)] = lo * (1 - 1e-9 - 1e-3*rng.Float64())
		case 3: // one just above
			lam[rng.IntN(n)] = hi * (1 + 1e-9 + 1e-3*rng.Float64())
		}
		v := svecQDQ(q, lam)
		var ws psdTargetWork
		sym := mat.NewSymDense(n, nil)
		svecToSym(sym, v, n) // psdTarget's layout: the upper triangle, stride n
		a := sym.RawSymmetric().Data
		ok := ws.inBox(a, n, lo, hi)
		eig := newSymEigWork(n)
		vals := make([]float64, n)
		if !eig.factorize(append([]float64(nil), a...), n, vals) {
			t.Fatalf("trial %d: eigendecomposition failed", trial)
		}
		if ok {
			certified++
			for _, l := range vals {
				if l < lo || l > hi {
					t.Fatalf("trial %d (n=%d): box certified but eigenvalue %v outside [%v, %v]", trial, n, l, lo, hi)
				}
			}
			if kind >= 2 {
				t.Fatalf("trial %d: spectrum with an outlier certified", trial)
			}
		}
		if kind == 1 {
			inside++
			if !ok {
				t.Errorf("trial %d (n=%d): spectrum %v well inside the box not certified", trial, n, lam)
			}
		}
		if kind >= 2 {
			outside++
		}
	}
	t.Logf("%d certified; %d well inside, %d with an outlier", certified, inside, outside)
}
