package ipm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestExpBarrierSum checks expBarrierSum against the sum of the barriers'
// own values (expBarriers.dualValue + primalValue, the definitions with one
// logarithm per term) on random points of every magnitude, inside and
// outside the cones, including products that leave the normal range (the
// term-by-term fallback).
func TestExpBarrierSum(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 10))
	f := expBarriers{}
	finite, fallback := 0, 0
	for k := 0; k < 50000; k++ {
		var z, s [3]float64
		e := 2.0
		if k%5 == 0 {
			e = 120 // products beyond 1e±280
		}
		for i := range z {
			z[i] = rng.NormFloat64() * math.Pow(10, e*(2*rng.Float64()-1))
			s[i] = rng.NormFloat64() * math.Pow(10, e*(2*rng.Float64()-1))
		}
		if k%3 == 0 { // points near the central ray, mostly inside, scaled (the cones are cones)
			f.central(z[:])
			f.central(s[:])
			cz, cs := math.Pow(10, e*(2*rng.Float64()-1)), math.Pow(10, e*(2*rng.Float64()-1))
			for i := range z {
				z[i] *= cz * (1 + 0.3*rng.NormFloat64())
				s[i] *= cs * (1 + 0.3*rng.NormFloat64())
			}
		}
		want := f.dualValue(z[:]) + f.primalValue(s[:])
		got := expBarrierSum(&z, &s)
		if math.IsInf(want, 1) {
			if !math.IsInf(got, 1) {
				t.Fatalf("z = %v, s = %v: got %v, want +Inf (outside the cones)", z, s, got)
			}
			continue
		}
		finite++
		if d := math.Abs(got - want); d > 1e-13*(1+math.Abs(want)) {
			t.Fatalf("z = %v, s = %v: got %.17g, want %.17g (difference %.3g)", z, s, got, want, d)
		}
		if !(expNormal(-z[0]) && expNormal(z[2]) && expNormal(s[1]) && expNormal(s[2])) {
			fallback++
		}
	}
	if finite < 10000 || fallback < 100 {
		t.Fatalf("too few points checked: %d inside both cones, %d with extreme products", finite, fallback)
	}
}
