// Command mixtures tabulates the multi-Gaussian mechanism of Liu & Selvi
// ("Mixtures of Gaussians in approximate differential privacy", Definition 3,
// Algorithms 6–7) at the acceptance points of issue 28: for each (ε, δ) and
// K ∈ {1, 5, 9} and the best K in 1..10, σ from Algorithm 6 (η = 0.01), the
// expected ℓ₁ loss E|X|, the rigorous certificate (noise.CertifyMultiGaussian,
// every shift in [0, Δ]), an independent check — the rigorous profile bound
// noise.MultiGaussian.HockeyStickUpper at -shifts evenly spaced shifts of
// [0, Δ], none of which the tuning or the certificate chose — and the
// improvement of E|X| over the analytic Gaussian next to the paper's Table 8
// (best K ∈ 1..10, whose K is Table 11's).
//
// Usage: go run ./bench/mixtures [-shifts 10000]
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/privopt/privopt/noise"
)

func main() {
	shifts := flag.Int("shifts", 10000, "evenly spaced shifts of the independent check")
	flag.Parse()
	cases := []struct {
		eps, delta float64
		paper      float64 // Table 8, % improvement of E|X| (best K)
		paperK     int     // Table 11
	}{{1, 1e-3, 52.99, 9}, {1, 0.1, 13.13, 2}, {2, 0.1, 35.70, 8}, {5, 0.01, 93.44, 9}}
	fmt.Println("multi-Gaussian mechanism, Δ = 1, η = 0.01; E|X| improvement over the analytic Gaussian (AG)")
	fmt.Printf("%4s %6s %4s %10s %10s %10s %8s %9s %7s %12s %9s %8s %8s %8s\n",
		"ε", "δ", "K", "σ", "E|X|", "AG E|X|", "impr%", "paper%(K)", "cert", "cert_shifts", "max_H/δ", "tune_s", "cert_s", "check_s")
	for _, c := range cases {
		p := noise.Params{Epsilon: c.eps, Delta: c.delta, Sensitivity: 1}
		ag, err := noise.AnalyticGaussianMechanism(p)
		if err != nil {
			fail(err)
		}
		a := ag.Dist.MeanAbs()
		for _, k := range []int{1, 5, 9, 0} {
			t0 := time.Now()
			m, err := noise.MultiGaussianMechanism(p, noise.MultiGaussianOptions{K: k})
			if err != nil {
				fail(err)
			}
			tune := time.Since(t0)
			d := m.Dist.(*noise.MultiGaussian)
			t1 := time.Now()
			cert, err := noise.CertifyMultiGaussian(d, p)
			if err != nil {
				fail(err)
			}
			certT := time.Since(t1)
			t2 := time.Now()
			worst := 0.0
			for i := 0; i <= *shifts; i++ {
				phi := p.Sensitivity * float64(i) / float64(*shifts)
				if u := d.HockeyStickUpper(p.Epsilon, phi, 1e-4*p.Delta); u > worst {
					worst = u
				}
			}
			check := time.Since(t2)
			label := fmt.Sprint(k)
			paper := ""
			if k == 0 {
				label = fmt.Sprintf("%d*", d.K)
				paper = fmt.Sprintf("%.2f(%d)", c.paper, c.paperK)
			}
			fmt.Printf("%4g %6g %4s %10.6f %10.6f %10.6f %8.2f %9s %7v %12d %9.6f %8.2f %8.2f %8.1f\n",
				c.eps, c.delta, label, d.Sigma, d.MeanAbs(), a, 100*(a-d.MeanAbs())/a, paper, cert.Certified, cert.ShiftsChecked,
				worst/p.Delta, tune.Seconds(), certT.Seconds(), check.Seconds())
			if !cert.Certified || worst > p.Delta {
				fail(fmt.Errorf("(%g, %g) K = %d: not (ε, δ)-DP by the checks", c.eps, c.delta, d.K))
			}
		}
	}
	fmt.Printf("K*: the best K in 1..10 for E|X| (MultiGaussianOptions{K: 0}); max_H/δ: the largest rigorous bound over the %d + 1 shifts, divided by δ.\n", *shifts)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "mixtures:", err)
	os.Exit(1)
}
