package noise

import (
	"fmt"
	"math"
)

// ReleaseGrid describes what Mechanism.Release outputs, as a function of the
// mechanism and the options only (never of the value released), so that it
// may be published with the release plan.
type ReleaseGrid struct {
	// Step is the grid the outputs lie on: every output of Release is an
	// integer multiple of Step (a power of two).
	Step float64
	// RMS bounds the root mean square of the released noise (output − value)
	// over the draw, for every value: the continuous law's standard deviation
	// plus the rounding to the grid (Minkowski's inequality: ‖X + R‖₂ ≤
	// ‖X‖₂ + ‖R‖₂ with |R| ≤ Step/2 for round-to-nearest and ≤ Step for
	// floors), with the discrete law's own variance where Release draws a
	// discrete law.
	RMS float64
}

// ReleaseGrid returns the output grid and the released-noise RMS bound of
// Release with options opt (see ReleaseGrid). It fails with ErrUnsafeRelease
// for mechanisms without a floating-point-safe release.
func (m *Mechanism) ReleaseGrid(opt ReleaseOptions) (ReleaseGrid, error) {
	switch d := m.Dist.(type) {
	case *Laplace:
		// Snapping: ⌊clamp(v) + Y⌉_Λ with Λ the smallest power of two ≥ λ.
		_, e := math.Frexp(d.Scale)
		L := math.Ldexp(1, e)
		if math.Ldexp(1, e-1) >= d.Scale {
			L = math.Ldexp(1, e-1)
		}
		return ReleaseGrid{Step: L, RMS: Std(d) + L/2}, nil
	case *PiecewiseConstant:
		g := opt.Granularity
		if g == 0 {
			g = d.DefaultGranularity()
		}
		return ReleaseGrid{Step: g, RMS: Std(d) + g}, nil
	case *Gaussian:
		r, err := DiscreteGaussianFor(d.Sigma, m.Params, opt.Granularity)
		if err != nil {
			return ReleaseGrid{}, err
		}
		g := r.Granularity
		return ReleaseGrid{Step: g, RMS: g*math.Sqrt(float64(r.Variance)) + g/2}, nil
	case *TruncatedLaplace:
		r, err := DiscreteTruncatedLaplaceFor(m.Params, opt.Granularity)
		if err != nil {
			return ReleaseGrid{}, err
		}
		// The discrete truncated Laplace is a truncated two-sided geometric
		// law with ratio q = exp(−ε/k); truncation only lowers the second
		// moment below the untruncated 2q/(1 − q)².
		q := math.Exp(-r.Epsilon / float64(r.GridSensitivity))
		g := r.Granularity
		return ReleaseGrid{Step: g, RMS: g*math.Sqrt(2*q)/(1-q) + g/2}, nil
	case *Staircase:
		w := math.Max(d.Gamma, 1-d.Gamma)
		if d.Gamma > 0 && d.Gamma < 1 {
			w = math.Min(d.Gamma, 1-d.Gamma)
		}
		g := opt.Granularity
		if g == 0 {
			g = pow2Floor(w * d.Sensitivity / 16)
		}
		return ReleaseGrid{Step: g, RMS: Std(d) + g}, nil
	case *QuasiGaussian:
		r, err := DiscreteQuasiGaussianFor(d.Sigma, m.Params, opt.Granularity)
		if err != nil {
			return ReleaseGrid{}, err
		}
		g := r.Granularity
		return ReleaseGrid{Step: g, RMS: Std(d)*math.Max(1, r.SigmaFactor) + g/2}, nil
	case *MultiGaussian:
		r, err := DiscreteMultiGaussianFor(d, m.Params, opt.Granularity)
		if err != nil {
			return ReleaseGrid{}, err
		}
		g := r.Granularity
		return ReleaseGrid{Step: g, RMS: Std(d)*math.Max(1, r.SigmaFactor) + g/2}, nil
	}
	return ReleaseGrid{}, fmt.Errorf("%w: %s", ErrUnsafeRelease, m.Name)
}
