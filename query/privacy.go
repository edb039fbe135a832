package query

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/privopt/privopt/lindecision"
	"github.com/privopt/privopt/noise"
	_ "github.com/privopt/privopt/noise/lphighs"
)

// SensitivitySource says how a sensitivity is known. Every release records
// it, and no output states plain ε-DP unless it is Certified.
type SensitivitySource string

// Sensitivity sources.
const (
	// Certified: computed by privopt over a declared data domain, with a
	// Certificate that Verify re-checks independently. The DP statement holds
	// for every pair of adjacent datasets in the domain.
	Certified SensitivitySource = "certified"
	// Declared: asserted by the caller and not checked; outputs say the
	// guarantee holds "assuming" this sensitivity.
	Declared SensitivitySource = "declared"
	// Sampled: measured on the released statistic Q x̄* over sampled adjacent
	// pairs (EstimateSensitivity, Algorithm 1 of Dvorkin et al.): the release
	// is (ε, δ, γ)-probabilistically DP with confidence 1 − β (Theorem 3.9,
	// Prop. 3.8).
	Sampled SensitivitySource = "sampled"
)

// Sensitivity is the worst-case change ‖Q x̄(D) − Q x̄(D')‖_p of the released
// statistic over adjacent datasets, with how it is known.
type Sensitivity struct {
	Value float64
	Norm  float64 // p: 1, 2 or +Inf
	// Source says how Value is known; empty means Declared.
	Source SensitivitySource
	// Gamma and Beta are set for Sampled: the estimate bounds the sensitivity of
	// all but a fraction γ of adjacent pairs, with confidence 1 − β.
	Gamma, Beta float64
	Samples     int // pairs solved (Sampled)
	// Certificate proves Value for Certified (Certificate.Bound ≤ Value).
	Certificate *Certificate
}

// source returns Source with the empty value read as Declared.
func (s Sensitivity) source() SensitivitySource {
	if s.Source == "" {
		return Declared
	}
	return s.Source
}

// Validate checks the value, the norm, the sampling parameters and, for a
// certified sensitivity, that the certificate verifies and covers Value.
func (s Sensitivity) Validate() error {
	if !(s.Value > 0) || math.IsInf(s.Value, 0) {
		return invalidf("sensitivity is %v, must be > 0 and finite", s.Value)
	}
	if s.Norm != 1 && s.Norm != 2 && !math.IsInf(s.Norm, 1) {
		return invalidf("sensitivity norm is %v, must be 1, 2 or +Inf", s.Norm)
	}
	switch s.source() {
	case Declared:
	case Sampled:
		if !(s.Gamma > 0 && s.Gamma < 1) || !(s.Beta > 0 && s.Beta < 1) {
			return invalidf("sampled sensitivity needs gamma and beta in (0, 1), got %v and %v", s.Gamma, s.Beta)
		}
	case Certified:
		if err := s.Certificate.Verify(); err != nil {
			return err
		}
		if s.Certificate.Bound > s.Value || !normCovers(s.Certificate.Norm, s.Norm) {
			return invalidf("certified sensitivity %v (ℓ%v) is below its certificate's bound %v (ℓ%v)", s.Value, s.Norm, s.Certificate.Bound, s.Certificate.Norm)
		}
	default:
		return invalidf("unknown sensitivity source %q (certified, declared or sampled)", s.Source)
	}
	return nil
}

// normCovers reports whether a bound in ℓ_have implies the same bound in
// ℓ_want (‖v‖_want ≤ ‖v‖_have for want ≥ have).
func normCovers(have, want float64) bool { return want >= have }

// Describe returns the sensitivity in words, e.g. "37.2 (ℓ1, certified by
// opf-price-cap)", "2 (ℓ1, declared: assumed, not verified)" or
// "0.8 (ℓ2, sampled on Q x̄*: 99 pairs, γ = 0.1, β = 0.1)".
func (s Sensitivity) Describe() string {
	switch s.source() {
	case Certified:
		m := ""
		if s.Certificate != nil {
			m = " by " + s.Certificate.Method
		}
		return fmt.Sprintf("%.6g (ℓ%v, certified%s)", s.Value, s.Norm, m)
	case Sampled:
		return fmt.Sprintf("%.6g (ℓ%v, sampled on Q x̄*: %d pairs, γ = %g, β = %g)", s.Value, s.Norm, s.Samples, s.Gamma, s.Beta)
	}
	return fmt.Sprintf("%.6g (ℓ%v, declared: assumed, not verified)", s.Value, s.Norm)
}

