package query

import (
	"fmt"
	"math"

	"github.com/privopt/privopt/lindecision"
	"github.com/privopt/privopt/noise"
)

// SensitivitySource says how a sensitivity value was obtained.
type SensitivitySource string

// Sensitivity sources.
const (
	// Given: supplied by the user (a proven worst-case bound): pure DP
	// statements (Theorems 3.6, 3.7, 3.11).
	Given SensitivitySource = "given"
	// Sampled: estimated by Algorithm 1 (EstimateSensitivity): the release is
	// (ε, γ)-probabilistically DP with confidence 1 − β (Theorem 3.9, Prop. 3.8).
	Sampled SensitivitySource = "sampled"
)

// Sensitivity is the worst-case change ‖Q x(D) − Q x(D')‖_p of the query over
// α-adjacent datasets.
type Sensitivity struct {
	Value  float64
	Norm   float64 // p: 1, 2 or +Inf
	Source SensitivitySource
	// Gamma and Beta are set for Sampled: the estimate bounds the sensitivity of
	// all but a fraction γ of adjacent pairs, with confidence 1 − β.
	Gamma, Beta float64
	Samples     int // pairs solved (Sampled)
}

// Validate checks the value, the norm and the sampling parameters.
func (s Sensitivity) Validate() error {
	if !(s.Value > 0) || math.IsInf(s.Value, 0) {
		return invalidf("sensitivity is %v, must be > 0 and finite", s.Value)
	}
	if s.Norm != 1 && s.Norm != 2 && !math.IsInf(s.Norm, 1) {
		return invalidf("sensitivity norm is %v, must be 1, 2 or +Inf", s.Norm)
	}
	switch s.Source {
	case Given, "":
	case Sampled:
		if !(s.Gamma > 0 && s.Gamma < 1) || !(s.Beta > 0 && s.Beta < 1) {
			return invalidf("sampled sensitivity needs gamma and beta in (0, 1), got %v and %v", s.Gamma, s.Beta)
		}
	default:
		return invalidf("unknown sensitivity source %q", s.Source)
	}
	return nil
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
	// Custom: the caller supplies the per-component distribution (e.g. an
	// optimal noise from package noise) and certifies Epsilon and Delta for the
	// given sensitivity; privopt records, but cannot check, that claim.
	Custom Mechanism = "custom"
)

// Privacy is the privacy requirement of a release.
type Privacy struct {
	Mechanism   Mechanism
	Epsilon     float64 // ε > 0
	Delta       float64 // δ ∈ [0, 1): 0 for Laplace
	Sensitivity Sensitivity
	// Noise is the per-component distribution for Custom (ignored otherwise).
	Noise lindecision.Distribution
}

// Validate checks the parameters against the mechanism.
func (p Privacy) Validate() error {
	if !(p.Epsilon > 0) || math.IsInf(p.Epsilon, 0) {
		return invalidf("epsilon is %v, must be > 0 and finite", p.Epsilon)
	}
	if !(p.Delta >= 0 && p.Delta < 1) {
		return invalidf("delta is %v, must be in [0, 1)", p.Delta)
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
	case TruncatedLaplace:
	case Custom:
		if p.Noise == nil {
			return invalidf("custom mechanism without a noise distribution")
		}
	default:
		return invalidf("unknown mechanism %q", p.Mechanism)
	}
	return nil
}

// components returns the k noise components and the delta actually
// guaranteed.
func (p Privacy) components(k int) ([]lindecision.Distribution, float64, error) {
	d, delta, _, err := p.mechanism(k)
	return d, delta, err
}

// mechanism also returns the noise.Mechanism used for floating-point-safe
// releases (nil when the noise is not a noise.Distribution).
func (p Privacy) mechanism(k int) ([]lindecision.Distribution, float64, *noise.Mechanism, error) {
	if err := p.Validate(); err != nil {
		return nil, 0, nil, err
	}
	par := noise.Params{Epsilon: p.Epsilon, Delta: p.Delta, Sensitivity: p.Sensitivity.Value}
	var m *noise.Mechanism
	var err error
	switch p.Mechanism {
	case Laplace:
		m, err = noise.LaplaceMechanism(par)
	case Gaussian:
		m, err = noise.GaussianMechanism(par)
	case AnalyticGaussian:
		m, err = noise.AnalyticGaussianMechanism(par)
	case TruncatedLaplace:
		if k != 1 {
			return nil, 0, nil, invalidf("the truncated Laplace mechanism is scalar; the query has k = %d rows (use Laplace or Gaussian)", k)
		}
		m, err = noise.TruncatedLaplaceMechanism(par)
	case Custom:
		d := make([]lindecision.Distribution, k)
		for j := range d {
			d[j] = p.Noise
		}
		var cm *noise.Mechanism
		if nd, ok := p.Noise.(noise.Distribution); ok {
			cm = &noise.Mechanism{Name: "custom", Params: noise.Params{Epsilon: p.Epsilon, Delta: p.Delta, Sensitivity: p.Sensitivity.Value}, Dist: nd}
		}
		return d, p.Delta, cm, nil
	}
	if err != nil {
		return nil, 0, nil, fmt.Errorf("query: %s mechanism: %w", p.Mechanism, err)
	}
	d := make([]lindecision.Distribution, k)
	for j := range d {
		d[j] = m.Dist
	}
	return d, m.Params.Delta, m, nil
}
