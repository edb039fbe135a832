package noise

import (
	"fmt"
	"math"
	"sort"
)

var _ Distribution = (*MultiGaussian)(nil)

// MultiGaussian is the multi-Gaussian mixture of Liu & Selvi ("Mixtures of
// Gaussians in approximate differential privacy", Definition 3): 2K + 1
// Gaussians of common scale σ centred at kΔ, k = −K..K, with weights
// proportional to e^{−|k|ε},
//
//	f(x) = (1/c_K) Σ_{k=−K..K} e^{−|k|ε} exp(−(x − kΔ)²/(2σ²)),
//	c_K = √(2π)σ Σ_{k=−K..K} e^{−|k|ε}.
//
// K = 0 is N(0, σ²). Moments (their Appendix 2.B.2), with w_k = e^{−|k|ε}/Σ_j e^{−|j|ε}:
//
//	E|X| = Σ_k w_k (σ√(2/π) e^{−k²Δ²/(2σ²)} + |k|Δ(1 − 2Φ(−|k|Δ/σ))),
//	E X² = Σ_k w_k (σ² + k²Δ²).
type MultiGaussian struct {
	Epsilon, Sensitivity, Sigma float64
	K                           int
}

// MaxMultiGaussianEpsilon is the largest ε MultiGaussianMechanism calibrates:
// beyond it e^ε exceeds 4.8·10⁸ and the hockey-stick integrals of the tuning
// lose the digits that δ needs.
const MaxMultiGaussianEpsilon = 20

// MaxMultiGaussianK is the largest modality K accepted (the paper's grid is
// K ∈ 1..10; larger K only adds components of weight below e^{−Kε}).
const MaxMultiGaussianK = 64

// DefaultMultiGaussianEta is the paper's discretization parameter η = 0.01
// (Section 2.4.2): the tuning meets (1 − η)δ and the certificate uses the
// remaining ηδ for the shifts between evaluated ones.
const DefaultMultiGaussianEta = 0.01

// NewMultiGaussian returns the multi-Gaussian mixture with ε, Δ, σ > 0 and
// modality 0 ≤ K ≤ MaxMultiGaussianK.
func NewMultiGaussian(epsilon, sensitivity, sigma float64, k int) (*MultiGaussian, error) {
	if err := (Params{Epsilon: epsilon, Sensitivity: sensitivity}).Validate(); err != nil {
		return nil, err
	}
	if !(sigma > 0) || math.IsInf(sigma, 0) {
		return nil, paramErr("Sigma", sigma, "must be > 0 and finite")
	}
	if k < 0 || k > MaxMultiGaussianK {
		return nil, paramErr("K", k, fmt.Sprintf("must be in 0..%d", MaxMultiGaussianK))
	}
	return &MultiGaussian{Epsilon: epsilon, Sensitivity: sensitivity, Sigma: sigma, K: k}, nil
}

// norm returns Σ_{k=−K..K} e^{−|k|ε}.
func (d *MultiGaussian) norm() float64 {
	z := 1.0
	for k := 1; k <= d.K; k++ {
		z += 2 * math.Exp(-float64(k)*d.Epsilon)
	}
	return z
}

// weight returns w_k = e^{−|k|ε}/Σ_j e^{−|j|ε}.
func (d *MultiGaussian) weight(k int, z float64) float64 {
	if k < 0 {
		k = -k
	}
	return math.Exp(-float64(k)*d.Epsilon) / z
}

// PDF returns the mixture density.
func (d *MultiGaussian) PDF(x float64) float64 {
	z := d.norm()
	s := 0.0
	for k := -d.K; k <= d.K; k++ {
		u := (x - float64(k)*d.Sensitivity) / d.Sigma
		s += d.weight(k, z) * math.Exp(-u*u/2)
	}
	return s / (math.Sqrt(2*math.Pi) * d.Sigma)
}

