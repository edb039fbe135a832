package learn

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/privopt/privopt/noise"
	"github.com/privopt/privopt/query"
)

// NoiseKind names the additive noise of a vector release. It is
// query.Mechanism — the one name → mechanism registry (query.ParseMechanism);
// learn calibrates the names it supports for vectors of k weights with ℓ₂
// sensitivity Δ₂:
//
//   - Laplace: i.i.d. Lap(Δ₁/ε) per weight with Δ₁ = √k·Δ₂ ≥ the ℓ₁
//     sensitivity; (ε, 0)-DP (Dwork et al. 2006).
//   - Gaussian: i.i.d. N(0, σ²), σ = √(2 ln(1.25/δ))·Δ₂/ε; (ε, δ)-DP for
//     ε < 1 (Dwork and Roth 2014, Thm A.1).
//   - AnalyticGaussian: the smallest σ with the exact (ε, δ) profile for Δ₂
//     (Balle and Wang 2018), any ε > 0.
//   - Optimal: the ℓ₂-loss-optimal (ε/k, δ/k)-DP noise for a scalar of
//     sensitivity Δ₂ ≥ Δ∞ (noise.Optimize), drawn independently per weight;
//     each weight is (ε/k, δ/k)-DP and the k releases compose (basic
//     composition, Dwork and Roth 2014, Thm 3.16) to (ε, δ)-DP.
type NoiseKind = query.Mechanism

// The noise kinds learn supports (query's names).
const (
	Laplace          = query.Laplace
	Gaussian         = query.Gaussian
	AnalyticGaussian = query.AnalyticGaussian
	Optimal          = query.Optimal
)

// NoiseKinds lists the kinds in the order of comparison tables.
var NoiseKinds = []NoiseKind{Laplace, Gaussian, AnalyticGaussian, Optimal}

// vectorNoise is a calibrated i.i.d. vector noise.
type vectorNoise struct {
	kind   NoiseKind
	mech   *noise.Mechanism // the per-coordinate mechanism; releases go through mech.Release
	dist   noise.Distribution
	k      int
	sens   float64 // the certified sensitivity (norm below) the release must cover
	norm   float64 // its norm: 1, 2 or +Inf (per coordinate, composed)
	eps    float64
	delta  float64 // guaranteed δ of the vector release
	detail string
	// calSens is the sensitivity the mechanism is calibrated to: sens, or for
	// a discrete Gaussian release of coords > 1 coordinates sens + √coords·grid
	// (coordinate-wise rounding, see newVectorNoise).
	calSens float64
	// grid is the output grid of the floating-point-safe release (the
	// discrete Gaussian's g, Laplace snapping's Λ, the piecewise-constant
	// sampler's g); releasedStd the standard deviation of the noise the
	// release actually adds (the discrete law's).
	grid, releasedStd float64
	// rmsBound bounds the root mean square of the released noise.
	rmsBound float64
	opts     noise.ReleaseOptions
}

// vectorDGHeadroom is the factor of δ to which the Gaussian of a vector
// discrete Gaussian release (m > 1 coordinates) is calibrated. The product
// of m discrete Gaussians under an integer shift vector of norm S is not
// exactly the continuous Gaussian at S: its exact profile, bounded from
// above by the composition of the per-coordinate privacy-loss distributions
// (TestVectorDiscreteGaussianProfile), exceeds the continuous δ at the same
// norm by up to 1.2% in the cases computed (SSP on diabetes at ε = 0.3, δ =
// 10⁻⁶, 76 coordinates, rounding and floating-point slack of the bound
// included), so a calibration at δ itself could not be proven. Calibrating
// to δ·(1 − 2⁻⁵) (about 0.1–0.3% more noise) leaves room: the computed
// bound is ≤ 0.966·δ there, and δ is the guarantee stated.
const vectorDGHeadroom = 1 - 0x1p-5

