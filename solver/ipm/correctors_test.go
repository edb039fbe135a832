package ipm

import (
	"math"
	"math/rand/v2"
	"testing"
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
		if !centralityTarget(newSOC(4), nil, v, lo, hi) {
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
	centralityTarget(newNonneg(3), nil, v, lo, hi)
	if want := []float64{0.09, 0, -10}; math.Abs(v[0]-want[0]) > 1e-15 || v[1] != 0 || v[2] != want[2] {
		t.Errorf("orthant target %v, want %v", v, want)
	}
	if centralityTarget(&nonsymCone{f: expBarriers{}}, nil, []float64{1, 1, 1}, lo, hi) {
		t.Error("centralityTarget accepted the exponential cone")
	}
}
