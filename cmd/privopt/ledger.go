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
)

func init() {
	register(command{name: "ledger", summary: "persistent privacy budgets: init, show, audit, export", run: runLedger})
}

const ledgerUsage = `Usage: privopt ledger init   --ledger FILE --dataset NAME --epsilon E [--delta D] [--gamma G]
       privopt ledger show   --ledger FILE [--dataset NAME] [--json]
       privopt ledger audit  --ledger FILE [--dataset NAME] [--json]
       privopt ledger export --ledger FILE

init creates FILE (a SQLite database) if needed and the budget (ε, δ, γ) of
dataset NAME; budgets are immutable (init again with the same budget does
nothing, with another fails). show prints, per dataset, the budget, the spent
(ε, δ, γ) under the basic-composition privacy filter, what remains and the
number of releases; --json prints an array of objects {dataset, filter,
budget, spent, remaining, created, releases} with budget/spent/remaining as
{epsilon, delta, gamma} and releases the full audit entries. audit prints the
audit log (time, query, mechanism, parameters, sensitivity provenance,
guarantee) after verifying its hash chain. export writes the whole ledger as
one JSON document {format: "privopt-ledger/1", datasets: [...]}.

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
		return usagef("--ledger FILE is required")
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
		l, err := ledger.Open(ctx, *file, ledger.Options{Create: true})
		if err != nil {
			return err
		}
		defer l.Close()
		if err := l.Init(ctx, *dataset, b); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "dataset %q: budget (ε %g, δ %g, γ %g) in %s\n", *dataset, b.Epsilon, b.Delta, b.Gamma, *file)
		return nil
	case "show", "audit", "export":
	default:
		return usagef("unknown sub-command %q: want init, show, audit or export", sub)
	}
	l, err := ledger.Open(ctx, *file, ledger.Options{})
	if err != nil {
		return err
	}
	defer l.Close()
	if sub == "export" {
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
		fmt.Fprintf(stdout, "dataset %s (%s filter)\n  budget    ε %-10g δ %-10g γ %g\n  spent     ε %-10g δ %-10g γ %g\n  remaining ε %-10g δ %-10g γ %g\n  releases  %d\n",
			s.Dataset, s.Filter, s.Budget.Epsilon, s.Budget.Delta, s.Budget.Gamma,
			s.Spent.Epsilon, s.Spent.Delta, s.Spent.Gamma,
			s.Remaining.Epsilon, s.Remaining.Delta, s.Remaining.Gamma, len(s.Releases))
		if sub == "audit" {
			for _, e := range s.Releases {
				fmt.Fprintf(stdout, "  #%d %s  %s  %s %v  (ε %g, δ %g, γ %g)\n      sensitivity: %s\n      guarantee:   %s\n",
					e.Seq, e.Time.Format("2006-01-02T15:04:05.000Z07:00"), e.Query, e.Mechanism, e.Params,
					e.Cost.Epsilon, e.Cost.Delta, e.Cost.Gamma, e.Sensitivity, e.Guarantee)
			}
			fmt.Fprintf(stdout, "  hash chain verified (%d entries)\n", len(s.Releases))
		}
	}
	return nil
}
