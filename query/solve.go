package query

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/privopt/privopt/accounting"
	"github.com/privopt/privopt/chance"
	"github.com/privopt/privopt/ledger"
	"github.com/privopt/privopt/lindecision"
	"github.com/privopt/privopt/noise"
	"github.com/privopt/privopt/solver"
)

// Spec configures program perturbation of one deterministic problem.
type Spec struct {
	Query   Query
	Privacy Privacy
	// Chance is the reformulation of the joint chance constraint (method, η, β).
	Chance chance.Spec
	// Recourse of the variables outside the query (free by default).
	Recourse lindecision.Recourse
	// Solver solves the counterpart; nil picks HiGHS for LP/QP counterparts and
	// the interior-point solver otherwise.
	Solver   solver.Solver
	Settings solver.Settings
}

// ErrPrivacyInfeasible is matched (errors.Is) by every error saying that the
// requested privacy cannot be met at the requested feasibility level (Section
// 3.4): a primal-infeasible counterpart or a structurally infeasible lift. The
// concrete error is a *chance.InfeasibleError with a hint.
var ErrPrivacyInfeasible = chance.ErrInfeasible

// Timing records where the time of Solve went.
type Timing struct {
	Lift, Reformulate, Solve time.Duration
}

// Solution is a solved program perturbation, ready to release.
type Solution struct {
	Base        *solver.Problem
	Query       Query
	Privacy     Privacy
	Delta       float64 // δ actually guaranteed by the mechanism
	Lifted      *lindecision.Lifted
	Counterpart *chance.Counterpart
	Rule        *lindecision.Rule
	Solver      *solver.Solution
	// QueryMean is Q x̄*, the data-dependent part of the release.
	QueryMean []float64
	// Objective is the optimal expected objective E[½x̃ᵀPx̃ + qᵀx̃ + r].
	Objective float64
	Timing    Timing

	mech *noise.Mechanism // for floating-point-safe releases; may be nil
}

// QueryTolerance is the largest |Q X* − I| entry accepted before a release
// (solvers meet Q X = I to their feasibility tolerance, about 1e-7). The
// released value Q x̄* + ζ̂ does not involve X*, so its privacy never depends on
// this check; a larger deviation means the decision rule x̄* + X*ζ̂ would not
// reproduce the released value, and Solve and Release refuse.
const QueryTolerance = 1e-6

// Solve lifts p with the query's noise, reformulates the chance constraints,
// solves the counterpart and checks that the query's random part is the noise
// itself (Q X* = I). An infeasible counterpart returns an error matching
// ErrPrivacyInfeasible (a *chance.InfeasibleError).
func Solve(ctx context.Context, p *solver.Problem, spec Spec) (*Solution, error) {
	if p == nil {
		return nil, invalidf("problem is nil")
	}
	if err := spec.Query.Validate(p.NumVars()); err != nil {
		return nil, err
	}
	k := spec.Query.K()
	comps, delta, mech, err := spec.Privacy.mechanism(ctx, k)
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	l, err := lindecision.Lift(p, lindecision.Spec{
		Noise:    lindecision.Perturbation{Components: comps},
		Query:    spec.Query.Rows,
		Recourse: spec.Recourse,
	})
	if err != nil {
		if errors.Is(err, lindecision.ErrInfeasible) {
			return nil, &chance.InfeasibleError{Guarantee: chance.Guarantee{Method: spec.Chance.Method.String(), Eta: spec.Chance.Eta}, Cause: err}
		}
		return nil, err
	}
	t1 := time.Now()
	// The safe release rounds: widen the chance reformulation by the largest
	// difference between the released noise and a draw of the law.
	if m := releaseMargin(mech); m > 0 {
		spec.Chance.ReleaseMargin = math.Max(spec.Chance.ReleaseMargin, m)
		spec.Chance.Groups = append([]chance.Group(nil), spec.Chance.Groups...)
		for g := range spec.Chance.Groups {
			spec.Chance.Groups[g].ReleaseMargin = math.Max(spec.Chance.Groups[g].ReleaseMargin, m)
		}
	}
	cp, err := chance.ReformulateContext(ctx, l, spec.Chance)
	if err != nil {
		return nil, err
	}
	t2 := time.Now()
	res, err := chance.Solve(ctx, cp, spec.Solver, spec.Settings)
	if err != nil {
		return nil, err
	}
	t3 := time.Now()
	s := &Solution{
		Base: p, Query: spec.Query, Privacy: spec.Privacy, Delta: delta, mech: mech,
		Lifted: l, Counterpart: cp, Rule: res.Rule, Solver: res.Solution,
		QueryMean: spec.Query.Apply(res.Rule.XBar), Objective: res.Objective,
		Timing: Timing{Lift: t1.Sub(t0), Reformulate: t2.Sub(t1), Solve: t3.Sub(t2)},
	}
	if err := s.checkQueryRecourse(); err != nil {
		return nil, err
	}
	return s, nil
}

