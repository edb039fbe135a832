// Package solver defines privopt's standard conic form, the contract between the
// modelling layer and every backend:
//
//	minimize    ½xᵀPx + qᵀx + r
//	subject to  Ax + s = b,  s ∈ K = K₁ × … × K_p
//
// with P (n×n, symmetric PSD, upper triangle stored), A (m×n) in CSC form and the
// cone blocks Kᵢ covering the m rows in order. Optimality conditions (the
// convention used by every backend for the dual vector y):
//
//	Px + q + Aᵀy = 0,   Ax + s = b,   s ∈ K,   y ∈ K*,   sᵀy = 0.
//
// So y ≥ 0 on nonnegative rows (Ax ≤ b), y free on zero-cone rows (Ax = b), and the
// dual objective is −½xᵀPx − bᵀy + r. Backends live in sub-packages: solver/highs
// (LP and convex QP: zero and nonnegative cones only) and solver/ipm (every cone).
package solver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"sync"
	"time"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/sparse"
)

// Problem is the standard conic form described in the package documentation.
// It is plain data: backends must not modify it.
type Problem struct {
	P     *sparse.CSC // n×n upper triangle of the quadratic term; nil for a linear objective
	Q     []float64   // linear objective, length n
	R     float64     // constant objective term
	A     *sparse.CSC // m×n constraint matrix
	B     []float64   // right-hand side, length m
	Cones []cone.Cone // blocks covering rows 0..m-1 in order
}

// NumVars returns n, the number of variables.
func (p *Problem) NumVars() int { return len(p.Q) }

// NumRows returns m, the number of constraint rows.
func (p *Problem) NumRows() int { return len(p.B) }

// Kinds reports which cone kinds occur in the problem.
func (p *Problem) Kinds() map[cone.Kind]bool {
	k := make(map[cone.Kind]bool)
	for _, c := range p.Cones {
		k[c.Kind] = true
	}
	return k
}

// IsLinearConic reports whether every cone is a zero or nonnegative cone, so the
// problem is an LP (P nil or empty) or a QP.
func (p *Problem) IsLinearConic() bool {
	for _, c := range p.Cones {
		if c.Kind != cone.Zero && c.Kind != cone.Nonnegative {
			return false
		}
	}
	return true
}

// ErrInvalid is wrapped by every error of this package and its backends that
// reports invalid input (a problem that fails Validate, a point of the wrong
// length, an unknown backend name): the shape every package of the module
// uses is "<package>: invalid <what>: <the bad value>", wrapping the
// package's one ErrInvalid, so callers test errors.Is(err, solver.ErrInvalid).
var ErrInvalid = errors.New("solver: invalid problem")

// ErrInvalidProblem is the former name of ErrInvalid (the same value).
//
// Deprecated: use ErrInvalid.
var ErrInvalidProblem = ErrInvalid

// Validate checks shapes, finiteness and cone dimensions. It does not check that P
// is positive semidefinite (backends that factor P report that).
func (p *Problem) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrInvalidProblem, fmt.Sprintf(format, args...))
	}
	n, m := len(p.Q), len(p.B)
	if p.A == nil {
		return bad("A is nil")
	}
	if p.A.Rows != m || p.A.Cols != n {
		return bad("A is %d×%d, want %d×%d (len(B)×len(Q))", p.A.Rows, p.A.Cols, m, n)
	}
	if err := p.A.Validate(); err != nil {
		return bad("A: %v", err)
	}
	if p.P != nil {
		if p.P.Rows != n || p.P.Cols != n {
			return bad("P is %d×%d, want %d×%d", p.P.Rows, p.P.Cols, n, n)
		}
		if err := p.P.Validate(); err != nil {
			return bad("P: %v", err)
		}
		for j := 0; j < n; j++ {
			for k := p.P.ColPtr[j]; k < p.P.ColPtr[j+1]; k++ {
				if p.P.RowIdx[k] > j {
					return bad("P has entry (%d,%d) below the diagonal; store the upper triangle only", p.P.RowIdx[k], j)
				}
			}
		}
	}
	for i, v := range p.Q {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return bad("q[%d] is %v, must be finite", i, v)
		}
	}
	for i, v := range p.B {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return bad("b[%d] is %v, must be finite", i, v)
		}
	}
	if math.IsNaN(p.R) || math.IsInf(p.R, 0) {
		return bad("r is %v, must be finite", p.R)
	}
	for i, c := range p.Cones {
		if err := c.Validate(); err != nil {
			return bad("cone %d: %v", i, err)
		}
	}
	if d := cone.TotalDim(p.Cones); d != m {
		return bad("cones cover %d rows, want %d", d, m)
	}
	return nil
}

