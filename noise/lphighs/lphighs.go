// Package lphighs registers HiGHS (package solver/highs, cgo) as the LP
// solver of package noise's optimal-noise solver (noise.Optimize,
// noise.OptimizeDataDependent). Import it for its side effect:
//
//	import _ "github.com/privopt/privopt/noise/lphighs"
//
// Package noise itself is pure Go: the mechanisms, samplers, certificates and
// (in package accounting) the privacy-loss distributions build with
// CGO_ENABLED=0; only the optimizer needs this package and a C toolchain.
package lphighs

import (
	"context"

	"github.com/privopt/privopt/noise"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/highs"
)

// Options are the HiGHS options of the bounding LPs: warm dual simplex
// re-solves (no presolve) with feasibility tolerances 10⁻¹⁰, one thread each
// (Optimize runs its two bounds concurrently).
var Options = highs.Options{Settings: solver.Settings{Threads: 1}, Presolve: "off", PrimalFeasibilityTolerance: 1e-10, DualFeasibilityTolerance: 1e-10}

func init() { noise.RegisterLPSolver(New) }

// New returns an empty HiGHS LP with Options as a noise.LP.
func New() noise.LP { return lp{highs.NewLP(Options)} }

type lp struct{ *highs.LP }

// Solve solves the LP and converts the result.
func (l lp) Solve(ctx context.Context) (*noise.LPSolution, error) {
	r, err := l.LP.Solve(ctx)
	if err != nil || r == nil {
		return nil, err
	}
	return &noise.LPSolution{Status: r.Status, Objective: r.Objective, X: r.X, RowValue: r.RowValue, Time: r.Time}, nil
}
