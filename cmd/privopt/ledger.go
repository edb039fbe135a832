package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"

	"github.com/privopt/privopt/accounting"
	"github.com/privopt/privopt/ledger"
	"github.com/privopt/privopt/ledger/pgstore"
)

// batchNote is ", batch i/k@s" for an entry of a batch, empty otherwise.
func batchNote(b string) string {
	if b == "" {
		return ""
	}
	return ", batch " + b
}

func init() {
	register(command{name: "ledger", summary: "persistent privacy budgets: init, show, audit, export", run: runLedger})
}

const ledgerUsage = `Usage: privopt ledger init   --ledger FILE|URL --dataset NAME --epsilon E [--delta D] [--gamma G] [--filter F]
       privopt ledger show   --ledger FILE|URL [--dataset NAME] [--json]
       privopt ledger audit  --ledger FILE|URL [--dataset NAME] [--json]
       privopt ledger export --ledger FILE|URL [--format json|csv]

--ledger is a SQLite file or a PostgreSQL URL (postgres://user@host/db; the
tables are created on first use). init creates FILE if needed and the budget
(ε, δ, γ) of dataset NAME under the privacy filter F: basic (default; basic
composition, any release), gdp (Gaussian-DP filter of Smith & Thakurta 2022:
exactly Gaussian releases only, needs δ > 0; the Gaussian releases of
privopt add discrete Gaussian noise, whose μ-GDP is not proven, and are
refused — use rdp for them) or rdp(alpha=A) (Rényi-DP filter of
Feldman & Zrnic 2021 at order A > 1: Gaussian and discrete Gaussian (zCDP,
Canonne, Kamath & Steinke 2020), Laplace and pure ε-DP releases, needs δ > 0). All three are valid for adaptively chosen releases.
pld-batch(delta=D) is basic composition across releases, but the K load
columns of one 'privopt opf --loads' or service request (a batch fixed in
advance under one plan) are charged once, in one transaction, at their PLD
composition at δ = D (Kairouz-Oh-Viswanath dominating pairs; D ≤ the budget's
δ), when that is smaller than K times one release.
Budgets are immutable (init again with the same budget and filter does
nothing, with another fails). show prints, per dataset, the budget, the
composition, the spent (ε, δ, γ) under the dataset's filter, what remains and
the number of releases; --json prints an array of objects {dataset, filter,
composition, budget, spent, remaining, created, count, releases} with
budget/spent/remaining as {epsilon, delta, gamma} and releases the full audit
entries (with their labels: case, label, user_label, batch, composition).
audit prints the audit log (time, labels, query, mechanism, parameters,
sensitivity provenance, guarantee, composition) after verifying its hash
chain and running totals. export writes the whole ledger as one JSON
document {format: "privopt-ledger/2", datasets: [...]} or, with --format csv,
one CSV row per release.

Exit status 0 on success, 1 on a failed run (missing or corrupted FILE,
unknown dataset), 2 on bad usage.

Flags:
`