// Mechanism names the noise calibration.
type Mechanism string

// Mechanisms.
const (
	// Laplace: ζ_j ~ Lap(Δ₁/ε) i.i.d., ε-DP (Theorems 2.3, 3.6, 3.7). Needs ℓ₁
	// sensitivity.
	Laplace Mechanism = "laplace"
	// Gaussian: ζ_j ~ N(0, σ²), σ = √(2 ln(1.25/δ))·Δ₂/ε, (ε, δ)-DP for ε < 1
	// (Dwork and Roth 2014, Thm A.1; Theorem 3.11). Needs ℓ₂ sensitivity.
	Gaussian Mechanism = "gaussian"
	// AnalyticGaussian: the smallest σ with the exact (ε, δ) profile (Balle and
	// Wang 2018), any ε > 0. Needs ℓ₂ sensitivity.
	AnalyticGaussian Mechanism = "analytic-gaussian"
	// TruncatedLaplace: bounded-support (ε, δ) noise (Geng et al. 2020); k = 1
	// only. Its bounded support allows the Robust chance method.
	TruncatedLaplace Mechanism = "truncated-laplace"
	// Custom: the caller supplies the per-component distribution, which must
	// be a *noise.PiecewiseConstant (for example an optimal noise from
	// noise.Optimize); it is certified with noise.Certify at the claimed
	// (Epsilon, Delta, sensitivity) before anything is solved or recorded, and
	// refused otherwise. With k > 1 rows each component is certified for the
	// whole sensitivity and the record carries the composed (kε, kδ).
	Custom Mechanism = "custom"
	// Optimal: the certified piecewise-constant (ε,δ)-DP noise of Selvi, Liu &
	// Wiesemann minimizing E|ζ| (noise.Optimize, symmetric, 200 cells, upper
	// bound only; certified exactly like Custom). Bounded support, so the
	// Robust chance method applies. Needs δ > 0; k > 1 rows compose.
	Optimal Mechanism = "optimal"
	// MultiGaussian: the multi-Gaussian mixture of Liu and Selvi (Definition
	// 3, Theorem 5), the K in 1..10 with the smallest E|ζ| at η = 0.01,
	// certified by noise.CertifyMultiGaussian; k = 1 only (scalar).
	MultiGaussian Mechanism = "multi-gaussian"
)

// mechanismNames lists the mechanisms ParseMechanism accepts, in order.
var mechanismNames = []Mechanism{Laplace, Gaussian, AnalyticGaussian, TruncatedLaplace, Optimal, MultiGaussian}

// ParseMechanism returns the mechanism named s ("laplace", "gaussian",
// "analytic-gaussian", "truncated-laplace", "optimal" or "multi-gaussian"; Custom needs a
// distribution and is not parsed). It is the one name → mechanism registry of
// the CLI and the applications.
func ParseMechanism(s string) (Mechanism, error) {
	for _, m := range mechanismNames {
		if string(m) == s {
			return m, nil
		}
	}
	return "", invalidf("noise %q: must be one of %s", s, strings.Join(MechanismNames(), ", "))
}

// MechanismNames returns the names ParseMechanism accepts.
func MechanismNames() []string {
	out := make([]string, len(mechanismNames))
	for i, m := range mechanismNames {
		out[i] = string(m)
	}
	return out
}

// NoiseMechanism returns the calibrated noise of one query row (for a k-row Custom or
// Optimal mechanism, each row's) and the δ the mechanism guarantees, without
// solving anything: what the noise interval and Monte Carlo evaluations use.
func (p Privacy) NoiseMechanism() (*noise.Mechanism, error) {
	return p.NoiseMechanismContext(context.Background())
}

// NoiseMechanismContext is NoiseMechanism with a context for the
// optimal-noise solve.
func (p Privacy) NoiseMechanismContext(ctx context.Context) (*noise.Mechanism, error) {
	_, _, m, err := p.mechanism(ctx, 1)
	if err != nil {
		return nil, err
	}
	if m == nil {
		return nil, invalidf("mechanism %q has no noise.Mechanism", p.Mechanism)
	}
	return m, nil
}

