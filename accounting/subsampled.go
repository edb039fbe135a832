package accounting

import (
	"fmt"
	"math"
)

// Neighbour names the direction of the add/remove-one adjacency for which a
// subsampled mechanism's PLD is computed. Under Poisson subsampling the two
// directions have different privacy-loss laws, and a composition of k steps
// must be accounted in both (the same direction for all steps: the
// neighbouring datasets are fixed for the whole run) and the worse kept.
type Neighbour int

const (
	// Remove: the compared dataset lacks one record: P = (1 − q)N(0, σ²) +
	// qN(Δ, σ²), Q = N(0, σ²).
	Remove Neighbour = iota
	// Add: the compared dataset has one more record: P = N(0, σ²),
	// Q = (1 − q)N(0, σ²) + qN(Δ, σ²).
	Add
)

// SubsampledGaussianPLD returns the PLD, rounded up to the grid step, of one
// step of the Poisson-subsampled Gaussian mechanism — each record enters the
// batch independently with probability q, the batch's sum of contributions
// of norm ≤ Δ (per-example clipping) gets N(0, σ²·I) noise — for the
// add/remove-one adjacency in direction dir. The pair (P, Q) above dominates
// the step in that direction for every dimension and every adaptively chosen
// step (Zhu, Dong and Wang, "Optimal accounting of differential privacy via
// characteristic function", AISTATS 2022, Prop. 30 and Thm 10; Koskela,
// Jälkö and Honkela, AISTATS 2020, Sec. 6). The loss
//
//	Remove: L(x) = ln(1 − q + q·e^{(2xΔ − Δ²)/(2σ²)}),   x ~ P,
//	Add:    L(x) = −ln(1 − q + q·e^{(2xΔ − Δ²)/(2σ²)}),  x ~ N(0, σ²),
//
// is monotone in x, so Pr[L ≤ t] is a Gaussian (mixture) CDF at the inverse
// x(t) = (σ²/Δ)·ln((e^{±t} − 1 + q)/q) + Δ/2, and the law is discretized by
// fromCDF like GaussianPLD (the P-mass beyond 8.3σ of the centres, < 10⁻¹⁶,
// is moved up: to +∞ for Remove, to the lowest bin for Add). q = 1 is the plain
// Gaussian mechanism (both directions equal GaussianPLD's law).
func SubsampledGaussianPLD(sigma, q, sensitivity, step float64, dir Neighbour) (*PLD, error) {
	if err := checkStep(step); err != nil {
		return nil, err
	}
	if !(sigma > 0) || !(sensitivity > 0) || math.IsInf(sigma, 0) || math.IsInf(sensitivity, 0) {
		return nil, fmt.Errorf("%w: subsampled Gaussian sigma %v and sensitivity %v must be > 0 and finite", ErrInvalid, sigma, sensitivity)
	}
	if !(q > 0 && q <= 1) {
		return nil, fmt.Errorf("%w: sampling rate q is %v, must be in (0, 1]", ErrInvalid, q)
	}
	if dir != Remove && dir != Add {
		return nil, fmt.Errorf("%w: neighbour direction %d", ErrInvalid, dir)
	}
	D, s := sensitivity, sigma
	phi := func(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }
	// lossAt(x) = ln(1 − q + q e^{(2xΔ − Δ²)/(2σ²)}), written stably.
	lossAt := func(x float64) float64 {
		a := (2*x*D - D*D) / (2 * s * s)
		if q == 1 {
			return a
		}
		// ln(1 − q + q e^a) = ln(1 − q) + log1p(q e^a/(1 − q)) or a + ln q + log1p((1 − q)e^{−a}/q)
		if a < 0 {
			return math.Log1p(-q) + math.Log1p(q*math.Exp(a)/(1-q))
		}
		return a + math.Log(q) + math.Log1p((1-q)*math.Exp(-a)/q)
	}
	// xOf(t) is the x with lossAt(x) = t, for t > ln(1 − q).
	xOf := func(t float64) float64 {
		var a float64
		if q == 1 {
			a = t
		} else {
			// e^a = (e^t − (1 − q))/q
			a = math.Log(-math.Expm1(math.Log1p(-q)-t)) + t - math.Log(q)
		}
		return s*s*a/D + D/2
	}
	lmin := math.Inf(-1)
	if q < 1 {
		lmin = math.Log1p(-q)
	}
	// P-tails beyond 8.3σ of a centre are < 10⁻¹⁶: their mass is moved to +∞
	// (Remove) or to the lowest bin (Add), both pessimistic.
	xlo, xhi := -8.3*s, D+8.3*s
	switch dir {
	case Remove:
		cdf := func(t float64) float64 {
			if math.IsInf(t, 1) {
				return 1
			}
			if t <= lmin {
				return 0
			}
			x := xOf(t)
			return (1-q)*phi(x/s) + q*phi((x-D)/s)
		}
		lo := math.Max(lossAt(xlo), lmin)
		if q < 1 {
			lo = lmin
		}
		return fromCDF(step, lo, lossAt(xhi), cdf, 0), nil
	default:
		// L = −lossAt(x), x ~ N(0, σ²): Pr[L ≤ t] = Pr[lossAt(X) ≥ −t] = 1 − Φ(x(−t)/σ).
		cdf := func(t float64) float64 {
			if math.IsInf(t, 1) {
				return 1
			}
			if -t <= lmin {
				return 1
			}
			return phi(-xOf(-t) / s)
		}
		hi := -lossAt(xlo)
		if q < 1 {
			hi = -lmin
		}
		return fromCDF(step, -lossAt(8.3*s), hi, cdf, 0), nil
	}
}

