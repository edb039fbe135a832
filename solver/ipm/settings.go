package ipm

import (
	"errors"
	"fmt"
	"math"

	"github.com/privopt/privopt/solver"
)

// ErrInvalid is wrapped by every error Settings.Validate returns (the
// module's shape: "ipm: invalid settings: <the bad value>"); an invalid
// problem is reported with solver.ErrInvalid.
var ErrInvalid = errors.New("ipm: invalid settings")

// ErrInvalidSettings is the former name of ErrInvalid (the same value).
//
// Deprecated: use ErrInvalid.
var ErrInvalidSettings = ErrInvalid

// Settings are the interior-point method's options. The zero value of every
// field means its default (DefaultSettings); the embedded solver.Settings carry
// the limits and the log writer shared with other backends (MaxIterations
// defaults to 200; Log, when set, receives one line per iteration).
type Settings struct {
	solver.Settings

	// FeasTol bounds the relative primal and dual residuals at an optimum,
	//
	//	‖Ax + s − b‖∞ ≤ FeasTol·(1 + max(‖b‖∞, ‖Ax‖∞, ‖s‖∞)),
	//	‖Px + q + Aᵀy‖∞ ≤ FeasTol·(1 + max(‖q‖∞, ‖Px‖∞, ‖Aᵀy‖∞)),
	//
	// measured on the original (unscaled) data. Default 1e-8.
	FeasTol float64
	// GapTol bounds the duality gap at an optimum:
	// |pobj − dobj| ≤ GapTol·max(1, min(|pobj|, |dobj|)). Default 1e-8.
	GapTol float64
	// InfeasTol is the relative tolerance of the infeasibility certificates:
	// a primal certificate y needs ‖Aᵀy‖∞ ≤ InfeasTol·(−bᵀy), a dual one x needs
	// ‖Px‖∞, ‖Ax + s‖∞ ≤ InfeasTol·(−qᵀx) (on the equilibrated data).
	// Default 1e-8.
	InfeasTol float64
	// ReducedFeasTol and ReducedGapTol are the reduced-accuracy tolerances: when
	// the full accuracy cannot be reached (iteration limit, stalled progress,
	// numerical trouble) but the best iterate meets these, the status is
	// solver.AlmostOptimal. Defaults 1e-5.
	ReducedFeasTol, ReducedGapTol float64

	// StaticReg is the constant static regularization ε added to the primal
	// diagonal and subtracted from the dual diagonal of the KKT matrix, plus
	// StaticRegProportional times its largest diagonal entry (Clarabel's rule).
	// Defaults 1e-8 and 2.2e-16 (machine epsilon).
	StaticReg, StaticRegProportional float64
	// DynamicRegEps and DynamicRegDelta: an LDLᵀ pivot d with expected sign σ is
	// replaced by σ·DynamicRegDelta when σ·d < DynamicRegEps. Defaults 1e-13
	// and 2e-7.
	DynamicRegEps, DynamicRegDelta float64
	// MinStaticReg is the smallest static regularization the solver may
	// switch to when the refined KKT solves stay inaccurate (relative residual
	// above 1e-9 and 1e-3 times the iterate's residuals): ε is then divided by
	// 100 at a time down to MinStaticReg and the most accurate choice is kept
	// (ill-conditioned constraints such as finite-difference operators in
	// QPs need 1e-14). Default 1e-14; a value ≥ StaticReg disables the
	// adaptation.
	MinStaticReg float64
	// RefineSteps is the maximal number of iterative-refinement steps per KKT
	// solve, against the unregularized KKT matrix. Default 10. Set
	// DisableRefinement to switch refinement off.
	RefineSteps       int
	DisableRefinement bool

	// EquilibrationIterations is the number of modified Ruiz equilibration
	// sweeps (default 10), at most: the sweeps stop early once one of them
	// changes no scaling factor by more than 1% (the norms are then within
	// about 2% of 1); DisableEquilibration switches scaling off.
	EquilibrationIterations int
	DisableEquilibration    bool
	// EquilibrationMin and EquilibrationMax bound the accumulated scaling
	// factors. Defaults 1e-4 and 1e4.
	EquilibrationMin, EquilibrationMax float64

	// MaxStepFraction is the fraction of the step to the cone boundary that is
	// taken (default 0.99).
	MaxStepFraction float64

	// SOCExpandDim: second-order cones of dimension above this are put into
	// the KKT matrix in the sparse expanded form (two extra rows per cone)
	// instead of as a dense block. Default 4.
	SOCExpandDim int

	// DisablePSDElimination keeps every PSD block in the KKT matrix. By
	// default a PSD block of svec dimension d whose rows touch at most 2d
	// columns of A is eliminated (its Schur complement A_pᵀH⁻¹A_p enters
	// the x-block, as in CSDP and SDPA), which avoids factoring a dense d×d
	// block and is more accurate on ill-conditioned small blocks.
	DisablePSDElimination bool
	// PSDSchurRule selects how the Schur complement A_pᵀH⁻¹A_p of an
	// eliminated PSD block is assembled: PSDSchurAuto (default) takes the
	// cheaper one by an operation-count estimate, PSDSchurSparse the
	// sparse formulas of Fujisawa, Kojima & Nakata (1997), PSDSchurDense the
	// dense product gt·gtᵀ with gt's rows svec(T mat(a_j) Tᵀ), TᵀT = H⁻¹'s
	// matrix factor (for tests and cross-checks). A block assembled by the
	// sparse formulas switches to the dense product for the rest of the
	// solve when a solve with it fails, or when it factors with regularized
	// pivots and the dense product costs at most 10× as much.
	PSDSchurRule PSDSchurRule

	// NonsymScaling selects the scaling of the exponential and power cones
	// (NonsymScalingAuto by default; see NonsymScaling).
	NonsymScaling NonsymScaling

	// DisableCentralityCorrectors switches off the multiple centrality
	// correctors of Gondzio (Comput. Optim. Appl. 6, 1996) in the spectral
	// form for symmetric cones: after the Mehrotra direction with step α,
	// the eigenvalues of the NT-scaled complementarity product at step
	// min(1, α + 0.1) outside [0.1σμ, 10σμ] are moved onto that box by up to
	// two more solves with the iteration's factorization, each kept when the
	// step grows by at least 0.01. By default they are used when every cone
	// is symmetric and the Schur complement assembly of the eliminated PSD
	// blocks costs at least Σ n³ over the PSD blocks (measured: 4–56% fewer
	// iterations there, 37% in total), the second one only
	// when it costs at least 2Σ n³; elsewhere they cost more than they
	// save.
	DisableCentralityCorrectors bool

	// Progress, when non-nil, is called after every iteration's termination
	// checks with the iteration's measures (the numbers of the log line).
	Progress func(Iteration)
	// iterates, when non-nil, receives x and s of every iterate mapped back
	// to the caller's problem (point), after the iteration's log line: the
	// history from which a facial reduction recovers its dropped variable
	// (solveFacial).
	iterates func(x, s []float64)

	// DenseKKT forces the dense LDLᵀ fallback for the KKT system (for tests and
	// tiny problems); the default is the sparse LDLᵀ with AMD ordering.
	DenseKKT bool

	// MaxFactorBytes caps the memory of the KKT factorization, estimated
	// before it is allocated: 8·Σ_PSD d² bytes for the dense blocks of PSD
	// cones (d = n(n+1)/2, the svec dimension), checked first, and 8·nnz(L)
	// for the sparse LDLᵀ factor, known after the symbolic analysis. A
	// problem above the cap is rejected with an error wrapping ErrTooLarge
	// instead of exhausting memory (a lone 300×300 PSD variable needs 16 GB; a
	// random sparse LP with 180,000 nonzeros filled in to about 5 GB). 0 means
	// 4 GiB; negative means no limit.
	MaxFactorBytes int64

	// Termination holds the rules that end a solve short of a verified
	// optimum or a certificate (zero fields: defaults).
	Termination Termination
}

