package accounting_test

import (
	"fmt"

	"github.com/privopt/privopt/accounting"
)

// The basic-composition filter admits adaptively chosen releases while the
// exact sums fit the budget; its State holds the running sums.
func ExampleBasicFilter() {
	f := accounting.BasicFilter{}
	budget := accounting.Budget{Epsilon: 1, Delta: 1e-6}
	var s accounting.State
	for _, eps := range []float64{0.5, 0.3, 0.3, 0.2} {
		next, ok, err := f.Add(budget, s, accounting.Charge{Cost: accounting.Cost{Epsilon: eps}})
		if err != nil {
			fmt.Println(err)
			return
		}
		if ok {
			s = next
			fmt.Printf("ε %.1f admitted\n", eps)
		} else {
			rem, _ := f.Remaining(budget, s)
			fmt.Printf("ε %.1f refused, remaining ε %.1f\n", eps, rem.Epsilon)
		}
	}
	// Output:
	// ε 0.5 admitted
	// ε 0.3 admitted
	// ε 0.3 refused, remaining ε 0.2
	// ε 0.2 admitted
}

// 100 Laplace releases of ε₀ = 0.1 each: the PLD accountant's total ε at
// δ = 10⁻⁶ against advanced composition.
func ExamplePLD_ComposeK() {
	one, err := accounting.LaplacePLD(10, 1, 1e-4) // scale 10, sensitivity 1: ε₀ = 0.1
	if err != nil {
		fmt.Println(err)
		return
	}
	k100, err := one.ComposeK(100)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("PLD ε = %.2f, advanced composition ε = %.2f\n", k100.Epsilon(1e-6), accounting.AdvancedComposition(0.1, 100, 1e-6))
	// Output:
	// PLD ε = 4.70, advanced composition ε = 6.31
}

// DP-SGD accounting: 10 steps of the Poisson-subsampled Gaussian mechanism
// (sampling rate 1%, clipping norm 1, noise σ = 1) at δ = 10⁻⁵
// (SubsampledGaussianSigma inverts this for a target ε).
func ExampleSubsampledGaussianEpsilon() {
	eps, err := accounting.SubsampledGaussianEpsilon(1, 0.01, 1, 10, 1e-5, accounting.SubsampledGaussianOptions{Step: 1e-3})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("ε = %.2f\n", eps)
	// Output:
	// ε = 0.38
}
