package ipm

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/internal/ldl"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/sparse"
)

var _ solver.Solver = (*Solver)(nil)

// ErrNotConvex is wrapped by the error Solve returns when P is not positive
// semidefinite (detected by a negative pivot in the LDLᵀ factorization of
// P + δI, δ = 1e-9·max(1, max|Pᵢⱼ|)).
var ErrNotConvex = errors.New("ipm: P is not positive semidefinite")

// ErrTooLarge is wrapped by the error returned when the KKT factorization
// would exceed Settings.MaxFactorBytes.
var ErrTooLarge = errors.New("ipm: problem too large")

// Solver is the interior-point backend. It is safe for concurrent use: every
// Solve call has its own workspace.
type Solver struct {
	set Settings
}

// init registers the solver under its name, "ipm", for solver.ByName.
func init() { solver.Register("ipm", func() solver.Solver { return New() }) }

// New returns an interior-point solver with default settings.
func New() *Solver { return &Solver{} }

// NewWithSettings returns a solver with the given settings (zero fields mean
// defaults); it fails when set.Validate does.
func NewWithSettings(set Settings) (*Solver, error) {
	if err := set.Validate(); err != nil {
		return nil, err
	}
	return &Solver{set: set}, nil
}

// Name returns "ipm".
func (*Solver) Name() string { return "ipm" }

// Supports reports true for every cone kind (and quadratic objectives).
func (*Solver) Supports(k cone.Kind) bool {
	return k >= cone.Zero && k <= cone.Power
}

// Solve solves p by the homogeneous self-dual interior-point method described
// in the package documentation. Non-zero fields of s (time limit, iteration
// limit, log writer) override the solver's settings. The error is non-nil only
// for invalid input (wrapping solver.ErrInvalidProblem, ErrInvalidSettings or
// ErrNotConvex); every numerical outcome is a Status. A PSD block whose dual
// feasible set lies in a proper face (a variable with q_j = 0 whose column is
// a singular semidefinite matrix of the block) is first reduced to that face
// and the answer mapped back and re-checked on p (facialReduction). A solve
// that ends numerical-error with the equilibration on is repeated without it
// (resolveUnequilibrated).
func (sv *Solver) Solve(ctx context.Context, p *solver.Problem, s solver.Settings) (*solver.Solution, error) {
	start := time.Now()
	sol, err := sv.solveReduced(ctx, p, s)
	if err != nil || sol == nil || sol.Status != solver.NumericalError || sv.set.DisableEquilibration {
		return sol, err
	}
	return sv.resolveUnequilibrated(ctx, p, s, sol, start), nil
}

// resolveUnequilibrated solves p again without the equilibration after sol,
// a solve with it started at start, ended numerical-error, within the time
// that solve left, and returns the second answer when solver.Certify grades it
// higher (Optimal above AlmostOptimal above any other status), else sol.
//
// Why: the equilibration (Ruiz scaling of the rows block by block and of the
// columns) can make the scaled KKT systems less accurate than the caller's
// own: measured on generated H∞ synthesis LMIs with unstable plants, whose
// entries span many orders of magnitude, 19 of 80 ended numerical-error with
// it and 12 without it, and the solves that succeed with it are not improved
// by removing it (BENCHMARKS.md, "Optimal sets at infinity, round 14"). A
// solve that ends normally pays nothing; a failing one pays a second solve.
func (sv *Solver) resolveUnequilibrated(ctx context.Context, p *solver.Problem, s solver.Settings, sol *solver.Solution, start time.Time) *solver.Solution {
	if ctx != nil && ctx.Err() != nil {
		return sol
	}
	if left, limited := sv.timeLeft(s, start); limited {
		if left <= 0 {
			return sol
		}
		s.TimeLimit = left
	}
	inner := &Solver{set: sv.set}
	inner.set.DisableEquilibration = true
	again, err := inner.solveReduced(ctx, p, s)
	if err != nil || again == nil || statusRank(again.Status) <= statusRank(sol.Status) {
		return sol
	}
	if again.Diagnostic != "" {
		again.Diagnostic += "; "
	}
	again.Diagnostic += fmt.Sprintf(
		"re-solved without the equilibration (%d iterations) after the equilibrated solve ended %v in %d iterations (%s)",
		again.Iterations, sol.Status, sol.Iterations, sol.Diagnostic)
	again.Iterations += sol.Iterations
	again.SolveTime = time.Since(start)
	return again
}

