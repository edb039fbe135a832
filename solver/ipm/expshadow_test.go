package ipm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestExpShadowGrad checks the closed form of the exponential cone's
// shadow gradient against its definition: z̃ = −shadowGrad(s) must lie in
// int K* and satisfy −∇f*(z̃) = s, on random interior points s spanning
// twelve orders of magnitude, and Wright's ω against y + log y = t.
func TestExpShadowGrad(t *testing.T) {
	var f expBarriers
	rng := rand.New(rand.NewPCG(3, 4))
	worst := 0.0
	for k := 0; k < 20000; k++ {
		y := math.Exp(rng.NormFloat64() * 6)
		z := math.Exp(rng.NormFloat64() * 6)
		// x below y·log(z/y) by a random relative margin.
		phiMax := math.Abs(y*math.Log(z/y)) + y
		x := y*math.Log(z/y) - phiMax*math.Exp(-rng.Float64()*12)
		s := []float64{x, y, z}
		if !f.primalIn(s) {
			continue
		}
		worst = math.Max(worst, checkShadow(t, f, s, 1e-300, 1e-8))
	}
	t.Logf("largest relative error of −∇f*(z̃) against s: %.2g", worst)
	for _, tv := range []float64{1, 1 + 1e-12, 1.5, 2, 10, 1e3, 1e8, 1e15} {
		w := wrightOmega(tv)
		if r := math.Abs(w+math.Log(w)-tv) / tv; r > 4e-16 {
			t.Errorf("ω(%v) = %v: y + log y − t relative %v", tv, w, r)
		}
	}
}

// TestPowShadowGrad checks the power cone's shadow gradient against its
// definition, −∇f*(z̃) = s with z̃ = −shadowGrad(s) ∈ int K*, for α ∈
// {0.1, 1/3, 0.5, 0.9} on random interior points (z from 0 to the
// boundary, x and y over eight orders of magnitude).
func TestPowShadowGrad(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	worst := 0.0
	for _, al := range []float64{0.1, 1.0 / 3, 0.5, 0.9} {
		f := powBarriers{alpha: al}
		for k := 0; k < 5000; k++ {
			x := math.Exp(rng.NormFloat64() * 4)
			y := math.Exp(rng.NormFloat64() * 4)
			m := math.Pow(x, al) * math.Pow(y, 1-al)
			z := m * (1 - math.Exp(-rng.Float64()*14))
			if k%2 == 1 {
				z = -z
			}
			if k%10 == 0 {
				z = 0
			}
			s := []float64{x, y, z}
			if !f.primalIn(s) {
				continue
			}
			worst = math.Max(worst, checkShadow(t, f, s, 1e-12*(x+y), 1e-7))
		}
	}
	t.Logf("largest relative error of −∇f*(z̃) against s: %.2g", worst)
}

// checkShadow checks that z̃ = −f.shadowGrad(s) lies in int K* and that
// −∇f*(z̃) = s within tol relative to |s_i| + floor, and returns the
// largest relative error.
func checkShadow(t *testing.T, f barrierPair, s []float64, floor, tol float64) float64 {
	t.Helper()
	var g, gd [3]float64
	var h [9]float64
	if !f.shadowGrad(g[:], s) {
		t.Fatalf("%T: shadowGrad refused the interior point %v", f, s)
	}
	zt := []float64{-g[0], -g[1], -g[2]}
	if !f.dualIn(zt) || !f.dualGradHess(gd[:], &h, zt) {
		t.Fatalf("%T, s %v: shadow point %v not in int K*", f, s, zt)
	}
	worst := 0.0
	for i := 0; i < 3; i++ {
		e := math.Abs(-gd[i]-s[i]) / (math.Abs(s[i]) + floor)
		worst = math.Max(worst, e)
		if e > tol {
			t.Fatalf("%T, s %v: −∇f*(z̃)[%d] = %v, want %v (relative error %.2g)", f, s, i, -gd[i], s[i], e)
		}
	}
	return worst
}
