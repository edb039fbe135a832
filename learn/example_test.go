package learn_test

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/privopt/privopt/learn"
	"github.com/privopt/privopt/noise"
)

// The certified sensitivity of ridge regression on 100 rows with ‖x‖ ≤ 1,
// |y| ≤ 1 and λ = 0.5: R = Y/√λ = √2, L = X(Y + XR) = 1 + √2, bound
// 2L/(nλ) = 0.0966; the registered verifier re-derives it.
func ExampleCertifiedSensitivity() {
	spec := learn.Spec{Loss: learn.Squared, Lambda: 0.5, Bounds: learn.Bounds{X: 1, Y: 1}}
	c, err := learn.CertifiedSensitivity(spec, 100)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s: ‖w(D) − w(D′)‖₂ ≤ %.4f (L = %.4f)\n", c.Method, c.Bound, c.Params["L"])
	fmt.Println("verifies:", c.Verify() == nil)
	// Output:
	// erm-strong-convexity: ‖w(D) − w(D′)‖₂ ≤ 0.0966 (L = 2.4142)
	// verifies: true
}

// A nonnegative ridge fit released by output perturbation with projection:
// every release satisfies w ≥ 0 and carries a certified guarantee.
func ExamplePrepare() {
	x := mat.NewDense(6, 2, []float64{0.1, 0.2, 0.3, 0.1, 0.5, 0.4, 0.2, 0.6, 0.7, 0.3, 0.4, 0.5})
	y := []float64{0.15, 0.2, 0.45, 0.4, 0.5, 0.45}
	spec := learn.Spec{Loss: learn.Squared, Lambda: 1, Nonnegative: true, Bounds: learn.Bounds{X: 1, Y: 1}}
	r, err := learn.Prepare(context.Background(), learn.Data{X: x, Y: y}, spec, learn.Projection,
		learn.Privacy{Epsilon: 1, Delta: 1e-5, Mechanism: learn.AnalyticGaussian}, learn.Options{})
	if err != nil {
		panic(err)
	}
	w, err := r.Draw(context.Background(), noise.NewSeededSource(1)) // simulation only: releases use crypto/rand
	if err != nil {
		panic(err)
	}
	fmt.Println("nonnegative:", w[0] >= 0 && w[1] >= 0)
	fmt.Println(r.Guarantee().Source, r.Guarantee().Certificate.Method)
	// Output:
	// nonnegative: true
	// certified erm-strong-convexity
}

// The sensitivity of SSP's joint moment release for 10 features with
// ‖x‖ ≤ 1, |y| ≤ 1 and an intercept: Δ₂ = √10 (attained by orthogonal rows
// with opposite targets), Δ₁ = 11 + 4√10 + 2. The released weights of a
// least-squares fit are then certified without any ridge in the spec.
func ExampleSSPSensitivity() {
	l1, l2 := learn.SSPSensitivity(10, learn.Bounds{X: 1, Y: 1}, true)
	fmt.Printf("Δ₁ = %.4f, Δ₂ = %.4f\n", l1, l2)
	// Output:
	// Δ₁ = 25.6491, Δ₂ = 3.1623
}

// A release plan is computed from public inputs only — the model, the
// bounds, n and d, the strategy and (ε, δ) — and printed before any row is
// read; the release spends, clips the rows and adds the noise. Here program
// perturbation of monotone ridge regression: the tightened set's public
// point w₀ = gap·(−1, 0, 1, 0) has r₀ = 0.0959, so R = √((1 + √2·r₀)² + r₀²)
// = 1.1397, L = √2(1 + √2·R) = 3.694 and the bound 2L/(nλ) + 2τ = 0.0148.
func ExampleNewPlan() {
	ctx := context.Background()
	spec := learn.Spec{Loss: learn.Squared, Lambda: 1, Ordered: true, Intercept: true, Bounds: learn.Bounds{X: 1, Y: 1}}
	plan, err := learn.NewPlan(ctx, learn.PlanSpec{Spec: spec, N: 500, Features: 3, Strategy: learn.Program,
		Privacy: learn.Privacy{Epsilon: 4, Delta: 1e-6}})
	if err != nil {
		fmt.Println(err)
		return
	}
	c := plan.Guarantee.Certificate
	fmt.Printf("certified %s: %.4f (ℓ2), calibrated %.4f, grid %g\n", c.Method, c.Bound, plan.CalibratedSensitivity, plan.ReleaseGrid)
	fmt.Printf("ordered gap of the tightened set: %.4f\n", plan.ConstraintMargins.Gap)
	x := mat.NewDense(500, 3, nil)
	y := make([]float64, 500)
	for i := range y {
		x.Set(i, 0, float64(i%7)/7)
		x.Set(i, 2, float64(i%3)/3)
		y[i] = float64(i%5)/5 - 0.4
	}
	w, err := plan.Release(ctx, learn.Data{X: x, Y: y}, learn.ReleaseOptions{Source: noise.NewSeededSource(1)}) // seeded: not private
	fmt.Println(len(w), err)
	// Output:
	// certified erm-strong-convexity: 0.0148 (ℓ2), calibrated 0.0148, grid 7.62939453125e-06
	// ordered gap of the tightened set: 0.0679
	// 4 <nil>
}
