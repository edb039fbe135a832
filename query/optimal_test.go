package query

import (
	"context"
	"math"
	"testing"

	"github.com/privopt/privopt/chance"
	"github.com/privopt/privopt/noise"
)

// TestOptimalNoiseRobust composes the two halves of privopt: the optimal
// (ε, δ)-DP noise of package noise (a certified piecewise-constant density on a
// bounded support) and the Robust chance method, which then keeps Example 2.7
// feasible with probability one. The nominal solution moves exactly by the
// release support's lower end (x̄* = ℓ − lo), no realization is infeasible, and the
// release goes through noise's exact sampler (floating-point safe).
//
// What matters to the robust counterpart is the support, not the variance: the
// optimal ℓ₁ noise lives on [−ΛΔ, ΛΔ] with Λ = ⌈(1/ε)ln(1 + (e^ε−1)/(2δ))⌉ = 3,
// wider than the truncated Laplace support A = 2.26 for the same (ε, δ), so here
// the truncated Laplace gives the smaller optimality loss (logged).
func TestOptimalNoiseRobust(t *testing.T) {
	ctx := context.Background()
	par := noise.Params{Epsilon: 1, Delta: 0.1, Sensitivity: 1}
	opt, err := noise.Optimize(ctx, par, noise.OptimalOptions{Intervals: 60, SkipLowerBound: true, Symmetric: true})
	if err != nil {
		t.Fatal(err)
	}
	// The robust counterpart covers the noise the safe release adds: the
	// support widened by the release grid (noise.Mechanism.ReleaseSupport).
	lo, hi, err := opt.Mechanism.ReleaseSupport(noise.ReleaseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if clo, chi := opt.Dist.Support(); !(lo < clo && hi >= chi) {
		t.Fatalf("release support [%v, %v] does not cover the density's [%v, %v]", lo, hi, clo, chi)
	}
	p := example27(1, 2, 30)
	priv := Privacy{PrivacySpec: PrivacySpec{Mechanism: Custom, Epsilon: par.Epsilon, Delta: par.Delta}, Sensitivity: Sensitivity{Value: 1, Norm: 1}, Noise: opt.Dist}
	sol, err := Solve(ctx, p, Spec{Query: Identity(0), Privacy: priv, Chance: chance.Spec{Approximation: chance.Approximation{Method: chance.Robust}}})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(sol.Rule.XBar[0]-(2-lo)) > 1e-7 || sol.Counterpart.Guarantee.Kind != chance.Certain {
		t.Fatalf("x̄* = %v, want ℓ − lo = %v; guarantee %v", sol.Rule.XBar[0], 2-lo, sol.Counterpart.Guarantee)
	}
	ev, err := sol.Evaluate(ctx, EvalOptions{N: 100000, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	if ev.InfeasibleRate != 0 {
		t.Fatalf("infeasible rate %v, want 0", ev.InfeasibleRate)
	}
	rel, err := sol.Release(ReleaseOptions{Source: noise.NewSeededSource(1)})
	if err != nil || !rel.Record.FloatingPointSafe {
		t.Fatalf("release %+v, %v", rel, err)
	}
	// Same (ε, δ) with the truncated Laplace mechanism: support [−A, A].
	tl, err := Solve(ctx, p, Spec{Query: Identity(0), Privacy: Privacy{PrivacySpec: PrivacySpec{Mechanism: TruncatedLaplace, Epsilon: 1, Delta: 0.1}, Sensitivity: Sensitivity{Value: 1, Norm: 1}},
		Chance: chance.Spec{Approximation: chance.Approximation{Method: chance.Robust}}})
	if err != nil {
		t.Fatal(err)
	}
	tlEv, _ := tl.Evaluate(ctx, EvalOptions{N: 100000, Seed: 4})
	t.Logf("optimal noise (support [%.2f, %.2f], std %.3f): x̄* = %.3f, loss %.1f%%; truncated Laplace: x̄* = %.3f, loss %.1f%%",
		lo, hi, math.Sqrt(opt.Dist.Variance()), sol.Rule.XBar[0], ev.MeanLossPct, tl.Rule.XBar[0], tlEv.MeanLossPct)
}