// timeLeft returns the time left of the solve's limit (s.TimeLimit, else
// the solver's TimeLimit) since start, and whether a limit is set.
func (sv *Solver) timeLeft(s solver.Settings, start time.Time) (time.Duration, bool) {
	limit := s.TimeLimit
	if limit == 0 {
		limit = sv.set.TimeLimit
	}
	return limit - time.Since(start), limit > 0
}

// solveReduced is Solve without the repetition: the facial reduction when p
// admits one, else the plain solve.
func (sv *Solver) solveReduced(ctx context.Context, p *solver.Problem, s solver.Settings) (*solver.Solution, error) {
	if p != nil && p.Validate() == nil {
		if fr := newFacialReduction(p); fr != nil && !sv.psdTooLarge(p) {
			start := time.Now()
			if sol := sv.solveFacial(ctx, fr, s); sol != nil {
				return sol, nil
			}
			// the original problem gets the time the reduced solve left
			if left, limited := sv.timeLeft(s, start); limited {
				s.TimeLimit = max(left, time.Millisecond)
			}
		}
	}
	return sv.solve(ctx, p, s, nil)
}

// psdTooLarge reports whether p's PSD blocks exceed MaxFactorBytes (the
// check newWorkspace makes): a reduction found for such a problem is not
// solved (its reduced problem would cost memory of the same order), and the
// original is refused with ErrTooLarge. Asked only when a reduction exists,
// so the other solves do not pay for the check twice.
func (sv *Solver) psdTooLarge(p *solver.Problem) bool {
	set := sv.set
	set.fill()
	return set.MaxFactorBytes > 0 && psdBytes(p, &set) > float64(set.MaxFactorBytes)
}