// releaseMargin bounds |released noise − a draw of the law| for mechanisms
// whose safe release rounds a continuous draw: Laplace snapping outputs the
// multiple of Λ (the smallest power of two ≥ the scale λ) nearest to
// value + ζ, so the released noise is within Λ/2 of ζ (Mironov 2012); the
// exact piecewise-constant sampler floors value + X to its grid g (within g).
// The other safe releases draw a discretized law directly (discrete Gaussian,
// discrete truncated Laplace): their bounded supports are covered by
// ReleaseSupport, and no margin is added for the unbounded ones (0).
func releaseMargin(m *noise.Mechanism) float64 {
	if m == nil {
		return 0
	}
	if pc, ok := m.Dist.(*noise.PiecewiseConstant); ok {
		// ⌊(v + X)/g⌋·g − v ∈ (X − g, X]: within one grid step g of X.
		return pc.DefaultGranularity()
	}
	lap, ok := m.Dist.(*noise.Laplace)
	if !ok {
		return 0
	}
	frac, exp := math.Frexp(lap.Scale) // scale = frac·2^exp, frac ∈ [0.5, 1)
	unit := math.Ldexp(1, exp)
	if frac == 0.5 {
		unit = lap.Scale
	}
	return unit / 2
}

// checkQueryRecourse verifies Q X* = I.
func (s *Solution) checkQueryRecourse() error {
	_, k := s.Rule.X.Dims()
	for r, row := range s.Query.Rows {
		for j := 0; j < k; j++ {
			v := 0.0
			for t, c := range row.Idx {
				v += row.Val[t] * s.Rule.X.At(c, j)
			}
			want := 0.0
			if r == j {
				want = 1
			}
			if math.Abs(v-want) > QueryTolerance {
				return fmt.Errorf("query: (Q X*)[%d][%d] = %v, want %v: the released noise would depend on the data; refusing", r, j, v, want)
			}
		}
	}
	return nil
}

// Record documents one release: what was released, under which guarantee.
// It holds only publishable facts (parameters, provenance, certificate), never
// a pre-noise value.
type Record struct {
	Query     string
	K         int
	Mechanism Mechanism
	// Epsilon and Delta are the guarantee of the whole release: for a Custom
	// mechanism with k > 1 rows the composed (kε, kδ) of the per-row noise.
	Epsilon float64
	Delta   float64
	// Gamma > 0 means (ε, δ, γ)-probabilistic DP: the guarantee holds for all
	// but a fraction γ of adjacent dataset pairs (sampled sensitivity), with
	// confidence 1 − SensitivityBeta.
	Gamma             float64
	SensitivityBeta   float64
	Sensitivity       float64
	SensitivityNorm   float64
	SensitivitySource SensitivitySource
	SensitivitySample int
	// Certificate proves the sensitivity (SensitivitySource Certified).
	Certificate *Certificate
	// Guarantee is the one-line statement every output prints, e.g.
	// "(1, 0)-DP; sensitivity 37.2 (ℓ1, certified by opf-price-cap)" or
	// "(1, 0)-DP assuming sensitivity 2 (ℓ1, declared: assumed, not verified)".
	// Only a certified sensitivity gives an unconditional "-DP" statement.
	Guarantee string
	// Dataset names the data the release spends privacy on (ledger key).
	Dataset string
	// Feasibility guarantee of the decision rule.
	Method        string
	Eta, Beta     float64
	GuaranteeKind string
	SolverStatus  string
	SolverName    string
	// Theorem names the statement of Dvorkin et al. the release follows.
	Theorem string
	// FloatingPointSafe reports whether the noise was added by a procedure
	// whose privacy survives floating-point arithmetic (noise.Mechanism.Release:
	// Mironov's snapping for Laplace, exact sampling for piecewise-constant
	// noise); false means plain Dist.Sample.
	FloatingPointSafe bool
	Time              time.Time
}