// CDF returns Σ_k w_k Φ((x − kΔ)/σ) (their Appendix 2.B.1).
func (d *MultiGaussian) CDF(x float64) float64 {
	z := d.norm()
	s := 0.0
	for k := -d.K; k <= d.K; k++ {
		s += d.weight(k, z) * stdNormalCDF((x-float64(k)*d.Sensitivity)/d.Sigma)
	}
	return math.Min(1, s)
}

// Quantile inverts CDF by bisection (to 1e-13 relative).
func (d *MultiGaussian) Quantile(p float64) float64 {
	if p <= 0 {
		return math.Inf(-1)
	}
	if p >= 1 {
		return math.Inf(1)
	}
	return bisectQuantile(d.CDF, p, float64(d.K)*d.Sensitivity+d.Sigma)
}

// Mean returns 0.
func (d *MultiGaussian) Mean() float64 { return 0 }

// MeanAbs returns the closed-form noise amplitude E|X| (Appendix 2.B.2).
func (d *MultiGaussian) MeanAbs() float64 {
	z := d.norm()
	s, D := d.Sigma, d.Sensitivity
	sum := 0.0
	for k := -d.K; k <= d.K; k++ {
		m := math.Abs(float64(k)) * D
		sum += d.weight(k, z) * (s*math.Sqrt(2/math.Pi)*math.Exp(-m*m/(2*s*s)) + m*(1-2*stdNormalCDF(-m/s)))
	}
	return sum
}

// Variance returns the closed-form noise power E X² = Σ_k w_k(σ² + k²Δ²).
func (d *MultiGaussian) Variance() float64 {
	z := d.norm()
	sum := 0.0
	for k := -d.K; k <= d.K; k++ {
		m := float64(k) * d.Sensitivity
		sum += d.weight(k, z) * (d.Sigma*d.Sigma + m*m)
	}
	return sum
}

// Support returns (−Inf, +Inf).
func (d *MultiGaussian) Support() (lo, hi float64) { return math.Inf(-1), math.Inf(1) }

// Sample draws the component k with probability w_k (inverse transform of a
// full-precision uniform over the cumulative weights) and returns
// kΔ + σΦ⁻¹(U) as in their Appendix 2.B.1. It is not floating-point safe:
// use Mechanism.Release (an exact discrete multi-Gaussian) for releases.
func (d *MultiGaussian) Sample(src Source) float64 {
	src = orCrypto(src)
	z := d.norm()
	u := uniform01(src)
	k := 0
	acc := d.weight(0, z)
	for j := 1; j <= d.K && u >= acc; j++ {
		acc += 2 * d.weight(j, z)
		k = j
	}
	if k > 0 && randBit(src) {
		k = -k
	}
	g := d.Sigma * stdNormalQuantile(0.5*uniform01(src))
	if randBit(src) {
		g = -g
	}
	return float64(k)*d.Sensitivity + g
}

// MultiGaussianOptions configure MultiGaussianMechanism.
type MultiGaussianOptions struct {
	// K is the modality (number of side components per side), 1 ≤ K ≤
	// MaxMultiGaussianK; 0 selects the K in 1..10 with the smallest
	// expected Loss (the paper's Table 8 and 11 rule).
	K int
	// Eta is the discretization parameter η ∈ (0, 1) of Theorem 5; 0 means
	// DefaultMultiGaussianEta.
	Eta float64
	// Loss picks K when K = 0: L1 (default, E|X|) or L2 (E X²).
	Loss Loss
}

