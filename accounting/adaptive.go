package accounting

import (
	"fmt"
	"math"
	"strconv"
)

// RDPFilter is the Rényi-DP privacy filter of Feldman and Zrnic, "Individual
// privacy accounting via a Rényi filter", NeurIPS 2021, Thm 3.1, at one
// order α fixed with the budget: releases whose RDP ρ_i(α) is chosen
// adaptively are admitted while
//
//	Σ_i ρ_i(α) ≤ B,   B = ε_g − ln(1/δ_g)/(α − 1),
//
// and the stopped interaction is (α, B)-RDP, hence (ε_g, δ_g)-DP by the
// conversion of Mironov, "Rényi differential privacy", CSF 2017, Prop. 3.
// The RDP of a release: Gaussian curve μ: α μ²/2 (Mironov Prop. 7), and the
// same for a discrete Gaussian curve (½μ²-zCDP, Canonne, Kamath and Steinke
// 2020, Thm 4); a Laplace curve or a pure ε₀-DP release: min(ε₀, α ε₀²/2)
// (Bun and Steinke, TCC 2016, Prop. 3.3), ε₀ the release's ε with the
// snapping term — Mironov 2017's closed form (Table II) holds for the ideal
// Laplace law, not the snapped release.
// Releases with δ > 0 and no Gaussian curve, and probabilistic releases
// (γ > 0), cannot be accounted (Add returns an error). The State is Σρ_i,
// each addition rounded up.
type RDPFilter struct {
	Alpha float64 // the order α > 1
}

var _ Filter = RDPFilter{}

// Name returns "rdp(alpha=A)".
func (f RDPFilter) Name() string {
	return "rdp(alpha=" + strconv.FormatFloat(f.Alpha, 'g', -1, 64) + ")"
}

// Composition names the RDP filter and its order.
func (f RDPFilter) Composition() string {
	return fmt.Sprintf("Rényi-DP filter at order α = %g (Σρ(α) ≤ ε − ln(1/δ)/(α−1); adaptive, Feldman & Zrnic 2021)", f.Alpha)
}

func (f RDPFilter) bound(b Budget) float64 {
	return b.Epsilon - math.Log(1/b.Delta)/(f.Alpha-1)
}

// Check needs 0 < δ and ε > ln(1/δ)/(α − 1) (a positive RDP budget) and γ = 0.
func (f RDPFilter) Check(b Budget) error {
	if err := b.Validate(); err != nil {
		return err
	}
	if !(f.Alpha > 1) || math.IsInf(f.Alpha, 0) {
		return fmt.Errorf("%w: RDP order α is %v, must be > 1 and finite", ErrInvalid, f.Alpha)
	}
	if b.Delta <= 0 || b.Gamma != 0 {
		return fmt.Errorf("%w: the RDP filter needs a budget with δ > 0 and γ = 0, got (ε %g, δ %g, γ %g)", ErrInvalid, b.Epsilon, b.Delta, b.Gamma)
	}
	if B := f.bound(b); !(B > 0) {
		return fmt.Errorf("%w: budget ε %g ≤ ln(1/δ)/(α−1) = %g at α = %g, δ = %g: no RDP budget is left; raise ε or α", ErrInvalid, b.Epsilon, b.Epsilon-B, f.Alpha, b.Delta)
	}
	return nil
}

// RDP returns ρ(α) of a release of charge c (see RDPFilter), rounded up.
func (f RDPFilter) RDP(c Charge) (float64, error) {
	if err := c.Cost.Validate(); err != nil {
		return 0, err
	}
	if c.Cost.Gamma != 0 {
		return 0, fmt.Errorf("%w: the RDP filter cannot account a probabilistic release (γ = %g)", ErrInvalid, c.Cost.Gamma)
	}
	a := f.Alpha
	var rho float64
	switch {
	case c.Curve != nil:
		if err := c.Curve.Validate(); err != nil {
			return 0, err
		}
		switch c.Curve.Kind {
		case "gaussian", CurveDiscreteGaussian: // zCDP ½μ² (CKS 2020 Thm 4 for the discrete one)
			rho = a * c.Curve.Value * c.Curve.Value / 2
		case "laplace":
			// privopt's Laplace releases are snapped (Mironov 2012): their
			// guarantee is pure ε-DP with the snapping term in c.Cost.Epsilon,
			// and no RDP curve of the snapped law is proven; Mironov 2017's
			// Laplace curve holds for the ideal law only. Account the
			// proven pure-DP bound (≥ the ideal curve, so sound for both).
			e := math.Max(c.Cost.Epsilon, c.Curve.Value)
			rho = math.Min(e, a*e*e/2)
		}
	case c.Cost.Delta == 0:
		e := c.Cost.Epsilon
		rho = math.Min(e, a*e*e/2)
	default:
		return 0, fmt.Errorf("%w: the RDP filter cannot account a (ε %g, δ %g) release without a Gaussian curve", ErrInvalid, c.Cost.Epsilon, c.Cost.Delta)
	}
	return up(rho), nil
}

