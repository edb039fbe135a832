package noise

import (
	"math"
)

var _ Distribution = (*Staircase)(nil)

// Staircase is the staircase distribution of Geng & Viswanath ("The optimal
// noise-adding mechanism in differential privacy", IEEE Trans. Inf. Theory
// 2016), symmetric around 0 with, for x ≥ 0 in step k = ⌊x/Δ⌋,
//
//	f(x) = a·b^k      on [kΔ, (k+γ)Δ),
//	f(x) = a·b^{k+1}  on [(k+γ)Δ, (k+1)Δ),
//	b = e^{−ε},  a = (1 − b) / (2Δ(γ + (1 − γ)b)).
//
// With the ε of the guarantee and sensitivity Δ it is ε-DP for any γ ∈ [0, 1];
// it is optimal among all ε-DP additive noises for ℓ₁ with γ* = 1/(1 + e^{ε/2})
// and for ℓ₂ with γ* = −b/(1−b) + (b − 2b² + 2b⁴ − b⁵)^{1/3} / (2^{1/3}(1−b)²).
type Staircase struct {
	Epsilon, Sensitivity, Gamma float64
}

// NewStaircase returns the staircase distribution with parameters ε > 0,
// sensitivity Δ > 0 and γ ∈ [0, 1].
func NewStaircase(epsilon, sensitivity, gamma float64) (*Staircase, error) {
	if err := (Params{Epsilon: epsilon, Sensitivity: sensitivity}).Validate(); err != nil {
		return nil, err
	}
	if !(gamma >= 0 && gamma <= 1) {
		return nil, paramErr("Gamma", gamma, "must be in [0, 1]")
	}
	return &Staircase{Epsilon: epsilon, Sensitivity: sensitivity, Gamma: gamma}, nil
}

// StaircaseGammaL1 returns Geng & Viswanath's optimal γ* = 1/(1 + e^{ε/2}) for
// the ℓ₁ loss.
func StaircaseGammaL1(epsilon float64) float64 { return 1 / (1 + math.Exp(epsilon/2)) }

// StaircaseGammaL2 returns Geng & Viswanath's optimal γ* for the ℓ₂ loss,
// −b/(1−b) + (b − 2b² + 2b⁴ − b⁵)^{1/3}/(2^{1/3}(1−b)²) with b = e^{−ε}.
func StaircaseGammaL2(epsilon float64) float64 {
	b := math.Exp(-epsilon)
	return -b/(1-b) + math.Cbrt(b-2*b*b+2*b*b*b*b-b*b*b*b*b)/(math.Cbrt(2)*(1-b)*(1-b))
}

// StaircaseMechanism returns the ε-DP staircase mechanism with the γ* that is
// optimal for loss (ℓ₁ or ℓ₂; other losses are rejected). The guarantee's δ is 0.
func StaircaseMechanism(p Params, loss Loss) (*Mechanism, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	var g float64
	switch loss.Name {
	case "l1":
		g = StaircaseGammaL1(p.Epsilon)
	case "l2":
		g = StaircaseGammaL2(p.Epsilon)
	default:
		return nil, paramErr("Loss", loss.Name, "must be l1 or l2 for the staircase mechanism (closed-form γ*)")
	}
	d, err := NewStaircase(p.Epsilon, p.Sensitivity, g)
	if err != nil {
		return nil, err
	}
	p.Delta = 0
	return representable(&Mechanism{Name: "staircase", Params: p, Dist: d})
}

func (d *Staircase) consts() (a, b float64) {
	b = math.Exp(-d.Epsilon)
	a = -math.Expm1(-d.Epsilon) / (2 * d.Sensitivity * (d.Gamma + (1-d.Gamma)*b))
	return a, b
}

// PDF returns the staircase density.
func (d *Staircase) PDF(x float64) float64 {
	a, b := d.consts()
	t := math.Abs(x) / d.Sensitivity
	k := math.Floor(t)
	v := a * math.Exp(-k*d.Epsilon)
	if t-k >= d.Gamma {
		v *= b
	}
	return v
}