// MultiGaussianMechanism returns the multi-Gaussian mechanism of Liu & Selvi
// (Theorem 5, Algorithms 6–7) for δ ∈ (0, 1) and ε ≤ MaxMultiGaussianEpsilon:
// σ is the smallest value (relative precision 10⁻¹⁰, rounded up) with
//
//	max_{0 ≤ φ ≤ Δ} H_σ(φ) ≤ (1 − η)δ,   H_σ(φ) = ∫(f(x) − e^ε f(x − φ))⁺dx,
//
// found by bracketed root finding between the analytic Gaussian σ at
// (ε, (1 − η)δ) (Lemma 23) and below. H is computed in closed form from the
// sign changes of f − e^ε f(· − φ) (Gaussian CDF differences, no quadrature)
// and its maximum over φ by a 24-point scan refined by golden section; this
// is stronger than the paper's condition (29) on the grid {0, β, …, Δ}, so σ
// is at least the paper's. The result is then proven (ε, δ)-DP by
// CertifyMultiGaussian (rigorous interval bounds, every shift in [−Δ, Δ]); if
// the certificate fails, σ grows by 0.1% until it passes (at most 50 times).
func MultiGaussianMechanism(p Params, opt MultiGaussianOptions) (*Mechanism, error) {
	if err := p.needDelta(0, 1, "must be in (0, 1)"); err != nil {
		return nil, err
	}
	if p.Epsilon > MaxMultiGaussianEpsilon {
		return nil, paramErr("Epsilon", p.Epsilon, fmt.Sprintf("must be ≤ %d for the multi-Gaussian mechanism", MaxMultiGaussianEpsilon))
	}
	eta := opt.Eta
	if eta == 0 {
		eta = DefaultMultiGaussianEta
	}
	if !(eta > 0 && eta < 1) {
		return nil, paramErr("Eta", opt.Eta, "must be in (0, 1)")
	}
	if opt.K < 0 || opt.K > MaxMultiGaussianK {
		return nil, paramErr("K", opt.K, fmt.Sprintf("must be in 1..%d (0: best of 1..10)", MaxMultiGaussianK))
	}
	loss := opt.Loss
	if loss.Name == "" {
		loss = L1()
	}
	if loss.Name != "l1" && loss.Name != "l2" {
		return nil, paramErr("Loss", loss.Name, "must be l1 or l2 to choose K")
	}
	ks := []int{opt.K}
	if opt.K == 0 {
		ks = []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	}
	var best *MultiGaussian
	bestLoss := math.Inf(1)
	for _, k := range ks {
		s, err := MultiGaussianSigma(p, k, eta)
		if err != nil {
			return nil, err
		}
		d := &MultiGaussian{Epsilon: p.Epsilon, Sensitivity: p.Sensitivity, Sigma: s, K: k}
		l := d.MeanAbs()
		if loss.Name == "l2" {
			l = d.Variance()
		}
		if l < bestLoss {
			best, bestLoss = d, l
		}
	}
	for i := 0; ; i++ {
		cert, err := CertifyMultiGaussian(best, p)
		if err != nil {
			return nil, err
		}
		if cert.Certified {
			break
		}
		if i == 50 {
			return nil, fmt.Errorf("%w: multi-Gaussian K = %d, σ = %g: privacy profile bound exceeds δ = %g by %.3g", ErrNotCertified, best.K, best.Sigma, p.Delta, cert.MaxShortfall)
		}
		best.Sigma *= 1.001
	}
	return representable(&Mechanism{Name: "multi-gaussian", Params: p, Dist: best})
}

