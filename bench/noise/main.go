// Command noise benchmarks the optimal-noise solver of package noise:
// (ε,δ) = (1, 0.2), Δ = 1, ℓ₁ loss, symmetric densities, at several sizes, with
// the split between LP re-solves, the most-violated-constraint search and the
// exact certificate, and the speed-up of the structured search over the
// pairwise search of Algorithm 2 measured on the same instance in the same run.
//
// With -large it instead compares, at the large-ε points of issue 28, the
// solver's bounds with the staircase (the optimal ε-DP noise) and the
// multi-Gaussian, to tell which bound is loose.
//
// With -adaptive it instead times the 2,000-cell upper bound at (1, 0.2)
// (ℓ₁, symmetric, k = 500) twice in one run: the full LP over all cells
// (OptimalOptions.FullUpperLP, the solver before the adaptive partition) and
// the default adaptive partition, wall and CPU time of this process.
//
// Usage: go run ./bench/noise [-sizes 100,200,400] [-plain 200] [-gap-run] [-large] [-adaptive]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/privopt/privopt/bench/internal/cputime"
	"github.com/privopt/privopt/noise"
	_ "github.com/privopt/privopt/noise/lphighs"
)

func main() {
	sizes := flag.String("sizes", "100,200,400", "approximate numbers of cells")
	plainN := flag.Int("plain", 200, "size of the structured-vs-pairwise comparison (0: skip)")
	gapRun := flag.Bool("gap-run", true, "also refine Example 1 (ℓ₂, Δ = 360) to a certified gap below 1%")
	large := flag.Bool("large", false, "only the large-ε diagnosis: bounds against the staircase and the multi-Gaussian")
	kl := flag.Int("kl", 0, "with -large: the lower bound's granularity (OptimalOptions.LowerGranularity; 0: automatic)")
	adaptive := flag.Bool("adaptive", false, "only the 2,000-cell upper bound at (1, 0.2): full LP against the adaptive partition")
	flag.Parse()
	if *adaptive {
		adaptiveRun()
		return
	}
	if *large {
		largeEps(*kl)
		return
	}
	p := noise.Params{Epsilon: 1, Delta: 0.2, Sensitivity: 1}
	ctx := context.Background()
	fmt.Println("optimal noise, (ε,δ) = (1, 0.2), Δ = 1, ℓ₁, symmetric; lower bound: dithered (default) and the paper's D(π,β) on the same grid")
	fmt.Printf("%6s %10s %10s %5s %8s %8s %9s %9s %9s %7s | %10s %8s %8s\n", "N", "upper", "lower", "lb_k", "gap%", "wall_s", "lp_s", "search_s", "cert_s", "cert", "paper_lb", "gap%", "wall_s")
	for _, f := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			fmt.Fprintln(os.Stderr, "bad size", f)
			os.Exit(2)
		}
		r, err := noise.Optimize(ctx, p, noise.OptimalOptions{Intervals: n, Symmetric: true})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		q, err := noise.Optimize(ctx, p, noise.OptimalOptions{Intervals: n, Symmetric: true, PaperLowerBound: true})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Printf("%6d %10.6f %10.6f %5d %8.3f %8.3f %9.3f %9.4f %9.4f %7v | %10.6f %8.3f %8.3f\n", r.Intervals, r.UpperBound, r.LowerBound, r.LowerGranularity, 100*r.Gap,
			r.Time.Seconds(), r.LPTime.Seconds(), r.SearchTime.Seconds(), r.CertifyTime.Seconds(), r.Certificate.Certified, q.LowerBound, 100*q.Gap, q.Time.Seconds())
	}
	fmt.Println("\ncertified gap below 1% (Gap 0.01; the lower bound stops once it certifies the target):")
	for _, n := range []int{40, 100, 2000} {
		r, err := noise.Optimize(ctx, p, noise.OptimalOptions{Intervals: n, Gap: 0.01, Symmetric: true})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Printf("Intervals %4d: %4d cells (k = %d), upper %.6f, lower %.6f (%s, k = %d), gap %.3f%%, refinements %d, wall %.3fs (lp %.3fs, search %.4fs, certificate %.4fs), certified %v\n",
			n, r.Intervals, r.Granularity, r.UpperBound, r.LowerBound, r.LowerMethod, r.LowerGranularity, 100*r.Gap, r.Refinements, r.Time.Seconds(), r.LPTime.Seconds(), r.SearchTime.Seconds(), r.CertifyTime.Seconds(), r.Certificate.Certified)
	}
	fmt.Println("\nlarge ε, automatic grid (ℓ₁, Δ = 1, symmetric):")
	for _, q := range []noise.Params{{Epsilon: 9, Delta: 0.01, Sensitivity: 1}, {Epsilon: 10, Delta: 0.001, Sensitivity: 1}} {
		r, err := noise.Optimize(ctx, q, noise.OptimalOptions{Symmetric: true})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		u, err := noise.Optimize(ctx, q, noise.OptimalOptions{Granularity: r.LowerGranularity, Symmetric: true, SkipLowerBound: true})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		tl, _ := noise.TruncatedLaplaceMechanism(q)
		fmt.Printf("(ε,δ) = (%g, %g): graded upper %v (k=%d, %d cells) %.6f, uniform k=%d upper %.6f, truncated Laplace %.6f, lower %.6f, gap %.1f%%, wall %.2fs\n",
			q.Epsilon, q.Delta, r.GradedUpper, r.Granularity, r.Intervals, r.UpperBound, u.Granularity, u.UpperBound, tl.Dist.MeanAbs(), r.LowerBound, 100*r.Gap, r.Time.Seconds())
	}
	if *plainN > 0 {
		var t [2]time.Duration
		var rounds [2]int
		for i, plain := range []bool{false, true} {
			r, err := noise.Optimize(ctx, p, noise.OptimalOptions{Intervals: *plainN, Symmetric: true, PlainSearch: plain})
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			t[i], rounds[i] = r.SearchTime, r.Rounds
		}
		fmt.Printf("\nsearch time at N≈%d (same instance, %d/%d rounds): structured %.4fs, pairwise (Algorithm 2) %.4fs, speed-up %.0f×\n",
			*plainN, rounds[0], rounds[1], t[0].Seconds(), t[1].Seconds(), t[1].Seconds()/t[0].Seconds())
	}
	if *gapRun {
		q := noise.Params{Epsilon: 1, Delta: 0.2, Sensitivity: 360}
		r, err := noise.Optimize(ctx, q, noise.OptimalOptions{Loss: noise.L2(), Symmetric: true, Granularity: 130})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Printf("\nExample 1 (ℓ₂, Δ = 360): std %.2f (paper 257.68), gap %.3f%%, N = %d, certified %v, wall %.2fs\n",
			noise.Std(r.Dist), 100*r.Gap, r.Intervals, r.Certificate.Certified, r.Time.Seconds())
	}
}

