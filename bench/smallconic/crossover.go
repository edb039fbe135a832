package main

import (
	"fmt"
	"math"
	"os"
	"sort"
	"strings"

	"github.com/privopt/privopt/bench/internal/pglibcase"
	"github.com/privopt/privopt/internal/shareddata"
	"github.com/privopt/privopt/solver/auto"
)

// lpFirst is the default route with auto.Solver.SmallLPNnz = k: −1 starts
// every LP with HiGHS (the route before round 9), math.MaxInt every LP with
// the IPM.
func lpFirst(k int) *auto.Solver {
	s := auto.New()
	s.SmallLPNnz = k
	return s
}

// gridInstances returns the DC-OPF LPs of the named PGLib cases (the shared
// data folder's pglib/pglib_opf_case<NAME>.m), built by grid.BuildOPF as
// the releases build them and canonicalized by the model package: linear
// costs (OPFOptions.LinearCost) in the B-θ and PTDF formulations, and
// 4-segment piecewise-linear costs (Case.PiecewiseCosts) in PTDF
// (pglibcase.DCOPFLPs).
func gridInstances(names []string) ([]instance, error) {
	dir, err := shareddata.Dir()
	if err != nil {
		return nil, fmt.Errorf("-grid needs the shared data folder: %w", err)
	}
	var out []instance
	for _, name := range names {
		name = strings.TrimSpace(name)
		lps, skipped, err := pglibcase.DCOPFLPs(dir, name, []string{"dcopf-lin-btheta", "dcopf-lin-ptdf", "dcopf-pwl-ptdf"})
		if err != nil {
			return nil, err
		}
		for _, f := range skipped {
			fmt.Fprintf(os.Stderr, "smallconic: case %s %s is not an LP, left out\n", name, f)
		}
		for _, lp := range lps {
			out = append(out, instance{name: lp.Family + "_" + name, family: lp.Family, n: lp.Buses, p: lp.Problem, want: "optimal"})
		}
	}
	return out, nil
}

// group is the source of a family's LPs: "dcopf" (gridInstances) or
// "random" (the generated families).
func group(family string) string {
	if strings.HasPrefix(family, "dcopf") {
		return "dcopf"
	}
	return "random"
}

// crossover prints, for every LP solved by both auto-highs (HiGHS first)
// and auto-ipm (IPM first), the sizes of A and both times, then the
// geometric-mean slowdown against the faster route of each instance (the
// oracle) of the rule "IPM first when nnz(A) ≤ T", per group (random, dcopf)
// for a range of T, auto.DefaultSmallLPNnz among them, and the T whose
// larger group slowdown is the smallest; the same for rows + columns ≤ T.
func crossover(insts []instance, res map[string]map[string]result) {
	type row struct {
		in         instance
		nnz, order int
		h, i       result
	}
	var rows []row
	for _, in := range insts {
		h, ok1 := res["auto-highs"][in.name]
		i, ok2 := res["auto-ipm"][in.name]
		if !ok1 || !ok2 || math.IsNaN(h.seconds) || math.IsNaN(i.seconds) || !in.p.IsLinearConic() || (in.p.P != nil && in.p.P.Nnz() > 0) {
			continue
		}
		rows = append(rows, row{in, in.p.A.Nnz(), in.p.NumRows() + in.p.NumVars(), h, i})
	}
	if len(rows) == 0 {
		fmt.Println("crossover: no LP solved by both auto-highs and auto-ipm (run with -backends auto-highs,auto-ipm)")
		return
	}
	fmt.Println()
	fmt.Println("| instance | rows | cols | nnz(A) | HiGHS first | IPM first | IPM/HiGHS | statuses |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	for _, r := range rows {
		st := r.h.status
		if r.i.status != r.h.status {
			st += " ≠ " + r.i.status
		}
		fmt.Printf("| %s | %d | %d | %d | %.3g ms | %.3g ms | %.2f | %s |\n", r.in.name, r.in.p.NumRows(), r.in.p.NumVars(), r.nnz,
			1e3*r.h.seconds, 1e3*r.i.seconds, r.i.seconds/r.h.seconds, st)
	}
	// slowdown(T, size, g) is the geometric mean over the instances of
	// group g ("" for all) of the chosen route's time over the faster
	// route's.
	slowdown := func(t int, size func(row) int, g string) float64 {
		var s float64
		k := 0
		for _, r := range rows {
			if g != "" && group(r.in.family) != g {
				continue
			}
			chosen := r.h.seconds
			if size(r) <= t {
				chosen = r.i.seconds
			}
			s += math.Log(chosen / math.Min(r.h.seconds, r.i.seconds))
			k++
		}
		if k == 0 {
			return math.NaN()
		}
		return math.Exp(s / float64(k))
	}
	var groups []string
	seen := map[string]bool{}
	for _, r := range rows {
		if g := group(r.in.family); !seen[g] {
			seen[g] = true
			groups = append(groups, g)
		}
	}
	// worst is the rule's objective: the larger of the groups' slowdowns,
	// so that neither the random LPs nor the DC-OPF LPs decide alone.
	worst := func(t int, size func(row) int) float64 {
		w := 0.0
		for _, g := range groups {
			w = math.Max(w, slowdown(t, size, g))
		}
		return w
	}
	for _, m := range []struct {
		name string
		size func(row) int
	}{{"nnz(A)", func(r row) int { return r.nnz }}, {"rows + cols", func(r row) int { return r.order }}} {
		cands := []int{0}
		for _, r := range rows {
			cands = append(cands, m.size(r))
		}
		sort.Ints(cands)
		best, bestT := math.Inf(1), 0
		for _, t := range cands {
			if v := worst(t, m.size); v < best {
				best, bestT = v, t
			}
		}
		fmt.Printf("\nIPM first when %s ≤ T: the T with the smallest worst group slowdown is %d (%.3f)\n\n", m.name, bestT, best)
		head, rule := "| T |", "|---|"
		for _, g := range groups {
			head += " " + g + " |"
			rule += "---|"
		}
		fmt.Println(head + " worst |")
		fmt.Println(rule + "---|")
		ts := []int{-1, 250, 500, 750, 1000, 1500, 2000, 3000, 5000, 10000, math.MaxInt, bestT}
		if m.name == "nnz(A)" {
			ts = append(ts, auto.DefaultSmallLPNnz)
		}
		for _, t := range ts {
			label := fmt.Sprint(t)
			switch {
			case t < 0:
				label = "HiGHS first always"
			case t == math.MaxInt:
				label = "IPM first always"
			case t == bestT:
				label += " (best)"
			}
			if m.name == "nnz(A)" && t == auto.DefaultSmallLPNnz {
				label += " (auto.DefaultSmallLPNnz)"
			}
			line := "| " + label + " |"
			for _, g := range groups {
				line += fmt.Sprintf(" %.3f |", slowdown(t, m.size, g))
			}
			fmt.Printf("%s %.3f |\n", line, worst(t, m.size))
		}
	}
}
