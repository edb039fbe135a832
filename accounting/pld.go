package accounting

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/dsp/fourier"
	"gonum.org/v1/gonum/floats"

	"github.com/privopt/privopt/noise"
)

// PLD is a pessimistically discretized privacy-loss distribution (Sommer,
// Meiser and Mohammadi, "Privacy loss classes", PoPETs 2019; Koskela, Jälkö
// and Honkela, "Computing tight differential privacy guarantees using FFT",
// AISTATS 2020). For a pair of output distributions (P, Q) of a mechanism on
// neighbouring inputs, the privacy loss is L = ln(P(x)/Q(x)) with x ~ P, and
//
//	δ(ε) = Pr[L = +∞] + E[(1 − e^{ε−L})⁺]
//
// is the mechanism's exact hockey-stick divergence. A PLD here stores the law
// of L rounded UP to the grid Step·ℤ: Mass[i] is the probability of the loss
// value (Offset + i)·Step, Inf the probability of L = +∞. Because
// (1 − e^{ε−s})⁺ is non-decreasing in s, rounding up (and moving mass to a
// larger value, or to +∞, when truncating) can only increase δ(ε), for one
// mechanism and — since the loss of a composition is the sum of independent
// losses and the sum is monotone in each term — for every composition
// (Koskela et al. 2020, Sec. 5; Zhu, Dong and Wang, "Optimal accounting of
// differential privacy via characteristic function", AISTATS 2022, Thm 10
// for adaptive composition through dominating pairs). Err bounds the L1
// error of the floating-point computation of Mass and Inf (CDF differences
// and FFT convolution); Delta adds it, so Delta is an upper bound on the
// exact δ of the composition up to the accuracy of math.Exp and the FFT
// error model stated at Compose.
//
// Pairs. The PLD is that of the pair (noise, noise + Δ) at the full
// sensitivity Δ. For symmetric log-concave noise (Laplace, Gaussian,
// truncated Laplace) this pair dominates every shift |φ| ≤ Δ and both
// orders of the pair (the likelihood ratio is monotone, so the worst event is
// a half-line whose probability grows with |φ|; symmetry maps (Q, P) to
// (P, Q)). For piecewise-constant noise the caller states the shift; see
// PiecewisePLD.
type PLD struct {
	Step   float64   // grid h > 0
	Offset int       // loss value of Mass[i] is (Offset + i)·Step
	Mass   []float64 // finite part, each ≥ 0
	Inf    float64   // Pr[L = +∞]
	Err    float64   // bound on the L1 floating-point error of Mass and Inf
}

const unitRoundoff = 0x1p-53

func checkStep(step float64) error {
	if !(step > 0) || math.IsInf(step, 0) {
		return fmt.Errorf("%w: step is %v, must be > 0 and finite", ErrInvalid, step)
	}
	return nil
}

// fromCDF discretizes a loss law given by cdf(t) = Pr[L ≤ t, L finite] on
// [lo, hi] (lo, hi finite; the finite mass below lo is moved to lo, above hi
// to +∞), with inf = Pr[L = +∞]. Bin j collects (j−1)h < L ≤ jh.
func fromCDF(step, lo, hi float64, cdf func(float64) float64, inf float64) *PLD {
	jlo := int(math.Floor(lo / step))
	jhi := int(math.Ceil(hi / step))
	p := &PLD{Step: step, Offset: jlo, Mass: make([]float64, jhi-jlo+1)}
	prev := 0.0
	for j := jlo; j <= jhi; j++ {
		c := cdf(float64(j) * step)
		m := c - prev
		if m < 0 {
			m = 0
		}
		p.Mass[j-jlo] = m
		prev = math.Max(prev, c)
	}
	total := cdf(math.Inf(1))
	p.Inf = inf + math.Max(0, total-prev)
	// Each CDF value is within a few ulps (4u) of the exact one; each bin
	// mass is a difference of two of them.
	p.Err = float64(len(p.Mass)+2) * 8 * unitRoundoff
	return p
}

