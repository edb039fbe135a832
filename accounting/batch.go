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
// composition of k (ε, δ)-DP mechanisms (their Thm 3.3) up to the rounding,
// and exactly (up to Err) with step = ε, where the losses ±ε lie on the grid.
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

// BatchMinSaving is the relative ε saving below which BatchCharge keeps
// basic composition.
const BatchMinSaving = 1e-3

// BatchCharge returns the cost charged for k ≥ 1 releases fixed in advance,
// each of charge single on its own, and the statement of how it was
// computed: the smallest ε at δ = f.Delta of
//
//   - PLD composition of k dominating pairs DPPLD(single.Cost.Epsilon,
//     single.Cost.Delta) (any mechanism of that (ε, δ));
//   - for an exactly Gaussian curve μ: the GDP composition μ√k (Dong, Roth
//     and Su 2022, Cor. 3.3), ε = GDPEpsilon(μ√k, δ);
//   - for a discrete Gaussian curve μ: zCDP composition ρ = kμ²/2 (Canonne,
//     Kamath and Steinke 2020, Thm 4; Bun and Steinke 2016, Lemma 2.3)
//     converted by min over α of αρ + ln(1/δ)/(α − 1) (Mironov 2017, Prop.
//     3);
//
// (the γ of probabilistic releases adds up: k·γ), unless that saves less
// than BatchMinSaving of basic composition's ε (k·ε, k·δ, k·γ, rounded up) —
// then basic composition, which spends no δ on pure-DP releases.
func (f PLDBatchFilter) BatchCharge(single Charge, k int) (Cost, string, error) {
	sc := single.Cost
	if err := sc.Validate(); err != nil {
		return Cost{}, "", err
	}
	if single.Curve != nil {
		if err := single.Curve.Validate(); err != nil {
			return Cost{}, "", err
		}
	}
	if k < 1 {
		return Cost{}, "", fmt.Errorf("%w: batch of %d releases, must be ≥ 1", ErrInvalid, k)
	}
	times := func(x float64) float64 { return ratUp(new(big.Rat).Mul(rat(x), new(big.Rat).SetInt64(int64(k)))) }
	basic := Cost{Epsilon: times(sc.Epsilon), Delta: times(sc.Delta), Gamma: times(sc.Gamma)}
	basicStmt := fmt.Sprintf("batch of %d releases fixed in advance, basic composition (ε %g, δ %g each; tighter composition saves less than 0.1%% here)", k, sc.Epsilon, sc.Delta)
	if k == 1 || sc.Epsilon == 0 {
		return basic, basicStmt, nil
	}
	best, stmt := math.Inf(1), ""
	if sc.Delta < f.Delta {
		// On the grid ε·ℤ the pair's losses ±ε are exact: the k-fold PLD
		// is the exact optimal composition on 2k + 1 points (up to Err).
		one, err := DPPLD(sc.Epsilon, sc.Delta, sc.Epsilon)
		if err != nil {
			return Cost{}, "", err
		}
		if c, err := BatchCost(one, k, f.Delta); err == nil && c.Epsilon < best {
			best = c.Epsilon
			stmt = fmt.Sprintf("batch of %d releases fixed in advance, PLD composition of (ε %g, δ %g)-DP dominating pairs at δ = %g (Kairouz et al. 2015)", k, sc.Epsilon, sc.Delta, f.Delta)
		}
	}
	if cv := single.Curve; cv != nil && sc.Gamma == 0 {
		switch cv.Kind {
		case "gaussian":
			mu := cv.Value * math.Sqrt(float64(k))
			if e := up(GDPEpsilon(mu, f.Delta)); e < best {
				best = e
				stmt = fmt.Sprintf("batch of %d Gaussian releases fixed in advance, GDP composition μ = %g·√%d = %g at δ = %g (Dong, Roth & Su 2022)", k, cv.Value, k, mu, f.Delta)
			}
		case CurveDiscreteGaussian:
			rho := float64(k) * cv.Value * cv.Value / 2
			if e := zcdpEpsilon(rho, f.Delta); e < best {
				best = e
				stmt = fmt.Sprintf("batch of %d discrete Gaussian releases fixed in advance, zCDP composition ρ = %d·%g²/2 = %g converted at δ = %g (Canonne, Kamath & Steinke 2020; Mironov 2017)", k, k, cv.Value, rho, f.Delta)
			}
		}
	}
	if math.IsInf(best, 1) || best >= basic.Epsilon*(1-BatchMinSaving) {
		return basic, basicStmt, nil
	}
	return Cost{Epsilon: best, Delta: f.Delta, Gamma: basic.Gamma}, stmt, nil
}

// zcdpEpsilon returns min over α > 1 of αρ + ln(1/δ)/(α − 1) (ρ-zCDP is
// (α, αρ)-RDP for every α; Mironov 2017, Prop. 3), rounded up: the minimum
// of the convex function is at α* = 1 + √(ln(1/δ)/ρ), where it is
// ρ + 2√(ρ ln(1/δ)).
func zcdpEpsilon(rho, delta float64) float64 {
	l := math.Log(1 / delta)
	a := 1 + math.Sqrt(l/rho)
	return up(up(a*rho) + up(l/(a-1)))
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
