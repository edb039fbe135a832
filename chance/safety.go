package chance

import (
	"fmt"
	"math"
)

// Safety selects the safety factor z(η_i) of the Bonferroni second-order-cone
// reformulation of one individual chance constraint
//
//	Pr[f0 + fᵀζ ≥ 0] ≥ 1 − η_i   ⇐   f0 ≥ z(η_i)·‖Fᵀf‖₂,   Σ = FFᵀ
//
// (Dvorkin et al. Remark 3.4, eq. 7; Nemirovski and Shapiro 2007 call z the
// safety parameter).
type Safety int

// Safety factors.
const (
	// Cantelli: z = √((1−η)/η). Distribution-free, from the one-sided Chebyshev
	// (Cantelli) inequality Pr[Y − E Y ≥ t] ≤ σ²/(σ² + t²): set t = zσ and
	// require 1/(1 + z²) ≤ η. This is the "Chebyshev" factor of the paper and the
	// default. Conservative for every distribution with the given covariance.
	Cantelli Safety = iota
	// Chebyshev: z = √(1/η), from the two-sided Chebyshev inequality
	// Pr[|Y − E Y| ≥ zσ] ≤ 1/z². Distribution-free and more conservative than
	// Cantelli (it also bounds the tail on the side that cannot violate the row).
	Chebyshev
	// Gaussian: z = Φ⁻¹(1−η). Exact for each individual constraint when ζ is
	// Gaussian (independent or with covariance Σ); not a guarantee otherwise
	// (the Guarantee then says Heuristic).
	Gaussian
)

var safetyNames = [...]string{Cantelli: "cantelli", Chebyshev: "chebyshev", Gaussian: "gaussian"}

// String returns the factor's name.
func (s Safety) String() string {
	if s < 0 || int(s) >= len(safetyNames) {
		return fmt.Sprintf("Safety(%d)", int(s))
	}
	return safetyNames[s]
}

// Factor returns z(η) for η ∈ (0, 1) (for Gaussian, η ∈ (0, ½) gives z > 0).
func (s Safety) Factor(eta float64) (float64, error) {
	if err := checkRisk("individual risk eta_i", eta); err != nil {
		return 0, err
	}
	switch s {
	case Cantelli:
		return math.Sqrt((1 - eta) / eta), nil
	case Chebyshev:
		return math.Sqrt(1 / eta), nil
	case Gaussian:
		return -math.Sqrt2 * math.Erfcinv(2*(1-eta)), nil
	}
	return 0, fmt.Errorf("%w: unknown safety factor %d", ErrInvalid, int(s))
}
