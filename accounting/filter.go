package accounting

import (
	"errors"
	"fmt"
	"math"
	"math/big"
)

// Cost is the privacy cost of one release: (Epsilon, Delta)-DP, or
// (Epsilon, Delta, Gamma)-probabilistic DP when the sensitivity was sampled
// (the guarantee holds for all but a fraction Gamma of adjacent pairs).
type Cost struct {
	Epsilon float64 `json:"epsilon"` // ε ≥ 0, finite
	Delta   float64 `json:"delta"`   // δ ∈ [0, 1)
	Gamma   float64 `json:"gamma"`   // γ ∈ [0, 1)
}

// Budget is the total privacy a sequence of releases may spend: the
// composed releases are (Epsilon, Delta)-DP (with a fraction at most Gamma of
// adjacent pairs excluded, by the union bound over probabilistic releases).
type Budget = Cost

// Validate checks ε ≥ 0 finite, δ ∈ [0, 1), γ ∈ [0, 1).
func (c Cost) Validate() error {
	if !(c.Epsilon >= 0) || math.IsInf(c.Epsilon, 0) {
		return fmt.Errorf("%w: epsilon is %v, must be ≥ 0 and finite", ErrInvalid, c.Epsilon)
	}
	if !(c.Delta >= 0 && c.Delta < 1) {
		return fmt.Errorf("%w: delta is %v, must be in [0, 1)", ErrInvalid, c.Delta)
	}
	if !(c.Gamma >= 0 && c.Gamma < 1) {
		return fmt.Errorf("%w: gamma is %v, must be in [0, 1)", ErrInvalid, c.Gamma)
	}
	return nil
}

// ErrInvalid is wrapped by every error about an unusable cost, budget or
// accountant parameter.
var ErrInvalid = errors.New("accounting: invalid parameter")

// Filter is a privacy filter (Rogers, Roth, Ullman and Vadhan, "Privacy
// odometers and filters: pay-as-you-go composition", NeurIPS 2016, Def. 3): a
// stopping rule that, given a budget fixed in advance and the costs of the
// releases made so far — each chosen adaptively, after seeing the earlier
// outputs — decides whether one more release of a given cost may run. A valid
// filter guarantees that the whole interaction, stopped by the rule, is
// (Budget.Epsilon, Budget.Delta)-DP, although no release count or cost was
// fixed in advance. Composition theorems for fixed parameters (for example
// advanced composition, or the minimum of basic and advanced composition) are
// not filters in general: Rogers et al. show that the adaptive choice of
// parameters can break them, which is why the ledger composes only through a
// Filter.
type Filter interface {
	// Name identifies the filter in stored ledgers ("basic"); a ledger keeps
	// the filter it was created with for its whole life.
	Name() string
	// Admit reports whether a release of cost next may run after the releases
	// of costs prior, under budget b. It must be deterministic.
	Admit(b Budget, prior []Cost, next Cost) bool
	// Spent returns the privacy guaranteed so far for the releases of costs
	// prior (the filter's statement, ≤ the budget for admitted sequences).
	Spent(prior []Cost) Cost
}

// BasicFilter is the filter of basic composition:
//
//	admit next  ⇔  Σ_{i ≤ k} ε_i + ε_next ≤ ε_g  and  Σ δ_i + δ_next ≤ δ_g  and  Σ γ_i + γ_next ≤ γ_g,
//
// with the sums computed exactly (rational arithmetic on the float64 values,
// so no rounding can admit a release that exceeds the budget). It is a valid
// filter for adaptively chosen (ε_i, δ_i): Rogers, Roth, Ullman and Vadhan
// (2016, Sec. 4; the basic-composition bound holds with ε_i, δ_i chosen as
// functions of the earlier outputs because the privacy loss is bounded
// step by step), restated as Theorem 3.2 of Whitehouse, Ramdas, Rogers and Wu,
// "Fully-adaptive composition in differential privacy", ICML 2023, whose
// filters also cover adaptively chosen δ_i. The γ part is a union bound over
// the excluded adjacent pairs of the probabilistic releases.
type BasicFilter struct{}

var _ Filter = BasicFilter{}

// Name returns "basic".
func (BasicFilter) Name() string { return "basic" }

// Admit implements the basic-composition filter rule above.
func (BasicFilter) Admit(b Budget, prior []Cost, next Cost) bool {
	e, d, g := exactSums(append(append([]Cost(nil), prior...), next))
	return e.Cmp(rat(b.Epsilon)) <= 0 && d.Cmp(rat(b.Delta)) <= 0 && g.Cmp(rat(b.Gamma)) <= 0
}

// Spent returns (Σ ε_i, Σ δ_i, Σ γ_i), each rounded up to a float64.
func (BasicFilter) Spent(prior []Cost) Cost {
	e, d, g := exactSums(prior)
	return Cost{Epsilon: ratUp(e), Delta: ratUp(d), Gamma: ratUp(g)}
}

// Remaining returns what a basic filter still admits after prior: budget minus
// spent in each coordinate, rounded down (a release of exactly Remaining is
// admitted), never negative.
func (BasicFilter) Remaining(b Budget, prior []Cost) Cost {
	e, d, g := exactSums(prior)
	sub := func(total float64, s *big.Rat) float64 {
		r := new(big.Rat).Sub(rat(total), s)
		if r.Sign() <= 0 {
			return 0
		}
		return ratDown(r)
	}
	return Cost{Epsilon: sub(b.Epsilon, e), Delta: sub(b.Delta, d), Gamma: sub(b.Gamma, g)}
}

// FilterByName returns the filter stored under name ("basic").
func FilterByName(name string) (Filter, error) {
	switch name {
	case "basic":
		return BasicFilter{}, nil
	}
	return nil, fmt.Errorf("%w: filter is %q, must be \"basic\"", ErrInvalid, name)
}

func rat(x float64) *big.Rat { return new(big.Rat).SetFloat64(x) }

func exactSums(cs []Cost) (e, d, g *big.Rat) {
	e, d, g = new(big.Rat), new(big.Rat), new(big.Rat)
	for _, c := range cs {
		e.Add(e, rat(c.Epsilon))
		d.Add(d, rat(c.Delta))
		g.Add(g, rat(c.Gamma))
	}
	return e, d, g
}

// ratUp returns the smallest float64 ≥ r.
func ratUp(r *big.Rat) float64 {
	f, exact := r.Float64()
	if !exact && rat(f).Cmp(r) < 0 {
		f = math.Nextafter(f, math.Inf(1))
	}
	return f
}

// ratDown returns the largest float64 ≤ r.
func ratDown(r *big.Rat) float64 {
	f, exact := r.Float64()
	if !exact && rat(f).Cmp(r) > 0 {
		f = math.Nextafter(f, math.Inf(-1))
	}
	return f
}
