// Package highs solves LPs and convex QPs in privopt's standard form with the
// HiGHS optimizer (cgo, github.com/lanl/highs). Work in progress.
package highs

import (
	"context"
	"errors"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
)

var _ solver.Solver = (*Solver)(nil)

// Solver is the HiGHS backend.
type Solver struct{}

// New returns a HiGHS solver.
func New() *Solver { return &Solver{} }

// Name returns "highs".
func (*Solver) Name() string { return "highs" }

// Supports reports whether k is a zero or nonnegative cone.
func (*Solver) Supports(k cone.Kind) bool { return k == cone.Zero || k == cone.Nonnegative }

// Solve is not implemented yet.
func (*Solver) Solve(ctx context.Context, p *solver.Problem, s solver.Settings) (*solver.Solution, error) {
	return nil, errors.New("highs: not implemented yet")
}
