package noise_test

import (
	"fmt"
	"math"

	"github.com/privopt/privopt/noise"
)

// The Gaussian mechanism's floating-point-safe release: an exact discrete
// Gaussian on the grid 2⁻¹⁰, with the stated cost in standard deviation.
func ExampleDiscreteGaussianFor() {
	m, _ := noise.AnalyticGaussianMechanism(noise.Params{Epsilon: 1, Delta: 1e-5, Sensitivity: 1})
	dg, err := noise.DiscreteGaussianFor(m.Dist.(*noise.Gaussian).Sigma, m.Params, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("grid 2^%d, grid sensitivity %d, σ × %.4f, (ε, δ) = (%g, %g)\n",
		int(math.Log2(dg.Granularity)), dg.GridSensitivity, dg.SigmaFactor, dg.Epsilon, dg.Delta)
	// Output:
	// grid 2^-10, grid sensitivity 1025, σ × 1.0010, (ε, δ) = (1, 1e-05)
}

// The ε that snapping adds for a 24-row release at ε = 1 per row with the
// default bound: 24·2⁻¹⁹.
func ExampleSnappingExcess() {
	lambda := 1.0 // Δ/ε with Δ = 1, ε = 1
	fmt.Printf("%.3g (24·2⁻¹⁹ = %.3g)\n", noise.SnappingExcess(lambda, 0, 1, 24), 24*math.Ldexp(1, -19))
	// Output:
	// 4.58e-05 (24·2⁻¹⁹ = 4.58e-05)
}