// MultiGaussianSigma returns Algorithm 6's σ for modality k ≥ 1 and η ∈ (0,
// 1): the smallest σ (relative precision 10⁻¹⁰, rounded up) whose largest
// hockey-stick divergence over shifts φ ∈ [0, Δ] is at most (1 − η)δ (see
// MultiGaussianMechanism). It is not certified; MultiGaussianMechanism
// certifies the σ it uses.
func MultiGaussianSigma(p Params, k int, eta float64) (float64, error) {
	if err := p.needDelta(0, 1, "must be in (0, 1)"); err != nil {
		return 0, err
	}
	if p.Epsilon > MaxMultiGaussianEpsilon {
		return 0, paramErr("Epsilon", p.Epsilon, fmt.Sprintf("must be ≤ %d for the multi-Gaussian mechanism", MaxMultiGaussianEpsilon))
	}
	if k < 1 || k > MaxMultiGaussianK {
		return 0, paramErr("K", k, fmt.Sprintf("must be in 1..%d", MaxMultiGaussianK))
	}
	if !(eta > 0 && eta < 1) {
		return 0, paramErr("Eta", eta, "must be in (0, 1)")
	}
	target := (1 - eta) * p.Delta
	ag, err := AnalyticGaussianMechanism(Params{Epsilon: p.Epsilon, Delta: target, Sensitivity: p.Sensitivity})
	if err != nil {
		return 0, err
	}
	d := &MultiGaussian{Epsilon: p.Epsilon, Sensitivity: p.Sensitivity, K: k}
	psi := func(s float64) float64 {
		d.Sigma = s
		h, _ := d.maxHockeyStick(p.Epsilon)
		return h - target
	}
	hi := ag.Dist.(*Gaussian).Sigma
	fhi := psi(hi)
	for i := 0; fhi > 0; i++ { // Lemma 23 says this cannot happen; guard against rounding
		if i > 60 {
			return 0, fmt.Errorf("noise: multi-Gaussian tuning found no σ ≤ %g meeting δ = %g", hi, p.Delta)
		}
		hi *= 1.01
		fhi = psi(hi)
	}
	lo := hi / 2
	flo := psi(lo)
	for i := 0; flo <= 0; i++ {
		if i > 1100 || lo == 0 {
			return 0, paramErr("Epsilon", p.Epsilon, fmt.Sprintf("with δ = %g gives a multi-Gaussian σ below the floating-point range", p.Delta))
		}
		hi, fhi = lo, flo
		lo /= 2
		flo = psi(lo)
	}
	// Illinois regula falsi on ln σ, keeping the bracket (ψ(lo) > 0 ≥ ψ(hi)).
	a, b := math.Log(lo), math.Log(hi)
	fa, fb := flo, fhi
	side := 0
	for i := 0; i < 200 && b-a > 1e-10; i++ {
		c := b - fb*(b-a)/(fb-fa)
		if !(c > a && c < b) || i%8 == 7 {
			c = 0.5 * (a + b)
		}
		fc := psi(math.Exp(c))
		if fc <= 0 {
			b, fb = c, fc
			if side == -1 {
				fa /= 2
			}
			side = -1
		} else {
			a, fa = c, fc
			if side == 1 {
				fb /= 2
			}
			side = 1
		}
	}
	s := math.Exp(b)
	for psi(s) > 0 { // exp rounding: step up to the satisfied side
		s = math.Nextafter(s, math.Inf(1)) * (1 + 1e-12)
	}
	return s, nil
}

// MaxHockeyStick returns max_{0 ≤ φ ≤ Δ} H(φ) at eps (the privacy profile of
// the mechanism at eps, in float64: a 24-point scan of the shifts refined by
// golden section; CertifyMultiGaussian bounds it rigorously).
func (d *MultiGaussian) MaxHockeyStick(eps float64) float64 {
	h, _ := d.maxHockeyStick(eps)
	return h
}

// maxHockeyStick returns max_{0 ≤ φ ≤ Δ} H(φ) at the guarantee's eps and a
// maximizer: a 24-point scan of (0, Δ] refined by golden section around the
// best scan point (H(0) = 0 for eps ≥ 0).
func (d *MultiGaussian) maxHockeyStick(eps float64) (float64, float64) {
	const n = 24
	D := d.Sensitivity
	vals := make([]float64, n+1)
	best := 0
	for i := 1; i <= n; i++ {
		vals[i] = d.HockeyStick(eps, D*float64(i)/n)
		if vals[i] > vals[best] {
			best = i
		}
	}
	if best == 0 {
		return 0, 0
	}
	a := D * float64(best-1) / n
	b := math.Min(D, D*float64(best+1)/n)
	hmax, arg := vals[best], D*float64(best)/n
	const r = 0.6180339887498949
	c, e := b-r*(b-a), a+r*(b-a)
	fc, fe := d.HockeyStick(eps, c), d.HockeyStick(eps, e)
	for k := 0; k < 30; k++ {
		if fc > fe {
			b, e, fe = e, c, fc
			c = b - r*(b-a)
			fc = d.HockeyStick(eps, c)
		} else {
			a, c, fc = c, e, fe
			e = a + r*(b-a)
			fe = d.HockeyStick(eps, e)
		}
	}
	for _, v := range [][2]float64{{fc, c}, {fe, e}} {
		if v[0] > hmax {
			hmax, arg = v[0], v[1]
		}
	}
	return hmax, arg
}

