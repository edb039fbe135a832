package accounting

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// DPPLD returns a PLD that dominates EVERY (ε, δ)-DP mechanism: the privacy
// loss of the four-point pair of Kairouz, Oh and Viswanath ("The composition
// theorem for differential privacy", ICML 2015, Thm 2.1: the output pair of
// any (ε, δ)-DP mechanism on neighbouring inputs is a post-processing of this
// pair), whose loss is
//
//	+∞ with probability δ,  +ε with probability (1 − δ)·e^ε/(1 + e^ε),
//	−ε with probability (1 − δ)/(1 + e^ε),
//
// rounded up to the grid step·ℤ. The pair is its own reverse, so it dominates
// both orders of the neighbours. Composing k copies gives the optimal
// composition of k (ε, δ)-DP mechanisms (their Thm 3.3) up to the rounding.
// It needs no noise law, only the release's (ε, δ): it is the PLD the ledger
// uses for a batch fixed in advance (PLDBatchFilter.BatchCharge), valid for
// the floating-point-safe releases (snapped Laplace, discrete Gaussian),
// whose exact laws differ from the continuous ones.
func DPPLD(eps, delta, step float64) (*PLD, error) {
	if err := checkStep(step); err != nil {
		return nil, err
	}
	if !(eps > 0) || math.IsInf(eps, 0) {
		return nil, fmt.Errorf("%w: epsilon is %v, must be > 0 and finite", ErrInvalid, eps)
	}
	if !(delta >= 0 && delta < 1) {
		return nil, fmt.Errorf("%w: delta is %v, must be in [0, 1)", ErrInvalid, delta)
	}
	jhi := int(math.Ceil(eps / step))
	jlo := int(math.Ceil(-eps / step))
	p := &PLD{Step: step, Offset: jlo, Mass: make([]float64, jhi-jlo+1)}
	up := (1 - delta) / (1 + math.Exp(-eps)) // (1 − δ)e^ε/(1 + e^ε)
	p.Mass[jhi-jlo] += up
	p.Mass[0] += (1 - delta) - up
	p.Inf = delta
	p.Err = 16 * unitRoundoff
	return p, nil
}

// PLDBatchFilter is basic composition across releases with PLD composition
// inside a batch fixed in advance: a single release is charged its (ε, δ, γ)
// exactly as by BasicFilter (the filter is valid for adaptively chosen
// releases and batches, Rogers, Roth, Ullman and Vadhan 2016); a batch of k
// releases whose mechanisms and parameters are all fixed before the first of
// them runs (a day of hourly releases under one saved plan) is charged ONE
// cost, BatchCharge: the PLD composition of the k releases at δ = Delta
// (DPPLD, BatchCost), or k times the single cost when that is no larger. PLD
// composition of a batch is valid because nothing in the batch is chosen
// after seeing its outputs; the batches themselves compose by the basic
// filter. Its Name is "pld-batch(delta=D)"; its State is BasicFilter's.
type PLDBatchFilter struct {
	Delta float64 // δ at which a batch's PLD is converted to (ε, δ), in (0, 1)
}

var _ Filter = PLDBatchFilter{}

// Name returns "pld-batch(delta=D)".
func (f PLDBatchFilter) Name() string {
	return "pld-batch(delta=" + strconv.FormatFloat(f.Delta, 'g', -1, 64) + ")"
}

// Composition states both rules.
func (f PLDBatchFilter) Composition() string {
	return fmt.Sprintf("basic composition filter across releases and batches (Σε, Σδ, Σγ within the budget; adaptive, Rogers et al. 2016); a batch fixed in advance is charged its PLD composition at δ = %g (Kairouz et al. 2015 dominating pair)", f.Delta)
}

// Check needs a valid budget, Delta in (0, 1) and Delta ≤ the budget's δ
// (otherwise no batch could ever be charged).
func (f PLDBatchFilter) Check(b Budget) error {
	if err := b.Validate(); err != nil {
		return err
	}
	if !(f.Delta > 0 && f.Delta < 1) {
		return fmt.Errorf("%w: pld-batch δ is %v, must be in (0, 1)", ErrInvalid, f.Delta)
	}
	if f.Delta > b.Delta {
		return fmt.Errorf("%w: pld-batch δ %g exceeds the budget's δ %g: no batch could be charged", ErrInvalid, f.Delta, b.Delta)
	}
	return nil
}