func runLedger(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stderr, ledgerUsage)
		if len(args) == 0 {
			return usagef("missing sub-command: init, show, audit or export")
		}
		return nil
	}
	sub := args[0]
	fs := flag.NewFlagSet("ledger "+sub, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), ledgerUsage)
		fs.PrintDefaults()
	}
	file := fs.String("ledger", "", "ledger FILE (required)")
	dataset := fs.String("dataset", "", "dataset NAME")
	eps := fs.Float64("epsilon", math.NaN(), "init: budget ε > 0")
	delta := fs.Float64("delta", 0, "init: budget δ ∈ [0, 1)")
	gamma := fs.Float64("gamma", 0, "init: budget γ ∈ [0, 1) for probabilistic (sampled-sensitivity) releases")
	asJSON := fs.Bool("json", false, "show, audit: print JSON")
	filter := fs.String("filter", "basic", "init: privacy filter basic, gdp, rdp(alpha=A) or pld-batch(delta=D)")
	format := fs.String("format", "json", "export: json or csv")
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return usagef("%v", err)
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	if *file == "" {
		return usagef("--ledger FILE|postgres://… is required")
	}
	switch sub {
	case "init":
		if *dataset == "" {
			return usagef("--dataset NAME is required")
		}
		b := accounting.Budget{Epsilon: *eps, Delta: *delta, Gamma: *gamma}
		if !(b.Epsilon > 0) || math.IsInf(b.Epsilon, 0) {
			return usagef("--epsilon is %v, must be > 0 and finite", b.Epsilon)
		}
		if err := b.Validate(); err != nil {
			return usageError{err}
		}
		f, err := accounting.FilterByName(*filter)
		if err != nil {
			return usageError{err}
		}
		if err := f.Check(b); err != nil {
			return usagef("--filter %s: %v", *filter, err)
		}
		l, err := pgstore.OpenLedger(ctx, *file, ledger.Options{Create: true})
		if err != nil {
			return err
		}
		defer l.Close()
		if err := l.InitFilter(ctx, *dataset, b, f.Name()); err != nil {
			return err
		}
		where := *file
		if pgstore.IsURL(where) {
			where = "the PostgreSQL ledger"
		}
		fmt.Fprintf(stdout, "dataset %q: budget (ε %g, δ %g, γ %g) under the %s in %s\n", *dataset, b.Epsilon, b.Delta, b.Gamma, f.Composition(), where)
		return nil
	case "show", "audit", "export":
	default:
		return usagef("unknown sub-command %q: want init, show, audit or export", sub)
	}
	if sub == "export" && *format != "json" && *format != "csv" {
		return usagef("--format is %q, must be json or csv", *format)
	}
	l, err := pgstore.OpenLedger(ctx, *file, ledger.Options{})
	if err != nil {
		return err
	}
	defer l.Close()
	if sub == "export" {
		if *format == "csv" {
			return l.ExportCSV(ctx, stdout)
		}
		return l.Export(ctx, stdout)
	}
	var sts []ledger.Status
	if *dataset != "" {
		st, err := l.Status(ctx, *dataset)
		if err != nil {
			return err
		}
		sts = []ledger.Status{st}
	} else if sts, err = l.Statuses(ctx); err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if sub == "audit" {
			var all []ledger.Entry
			for _, s := range sts {
				all = append(all, s.Releases...)
			}
			if all == nil {
				all = []ledger.Entry{}
			}
			return enc.Encode(all)
		}
		if sts == nil {
			sts = []ledger.Status{}
		}
		return enc.Encode(sts)
	}
	for _, s := range sts {
		fmt.Fprintf(stdout, "dataset %s (%s filter)\n  composition %s\n  budget    ε %-10g δ %-10g γ %g\n  spent     ε %-10g δ %-10g γ %g\n  remaining ε %-10g δ %-10g γ %g\n  releases  %d\n",
			s.Dataset, s.Filter, s.Composition, s.Budget.Epsilon, s.Budget.Delta, s.Budget.Gamma,
			s.Spent.Epsilon, s.Spent.Delta, s.Spent.Gamma,
			s.Remaining.Epsilon, s.Remaining.Delta, s.Remaining.Gamma, len(s.Releases))
		if sub == "audit" {
			for _, e := range s.Releases {
				fmt.Fprintf(stdout, "  #%d %s  %s  %s %v  (ε %g, δ %g, γ %g)\n      labels:      case %q, label %q, user %q%s\n      sensitivity: %s\n      guarantee:   %s\n      composition: %s\n",
					e.Seq, e.Time.Format("2006-01-02T15:04:05.000Z07:00"), e.Query, e.Mechanism, e.Params,
					e.Cost.Epsilon, e.Cost.Delta, e.Cost.Gamma, e.Case, e.Label, e.UserLabel, batchNote(e.Batch), e.Sensitivity, e.Guarantee, e.Composition)
			}
			fmt.Fprintf(stdout, "  hash chain verified (%d entries)\n", len(s.Releases))
		}
	}
	return nil
}
