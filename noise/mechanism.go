package noise

import (
	"fmt"
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
	return representable(&Mechanism{Name: "laplace", Params: p, Dist: d})
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
	return representable(&Mechanism{Name: "gaussian", Params: p, Dist: d})
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
	// e^ε·Φ(−a−b) in the log domain: e^ε overflows for ε > 709.78 while the
	// product stays below 1.
	return stdNormalCDF(a-b) - math.Exp(eps+logStdNormalCDF(-a-b))
}

// logStdNormalCDF returns ln Φ(z) without underflow: for z ≥ −30 from erfc,
// below from the asymptotic series (Abramowitz & Stegun 26.2.12)
//
//	Φ(z) = φ(z)/|z| · (1 − 1/z² + 3/z⁴ − 15/z⁶ + …),
//
// truncated after the 1·3·…·11/z¹² term (relative error < 1e-14 at z = −30).
func logStdNormalCDF(z float64) float64 {
	if z >= -30 {
		return math.Log(stdNormalCDF(z))
	}
	z2 := z * z
	sum, term := 1.0, 1.0
	for k := 1; k <= 6; k++ {
		term *= -float64(2*k-1) / z2
		sum += term
	}
	return -z2/2 - math.Log(-z) - 0.5*math.Log(2*math.Pi) + math.Log(sum)
}

// AnalyticGaussianMechanism returns the analytic Gaussian mechanism (Balle &
// Wang 2018): the smallest σ with analyticGaussianDelta(σ) ≤ δ, found by
// bisection on the exact condition to relative precision 1e-12 and rounded up
// (the returned σ always satisfies the condition). Requires δ ∈ (0, 1).
// The condition is evaluated in the log domain (any finite ε); when σ leaves
// the floating-point range (ε or δ so extreme that the bracket cannot be
// found within 2,100 halvings or doublings) an error names the parameter.
func AnalyticGaussianMechanism(p Params) (*Mechanism, error) {
	if err := p.needDelta(0, 1, "must be in (0, 1)"); err != nil {
		return nil, err
	}
	f := func(s float64) bool { return analyticGaussianDelta(p.Epsilon, p.Sensitivity, s) <= p.Delta }
	lo, hi := p.Sensitivity*1e-3, p.Sensitivity
	// 2,100 halvings or doublings cover the whole float64 range.
	for i := 0; f(lo); i++ {
		if i > 2100 || lo == 0 {
			return nil, paramErr("Epsilon", p.Epsilon, fmt.Sprintf("with δ = %g gives an analytic-Gaussian σ below the floating-point range", p.Delta))
		}
		lo /= 2
	}
	for i := 0; !f(hi); i++ {
		if i > 2100 || math.IsInf(hi, 0) {
			return nil, paramErr("Epsilon", p.Epsilon, fmt.Sprintf("with δ = %g gives an analytic-Gaussian σ beyond the floating-point range", p.Delta))
		}
		hi *= 2
	}
	for i := 0; hi-lo > 1e-12*hi && i < 200; i++ {
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
	return representable(&Mechanism{Name: "analytic-gaussian", Params: p, Dist: d})
}

// representable returns m, or an error naming ε when the noise's standard
// deviation or mean absolute value is not a positive finite float64 (ε or δ
// so extreme that the calibrated noise over- or underflows): such a mechanism
// cannot be reported or sampled faithfully.
func representable(m *Mechanism) (*Mechanism, error) {
	std, ma := Std(m.Dist), m.Dist.MeanAbs()
	if std > 0 && ma > 0 && !math.IsInf(std, 0) && !math.IsInf(ma, 0) {
		return m, nil
	}
	return nil, paramErr("Epsilon", m.Params.Epsilon, fmt.Sprintf("with δ = %g and sensitivity %g gives %s noise with standard deviation %g and E|X| = %g, outside the floating-point range", m.Params.Delta, m.Params.Sensitivity, m.Name, std, ma))
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
	return representable(&Mechanism{Name: "truncated-laplace", Params: p, Dist: d})
}

// truncatedLaplaceBound returns A = (Δ/ε)·ln(1 + (e^ε − 1)/(2δ)), for ε > 1 in
// the form (Δ/ε)·(ε + ln((1 − e^{−ε})/(2δ) + e^{−ε})), which does not overflow.
func truncatedLaplaceBound(p Params) float64 {
	if p.Epsilon > 1 {
		em := math.Exp(-p.Epsilon)
		return p.Sensitivity / p.Epsilon * (p.Epsilon + math.Log(-math.Expm1(-p.Epsilon)/(2*p.Delta)+em))
	}
	return p.Sensitivity / p.Epsilon * math.Log1p(math.Expm1(p.Epsilon)/(2*p.Delta))
}