// Termination is the set of rules, in the order the main loop applies them,
// that end an interior-point solve other than by a verified optimum, an
// infeasibility certificate or a limit. Each is stated in quantities the loop
// measures: the merit max(pres, dres, min(gap, relative gap)) of an iterate
// (see Iteration), μ = (sᵀz + τκ)/(ν + 1), and the step length α. The zero
// value of every field means its default; the measurements behind the
// defaults are in BENCHMARKS.md ("IPM termination rules").
type Termination struct {
	// MaxUnverified is the number of iterations the method continues after
	// its internal stopping rule holds (on the presolved, equilibrated
	// problem) while the re-check on the caller's data (solver.Measure)
	// does not; then the best iterate is evaluated. Default 15.
	MaxUnverified int
	// DivergenceFactor and DivergenceGrace: once the best iterate meets
	// ReducedFeasTol, an iterate whose merit exceeds DivergenceFactor times
	// the best one counts as diverging (the KKT solves have lost accuracy,
	// or the iterates turn towards an infeasibility certificate, τ → 0);
	// after DivergenceGrace such iterations the solve stops, the grace
	// letting a certificate form. Defaults 100 and 30.
	DivergenceFactor float64
	DivergenceGrace  int
	// DualInfeasibleGrace is the number of iterations run past the detection
	// of dual infeasibility, looking for a primal infeasibility certificate
	// (a problem can be primal and dual infeasible; the primal certificate
	// then takes precedence). Default 10. The solve ends before the grace
	// is over, "unbounded" with Solution.FeasiblePoint, as soon as a primal
	// feasible point is found next to the ray (solver.CheckFeasible at
	// FeasTol): then no primal certificate exists. NoGrace (any negative value)
	// stops at the detection: for a caller that decides primal feasibility
	// itself, as solver/auto does by solving the feasibility problem of
	// every "unbounded" answer — the grace is then ten iterations spent on
	// a question the caller answers anyway.
	DualInfeasibleGrace int
	// TailWindow, TailProgress and TailPlateau end the round-off plateau of a
	// solve whose best iterate meets the reduced tolerances (ReducedFeasTol,
	// ReducedGapTol) but not the full ones: it stops when, during the last
	// TailWindow iterations, neither the best merit nor μ has fallen by the
	// factor TailProgress while the current merit stays within TailPlateau
	// times the best. A healthy iteration reduces both by about 1 − α
	// (α ≥ 0.5 near a solution), i.e. by 2⁴ or more in four iterations;
	// less than TailProgress in TailWindow iterations is a plateau of the
	// KKT solves' round-off. Iterates moving away from the best (merit above
	// TailPlateau times it) are left to the divergence rule. The rule (and
	// TailTinyStep's) applies to problems with PSD blocks eliminated into a
	// Schur complement, where such a plateau was never seen to end otherwise
	// than by the guards; elsewhere the adaptation of the static
	// regularization can still end it. Defaults 4, 2 and 10.
	TailWindow   int
	TailProgress float64
	TailPlateau  float64
	// TailTinyStep and TailTinySteps end the same plateau when it shows as
	// steps that no longer move the point: TailTinySteps consecutive step
	// lengths below TailTinyStep stop the solve (same conditions as
	// TailWindow). Defaults 0.01 and 2.
	TailTinyStep  float64
	TailTinySteps int
	// StallStep and StallSteps: StallSteps consecutive step lengths below
	// StallStep end any solve (the directions no longer move the point).
	// Defaults 1e-10 and 3.
	StallStep  float64
	StallSteps int
}

