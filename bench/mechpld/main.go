// Command mechpld composes the privacy-loss distributions of package
// accounting for every scalar mechanism of package noise, k ∈ {1, 10, 100}
// times, and prints the composed ε at δ_ref = k·δ₀ (10⁻⁵ for pure ε₀-DP
// mechanisms) against basic composition's kε₀, and δ at ε = k·ε₀/2 (grid
// h = 10⁻³, so each ε is within k·h of the exact one for the dominating pair
// used), with the exact μ-GDP ε for the Gaussian (μ = √k·Δ/σ); then the
// Poisson-subsampled Gaussian of DP-SGD.
//
// Usage: go run ./bench/mechpld
package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"time"

	"github.com/privopt/privopt/accounting"
	"github.com/privopt/privopt/noise"
	_ "github.com/privopt/privopt/noise/lphighs"
)

func main() {
	const h = 1e-3
	ctx := context.Background()
	type mk struct {
		label string
		f     func() (*noise.Mechanism, error)
	}
	p1 := noise.Params{Epsilon: 1, Delta: 1e-5, Sensitivity: 1}
	mechs := []mk{
		{"laplace (1, 0)", func() (*noise.Mechanism, error) { return noise.LaplaceMechanism(p1) }},
		{"analytic-gaussian (1, 1e-5)", func() (*noise.Mechanism, error) { return noise.AnalyticGaussianMechanism(p1) }},
		{"truncated-laplace (1, 1e-5)", func() (*noise.Mechanism, error) { return noise.TruncatedLaplaceMechanism(p1) }},
		{"staircase (1, 0)", func() (*noise.Mechanism, error) { return noise.StaircaseMechanism(p1, noise.L1()) }},
		{"multi-gaussian (1, 0.1), K = 2", func() (*noise.Mechanism, error) {
			return noise.MultiGaussianMechanism(noise.Params{Epsilon: 1, Delta: 0.1, Sensitivity: 1}, noise.MultiGaussianOptions{K: 2})
		}},
		{"optimal (1, 1e-3), 200 cells", func() (*noise.Mechanism, error) {
			r, err := noise.Optimize(ctx, noise.Params{Epsilon: 1, Delta: 1e-3, Sensitivity: 1}, noise.OptimalOptions{Intervals: 200, Symmetric: true, SkipLowerBound: true})
			if err != nil {
				return nil, err
			}
			return r.Mechanism, nil
		}},
	}
	fmt.Println("composed (ε, δ) through the PLD accountant, h = 1e-3")
	fmt.Printf("%-32s %4s %9s %10s %14s %8s %12s %7s\n", "mechanism", "k", "δ_ref", "ε(δ_ref)", "GDP ε(δ_ref)", "basic ε", "δ(kε₀/2)", "pld_s")
	for _, m := range mechs {
		mech, err := m.f()
		if err != nil {
			fail(err)
		}
		t0 := time.Now()
		p, err := accounting.MechanismPLD(ctx, mech, h)
		if err != nil {
			fail(err)
		}
		build := time.Since(t0)
		for _, k := range []int{1, 10, 100} {
			pk, err := p.ComposeK(k)
			if err != nil {
				fail(err)
			}
			e0 := mech.Params.Epsilon
			dref := math.Min(0.5, float64(k)*mech.Params.Delta)
			if dref == 0 {
				dref = 1e-5
			}
			ref := "-"
			if g, ok := mech.Dist.(*noise.Gaussian); ok {
				ref = fmt.Sprintf("%.4f", gdpEpsilon(math.Sqrt(float64(k))*mech.Params.Sensitivity/g.Sigma, dref))
			}
			fmt.Printf("%-32s %4d %9.3g %10.4f %14s %8g %12.4g %7.2f\n", m.label, k, dref, pk.Epsilon(dref), ref, float64(k)*e0, pk.Delta(float64(k)*e0/2), build.Seconds())
		}
	}
	fmt.Println("\nPoisson-subsampled Gaussian (DP-SGD, add/remove adjacency), Δ = 1, δ = 1e-5, h = 1e-4")
	fmt.Printf("%6s %6s %6s %12s %14s\n", "σ", "q", "k", "ε", "σ for ε = 1")
	for _, c := range []struct {
		sigma, q float64
		k        int
	}{{1, 0.01, 1}, {1, 0.01, 10}, {1, 0.01, 100}, {1, 0.01, 1000}, {2, 0.05, 100}} {
		e, err := accounting.SubsampledGaussianEpsilon(c.sigma, c.q, 1, c.k, 1e-5, accounting.SubsampledGaussianOptions{})
		if err != nil {
			fail(err)
		}
		s, err := accounting.SubsampledGaussianSigma(1, 1e-5, c.q, 1, c.k, accounting.SubsampledGaussianOptions{Step: 1e-3})
		if err != nil {
			fail(err)
		}
		fmt.Printf("%6g %6g %6d %12.4f %14.4f\n", c.sigma, c.q, c.k, e, s)
	}
}

// gdpEpsilon is the exact ε of μ-GDP at δ (Dong, Roth and Su 2022, Cor. 2.13).
func gdpEpsilon(mu, delta float64) float64 {
	phi := func(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }
	d := func(e float64) float64 { return phi(-e/mu+mu/2) - math.Exp(e)*phi(-e/mu-mu/2) }
	lo, hi := 0.0, 500.0
	for hi-lo > 1e-10 {
		m := (lo + hi) / 2
		if d(m) <= delta {
			hi = m
		} else {
			lo = m
		}
	}
	return hi
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "mechpld:", err)
	os.Exit(1)
}