// GuaranteeString returns the one-line privacy statement of a release with
// the given parameters and sensitivity: unconditional "(ε, δ)-DP" only for a
// certified sensitivity, "assuming" for a declared one and
// "(ε, δ, γ)-probabilistic DP" for a sampled one.
func GuaranteeString(epsilon, delta float64, s Sensitivity) string {
	e := strconv.FormatFloat(epsilon, 'g', 7, 64) // 7 digits: the snapping term shows
	switch s.source() {
	case Certified:
		return fmt.Sprintf("(%s, %g)-DP; sensitivity %s", e, delta, s.Describe())
	case Sampled:
		return fmt.Sprintf("(%s, %g, γ = %g)-probabilistic DP with confidence %g; sensitivity %s", e, delta, s.Gamma, 1-s.Beta, s.Describe())
	}
	return fmt.Sprintf("(%s, %g)-DP assuming sensitivity %s", e, delta, s.Describe())
}

// Release is a differentially private answer.
type Release struct {
	// Value is Q x̄* + ζ̂.
	Value  []float64
	Record Record
}

// ReleaseOptions configures Release.
type ReleaseOptions struct {
	// Source of the noise; nil means crypto/rand (the only choice that protects
	// anything). Seeded sources are for tests and experiments.
	Source noise.Source
	// Ledger, when set, records the release's cost against Dataset in one
	// check-and-spend transaction before any noise is drawn; a refusal is a
	// *ledger.BudgetError and nothing is drawn. Dataset is then required.
	Ledger *ledger.Ledger
	// Unsafe skips the floating-point-safe release procedure and adds
	// Dist.Sample to Q x̄* directly (full-resolution output, but exposed to the
	// least-significant-bit attacks of Mironov 2012). Off by default.
	Unsafe bool
	// Noise tunes the safe procedure (snapping bound, granularity).
	Noise noise.ReleaseOptions
	// Dataset names the data the release spends privacy on; it is copied to
	// the Record (and keys the ledger).
	Dataset string
}

// sampler is implemented by the distributions of package noise.
type sampler interface {
	Sample(src noise.Source) float64
}

// Record returns the record a release of s would carry (without drawing).
func (s *Solution) Record() Record {
	sens := s.Privacy.Sensitivity
	g := s.Counterpart.Guarantee
	k := s.Query.K()
	eps, delta := s.Privacy.Epsilon, s.Delta
	if (s.Privacy.Mechanism == Custom || s.Privacy.Mechanism == Optimal) && k > 1 {
		// Each row's noise is certified for the whole sensitivity; k rows
		// compose (basic composition, Dwork and Roth 2014, Theorem 3.16).
		eps, delta = float64(k)*eps, math.Min(1, float64(k)*delta)
	}
	r := Record{
		Query: s.Query.Name, K: k, Mechanism: s.Privacy.Mechanism,
		Epsilon: eps, Delta: delta,
		Sensitivity: sens.Value, SensitivityNorm: sens.Norm, SensitivitySource: sens.source(),
		Certificate: sens.Certificate,
		Method:      g.Method, Eta: g.Eta, Beta: g.Beta, GuaranteeKind: g.Kind.String(),
		SolverStatus: s.Solver.Status.String(), SolverName: s.Solver.Solver,
	}
	if sens.Source == Sampled {
		r.Gamma, r.SensitivityBeta, r.SensitivitySample = sens.Gamma, sens.Beta, sens.Samples
	}
	r.Guarantee = GuaranteeString(eps, delta, sens)
	switch {
	case s.Privacy.Mechanism == Custom || s.Privacy.Mechanism == Optimal:
		r.Theorem = "certified piecewise-constant noise (noise.Certify); Q X = I makes it data-independent, so its guarantee applies (post-processing, Theorem 2.2)"
	case sens.Source == Sampled:
		r.Theorem = "Theorem 3.9 ((ε,γ)-probabilistic DP)"
	case r.Delta > 0:
		r.Theorem = "Theorem 3.11 ((ε,δ)-DP)"
	case s.Query.Name == "identity":
		r.Theorem = "Theorem 3.6 (ε-DP identity query)"
	default:
		r.Theorem = "Theorem 3.7 (ε-DP sum query; Q X = I makes the noise data-independent)"
	}
	return r
}

