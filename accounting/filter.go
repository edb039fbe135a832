package accounting

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
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
// stopping rule that, given a budget fixed in advance and the releases made
// so far — each chosen adaptively, after seeing the earlier outputs — decides
// whether one more release may run. A valid filter guarantees that the whole
// interaction, stopped by the rule, is (Budget.Epsilon, Budget.Delta)-DP,
// although no release count or cost was fixed in advance. Composition
// theorems for fixed parameters (advanced composition, PLD composition) are
// not filters in general: Rogers et al. show that the adaptive choice of
// parameters can break them; a batch whose mechanisms are fixed in advance
// may still be composed by its PLD and charged to a filter as ONE release
// (BatchCost).
//
// A filter keeps its running totals in a State (amortized O(1) per release:
// Add reads and returns the totals, never the whole history), so a ledger
// stores the State of each entry and checks one more release against the last
// State only.
type Filter interface {
	// Name identifies the filter in stored ledgers ("basic", "gdp",
	// "rdp(alpha=32)"); a ledger keeps the filter it was created with for its
	// whole life. FilterByName(f.Name()) returns f.
	Name() string
	// Composition is the one-line statement of the composition theorem the
	// filter applies, printed in every budget and audit line.
	Composition() string
	// Add returns the State after one more release of charge c on top of the
	// releases summarized by s ("" is the empty history), and whether the
	// filter admits it under budget b (when not, s is returned unchanged). It
	// is deterministic. An error means that s is not a State of this filter
	// or that the filter cannot account c (for example a (ε, δ > 0) release
	// without a Gaussian curve under an RDP filter) — a data-independent
	// refusal, the same for every dataset.
	Add(b Budget, s State, c Charge) (State, bool, error)
	// Spent returns the (ε, δ, γ) the filter certifies for the releases of s
	// (≤ b for admitted histories).
	Spent(b Budget, s State) (Cost, error)
	// Remaining returns what is left of b after s in the filter's terms,
	// expressed as (ε, δ, γ), each ≥ 0 (see the filter's documentation for
	// what one more release of that cost means).
	Remaining(b Budget, s State) (Cost, error)
	// Check reports whether b can be the budget of this filter (for example
	// the Gaussian-DP filter needs δ > 0).
	Check(b Budget) error
}

// State is a filter's running totals after a history of releases, as
// canonical text (exact rationals for the basic filter, rounded-up floats
// for the RDP and Gaussian-DP filters). The empty State is the empty history.
type State string

// Charge is what one release costs: its (ε, δ, γ) on its own and, when
// known, its privacy curve (for the RDP and Gaussian-DP filters, which can
// compose Gaussian releases much more tightly than their (ε, δ)).
type Charge struct {
	Cost  Cost   `json:"cost"`
	Curve *Curve `json:"curve,omitempty"`
}

// Curve names a mechanism's privacy curve by one number.
type Curve struct {
	// Kind is "gaussian" (Value μ = Δ₂/σ: the Gaussian mechanism with ℓ2
	// sensitivity Δ₂ and noise std σ, which is μ-GDP, Dong, Roth and Su 2019,
	// Thm 2.7, and has RDP α μ²/2, Mironov 2017, Prop. 7) or "laplace"
	// (Value ε = Δ₁/b: the Laplace mechanism of scale b, RDP of Mironov 2017,
	// Table II).
	//
	// "discrete-gaussian" (Value μ) is a floating-point-safe Gaussian release:
	// the value rounded to a grid g·ℤ plus g·Y, Y ~ N_ℤ(0, s) (package noise,
	// DiscreteGaussianFor), with the grid shift k of neighbours and s such
	// that k/√s ≤ μ. It is ½μ²-zCDP (Canonne, Kamath and Steinke, "The
	// discrete Gaussian for differential privacy", NeurIPS 2020, Thm 4:
	// D_α(N_ℤ(0,s) ‖ N_ℤ(k,s)) ≤ α k²/(2s) for integer k), so the RDP filter
	// accounts it like a Gaussian curve; its μ-GDP is not proven (the
	// Gaussian-DP filter refuses it).
	Kind  string  `json:"kind"`
	Value float64 `json:"value"`
}

// CurveDiscreteGaussian is the Kind of a discrete Gaussian release's curve.
const CurveDiscreteGaussian = "discrete-gaussian"

