package noise_test

import (
	"context"
	"fmt"
	"math"

	"github.com/privopt/privopt/noise"
	_ "github.com/privopt/privopt/noise/lphighs"
)

// Example 1 of Selvi, Liu & Wiesemann: releasing an average salary with
// sensitivity 360 INR under (1, 0.2)-DP.
func Example() {
	p := noise.Params{Epsilon: 1, Delta: 0.2, Sensitivity: 360}
	ag, _ := noise.AnalyticGaussianMechanism(p)
	tl, _ := noise.TruncatedLaplaceMechanism(p)
	r, err := noise.Optimize(context.Background(), p, noise.OptimalOptions{Loss: noise.L2(), Symmetric: true, Intervals: 120})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("analytic Gaussian std %.2f\n", noise.Std(ag.Dist))
	fmt.Printf("truncated Laplace std %.2f\n", noise.Std(tl.Dist))
	fmt.Printf("optimal std %.1f, certified %v\n", noise.Std(r.Dist), r.Certificate.Certified)
	// Output:
	// analytic Gaussian std 300.96
	// truncated Laplace std 273.48
	// optimal std 257.7, certified true
}

// Certify decides exactly whether a piecewise-constant density is (ε,δ)-DP.
func ExampleCertify() {
	// Uniform on [0, 10): shifting by Δ = 1 uncovers mass 1/10.
	d, _ := noise.NewPiecewiseConstant([]float64{0, 5, 10}, []float64{0.5, 0.5})
	for _, delta := range []float64{0.1, 0.09} {
		c, _ := noise.Certify(d, noise.Params{Epsilon: 1, Delta: delta, Sensitivity: 1})
		fmt.Printf("δ = %v: certified %v, max shortfall %.3g\n", delta, c.Certified, c.MaxShortfall)
	}
	// Output:
	// δ = 0.1: certified true, max shortfall -5.55e-18
	// δ = 0.09: certified false, max shortfall 0.01
}

// A user loss that declares its smoothness gets the dithered lower bound:
// here the Huber loss (c″ ≤ 1 away from 0, no kink), which certifies a much
// smaller gap than the cell-infimum bound on the same grid.
func ExampleLoss_WithSmoothness() {
	huber := func(x float64) float64 {
		if a := math.Abs(x); a > 1 {
			return a - 0.5
		}
		return x * x / 2
	}
	l, err := noise.CustomLoss("huber", huber, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	smooth, err := l.WithSmoothness(1, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	p := noise.Params{Epsilon: 1, Delta: 0.2, Sensitivity: 1}
	for _, loss := range []noise.Loss{l, smooth} {
		r, err := noise.Optimize(context.Background(), p, noise.OptimalOptions{Loss: loss, Granularity: 16, Symmetric: true})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s lower bound: gap below 1%%: %v\n", r.LowerMethod, r.Gap < 0.01)
	}
	// Output:
	// cell-infimum lower bound: gap below 1%: false
	// dithered lower bound: gap below 1%: true
}