// Status is the outcome of a solve. Numerical outcomes are statuses, not errors.
type Status int

// Solve statuses.
const (
	StatusUnknown    Status = iota
	Optimal                 // converged to the requested tolerances
	AlmostOptimal           // converged only to the reduced-accuracy tolerances
	PrimalInfeasible        // a certificate y: Aᵀy = 0, bᵀy < 0, y ∈ K* (in Solution.Y)
	DualInfeasible          // unbounded below; a certificate x: Px = 0, −Ax ∈ K, qᵀx < 0 (in Solution.X)
	IterationLimit
	TimeLimit
	Cancelled // the context was cancelled
	NumericalError
)

var statusTable = [...]struct {
	name    string
	ok      bool // a primal-dual solution is available
	limit   bool // stopped early by a limit, result may be usable
	message string
}{
	StatusUnknown:    {"unknown", false, false, "solver status unknown"},
	Optimal:          {"optimal", true, false, ""},
	AlmostOptimal:    {"almost-optimal", true, false, ""},
	PrimalInfeasible: {"infeasible", false, false, "problem is infeasible"},
	DualInfeasible:   {"unbounded", false, false, "problem is unbounded (dual infeasible)"},
	IterationLimit:   {"iteration-limit", false, true, "iteration limit reached"},
	TimeLimit:        {"time-limit", false, true, "time limit reached"},
	Cancelled:        {"cancelled", false, true, "solve cancelled"},
	NumericalError:   {"numerical-error", false, false, "numerical trouble"},
}

func (s Status) valid() bool { return s >= 0 && int(s) < len(statusTable) }

// String returns the status name used in logs and JSON ("optimal", "infeasible", …).
func (s Status) String() string {
	if !s.valid() {
		return fmt.Sprintf("Status(%d)", int(s))
	}
	return statusTable[s].name
}

// OK reports whether a usable primal–dual solution is available (Optimal or
// AlmostOptimal).
func (s Status) OK() bool { return s.valid() && statusTable[s].ok }

// Early reports whether the solve stopped because of a limit or cancellation.
func (s Status) Early() bool { return s.valid() && statusTable[s].limit }

// Err returns nil for OK statuses and otherwise a *StatusError wrapping s, for
// callers that treat anything but an optimum as failure.
func (s Status) Err() error {
	if s.OK() {
		return nil
	}
	return &StatusError{Status: s}
}

// StatusError reports a solve that ended without a usable solution.
type StatusError struct{ Status Status }

// Error returns the status message, e.g. "solver: problem is infeasible".
func (e *StatusError) Error() string {
	if !e.Status.valid() {
		return "solver: " + e.Status.String()
	}
	return "solver: " + statusTable[e.Status].message
}

// ParseStatus returns the Status whose String is name.
func ParseStatus(name string) (Status, error) {
	for i, e := range statusTable {
		if e.name == name {
			return Status(i), nil
		}
	}
	return StatusUnknown, fmt.Errorf("solver: unknown status %q", name)
}

// Solution is a backend's answer. For OK statuses X, S, Y satisfy the optimality
// conditions of the package documentation to the backend's tolerances; for
// PrimalInfeasible / DualInfeasible they hold the certificate described at the
// status constant.
type Solution struct {
	Status        Status
	X             []float64 // primal variables, length n
	S             []float64 // slacks, length m
	Y             []float64 // dual variables, length m, y ∈ K*
	Objective     float64   // primal objective ½xᵀPx + qᵀx + r
	DualObjective float64   // dual objective −½xᵀPx − bᵀy + r
	Iterations    int
	SolveTime     time.Duration // time inside the backend's solve call
	Solver        string        // backend name of the answer: "highs" or "ipm"
	// Diagnostic says, when not empty, why the status is not Optimal although
	// the backend converged (for example which residual of the re-check on the
	// original data was too large) and which backends were tried.
	Diagnostic string
	// Fallback names the backend whose answer was rejected before Solver
	// answered (set by the automatic route, package solver/auto); empty when
	// the first backend's answer was kept.
	Fallback string
	// Accuracy is the re-check of an OK answer on the original data (Measure);
	// zero for other statuses.
	Accuracy Accuracy
	// FeasiblePoint, for a DualInfeasible answer only, is a primal feasible
	// point the backend found (b − Ax ∈ K, checked by CheckFeasible on the
	// caller's data): with the improving ray in X it proves that the problem
	// is unbounded, not primal and dual infeasible. Nil when the backend has
	// none (the ray alone proves dual infeasibility only).
	FeasiblePoint []float64
}