// NoGrace is the Termination.DualInfeasibleGrace that stops at the detection
// of dual infeasibility (no grace iterations).
const NoGrace = -1

// dualInfeasibleGrace is the number of grace iterations DualInfeasibleGrace
// stands for (after fill).
func (t *Termination) dualInfeasibleGrace() int { return max(t.DualInfeasibleGrace, 0) }

// fill replaces zero fields by their defaults.
func (t *Termination) fill() {
	defInt := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	defFloat := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	defInt(&t.MaxUnverified, 15)
	defFloat(&t.DivergenceFactor, 100)
	defInt(&t.DivergenceGrace, 30)
	defInt(&t.DualInfeasibleGrace, 10)
	defInt(&t.TailWindow, 4)
	defFloat(&t.TailProgress, 2)
	defFloat(&t.TailPlateau, 10)
	defFloat(&t.TailTinyStep, 0.01)
	defInt(&t.TailTinySteps, 2)
	defFloat(&t.StallStep, 1e-10)
	defInt(&t.StallSteps, 3)
}

// validate reports the first inadmissible field (zero fields are defaults).
func (t *Termination) validate() error {
	for _, f := range []struct {
		name string
		v    int
	}{{"MaxUnverified", t.MaxUnverified}, {"DivergenceGrace", t.DivergenceGrace}, {"DualInfeasibleGrace", max(t.DualInfeasibleGrace, 0)},
		{"TailWindow", t.TailWindow}, {"TailTinySteps", t.TailTinySteps}, {"StallSteps", t.StallSteps}} {
		if f.v < 0 {
			return fmt.Errorf("Termination.%s is %d, must be ≥ 0 (0 means default)", f.name, f.v)
		}
	}
	for _, f := range []struct {
		name  string
		v, lo float64
	}{{"DivergenceFactor", t.DivergenceFactor, 1}, {"TailProgress", t.TailProgress, 1}, {"TailPlateau", t.TailPlateau, 1},
		{"TailTinyStep", t.TailTinyStep, 0}, {"StallStep", t.StallStep, 0}} {
		if f.v != 0 && !(f.v > f.lo && !math.IsInf(f.v, 0)) {
			return fmt.Errorf("Termination.%s is %v, must be finite and > %v (0 means default)", f.name, f.v, f.lo)
		}
	}
	return nil
}