// LaplacePLD returns the PLD of the Laplace mechanism with scale b and
// sensitivity Δ (ℓ = Δ/b): L = ℓ with probability ½, L = −ℓ with probability
// ½e^{−ℓ}, and L = (Δ − 2x)/b for x ∈ (0, Δ) in between, so
//
//	Pr[L ≤ t] = ½·e^{−(ℓ−t)/2}  for −ℓ ≤ t < ℓ,   1 for t ≥ ℓ.
func LaplacePLD(scale, sensitivity, step float64) (*PLD, error) {
	if err := checkStep(step); err != nil {
		return nil, err
	}
	if !(scale > 0) || !(sensitivity > 0) || math.IsInf(scale, 0) || math.IsInf(sensitivity, 0) {
		return nil, fmt.Errorf("%w: Laplace scale %v and sensitivity %v must be > 0 and finite", ErrInvalid, scale, sensitivity)
	}
	l := sensitivity / scale
	l = math.Nextafter(l, math.Inf(1)) // ℓ rounded up
	cdf := func(t float64) float64 {
		switch {
		case t < -l:
			return 0
		case t < l:
			return 0.5 * math.Exp(-(l-t)/2)
		}
		return 1
	}
	return fromCDF(step, -l, l, cdf, 0), nil
}

// GaussianPLD returns the PLD of the Gaussian mechanism N(0, σ²) with
// sensitivity Δ: L ~ N(μ, 2μ), μ = Δ²/(2σ²) (Dong, Roth and Su 2022: μ-GDP
// with μ_GDP = Δ/σ). The law is kept on μ ± 12√(2μ); the mass below goes to
// the lowest value and the mass above (< 2·10⁻³³) to +∞.
func GaussianPLD(sigma, sensitivity, step float64) (*PLD, error) {
	if err := checkStep(step); err != nil {
		return nil, err
	}
	if !(sigma > 0) || !(sensitivity > 0) || math.IsInf(sigma, 0) || math.IsInf(sensitivity, 0) {
		return nil, fmt.Errorf("%w: Gaussian sigma %v and sensitivity %v must be > 0 and finite", ErrInvalid, sigma, sensitivity)
	}
	mu := sensitivity * sensitivity / (2 * sigma * sigma)
	sd := math.Sqrt(2 * mu)
	cdf := func(t float64) float64 {
		if math.IsInf(t, 1) {
			return 1
		}
		return 0.5 * math.Erfc(-(t-mu)/(sd*math.Sqrt2))
	}
	return fromCDF(step, mu-12*sd, mu+12*sd, cdf, 0), nil
}

// TruncatedLaplacePLD returns the PLD of the truncated Laplace mechanism
// (density ∝ e^{−|x|/λ} on [−A, A]; Geng, Ding, Guo and Kumar 2020) for
// sensitivity Δ ≤ A, ℓ = Δ/λ, c·λ = 1/(2(1 − e^{−A/λ})):
//
//	Pr[L = +∞] = cλ(e^{−(A−Δ)/λ} − e^{−A/λ})       (x ∈ [−A, −A+Δ): Q has no mass)
//	Pr[L ≤ t] = cλ(e^{−(Δ−tλ)/(2λ)} − e^{−A/λ})     for −ℓ ≤ t < ℓ,
//	Pr[L ≤ t] = 1 − Pr[L = +∞]                      for t ≥ ℓ.
func TruncatedLaplacePLD(scale, bound, sensitivity, step float64) (*PLD, error) {
	if err := checkStep(step); err != nil {
		return nil, err
	}
	if !(scale > 0) || !(sensitivity > 0) || !(bound >= sensitivity) || math.IsInf(bound, 0) {
		return nil, fmt.Errorf("%w: truncated Laplace scale %v, bound %v, sensitivity %v: need scale, sensitivity > 0 and sensitivity ≤ bound < ∞", ErrInvalid, scale, bound, sensitivity)
	}
	l := math.Nextafter(sensitivity/scale, math.Inf(1))
	cl := 1 / (2 * -math.Expm1(-bound/scale))
	eA := math.Exp(-bound / scale)
	inf := cl * (math.Exp(-(bound-sensitivity)/scale) - eA)
	cdf := func(t float64) float64 {
		switch {
		case t < -l:
			return 0
		case t < l:
			return cl * (math.Exp(-(sensitivity-t*scale)/(2*scale)) - eA)
		}
		return 1 - inf
	}
	return fromCDF(step, -l, l, cdf, inf), nil
}

