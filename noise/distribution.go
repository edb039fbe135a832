package noise

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Distribution is a scalar noise distribution with a density.
//
// Support returns the closed hull of the support; an unbounded end is ±Inf.
// Quantile is the generalized inverse of CDF on (0, 1). Sample draws one
// variate from src (nil means CryptoSource()).
type Distribution interface {
	PDF(x float64) float64
	CDF(x float64) float64
	Quantile(p float64) float64
	Mean() float64
	Variance() float64
	MeanAbs() float64 // E|X|, the ℓ₁ loss
	Support() (lo, hi float64)
	Sample(src Source) float64
}

var (
	_ Distribution = (*Laplace)(nil)
	_ Distribution = (*Gaussian)(nil)
	_ Distribution = (*TruncatedLaplace)(nil)
)

// Std returns the standard deviation √Var(X) of d.
func Std(d Distribution) float64 { return math.Sqrt(d.Variance()) }

// Laplace is the zero-mean Laplace distribution with density
//
//	f(x) = exp(−|x|/b) / (2b),  b = Scale > 0.
//
// Var = 2b², E|X| = b.
type Laplace struct{ Scale float64 }

// NewLaplace returns the zero-mean Laplace distribution with the given scale.
func NewLaplace(scale float64) (*Laplace, error) {
	if !(scale > 0) || math.IsInf(scale, 0) {
		return nil, paramErr("Scale", scale, "must be > 0 and finite")
	}
	return &Laplace{Scale: scale}, nil
}

// PDF returns exp(−|x|/b)/(2b).
func (d *Laplace) PDF(x float64) float64 { return math.Exp(-math.Abs(x)/d.Scale) / (2 * d.Scale) }

// CDF returns ½e^{x/b} for x < 0 and 1 − ½e^{−x/b} otherwise.
func (d *Laplace) CDF(x float64) float64 {
	if x < 0 {
		return 0.5 * math.Exp(x/d.Scale)
	}
	return 1 - 0.5*math.Exp(-x/d.Scale)
}

// Quantile returns b·ln(2p) for p < ½ and −b·ln(2(1−p)) otherwise.
func (d *Laplace) Quantile(p float64) float64 {
	if p < 0.5 {
		return d.Scale * math.Log(2*p)
	}
	return -d.Scale * math.Log1p(-(2*p - 1))
}

// Mean returns 0.
func (d *Laplace) Mean() float64 { return 0 }

// Variance returns 2b².
func (d *Laplace) Variance() float64 { return 2 * d.Scale * d.Scale }

// MeanAbs returns b.
func (d *Laplace) MeanAbs() float64 { return d.Scale }

// Support returns (−Inf, +Inf).
func (d *Laplace) Support() (lo, hi float64) { return math.Inf(-1), math.Inf(1) }

// Sample returns S·b·(−ln U) with a random sign S and a full-precision uniform
// U ∈ (0,1) (see uniform01). To release f(D)+X safely in floating point use
// Mechanism.Release, which snaps the output (Mironov 2012).
func (d *Laplace) Sample(src Source) float64 {
	src = orCrypto(src)
	x := -d.Scale * math.Log(uniform01(src))
	if randBit(src) {
		return -x
	}
	return x
}

// Gaussian is the zero-mean normal distribution N(0, σ²), σ = Sigma > 0.
type Gaussian struct{ Sigma float64 }

// NewGaussian returns N(0, sigma²).
func NewGaussian(sigma float64) (*Gaussian, error) {
	if !(sigma > 0) || math.IsInf(sigma, 0) {
		return nil, paramErr("Sigma", sigma, "must be > 0 and finite")
	}
	return &Gaussian{Sigma: sigma}, nil
}

// PDF returns the normal density.
func (d *Gaussian) PDF(x float64) float64 {
	z := x / d.Sigma
	return math.Exp(-0.5*z*z) / (d.Sigma * math.Sqrt(2*math.Pi))
}

// CDF returns Φ(x/σ) = ½erfc(−x/(σ√2)).
func (d *Gaussian) CDF(x float64) float64 { return stdNormalCDF(x / d.Sigma) }

// Quantile returns σΦ⁻¹(p).
func (d *Gaussian) Quantile(p float64) float64 { return d.Sigma * stdNormalQuantile(p) }

// Mean returns 0.
func (d *Gaussian) Mean() float64 { return 0 }

// Variance returns σ².
func (d *Gaussian) Variance() float64 { return d.Sigma * d.Sigma }

// MeanAbs returns σ√(2/π).
func (d *Gaussian) MeanAbs() float64 { return d.Sigma * math.Sqrt(2/math.Pi) }

// Support returns (−Inf, +Inf).
func (d *Gaussian) Support() (lo, hi float64) { return math.Inf(-1), math.Inf(1) }

// Sample returns σΦ⁻¹(U) for a full-precision uniform U (inverse transform),
// with a random sign applied to the lower half for symmetric tails.
func (d *Gaussian) Sample(src Source) float64 {
	src = orCrypto(src)
	u := 0.5 * uniform01(src) // (0, ½): accurate lower-tail quantile
	x := d.Sigma * stdNormalQuantile(u)
	if randBit(src) {
		return -x
	}
	return x
}