// PSDSchurRule is the assembly rule of the Schur complement of an eliminated
// PSD block (Settings.PSDSchurRule).
// NonsymScaling is the scaling strategy of the non-symmetric (exponential
// and power) cones.
//
// The dual scaling is H = μ∇²f*(z) with a backtracking line search that
// keeps the barrier proximity Ψ below 1 (Clarabel's test); the primal–dual
// scaling is the BFGS-type update of Dahl & Andersen (2022, Section 4),
// H z = s and H z̃ = s̃ with the shadow iterates s̃ = −∇f*(z), z̃ = −∇f**(s)
// (nonsymCone.updateScaling). The primal–dual scaling takes longer steps
// from afar; the dual one keeps the iterates centred, which the last digits
// of x need (on min t − 2x s.t. eˣ ≤ t, x = log 2: 7·10⁻⁵ off with the
// primal–dual scaling to the end, 10⁻⁸ with the dual one, at the same
// gap). In the primal–dual phase the step to the cone's boundary is refined
// by bisection (stepBisections).
type NonsymScaling int

const (
	// NonsymScalingAuto starts with the primal–dual scaling and switches to
	// the dual scaling once the primal residual, the dual residual and the
	// relative gap are all below nonsymDualSwitch (10⁻⁴), or after a step
	// shorter than 0.1 (Clarabel's min_switch_step_length). Measured in
	// BENCHMARKS.md "Exponential-cone scaling, round 13": 23% and 26% fewer
	// iterations than NonsymScalingDual on the exp and entropy families of
	// bench/smallconic (50 instances each), and 31% fewer on the CBLIB
	// exponential- and power-cone instances whose count changed (one
	// instance one more), no status lost.
	NonsymScalingAuto NonsymScaling = iota
	// NonsymScalingDual starts with the dual scaling and switches to the
	// primal–dual one for good when the dual one stalls (steps below 10⁻³,
	// e.g. when an infeasibility certificate lies on the boundary of K*).
	NonsymScalingDual
	// NonsymScalingPrimalDual uses the primal–dual scaling throughout,
	// falling back to the dual one after a step shorter than 0.1 (Clarabel's
	// default strategy).
	NonsymScalingPrimalDual
)

type PSDSchurRule int

const (
	// PSDSchurAuto picks PSDSchurSparse or PSDSchurDense per block by the
	// estimated multiply-adds of one assembly.
	PSDSchurAuto PSDSchurRule = iota
	// PSDSchurSparse assembles M_ij = tr(F_i G F_j G), G = B⁻¹, from the
	// nonzeros of the data matrices F_i = mat(a_i) with the formulas F1, F2,
	// F3 of Fujisawa, Kojima & Nakata, "Exploiting sparsity in primal-dual
	// interior-point methods for semidefinite programming", Math. Program.
	// 79 (1997), chosen per row by its cost, as CSDP and SDPA do.
	PSDSchurSparse
	// PSDSchurDense assembles M = gt·gtᵀ with gt's rows svec(T F_i Tᵀ),
	// TᵀT = G: n³/2 multiply-adds per column plus a rank-d update, whatever
	// the sparsity of the F_i.
	PSDSchurDense
)

// DefaultSettings returns the settings used for zero fields.
func DefaultSettings() Settings {
	s := Settings{}
	s.fill()
	return s
}

