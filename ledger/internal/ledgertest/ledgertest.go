// Package ledgertest is the behavioural contract of a ledger.Store, run by
// the tests of every store (SQLite, memory, PostgreSQL): labels round-trip
// through the hash chain, batches fixed in advance are charged once at
// their PLD cost, the Gaussian-DP filter admits exactly the releases its rule
// allows, concurrent spenders never overspend, and the O(1) budget view
// agrees with the full audit.
package ledgertest

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/privopt/privopt/accounting"
	"github.com/privopt/privopt/ledger"
)

// Contract runs the contract on stores made by open (each call a new
// connection to the same storage; dataset names are made unique by prefix).
func Contract(t *testing.T, prefix string, open func(t *testing.T) ledger.Store) {
	ctx := context.Background()
	name := func(s string) string { return fmt.Sprintf("%s-%s-%d", prefix, s, time.Now().UnixNano()) }
	l := ledger.New(open(t))
	t.Cleanup(func() { l.Close() })

	t.Run("labels", func(t *testing.T) {
		ds := name("labels")
		must(t, l.Init(ctx, ds, accounting.Budget{Epsilon: 1, Delta: 1e-6}))
		for h := 0; h < 5; h++ {
			must(t, l.Spend(ctx, ds, ledger.Entry{Query: "opf cost", Mechanism: "laplace", Cost: accounting.Cost{Epsilon: 0.125},
				Params: map[string]float64{"scale": 8}, Case: "case14", Label: fmt.Sprintf("h%02d", h), UserLabel: "day-ahead, \"quoted\""}))
		}
		st, err := l.Status(ctx, ds)
		must(t, err)
		b, err := l.Budget(ctx, ds)
		must(t, err)
		if st.Count != 5 || b.Count != 5 || st.Spent != b.Spent || st.Spent.Epsilon != 0.625 || b.Remaining.Epsilon != 0.375 {
			t.Fatalf("status %+v, budget %+v", st, b)
		}
		e := st.Releases[3]
		if e.Case != "case14" || e.Label != "h03" || e.UserLabel != "day-ahead, \"quoted\"" || e.Composition == "" || e.State == "" {
			t.Fatalf("entry 4 %+v", e)
		}
		var buf bytes.Buffer
		must(t, l.ExportCSV(ctx, &buf))
		rows, err := csv.NewReader(&buf).ReadAll()
		must(t, err)
		found := 0
		for _, r := range rows[1:] {
			if r[0] == ds {
				found++
				if r[3] != "case14" || r[5] != "day-ahead, \"quoted\"" {
					t.Fatalf("CSV row %q", r)
				}
			}
		}
		if rows[0][4] != "label" || found != 5 {
			t.Fatalf("CSV header %q, %d rows of %s", rows[0], found, ds)
		}
	})

	t.Run("batch", func(t *testing.T) {
		ds := name("batch")
		must(t, l.Init(ctx, ds, accounting.Budget{Epsilon: 3, Delta: 1e-5}))
		one, err := accounting.LaplacePLD(10, 1, 1e-3) // ε₀ = 0.1 per hour
		must(t, err)
		cost, err := accounting.BatchCost(one, 24, 1e-6)
		must(t, err)
		es := make([]ledger.Entry, 24)
		for h := range es {
			es[h] = ledger.Entry{Query: "opf cost", Mechanism: "laplace", Case: "case14", Label: fmt.Sprintf("h%02d", h), Params: map[string]float64{"epsilon": 0.1}}
		}
		b := ledger.Batch{Cost: cost, Composition: "PLD composition of 24 Laplace releases (ε₀ 0.1) fixed in advance"}
		must(t, l.SpendBatch(ctx, ds, b, es))
		// 24 × 0.1 = 2.4 under basic composition; the PLD batch costs less,
		// so a second day does not fit under ε = 3 only if 2·cost > 3.
		err = l.SpendBatch(ctx, ds, b, es)
		if 2*cost.Epsilon <= 3 {
			must(t, err)
		} else if !errors.Is(err, ledger.ErrBudgetExceeded) {
			t.Fatalf("second day at ε %g against 3: %v", cost.Epsilon, err)
		}
		st, err := l.Status(ctx, ds)
		must(t, err)
		if st.Count%24 != 0 || st.Releases[0].Cost != cost || st.Releases[1].Cost != (accounting.Cost{}) ||
			st.Releases[23].Batch != "24/24@1" || st.Spent.Epsilon != cost.Epsilon*float64(st.Count/24) && st.Count == 24 {
			t.Fatalf("batch status: count %d, first %+v, last batch %q, spent %+v (batch ε %g < basic 2.4)", st.Count, st.Releases[0].Cost, st.Releases[23].Batch, st.Spent, cost.Epsilon)
		}
		if !(cost.Epsilon < 2.4) {
			t.Fatalf("PLD cost of 24 Laplace(ε₀ 0.1) is %g, not below basic composition 2.4", cost.Epsilon)
		}
	})

	t.Run("pld-batch", func(t *testing.T) {
		// A dataset under the PLD-batch composition: a batch of 48
		// releases of ε 0.1 is charged its PLD cost (below basic 4.8) once;
		// a basic dataset is not offered the batch.
		ds := name("pldbatch")
		must(t, l.InitFilter(ctx, ds, accounting.Budget{Epsilon: 4.7, Delta: 1e-6}, "pld-batch(delta=1e-7)"))
		b, ok, err := l.PLDBatch(ctx, ds, ledger.Entry{Mechanism: "laplace", Cost: accounting.Cost{Epsilon: 0.1}}, 48)
		must(t, err)
		want, stmt, err := accounting.PLDBatchFilter{Delta: 1e-7}.BatchCharge(accounting.Charge{Cost: accounting.Cost{Epsilon: 0.1}, Curve: &accounting.Curve{Kind: "laplace", Value: 0.1}}, 48)
		must(t, err)
		if !ok || b.Cost != want || b.Composition != stmt || !(want.Epsilon < 4.7) {
			t.Fatalf("PLDBatch = %+v, %v; want %+v (%s) below 4.7", b, ok, want, stmt)
		}
		es := make([]ledger.Entry, 48)
		for h := range es {
			es[h] = ledger.Entry{Query: "opf cost", Mechanism: "laplace", Label: fmt.Sprintf("h%02d", h), Cost: accounting.Cost{Epsilon: 0.1}}
		}
		must(t, l.SpendBatch(ctx, ds, b, es))
		st, err := l.Status(ctx, ds)
		must(t, err)
		if st.Spent != want || st.Count != 48 || st.Composition != (accounting.PLDBatchFilter{Delta: 1e-7}).Composition() {
			t.Fatalf("status after the batch: %+v", st)
		}
		for _, e := range st.Releases {
			if !strings.Contains(e.Composition, "PLD composition") || !strings.Contains(e.Composition, "basic composition filter") {
				t.Fatalf("entry %d composition %q does not state both rules", e.Seq, e.Composition)
			}
		}
		// The same releases one by one (basic) do not fit: 48 × 0.1 > 4.7.
		ds2 := name("pldbatch-basic")
		must(t, l.Init(ctx, ds2, accounting.Budget{Epsilon: 4.7, Delta: 1e-6}))
		if _, ok, err := l.PLDBatch(ctx, ds2, ledger.Entry{Mechanism: "laplace", Cost: accounting.Cost{Epsilon: 0.1}}, 48); ok || err != nil {
			t.Fatalf("a basic dataset was offered a PLD batch (%v, %v)", ok, err)
		}
	})

	t.Run("gdp", func(t *testing.T) {
		ds := name("gdp")
		b := accounting.Budget{Epsilon: 1, Delta: 1e-6}
		must(t, l.InitFilter(ctx, ds, b, "gdp"))
		// A release of the library's Gaussian mechanism (discrete Gaussian
		// noise: no curve given, derived as discrete-gaussian) is refused
		// with the reason and not recorded: its μ-GDP is not proven.
		err := l.Spend(ctx, ds, ledger.Entry{Query: "q", Mechanism: "gaussian", Params: map[string]float64{"sensitivity": 1, "noise_std": 8},
			Cost: accounting.Cost{Epsilon: 0.6, Delta: 1e-7}})
		if !errors.Is(err, ledger.ErrInvalid) || !strings.Contains(err.Error(), "discrete Gaussian") || !strings.Contains(err.Error(), "rdp(alpha=A)") {
			t.Fatalf("discrete Gaussian release under the gdp filter: %v", err)
		}
		if b, _ := l.Budget(ctx, ds); b.Count != 0 {
			t.Fatalf("the refused release was recorded: %+v", b)
		}
		// Exactly Gaussian releases (the caller states the curve) with Δ = 1,
		// σ = 8: μ = 1/8; admitted while k/64 ≤ μ_B².
		mu := accounting.GDPMu(1, 1e-6)
		want := int(math.Floor(mu * mu * 64 * (1 - 1e-9)))
		n := 0
		for ; n < 1000; n++ {
			err := l.Spend(ctx, ds, ledger.Entry{Query: "q", Mechanism: "gaussian", Params: map[string]float64{"sensitivity": 1, "noise_std": 8},
				Curve: &accounting.Curve{Kind: "gaussian", Value: 1.0 / 8}, Cost: accounting.Cost{Epsilon: 0.6, Delta: 1e-7}})
			if errors.Is(err, ledger.ErrBudgetExceeded) {
				break
			}
			must(t, err)
		}
		if n != want || want < 2 {
			t.Fatalf("gdp filter admitted %d releases of μ 1/8 against μ %g; want %d", n, mu, want)
		}
		st, err := l.Status(ctx, ds)
		must(t, err)
		if st.Filter != "gdp" || st.Spent.Epsilon > 1 || st.Spent.Delta != 1e-6 {
			t.Fatalf("gdp status %+v", st)
		}
		// A non-Gaussian (ε, δ > 0) release cannot be accounted: refused, not recorded.
		if err := l.Spend(ctx, ds, ledger.Entry{Query: "q", Mechanism: "optimal", Cost: accounting.Cost{Epsilon: 0.01, Delta: 1e-9}}); !errors.Is(err, ledger.ErrInvalid) {
			t.Fatalf("non-Gaussian release under the gdp filter: %v", err)
		}
	})

	t.Run("rdp-discrete-gaussian", func(t *testing.T) {
		// The same discrete Gaussian release under the RDP filter at α = 32:
		// ρ = α μ²/2 = 1/4 each (zCDP of the discrete Gaussian), admitted
		// while k/4 ≤ ε − ln(1/δ)/(α − 1), and recorded with its curve.
		ds := name("rdp")
		must(t, l.InitFilter(ctx, ds, accounting.Budget{Epsilon: 3, Delta: 1e-6}, "rdp(alpha=32)"))
		bound := 3 - math.Log(1e6)/31
		want := int(math.Floor(bound * 4 * (1 - 1e-9)))
		n := 0
		for ; n < 100; n++ {
			err := l.Spend(ctx, ds, ledger.Entry{Query: "q", Mechanism: "analytic-gaussian", Params: map[string]float64{"sensitivity": 1, "noise_std": 8},
				Cost: accounting.Cost{Epsilon: 0.6, Delta: 1e-7}})
			if errors.Is(err, ledger.ErrBudgetExceeded) {
				break
			}
			must(t, err)
		}
		st, err := l.Status(ctx, ds)
		must(t, err)
		if n != want || st.Releases[0].Curve == nil || *st.Releases[0].Curve != (accounting.Curve{Kind: accounting.CurveDiscreteGaussian, Value: 1.0 / 8}) {
			t.Fatalf("rdp filter admitted %d discrete Gaussian releases (want %d); first curve %+v", n, want, st.Releases[0].Curve)
		}
	})

	t.Run("concurrent", func(t *testing.T) {
		ds := name("concurrent")
		must(t, l.Init(ctx, ds, accounting.Budget{Epsilon: 1}))
		var mu sync.Mutex
		total := 0
		var wg sync.WaitGroup
		for w := 0; w < 8; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				l2 := ledger.New(open(t))
				defer l2.Close()
				for {
					err := l2.Spend(ctx, ds, ledger.Entry{Query: "q", Mechanism: "laplace", Cost: accounting.Cost{Epsilon: 1.0 / 64}})
					if errors.Is(err, ledger.ErrBudgetExceeded) {
						return
					}
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					total++
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		st, err := l.Status(ctx, ds)
		must(t, err)
		if total != 64 || st.Count != 64 || st.Spent.Epsilon != 1 {
			t.Fatalf("admitted %d, logged %d, spent %v; want 64, 64, 1", total, st.Count, st.Spent.Epsilon)
		}
	})
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
