package ipm

import (
	"math"
	"testing"
)

// TestDualThirdMatchesHessianDifferences checks the analytic ∇³f*(z)[a, b]
// of the exponential and power dual barriers against a central difference of
// their analytic Hessians, (∇²f*(z+ha) − ∇²f*(z−ha))b/(2h), and the
// homogeneity identity ∇³f*(z)[z, b] = −2∇²f*(z)b of a logarithmically
// homogeneous barrier.
func TestDualThirdMatchesHessianDifferences(t *testing.T) {
	cases := []struct {
		name string
		f    barrierPair
		z    []float64
	}{
		{"exp central", expBarriers{}, []float64{-1.051383945322714, 0.556409619469370, 1.258967884768947}},
		{"exp skewed", expBarriers{}, []float64{-0.3, 2.5, 0.07}},
		{"pow 0.3", powBarriers{alpha: 0.3}, []float64{1.2, 0.8, 0.4}},
		{"pow 0.75", powBarriers{alpha: 0.75}, []float64{0.5, 2.0, -0.9}},
	}
	a := []float64{0.3, -0.7, 0.2}
	b := []float64{-0.4, 0.1, 0.9}
	for _, tc := range cases {
		var g [3]float64
		var hp, hm, h0 [9]float64
		if !tc.f.dualGradHess(g[:], &h0, tc.z) {
			t.Fatalf("%s: z not interior", tc.name)
		}
		const step = 1e-5
		zp, zm := make([]float64, 3), make([]float64, 3)
		for i := range zp {
			zp[i] = tc.z[i] + step*a[i]
			zm[i] = tc.z[i] - step*a[i]
		}
		tc.f.dualGradHess(g[:], &hp, zp)
		tc.f.dualGradHess(g[:], &hm, zm)
		got := make([]float64, 3)
		tc.f.dualThird(got, tc.z, a, b)
		sym := make([]float64, 3)
		tc.f.dualThird(sym, tc.z, b, a)
		hom := make([]float64, 3)
		tc.f.dualThird(hom, tc.z, tc.z, b)
		for i := 0; i < 3; i++ {
			var fd, hb float64
			for j := 0; j < 3; j++ {
				fd += (hp[i*3+j] - hm[i*3+j]) * b[j] / (2 * step)
				hb += h0[i*3+j] * b[j]
			}
			if math.Abs(got[i]-fd) > 1e-6*math.Max(1, math.Abs(fd)) {
				t.Errorf("%s: ∇³f*[a,b]_%d = %.10g, Hessian difference %.10g", tc.name, i, got[i], fd)
			}
			if math.Abs(got[i]-sym[i]) > 1e-12*math.Max(1, math.Abs(got[i])) {
				t.Errorf("%s: not symmetric in a, b: %.15g vs %.15g", tc.name, got[i], sym[i])
			}
			if math.Abs(hom[i]+2*hb) > 1e-9*math.Max(1, math.Abs(hb)) {
				t.Errorf("%s: ∇³f*[z,b]_%d = %.12g, want −2∇²f*b = %.12g", tc.name, i, hom[i], -2*hb)
			}
		}
	}
}