// PiecewisePLD returns the exact PLD, rounded up to the grid, of
// piecewise-constant noise d for the pair (X, X + shift): on the common
// refinement of the cells of X and X + shift both densities are constant, so L
// takes finitely many values ln(f/g) (or +∞ where g = 0) with masses
// f·(segment length). Each value is rounded up to the grid after adding 8 ulps
// (so that a rounding of the logarithm cannot move it down a bin).
//
// Dominance: the pair at shift = Δ dominates the mechanism only if no
// smaller shift is worse; for the symmetric optimal noise of Optimize the
// caller should check Delta at the mechanism's ε against the certifier's
// maximum over all shifts (noise.Certify), as the tests do, or pass each
// candidate shift and keep the worst. Asymmetric noise needs both orders.
func PiecewisePLD(d *noise.PiecewiseConstant, shift, step float64) (*PLD, error) {
	if err := checkStep(step); err != nil {
		return nil, err
	}
	if !(shift > 0) || math.IsInf(shift, 0) {
		return nil, fmt.Errorf("%w: shift is %v, must be > 0 and finite", ErrInvalid, shift)
	}
	edges, probs := d.Edges(), d.Probs()
	n := len(probs)
	dens := make([]float64, n)
	for j := range probs {
		dens[j] = probs[j] / (edges[j+1] - edges[j])
	}
	densAt := func(x float64) float64 { // density of X at x (cells [e_j, e_{j+1}))
		j := sort.SearchFloat64s(edges, x)
		if j < len(edges) && edges[j] == x {
			j++
		}
		j--
		if j < 0 || j >= n {
			return 0
		}
		return dens[j]
	}
	pts := append([]float64(nil), edges...)
	for _, e := range edges {
		pts = append(pts, e+shift)
	}
	sort.Float64s(pts)
	type atom struct{ l, m float64 }
	var atoms []atom
	inf := 0.0
	lmin, lmax := math.Inf(1), math.Inf(-1)
	for i := 0; i+1 < len(pts); i++ {
		a, b := pts[i], pts[i+1]
		if !(b > a) {
			continue
		}
		mid := a + (b-a)/2
		f := densAt(mid)
		if f == 0 {
			continue
		}
		m := f * (b - a)
		g := densAt(mid - shift)
		if g == 0 {
			inf += m
			continue
		}
		l := math.Log(f / g)
		l += 8 * unitRoundoff * (math.Abs(l) + 1)
		atoms = append(atoms, atom{l, m})
		lmin, lmax = math.Min(lmin, l), math.Max(lmax, l)
	}
	if len(atoms) == 0 {
		return &PLD{Step: step, Mass: []float64{0}, Inf: inf, Err: 4 * unitRoundoff}, nil
	}
	jlo, jhi := int(math.Ceil(lmin/step)), int(math.Ceil(lmax/step))
	p := &PLD{Step: step, Offset: jlo, Mass: make([]float64, jhi-jlo+1), Inf: inf}
	for _, at := range atoms {
		p.Mass[int(math.Ceil(at.l/step))-jlo] += at.m
	}
	// Masses: products of normalized probabilities and length ratios (a few
	// ulps each); sums of ≤ 2N terms.
	p.Err = float64(len(pts)+4) * 8 * unitRoundoff
	return p, nil
}

// Delta returns an upper bound on δ(ε) = Pr[L = +∞] + E[(1 − e^{ε−L})⁺] of p,
// including the floating-point error bound Err.
func (p *PLD) Delta(eps float64) float64 {
	s := 0.0
	for i, m := range p.Mass {
		if m == 0 {
			continue
		}
		t := float64(p.Offset+i) * p.Step
		if t > eps {
			s += m * -math.Expm1(eps-t)
		}
	}
	return math.Min(1, (p.Inf+s)*(1+float64(len(p.Mass)+2)*2*unitRoundoff)+p.Err)
}

