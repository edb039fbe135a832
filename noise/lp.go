package noise

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/sparse"
)

// LP is the incremental linear program behind Optimize and
// OptimizeDataDependent (the cutting-plane bounding LPs of Selvi, Liu &
// Wiesemann, Sections 2.3 and 4): a minimization whose columns and rows are
// added as cuts are found, re-solved warm. Package noise itself is pure Go;
// an LP solver is registered by importing a solver package for its side
// effect — import _ "github.com/privopt/privopt/noise/lphighs" registers
// HiGHS (cgo) — so that code which only adds noise builds without a C
// toolchain.
//
// Implementations must solve to primal and dual feasibility tolerances of
// 10⁻¹⁰ (the bounds' accuracy relies on it) and be safe to use from one
// goroutine at a time (Optimize runs its two bounds concurrently, each on its
// own LP).
type LP interface {
	AddColumns(cost, lower, upper []float64) error
	// AddRows appends rows lower ≤ A x ≤ upper; rows holds Aᵀ (one column
	// per new row) over the current columns.
	AddRows(lower, upper []float64, rows *sparse.CSC) error
	DeleteRows(idx []int) error
	SetRowBounds(i int, lower, upper float64) error
	NumRows() int
	// ResetBasis drops the warm start (the next Solve starts cold).
	ResetBasis() error
	Solve(ctx context.Context) (*LPSolution, error)
	Close() error
}

// LPSolution is the result of LP.Solve.
type LPSolution struct {
	Status    solver.Status
	Objective float64   // cᵀx
	X         []float64 // primal values, one per column
	RowValue  []float64 // row activities Ax
	Time      time.Duration
}

// ErrNoLPSolver is returned by Optimize and OptimizeDataDependent when no LP
// solver is registered (see LP).
var ErrNoLPSolver = errors.New(`noise: the optimal-noise solver needs an LP solver: import _ "github.com/privopt/privopt/noise/lphighs" (HiGHS, needs cgo)`)

var (
	lpMu      sync.RWMutex
	lpFactory func() LP
)

// RegisterLPSolver makes newLP return f(); a later call replaces an earlier
// one. Solver packages call it from init.
func RegisterLPSolver(f func() LP) {
	lpMu.Lock()
	defer lpMu.Unlock()
	lpFactory = f
}

func newLP() (LP, error) {
	lpMu.RLock()
	defer lpMu.RUnlock()
	if lpFactory == nil {
		return nil, ErrNoLPSolver
	}
	return lpFactory(), nil
}
