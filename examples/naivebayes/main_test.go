package main

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privopt/privopt/noise"
)

// The declared sensitivities against an exact checker: for random datasets
// and random replacements of one row — including corner rows u ∈ {±1}ᵈ and
// class changes — the change of N, S and Q in ℓ₁, ℓ₂ and ℓ∞ never exceeds
// Sensitivities(d), and the worst corner case attains the ℓ₂ bound of S
// (u′ = −u in the same class: ‖2u‖₂ = 2√d).
func TestSensitivitiesExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	norms := func(a, b []float64) [3]float64 {
		var l1, l2, li float64
		for j := range a {
			d := math.Abs(a[j] - b[j])
			l1 += d
			l2 += d * d
			li = math.Max(li, d)
		}
		return [3]float64{l1, math.Sqrt(l2), li}
	}
	flat := func(a [][]float64) []float64 {
		var o []float64
		for _, r := range a {
			o = append(o, r...)
		}
		return o
	}
	row := func(d int) []float64 {
		u := make([]float64, d)
		for v := range u {
			if rng.IntN(2) == 0 {
				u[v] = 2*rng.Float64() - 1
			} else {
				u[v] = float64(2*rng.IntN(2) - 1)
			}
		}
		return u
	}
	worstS := 0.0
	for trial := 0; trial < 2000; trial++ {
		d, classes, n := 1+rng.IntN(5), 2+rng.IntN(3), 2+rng.IntN(6)
		u := make([][]float64, n)
		y := make([]int, n)
		for i := range u {
			u[i], y[i] = row(d), rng.IntN(classes)
		}
		a := Compute(u, y, classes)
		k := rng.IntN(n)
		u2 := append([][]float64(nil), u...)
		y2 := append([]int(nil), y...)
		u2[k], y2[k] = row(d), rng.IntN(classes)
		if trial%4 == 0 { // the worst case: u′ = −u in the same class, all entries ±1
			for v := range u2[k] {
				u[k][v] = 1
				u2[k][v] = -1
			}
			y2[k] = y[k]
			a = Compute(u, y, classes)
		}
		b := Compute(u2, y2, classes)
		sn, ss, sq := Sensitivities(d)
		for p := 0; p < 3; p++ {
			if got := norms(a.N, b.N)[p]; got > sn[p]+1e-12 {
				t.Fatalf("N changed by %v > %v (norm %d)", got, sn[p], p)
			}
			if got := norms(flat(a.S), flat(b.S))[p]; got > ss[p]+1e-12 {
				t.Fatalf("S changed by %v > %v (norm %d)", got, ss[p], p)
			}
			if got := norms(flat(a.Q), flat(b.Q))[p]; got > sq[p]+1e-12 {
				t.Fatalf("Q changed by %v > %v (norm %d)", got, sq[p], p)
			}
		}
		if r := norms(flat(a.S), flat(b.S))[1] / ss[1]; r > worstS {
			worstS = r
		}
	}
	if worstS < 1-1e-12 {
		t.Errorf("the ℓ2 bound of S was never attained (max ratio %v): the bound may be loose", worstS)
	}
}

// With a huge ε the private classifiers predict like the non-private one
// on separable synthetic data, and the fit from exact statistics recovers
// the class means.
func TestPrivateMatchesNonPrivateAtLargeEpsilon(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var u [][]float64
	var y []int
	for i := 0; i < 300; i++ {
		c := i % 3
		r := []float64{-0.6 + 0.6*float64(c) + 0.1*rng.NormFloat64(), 0.2*rng.Float64() - 0.1}
		for v := range r {
			r[v] = math.Max(-1, math.Min(1, r[v]))
		}
		u, y = append(u, r), append(y, c)
	}
	st := Compute(u, y, 3)
	base := Fit(st)
	for c := 0; c < 3; c++ {
		if math.Abs(base.Mu[c][0]-(-0.6+0.6*float64(c))) > 0.03 {
			t.Fatalf("class %d mean %v, want ≈ %v", c, base.Mu[c][0], -0.6+0.6*float64(c))
		}
	}
	for _, mech := range []Mechanism{Laplace, Gaussian} {
		ps, err := Private(context.Background(), st, mech, 1e4, 1e-6, false, noise.NewSeededSource(1))
		if err != nil {
			t.Fatal(err)
		}
		cl := Fit(ps)
		for i, r := range u {
			if cl.Predict(r) != base.Predict(r) {
				t.Fatalf("%s at ε = 1e4: row %d predicted %d, non-private %d", mech, i, cl.Predict(r), base.Predict(r))
			}
		}
	}
}
