package noise

import (
	"fmt"
	"math"
)

// ReleaseSupport returns bounds [lo, hi] on the noise that Release actually
// adds, Release(v) − v, for every finite v: the safe releases round to a grid
// g, so their noise is not exactly the distribution's. A robust (probability
// one) reformulation over the noise's support must use these bounds:
//
//   - piecewise-constant noise on [a, b]: the output is ⌊(v + X)/g⌋·g, so the
//     noise lies in [a − g, b] (g: opt.Granularity or DefaultGranularity);
//   - truncated Laplace: (round(v/g) + Y)·g with |Y| ≤ M, so |noise| ≤ M·g + g/2
//     (DiscreteTruncatedLaplaceFor); M·g exceeds the continuous bound A by
//     about A·g/Δ;
//   - Laplace, Gaussian, staircase, quasi- and multi-Gaussian noise are
//     unbounded (±Inf).
//
// It returns ErrUnsafeRelease for distributions Release does not handle.
func (m *Mechanism) ReleaseSupport(opt ReleaseOptions) (lo, hi float64, err error) {
	switch d := m.Dist.(type) {
	case *PiecewiseConstant:
		g := opt.Granularity
		if g == 0 {
			g = d.DefaultGranularity()
		}
		a, b := d.Support()
		return a - g, b, nil
	case *TruncatedLaplace:
		c, err := DiscreteTruncatedLaplaceFor(m.Params, opt.Granularity)
		if err != nil {
			return 0, 0, err
		}
		r := float64(c.Bound)*c.Granularity + c.Granularity/2
		return -r, r, nil
	case *Laplace, *Gaussian, *Staircase, *QuasiGaussian, *MultiGaussian:
		return math.Inf(-1), math.Inf(1), nil
	}
	return 0, 0, fmt.Errorf("%w: %s", ErrUnsafeRelease, m.Name)
}
