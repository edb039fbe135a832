package query

import (
	"fmt"
	"math"
	"strings"
)

// PrivacySpec is the privacy requirement of a release: the noise mechanism and the
// target (ε, δ). It is the one privacy-spec type of every release path:
// Privacy embeds it (with the sensitivity), learn.Privacy is it,
// opfrelease.Options embeds it, learn.IterativePrivacy embeds it, and the
// CLI's --noise/--epsilon/--delta flags and the service's
// noise/epsilon/delta fields are parsed into it by ParseSpec. A mechanism
// name means the same calibration everywhere (Calibrate; "optimal" is the
// certified minimum-variance noise of OptimalLoss).
type PrivacySpec struct {
	Mechanism Mechanism `json:"mechanism"`
	Epsilon   float64   `json:"epsilon"` // ε > 0, finite
	Delta     float64   `json:"delta"`   // δ ∈ [0, 1); > 0 for every mechanism but Laplace
}

// DefaultMechanism is the mechanism of a PrivacySpec that names none
// (PrivacySpec.WithDefault, ParseSpec with an empty name): Laplace for pure ε-DP
// (δ = 0), the analytic Gaussian (Balle and Wang 2018, the smallest σ with
// the exact (ε, δ) profile) for δ > 0.
func DefaultMechanism(delta float64) Mechanism {
	if delta > 0 {
		return AnalyticGaussian
	}
	return Laplace
}

// WithDefault returns s with an empty Mechanism replaced by
// DefaultMechanism(s.Delta); a named mechanism is kept.
func (s PrivacySpec) WithDefault() PrivacySpec {
	if s.Mechanism == "" {
		s.Mechanism = DefaultMechanism(s.Delta)
	}
	return s
}

// ParseSpec returns the validated PrivacySpec of a mechanism name (one of
// MechanismNames, or "" for DefaultMechanism(delta)), ε and δ: the one
// parser of the CLI's --noise/--epsilon/--delta and of the service's
// noise/epsilon/delta fields.
func ParseSpec(name string, epsilon, delta float64) (PrivacySpec, error) {
	s := PrivacySpec{Epsilon: epsilon, Delta: delta}
	if name != "" {
		m, err := ParseMechanism(name)
		if err != nil {
			return PrivacySpec{}, err
		}
		s.Mechanism = m
	}
	s = s.WithDefault()
	if err := s.Validate(); err != nil {
		return PrivacySpec{}, err
	}
	return s, nil
}

// Validate checks ε ∈ (0, ∞), δ ∈ [0, 1), that the mechanism is known
// (Custom included) and that δ > 0 for the mechanisms that need it (every
// one but Laplace and Custom: the Gaussian kinds, truncated Laplace, optimal
// and multi-Gaussian noise are (ε, δ)-DP with δ > 0 only). An empty
// Mechanism is refused: call WithDefault to apply DefaultMechanism.
func (s PrivacySpec) Validate() error {
	if !(s.Epsilon > 0) || math.IsInf(s.Epsilon, 0) {
		return invalidf("epsilon is %v, must be > 0 and finite", s.Epsilon)
	}
	if !(s.Delta >= 0 && s.Delta < 1) {
		return invalidf("delta is %v, must be in [0, 1)", s.Delta)
	}
	switch s.Mechanism {
	case Laplace, Custom:
	case Gaussian, AnalyticGaussian, TruncatedLaplace, Optimal, MultiGaussian:
		if s.Delta == 0 {
			return invalidf("the %s mechanism needs delta > 0 (it is (ε, δ)-DP); use laplace for δ = 0", s.Mechanism)
		}
	case "":
		return invalidf("no mechanism named (one of %s)", strings.Join(MechanismNames(), ", "))
	default:
		return invalidf("unknown mechanism %q (one of %s)", s.Mechanism, strings.Join(MechanismNames(), ", "))
	}
	return nil
}

// Describe returns the spec in words, e.g. "laplace noise, ε = 1" or
// "analytic-gaussian noise, (ε, δ) = (1, 1e-05)".
func (s PrivacySpec) Describe() string {
	if s.Delta == 0 {
		return fmt.Sprintf("%s noise, ε = %g", s.Mechanism, s.Epsilon)
	}
	return fmt.Sprintf("%s noise, (ε, δ) = (%g, %g)", s.Mechanism, s.Epsilon, s.Delta)
}
