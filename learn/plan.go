package learn

import (
	"context"
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/privopt/privopt/accounting"
	"github.com/privopt/privopt/ledger"
	"github.com/privopt/privopt/noise"
)

// PlanSpec is everything a release plan is computed from: public inputs
// only. No field holds private data, and NewPlan takes no data argument, so
// nothing a plan prints or stores can depend on the data.
type PlanSpec struct {
	// Spec is the model: loss, λ, constraints, intercept and the public
	// bounds that define the data domain (rows are clipped to them).
	Spec Spec
	// N is the number of rows. It is public: under replace-one adjacency
	// (Adjacency) neighbouring datasets have the same n.
	N int
	// Features is d, the number of feature columns (public schema).
	Features int
	Strategy Strategy
	Privacy  Privacy
	// Eta is program perturbation's joint violation probability (default
	// 0.05); IndividualEta makes it each constraint row's. Other strategies
	// have no chance constraint and do not read them.
	Eta           float64
	IndividualEta bool
	// Rho is AdaSSP's failure probability of the λ_min lower bound (default
	// 0.05; AdaSSP only).
	Rho float64
	// Accuracy is the public solver-accuracy target τ: the statistic a
	// projection or program release adds noise to is within τ (ℓ₂) of the
	// exact minimizer, certified per release (solveCertified), and the
	// certificate adds 2τ. 0: 10⁻⁶ of the exact-minimizer bound. Objective
	// perturbation solves to τ as well (default 10⁻⁹·Y; its guarantee
	// includes it: the released weights get a second, output noise of
	// sensitivity 2τ, see Objective); ssp and adassp release no solver output
	// and do not read it.
	Accuracy float64
	// Iterative holds the public settings of the iterative strategies DPGD,
	// DPSGD and DPCD (loss, penalties, bounds, iterations, clip norms, step
	// size, batch rate; its Method must equal Strategy) and IterativePrivacy
	// their accounting (accountant, per-step calibration; its Epsilon, Delta
	// and Noise are taken from Privacy). Required for the iterative
	// strategies; NewPlan refuses them for the others.
	Iterative        *IterativeSpec
	IterativePrivacy IterativePrivacy
}

// Plan is a public release plan: the calibrated noise, the certificate, the
// constraint margins and the notes of a release, all computed by NewPlan
// from a PlanSpec before any private value is read. It can be printed,
// verified (Guarantee.Certificate.Verify) and published first, and reused
// for any number of releases on datasets of the planned shape
// ("certify once, release many"). Release adds exactly one thing to it: the
// noisy weights.
type Plan struct {
	Strategy    Strategy `json:"strategy"`
	Loss        Loss     `json:"loss"`
	Lambda      float64  `json:"lambda"`
	Constraints string   `json:"constraints"` // "none", "nonnegative", "ordered", …
	Intercept   bool     `json:"intercept"`
	N           int      `json:"n"`
	Features    int      `json:"features"`
	Weights     int      `json:"weights"`
	BoundX      float64  `json:"bound_x"` // ‖x‖₂ ≤ BoundX (rows clipped)
	BoundY      float64  `json:"bound_y"` // |y| ≤ BoundY (targets clamped)
	// Guarantee is the privacy statement and its certified sensitivity.
	Guarantee Guarantee `json:"guarantee"`
	// CalibratedSensitivity is what the noise is calibrated to: the
	// certified sensitivity, plus √m·g for a discrete Gaussian release of m
	// coordinates on the grid g (newVectorNoise).
	CalibratedSensitivity float64 `json:"calibrated_sensitivity"`
	// ReleaseGrid is the output grid of the safe noise release (the noisy
	// statistic is a multiple of it; 0: none).
	ReleaseGrid float64 `json:"release_grid"`
	// ReleasedNoiseRMS bounds the root mean square of the noise actually
	// added per coordinate: the released law's standard deviation (the
	// discrete Gaussian's g√s) plus the rounding to the grid.
	ReleasedNoiseRMS float64 `json:"released_noise_rms_bound"`
	// AccuracyTarget is the public solver-accuracy target τ (0 when no
	// solver output is released).
	AccuracyTarget float64 `json:"accuracy_target"`
	// ConstraintMargins are program perturbation's tightening of C.
	ConstraintMargins *Margins `json:"constraint_margins,omitempty"`
	Eta               float64  `json:"eta,omitempty"`
	// L1 is the ℓ₁ penalty λ₁ of an iterative strategy (0: none).
	L1 float64 `json:"l1,omitempty"`
	// Schedule is the public schedule of an iterative strategy (nil for
	// the others).
	Schedule *IterativeSchedule `json:"schedule,omitempty"`
	Notes    []string           `json:"notes"`

	spec Spec
	draw dataDraw
	// clip maps the (finite) data into the public domain before draw: the
	// spec's Bounds.Clip, or the iterative strategies' row clipping.
	clip func(Data) Data
	// moments draws an SSP release from precomputed moments (nil for the
	// other strategies).
	moments func(m Moments) drawFn
}