// halfMass returns P(0 ≤ X ≤ x) for x ≥ 0: (1 − b^k)/2 for the complete steps
// plus the part of step k.
func (d *Staircase) halfMass(x float64) float64 {
	a, b := d.consts()
	t := x / d.Sensitivity
	k := math.Floor(t)
	r := t - k
	bk := math.Exp(-k * d.Epsilon)
	return -math.Expm1(-k*d.Epsilon)/2 + a*bk*d.Sensitivity*(math.Min(r, d.Gamma)+b*math.Max(r-d.Gamma, 0))
}

// CDF returns ½ ± P(0 ≤ X ≤ |x|).
func (d *Staircase) CDF(x float64) float64 {
	if x < 0 {
		return 0.5 - d.halfMass(-x)
	}
	return 0.5 + d.halfMass(x)
}

// Quantile inverts CDF step by step: the step k is ⌊ln(1 − 2q)/ln b⌋ for
// q = |p − ½|, then the position within the step is linear.
func (d *Staircase) Quantile(p float64) float64 {
	q := math.Abs(p - 0.5)
	a, b := d.consts()
	k := math.Floor(math.Log1p(-2*q) / -d.Epsilon)
	if k < 0 || math.IsNaN(k) {
		k = 0
	}
	m := q + math.Expm1(-k*d.Epsilon)/2 // mass left inside step k
	if m < 0 {
		m = 0
	}
	bk := math.Exp(-k * d.Epsilon)
	var x float64
	if first := a * bk * d.Sensitivity * d.Gamma; m <= first {
		x = (k + m/(a*bk*d.Sensitivity)) * d.Sensitivity
	} else {
		x = (k+d.Gamma)*d.Sensitivity + (m-first)/(a*bk*b)
	}
	if p < 0.5 {
		return -x
	}
	return x
}

// Mean returns 0.
func (d *Staircase) Mean() float64 { return 0 }

// series returns S0 = Σb^k, S1 = Σk·b^k, S2 = Σk²·b^k.
func staircaseSeries(eps float64) (s0, s1, s2 float64) {
	b := math.Exp(-eps)
	omb := -math.Expm1(-eps)
	return 1 / omb, b / (omb * omb), b * (1 + b) / (omb * omb * omb)
}

// MeanAbs returns aΔ²[(2γS1 + γ²S0) + b(2(1−γ)S1 + (1−γ²)S0)].
func (d *Staircase) MeanAbs() float64 {
	a, b := d.consts()
	g := d.Gamma
	s0, s1, _ := staircaseSeries(d.Epsilon)
	return a * d.Sensitivity * d.Sensitivity * ((2*g*s1 + g*g*s0) + b*(2*(1-g)*s1+(1-g*g)*s0))
}

// Variance returns (2aΔ³/3)[(3γS2 + 3γ²S1 + γ³S0) + b(3(1−γ)S2 + 3(1−γ²)S1 + (1−γ³)S0)].
func (d *Staircase) Variance() float64 {
	a, b := d.consts()
	g := d.Gamma
	s0, s1, s2 := staircaseSeries(d.Epsilon)
	D := d.Sensitivity
	return 2 * a * D * D * D / 3 * ((3*g*s2 + 3*g*g*s1 + g*g*g*s0) + b*(3*(1-g)*s2+3*(1-g*g)*s1+(1-g*g*g)*s0))
}

// Support returns (−Inf, +Inf).
func (d *Staircase) Support() (lo, hi float64) { return math.Inf(-1), math.Inf(1) }

// Sample uses Geng & Viswanath's construction: a sign, a geometric step
// G with P(G = k) = (1−b)b^k, a Bernoulli choice of the upper part of the step
// with probability (1−γ)b/(γ + (1−γ)b), and a uniform position inside it.
func (d *Staircase) Sample(src Source) float64 {
	src = orCrypto(src)
	_, b := d.consts()
	g := math.Floor(math.Log(uniform01(src)) / -d.Epsilon)
	u := uniform01(src)
	var t float64
	if uniform01(src) < d.Gamma/(d.Gamma+(1-d.Gamma)*b) {
		t = g + d.Gamma*u
	} else {
		t = g + d.Gamma + (1-d.Gamma)*u
	}
	x := t * d.Sensitivity
	if randBit(src) {
		return -x
	}
	return x
}