// newVectorNoise calibrates kind for a k-vector of ℓ₂ sensitivity sens2 at
// (ε, δ). coords is the number of coordinates that share the ℓ₂ sensitivity
// and are released by the discrete Gaussian (0 when the noise is only
// sampled, as in objective perturbation).
//
// Numerical margin of the vector discrete Gaussian: the safe release rounds
// each coordinate to the grid g before adding g·Y, Y a discrete Gaussian
// (noise.DiscreteGaussianFor). Two adjacent vectors whose difference has ℓ₂
// norm ≤ Δ round to grid points whose difference has ℓ₂ norm ≤ Δ + √m·g
// (each coordinate moves by < g more), so for m = coords > 1 the mechanism
// is calibrated to Δ′ = Δ + √m·g with the grid g fixed first from (Δ, σ(Δ));
// DiscreteGaussianFor then checks the discrete profile at the integer shift
// ⌊Δ′/g⌋ + 1 ≥ Δ/g + √m. (The scalar calibration alone allows one grid step,
// which covers m = 1 only.) The Gaussian is calibrated to δ·vectorDGHeadroom
// for the product discrete law, and the guarantee states δ.
func newVectorNoise(ctx context.Context, kind NoiseKind, k, coords int, sens2, eps, delta float64) (*vectorNoise, error) {
	v := &vectorNoise{kind: kind, k: k, eps: eps, delta: delta}
	var m *noise.Mechanism
	var err error
	switch kind {
	case Laplace:
		v.sens, v.norm, v.delta = math.Sqrt(float64(k))*sens2, 1, 0
		m, err = query.Calibrate(ctx, Laplace, noise.Params{Epsilon: eps, Sensitivity: v.sens})
		v.detail = fmt.Sprintf("Laplace per weight, ℓ1 sensitivity √%d·Δ₂ = %.4g", k, v.sens)
	case Gaussian, AnalyticGaussian:
		v.sens, v.norm = sens2, 2
		mk := func(p noise.Params) (*noise.Mechanism, error) { return query.Calibrate(ctx, kind, p) }
		v.detail = "analytic Gaussian, ℓ2 sensitivity"
		if kind == Gaussian {
			v.detail = "classical Gaussian, ℓ2 sensitivity"
		}
		m, err = mk(noise.Params{Epsilon: eps, Delta: delta, Sensitivity: sens2})
		if err == nil && coords > 1 {
			var dg *noise.DiscreteGaussianRelease
			dg, err = noise.DiscreteGaussianFor(m.Dist.(*noise.Gaussian).Sigma, m.Params, 0)
			if err == nil {
				g := dg.Granularity
				cal := sens2 + math.Sqrt(float64(coords))*g
				m, err = mk(noise.Params{Epsilon: eps, Delta: vectorDGHeadroom * delta, Sensitivity: cal})
				v.opts.Granularity = g
				v.detail += fmt.Sprintf(" calibrated to Δ + √%d·g = %.6g at δ·(1 − 2⁻⁵) (grid g = %g: coordinate-wise rounding; headroom for the product discrete law)", coords, cal, g)
			}
		}
	case Optimal:
		v.sens, v.norm = sens2, math.Inf(1)
		m, err = query.Calibrate(ctx, Optimal, noise.Params{Epsilon: eps / float64(k), Delta: delta / float64(k), Sensitivity: sens2})
		v.detail = fmt.Sprintf("optimal (ℓ2-loss, query.Calibrate) noise per weight at (ε/%d, δ/%d), Δ∞ ≤ Δ₂; basic composition over %d weights", k, k, k)
	default:
		return nil, invalidf("noise is %q, must be laplace, gaussian, analytic-gaussian or optimal", kind)
	}
	if err != nil {
		return nil, fmt.Errorf("learn: %s noise: %w", kind, err)
	}
	v.mech, v.dist = m, m.Dist
	if kind != Laplace {
		v.delta = m.Params.Delta
		if kind == Optimal || v.opts.Granularity > 0 {
			v.delta = delta // the vector guarantee (headroom: see vectorDGHeadroom)
		}
	}
	v.calSens = m.Params.Sensitivity
	if err := v.describeRelease(); err != nil {
		return nil, err
	}
	return v, nil
}

