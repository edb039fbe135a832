package noise

import (
	"math"
	"testing"
)

// ComponentProfileBound is an upper bound on the profile: never below the
// float64 maximum of the hockey-stick divergence over shifts (MaxHockeyStick,
// an independent computation), never above the plain Gaussian's closed form
// (analyticGaussianDelta), equal to it for K = 0, and at large ε within a
// small factor of the float maximum, where the certificates stop improving
// (measured ratios 1.7–3.9 at ε = 8–20 for (1, 10⁻³)).
func TestComponentProfileBound(t *testing.T) {
	m, err := MultiGaussianMechanism(Params{Epsilon: 1, Delta: 1e-3, Sensitivity: 1}, MultiGaussianOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []*MultiGaussian{
		m.Dist.(*MultiGaussian),
		{Epsilon: 2, Sensitivity: 1, Sigma: 0.6, K: 3},
		{Epsilon: 0.5, Sensitivity: 2, Sigma: 1.1, K: 9},
		{Epsilon: 1, Sensitivity: 1, Sigma: 0.8, K: 0},
	} {
		for _, eps := range []float64{0.5, 1, 2, 4, 8, 12, 16, 20} {
			b := d.ComponentProfileBound(eps)
			h := d.MaxHockeyStick(eps)
			g := analyticGaussianDelta(eps, d.Sensitivity, d.Sigma)
			if h > 1e-300 && b < h*(1-1e-9) {
				t.Errorf("%+v ε=%g: bound %.4g below the float maximum %.4g", *d, eps, b, h)
			}
			if b > g*(1+1e-9)+1e-300 {
				t.Errorf("%+v ε=%g: bound %.4g above the Gaussian's %.4g", *d, eps, b, g)
			}
			if d.K == 0 && math.Abs(b-g) > 1e-9*g+1e-300 {
				t.Errorf("K = 0, ε=%g: bound %.6g, Gaussian %.6g", eps, b, g)
			}
		}
	}
	d := m.Dist.(*MultiGaussian)
	for _, eps := range []float64{8, 12, 16, 20} {
		b, h := d.ComponentProfileBound(eps), d.MaxHockeyStick(eps)
		t.Logf("(1, 10⁻³), K = %d: ε = %g: bound %.3g, float maximum %.3g (ratio %.2f)", d.K, eps, b, h, b/h)
		if b > 5*h {
			t.Errorf("ε = %g: bound %.3g more than 5× the float maximum %.3g", eps, b, h)
		}
	}
}
