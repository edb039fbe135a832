package accounting

import (
	"context"
	"fmt"
	"math"

	"github.com/privopt/privopt/noise"
)

// ProfilePLD returns a PLD that dominates a mechanism given only an upper
// bound on its privacy profile
//
//	δ(ε) ≥ sup over neighbouring pairs of ∫(p − e^ε q)⁺,   ε > 0,
//
// where the supremum runs over both orders of every pair (for additive noise
// and sensitivity Δ: every shift |φ| ≤ Δ, which covers both orders). It is
// the "connect the dots" construction of Doroshenko, Ghazi, Kamath, Kumar and
// Manurangsi ("Connect the dots: tighter discrete approximations of privacy
// loss distributions", PoPETs 2022): in α = e^ε the hockey-stick curve
// H(α) = ∫(p − αq)⁺ is convex and decreasing, with H(0) = 1; for α < 1,
// H(α) = 1 − α + α·H_rev(1/α) (the reversed pair, bounded by the same
// profile). The values at the nodes ±ε_i (ε_i = i·Δε, i = 1..n, multiples of
// step with Δε ≈ epsMax/nodes) are upper bounds on H there, so the greatest
// convex minorant of these points, of (0, 1) and of the constant δ(ε_n) beyond
// ε_n, lies above the true H everywhere (a convex function below the points
// stays below their greatest convex minorant). That piecewise-linear curve is
// exactly the hockey-stick curve of a discrete pair with atoms at the
// breakpoints: P-mass α_i·(s_i − s_{i−1}) at loss ln α_i (s the slopes) and
// δ(ε_n) at +∞. This pair dominates the mechanism, so it composes (Zhu, Dong
// and Wang 2022, Thm 10), and its losses lie on the grid step·ℤ. The running
// minimum of the profile values is used (H is decreasing).
//
// profile is called at the n positive nodes; Err bounds the rounding of the
// masses. nodes ≤ 0 means 200.
func ProfilePLD(profile func(eps float64) (float64, error), epsMax, step float64, nodes int) (*PLD, error) {
	if err := checkStep(step); err != nil {
		return nil, err
	}
	if !(epsMax > 0) || math.IsInf(epsMax, 0) {
		return nil, fmt.Errorf("%w: epsMax is %v, must be > 0 and finite", ErrInvalid, epsMax)
	}
	if nodes <= 0 {
		nodes = 200
	}
	m := int(math.Max(1, math.Round(epsMax/step/float64(nodes)))) // node spacing in steps
	n := int(math.Ceil(epsMax / (float64(m) * step)))
	if n > 1<<16 {
		return nil, fmt.Errorf("%w: %d profile nodes (epsMax %g, step %g)", ErrInvalid, n, epsMax, step)
	}
	js := make([]int, n)
	for i := range js {
		js[i] = (i + 1) * m
	}
	return profilePLDNodes(profile, js, step)
}

// profilePLDNodes is ProfilePLD with the positive nodes ε_i = js[i]·step
// (js increasing, positive) given: the same construction with unequal
// spacing (fewer nodes give a looser, still dominating PLD).
func profilePLDNodes(profile func(eps float64) (float64, error), js []int, step float64) (*PLD, error) {
	n := len(js)
	pos := make([]float64, n+1) // pos[i] = bound on δ(js[i−1]·step), i ≥ 1
	pos[0] = 1
	for i := 1; i <= n; i++ {
		v, err := profile(float64(js[i-1]) * step)
		if err != nil {
			return nil, err
		}
		if !(v >= 0) || math.IsNaN(v) {
			return nil, fmt.Errorf("%w: profile(%g) = %v", ErrInvalid, float64(js[i-1])*step, v)
		}
		pos[i] = math.Min(math.Min(v, 1), pos[i-1])
	}
	// Points (α, H) for α = 0, e^{−ε_n}, …, e^{−ε_1}, e^{ε_1}, …, e^{ε_n}.
	type pt struct {
		j     int // loss index in steps (α = e^{j·step})
		alpha float64
		h     float64
	}
	pts := []pt{{alpha: 0, h: 1}}
	for i := n; i >= 1; i-- {
		e := float64(js[i-1]) * step
		a := math.Exp(-e)
		pts = append(pts, pt{j: -js[i-1], alpha: a, h: math.Min(1, -math.Expm1(-e)+a*pos[i])})
	}
	for i := 1; i <= n; i++ {
		pts = append(pts, pt{j: js[i-1], alpha: math.Exp(float64(js[i-1]) * step), h: pos[i]})
	}
	// Greatest convex minorant (lower hull), ending with slope 0 at the last
	// point (the flat tail H = δ(ε_n)).
	hull := []pt{}
	for _, p := range pts {
		for len(hull) >= 2 {
			a, b := hull[len(hull)-2], hull[len(hull)-1]
			// remove b if it lies on or above the segment a→p
			if (b.h-a.h)*(p.alpha-a.alpha) >= (p.h-a.h)*(b.alpha-a.alpha) {
				hull = hull[:len(hull)-1]
			} else {
				break
			}
		}
		hull = append(hull, p)
	}
	tail := hull[len(hull)-1].h
	// Slopes; atoms at breakpoints 1..len−1 (α > 0).
	jmin, jmax := hull[1].j, hull[len(hull)-1].j
	out := &PLD{Step: step, Offset: jmin, Mass: make([]float64, jmax-jmin+1), Inf: tail}
	prev := (hull[1].h - hull[0].h) / (hull[1].alpha - hull[0].alpha)
	for i := 1; i < len(hull); i++ {
		next := 0.0
		if i+1 < len(hull) {
			next = (hull[i+1].h - hull[i].h) / (hull[i+1].alpha - hull[i].alpha)
		}
		if q := next - prev; q > 0 {
			out.Mass[hull[i].j-jmin] += hull[i].alpha * q
		}
		prev = next
	}
	out.Err = float64(len(hull)+4) * 16 * unitRoundoff
	return out, nil
}