// Privacy is the privacy requirement of a release with the sensitivity it
// is calibrated to: the PrivacySpec (mechanism, ε, δ), the sensitivity, and for
// Custom the noise distribution.
type Privacy struct {
	PrivacySpec
	Sensitivity Sensitivity
	// Noise is the per-component distribution for Custom (ignored otherwise).
	Noise lindecision.Distribution
}

// Validate checks the PrivacySpec, the sensitivity and its norm against the
// mechanism.
func (p Privacy) Validate() error {
	if err := p.PrivacySpec.Validate(); err != nil {
		return err
	}
	if err := p.Sensitivity.Validate(); err != nil {
		return err
	}
	switch p.Mechanism {
	case Laplace:
		if p.Sensitivity.Norm != 1 {
			return invalidf("the Laplace mechanism needs an ℓ1 sensitivity, got ℓ%v", p.Sensitivity.Norm)
		}
	case Gaussian, AnalyticGaussian:
		if p.Sensitivity.Norm != 2 {
			return invalidf("the %s mechanism needs an ℓ2 sensitivity, got ℓ%v", p.Mechanism, p.Sensitivity.Norm)
		}
	case Custom:
		if p.Noise == nil {
			return invalidf("custom mechanism without a noise distribution")
		}
		if _, ok := p.Noise.(*noise.PiecewiseConstant); !ok {
			return invalidf("custom noise is a %T; only a *noise.PiecewiseConstant can be certified exactly", p.Noise)
		}
	}
	return nil
}

// components returns the k noise components and the delta actually
// guaranteed.
func (p Privacy) components(ctx context.Context, k int) ([]lindecision.Distribution, float64, error) {
	d, delta, _, err := p.mechanism(ctx, k)
	return d, delta, err
}

// scalarOnlyError marks the error of a mechanism that releases one value
// only, asked for k > 1 noise components: a baseline that needs a vector of
// noise (OutputPerturbation of a k-row query, input perturbation of k data
// entries) does not apply to it (Evaluation.NotApplicable). It wraps an error
// of ErrInvalid.
type scalarOnlyError struct{ error }

func (e scalarOnlyError) Unwrap() error { return e.error }

// mechanism also returns the noise.Mechanism used for floating-point-safe
// releases (nil when the noise is not a noise.Distribution).
func (p Privacy) mechanism(ctx context.Context, k int) ([]lindecision.Distribution, float64, *noise.Mechanism, error) {
	if err := p.Validate(); err != nil {
		return nil, 0, nil, err
	}
	par := noise.Params{Epsilon: p.Epsilon, Delta: p.Delta, Sensitivity: p.Sensitivity.Value}
	var m *noise.Mechanism
	var err error
	switch p.Mechanism {
	case TruncatedLaplace:
		if k != 1 {
			return nil, 0, nil, scalarOnlyError{invalidf("the truncated Laplace mechanism is scalar; the query has k = %d rows (use Laplace or Gaussian)", k)}
		}
	case MultiGaussian:
		if k != 1 {
			return nil, 0, nil, scalarOnlyError{invalidf("the multi-Gaussian mechanism is scalar; the query has k = %d rows (use Laplace or Gaussian)", k)}
		}
	case Optimal:
		m, err := Calibrate(ctx, Optimal, par)
		if err != nil {
			return nil, 0, nil, err
		}
		return releasedComponents(m, k), m.Params.Delta, m, nil
	case Custom:
		pc := p.Noise.(*noise.PiecewiseConstant) // checked by Validate
		cert, err := noise.Certify(pc, par)
		if err != nil {
			return nil, 0, nil, fmt.Errorf("query: certifying the custom noise: %w", err)
		}
		if !cert.Certified {
			return nil, 0, nil, invalidf("custom noise is not (%v, %v)-DP for sensitivity %v: exact privacy shortfall %.3g at shift %.4g", p.Epsilon, p.Delta, p.Sensitivity.Value, cert.MaxShortfall, cert.WorstShift)
		}
		m := &noise.Mechanism{Name: "custom", Params: par, Dist: pc}
		return releasedComponents(m, k), p.Delta, m, nil
	}
	if m, err = Calibrate(ctx, p.Mechanism, par); err != nil {
		return nil, 0, nil, err
	}
	return releasedComponents(m, k), m.Params.Delta, m, nil
}