// TruncatedLaplace is the truncated Laplace distribution of Geng, Ding, Guo &
// Kumar (2020) with scale λ = Scale and bound A = Bound:
//
//	f(x) = B·exp(−|x|/λ) on [−A, A],  B = 1 / (2λ(1 − e^{−A/λ})).
//
// With a = A/λ: E|X| = 2Bλ²(1 − e^{−a}(1+a)), Var = 2Bλ³(2 − e^{−a}(a² + 2a + 2)).
type TruncatedLaplace struct{ Scale, Bound float64 }

// NewTruncatedLaplace returns the truncated Laplace distribution with the given
// scale λ > 0 and bound A > 0.
func NewTruncatedLaplace(scale, bound float64) (*TruncatedLaplace, error) {
	if !(scale > 0) || math.IsInf(scale, 0) {
		return nil, paramErr("Scale", scale, "must be > 0 and finite")
	}
	if !(bound > 0) || math.IsInf(bound, 0) {
		return nil, paramErr("Bound", bound, "must be > 0 and finite")
	}
	return &TruncatedLaplace{Scale: scale, Bound: bound}, nil
}

func (d *TruncatedLaplace) norm() float64 {
	return 1 / (2 * d.Scale * -math.Expm1(-d.Bound/d.Scale))
}

// PDF returns B·exp(−|x|/λ) on [−A, A] and 0 outside.
func (d *TruncatedLaplace) PDF(x float64) float64 {
	if math.Abs(x) > d.Bound {
		return 0
	}
	return d.norm() * math.Exp(-math.Abs(x)/d.Scale)
}

// CDF integrates the density: for |x| ≤ A, F(x) = ½ + sign(x)·Bλ(1 − e^{−|x|/λ}).
func (d *TruncatedLaplace) CDF(x float64) float64 {
	switch {
	case x <= -d.Bound:
		return 0
	case x >= d.Bound:
		return 1
	}
	h := d.norm() * d.Scale * -math.Expm1(-math.Abs(x)/d.Scale)
	if x < 0 {
		return 0.5 - h
	}
	return 0.5 + h
}

// Quantile inverts CDF: |x| = −λ·ln(1 − |p−½|/(Bλ)), with the sign of p − ½
// (equivalent to the appendix's inverse CDF of the DP-via-DRO paper).
func (d *TruncatedLaplace) Quantile(p float64) float64 {
	q := math.Abs(p - 0.5)
	x := -d.Scale * math.Log1p(-q/(d.norm()*d.Scale))
	x = math.Min(x, d.Bound)
	if p < 0.5 {
		return -x
	}
	return x
}

// Mean returns 0.
func (d *TruncatedLaplace) Mean() float64 { return 0 }

// Variance returns 2Bλ³(2 − e^{−a}(a² + 2a + 2)), a = A/λ, written as
// λ²·γ(3, a)/(1 − e^{−a}) with the lower incomplete gamma function
// γ(3, a) = ∫₀ᵃ t²e^{−t} dt (lowerGammaInt), and for a < 1 as
// A²·γ(3, a)/(a²(1 − e^{−a})) so that λ² cannot overflow when ε is tiny.
func (d *TruncatedLaplace) Variance() float64 {
	a := d.Bound / d.Scale
	r := lowerGammaInt(3, a) / -math.Expm1(-a)
	if a < 1 {
		return d.Bound * d.Bound * (r / (a * a))
	}
	return d.Scale * d.Scale * r
}

// MeanAbs returns 2Bλ²(1 − e^{−a}(1 + a)), a = A/λ, written as
// λ·γ(2, a)/(1 − e^{−a}) (A·γ(2, a)/(a(1 − e^{−a})) for a < 1).
func (d *TruncatedLaplace) MeanAbs() float64 {
	a := d.Bound / d.Scale
	r := lowerGammaInt(2, a) / -math.Expm1(-a)
	if a < 1 {
		return d.Bound * (r / a)
	}
	return d.Scale * r
}

// lowerGammaInt returns γ(n, a) = ∫₀ᵃ tⁿ⁻¹e^{−t} dt for n = 2, 3:
// (n−1)!·(1 − e^{−a}·Σ_{j<n} a^j/j!) for a ≥ 2, and for a < 2 the series
// Σ_{k≥0} (−1)^k a^{k+n}/(k!(k+n)) (Abramowitz & Stegun 6.5.29), which has
// no cancellation when a is small (truncated Laplace at tiny ε: a ≈ 2εA).
func lowerGammaInt(n int, a float64) float64 {
	if a >= 2 {
		if n == 2 {
			return 1 - math.Exp(-a)*(1+a)
		}
		return 2 - math.Exp(-a)*(a*a+2*a+2)
	}
	pow := math.Pow(a, float64(n)) // a^{k+n}/k!
	sum := 0.0
	for k := 0; k < 40; k++ {
		term := pow / float64(k+n)
		if k%2 == 1 {
			term = -term
		}
		sum += term
		pow *= a / float64(k+1)
		if pow < 1e-17*math.Abs(sum) {
			break
		}
	}
	return sum
}

// Support returns [−A, A].
func (d *TruncatedLaplace) Support() (lo, hi float64) { return -d.Bound, d.Bound }

// Sample draws |X| by inverse transform of a full-precision uniform and a sign.
func (d *TruncatedLaplace) Sample(src Source) float64 {
	src = orCrypto(src)
	q := 0.5 * uniform01(src)
	x := math.Min(-d.Scale*math.Log1p(-q/(d.norm()*d.Scale)), d.Bound)
	if randBit(src) {
		return -x
	}
	return x
}

func stdNormalCDF(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }

func stdNormalQuantile(p float64) float64 { return distuv.UnitNormal.Quantile(p) }