// MultiGaussianProfile returns an upper bound on the privacy profile of the
// multi-Gaussian noise d at eps (sup over shifts |φ| ≤ Δ): the smaller of
// two rigorous bounds,
//
//   - the certified one: the float64 maximum of the hockey-stick divergence
//     plus 1%, raised until noise.CertifyMultiGaussian proves it, at least
//     10⁻¹² (ε above noise.MaxMultiGaussianEpsilon is answered with the
//     value there);
//   - the components' closed form d.ComponentProfileBound(eps) (joint
//     convexity: at most the profile of one Gaussian N(0, σ²)), which decays
//     like e^{−(εσ/Δ)²/2} and takes over at large ε, where the certificates
//     stop improving (near ε ≈ 12 at (ε₀, δ₀) = (1, 10⁻³)); no certificate
//     is computed when it is within 1.2 times the certificate's starting
//     target, or when that target is below 10⁻⁷ (there a certificate costs
//     seconds, and the closed form is within a factor 2–4 of the float
//     maximum: (ε₀, δ₀) = (1, 10⁻³), ε = 16–20); the certificates stop once
//     their target reaches it.
func MultiGaussianProfile(d *noise.MultiGaussian) func(eps float64) (float64, error) {
	return func(eps float64) (float64, error) {
		comp := d.ComponentProfileBound(eps)
		eps = math.Min(eps, noise.MaxMultiGaussianEpsilon)
		h := d.MaxHockeyStick(eps)
		target := math.Min(0.999999, math.Max(h*(1+1e-2), 1e-12))
		if comp <= 1.2*target || target < 1e-7 {
			return comp, nil
		}
		for i := 0; i < 60; i++ {
			c, err := noise.CertifyMultiGaussian(d, noise.Params{Epsilon: eps, Delta: target, Sensitivity: d.Sensitivity})
			if err != nil {
				return 0, err
			}
			if c.Certified {
				return math.Min(target, comp), nil
			}
			target = math.Min(0.999999, math.Max(target*1.5, target+c.MaxShortfall*2))
			if target >= comp {
				return comp, nil
			}
		}
		return math.Min(1, comp), nil
	}
}

// PiecewiseProfile returns the exact privacy profile of piecewise-constant
// noise d for sensitivity Δ, max over |φ| ≤ Δ of ∫(f − e^ε f(· − φ))⁺, from
// the big-float certifier (noise.Certify with δ = 0: MaxShortfall, rounded
// up).
func PiecewiseProfile(d *noise.PiecewiseConstant, sensitivity float64) func(eps float64) (float64, error) {
	return func(eps float64) (float64, error) {
		c, err := noise.Certify(d, noise.Params{Epsilon: eps, Sensitivity: sensitivity})
		if err != nil {
			return 0, err
		}
		return math.Max(0, c.MaxShortfall), nil
	}
}

