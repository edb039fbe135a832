package opfrelease

import (
	"context"

	"github.com/privopt/privopt/grid"
	"github.com/privopt/privopt/noise"
)

// prepareCase is the tests' shorthand for a plan and a solve on a case: the
// case's loads serve as a published reference profile (the public domain is
// ±10% around them unless opt.Domain is set) and as the private data; it
// returns the program solved at them.
func prepareCase(ctx context.Context, net *grid.Network, opt Options) (*Program, error) {
	if opt.Domain != nil {
		pub, loads, err := Split(net)
		if err != nil {
			return nil, err
		}
		plan, err := NewPlan(ctx, pub, opt)
		if err != nil {
			return nil, err
		}
		return plan.Solve(ctx, loads)
	}
	plan, loads, err := ReferencePlan(ctx, net, opt, 0.1)
	if err != nil {
		return nil, err
	}
	return plan.Solve(ctx, loads)
}

// demand returns the program's (clamped) demands.
func (pr *Program) demand() Loads {
	d := make([]float64, len(pr.load))
	for i := range d {
		d[i] = pr.load[i] - pr.pub.net.Load[i]
	}
	return Loads{d: d}
}

// releaseOnce releases the program's loads once with src (no ledger).
func (pr *Program) releaseOnce(src noise.Source) (*Release, error) {
	return pr.Plan.Release(context.Background(), pr.demand(), ReleaseOptions{Source: src})
}

// meanAtFull is ReleasedMeanAt at a withdrawal vector (demand + shunts, per
// bus, as grid.Network.Load).
func (pr *Program) meanAtFull(ctx context.Context, full []float64) (float64, error) {
	d := make([]float64, len(full))
	for i := range d {
		d[i] = full[i] - pr.pub.net.Load[i]
	}
	return pr.ReleasedMeanAt(ctx, Loads{d: d})
}
