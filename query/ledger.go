package query

import (
	"errors"
	"fmt"
	"math"
	"sync"
)

// Composition selects how the ledger adds up privacy losses.
type Composition int

// Compositions.
const (
	// Basic: ε = Σ ε_i, δ = Σ δ_i (Dwork and Roth 2014, Theorem 3.16).
	Basic Composition = iota
	// Advanced: the better of basic composition and the advanced composition of
	// Dwork, Rothblum and Vadhan (FOCS 2010, Theorem III.3; Dwork and Roth 2014,
	// Theorem 3.20) with slack δ':
	//     ε = √(2 ln(1/δ')·Σ ε_i²) + Σ ε_i(e^{ε_i} − 1),   δ = Σ δ_i + δ'.
	// For k equal ε_i = ε this is DRV's √(2k ln(1/δ'))·ε + kε(e^ε − 1); the
	// heterogeneous form follows from the same martingale argument (the
	// privacy-loss increments are bounded by ε_i with mean ≤ ε_i(e^{ε_i} − 1)),
	// cf. Kairouz, Oh and Viswanath (ICML 2015).
	Advanced
)

// Budget is the total privacy the ledger may spend. Gamma bounds the summed
// fraction of adjacent pairs excluded by probabilistic (sampled-sensitivity)
// releases (union bound).
type Budget struct {
	Epsilon, Delta, Gamma float64
}

// ErrBudgetExceeded is wrapped by *BudgetError.
var ErrBudgetExceeded = errors.New("query: privacy budget exceeded")

// BudgetError reports a release the ledger refused.
type BudgetError struct {
	Budget                Budget
	Epsilon, Delta, Gamma float64 // totals the release would have produced
	Composition           Composition
	Releases              int
}

// Error describes the infeasibility or the refused release.
func (e *BudgetError) Error() string {
	return fmt.Sprintf("query: privacy budget exceeded: the release would bring the total to (ε %.4g, δ %.3g, γ %.3g), budget (ε %.4g, δ %.3g, γ %.3g) after %d releases",
		e.Epsilon, e.Delta, e.Gamma, e.Budget.Epsilon, e.Budget.Delta, e.Budget.Gamma, e.Releases)
}

// Is makes errors.Is(err, ErrBudgetExceeded) true.
func (e *BudgetError) Is(target error) bool { return target == ErrBudgetExceeded }

// Ledger composes the privacy losses of several releases and refuses a release
// that would exceed the budget. It is safe for concurrent use.
type Ledger struct {
	mu          sync.Mutex
	budget      Budget
	composition Composition
	deltaPrime  float64
	records     []Record
}

// NewLedger returns an empty ledger. deltaPrime is the slack δ' of advanced
// composition (ignored for Basic; must be in (0, budget.Delta] for Advanced).
func NewLedger(b Budget, c Composition, deltaPrime float64) (*Ledger, error) {
	if !(b.Epsilon > 0) || math.IsInf(b.Epsilon, 0) {
		return nil, invalidf("budget epsilon is %v, must be > 0 and finite", b.Epsilon)
	}
	if !(b.Delta >= 0 && b.Delta < 1) || !(b.Gamma >= 0 && b.Gamma < 1) {
		return nil, invalidf("budget delta %v and gamma %v must be in [0, 1)", b.Delta, b.Gamma)
	}
	switch c {
	case Basic:
	case Advanced:
		if !(deltaPrime > 0 && deltaPrime <= b.Delta) {
			return nil, invalidf("advanced composition slack delta' is %v, must be in (0, budget delta = %v]", deltaPrime, b.Delta)
		}
	default:
		return nil, invalidf("unknown composition %d", int(c))
	}
	return &Ledger{budget: b, composition: c, deltaPrime: deltaPrime}, nil
}

// Compose returns the total (ε, δ, γ) of the given releases under the ledger's
// composition rule.
func (l *Ledger) compose(rs []Record) (eps, delta, gamma float64) {
	var sumE, sumE2, sumD, sumG, drift float64
	for _, r := range rs {
		sumE += r.Epsilon
		sumE2 += r.Epsilon * r.Epsilon
		sumD += r.Delta
		sumG += r.Gamma
		drift += r.Epsilon * math.Expm1(r.Epsilon)
	}
	eps, delta = sumE, sumD
	if l.composition == Advanced && len(rs) > 0 {
		adv := math.Sqrt(2*math.Log(1/l.deltaPrime)*sumE2) + drift
		if adv < eps {
			eps, delta = adv, sumD+l.deltaPrime
		}
	}
	return eps, delta, sumG
}

// Spent returns the composed (ε, δ, γ) of the recorded releases.
func (l *Ledger) Spent() (eps, delta, gamma float64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.compose(l.records)
}

// Records returns a copy of the recorded releases.
func (l *Ledger) Records() []Record {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Record(nil), l.records...)
}

func (l *Ledger) fits(r Record) error {
	all := append(append([]Record(nil), l.records...), r)
	e, d, g := l.compose(all)
	const slack = 1e-12 // rounding in the sums
	if e > l.budget.Epsilon*(1+slack) || d > l.budget.Delta*(1+slack)+slack || g > l.budget.Gamma*(1+slack)+slack {
		return &BudgetError{Budget: l.budget, Epsilon: e, Delta: d, Gamma: g, Composition: l.composition, Releases: len(l.records)}
	}
	return nil
}

// Check reports whether a release with record r fits in the budget (nil) or
// not (*BudgetError), without recording it.
func (l *Ledger) Check(r Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.fits(r)
}

// Spend records r if it fits, otherwise returns *BudgetError and records
// nothing.
func (l *Ledger) Spend(r Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.fits(r); err != nil {
		return err
	}
	l.records = append(l.records, r)
	return nil
}
