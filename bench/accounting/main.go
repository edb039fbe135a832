// Command accounting prints the table of total ε for k daily releases under
// basic composition, advanced composition (Dwork, Rothblum and Vadhan 2010)
// and the pessimistic PLD accountant of package accounting, for Laplace,
// analytic Gaussian and truncated Laplace releases (BENCHMARKS.md).
//
//	go run ./bench/accounting
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
	const step = 1e-4
	const deltaPrime = 1e-6
	fmt.Println("| mechanism (per release) | k | δ_total | basic ε | advanced ε | PLD ε | saved vs advanced | saved vs min(basic, advanced) | PLD time |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	type row struct {
		name   string
		eps0   float64
		delta0 float64
		pld    func() (*accounting.PLD, error)
	}
	p := noise.Params{Epsilon: 0.1, Delta: 1e-8, Sensitivity: 1}
	ag, err := noise.AnalyticGaussianMechanism(p)
	if err != nil {
		fail(err)
	}
	tl, err := noise.TruncatedLaplaceMechanism(p)
	if err != nil {
		fail(err)
	}
	sigma := ag.Dist.(*noise.Gaussian).Sigma
	td := tl.Dist.(*noise.TruncatedLaplace)
	rows := []row{
		{"Laplace (0.1, 0)", 0.1, 0, func() (*accounting.PLD, error) { return accounting.LaplacePLD(10, 1, step) }},
		{fmt.Sprintf("analytic Gaussian (0.1, 1e-8), σ = %.2f", sigma), 0.1, 1e-8, func() (*accounting.PLD, error) { return accounting.GaussianPLD(sigma, 1, step) }},
		{"truncated Laplace (0.1, 1e-8)", 0.1, 1e-8, func() (*accounting.PLD, error) {
			return accounting.TruncatedLaplacePLD(td.Scale, td.Bound, 1, step)
		}},
	}
	// Optimal ℓ₁ noise at (0.1, 1e-6): the PLD of the pair (X, X + Δ); its δ at
	// ε₀ is checked against the certifier's maximum over all shifts.
	po := noise.Params{Epsilon: 0.1, Delta: 1e-6, Sensitivity: 1}
	opt, err := noise.Optimize(context.Background(), po, noise.OptimalOptions{Intervals: 200, Symmetric: true, SkipLowerBound: true})
	if err != nil {
		fail(err)
	}
	pc := opt.Mechanism.Dist.(*noise.PiecewiseConstant)
	if one, err := accounting.PiecewisePLD(pc, 1, step); err == nil {
		fmt.Fprintf(os.Stderr, "optimal noise: PLD at shift Δ: δ(ε₀) = %.6g, δ(ε₀ + h) = %.6g; certifier's max over shifts δ(ε₀) = %.6g (%d cells)\n",
			one.Delta(0.1), one.Delta(0.1+step), 1e-6+opt.Certificate.MaxShortfall, pc.Len())
	}
	rows = append(rows, row{fmt.Sprintf("optimal ℓ₁ noise (0.1, 1e-6), %d cells*", pc.Len()), 0.1, 1e-6, func() (*accounting.PLD, error) {
		return accounting.PiecewisePLD(pc, 1, step)
	}})
	for _, r := range rows {
		one, err := r.pld()
		if err != nil {
			fail(err)
		}
		for _, k := range []int{10, 100, 365} {
			start := time.Now()
			pk, err := one.ComposeK(k)
			if err != nil {
				fail(err)
			}
			dTotal := float64(k)*r.delta0 + deltaPrime
			e := pk.Epsilon(dTotal)
			took := time.Since(start)
			basic := float64(k) * r.eps0
			adv := accounting.AdvancedComposition(r.eps0, k, deltaPrime)
			best := math.Min(basic, adv)
			fmt.Printf("| %s | %d | %.3g | %.3f | %.3f | %.3f | %.1f%% | %.1f%% | %.2f s |\n",
				r.name, k, dTotal, basic, adv, e, 100*(1-e/adv), 100*(1-e/best), took.Seconds())
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "accounting:", err)
	os.Exit(1)
}
