// Command parallelrelease releases many labels in parallel against one
// shared ledger budget (BENCHMARKS.md, "Privacy gateway, round 2"): W
// workers, each with its own ledger connection (as separate machines would
// have) and its own copy of one saved OPF plan (opfrelease.LoadPlan of the
// plan file), take labels h0000, h0001, … from a common queue and release
// the demo6 cost at a load vector per label, each spending ε of the plan on
// the same dataset before its noise is drawn. The budget admits exactly K of
// the N labels (K from replaying the basic filter on the plan's ε). It
// prints releases and spends per second and checks that the ledger was never
// overspent: exactly K releases admitted, every admitted label once in the
// audit log, the refused ones absent, the spent ε within the budget. With
// -spend-only the workers only spend (no OPF solve): the ledger's own
// throughput under contention.
//
//	bash scripts/with-postgres.sh sh -c 'go run ./bench/parallelrelease -pg "$PRIVOPT_TEST_PG_URL" -workers 8 -labels 400'
//	go run ./bench/parallelrelease -workers 8 -labels 400   (SQLite file)
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/privopt/privopt/accounting"
	"github.com/privopt/privopt/grid"
	"github.com/privopt/privopt/ledger"
	"github.com/privopt/privopt/ledger/pgstore"
	"github.com/privopt/privopt/opfrelease"
)

func main() {
	pg := flag.String("pg", "", "PostgreSQL URL of the shared ledger (default: a SQLite file)")
	workers := flag.Int("workers", 8, "parallel workers, each with its own ledger connection")
	labels := flag.Int("labels", 400, "labels to release")
	admit := flag.Float64("admit", 0.75, "fraction of the labels the budget admits")
	eps := flag.Float64("epsilon", 0.01, "ε of each release (the plan's)")
	spendOnly := flag.Bool("spend-only", false, "only spend (no OPF solve, no noise)")
	casePath := flag.String("case", filepath.Join("grid", "cases", "demo6.m"), "MATPOWER case")
	flag.Parse()
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "parallelrelease")
	check(err)
	defer os.RemoveAll(dir)

	// The plan, saved once; every worker loads its own copy.
	c, err := grid.ReadCase(*casePath)
	check(err)
	net, err := grid.NewNetwork(c, grid.PowerModelsDC())
	check(err)
	pub, caseLoads, err := opfrelease.Split(net)
	check(err)
	opt := opfrelease.DefaultOptions()
	opt.Epsilon, opt.ChanceSeed = *eps, 7
	plan, err := opfrelease.NewPlan(ctx, pub, opt)
	check(err)
	pf, err := plan.File()
	check(err)
	var planBuf bytes.Buffer
	check(pf.Write(&planBuf))

	open := func() *ledger.Ledger {
		if *pg != "" {
			l, err := pgstore.OpenLedger(ctx, *pg, ledger.Options{})
			check(err)
			return l
		}
		l, err := ledger.Open(ctx, filepath.Join(dir, "budget.db"), ledger.Options{Create: true})
		check(err)
		return l
	}
	admin := open()
	defer admin.Close()
	ds := fmt.Sprintf("parallel-%d", time.Now().UnixNano())
	one := plan.LedgerEntry("").Cost
	budget := accounting.Budget{Epsilon: *admit * float64(*labels) * one.Epsilon}
	check(admin.Init(ctx, ds, budget))
	// K: the releases the basic filter admits, by replay.
	var state accounting.State
	want := 0
	for {
		next, ok, err := (accounting.BasicFilter{}).Add(budget, state, accounting.Charge{Cost: one})
		check(err)
		if !ok {
			break
		}
		state, want = next, want+1
	}

	queue := make(chan int)
	go func() {
		for i := 0; i < *labels; i++ {
			queue <- i
		}
		close(queue)
	}()
	var admitted, refused atomic.Int64
	var mu sync.Mutex
	got := map[string]bool{}
	var wg sync.WaitGroup
	t0 := time.Now()
	for w := 0; w < *workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l := open()
			defer l.Close()
			p, err := opfrelease.LoadPlan(ctx, bytes.NewReader(planBuf.Bytes()), pub)
			check(err)
			base := caseLoads.Values()
			for i := range queue {
				label := fmt.Sprintf("h%04d", i)
				led := l.WithLabels(ledger.Labels{Case: "demo6", Label: label, UserLabel: "parallel"})
				if *spendOnly {
					err = led.Spend(ctx, ds, p.LedgerEntry(label))
				} else {
					mw := append([]float64(nil), base...)
					for b := range mw {
						mw[b] *= 0.9 + 0.2*float64(i%24)/24
					}
					var loads opfrelease.Loads
					loads, err = opfrelease.NewLoads(pub, mw)
					check(err)
					_, err = p.Release(ctx, loads, opfrelease.ReleaseOptions{Label: label, Ledger: led, Dataset: ds})
				}
				switch {
				case err == nil:
					admitted.Add(1)
					mu.Lock()
					got[label] = true
					mu.Unlock()
				case errors.Is(err, ledger.ErrBudgetExceeded):
					refused.Add(1)
				default:
					check(err)
				}
			}
		}()
	}
	wg.Wait()
	wall := time.Since(t0)

	st, err := admin.Status(ctx, ds)
	check(err)
	seen := map[string]int{}
	for _, e := range st.Releases {
		seen[e.Label]++
	}
	ok := st.Count == int64(want) && int(admitted.Load()) == want && st.Spent.Epsilon <= budget.Epsilon
	for lb := range got {
		ok = ok && seen[lb] == 1
	}
	ok = ok && len(seen) == len(got)
	store := "SQLite"
	if *pg != "" {
		store = "PostgreSQL"
	}
	mode := "OPF release (demo6) + spend"
	if *spendOnly {
		mode = "spend only"
	}
	fmt.Printf("| %s | %s | %d workers | %d labels | budget ε %.6g admits %d | admitted %d, refused %d | %.2f s | %.1f releases/s | %.1f spends/s | never overspent: %v |\n",
		store, mode, *workers, *labels, budget.Epsilon, want, admitted.Load(), refused.Load(), wall.Seconds(),
		float64(*labels)/wall.Seconds(), float64(admitted.Load())/wall.Seconds(), ok)
	if !ok {
		fmt.Fprintf(os.Stderr, "parallelrelease: ledger holds %d entries (want %d), spent %+v of %+v, %d labels seen of %d admitted\n", st.Count, want, st.Spent, budget, len(seen), len(got))
		os.Exit(1)
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "parallelrelease:", err)
		os.Exit(1)
	}
}