// up returns x enlarged by a relative 10⁻¹² (above the rounding of the
// closed forms), so that running sums only err upward.
func up(x float64) float64 { return x + math.Abs(x)*1e-12 + math.SmallestNonzeroFloat64 }

func parseSum(name string, s State) (float64, error) {
	if s == "" {
		return 0, nil
	}
	v, err := strconv.ParseFloat(string(s), 64)
	if err != nil || !(v >= 0) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%w: %s filter state is %q, want a number ≥ 0", ErrInvalid, name, s)
	}
	return v, nil
}

func sumState(v float64) State { return State(strconv.FormatFloat(v, 'g', -1, 64)) }

// Add implements the RDP filter rule.
func (f RDPFilter) Add(b Budget, s State, c Charge) (State, bool, error) {
	if err := f.Check(b); err != nil {
		return s, false, err
	}
	sum, err := parseSum(f.Name(), s)
	if err != nil {
		return s, false, err
	}
	rho, err := f.RDP(c)
	if err != nil {
		return s, false, err
	}
	next := up(sum + rho)
	if next > f.bound(b) {
		return s, false, nil
	}
	return sumState(next), true, nil
}

// Spent returns (Σρ + ln(1/δ_g)/(α−1), δ_g) — the DP the releases so far
// satisfy by Mironov's conversion — or zero for the empty history.
func (f RDPFilter) Spent(b Budget, s State) (Cost, error) {
	sum, err := parseSum(f.Name(), s)
	if err != nil || sum == 0 {
		return Cost{}, err
	}
	return Cost{Epsilon: up(sum + math.Log(1/b.Delta)/(f.Alpha-1)), Delta: b.Delta}, nil
}

// Remaining returns (B − Σρ, 0, 0): the RDP at order α still available (a
// pure ε-DP release of that ε is admitted, a Gaussian one with α μ²/2 ≤ it).
func (f RDPFilter) Remaining(b Budget, s State) (Cost, error) {
	sum, err := parseSum(f.Name(), s)
	if err != nil {
		return Cost{}, err
	}
	return Cost{Epsilon: math.Max(0, f.bound(b)-sum)}, nil
}

// GDPFilter is the Gaussian-DP privacy filter of Smith and Thakurta, "Fully
// adaptive composition for Gaussian differential privacy", 2022, Thm 1.1:
// releases that are μ_i-GDP with μ_i chosen adaptively are admitted while
//
//	Σ_i μ_i² ≤ μ_g²,
//
// and the stopped interaction is μ_g-GDP. The budget (ε_g, δ_g) fixes μ_g as
// the largest μ whose GDP curve δ_μ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2)
// (Dong, Roth and Su 2019, Cor. 2.13) has δ_μ(ε_g) ≤ δ_g. Only exactly
// Gaussian releases (Curve "gaussian", μ = Δ₂/σ) can be accounted: a
// discrete Gaussian release (Curve "discrete-gaussian", what the library's
// floating-point-safe Gaussian releases are) is refused with an error that
// says so — its zCDP is proven (RDPFilter accounts it), a μ-GDP bound is
// not — and so is every other mechanism. The State is Σμ_i², each addition
// rounded up.
type GDPFilter struct{}

var _ Filter = GDPFilter{}

// Name returns "gdp".
func (GDPFilter) Name() string { return "gdp" }

// Composition names the Gaussian-DP filter.
func (GDPFilter) Composition() string {
	return "Gaussian-DP filter (Σμ² ≤ μ_budget²; adaptive, Smith & Thakurta 2022)"
}

// GDPDelta returns δ_μ(ε) of μ-GDP (Dong, Roth and Su 2019, Cor. 2.13).
func GDPDelta(mu, eps float64) float64 {
	if mu <= 0 {
		return 0
	}
	phi := func(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }
	return math.Max(0, phi(-eps/mu+mu/2)-math.Exp(eps)*phi(-eps/mu-mu/2))
}

// GDPMu returns the largest μ (to relative 10⁻¹², rounded down) with
// GDPDelta(μ, eps) ≤ delta.
func GDPMu(eps, delta float64) float64 {
	lo, _ := boundary(func(mu float64) bool { return GDPDelta(mu, eps) > delta })
	return lo
}

// GDPEpsilon returns the smallest ε ≥ 0 (to relative 10⁻¹², rounded up)
// with GDPDelta(mu, ε) ≤ delta.
func GDPEpsilon(mu, delta float64) float64 {
	if GDPDelta(mu, 0) <= delta {
		return 0
	}
	_, hi := boundary(func(e float64) bool { return GDPDelta(mu, e) <= delta })
	return hi
}