// SubsampledGaussianOptions tune the accountant functions below.
type SubsampledGaussianOptions struct {
	// Step is the PLD grid h (0: 10⁻⁴). The reported ε exceeds the exact one
	// by at most k·h (each of the k losses is rounded up by less than h).
	Step float64
}

func (o SubsampledGaussianOptions) step() float64 {
	if o.Step == 0 {
		return 1e-4
	}
	return o.Step
}

// subsampledComposed returns the k-fold compositions in both directions.
func subsampledComposed(sigma, q, sensitivity float64, k int, o SubsampledGaussianOptions) (rem, add *PLD, err error) {
	if k < 1 {
		return nil, nil, fmt.Errorf("%w: k is %d, must be ≥ 1", ErrInvalid, k)
	}
	r, err := SubsampledGaussianPLD(sigma, q, sensitivity, o.step(), Remove)
	if err != nil {
		return nil, nil, err
	}
	a, err := SubsampledGaussianPLD(sigma, q, sensitivity, o.step(), Add)
	if err != nil {
		return nil, nil, err
	}
	if n := float64(len(r.Mass)+len(a.Mass)) * float64(k); n > 1<<26 {
		return nil, nil, fmt.Errorf("%w: σ = %g at step %g gives %d-bin losses; %d compositions exceed 2²⁶ bins (σ too small or step too fine)", ErrInvalid, sigma, o.step(), len(r.Mass), k)
	}
	if rem, err = r.ComposeK(k); err != nil {
		return nil, nil, err
	}
	if add, err = a.ComposeK(k); err != nil {
		return nil, nil, err
	}
	return rem, add, nil
}

// SubsampledGaussianEpsilon returns an upper bound on the ε at which k
// adaptively composed steps of the Poisson-subsampled Gaussian mechanism
// (noise σ, sampling rate q, per-step sensitivity Δ under add/remove-one
// adjacency: DP-SGD with clipping norm Δ) are (ε, delta)-DP: the larger of
// the two directions' composed PLD ε (SubsampledGaussianPLD, ComposeK,
// PLD.Epsilon). It exceeds the exact ε by at most k·Step.
func SubsampledGaussianEpsilon(sigma, q, sensitivity float64, k int, delta float64, o SubsampledGaussianOptions) (float64, error) {
	if !(delta > 0 && delta < 1) {
		return 0, fmt.Errorf("%w: delta is %v, must be in (0, 1)", ErrInvalid, delta)
	}
	rem, add, err := subsampledComposed(sigma, q, sensitivity, k, o)
	if err != nil {
		return 0, err
	}
	return math.Max(rem.Epsilon(delta), add.Epsilon(delta)), nil
}

// SubsampledGaussianDelta returns an upper bound on the δ at which the same
// k-step composition is (eps, δ)-DP (the larger of the two directions).
func SubsampledGaussianDelta(sigma, q, sensitivity float64, k int, eps float64, o SubsampledGaussianOptions) (float64, error) {
	if !(eps >= 0) || math.IsInf(eps, 0) {
		return 0, fmt.Errorf("%w: epsilon is %v, must be ≥ 0 and finite", ErrInvalid, eps)
	}
	rem, add, err := subsampledComposed(sigma, q, sensitivity, k, o)
	if err != nil {
		return 0, err
	}
	return math.Max(rem.Delta(eps), add.Delta(eps)), nil
}

// SubsampledGaussianSigma returns the smallest noise σ (relative precision
// 10⁻³, rounded up: the returned σ always meets the target) for which k
// steps of the Poisson-subsampled Gaussian mechanism with rate q and
// sensitivity Δ are (eps, delta)-DP by SubsampledGaussianEpsilon, found by
// bisection on σ (the composed ε decreases in σ). The bracket is found by
// doubling from 2Δ·√k·q/eps and halving below the first σ that meets the
// target.
func SubsampledGaussianSigma(eps, delta, q, sensitivity float64, k int, o SubsampledGaussianOptions) (float64, error) {
	if !(eps > 0) || math.IsInf(eps, 0) {
		return 0, fmt.Errorf("%w: epsilon is %v, must be > 0 and finite", ErrInvalid, eps)
	}
	ok := func(s float64) (bool, error) {
		e, err := SubsampledGaussianEpsilon(s, q, sensitivity, k, delta, o)
		return e <= eps, err
	}
	hi := 2 * sensitivity * math.Sqrt(float64(k)) * q / eps
	for i := 0; ; i++ {
		good, err := ok(hi)
		if err != nil {
			return 0, err
		}
		if good {
			break
		}
		if i > 40 {
			return 0, fmt.Errorf("%w: no σ ≤ %g reaches (ε, δ) = (%g, %g) in %d steps at q = %g", ErrInvalid, hi, eps, delta, k, q)
		}
		hi *= 2
	}
	lo := hi / 2
	for i := 0; ; i++ {
		good, err := ok(lo)
		if err != nil || !good { // an over-long PLD means σ is far too small
			break
		}
		if i > 60 {
			return lo, nil
		}
		hi, lo = lo, lo/2
	}
	for hi-lo > 1e-3*hi {
		mid := 0.5 * (lo + hi)
		good, err := ok(mid)
		if err != nil {
			good = false // too long a PLD: σ too small
		}
		if good {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, nil
}
