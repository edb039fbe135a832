package noise

import (
	"context"

	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/highs"
)

// The package's own tests cannot import noise/lphighs (it imports noise), so
// they register the same HiGHS LP here, with the options of lphighs.Options.
func init() {
	RegisterLPSolver(func() LP {
		return testLP{highs.NewLP(highs.Options{Settings: solver.Settings{Threads: 1}, Presolve: "off", PrimalFeasibilityTolerance: 1e-10, DualFeasibilityTolerance: 1e-10})}
	})
}

type testLP struct{ *highs.LP }

func (l testLP) Solve(ctx context.Context) (*LPSolution, error) {
	r, err := l.LP.Solve(ctx)
	if err != nil || r == nil {
		return nil, err
	}
	return &LPSolution{Status: r.Status, Objective: r.Objective, X: r.X, RowValue: r.RowValue, Time: r.Time}, nil
}