// ledgerEntry is the audit-log entry of a release.
func ledgerEntry(rec *Record, m *noise.Mechanism) ledger.Entry {
	params := map[string]float64{"sensitivity": rec.Sensitivity, "sensitivity_norm": rec.SensitivityNorm, "rows": float64(rec.K)}
	if m != nil {
		params["noise_std"] = noise.Std(m.Dist)
	}
	if rec.Eta > 0 {
		params["eta"] = rec.Eta
	}
	return ledger.Entry{
		Query: rec.Query, Mechanism: string(rec.Mechanism), Params: params,
		Cost:        accounting.Cost{Epsilon: rec.Epsilon, Delta: rec.Delta, Gamma: rec.Gamma},
		Sensitivity: fmt.Sprintf("%.6g %s", rec.Sensitivity, rec.SensitivitySource),
		Guarantee:   rec.Guarantee,
	}
}

// Release draws ζ̂ and returns Q x̄* + ζ̂ with its record. With a ledger the
// spend is checked and recorded first; a refusal draws no noise.
func (s *Solution) Release(opts ReleaseOptions) (*Release, error) {
	if err := s.checkQueryRecourse(); err != nil {
		return nil, err
	}
	rec := s.Record()
	rec.Dataset = opts.Dataset
	// Every component shares one mechanism: either all are released by its
	// floating-point-safe procedure or, if it has none, all are sampled.
	safe := s.mech != nil && !opts.Unsafe
	if safe {
		if _, _, err := s.mech.ReleaseSupport(opts.Noise); errors.Is(err, noise.ErrUnsafeRelease) {
			safe = false
		}
	}
	rec.FloatingPointSafe = safe
	if safe {
		if lap, ok := s.mech.Dist.(*noise.Laplace); ok {
			// Snapping adds rows·2⁻⁴⁹·B/λ to ε (Mironov 2012, Thm 1).
			rec.Epsilon += noise.SnappingExcess(lap.Scale, opts.Noise.Bound, s.mech.Params.Sensitivity, len(s.QueryMean))
			rec.Guarantee = GuaranteeString(rec.Epsilon, rec.Delta, s.Privacy.Sensitivity) + " (ε includes the floating-point snapping term)"
		}
	}
	if opts.Ledger != nil {
		if opts.Dataset == "" {
			return nil, invalidf("a release with a ledger needs ReleaseOptions.Dataset")
		}
		if err := opts.Ledger.Spend(context.Background(), opts.Dataset, ledgerEntry(&rec, s.mech)); err != nil {
			return nil, err
		}
	}
	src := opts.Source
	if src == nil {
		src = noise.CryptoSource()
	}
	val := make([]float64, len(s.QueryMean))
	if safe {
		for j := range val {
			v, err := s.mech.Release(s.QueryMean[j], src, opts.Noise)
			if err != nil {
				return nil, fmt.Errorf("query: release: %w", err)
			}
			val[j] = v
		}
	} else {
		for j, d := range s.Lifted.Noise().Components {
			var z float64
			if sm, ok := d.(sampler); ok {
				z = sm.Sample(src)
			} else {
				z = d.Quantile(lindecision.Uniform01(src.Uint64()))
			}
			val[j] = s.QueryMean[j] + z
		}
	}
	rec.Time = time.Now().UTC()
	return &Release{Value: val, Record: rec}, nil
}
