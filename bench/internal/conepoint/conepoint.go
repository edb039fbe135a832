// Package conepoint draws random points strictly inside the cones of package
// cone, for benchmark generators that build problems with a known strictly
// feasible primal–dual pair (b = Ax₀ + s₀, q = −Aᵀy₀ with s₀ ∈ int K and
// y₀ ∈ int K*, so both problems are strictly feasible and the optimum is
// attained).
package conepoint

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/privopt/privopt/cone"
)

// Interior returns a random point in the interior of c, or of its dual cone
// when dual is true (the cones handled are self-dual except the zero cone,
// whose dual is the free cone: a standard normal vector; its own "interior"
// is the zero vector). Nonnegative coordinates are uniform on [0.5, 2];
// second-order and rotated second-order points lie 0.5 to 2 inside the
// boundary along the first coordinates; a PSD point is svec(GGᵀ/n + I/2) for
// a standard normal n×n G. It panics on other cones.
func Interior(rng *rand.Rand, c cone.Cone, dual bool) []float64 {
	v := make([]float64, c.Dim)
	switch c.Kind {
	case cone.Zero:
		if dual {
			for i := range v {
				v[i] = rng.NormFloat64()
			}
		}
	case cone.Nonnegative:
		for i := range v {
			v[i] = 0.5 + 1.5*rng.Float64()
		}
	case cone.SecondOrder:
		var ss float64
		for i := 1; i < len(v); i++ {
			v[i] = rng.NormFloat64()
			ss += v[i] * v[i]
		}
		v[0] = math.Sqrt(ss) + 0.5 + 1.5*rng.Float64()
	case cone.RotatedSecondOrder:
		// 2·v₀·v₁ > ‖v₂…‖²: v₀ = v₁ = √(‖v₂…‖²/2) + margin
		var ss float64
		for i := 2; i < len(v); i++ {
			v[i] = rng.NormFloat64()
			ss += v[i] * v[i]
		}
		v[0] = math.Sqrt(ss/2) + 0.5 + 1.5*rng.Float64()
		v[1] = math.Sqrt(ss/2) + 0.5 + 1.5*rng.Float64()
	case cone.PSD:
		n := cone.PSDOrder(c.Dim)
		m := mat.NewDense(n, n, nil)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				m.Set(i, j, rng.NormFloat64())
			}
		}
		s := mat.NewSymDense(n, nil)
		s.SymOuterK(1/float64(n), m)
		for i := 0; i < n; i++ {
			s.SetSym(i, i, s.At(i, i)+0.5)
		}
		v = cone.SVec(v, s)
	default:
		panic("conepoint: unexpected cone " + c.String())
	}
	return v
}