// Settings are the options common to every backend. The zero value means
// defaults; backends have their own settings types that embed this one.
type Settings struct {
	// TimeLimit bounds the wall time of one solve; 0 means none.
	TimeLimit time.Duration
	// MaxIterations bounds the iterations; 0 means the backend's default.
	MaxIterations int
	// Log, when non-nil, receives the backend's per-iteration log. Nil (the
	// default) means silent.
	Log io.Writer
	// Threads for backends that use them; 0 means the backend's default.
	Threads int
	// Warm, when non-nil, carries a backend's final state from one solve to
	// the next solve of a related problem (see WarmStart); nil: every solve
	// starts cold.
	Warm *WarmStart
}

// WarmStart carries what a backend keeps from one solve to the next solve
// of a related problem: for HiGHS (solver/highs) the final simplex basis of
// every column and row, the rows identified by their coefficients, so that
// after rows are added, removed or reordered, or bounds changed, the next
// solve restarts the dual simplex method from the previous optimal basis
// (the cutting-plane restart of Dantzig, Fulkerson and Johnson 1954;
// Bixby 2002, "Solving real-world linear programs", §4 on warm starts). A
// backend without warm starts ignores it. Warm starts change the path to
// the optimum, not the optimum: every answer is certified as before, and a
// state that does not fit the next problem is discarded (a cold start).
//
// One WarmStart serves one sequence of solves: whoever needs a result that
// is a deterministic function of its problem alone (as a private release
// does) must not share a WarmStart between unrelated solves. It is safe for
// concurrent use, but concurrent solves then overwrite each other's state.
type WarmStart struct {
	mu    sync.Mutex
	state map[string]any
}

// Load returns the state the named backend stored last, or nil.
func (w *WarmStart) Load(backend string) any {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.state[backend]
}

// Clone returns a WarmStart holding the same states (a nil w: an empty
// one), for sequences that start from a common point and must not see each
// other's later states. The states themselves are shared: a backend never
// modifies a state after storing it.
func (w *WarmStart) Clone() *WarmStart {
	c := &WarmStart{}
	if w == nil {
		return c
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.state) > 0 {
		c.state = make(map[string]any, len(w.state))
		for k, v := range w.state {
			c.state[k] = v
		}
	}
	return c
}

// Store records the named backend's state (nil: forget it). The state must
// not be modified afterwards (Clone shares it).
func (w *WarmStart) Store(backend string, v any) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.state == nil {
		w.state = map[string]any{}
	}
	w.state[backend] = v
}

// Validate reports whether the settings are admissible.
func (s *Settings) Validate() error {
	if s.TimeLimit < 0 {
		return fmt.Errorf("solver: TimeLimit is %v, must be ≥ 0", s.TimeLimit)
	}
	if s.MaxIterations < 0 {
		return fmt.Errorf("solver: MaxIterations is %d, must be ≥ 0", s.MaxIterations)
	}
	if s.Threads < 0 {
		return fmt.Errorf("solver: Threads is %d, must be ≥ 0", s.Threads)
	}
	return nil
}

// Solver is a backend for the standard form.
type Solver interface {
	// Name returns the backend's name as it appears in Solution.Solver.
	Name() string
	// Supports reports whether the backend accepts problems containing cones of
	// kind k (and, for kind-independent features, a quadratic objective).
	Supports(k cone.Kind) bool
	// Solve solves p. An error means p or the settings were invalid, or the
	// backend could not run at all; every numerical outcome is a Status.
	Solve(ctx context.Context, p *Problem, s Settings) (*Solution, error)
}
