// Command ledgerspend measures the latency of one ledger spend (check the
// filter, append one entry, commit and sync) as the audit log grows to 100,
// 1,000, 10,000 and 100,000 entries, on the SQLite store and, with -pg URL,
// on the PostgreSQL store (BENCHMARKS.md, "Ledger at scale"). The log is
// filled between measurements by batches of 1,000 entries in one
// transaction each (real entries: hash chain and running totals).
//
//	go run ./bench/ledgerspend -reps 200
//	bash scripts/with-postgres.sh sh -c 'go run ./bench/ledgerspend -reps 200 -pg "$PRIVOPT_TEST_PG_URL"'
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/privopt/privopt/accounting"
	"github.com/privopt/privopt/ledger"
	"github.com/privopt/privopt/ledger/pgstore"
)

func main() {
	reps := flag.Int("reps", 200, "spends measured at each size")
	sizes := flag.String("sizes", "100,1000,10000,100000", "log sizes (entries) at which to measure")
	pg := flag.String("pg", "", "PostgreSQL URL (also measure the PostgreSQL store)")
	warmup := flag.Int("warmup", 1000, "spends on a separate dataset before measuring (fresh servers and files are slower at first)")
	flag.Parse()
	ctx := context.Background()
	var ns []int
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			fail(fmt.Errorf("-sizes: %q is not a count", s))
		}
		ns = append(ns, n)
	}
	dir, err := os.MkdirTemp("", "ledgerspend")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(dir)
	stores := []struct {
		name string
		open func() (*ledger.Ledger, error)
	}{{"SQLite", func() (*ledger.Ledger, error) {
		return ledger.Open(ctx, filepath.Join(dir, "bench.db"), ledger.Options{Create: true})
	}}}
	if *pg != "" {
		stores = append(stores, struct {
			name string
			open func() (*ledger.Ledger, error)
		}{"PostgreSQL", func() (*ledger.Ledger, error) { return pgstore.OpenLedger(ctx, *pg, ledger.Options{}) }})
	}
	fmt.Println("| store | entries in log | median spend | p90 spend | fill time |")
	fmt.Println("|---|---:|---:|---:|---:|")
	for _, st := range stores {
		l, err := st.open()
		if err != nil {
			fail(err)
		}
		wds := fmt.Sprintf("warmup-%d", time.Now().UnixNano())
		if err := l.Init(ctx, wds, accounting.Budget{Epsilon: 1e12, Delta: 0.5}); err != nil {
			fail(err)
		}
		for i := 0; i < *warmup; i++ {
			if err := l.Spend(ctx, wds, entry(i)); err != nil {
				fail(err)
			}
		}
		ds := fmt.Sprintf("bench-%d", time.Now().UnixNano())
		if err := l.Init(ctx, ds, accounting.Budget{Epsilon: 1e12, Delta: 0.5}); err != nil {
			fail(err)
		}
		have := 0
		for _, n := range ns {
			t0 := time.Now()
			for have < n {
				k := min(1000, n-have)
				es := make([]ledger.Entry, k)
				for i := range es {
					es[i] = entry(have + i)
				}
				if err := l.SpendBatch(ctx, ds, ledger.Batch{Cost: accounting.Cost{Epsilon: 1}, Composition: "benchmark fill"}, es); err != nil {
					fail(err)
				}
				have += k
			}
			fill := time.Since(t0)
			lat := make([]time.Duration, *reps)
			for r := range lat {
				t := time.Now()
				if err := l.Spend(ctx, ds, entry(have)); err != nil {
					fail(err)
				}
				lat[r] = time.Since(t)
				have++
			}
			slices.Sort(lat)
			fmt.Printf("| %s | %d | %.2f ms | %.2f ms | %.1f s |\n", st.name, n, ms(lat[len(lat)/2]), ms(lat[len(lat)*9/10]), fill.Seconds())
		}
		if err := l.Close(); err != nil {
			fail(err)
		}
	}
}

func entry(i int) ledger.Entry {
	return ledger.Entry{Query: "opf total cost", Mechanism: "laplace", Cost: accounting.Cost{Epsilon: 0.01},
		Params: map[string]float64{"scale": 100, "sensitivity": 1}, Sensitivity: "1 certified (bench)",
		Guarantee: "(0.01, 0)-DP", Case: "case118", Label: fmt.Sprintf("h%02d", i%24), UserLabel: "benchmark"}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func fail(err error) {
	fmt.Fprintln(os.Stderr, "ledgerspend:", err)
	os.Exit(1)
}
