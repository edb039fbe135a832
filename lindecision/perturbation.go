package lindecision

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Distribution is what the lifting and the chance-constraint reformulations need
// to know about one noise component ζ_j: its first two moments, its quantile
// function (inverse CDF, used for exact individual chance constraints and for
// inverse-transform sampling) and its support (for robust reformulations over a
// bounded support). The distributions of package noise satisfy it.
type Distribution interface {
	// Mean returns E[ζ_j]. Program perturbation requires zero-mean noise.
	Mean() float64
	// Variance returns Var[ζ_j] (finite).
	Variance() float64
	// Quantile returns inf{z : F(z) ≥ p} for p ∈ (0, 1).
	Quantile(p float64) float64
	// Support returns the smallest closed interval [lo, hi] holding all the
	// probability mass; ±Inf for unbounded tails.
	Support() (lo, hi float64)
}

// ErrInvalid is wrapped by every validation error of this package.
var ErrInvalid = errors.New("lindecision: invalid input")

func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

// MeanTolerance is the largest |E[ζ_j]| accepted as "zero mean", relative to the
// component's standard deviation: |mean| ≤ MeanTolerance·max(1, σ_j).
const MeanTolerance = 1e-9

// Perturbation describes the noise vector ζ ∈ Rᵏ.
//
// With Covariance nil, the components are independent with the given
// distributions (Σ = diag(Var ζ_j)). With Covariance set, ζ ~ N(0, Σ) is a
// Gaussian vector with that covariance and Components must hold the Gaussian
// marginals N(0, Σ_jj) (their quantiles are used for single-component rows).
type Perturbation struct {
	Components []Distribution
	Covariance mat.Symmetric // optional, k×k, positive semidefinite
}

// K returns the number of noise components.
func (p *Perturbation) K() int { return len(p.Components) }

// Validate checks that there is at least one component, that every component is
// zero-mean with a finite positive variance, and that a covariance, if given, is
// k×k, consistent with the marginal variances and positive semidefinite.
func (p *Perturbation) Validate() error {
	k := len(p.Components)
	if k == 0 {
		return invalidf("perturbation has no components, need k ≥ 1")
	}
	for j, d := range p.Components {
		if d == nil {
			return invalidf("perturbation component %d is nil", j)
		}
		v := d.Variance()
		if !(v > 0) || math.IsInf(v, 0) {
			return invalidf("perturbation component %d has variance %v, must be > 0 and finite", j, v)
		}
		if m := d.Mean(); math.IsNaN(m) || math.Abs(m) > MeanTolerance*math.Max(1, math.Sqrt(v)) {
			return invalidf("perturbation component %d has mean %v, must be 0", j, m)
		}
	}
	if p.Covariance != nil {
		if r := p.Covariance.SymmetricDim(); r != k {
			return invalidf("covariance is %d×%d, want %d×%d", r, r, k, k)
		}
		for j := 0; j < k; j++ {
			c, v := p.Covariance.At(j, j), p.Components[j].Variance()
			if math.Abs(c-v) > 1e-9*math.Max(1, v) {
				return invalidf("covariance[%d][%d] is %v but component %d has variance %v", j, j, c, j, v)
			}
		}
		if _, err := p.factor(); err != nil {
			return err
		}
	}
	return nil
}

// Sigma returns the covariance Σ of ζ as a dense k×k matrix.
func (p *Perturbation) Sigma() *mat.SymDense {
	k := len(p.Components)
	s := mat.NewSymDense(k, nil)
	if p.Covariance != nil {
		s.CopySym(p.Covariance)
		return s
	}
	for j, d := range p.Components {
		s.SetSym(j, j, d.Variance())
	}
	return s
}

// Factor returns F with Σ = F Fᵀ (lower triangular): the diagonal of standard
// deviations for independent components, a Cholesky factor otherwise (with a
// tiny diagonal shift only if Σ is singular to working precision).
func (p *Perturbation) Factor() (*mat.TriDense, error) { return p.factor() }

func (p *Perturbation) factor() (*mat.TriDense, error) {
	k := len(p.Components)
	if p.Covariance == nil {
		f := mat.NewTriDense(k, mat.Lower, nil)
		for j, d := range p.Components {
			f.SetTri(j, j, math.Sqrt(d.Variance()))
		}
		return f, nil
	}
	var ch mat.Cholesky
	if ch.Factorize(p.Covariance) {
		var l mat.TriDense
		ch.LTo(&l)
		return &l, nil
	}
	// Positive semidefinite but singular: eigen-decompose and build a square root,
	// then re-triangularize via QR of its transpose.
	var es mat.EigenSym
	if !es.Factorize(p.Covariance, true) {
		return nil, invalidf("covariance: eigendecomposition failed")
	}
	vals := es.Values(nil)
	var vecs mat.Dense
	es.VectorsTo(&vecs)
	for _, v := range vals {
		if v < -1e-10*math.Max(1, math.Abs(vals[len(vals)-1])) {
			return nil, invalidf("covariance has eigenvalue %v, must be positive semidefinite", v)
		}
	}
	root := mat.NewDense(k, k, nil) // root = V diag(√λ)
	for i := 0; i < k; i++ {
		for j := 0; j < k; j++ {
			root.Set(i, j, vecs.At(i, j)*math.Sqrt(math.Max(vals[j], 0)))
		}
	}
	var qr mat.QR
	qr.Factorize(root.T())
	var r mat.Dense
	qr.RTo(&r) // rootᵀ = QR ⇒ root = RᵀQᵀ, Σ = root rootᵀ = RᵀR
	f := mat.NewTriDense(k, mat.Lower, nil)
	for i := 0; i < k; i++ {
		for j := 0; j <= i; j++ {
			f.SetTri(i, j, r.At(j, i))
		}
	}
	return f, nil
}

// Uniform01 maps a 64-bit random word to a uniform number in the open interval
// (0, 1): (⌊w/2¹¹⌋ + ½)/2⁵³. Never 0 or 1, so quantile functions stay finite.
func Uniform01(w uint64) float64 {
	return (float64(w>>11) + 0.5) / (1 << 53)
}

// Sample writes one draw of ζ into dst (allocated if nil) using the 64-bit
// words of next. Independent components are drawn by inverse transform,
// ζ_j = F_j⁻¹(U_j); a Gaussian vector with covariance Σ is drawn as ζ = F·z with
// z_j = Φ⁻¹(U_j) and Σ = FFᵀ (f is Factor(), passed in to avoid refactoring on
// every draw; it may be nil for independent components).
//
// This sampler is for simulation (Monte Carlo evaluation, sampled
// reformulations). Releases use the secure sampler of package query.
func (p *Perturbation) Sample(dst []float64, next func() uint64, f *mat.TriDense) []float64 {
	k := len(p.Components)
	if dst == nil {
		dst = make([]float64, k)
	}
	if p.Covariance == nil {
		for j, d := range p.Components {
			dst[j] = d.Quantile(Uniform01(next()))
		}
		return dst
	}
	z := make([]float64, k)
	for j := range z {
		z[j] = stdNormalQuantile(Uniform01(next()))
	}
	for i := 0; i < k; i++ {
		s := 0.0
		for j := 0; j <= i; j++ {
			s += f.At(i, j) * z[j]
		}
		dst[i] = s
	}
	return dst
}

// stdNormalQuantile is Φ⁻¹(p) = −√2·erfcinv(2p).
func stdNormalQuantile(p float64) float64 { return -math.Sqrt2 * math.Erfcinv(2*p) }