// NewPlan computes the public release plan of ps. Every refusal happens
// here, from public inputs: strategies without a certified sensitivity for
// the spec (λ = 0 with projection or program, a free intercept, the hinge
// loss, constraint sets without an exact projection) are refused with the
// reason.
func NewPlan(ctx context.Context, ps PlanSpec) (*Plan, error) {
	s, d := ps.Spec, ps.Features
	if d < 1 {
		return nil, invalidf("features is %d, must be ≥ 1", d)
	}
	if ps.N < 1 {
		return nil, invalidf("n is %d, must be ≥ 1", ps.N)
	}
	switch ps.Strategy {
	case DPGD, DPSGD, DPCD:
		return newIterativePlan(ctx, ps)
	}
	if ps.Iterative != nil || ps.IterativePrivacy.Accountant != nil || ps.IterativePrivacy.PerStep {
		return nil, invalidf("iterative settings are given for strategy %q; they apply to dp-gd, dp-sgd and dp-cd only", ps.Strategy)
	}
	if err := s.Validate(d); err != nil {
		return nil, err
	}
	p := ps.Privacy.WithDefault()
	if err := p.Validate(); err != nil {
		return nil, err
	}
	b := s.bounds()
	k := s.weights(d)
	pl := &Plan{Strategy: ps.Strategy, Loss: s.Loss, Lambda: s.Lambda, Constraints: constraintsName(s), Intercept: s.Intercept,
		N: ps.N, Features: d, Weights: k, BoundX: b.X, BoundY: b.Y, spec: s}
	pl.clip = func(data Data) Data { c, _ := b.Clip(data); return c }
	pl.Notes = append(pl.Notes, fmt.Sprintf("n = %d is public: neighbouring datasets replace one row within the bounds and keep n", ps.N))
	g := Guarantee{Strategy: ps.Strategy, Noise: p.Mechanism, Epsilon: p.Epsilon, Delta: p.Delta}
	switch ps.Strategy {
	case Projection, Program:
		if err := pl.planOutput(ctx, ps, p, g); err != nil {
			return nil, err
		}
	case Objective:
		if !s.exactProjection() || s.L1Radius > 0 {
			return nil, invalidf("objective perturbation in a plan needs C = ℝᵏ, w ≥ 0 and/or ordered weights (a cone, so that the projection onto C ∩ {‖w‖ ≤ R} is exact and the solver accuracy certified), got %s", constraintsName(s))
		}
		tau := ps.Accuracy
		if tau == 0 {
			tau = 1e-9 * b.Y
		}
		if !(tau > 0) || math.IsInf(tau, 0) {
			return nil, invalidf("solver accuracy is %v, must be > 0 and finite", tau)
		}
		g, out, draw, err := planObjective(ctx, s, ps.N, d, p, g, tau)
		if err != nil {
			return nil, err
		}
		pl.Guarantee, pl.draw, pl.AccuracyTarget = g, draw, tau
		pl.CalibratedSensitivity = g.Sensitivity
		pl.ReleasedNoiseRMS = g.NoiseStd // b's per coordinate; the output noise ζ₂ is of sensitivity 2τ
		pl.ReleaseGrid = out.grid
		pl.Notes = append(pl.Notes, fmt.Sprintf("objective perturbation with solver accuracy: the released weights are within τ = %.3g of the exact perturbed minimizer (certified per release) plus Laplace output noise of ℓ2 sensitivity 2τ (std %.3g, grid %g) at %g of ε; the guarantee composes both (Iyengar et al. 2019, Thm 1)", tau, out.std(), out.grid, objectiveAccuracyShare))
	case AdaSSP:
		g, ng, draw, err := planAdaSSP(ctx, s, ps.N, d, p, ps.Rho, g)
		if err != nil {
			return nil, err
		}
		pl.Guarantee, pl.draw = g, draw
		pl.CalibratedSensitivity, pl.ReleaseGrid, pl.ReleasedNoiseRMS = ng.calSens, ng.grid, ng.rms() // of X̃ᵀX̃
	case SSP:
		g, vn, draw, err := planSSP(ctx, s, ps.N, d, p, g)
		if err != nil {
			return nil, err
		}
		pl.Guarantee, pl.draw = g, draw
		sigma := vn.std()
		ridge := sigma * math.Sqrt(float64(s.weights(d)))
		pl.moments = func(m Moments) drawFn { return sspDraw(s, d, vn, sigma, ridge, m.Gram, m.XTy) }
		pl.CalibratedSensitivity, pl.ReleaseGrid, pl.ReleasedNoiseRMS = vn.calSens, vn.grid, vn.rms()
		pl.Notes = append(pl.Notes, fmt.Sprintf("the noisy moments are multiples of the grid %g; the weights are computed from them (post-processing)", vn.grid))
	default:
		return nil, invalidf("strategy is %q, must be projection, objective, program, adassp or ssp", ps.Strategy)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return pl, nil
}

// constraintsName names C.
func constraintsName(s Spec) string {
	var c []string
	if s.Nonnegative {
		c = append(c, "nonnegative")
	}
	if s.Ordered {
		c = append(c, "ordered")
	}
	if s.Cone != nil {
		c = append(c, "cone")
	}
	if s.L1Radius > 0 {
		c = append(c, fmt.Sprintf("l1-ball %g", s.L1Radius))
	}
	if len(c) == 0 {
		return "none"
	}
	return strings.Join(c, ", ")
}

// planOutput plans output perturbation (projection) and program perturbation
// of the certified minimizer. Program perturbation releases ŵ + ζ with ŵ the
// minimizer over the tightened set C̄ = {w_j ≥ l, w_{j+1} − w_j ≥ γ}, whose
// margins (l, γ) depend only on the noise law and η (programMargins): C̄ is
// data-independent, so certifiedSensitivityAt applies on it with the public
// point w₀ = P_C̄(0). The noise scale, the margins and w₀'s norm r₀ depend on
// each other; the calibration Δ is raised until the certificate computed at
// the margins of noise(Δ) is ≤ Δ (a monotone fixed-point iteration, refused
// if it does not settle in 60 rounds — a public outcome).
func (pl *Plan) planOutput(ctx context.Context, ps PlanSpec, p Privacy, g Guarantee) error {
	s, d, k := ps.Spec, ps.Features, pl.Weights
	if _, _, ok := s.smoothness(0); !ok {
		switch {
		case !(s.Lambda > 0):
			return invalidf("%s with λ = %v has no certified sensitivity (it needs λ > 0); use ssp or adassp, which are certified for λ = 0", ps.Strategy, s.Lambda)
		case s.FreeIntercept:
			return invalidf("%s with a free intercept has no certified sensitivity", ps.Strategy)
		}
		return invalidf("%s plans need a smooth loss (squared, Huber or logistic), got %q: the certificate 2L/(nλ) + 2τ needs the solver's distance to the exact minimizer certified to τ, and for the non-smooth hinge loss no such bound is computable from the solver's answer (the projected-gradient certificate needs a smooth objective); use the logistic or Huber loss, or Prepare's reproduction with a declared or sampled sensitivity (not a plan)", ps.Strategy, s.Loss)
	}
	if !s.exactProjection() {
		return invalidf("%s plans with constraints %s are refused: %s", ps.Strategy, constraintsName(s), s.noExactProjection())
	}
	if ps.Strategy == Program && s.L1Radius > 0 {
		return invalidf("program plans tighten nonnegativity and ordering rows only; the ℓ₁ ball (constraints %s) has no chance-constraint margin here: use projection, which is certified for it", constraintsName(s))
	}
	c0, err := certifiedSensitivityAt(s, ps.N, 0, 0)
	if err != nil {
		return err
	}
	tau := ps.Accuracy
	if tau == 0 {
		tau = 1e-6 * c0.Bound
	}
	if !(tau > 0) || math.IsInf(tau, 0) {
		return invalidf("solver accuracy is %v, must be > 0 and finite", tau)
	}
	eta := ps.Eta
	if eta == 0 {
		eta = 0.05
	}
	if ps.Strategy == Program && !(eta > 0 && eta < 1) {
		return invalidf("eta is %v, must be in (0, 1)", eta)
	}
	var mg Margins
	var r0 float64
	cal := c0.Bound + 2*tau
	var vn *vectorNoise
	var cert *Certificate
	for round := 0; ; round++ {
		if round == 60 || cal > 1e6*(c0.Bound+2*tau) {
			return invalidf("program perturbation: the tightened set grows with the noise faster than the noise settles (the certificate at the margins of noise(Δ) exceeds Δ for every Δ up to 10⁶ times the unconstrained bound %.4g): raise n, λ or ε, or use projection", c0.Bound)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		vn, err = newVectorNoise(ctx, p.Mechanism, k, k, cal, p.Epsilon, p.Delta)
		if err != nil {
			return err
		}
		if ps.Strategy == Program {
			mg, err = programMargins(s, d, vn, eta, ps.IndividualEta)
			if err != nil {
				return err
			}
			w0 := make([]float64, k)
			projectShifted(w0, d, s, mg)
			r0 = norm2(w0)
		}
		cert, err = certifiedSensitivityAt(s, ps.N, r0, tau)
		if err != nil {
			return err
		}
		if cert.Bound <= cal {
			break
		}
		cal = cert.Bound * (1 + 1e-9)
	}
	if n := fallbackSteps(s, r0, tau); n > 1e7 {
		return invalidf("the certified solver accuracy τ = %.3g may need %.3g projected-gradient steps (condition (X̃²+λ)/λ too large): raise λ or the accuracy target", tau, n)
	}
	g.Delta, g.Sensitivity, g.Norm, g.NoiseStd = vn.delta, vn.sens, normName(vn.norm), vn.std()
	g.Source, g.Certificate = "certified", cert
	if vn.norm == 1 {
		g.Certificate = inNorm(cert, 1, k)
	} // an ℓ₂ certificate covers ℓ∞ (optimal noise per weight)
	g.floatSafe([]*vectorNoise{vn}, []int{k})
	note := vn.detail + fmt.Sprintf("; solver accuracy τ = %.3g included (2τ)", tau)
	pl.AccuracyTarget, pl.CalibratedSensitivity, pl.ReleaseGrid, pl.ReleasedNoiseRMS = tau, vn.calSens, vn.grid, vn.rms()
	if ps.Strategy == Projection {
		g.state(note + "; projection onto the constraints is post-processing")
		pl.Guarantee = g
		pl.draw = func(ctx context.Context, data Data) (drawFn, error) {
			w, err := solveCertified(ctx, data, s, nil, tau)
			if err != nil {
				return nil, err
			}
			return func(ctx context.Context, src noise.Source) ([]float64, error) {
				z, err := vn.add(w, src)
				if err != nil {
					return nil, err
				}
				return projectOrClean(ctx, z, d, s), nil
			}, nil
		}
		return nil
	}
	rows := programRows(s, d)
	joint := fmt.Sprintf("the released weights satisfy the %d constraint rows jointly with probability ≥ %g (Bonferroni: each row ≤ %.3g)", rows, 1-eta, eta/float64(max(rows, 1)))
	if ps.IndividualEta {
		joint = fmt.Sprintf("each of the %d constraint rows holds with probability ≥ %g (jointly only the union bound %g)", rows, 1-eta, math.Min(1, eta*float64(rows)))
	}
	if rows == 0 {
		joint = "no constraint rows: program perturbation is output perturbation of the certified minimizer"
	}
	g.state(note + "; program perturbation: " + joint)
	pl.Guarantee, pl.Eta = g, eta
	if rows > 0 {
		pl.ConstraintMargins = &mg
		pl.Notes = append(pl.Notes, fmt.Sprintf("program perturbation minimizes over the tightened set C̄ (margins %s), which depends only on the noise law and η; the released weights are the certified minimizer over C̄ plus the noise", mg))
	}
	shift := mg
	pl.draw = func(ctx context.Context, data Data) (drawFn, error) {
		w, err := solveCertified(ctx, data, s, &perturbation{shift: shift}, tau)
		if err != nil {
			return nil, err
		}
		return func(ctx context.Context, src noise.Source) ([]float64, error) { return vn.add(w, src) }, nil
	}
	return nil
}

// String lists the nonzero margins, e.g. "w_{j+1} − w_j ≥ 0.3".
func (mg Margins) String() string {
	var t []string
	if mg.Lower != 0 {
		t = append(t, fmt.Sprintf("w_j ≥ %.6g", mg.Lower))
	}
	if mg.Gap != 0 {
		t = append(t, fmt.Sprintf("w_{j+1} − w_j ≥ %.6g", mg.Gap))
	}
	return strings.Join(t, ", ")
}

// programRows counts the random constraint rows of C: d nonnegativity rows,
// d − 1 ordering rows.
func programRows(s Spec, d int) int {
	r := 0
	if s.Nonnegative {
		r += d
	}
	if s.Ordered && d > 1 {
		r += d - 1
	}
	return r
}

// programMargins returns the tightening of C that makes a row aᵀw ≥ 0 hold
// for w = ŵ + ζ̂ with probability ≥ 1 − η_r whenever aᵀŵ ≥ m(a), η_r = η/R
// over the R rows (Bonferroni) or η (individual):
//
//	m(a) = z·s·‖a‖₂ + e·‖a‖₁,
//
// where ζ̂ is the noise the safe release adds, split into an independent
// per-coordinate part of scale s and a rounding part bounded by e per
// coordinate:
//
//   - discrete Gaussian (g·Y, Y ~ N_ℤ(0, v), value rounded to g): g·Y is
//     (g²v)-sub-Gaussian (Canonne, Kamath and Steinke 2020, Section 2), so
//     z = √(2 ln(1/η_r)), s = g√v, e = g/2;
//   - Laplace snapping (Mironov 2012): Cantelli z = √((1 − η_r)/η_r) with the
//     Laplace std s = √2·λ, e = Λ/2;
//   - piecewise-constant noise floored to its grid g: Cantelli with its std,
//     e = g.
//
// Rows: nonnegativity a = e_j (‖a‖₂ = ‖a‖₁ = 1) gives Lower; ordering a =
// e_{j+1} − e_j (√2, 2) gives Gap. Everything is public.
func programMargins(s Spec, d int, vn *vectorNoise, eta float64, individual bool) (Margins, error) {
	rows := programRows(s, d)
	if rows == 0 {
		return Margins{}, nil
	}
	er := eta / float64(rows)
	if individual {
		er = eta
	}
	var z, sc, e float64
	switch dist := vn.dist.(type) {
	case *noise.Gaussian:
		z, sc, e = math.Sqrt(2*math.Log(1/er)), vn.releasedStd, vn.grid/2
	case *noise.Laplace:
		z, sc, e = math.Sqrt((1-er)/er), noise.Std(dist), vn.grid/2
	case *noise.PiecewiseConstant:
		z, sc, e = math.Sqrt((1-er)/er), noise.Std(dist), vn.grid
	default:
		return Margins{}, fmt.Errorf("learn: program perturbation: no tail bound for %T noise", vn.dist)
	}
	var mg Margins
	if s.Nonnegative {
		mg.Lower = z*sc + e
	}
	if s.Ordered && d > 1 {
		mg.Gap = z*sc*math.Sqrt2 + 2*e
	}
	return mg, nil
}

// projectOrClean returns the projection of w onto C (exact where
// exactProjection holds; otherwise Project's QP, and if that fails the
// cleaning map of Project: clamp, running maximum, ℓ₁ scaling). It never
// fails: after a spend, post-processing must return a value.
func projectOrClean(ctx context.Context, w []float64, d int, s Spec) []float64 {
	if s.exactProjection() {
		out := append([]float64(nil), w...)
		projectShifted(out, d, s, Margins{})
		return out
	}
	if p, err := Project(ctx, w, d, s); err == nil {
		return p
	}
	return clean(append([]float64(nil), w...), d, s)
}

// ReleaseOptions configure Plan.Release.
type ReleaseOptions struct {
	// Source of the noise; nil means crypto/rand (the only choice that
	// protects anything). A seeded source is deterministic and NOT private:
	// tests and audits only.
	Source noise.Source
	// Ledger, when set, records the plan's cost against Dataset (required)
	// before anything data-dependent is computed; a refusal is a
	// *ledger.BudgetError and nothing is released. Query names the entry.
	Ledger  *ledger.Ledger
	Dataset string
	Query   string
}

// LedgerEntry returns the ledger entry of one release of the plan: every
// field is public (the plan's cost, mechanism, certified and calibrated
// sensitivities, noise std and grid).
func (pl *Plan) LedgerEntry(query string) ledger.Entry {
	g := pl.Guarantee
	return ledger.Entry{Query: query, Mechanism: string(g.Noise),
		Params: map[string]float64{"sensitivity": g.Sensitivity, "calibrated_sensitivity": pl.CalibratedSensitivity,
			"noise_std": g.NoiseStd, "weights": float64(pl.Weights), "release_grid": pl.ReleaseGrid, "accuracy_target": pl.AccuracyTarget},
		Cost:        accounting.Cost{Epsilon: g.Epsilon, Delta: g.Delta},
		Sensitivity: fmt.Sprintf("%.6g %s", g.Sensitivity, g.Source), Guarantee: g.Statement}
}

// Release spends the plan's cost (with a ledger), then clips the private
// data into the public bounds and returns one release of the weights
// (features, then intercept). Only the shape of data is checked before the
// spend (n and d are public); after it a release always returns a value:
// non-finite entries are mapped to 0 (a fixed public map, like clipping),
// solver trouble is repaired by solveCertified, and errors can only come
// from a cancelled ctx (after the spend: the budget stays spent) or the
// ledger. No error text holds a data value.
func (pl *Plan) Release(ctx context.Context, data Data, opt ReleaseOptions) ([]float64, error) {
	if err := pl.checkShape(data); err != nil {
		return nil, err
	}
	if err := pl.spend(ctx, opt); err != nil {
		return nil, err
	}
	return pl.release(ctx, data, opt)
}

// ReleaseFrom is Release for private data that are read only after the
// spend: it spends the plan's cost, then calls read (e.g. parsing a CSV
// file by CSVRule, which never fails on a row's content) and releases. An
// error of read, or data of another shape than planned (the source changed
// after the plan), is returned after the spend; its text must hold no data
// value (ReadCSV's do not).
func (pl *Plan) ReleaseFrom(ctx context.Context, read func(context.Context) (Data, error), opt ReleaseOptions) ([]float64, error) {
	if err := pl.spend(ctx, opt); err != nil {
		return nil, err
	}
	data, err := read(ctx)
	if err != nil {
		return nil, fmt.Errorf("learn: reading the private data after the spend: %w", err)
	}
	if err := pl.checkShape(data); err != nil {
		return nil, err
	}
	return pl.release(ctx, data, opt)
}

// checkShape checks n and d (public) against the plan.
func (pl *Plan) checkShape(data Data) error {
	if data.X == nil {
		return invalidf("data X is nil")
	}
	n, d := data.X.Dims()
	if n != pl.N || d != pl.Features || len(data.Y) != n {
		return invalidf("data has %d×%d features and %d targets; the plan is for n = %d rows of %d features", n, d, len(data.Y), pl.N, pl.Features)
	}
	return nil
}

// spend records the plan's cost in opt's ledger (none: nothing to do).
func (pl *Plan) spend(ctx context.Context, opt ReleaseOptions) error {
	if opt.Ledger == nil {
		return nil
	}
	if opt.Dataset == "" {
		return invalidf("a release with a ledger needs ReleaseOptions.Dataset")
	}
	return opt.Ledger.Spend(ctx, opt.Dataset, pl.LedgerEntry(opt.Query))
}

// release clips the (shape-checked) data and draws one release.
func (pl *Plan) release(ctx context.Context, data Data, opt ReleaseOptions) ([]float64, error) {
	clipped := pl.clip(finiteData(data))
	draw, err := pl.draw(ctx, clipped)
	if err != nil {
		return nil, err
	}
	return draw(ctx, source(opt))
}

func source(opt ReleaseOptions) noise.Source {
	if opt.Source == nil {
		return noise.CryptoSource()
	}
	return opt.Source
}

// ReleaseMoments is Release for the SSP strategy from moments computed
// elsewhere — streamed from a CSV in one pass or aggregated inside a
// database (Moments, StreamMoments, MomentsSQL) — of n rows clipped to the
// plan's bounds: it spends first, then adds the noise to the moments and
// solves (post-processing). The moments must match the plan's n, features
// and intercept.
func (pl *Plan) ReleaseMoments(ctx context.Context, m Moments, opt ReleaseOptions) ([]float64, error) {
	if err := pl.checkMoments(m); err != nil {
		return nil, err
	}
	if err := pl.spend(ctx, opt); err != nil {
		return nil, err
	}
	return pl.moments(m)(ctx, source(opt))
}

// ReleaseMomentsFrom is ReleaseMoments with moments computed only after
// the spend (e.g. StreamMoments over a CSV file, which never fails on a
// row's content, CSVRule).
func (pl *Plan) ReleaseMomentsFrom(ctx context.Context, read func(context.Context) (Moments, error), opt ReleaseOptions) ([]float64, error) {
	if pl.moments == nil {
		return nil, invalidf("strategy %q releases from the rows, not from moments (use ssp)", pl.Strategy)
	}
	if err := pl.spend(ctx, opt); err != nil {
		return nil, err
	}
	m, err := read(ctx)
	if err != nil {
		return nil, fmt.Errorf("learn: reading the private data after the spend: %w", err)
	}
	if err := pl.checkMoments(m); err != nil {
		return nil, err
	}
	return pl.moments(m)(ctx, source(opt))
}

func (pl *Plan) checkMoments(m Moments) error {
	if pl.moments == nil {
		return invalidf("strategy %q releases from the rows, not from moments (use ssp)", pl.Strategy)
	}
	if m.N != pl.N || m.D != pl.Features || m.Intercept != pl.spec.Intercept || m.Gram == nil || m.XTy == nil {
		return invalidf("moments of n = %d rows, %d features (intercept %v); the plan is for n = %d, %d features (intercept %v)", m.N, m.D, m.Intercept, pl.N, pl.Features, pl.spec.Intercept)
	}
	return nil
}

// finiteData returns a copy of data with every non-finite entry replaced by
// 0 (NaN) or ±MaxFloat64 (±Inf), so that clipping maps every input into the
// domain.
func finiteData(data Data) Data {
	fix := func(v float64) float64 {
		switch {
		case math.IsNaN(v):
			return 0
		case math.IsInf(v, 1):
			return math.MaxFloat64
		case math.IsInf(v, -1):
			return -math.MaxFloat64
		}
		return v
	}
	n, d := data.X.Dims()
	out := Data{X: mat.DenseCopyOf(data.X), Y: make([]float64, n)}
	for i := 0; i < n; i++ {
		row := out.X.RawRowView(i)
		for j := 0; j < d; j++ {
			row[j] = fix(row[j])
		}
		out.Y[i] = fix(data.Y[i])
	}
	return out
}
