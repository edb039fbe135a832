package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"time"

	"github.com/privopt/privopt/grid"
	"github.com/privopt/privopt/internal/shareddata"
)

// dailyProfile is an hourly load shape (fraction of the case's nominal load):
// a night trough, a morning ramp and an evening peak.
var dailyProfile = [24]float64{0.72, 0.69, 0.67, 0.66, 0.67, 0.71, 0.79, 0.87, 0.92, 0.95, 0.97, 0.98,
	0.98, 0.97, 0.96, 0.96, 0.97, 0.99, 1.00, 0.99, 0.95, 0.89, 0.82, 0.76}

func runOPF(ctx context.Context, name string) error {
	dir, err := shareddata.Dir()
	if err != nil {
		return err
	}
	t0 := time.Now()
	c, err := grid.ReadCase(filepath.Join(dir, "pglib", name+".m"))
	if err != nil {
		return err
	}
	n, err := grid.NewNetwork(c, grid.PowerModelsDC())
	if err != nil {
		return err
	}
	fmt.Printf("\nDC-OPF %s: %d buses, %d generators, %d branches (read %v); 24 hourly loads = profile × nominal × (1 + 1%% noise per bus)\n",
		name, n.NumBuses(), n.NumGens(), n.NumBranches(), time.Since(t0).Round(time.Millisecond))
	rng := rand.New(rand.NewPCG(24, 24))
	loads := make([][]float64, 24)
	for h := range loads {
		loads[h] = make([]float64, n.NumBuses())
		for i, d := range n.Load {
			loads[h][i] = d * dailyProfile[h] * (1 + 0.01*rng.NormFloat64())
		}
	}
	fmt.Printf("%-26s %14s %14s %12s %10s %10s\n", "costs", "rebuild/solve", "param/solve", "param build", "speed-up", "max Δcost")
	c2, _, _, _ := n.CostCoefficients()
	variants := []bool{false}
	if slices.ContainsFunc(c2, func(v float64) bool { return v != 0 }) {
		variants = append(variants, true) // with c2 dropped: an LP
	}
	for _, linear := range variants {
		opt := grid.OPFOptions{LinearCost: linear}
		// Rebuild: BuildOPF with the hour's loads + Solve.
		var rebuild time.Duration
		costs := make([]float64, 24)
		for h, load := range loads {
			t := time.Now()
			o := opt
			o.Load = load
			op, err := n.BuildOPF(o)
			if err != nil {
				return err
			}
			s, err := op.Solve(ctx)
			if err != nil || !s.Status.OK() {
				return fmt.Errorf("rebuild hour %d: %v %v", h, err, s)
			}
			rebuild += time.Since(t)
			costs[h] = s.Cost
		}
		// Parameters: one BuildParamOPF, then SetLoad + Solve per hour.
		t := time.Now()
		po, err := n.BuildParamOPF(opt)
		if err != nil {
			return err
		}
		build := time.Since(t)
		warm := po.WarmStart()
		var param time.Duration
		maxd := 0.0
		for h, load := range loads {
			t := time.Now()
			if err := po.SetLoad(load); err != nil {
				return err
			}
			s, err := po.Solve(ctx)
			if err != nil || !s.Status.OK() {
				return fmt.Errorf("param hour %d: %v %v", h, err, s)
			}
			param += time.Since(t)
			maxd = math.Max(maxd, math.Abs(s.Cost-costs[h])/math.Abs(costs[h]))
		}
		po.Close()
		label := "case's costs"
		if linear {
			label = "linear (c2 dropped)"
		}
		if warm {
			label += ", LP (warm)"
		} else {
			label += ", QP"
		}
		r, p := rebuild/24, param/24
		fmt.Printf("%-26s %14s %14s %12s %9.1f× %10.1e\n", label, r.Round(time.Millisecond), p.Round(time.Millisecond), build.Round(time.Millisecond), float64(r)/float64(p), maxd)
	}
	return nil
}
