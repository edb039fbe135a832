// Command mixedscale is the acceptance run of the row-wise re-check: it solves
// generated LPs, QPs and SOCPs with a planted optimum whose row blocks span
// 10⁻⁶ … 10⁶ in one problem (internal/solvertest: MixedSuite), and the
// badly scaled LP class of one small row among large ones (OneSmallRow), on
// the default route (solver/auto) and on each backend alone, and counts the
// answers claimed Optimal (or AlmostOptimal) that the independent judge
// (solvertest.Judge: objective and every row of x on its own scale, to 10⁻⁵)
// finds wrong.
//
//	go run ./bench/mixedscale [-n 1200] [-small 400] [-backends auto,ipm,highs] [-time-limit 20s]
//
// HiGHS alone is run on the LPs only.
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"time"

	"github.com/privopt/privopt/internal/solvertest"
	"github.com/privopt/privopt/solver"
	_ "github.com/privopt/privopt/solver/auto" // registers auto, highs and ipm for solver.ByName
)

// tally counts the outcomes of one backend on one family.
type tally struct {
	optimal, almost, wrongOptimal, wrongAlmost, other, fallback int
	time                                                        time.Duration
}

func main() {
	n := flag.Int("n", 1200, "mixed-scale instances (LP, QP, SOCP in turn)")
	small := flag.Int("small", 400, "one-small-row LPs")
	backends := flag.String("backends", "auto,ipm,highs", "comma-separated: auto, ipm, highs")
	tol := flag.Float64("tol", 1e-5, "the judge's relative tolerance")
	limit := flag.Duration("time-limit", 20*time.Second, "time limit per solve")
	flag.Parse()
	type item struct {
		family string
		inst   solvertest.MixedInstance
	}
	var items []item
	for _, in := range solvertest.MixedSuite(*n) {
		items = append(items, item{strings.SplitN(in.Name, "-", 2)[0], in})
	}
	for seed := 0; seed < *small; seed++ {
		rng := rand.New(rand.NewPCG(uint64(seed), 26))
		in := solvertest.OneSmallRow(rng, []float64{1e-5, 1e-7, 1e-8, 1e-3}[seed%4], float64(seed%3)*1.5)
		items = append(items, item{"one-small-row", in})
	}
	ctx := context.Background()
	for _, name := range strings.Split(*backends, ",") {
		b, err := solver.ByName(name)
		if err != nil {
			fmt.Fprintln(os.Stderr, "mixedscale:", err)
			os.Exit(2)
		}
		tallies := map[string]*tally{}
		var order []string
		for _, it := range items {
			if name == "highs" && (!it.inst.Problem.IsLinearConic() || it.inst.Problem.P != nil) {
				continue // HiGHS alone: LPs (its QP solver is the route's second choice for QPs)
			}
			t := tallies[it.family]
			if t == nil {
				t = &tally{}
				tallies[it.family] = t
				order = append(order, it.family)
			}
			start := time.Now()
			sol, err := b.Solve(ctx, it.inst.Problem, solver.Settings{TimeLimit: *limit})
			t.time += time.Since(start)
			if err != nil {
				t.other++
				continue
			}
			if sol.Fallback != "" {
				t.fallback++
			}
			msg := solvertest.Judge(it.inst.Problem, sol, it.inst.Objective, *tol)
			switch sol.Status {
			case solver.Optimal:
				t.optimal++
				if msg != "" {
					t.wrongOptimal++
					fmt.Printf("WRONG optimal: %s %s: %s (%s)\n", name, it.inst.Name, msg, sol.Diagnostic)
				}
			case solver.AlmostOptimal:
				t.almost++
				if msg != "" {
					t.wrongAlmost++
				}
			default:
				t.other++
			}
		}
		fmt.Printf("\n%s\n| family | instances | optimal | wrong optimal | almost-optimal | wrong almost-optimal | other status | after a rejected answer | time |\n|---|---|---|---|---|---|---|---|---|\n", name)
		for _, f := range order {
			t := tallies[f]
			total := t.optimal + t.almost + t.other
			fmt.Printf("| %s | %d | %d | **%d** | %d | %d | %d | %d | %.2fs |\n", f, total, t.optimal, t.wrongOptimal, t.almost, t.wrongAlmost, t.other, t.fallback, t.time.Seconds())
		}
	}
}
