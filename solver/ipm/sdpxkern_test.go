package ipm

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// sdpxRefCongruence is svec(Tᵀ mat(v) T) (trans) or svec(T mat(v) Tᵀ) by
// gonum's full dense products: the reference of the small-order kernels.
func sdpxRefCongruence(t *mat.TriDense, v []float64, n int, trans bool) []float64 {
	m := mat.NewDense(n, n, nil)
	svecToDense(m, v, n)
	var y, w mat.Dense
	if trans {
		y.Mul(t.T(), m)
		w.Mul(&y, t)
	} else {
		y.Mul(t, m)
		w.Mul(&y, t.T())
	}
	out := make([]float64, n*(n+1)/2)
	denseToSvec(out, &w, n)
	return out
}

// TestSdpxSmallKernels checks sdpxFactorSmall and sdpxFactorTransSmall (and
// through them schurFactorTo, schurFactorTransTo and mulHinv) against full
// dense products with gonum at every order up to sdpxSmallOrder, and the
// adjoint identity ⟨F(u), w⟩ = ⟨u, Fᵀ(w)⟩.
func TestSdpxSmallKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 26))
	for n := 1; n <= sdpxSmallOrder; n++ {
		d := n * (n + 1) / 2
		c := newPSD(d)
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				x := rng.NormFloat64()
				if i == j {
					x = 0.5 + math.Abs(x)
				}
				c.tq.SetTri(i, j, x)
			}
		}
		u, w := make([]float64, d), make([]float64, d)
		for k := range u {
			u[k], w[k] = rng.NormFloat64(), rng.NormFloat64()
		}
		fu, ftw, hu := make([]float64, d), make([]float64, d), make([]float64, d)
		c.schurFactorTo(fu, u, c.m1, c.m2, nil)
		c.schurFactorTransTo(ftw, w, c.m1, c.m2)
		c.mulHinv(hu, u)
		want := sdpxRefCongruence(c.tq, u, n, false)
		wantT := sdpxRefCongruence(c.tq, w, n, true)
		wantH := sdpxRefCongruence(c.tq, want, n, true)
		for k := 0; k < d; k++ {
			if !sdpxClose(fu[k], want[k]) || !sdpxClose(ftw[k], wantT[k]) || !sdpxClose(hu[k], wantH[k]) {
				t.Fatalf("order %d, entry %d: T M Tᵀ %v want %v, Tᵀ W T %v want %v, H⁻¹ %v want %v",
					n, k, fu[k], want[k], ftw[k], wantT[k], hu[k], wantH[k])
			}
		}
		var a, b float64
		for k := 0; k < d; k++ {
			a += fu[k] * w[k]
			b += u[k] * ftw[k]
		}
		if !sdpxClose(a, b) {
			t.Fatalf("order %d: ⟨F u, w⟩ = %v, ⟨u, Fᵀ w⟩ = %v", n, a, b)
		}
	}
}

func sdpxClose(a, b float64) bool { return math.Abs(a-b) <= 1e-12*(1+math.Abs(b)) }
