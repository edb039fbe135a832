// Package ipm is privopt's pure-Go interior-point solver for the standard conic
// form of package solver (every cone kind). Work in progress: Solve currently
// reports that the backend is not available.
package ipm

import (
	"context"
	"errors"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
)

var _ solver.Solver = (*Solver)(nil)

// ErrNotImplemented is returned until the interior-point method lands.
var ErrNotImplemented = errors.New("ipm: the conic interior-point solver is not available yet")

// Solver is the interior-point backend.
type Solver struct{}

// New returns an interior-point solver.
func New() *Solver { return &Solver{} }

// Name returns "ipm".
func (*Solver) Name() string { return "ipm" }

// Supports reports true for every cone kind.
func (*Solver) Supports(cone.Kind) bool { return true }

// Solve is not implemented yet.
func (*Solver) Solve(ctx context.Context, p *solver.Problem, s solver.Settings) (*solver.Solution, error) {
	return nil, ErrNotImplemented
}