// largeEps prints, at (9, 0.01), (9, 1e-4) and (5, 0.01) with Δ = 1 and the
// ℓ₁ loss, the optimal-noise bounds next to the staircase's and the best
// multi-Gaussian's E|X| (both reference upper bounds); kl > 0 sets the lower
// bound's granularity.
func largeEps(kl int) {
	fmt.Printf("%4s %7s %10s %10s %8s %6s %14s %10s %10s %8s\n", "ε", "δ", "upper", "lower", "gap%", "cells", "lower_method", "staircase", "multi-G", "wall_s")
	for _, c := range [][2]float64{{9, 0.01}, {9, 1e-4}, {5, 0.01}} {
		p := noise.Params{Epsilon: c[0], Delta: c[1], Sensitivity: 1}
		t0 := time.Now()
		r, err := noise.Optimize(context.Background(), p, noise.OptimalOptions{Symmetric: true, LowerGranularity: kl})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		wall := time.Since(t0)
		sc, _ := noise.StaircaseMechanism(p, noise.L1())
		mg, err := noise.MultiGaussianMechanism(p, noise.MultiGaussianOptions{})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Printf("%4g %7g %10.5f %10.5f %8.1f %6d %14s %10.5f %10.5f %8.1f\n", c[0], c[1], r.UpperBound, r.LowerBound, 100*r.Gap, r.Intervals, r.LowerMethod,
			sc.Dist.MeanAbs(), mg.Dist.MeanAbs(), wall.Seconds())
	}
}

// adaptiveRun solves the upper bound with Intervals 2,000 at (1, 0.2), ℓ₁,
// symmetric, SkipLowerBound, first over all cells (FullUpperLP), then over the
// adaptive partition, and prints both values and times; then the whole
// Optimize (both bounds) with the adaptive partition.
func adaptiveRun() {
	p := noise.Params{Epsilon: 1, Delta: 0.2, Sensitivity: 1}
	fmt.Printf("%-26s %14s %6s %7s %9s %9s %8s\n", "upper bound, 2,000 cells", "value", "k", "parts", "wall_s", "cpu_s", "cert")
	for _, full := range []bool{true, false} {
		c0, t0 := cputime.Process(), time.Now()
		r, err := noise.Optimize(context.Background(), p, noise.OptimalOptions{Intervals: 2000, Symmetric: true, SkipLowerBound: true, FullUpperLP: full})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		name := "adaptive partition"
		if full {
			name = "full LP (FullUpperLP)"
		}
		fmt.Printf("%-26s %14.10f %6d %7d %9.3f %9.3f %8v\n", name, r.UpperBound, r.Granularity, r.Intervals, time.Since(t0).Seconds(), (cputime.Process() - c0).Seconds(), r.Certificate.Certified)
	}
	c0, t0 := cputime.Process(), time.Now()
	r, err := noise.Optimize(context.Background(), p, noise.OptimalOptions{Intervals: 2000, Symmetric: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("Optimize, both bounds: upper %.10f, lower %.6f (%s, k = %d), gap %.3f%%, wall %.3fs, cpu %.3fs\n",
		r.UpperBound, r.LowerBound, r.LowerMethod, r.LowerGranularity, 100*r.Gap, time.Since(t0).Seconds(), (cputime.Process() - c0).Seconds())
}
