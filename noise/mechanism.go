package noise

import (
	"math"
)

// Params are the privacy guarantee and the query's sensitivity: the mechanism
// f(D) + X is (Epsilon, Delta)-DP for every query f with
// |f(D) − f(D')| ≤ Sensitivity on neighbouring databases.
type Params struct {
	Epsilon     float64 // ε > 0
	Delta       float64 // δ ∈ [0, 1); mechanisms narrow the range
	Sensitivity float64 // Δ > 0
}

// Validate checks ε > 0, δ ∈ [0, 1), Δ > 0, all finite.
func (p Params) Validate() error {
	if !(p.Epsilon > 0) || math.IsInf(p.Epsilon, 0) {
		return paramErr("Epsilon", p.Epsilon, "must be > 0 and finite")
	}
	if !(p.Delta >= 0 && p.Delta < 1) {
		return paramErr("Delta", p.Delta, "must be in [0, 1)")
	}
	if !(p.Sensitivity > 0) || math.IsInf(p.Sensitivity, 0) {
		return paramErr("Sensitivity", p.Sensitivity, "must be > 0 and finite")
	}
	return nil
}

func (p Params) needDelta(lo, hi float64, why string) error {
	if err := p.Validate(); err != nil {
		return err
	}
	if !(p.Delta > lo && p.Delta < hi) {
		return paramErr("Delta", p.Delta, why)
	}
	return nil
}

// Mechanism is an additive noise mechanism: it releases f(D) + X with X ~ Dist
// and guarantees (Params.Epsilon, Params.Delta)-DP for queries of sensitivity
// Params.Sensitivity.
type Mechanism struct {
	Name   string       // "laplace", "gaussian", "analytic-gaussian", …
	Params Params       // the guarantee and the sensitivity it holds for
	Dist   Distribution // the noise
}

// LaplaceMechanism returns the Laplace mechanism (Dwork, McSherry, Nissim &
// Smith 2006): scale b = Δ/ε, (ε, 0)-DP. Params.Delta is ignored in the
// calibration and reported as 0 in the guarantee.
func LaplaceMechanism(p Params) (*Mechanism, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	d, err := NewLaplace(p.Sensitivity / p.Epsilon)
	if err != nil {
		return nil, err
	}
	p.Delta = 0
	return &Mechanism{Name: "laplace", Params: p, Dist: d}, nil
}

// GaussianMechanism returns the classical Gaussian mechanism (Dwork & Roth
// 2014, Thm A.1): σ = √(2 ln(1.25/δ))·Δ/ε, proven (ε,δ)-DP only for ε ∈ (0, 1)
// and δ ∈ (0, 1); other ε are rejected (use AnalyticGaussianMechanism).
func GaussianMechanism(p Params) (*Mechanism, error) {
	if err := p.needDelta(0, 1, "must be in (0, 1)"); err != nil {
		return nil, err
	}
	if p.Epsilon >= 1 {
		return nil, paramErr("Epsilon", p.Epsilon, "must be < 1 for the classical Gaussian mechanism (use analytic-gaussian)")
	}
	d, err := NewGaussian(math.Sqrt(2*math.Log(1.25/p.Delta)) * p.Sensitivity / p.Epsilon)
	if err != nil {
		return nil, err
	}
	return &Mechanism{Name: "gaussian", Params: p, Dist: d}, nil
}

// analyticGaussianDelta is the exact privacy profile of N(0, σ²) for sensitivity
// Δ (Balle & Wang 2018, Thm 8):
//
//	δ(σ) = Φ(Δ/(2σ) − εσ/Δ) − e^ε·Φ(−Δ/(2σ) − εσ/Δ),
//
// decreasing in σ.
func analyticGaussianDelta(eps, sens, sigma float64) float64 {
	a := sens / (2 * sigma)
	b := eps * sigma / sens
	return stdNormalCDF(a-b) - math.Exp(eps)*stdNormalCDF(-a-b)
}

// AnalyticGaussianMechanism returns the analytic Gaussian mechanism (Balle &
// Wang 2018): the smallest σ with analyticGaussianDelta(σ) ≤ δ, found by
// bisection on the exact condition to relative precision 1e-12 and rounded up
// (the returned σ always satisfies the condition). Requires δ ∈ (0, 1).
func AnalyticGaussianMechanism(p Params) (*Mechanism, error) {
	if err := p.needDelta(0, 1, "must be in (0, 1)"); err != nil {
		return nil, err
	}
	f := func(s float64) bool { return analyticGaussianDelta(p.Epsilon, p.Sensitivity, s) <= p.Delta }
	lo, hi := p.Sensitivity*1e-3, p.Sensitivity
	for f(lo) {
		lo /= 2
	}
	for !f(hi) {
		hi *= 2
	}
	for hi-lo > 1e-12*hi {
		mid := 0.5 * (lo + hi)
		if f(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	d, err := NewGaussian(hi)
	if err != nil {
		return nil, err
	}
	return &Mechanism{Name: "analytic-gaussian", Params: p, Dist: d}, nil
}

// TruncatedLaplaceMechanism returns the truncated Laplace mechanism of Geng,
// Ding, Guo & Kumar (2020, Def. 3; DP-via-DRO GitHub appendix): λ = Δ/ε,
// A = λ·ln(1 + (e^ε − 1)/(2δ)). Requires δ ∈ (0, ½).
func TruncatedLaplaceMechanism(p Params) (*Mechanism, error) {
	if err := p.needDelta(0, 0.5, "must be in (0, 0.5) for the truncated Laplace mechanism"); err != nil {
		return nil, err
	}
	lambda, bound := roundTruncatedLaplaceUp(p, p.Sensitivity/p.Epsilon, truncatedLaplaceBound(p)) // δ and ε rounded to the private side
	d, err := NewTruncatedLaplace(lambda, bound)
	if err != nil {
		return nil, err
	}
	return &Mechanism{Name: "truncated-laplace", Params: p, Dist: d}, nil
}

// truncatedLaplaceBound returns A = (Δ/ε)·ln(1 + (e^ε − 1)/(2δ)).
func truncatedLaplaceBound(p Params) float64 {
	return p.Sensitivity / p.Epsilon * math.Log1p(math.Expm1(p.Epsilon)/(2*p.Delta))
}