// describeRelease sets grid and releasedStd from the mechanism's safe
// release: the discrete Gaussian's g and g·√s, Laplace snapping's Λ (the
// released noise is within Λ/2 of the Laplace draw; its std is reported as
// the Laplace std), the piecewise-constant sampler's grid.
func (v *vectorNoise) describeRelease() error {
	v.releasedStd = noise.Std(v.dist)
	rg, err := v.mech.ReleaseGrid(v.opts)
	if errors.Is(err, noise.ErrUnsafeRelease) {
		v.rmsBound = v.releasedStd
		return nil
	}
	if err != nil {
		return fmt.Errorf("learn: %s release grid: %w", v.kind, err)
	}
	v.grid, v.rmsBound = rg.Step, rg.RMS
	if _, ok := v.dist.(*noise.Gaussian); ok {
		// The discrete Gaussian's own standard deviation g·√s (ReleaseGrid's
		// RMS adds the rounding g/2).
		v.releasedStd = rg.RMS - rg.Step/2
	}
	return nil
}

// rms bounds the root mean square of the released noise per coordinate
// (noise.Mechanism.ReleaseGrid: the released law's std plus the rounding).
func (v *vectorNoise) rms() float64 { return v.rmsBound }

// laplaceNoise calibrates i.i.d. Laplace noise of scale sens1/ε for a
// vector of ℓ₁ sensitivity sens1.
func laplaceNoise(sens1, eps float64, detail string) (*vectorNoise, error) {
	m, err := noise.LaplaceMechanism(noise.Params{Epsilon: eps, Sensitivity: sens1})
	if err != nil {
		return nil, fmt.Errorf("learn: laplace noise: %w", err)
	}
	v := &vectorNoise{kind: Laplace, mech: m, dist: m.Dist, k: 1, sens: sens1, calSens: sens1, norm: 1, eps: eps, detail: detail}
	return v, v.describeRelease()
}

// release returns value + ζ by the mechanism's floating-point-safe
// procedure (noise.Mechanism.Release: Laplace snapping, discrete Gaussian,
// the exact piecewise-constant sampler; Mironov 2012), so the low-order bits
// of a published weight reveal nothing beyond the guarantee.
func (v *vectorNoise) release(value float64, src noise.Source) (float64, error) {
	x, err := v.mech.Release(value, src, v.opts)
	if errors.Is(err, noise.ErrUnsafeRelease) {
		return 0, fmt.Errorf("learn: %s release: %w", v.kind, err)
	}
	if err != nil {
		// The noise package names the value; a release error must not.
		return 0, fmt.Errorf("learn: %s release: the statistic is outside the exact range of the output grid %g (|value/grid| ≥ 2⁵²)", v.kind, v.grid)
	}
	return x, nil
}

// add returns the release of w + ζ, coordinate by coordinate.
func (v *vectorNoise) add(w []float64, src noise.Source) ([]float64, error) {
	out := make([]float64, len(w))
	for j := range w {
		x, err := v.release(w[j], src)
		if err != nil {
			return nil, err
		}
		out[j] = x
	}
	return out, nil
}

// snapExcess is the ε that Laplace snapping adds over rows released
// coordinates (noise.SnappingExcess; 0 for the other kinds).
func (v *vectorNoise) snapExcess(rows int) float64 {
	if lap, ok := v.dist.(*noise.Laplace); ok {
		return noise.SnappingExcess(lap.Scale, 0, v.mech.Params.Sensitivity, rows)
	}
	return 0
}

// floatSafe records on g that the release is floating-point safe, adding
// the snapping term of rows Laplace coordinates to ε.
func (g *Guarantee) floatSafe(vns []*vectorNoise, rows []int) {
	g.FloatingPointSafe = true
	for i, v := range vns {
		g.Epsilon += v.snapExcess(rows[i])
	}
}

// std is the per-coordinate standard deviation.
func (v *vectorNoise) std() float64 { return noise.Std(v.dist) }
