package ipm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSdpxMulReducedExact compares sdpxMulReducedExact with the product it
// replaces (the stored matrix's product minus the assembled Schur
// complements plus their exact products, mulReducedExact's other path) on
// max-cut relaxations over the matrices of orders 4–12 scaled at random
// interior points (each block's s and z random positive definite with
// condition numbers up to 10⁴): the two must agree to 10⁻¹² relative to
// ‖K_red‖·‖x‖ (both are the same operator; they differ by the rounding of
// the assembled Schur complement that the second cancels).
func TestSdpxMulReducedExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 26))
	for _, r := range []int{4, 8, 12} {
		p := sdpxMaxCut(rand.New(rand.NewPCG(uint64(r), 7)), r)
		set := DefaultSettings()
		w, err := newWorkspace(p, &set, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range w.cones {
			s, z := w.block(w.s, i), w.block(w.z, i)
			c.unitInit(s, z)
			if pc, ok := c.(*psdCone); ok {
				copy(s, randomPD(rng, pc.n, 1e4))
				copy(z, randomPD(rng, pc.n, 1e2))
			}
			if !c.updateScaling(s, z, 1) {
				t.Fatalf("order %d: scaling of cone %d failed", r, i)
			}
		}
		ks := w.kkt
		if err := ks.update(); err != nil {
			t.Fatal(err)
		}
		if len(ks.elims) == 0 || !ks.sparseSchur() {
			t.Fatalf("order %d: the PSD block is not eliminated by the sparse rule", r)
		}
		x := make([]float64, len(ks.xr))
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		got, want := make([]float64, len(x)), make([]float64, len(x))
		ks.sdpxMulReducedExact(got, x)
		sdpxExactBase = false
		ks.mulReducedExact(want, x)
		sdpxExactBase = true
		var scale float64
		for _, v := range ks.k.Val {
			scale = math.Max(scale, math.Abs(v))
		}
		scale *= normInf(x) * float64(ks.dim)
		for i := range got {
			if math.Abs(got[i]-want[i]) > 1e-12*scale {
				t.Fatalf("order %d, row %d: %v, the stored product's %v (scale %g)", r, i, got[i], want[i], scale)
			}
		}
	}
}