// boundary brackets the point on (0, 10⁶] where the monotone predicate
// above turns from false to true: it returns lo < hi with above(lo) false
// (or lo = 0) and above(hi) true (or hi ≥ 10⁶), hi − lo ≤ 10⁻¹²·hi.
func boundary(above func(float64) bool) (lo, hi float64) {
	lo, hi = 0, 1
	for !above(hi) && hi < 1e6 {
		lo, hi = hi, 2*hi
	}
	for hi-lo > 1e-12*hi {
		mid := (lo + hi) / 2
		if above(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return lo, hi
}

// Check needs δ > 0 and γ = 0.
func (GDPFilter) Check(b Budget) error {
	if err := b.Validate(); err != nil {
		return err
	}
	if b.Delta <= 0 || b.Gamma != 0 || !(b.Epsilon > 0) {
		return fmt.Errorf("%w: the Gaussian-DP filter needs a budget with ε > 0, δ > 0 and γ = 0, got (ε %g, δ %g, γ %g)", ErrInvalid, b.Epsilon, b.Delta, b.Gamma)
	}
	return nil
}

// Add implements the Gaussian-DP filter rule.
func (f GDPFilter) Add(b Budget, s State, c Charge) (State, bool, error) {
	if err := f.Check(b); err != nil {
		return s, false, err
	}
	sum, err := parseSum("gdp", s)
	if err != nil {
		return s, false, err
	}
	if c.Curve != nil && c.Curve.Kind == CurveDiscreteGaussian {
		return s, false, fmt.Errorf("%w: the Gaussian-DP filter accounts exactly Gaussian releases only; this release adds discrete Gaussian noise (the floating-point-safe release), which is ½μ²-zCDP with μ = %g (Canonne, Kamath & Steinke 2020, Thm 4) but whose μ-GDP is not proven here: keep such releases on a dataset under the rdp(alpha=A) filter (which accounts that zCDP exactly) or the basic filter", ErrInvalid, c.Curve.Value)
	}
	if c.Curve == nil || c.Curve.Kind != "gaussian" || c.Cost.Gamma != 0 {
		return s, false, fmt.Errorf("%w: the Gaussian-DP filter accounts Gaussian releases only (a Gaussian curve μ and γ = 0); this release is (ε %g, δ %g, γ %g) without one", ErrInvalid, c.Cost.Epsilon, c.Cost.Delta, c.Cost.Gamma)
	}
	if err := c.Curve.Validate(); err != nil {
		return s, false, err
	}
	mu := GDPMu(b.Epsilon, b.Delta)
	next := up(sum + c.Curve.Value*c.Curve.Value)
	if next > mu*mu {
		return s, false, nil
	}
	return sumState(next), true, nil
}

// Spent returns (ε, δ_g) with ε the GDP curve's ε at δ_g for μ = √Σμ_i².
func (f GDPFilter) Spent(b Budget, s State) (Cost, error) {
	sum, err := parseSum("gdp", s)
	if err != nil || sum == 0 {
		return Cost{}, err
	}
	return Cost{Epsilon: GDPEpsilon(math.Sqrt(sum), b.Delta), Delta: b.Delta}, nil
}

// Remaining returns (ε_g − Spent ε, 0, 0); the exact currency left is
// μ_g² − Σμ_i² (a Gaussian release with μ² ≤ it is admitted).
func (f GDPFilter) Remaining(b Budget, s State) (Cost, error) {
	sp, err := f.Spent(b, s)
	if err != nil {
		return Cost{}, err
	}
	return Cost{Epsilon: math.Max(0, b.Epsilon-sp.Epsilon)}, nil
}

// BatchCost returns the (ε, δ) of k releases fixed in advance (mechanisms
// and parameters chosen before the first output, e.g. a day of hourly
// releases under one plan), each with privacy-loss distribution one, by PLD
// composition: ε = (one^{⊛k}).Epsilon(delta). The batch is then one
// release of that cost for a filter (a filter composes the batches
// adaptively; PLD composition is not valid across adaptively chosen
// batches, see Filter).
func BatchCost(one *PLD, k int, delta float64) (Cost, error) {
	if !(delta > 0 && delta < 1) {
		return Cost{}, fmt.Errorf("%w: batch δ is %v, must be in (0, 1)", ErrInvalid, delta)
	}
	p, err := one.ComposeK(k)
	if err != nil {
		return Cost{}, err
	}
	e := p.Epsilon(delta)
	if math.IsInf(e, 0) {
		return Cost{}, fmt.Errorf("%w: the PLD of %d releases has δ above %g at every ε on its grid", ErrInvalid, k, delta)
	}
	return Cost{Epsilon: e, Delta: delta}, nil
}
