// Command dpdrotables recomputes cells of Table 4 of Selvi, Liu and
// Wiesemann, "Differential privacy via distributionally robust
// optimization" (Appendix D): the upper-bound suboptimality of the best
// benchmark mechanism (the truncated Laplace mechanism, Geng et al. 2020)
// for Δf = 1 and the ℓ₁ loss,
//
//	100%·(B_UB − O)/max{O, 1},   O = (P + D)/2,
//
// with B_UB the truncated Laplace's E|X| (closed form) and P, D privopt's
// upper and lower bounds on the optimal noise's E|X| (noise.Optimize). The
// paper's values are in testdata/table4.tsv. A cell is reported as
// comparable only when privopt's certified gap (P − D)/D is below 1%, the
// paper's own accuracy; otherwise O is too uncertain for a ±0.6-point
// comparison and the cell is marked.
//
// Usage:
//
//	go run ./bench/dpdrotables [-epsilon 1] [-delta all] [-intervals 200] [-lower-k 0] [-full-events] [-lower-support 0] [-dither-intervals 0] [-mixture]
package main

import (
	"bufio"
	"context"
	_ "embed"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/privopt/privopt/noise"

	// The optimal-noise solver's LPs run on HiGHS (registered by this import).
	_ "github.com/privopt/privopt/noise/lphighs"
)

// Cell is one (ε, δ) entry of the table with the paper's value in percent.
type Cell struct {
	Epsilon, Delta, Paper float64
}

//go:embed testdata/table4.tsv
var table4 string

// ReadTable reads the tab-separated table (comment lines start with #; the
// header row lists the δ values).
func ReadTable(r io.Reader) ([]Cell, error) {
	path := "table4.tsv"
	var deltas []float64
	var cells []Cell
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		parts := strings.Split(line, "\t")
		if parts[0] == "epsilon" {
			for _, p := range parts[1:] {
				d, err := strconv.ParseFloat(p, 64)
				if err != nil {
					return nil, fmt.Errorf("%s: header %q: %v", path, p, err)
				}
				deltas = append(deltas, d)
			}
			continue
		}
		if len(parts) != len(deltas)+1 {
			return nil, fmt.Errorf("%s: row %q has %d fields, want %d", path, parts[0], len(parts), len(deltas)+1)
		}
		eps, err := strconv.ParseFloat(parts[0], 64)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		for j, p := range parts[1:] {
			v, err := strconv.ParseFloat(p, 64)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", path, err)
			}
			cells = append(cells, Cell{Epsilon: eps, Delta: deltas[j], Paper: v})
		}
	}
	return cells, sc.Err()
}

// Result is privopt's value of a cell.
type Result struct {
	Cell
	TruncatedLaplace, Lower, Upper float64
	// Mixture is MixtureReference's certified loss (0: not computed); when
	// it is below Optimize's P it is the upper end of [Lower, Upper].
	Mixture float64
	Ours    float64 // percent
	Gap     float64 // (P − D)/D
	Took    time.Duration
}

// Comparable reports whether the certified gap is below 1%.
func (r Result) Comparable() bool { return r.Gap < 0.01 }

// Evaluate computes a cell with the optimal-noise options opts (Symmetric
// is set).
func Evaluate(ctx context.Context, c Cell, opts noise.OptimalOptions) (Result, error) {
	return evaluate(ctx, c, opts, false)
}

// evaluate is Evaluate; with mixture the upper end is also bounded by
// MixtureReference.
func evaluate(ctx context.Context, c Cell, opts noise.OptimalOptions, mixture bool) (Result, error) {
	p := noise.Params{Epsilon: c.Epsilon, Delta: c.Delta, Sensitivity: 1}
	t0 := time.Now()
	opts.Symmetric = true
	r, err := noise.Optimize(ctx, p, opts)
	if err != nil {
		return Result{}, err
	}
	tl, err := noise.TruncatedLaplaceMechanism(p)
	if err != nil {
		return Result{}, err
	}
	up, mix := r.UpperBound, 0.0
	if mixture {
		if mix, _, err = MixtureReference(c.Epsilon, c.Delta); err != nil {
			return Result{}, err
		}
		up = math.Min(up, mix)
	}
	o := (up + r.LowerBound) / 2
	b := tl.Dist.MeanAbs()
	return Result{Cell: c, TruncatedLaplace: b, Lower: r.LowerBound, Upper: up, Mixture: mix,
		Ours: 100 * (b - o) / math.Max(o, 1), Gap: (up - r.LowerBound) / r.LowerBound, Took: time.Since(t0)}, nil
}

func main() {
	epsFlag := flag.String("epsilon", "1", "ε rows to evaluate (comma-separated) or all")
	deltaFlag := flag.String("delta", "all", "δ columns to evaluate (comma-separated) or all")
	intervals := flag.Int("intervals", 200, "cells of the optimal-noise LPs")
	lowerK := flag.Int("lower-k", 0, "granularity of the lower bound (OptimalOptions.LowerGranularity; 0: automatic)")
	fullEvents := flag.Bool("full-events", false, "whole event region in the dithered lower bound at ε ≥ 5 (OptimalOptions.FullEventRegion)")
	lowerSupport := flag.Int("lower-support", 0, "half-width Λ_L of the lower bound's event region (OptimalOptions.LowerSupportMultiple; 0: automatic)")
	ditherM := flag.Int("dither-intervals", 0, "trapezoid intervals of the dithered lower bound's offsets (OptimalOptions.DitherIntervals; 0: the two ends)")
	mixture := flag.Bool("mixture", false, "also bound the optimum by the certified staircase mixture (MixtureReference)")
	flag.Parse()
	opt := noise.OptimalOptions{Intervals: *intervals, LowerGranularity: *lowerK, FullEventRegion: *fullEvents, LowerSupportMultiple: *lowerSupport, DitherIntervals: *ditherM}
	cells, err := ReadTable(strings.NewReader(table4))
	if err != nil {
		fmt.Fprintln(os.Stderr, "dpdrotables:", err)
		os.Exit(1)
	}
	keep := func(list string, v float64) bool {
		if list == "all" {
			return true
		}
		for _, s := range strings.Split(list, ",") {
			if x, err := strconv.ParseFloat(s, 64); err == nil && x == v {
				return true
			}
		}
		return false
	}
	fmt.Printf("%7s %6s %9s %9s %20s %7s %8s %9s\n", "ε", "δ", "paper %", "ours %", "optimal E|X| [D, P]", "gap %", "TL E|X|", "time")
	for _, c := range cells {
		if !keep(*epsFlag, c.Epsilon) || !keep(*deltaFlag, c.Delta) {
			continue
		}
		r, err := evaluate(context.Background(), c, opt, *mixture)
		if err != nil {
			fmt.Printf("%7g %6g %9.2f  error: %v\n", c.Epsilon, c.Delta, c.Paper, err)
			continue
		}
		mark := ""
		if !r.Comparable() {
			mark = "  (gap ≥ 1%: not comparable)"
		}
		far := 100 * (r.TruncatedLaplace - r.Lower) / math.Max(r.Lower, 1) // the interval's end nearer the paper
		fmt.Printf("%7g %6g %9.2f %9.2f   [%.5f, %.5f] %7.3f %8.5f %9.2fs%s  (ours as an interval: [%.2f, %.2f])\n", c.Epsilon, c.Delta, c.Paper, r.Ours, r.Lower, r.Upper, 100*r.Gap, r.TruncatedLaplace, r.Took.Seconds(), mark, 100*(r.TruncatedLaplace-r.Upper)/math.Max(r.Upper, 1), far)
	}
}