// Add is BasicFilter.Add.
func (f PLDBatchFilter) Add(b Budget, s State, c Charge) (State, bool, error) {
	return BasicFilter{}.Add(b, s, c)
}

// Spent is BasicFilter.Spent.
func (f PLDBatchFilter) Spent(b Budget, s State) (Cost, error) { return BasicFilter{}.Spent(b, s) }

// Remaining is BasicFilter.Remaining.
func (f PLDBatchFilter) Remaining(b Budget, s State) (Cost, error) {
	return BasicFilter{}.Remaining(b, s)
}

// BatchStep is the grid of the batch PLDs (BatchCharge): the charged ε
// exceeds the exact composition by less than k·BatchStep.
const BatchStep = 1e-4

// BatchMinSaving is the relative ε saving below which BatchCharge keeps
// basic composition.
const BatchMinSaving = 1e-3

// BatchCharge returns the cost charged for k ≥ 1 releases fixed in advance,
// each of cost single on its own, and the statement of how it was computed:
// the PLD composition of k dominating pairs DPPLD(single.Epsilon,
// single.Delta) at δ = f.Delta (the γ of probabilistic releases adds up:
// k·γ), unless that saves less than BatchMinSaving of basic composition's ε
// (k·ε, k·δ, k·γ, rounded up) — then basic composition, which spends no δ on
// pure-DP releases.
func (f PLDBatchFilter) BatchCharge(single Cost, k int) (Cost, string, error) {
	if err := single.Validate(); err != nil {
		return Cost{}, "", err
	}
	if k < 1 {
		return Cost{}, "", fmt.Errorf("%w: batch of %d releases, must be ≥ 1", ErrInvalid, k)
	}
	times := func(x float64) float64 { return ratUp(new(big.Rat).Mul(rat(x), new(big.Rat).SetInt64(int64(k)))) }
	basic := Cost{Epsilon: times(single.Epsilon), Delta: times(single.Delta), Gamma: times(single.Gamma)}
	basicStmt := fmt.Sprintf("batch of %d releases fixed in advance, basic composition (ε %g, δ %g each; PLD saves less than 0.1%% here)", k, single.Epsilon, single.Delta)
	if k == 1 || single.Epsilon == 0 || single.Delta >= f.Delta {
		return basic, basicStmt, nil
	}
	one, err := DPPLD(single.Epsilon, single.Delta, BatchStep)
	if err != nil {
		return Cost{}, "", err
	}
	c, err := BatchCost(one, k, f.Delta)
	if err != nil {
		return basic, basicStmt, nil //nolint:nilerr // the PLD cannot reach δ: basic composition is the valid charge
	}
	c.Gamma = basic.Gamma
	if c.Epsilon >= basic.Epsilon*(1-BatchMinSaving) || basic.Delta >= c.Delta && basic.Epsilon <= c.Epsilon {
		return basic, basicStmt, nil
	}
	return c, fmt.Sprintf("batch of %d releases fixed in advance, PLD composition of (ε %g, δ %g)-DP dominating pairs at δ = %g (Kairouz et al. 2015; grid %g)", k, single.Epsilon, single.Delta, f.Delta, BatchStep), nil
}

func parsePLDBatch(name string) (Filter, bool, error) {
	if !strings.HasPrefix(name, "pld-batch(delta=") || !strings.HasSuffix(name, ")") {
		return nil, false, nil
	}
	d, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimPrefix(name, "pld-batch(delta="), ")"), 64)
	if err != nil || !(d > 0 && d < 1) {
		return nil, true, fmt.Errorf("%w: filter %q: the batch δ must be a number in (0, 1)", ErrInvalid, name)
	}
	return PLDBatchFilter{Delta: d}, true, nil
}
