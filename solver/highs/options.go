package highs

import (
	"fmt"
	"math"

	"github.com/privopt/privopt/solver"
)

// Options configures the HiGHS backend. The zero value means HiGHS's defaults
// with output off. Fields map to HiGHS options of the same meaning (HiGHS
// documentation, "Options"); a zero numeric field leaves HiGHS's default.
type Options struct {
	// Settings are the options common to every backend: TimeLimit → HiGHS
	// time_limit, MaxIterations → simplex/ipm/qp iteration limits, Threads →
	// threads, Log → HiGHS's log lines are written there (nil: no output).
	solver.Settings

	// Method is HiGHS's "solver" option: "" or "choose" (HiGHS decides; dual
	// simplex for most LPs), "simplex", "ipm" or "pdlp". QPs always use HiGHS's
	// active-set QP solver.
	Method string
	// Presolve is "" or "choose" (default: on), "on" or "off".
	Presolve string
	// Simplex is HiGHS's simplex_strategy: "" (HiGHS's choice: the dual
	// simplex), "dual" or "primal". After a change of the objective only,
	// the previous basis stays primal feasible and the primal simplex
	// continues from it (bound tightening in package grid: about 5 times
	// fewer iterations than the dual simplex on a 300-bus KKT relaxation).
	Simplex string
	// PrimalFeasibilityTolerance bounds the primal residual of an optimal
	// solution (HiGHS default 1e-7).
	PrimalFeasibilityTolerance float64
	// DualFeasibilityTolerance bounds the dual residual (reduced-cost sign
	// violation) of an optimal solution (HiGHS default 1e-7).
	DualFeasibilityTolerance float64
	// OptimalityTolerance is the relative duality-gap tolerance of the IPM
	// (HiGHS ipm_optimality_tolerance, default 1e-8).
	OptimalityTolerance float64
	// RandomSeed for HiGHS's randomized choices (0: HiGHS default).
	RandomSeed int
	// CertifyTolerance is the tolerance of the re-check of an optimum on the
	// caller's data (solver.Certify: relative residuals, gap, cone distances
	// and objective sensitivity; default 1e-7, HiGHS's own feasibility
	// tolerance). An answer that misses it but meets 1e-5 is reported
	// AlmostOptimal, any other NumericalError, with Solution.Diagnostic.
	CertifyTolerance float64
}

// certifyTol returns CertifyTolerance or its default 1e-7 (HiGHS's own
// feasibility tolerance; solver.Accuracy.Meets then allows an objective
// sensitivity of 1e-6, the public benchmarks' accuracy). HiGHS's active-set
// QP solver often stops just short of it (its dual objective lags by a few
// 1e-7): such QP answers are AlmostOptimal, and the default route
// (solver/auto) solves QPs with the IPM first.
func (o *Options) certifyTol() float64 {
	if o.CertifyTolerance > 0 {
		return o.CertifyTolerance
	}
	return 1e-7
}

// Validate reports whether the options are admissible.
func (o *Options) Validate() error {
	if err := o.Settings.Validate(); err != nil {
		return fmt.Errorf("highs: %w", err)
	}
	switch o.Method {
	case "", "choose", "simplex", "ipm", "pdlp":
	default:
		return fmt.Errorf("highs: Method is %q, must be \"choose\", \"simplex\", \"ipm\" or \"pdlp\"", o.Method)
	}
	switch o.Presolve {
	case "", "choose", "on", "off":
	default:
		return fmt.Errorf("highs: Presolve is %q, must be \"choose\", \"on\" or \"off\"", o.Presolve)
	}
	switch o.Simplex {
	case "", "dual", "primal":
	default:
		return fmt.Errorf("highs: Simplex is %q, must be \"dual\" or \"primal\"", o.Simplex)
	}
	for _, t := range []struct {
		name string
		v    float64
	}{
		{"PrimalFeasibilityTolerance", o.PrimalFeasibilityTolerance},
		{"DualFeasibilityTolerance", o.DualFeasibilityTolerance},
		{"OptimalityTolerance", o.OptimalityTolerance},
		{"CertifyTolerance", o.CertifyTolerance},
	} {
		if math.IsNaN(t.v) || math.IsInf(t.v, 0) || t.v < 0 || t.v >= 1 {
			return fmt.Errorf("highs: %s is %v, must be in [0, 1) (0 means HiGHS's default)", t.name, t.v)
		}
	}
	if o.RandomSeed < 0 || o.RandomSeed > math.MaxInt32 {
		return fmt.Errorf("highs: RandomSeed is %d, must be in [0, %d]", o.RandomSeed, math.MaxInt32)
	}
	return nil
}

// merged returns o with the non-zero fields of s overriding o.Settings.
func (o Options) merged(s solver.Settings) Options {
	if s.TimeLimit != 0 {
		o.TimeLimit = s.TimeLimit
	}
	if s.MaxIterations != 0 {
		o.MaxIterations = s.MaxIterations
	}
	if s.Log != nil {
		o.Log = s.Log
	}
	if s.Threads != 0 {
		o.Threads = s.Threads
	}
	if s.Warm != nil {
		o.Warm = s.Warm
	}
	return o
}