// fill replaces zero fields by their defaults.
func (s *Settings) fill() {
	def := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	def(&s.FeasTol, 1e-8)
	def(&s.GapTol, 1e-8)
	def(&s.InfeasTol, 1e-8)
	def(&s.ReducedFeasTol, 1e-5)
	def(&s.ReducedGapTol, 1e-5)
	def(&s.StaticReg, 1e-8)
	def(&s.StaticRegProportional, 2.220446049250313e-16)
	def(&s.DynamicRegEps, 1e-13)
	def(&s.DynamicRegDelta, 2e-7)
	def(&s.MinStaticReg, 1e-14)
	def(&s.EquilibrationMin, 1e-4)
	def(&s.EquilibrationMax, 1e4)
	def(&s.MaxStepFraction, 0.99)
	if s.MaxIterations == 0 {
		s.MaxIterations = 200
	}
	if s.RefineSteps == 0 {
		s.RefineSteps = 10
	}
	if s.EquilibrationIterations == 0 {
		s.EquilibrationIterations = 10
	}
	if s.SOCExpandDim == 0 {
		s.SOCExpandDim = 4
	}
	if s.MaxFactorBytes == 0 {
		s.MaxFactorBytes = 4 << 30
	}
	s.Termination.fill()
}

// tol is the tolerance of solver.Certify for an Optimal status: the larger of
// FeasTol and GapTol (solver.Measure reports residuals and gap on one scale).
func (s *Settings) tol() float64 { return math.Max(s.FeasTol, s.GapTol) }

// reducedTol is the tolerance of solver.Certify for AlmostOptimal.
func (s *Settings) reducedTol() float64 { return math.Max(s.ReducedFeasTol, s.ReducedGapTol) }

// Validate reports whether the settings are admissible (zero fields are
// defaults and always admissible).
func (s *Settings) Validate() error {
	if err := s.Settings.Validate(); err != nil {
		return fmt.Errorf("%w: %v", ErrInvalidSettings, err)
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrInvalidSettings, fmt.Sprintf(format, args...))
	}
	pos := []struct {
		name string
		v    float64
	}{
		{"FeasTol", s.FeasTol}, {"GapTol", s.GapTol}, {"InfeasTol", s.InfeasTol},
		{"ReducedFeasTol", s.ReducedFeasTol}, {"ReducedGapTol", s.ReducedGapTol},
		{"StaticReg", s.StaticReg}, {"StaticRegProportional", s.StaticRegProportional},
		{"DynamicRegEps", s.DynamicRegEps}, {"DynamicRegDelta", s.DynamicRegDelta},
		{"MinStaticReg", s.MinStaticReg},
		{"EquilibrationMin", s.EquilibrationMin}, {"EquilibrationMax", s.EquilibrationMax},
	}
	for _, f := range pos {
		if f.v < 0 || math.IsNaN(f.v) || math.IsInf(f.v, 0) {
			return bad("%s is %v, must be ≥ 0 and finite (0 means default)", f.name, f.v)
		}
	}
	if s.MaxStepFraction < 0 || s.MaxStepFraction >= 1 || math.IsNaN(s.MaxStepFraction) {
		return bad("MaxStepFraction is %v, must be in (0, 1) (0 means default 0.99)", s.MaxStepFraction)
	}
	if s.RefineSteps < 0 {
		return bad("RefineSteps is %d, must be ≥ 0", s.RefineSteps)
	}
	if s.EquilibrationIterations < 0 {
		return bad("EquilibrationIterations is %d, must be ≥ 0", s.EquilibrationIterations)
	}
	if s.PSDSchurRule < PSDSchurAuto || s.PSDSchurRule > PSDSchurDense {
		return bad("PSDSchurRule is %d, must be PSDSchurAuto (0), PSDSchurSparse (1) or PSDSchurDense (2)", s.PSDSchurRule)
	}
	if s.SOCExpandDim < 0 {
		return bad("SOCExpandDim is %d, must be ≥ 0", s.SOCExpandDim)
	}
	if s.EquilibrationMin != 0 && s.EquilibrationMax != 0 && s.EquilibrationMin > s.EquilibrationMax {
		return bad("EquilibrationMin %v exceeds EquilibrationMax %v", s.EquilibrationMin, s.EquilibrationMax)
	}
	r, f := s.ReducedFeasTol, s.FeasTol
	if r != 0 && f != 0 && r < f {
		return bad("ReducedFeasTol %v is below FeasTol %v", r, f)
	}
	if err := s.Termination.validate(); err != nil {
		return bad("%v", err)
	}
	return nil
}

// Iteration reports the state of the interior-point method at the start of
// one iteration: objectives and the relative residuals and gap of the stopping
// rules (see Settings.FeasTol, Settings.GapTol), μ = (sᵀz + τκ)/(ν + 1), and the
// step length taken to reach it (0 for iteration 0).
type Iteration struct {
	Iteration                      int
	PrimalObjective, DualObjective float64
	Gap, RelativeGap               float64
	PrimalResidual, DualResidual   float64
	Mu, Step                       float64
}