// Validate checks the curve's kind and that its value is > 0 and finite.
func (c *Curve) Validate() error {
	if c.Kind != "gaussian" && c.Kind != "laplace" && c.Kind != CurveDiscreteGaussian {
		return fmt.Errorf("%w: curve kind is %q, must be \"gaussian\", \"laplace\" or %q", ErrInvalid, c.Kind, CurveDiscreteGaussian)
	}
	if !(c.Value > 0) || math.IsInf(c.Value, 0) {
		return fmt.Errorf("%w: %s curve value is %v, must be > 0 and finite", ErrInvalid, c.Kind, c.Value)
	}
	return nil
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
// the excluded adjacent pairs of the probabilistic releases. Its State is
// the three exact sums "ε;δ;γ" (big.Rat strings).
type BasicFilter struct{}

var _ Filter = BasicFilter{}

// Name returns "basic".
func (BasicFilter) Name() string { return "basic" }

// Composition names basic composition.
func (BasicFilter) Composition() string {
	return "basic composition filter (Σε, Σδ, Σγ within the budget; adaptive, Rogers et al. 2016)"
}

// Check accepts every valid budget.
func (BasicFilter) Check(b Budget) error { return b.Validate() }

func (BasicFilter) parse(s State) (e, d, g *big.Rat, err error) {
	e, d, g = new(big.Rat), new(big.Rat), new(big.Rat)
	if s == "" {
		return e, d, g, nil
	}
	parts := strings.Split(string(s), ";")
	if len(parts) != 3 {
		return nil, nil, nil, fmt.Errorf("%w: basic filter state is %q, want \"ε;δ;γ\"", ErrInvalid, s)
	}
	for i, r := range []*big.Rat{e, d, g} {
		if _, ok := r.SetString(parts[i]); !ok || r.Sign() < 0 {
			return nil, nil, nil, fmt.Errorf("%w: basic filter state is %q, part %d is not a rational ≥ 0", ErrInvalid, s, i+1)
		}
	}
	return e, d, g, nil
}

func basicState(e, d, g *big.Rat) State {
	return State(e.RatString() + ";" + d.RatString() + ";" + g.RatString())
}

// Add implements the basic-composition rule on the exact sums.
func (f BasicFilter) Add(b Budget, s State, c Charge) (State, bool, error) {
	if err := c.Cost.Validate(); err != nil {
		return s, false, err
	}
	e, d, g, err := f.parse(s)
	if err != nil {
		return s, false, err
	}
	e.Add(e, rat(c.Cost.Epsilon))
	d.Add(d, rat(c.Cost.Delta))
	g.Add(g, rat(c.Cost.Gamma))
	if e.Cmp(rat(b.Epsilon)) > 0 || d.Cmp(rat(b.Delta)) > 0 || g.Cmp(rat(b.Gamma)) > 0 {
		return s, false, nil
	}
	return basicState(e, d, g), true, nil
}

// Spent returns (Σ ε_i, Σ δ_i, Σ γ_i), each rounded up to a float64.
func (f BasicFilter) Spent(_ Budget, s State) (Cost, error) {
	e, d, g, err := f.parse(s)
	if err != nil {
		return Cost{}, err
	}
	return Cost{Epsilon: ratUp(e), Delta: ratUp(d), Gamma: ratUp(g)}, nil
}

// Remaining returns budget minus spent in each coordinate, rounded down (a
// release of exactly Remaining is admitted), never negative.
func (f BasicFilter) Remaining(b Budget, s State) (Cost, error) {
	e, d, g, err := f.parse(s)
	if err != nil {
		return Cost{}, err
	}
	sub := func(total float64, s *big.Rat) float64 {
		r := new(big.Rat).Sub(rat(total), s)
		if r.Sign() <= 0 {
			return 0
		}
		return ratDown(r)
	}
	return Cost{Epsilon: sub(b.Epsilon, e), Delta: sub(b.Delta, d), Gamma: sub(b.Gamma, g)}, nil
}

// Replay returns the State of a history of charges under f (each admitted
// in turn; an error if one is refused) — the O(n) recomputation an audit
// compares with the stored running totals.
func Replay(f Filter, b Budget, charges []Charge) (State, error) {
	var s State
	for i, c := range charges {
		next, ok, err := f.Add(b, s, c)
		if err != nil {
			return s, fmt.Errorf("release %d: %w", i+1, err)
		}
		if !ok {
			return s, fmt.Errorf("%w: release %d of (ε %g, δ %g, γ %g) exceeds the budget under the %s filter", ErrInvalid, i+1, c.Cost.Epsilon, c.Cost.Delta, c.Cost.Gamma, f.Name())
		}
		s = next
	}
	return s, nil
}

// FilterByName returns the filter stored under name: "basic", "gdp",
// "rdp(alpha=A)" with A > 1, or "pld-batch(delta=D)" with D in (0, 1) (see
// RDPFilter, GDPFilter, PLDBatchFilter).
func FilterByName(name string) (Filter, error) {
	if f, ok, err := parsePLDBatch(name); ok {
		return f, err
	}
	switch {
	case name == "basic":
		return BasicFilter{}, nil
	case name == "gdp":
		return GDPFilter{}, nil
	case strings.HasPrefix(name, "rdp(alpha=") && strings.HasSuffix(name, ")"):
		a, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimPrefix(name, "rdp(alpha="), ")"), 64)
		if err != nil || !(a > 1) || math.IsInf(a, 0) {
			return nil, fmt.Errorf("%w: filter %q: the RDP order must be a number > 1", ErrInvalid, name)
		}
		return RDPFilter{Alpha: a}, nil
	}
	return nil, fmt.Errorf("%w: filter is %q, must be \"basic\", \"gdp\", \"rdp(alpha=A)\" or \"pld-batch(delta=D)\"", ErrInvalid, name)
}

func rat(x float64) *big.Rat { return new(big.Rat).SetFloat64(x) }

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
