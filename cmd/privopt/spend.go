package main

import (
	"context"
	"flag"

	"github.com/privopt/privopt/ledger"
	"github.com/privopt/privopt/ledger/pgstore"
)

// ledgerFlags are --ledger FILE|postgres://… --dataset NAME, which every release command
// takes: the release's cost is checked and recorded in the ledger in one
// transaction before any noise is drawn; a release that would exceed the
// dataset's budget exits 1 naming the budget and what is left, and draws no
// noise.
type ledgerFlags struct{ file, dataset string }

func (l *ledgerFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&l.file, "ledger", "", "privacy ledger FILE or postgres:// URL (created by 'privopt ledger init'): the release is spent against --dataset before noise is drawn")
	fs.StringVar(&l.dataset, "dataset", "", "dataset NAME the release spends privacy on (required with --ledger)")
}

// open validates the pair and opens the ledger (nil without --ledger). The
// file must exist: a mistyped path must not start an empty budget.
func (l *ledgerFlags) open(ctx context.Context) (*ledger.Ledger, error) {
	if l.file == "" {
		return nil, nil // without a ledger --dataset is only recorded
	}
	if l.dataset == "" {
		return nil, usagef("--ledger %q needs --dataset NAME", l.file)
	}
	return pgstore.OpenLedger(ctx, l.file, ledger.Options{})
}