// Epsilon returns the smallest ε ≥ 0 (to relative precision 10⁻⁹, rounded
// up) with Delta(ε) ≤ delta, or +Inf if even the largest finite loss leaves
// Delta above delta (the +∞ mass and Err exceed delta).
func (p *PLD) Epsilon(delta float64) float64 {
	if p.Delta(0) <= delta {
		return 0
	}
	hi := float64(p.Offset+len(p.Mass)) * p.Step
	if hi < 0 || p.Delta(hi) > delta {
		return math.Inf(1)
	}
	lo := 0.0
	for hi-lo > 1e-9*hi {
		mid := 0.5 * (lo + hi)
		if p.Delta(mid) <= delta {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// Compose returns the PLD of the composition of p and q (same Step): the
// law of the sum of independent losses, the finite parts convolved by FFT,
// Pr[+∞] = 1 − (1 − p.Inf)(1 − q.Inf). Error: the FFT convolution of a and
// b of length n errs by at most 5·log₂(n)·u·√n·‖a‖₂‖b‖₂ in the 2-norm (the
// standard bound for radix-2/4 FFTs with accurate twiddle factors, e.g.
// Higham, "Accuracy and stability of numerical algorithms", 2nd ed., Thm
// 24.2, applied to the forward, pointwise product and inverse transforms),
// hence n times that in the 1-norm; it is added to Err together with
// p.Err·‖q‖₁ + q.Err·‖p‖₁. Negative FFT outputs are set to 0 (within the
// bound).
func (p *PLD) Compose(q *PLD) (*PLD, error) {
	if p.Step != q.Step {
		return nil, fmt.Errorf("%w: PLD steps %v and %v differ", ErrInvalid, p.Step, q.Step)
	}
	n := len(p.Mass) + len(q.Mass) - 1
	size := 1
	for size < n {
		size *= 2
	}
	var out []float64
	if len(p.Mass)*len(q.Mass) <= 1<<16 {
		out = make([]float64, n)
		for i, a := range p.Mass {
			for j, b := range q.Mass {
				out[i+j] += a * b
			}
		}
	} else {
		fft := fourier.NewFFT(size)
		a := make([]float64, size)
		b := make([]float64, size)
		copy(a, p.Mass)
		copy(b, q.Mass)
		ca := fft.Coefficients(nil, a)
		cb := fft.Coefficients(nil, b)
		for i := range ca {
			ca[i] *= cb[i]
		}
		res := fft.Sequence(nil, ca)
		out = make([]float64, n)
		for i := range out {
			out[i] = math.Max(0, res[i]/float64(size))
		}
	}
	pa, qa := floats.Sum(p.Mass), floats.Sum(q.Mass)
	fftErr := 5 * math.Log2(float64(2*size)) * unitRoundoff * float64(size) * floats.Norm(p.Mass, 2) * floats.Norm(q.Mass, 2)
	return &PLD{Step: p.Step, Offset: p.Offset + q.Offset, Mass: out,
		Inf: 1 - (1-p.Inf)*(1-q.Inf) + 2*unitRoundoff,
		Err: p.Err*qa + q.Err*pa + p.Err*q.Err + fftErr + float64(n)*2*unitRoundoff}, nil
}

// ComposeK returns the k-fold composition of p with itself (k ≥ 1) by
// repeated squaring (⌈log₂ k⌉ squarings and at most as many products).
func (p *PLD) ComposeK(k int) (*PLD, error) { return p.composeK(k, math.Inf(1)) }

// AdvancedComposition returns the total ε of k mechanisms, each (eps, ·)-DP,
// by the advanced composition theorem of Dwork, Rothblum and Vadhan (FOCS
// 2010, Thm III.3; Dwork and Roth 2014, Thm 3.20) with slack δ':
//
//	ε_total = √(2k·ln(1/δ'))·ε + k·ε·(e^ε − 1),   δ_total = k·δ + δ'.
//
// It holds for parameters fixed in advance; it is the baseline of the
// savings table in BENCHMARKS.md.
func AdvancedComposition(eps float64, k int, deltaPrime float64) float64 {
	return math.Sqrt(2*float64(k)*math.Log(1/deltaPrime))*eps + float64(k)*eps*math.Expm1(eps)
}

// Truncate returns p with the losses above cap moved to +∞ and those below
// −cap raised to the grid point at or above −cap (cap > 0). Both moves only
// increase losses, so Delta can only grow: the result dominates p, and —
// the loss of a composition being the sum of independent losses, monotone
// in each — every composition through it dominates the composition through
// p (the truncation of Koskela, Jälkö, Prediger and Honkela, "Tight
// differential privacy for discrete-valued mechanisms and for the
// subsampled Gaussian mechanism using FFT", AISTATS 2021, made one-sided
// pessimistic). It bounds the length of the grid at 2·cap/Step + 1.
func (p *PLD) Truncate(cap float64) (*PLD, error) {
	if !(cap > 0) || math.IsInf(cap, 0) {
		return nil, fmt.Errorf("%w: truncation bound is %v, must be > 0 and finite", ErrInvalid, cap)
	}
	lo := int(math.Ceil(-cap / p.Step))
	hi := int(math.Floor(cap / p.Step))
	first, last := p.Offset, p.Offset+len(p.Mass)-1
	if first >= lo && last <= hi {
		return p, nil
	}
	nlo, nhi := max(first, lo), min(last, hi)
	out := &PLD{Step: p.Step, Inf: p.Inf, Err: p.Err}
	if nlo > nhi { // everything above hi, or everything below lo
		if first > hi {
			out.Inf += floats.Sum(p.Mass)
			out.Offset, out.Mass = hi, []float64{0}
		} else {
			out.Offset, out.Mass = lo, []float64{floats.Sum(p.Mass)}
		}
		out.Inf = math.Min(1, out.Inf*(1+2*unitRoundoff))
		return out, nil
	}
	out.Offset = nlo
	out.Mass = make([]float64, nhi-nlo+1)
	for i, m := range p.Mass {
		j := p.Offset + i
		switch {
		case j > nhi:
			out.Inf += m
		case j < nlo:
			out.Mass[0] += m
		default:
			out.Mass[j-nlo] += m
		}
	}
	// The sums moved add at most len·u of their total to the L1 error.
	out.Err += float64(len(p.Mass)+2) * 2 * unitRoundoff
	return out, nil
}

// ComposeKTruncated is ComposeK with every intermediate PLD truncated at
// cap (Truncate): a dominating composition on a grid of at most 2·cap/Step
// + 1 points whatever k, so each product costs one FFT of that length. Mass
// beyond cap is charged as an infinite loss, which costs at most its
// probability times e^{ε−cap} in δ(ε) for ε < cap: choose cap a few units
// above the ε of interest.
func (p *PLD) ComposeKTruncated(k int, cap float64) (*PLD, error) {
	if !(cap > 0) || math.IsInf(cap, 0) {
		return nil, fmt.Errorf("%w: truncation bound is %v, must be > 0 and finite", ErrInvalid, cap)
	}
	return p.composeK(k, cap)
}

// composeK composes p with itself k times by repeated squaring, truncating
// every intermediate PLD at cap (+Inf: no truncation).
func (p *PLD) composeK(k int, cap float64) (*PLD, error) {
	if k < 1 {
		return nil, fmt.Errorf("%w: k is %d, must be ≥ 1", ErrInvalid, k)
	}
	trunc := func(q *PLD) (*PLD, error) {
		if math.IsInf(cap, 1) {
			return q, nil
		}
		return q.Truncate(cap)
	}
	base, err := trunc(p)
	if err != nil {
		return nil, err
	}
	var acc *PLD
	for {
		if k&1 == 1 {
			if acc == nil {
				acc = base
			} else {
				if acc, err = acc.Compose(base); err != nil {
					return nil, err
				}
				if acc, err = trunc(acc); err != nil {
					return nil, err
				}
			}
		}
		k >>= 1
		if k == 0 {
			return acc, nil
		}
		if base, err = base.Compose(base); err != nil {
			return nil, err
		}
		if base, err = trunc(base); err != nil {
			return nil, err
		}
	}
}