// MechanismPLD returns a dominating PLD (ProfilePLD with nodes every 0.05 in
// ε — for the multi-Gaussian, whose nodes are certificates, every 0.1 up to
// max(2, 3ε₀) and 25% apart beyond — up to the ε where the profile bound
// falls to 10⁻¹² or stops decreasing, at most 40) for mechanisms whose
// privacy profile package noise bounds rigorously:
//
//   - multi-Gaussian noise: MultiGaussianProfile;
//   - quasi-Gaussian noise: QuasiGaussianProfile (cell bounds, no quadrature);
//   - piecewise-constant noise (optimal, custom): PiecewiseProfile;
//   - staircase noise: the staircase truncated to |x| < MΔ with tail mass
//     τ = e^{−Mε₀} ≤ 10⁻¹⁶, as piecewise-constant noise, plus 2(1 + e^ε)τ
//     (the L1 distances between the laws and their truncations);
//   - Laplace, Gaussian, truncated Laplace: their closed-form PLDs
//     (LaplacePLD, GaussianPLD, TruncatedLaplacePLD).
//
// Each multi-Gaussian node is a certificate (a fraction of
// a second to seconds at small δ and large K): ctx stops the work between
// nodes.
func MechanismPLD(ctx context.Context, m *noise.Mechanism, step float64) (*PLD, error) {
	sens := m.Params.Sensitivity
	var prof func(float64) (float64, error)
	spacing := 0.05 // ε between profile nodes
	switch d := m.Dist.(type) {
	case *noise.Laplace:
		return LaplacePLD(d.Scale, sens, step)
	case *noise.Gaussian:
		return GaussianPLD(d.Sigma, sens, step)
	case *noise.TruncatedLaplace:
		return TruncatedLaplacePLD(d.Scale, d.Bound, sens, step)
	case *noise.MultiGaussian:
		prof = MultiGaussianProfile(d)
		spacing = 0.1 // each node is a certificate
	case *noise.PiecewiseConstant:
		prof = PiecewiseProfile(d, sens)
	case *noise.QuasiGaussian:
		q, err := QuasiGaussianProfile(d)
		if err != nil {
			return nil, err
		}
		prof = q
	case *noise.Staircase:
		pc, tau, err := staircasePiecewise(d)
		if err != nil {
			return nil, err
		}
		base := PiecewiseProfile(pc, sens)
		prof = func(eps float64) (float64, error) {
			v, err := base(eps)
			return math.Min(1, v+2*(1+math.Exp(eps))*tau*(1+1e-9)), err
		}
	default:
		return nil, fmt.Errorf("%w: no privacy-loss distribution for %s noise (%T)", ErrInvalid, m.Name, m.Dist)
	}
	base := prof
	prof = func(eps float64) (float64, error) {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		return base(eps)
	}
	// Profile nodes every 0.05 in ε up to where the bound falls to 10⁻¹²
	// or stops decreasing (rounding dominates), at most ε = 40.
	epsMax, prev := 0.5, math.Inf(1)
	for epsMax < 40 {
		v, err := prof(epsMax)
		if err != nil {
			return nil, err
		}
		if v <= 1e-12 || v >= prev {
			break
		}
		prev = v
		epsMax *= 1.5
	}
	// Nodes at the multiples of the spacing (rounded to the grid), so that an
	// ε₀ on that lattice — the staircase's — is a node.
	w := math.Max(1, math.Round(spacing/step))
	n := math.Ceil(epsMax / (w * step))
	if _, ok := m.Dist.(*noise.MultiGaussian); ok {
		return profilePLDNodes(prof, sparseNodes(int(w), int(n*w), int(math.Round(math.Max(2, 3*m.Params.Epsilon)/step))), step)
	}
	return ProfilePLD(prof, n*w*step, step, int(n))
}

// sparseNodes returns the multi-Gaussian's profile nodes (in grid steps):
// every w steps up to dense, then a factor 1.25 apart, ending at last. Each
// node is a certificate, and the composed ε depends mostly on the
// profile at small ε: the sparse tail gives a looser, still dominating PLD
// with a few dozen certificates instead of hundreds.
func sparseNodes(w, last, dense int) []int {
	var js []int
	j := w
	for ; j <= min(dense, last); j += w {
		js = append(js, j)
	}
	for j -= w; len(js) == 0 || js[len(js)-1] < last; {
		j = min(last, max(j+w, int(math.Ceil(1.25*float64(j)/float64(w)))*w))
		js = append(js, j)
	}
	return js
}

// staircasePiecewise returns the staircase law on |x| < MΔ (renormalized) as
// piecewise-constant noise, and the removed mass τ = e^{−Mε} ≤ 10⁻¹⁶.
func staircasePiecewise(d *noise.Staircase) (*noise.PiecewiseConstant, float64, error) {
	M := int(math.Ceil(16 * math.Ln10 / d.Epsilon))
	if M > 5000 {
		return nil, 0, fmt.Errorf("%w: staircase ε = %g needs %d steps per side", ErrInvalid, d.Epsilon, M)
	}
	D, g := d.Sensitivity, d.Gamma
	var half []float64 // positive edges
	for k := 0; k < M; k++ {
		half = append(half, float64(k)*D)
		if g > 0 && g < 1 {
			half = append(half, (float64(k)+g)*D)
		}
	}
	half = append(half, float64(M)*D)
	edges := make([]float64, 0, 2*len(half)-1)
	for i := len(half) - 1; i >= 1; i-- {
		edges = append(edges, -half[i])
	}
	edges = append(edges, half...)
	probs := make([]float64, len(edges)-1)
	for i := range probs {
		probs[i] = d.CDF(edges[i+1]) - d.CDF(edges[i])
	}
	pc, err := noise.NewPiecewiseConstant(edges, probs)
	if err != nil {
		return nil, 0, err
	}
	return pc, math.Exp(-float64(M)*d.Epsilon) + 64*unitRoundoff, nil // + the rounding of the cell masses
}