// solve is Solve, started from warm when it is non-nil (SolveFrom).
func (sv *Solver) solve(ctx context.Context, p *solver.Problem, s solver.Settings, warm *warmStart) (*solver.Solution, error) {
	set := sv.set
	if s.TimeLimit != 0 {
		set.TimeLimit = s.TimeLimit
	}
	if s.MaxIterations != 0 {
		set.MaxIterations = s.MaxIterations
	}
	if s.Log != nil {
		set.Log = s.Log
	}
	if s.Threads != 0 {
		set.Threads = s.Threads
	}
	if err := set.Validate(); err != nil {
		return nil, err
	}
	set.fill()
	if p == nil {
		return nil, fmt.Errorf("%w: problem is nil", solver.ErrInvalidProblem)
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	start := time.Now()
	if ctx == nil {
		ctx = context.Background()
	}
	// The setup (convexity test of P, symbolic analysis of the KKT matrix)
	// polls the context and the time limit as the iterations do.
	stop := func() bool {
		return ctx.Err() != nil || (set.TimeLimit > 0 && time.Since(start) > set.TimeLimit)
	}
	stopped := func() *solver.Solution {
		st := solver.TimeLimit
		if ctx.Err() != nil {
			st = solver.Cancelled
		}
		return &solver.Solution{Status: st, SolveTime: time.Since(start), Solver: "ipm",
			Diagnostic: "stopped during the setup (convexity test of P or symbolic analysis of the KKT matrix)"}
	}
	if err := checkConvex(p.P, set.DenseKKT, stop); err != nil {
		if errors.Is(err, ldl.ErrInterrupted) {
			return stopped(), nil
		}
		return nil, err
	}
	w, err := newWorkspace(p, &set, stop)
	if errors.Is(err, ldl.ErrInterrupted) {
		return stopped(), nil
	}
	if err != nil {
		return nil, err
	}
	w.start = start
	w.warm = warm
	sol := w.run(ctx)
	w.release()
	// Never an unverified optimum: the answer is re-checked on p itself.
	if w.finalChecked {
		// the returned point is the one verified measured last
		sol.Accuracy = solver.CertifyMeasured(sol, w.checked.acc, set.tol(), set.reducedTol())
	} else {
		sol.Accuracy = solver.Certify(p, sol, set.tol(), set.reducedTol())
	}
	sol.SolveTime = time.Since(start)
	sol.Solver = "ipm"
	return sol, nil
}

// ---------------------------------------------------------------- workspace

type workspace struct {
	slab   []float64 // the allocation the work vectors are cut from (release)
	set    *Settings
	red    *reduced
	orig   *solver.Problem
	n, m   int
	p      *sparse.CSC
	q, b   []float64
	a      *sparse.CSC
	sc     *scaling
	cones  []conic
	offs   []int // offs[i]: first row of cone i; offs[len(cones)]: m
	nu     float64
	nonsym bool
	kkt    *kktSystem
	start  time.Time
	warm   *warmStart // nil: cold start

	// original-scale norms used by the stopping rules
	normQ, normB float64

	// iterate
	x, s, z    []float64
	tau, kappa float64
	// step
	dx, ds, dz   []float64
	dtau, dkappa float64
	// residuals and products at the iterate
	rx, rz      []float64
	rtau        float64
	px, atz, ax []float64
	xpx, qx, bz float64
	norms       residualNorms // computed with the residuals (residuals)
	// checked is the last point measured by verified; finalChecked: the
	// solution finish returned is that point
	checked      checkedPoint
	finalChecked bool
	// cand is the iterate meeting the reduced tolerances with the smallest
	// estimated objective error (keepCandidate)
	cand candidatePoint
	// KKT work
	x2, z2, x1, z1 []float64
	rhs, sol       []float64
	off            []float64
	adx            []float64
	dX, dZ         []float64 // corrector right-hand sides
	rS             []float64
	work           []float64
	// non-symmetric cones: the predictor direction (Δs, Δz) and a saved
	// combined direction (Δx, Δs, Δz, Δτ, Δκ) for the corrector retry
	dsAff, dzAff           []float64
	dxKeep, dsKeep, dzKeep []float64
	dtauKeep, dkappaKeep   float64
	// centrality correctors (correctors.go): the trial point, its
	// corrector targets and zero right-hand sides of the residual rows
	corrS, corrZ, corrV []float64
	corrX0, corrZ0      []float64
	corrPSD             []psdTargetWork // per cone
	correctors          int             // centrality correctors per iteration (correctorCount), decided once per solve

	// adaptive static regularization (adaptStaticReg): whether ε is being
	// reduced, the ε with the smallest solve residual so far, whether ε is
	// settled, and the ε before the descent with the residual that started it
	regDescending         bool
	regBest, regBestErr   float64
	regLocked             bool
	regFirst, regFirstErr float64
	// revokeFrom, revokeFromErr: the reduced ε, and its solve residual, that a
	// revocation replaced by regFirst on trial (adaptStaticReg)
	revokeFrom, revokeFromErr float64
	// dirErr is the largest relative error ‖P Δx + AᵀΔz + qΔτ + r_x‖∞/‖r_x‖∞
	// of the dual equation over the Newton directions of the last iteration
	// (see solveNewton), dirRes a workspace of length n for it
	dirErr float64
	dirRes []float64
	// regStrict: the running descent was started by dirErr and continues
	// only while the solves improve; dirGaveUp: such a descent did not help,
	// and dirErr no longer starts one
	regStrict, dirGaveUp bool
	regStart             float64 // ε when the running descent started
	severeCuts           int     // cuts of ε for a severe dirErr (see dirErrSevere)
	// noEarlyRefine: PSD blocks or non-symmetric cones, whose solves are
	// refined to round-off in every iteration (earlyRefineStop)
	noEarlyRefine bool
	// nonsymEarly: non-symmetric cones, no PSD block, row spread within
	// earlyRefineSpread (earlyRefineStop, nonsymRefineFrac)
	nonsymEarly bool

	info          iterInfo
	dualScaling   bool
	scalingLocked bool
	// dualSwitch: the residual level at which the primal–dual scaling
	// gives way to the dual one (NonsymScalingAuto; 0: never)
	dualSwitch float64
	best       snapshot
	unverified int // iterations that met the internal but not the re-checked tolerances
	// tailMerit is the best merit when it last fell by TailProgress, at
	// iteration tailIt; tailStopped: the solve ended by the tail rule (run)
	tailMerit   float64
	tailIt      int
	tailStopped bool
	// tinySteps counts the consecutive steps below TailTinyStep (run)
	tinySteps int
	tailRule  bool      // the tail rule applies (eliminated PSD blocks)
	muHist    []float64 // μ of the last TailWindow+1 iterations, by iteration modulo TailWindow+1
	logged    int       // last iteration logged
	loop      loopState // run's termination state
}

type iterInfo struct {
	pobj, dobj, gap, relgap float64
	pres, dres              float64
	mu, step, sigma         float64
}