// OptimalIntervals and OptimalLoss define what "optimal" means everywhere
// (query, opfrelease, learn, the CLI): the certified symmetric
// piecewise-constant (ε, δ)-DP noise of Selvi, Liu & Wiesemann with the
// smallest variance (ℓ₂ loss) on OptimalIntervals cells.
const OptimalIntervals = 200

// optimalCache holds the optimal mechanisms computed by Calibrate, keyed by
// noise.Params (the mechanisms are immutable once certified).
var optimalCache sync.Map

// OptimalLoss returns the loss "optimal" minimizes: ℓ₂ (the variance).
func OptimalLoss() noise.Loss { return noise.L2() }

// Calibrate is the mechanism registry: the noise of mechanism m calibrated
// to par = (ε, δ, Δ) for one scalar (Laplace: Δ/ε; Gaussian: the classical
// σ; analytic Gaussian: Balle & Wang's σ; truncated Laplace: Geng et al.'s;
// optimal: see OptimalLoss). Custom noise is not calibrated (it is given);
// ctx bounds the optimal-noise solve.
func Calibrate(ctx context.Context, m Mechanism, par noise.Params) (*noise.Mechanism, error) {
	var out *noise.Mechanism
	var err error
	switch m {
	case Laplace:
		out, err = noise.LaplaceMechanism(par)
	case Gaussian:
		out, err = noise.GaussianMechanism(par)
	case AnalyticGaussian:
		out, err = noise.AnalyticGaussianMechanism(par)
	case TruncatedLaplace:
		out, err = noise.TruncatedLaplaceMechanism(par)
	case MultiGaussian:
		out, err = noise.MultiGaussianMechanism(par, noise.MultiGaussianOptions{})
	case Optimal:
		// The solve takes seconds and its result depends on par only: cache
		// it (a plan's releases and the solves of one release reuse it).
		if c, ok := optimalCache.Load(par); ok {
			return c.(*noise.Mechanism), nil
		}
		var r *noise.OptimalResult
		r, err = noise.Optimize(ctx, par, noise.OptimalOptions{Intervals: OptimalIntervals, Loss: OptimalLoss(), Symmetric: true, SkipLowerBound: true})
		if err == nil {
			out = r.Mechanism
			optimalCache.Store(par, out)
		}
	default:
		return nil, invalidf("mechanism %q has no calibration (one of %s)", m, strings.Join(MechanismNames(), ", "))
	}
	if err != nil {
		return nil, fmt.Errorf("query: %s mechanism: %w", m, err)
	}
	return out, nil
}

// releasedNoise is a component distribution whose support is that of the
// noise the floating-point-safe release actually adds
// (noise.Mechanism.ReleaseSupport: the continuous support widened by the
// release grid), so that a robust (probability-one) reformulation covers the
// released noise, not only the continuous law. Everything else is the
// continuous distribution's.
type releasedNoise struct {
	lindecision.Distribution
	lo, hi float64
}

// Support returns the bounds of the released noise.
func (r releasedNoise) Support() (lo, hi float64) { return r.lo, r.hi }

// Sample draws from the continuous law (simulations only).
func (r releasedNoise) Sample(src noise.Source) float64 {
	return r.Distribution.(sampler).Sample(src)
}

// releasedComponents returns k copies of m's distribution, with the release
// support where the safe release has a bounded one.
func releasedComponents(m *noise.Mechanism, k int) []lindecision.Distribution {
	var d lindecision.Distribution = m.Dist
	// Rounded draws (releaseMargin > 0) are covered by chance's ReleaseMargin
	// instead, for every method.
	if lo, hi, err := m.ReleaseSupport(noise.ReleaseOptions{}); err == nil && releaseMargin(m) == 0 && !math.IsInf(lo, 0) && !math.IsInf(hi, 0) {
		if _, ok := m.Dist.(sampler); ok {
			d = releasedNoise{Distribution: m.Dist, lo: lo, hi: hi}
		}
	}
	out := make([]lindecision.Distribution, k)
	for j := range out {
		out[j] = d
	}
	return out
}
