// Command batchbudget prints the privacy budget a dataset needs for 365
// releases fixed in advance (one plan: a year of daily releases, or one
// batch of 365 hourly releases) under basic composition, under PLD
// composition of the batch (accounting.BatchCost, charged to the ledger as
// one release) and, for Gaussian releases, under the Gaussian-DP and
// Rényi-DP filters (valid even for adaptively chosen releases), and the same
// for a year of days each a batch of 24 hourly releases (BENCHMARKS.md,
// "Ledger at scale").
//
//	go run ./bench/batchbudget
package main

import (
	"fmt"
	"math"
	"os"

	"github.com/privopt/privopt/accounting"
	"github.com/privopt/privopt/noise"
)

func main() {
	const step = 1e-4
	const delta = 1e-6 // the budget's δ
	p := noise.Params{Epsilon: 0.1, Delta: 1e-8, Sensitivity: 1}
	ag, err := noise.AnalyticGaussianMechanism(p)
	if err != nil {
		fail(err)
	}
	sigma := ag.Dist.(*noise.Gaussian).Sigma
	lap, err := accounting.LaplacePLD(10, 1, step)
	if err != nil {
		fail(err)
	}
	gau, err := accounting.GaussianPLD(sigma, 1, step)
	if err != nil {
		fail(err)
	}
	fmt.Printf("budget δ = %g; per release ε₀ = 0.1 (Laplace scale 10; analytic Gaussian (0.1, 1e-8), σ = %.3f, μ = %.4f)\n\n", delta, sigma, 1/sigma)
	fmt.Println("| releases | mechanism | basic composition ε | PLD batch ε | Gaussian-DP filter ε | Rényi-DP filter ε (best α) |")
	fmt.Println("|---|---|---:|---:|---:|---:|")
	for _, c := range []struct {
		name     string
		k, days  int
		one      *accounting.PLD
		gaussian bool
		d0       float64
	}{
		{"365 in one batch", 365, 1, lap, false, 0},
		{"365 in one batch", 365, 1, gau, true, 1e-8},
		{"365 days × 24 hourly (a batch per day)", 24, 365, lap, false, 0},
		{"365 days × 24 hourly (a batch per day)", 24, 365, gau, true, 1e-8},
	} {
		n := c.k * c.days
		basic := fmt.Sprintf("%.4g (δ %.3g)", 0.1*float64(n), c.d0*float64(n))
		// PLD per batch at δ/days, the batches composed by the basic filter.
		bc, err := accounting.BatchCost(c.one, c.k, delta/float64(c.days))
		if err != nil {
			fail(err)
		}
		pld := fmt.Sprintf("%.4g", bc.Epsilon*float64(c.days))
		gdp, rdp := "—", "—"
		mech := "Laplace"
		if c.gaussian {
			mech = "analytic Gaussian"
			mu := math.Sqrt(float64(n)) / sigma
			gdp = fmt.Sprintf("%.4g", accounting.GDPEpsilon(mu, delta))
			best := math.Inf(1)
			for a := 1.5; a <= 256; a *= 1.05 {
				e := float64(n)*a/(2*sigma*sigma) + math.Log(1/delta)/(a-1)
				best = math.Min(best, e)
			}
			rdp = fmt.Sprintf("%.4g", best)
		}
		fmt.Printf("| %s | %s | %s | %s | %s | %s |\n", c.name, mech, basic, pld, gdp, rdp)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "batchbudget:", err)
	os.Exit(1)
}