// gaussTerm is c·exp(−(x − mu)²/(2σ²)) with c = ±exp(logc).
type gaussTerm struct {
	mu, logc float64
	neg      bool
}

// diffTerms returns the terms of (Σ_j e^{−|j|ε})·√(2π)σ·(f(x) − e^eps·f(x − φ)),
// the f component j (mean jΔ) merged with the shifted component j − 1 when
// φ = Δ (same mean; the coefficient e^{−|j|ε} − e^{eps−|j−1|ε} is exactly 0
// for j ≤ 0 when eps = ε).
func (d *MultiGaussian) diffTerms(eps, phi float64) []gaussTerm {
	K, D, e := d.K, d.Sensitivity, d.Epsilon
	t := make([]gaussTerm, 0, 4*K+2)
	if phi == D {
		for j := -K; j <= K+1; j++ {
			hasF, hasG := j <= K, j-1 >= -K
			a := -math.Abs(float64(j)) * e      // ln weight of f's component j
			b := eps - math.Abs(float64(j-1))*e // ln weight of e^eps·f(x − Δ) at mean jΔ
			exact := eps == e && -iabs(j) == 1-iabs(j-1)
			mu := float64(j) * D
			switch {
			case hasF && hasG && exact:
			case hasF && hasG && a > b:
				t = append(t, gaussTerm{mu: mu, logc: a + math.Log(-math.Expm1(b-a))})
			case hasF && hasG && a < b:
				t = append(t, gaussTerm{mu: mu, logc: b + math.Log(-math.Expm1(a-b)), neg: true})
			case hasF && hasG:
			case hasF:
				t = append(t, gaussTerm{mu: mu, logc: a})
			default:
				t = append(t, gaussTerm{mu: mu, logc: b, neg: true})
			}
		}
		return t
	}
	for k := -K; k <= K; k++ {
		a := -math.Abs(float64(k)) * e
		t = append(t, gaussTerm{mu: float64(k) * D, logc: a}, gaussTerm{mu: float64(k)*D + phi, logc: eps + a, neg: true})
	}
	sort.Slice(t, func(i, j int) bool { return t[i].mu < t[j].mu })
	return t
}

func iabs(j int) int {
	if j < 0 {
		return -j
	}
	return j
}

// termsAt returns Σ ±exp(logc − (x−μ)²/(2σ²) − m), with m the largest
// exponent at x when useM is false (sign and roots of the sum, no underflow).
func termsAt(t []gaussTerm, sigma, x, m float64, useM bool) (float64, float64) {
	if !useM {
		m = math.Inf(-1)
		for _, g := range t {
			u := (x - g.mu) / sigma
			m = math.Max(m, g.logc-u*u/2)
		}
	}
	s := 0.0
	for _, g := range t {
		u := (x - g.mu) / sigma
		v := math.Exp(g.logc - u*u/2 - m)
		if g.neg {
			v = -v
		}
		s += v
	}
	return s, m
}

// normProb returns P(a < Z < b) for Z ~ N(0, 1) without cancellation in the
// tails (a, b may be ±Inf).
func normProb(a, b float64) float64 {
	if !(b > a) {
		return 0
	}
	switch {
	case a >= 0:
		return 0.5 * (math.Erfc(a/math.Sqrt2) - math.Erfc(b/math.Sqrt2))
	case b <= 0:
		return 0.5 * (math.Erfc(-b/math.Sqrt2) - math.Erfc(-a/math.Sqrt2))
	}
	return 1 - 0.5*math.Erfc(-a/math.Sqrt2) - 0.5*math.Erfc(b/math.Sqrt2)
}

// HockeyStick returns H(φ) = ∫(f(x) − e^eps·f(x − φ))⁺dx, the largest
// P[X ∈ A] − e^eps·P[X + φ ∈ A] over events A (the hockey-stick divergence of
// the mechanism's output pair at shift φ; f + X is (eps, δ)-DP for
// sensitivity Δ iff H ≤ δ on [−Δ, Δ], and H(−φ) = H(φ) by symmetry). The
// sign changes of the difference (at most 4K + 1: a Gaussian-kernel sum with
// 2(2K + 1) coefficients of alternating sign, Descartes' rule for exponential
// sums) are located on a σ/4 scan of [min mean − 12σ, max mean + 12σ] and
// refined by regula falsi; H is then the exact sum of Gaussian CDF
// differences over the positive intervals. This float64 value drives the
// tuning; CertifyMultiGaussian bounds H rigorously.
func (d *MultiGaussian) HockeyStick(eps, phi float64) float64 {
	phi = math.Abs(phi)
	if phi == 0 && eps >= 0 {
		return 0
	}
	t := d.diffTerms(eps, phi)
	if len(t) == 0 {
		return 0
	}
	s := d.Sigma
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, g := range t {
		lo, hi = math.Min(lo, g.mu), math.Max(hi, g.mu)
	}
	lo -= 12 * s
	hi += 12 * s
	step := s / 4
	n := int(math.Ceil((hi - lo) / step))
	sign := func(x float64) float64 { v, _ := termsAt(t, s, x, 0, false); return v }
	var cuts []float64 // sign changes
	xPrev := lo
	vPrev := sign(lo)
	startPos := vPrev > 0
	for i := 1; i <= n; i++ {
		x := lo + float64(i)*step
		v := sign(x)
		if (v > 0) != (vPrev > 0) {
			cuts = append(cuts, refineRoot(t, s, xPrev, x, vPrev > 0))
		}
		xPrev, vPrev = x, v
	}
	// Positive intervals: alternate from startPos.
	z := d.norm()
	total := 0.0
	pos := startPos
	a := math.Inf(-1)
	for i := 0; i <= len(cuts); i++ {
		b := math.Inf(1)
		if i < len(cuts) {
			b = cuts[i]
		}
		if pos {
			for _, g := range t {
				v := math.Exp(g.logc) * normProb((a-g.mu)/s, (b-g.mu)/s)
				if g.neg {
					v = -v
				}
				total += v
			}
		}
		pos = !pos
		a = b
	}
	return math.Max(0, total/z)
}

// refineRoot finds the sign change of the term sum in [a, b] (the sign at a
// is posA) by Illinois regula falsi with a fixed scaling (the exponent at the
// midpoint), to a relative width of 1e-14.
func refineRoot(t []gaussTerm, sigma, a, b float64, posA bool) float64 {
	_, m := termsAt(t, sigma, 0.5*(a+b), 0, false)
	f := func(x float64) float64 { v, _ := termsAt(t, sigma, x, m, true); return v }
	fa, fb := f(a), f(b)
	if (fa > 0) != posA || (fb > 0) == posA { // scaling changed nothing but guard anyway
		for i := 0; i < 60; i++ {
			c := 0.5 * (a + b)
			if sv, _ := termsAt(t, sigma, c, 0, false); (sv > 0) == posA {
				a = c
			} else {
				b = c
			}
		}
		return 0.5 * (a + b)
	}
	side := 0
	for i := 0; i < 100 && b-a > 1e-14*math.Max(1, math.Abs(a)+math.Abs(b)); i++ {
		c := b - fb*(b-a)/(fb-fa)
		if !(c > a && c < b) {
			c = 0.5 * (a + b)
		}
		fc := f(c)
		if fc == 0 {
			return c
		}
		if (fc > 0) == (fa > 0) {
			a, fa = c, fc
			if side == 1 {
				fb /= 2
			}
			side = 1
		} else {
			b, fb = c, fc
			if side == -1 {
				fa /= 2
			}
			side = -1
		}
	}
	return 0.5 * (a + b)
}
