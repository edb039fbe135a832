package noise

import (
	"fmt"
	"math"
)

// Rigorous (ε, δ) certificate of the multi-Gaussian mechanism.
//
// Profile bound at one shift. For the shift φ ∈ (0, Δ] write
// Z·√(2π)σ·(f(x) − e^ε f(x − φ)) as a sum of "atoms" in the variable x:
//
//	A_j·G(x − jΔ) − B_{j−1}·G(x − (j−1)Δ − φ)
//	  = (A_j − B_{j−1})·G(x − jΔ) + B_{j−1}·[G(x − jΔ) − G(x − jΔ + τ)],   τ = Δ − φ,
//
// for j = −K+1..K (A_j = e^{−|j|ε}, B_j = e^{ε_g − |j|ε}, G(y) = e^{−y²/(2σ²)}),
// plus A_{−K}·G(x + KΔ) and −B_K·G(x − KΔ − φ). A_j − B_{j−1} is exactly 0
// when the exponents agree (j ≤ 0 at the mechanism's own ε), so the large
// cancelling parts of f and e^ε f(· − Δ) never meet in floating point. On a
// cell [a, b] each single Gaussian is bounded by its values at the clamped
// centre and the far end point, each bracketed difference both by those
// values and by the mean value theorem, G(y) − G(y − τ) = τ·ξe^{−ξ²/(2σ²)}/σ²
// for some ξ in the hull of the two y-ranges (ξe^{−ξ²/(2σ²)} is monotone
// between its extremes at ±σ). Every value carries a relative error bound of
// 16u(1 + t + |y|(|μ| + |x| + Δ)/σ²) (u = 2⁻⁵³, t the exponent: math.Exp
// within 1 ulp, the arguments within a few ulps, doubled), so a cell is
// "negative" or "positive" only if its bound says so after this padding.
// Positive cells are merged into runs whose integral is computed exactly as
// Gaussian CDF differences (erfc with the same kind of error bound, added);
// undecided cells are halved until their bound width·max(h, 0) is below
// tol/(20(4K + 2)), and then contribute that bound. Atoms more than 14σ from a cell are bounded by
// 2|c|e^{−98} there. The mass beyond 38σ of
// every centre (< 10⁻³⁰⁰) is added. The result is an upper bound on
// H(φ) = ∫(f − e^ε f(· − φ))⁺ in exact arithmetic under the stated error model
// of math.Exp and math.Erfc; no quadrature rule or tolerance enters the
// bound, only its tightness.
//
// Every shift. H(−φ) = H(φ) (f is symmetric) and H(0) = 0. Writing
// H(φ) = sup_A P[X − φ ∈ A] − e^ε P[X ∈ A], H is a supremum over events of
// functions of φ whose second derivatives are ≥ −2c with c = φ(1)/σ²
// (semiConvexity), so H + cφ² is convex and between two evaluated shifts
// a < b, H ≤ max(U_a, U_b) + c(b − a)²/4. The shifts are placed so that this
// stays ≤ δ; with slack s = δ − U the gaps are ≈ 2√(s/c), so a certificate
// needs tens to hundreds of shifts where Theorem 5's first-order argument
// (Lipschitz constant 1/(√(2π)σ), grid β = √(2π)ησδ) needs Δ/β.

const certUnit = 0x1p-53

// mgAtom is an atom of the decomposition above: c·G(x − mu) (pair false) or
// c·[G(x − mu) − G(x − mu + tau)] (pair true, c ≥ 0); cerr bounds the absolute
// error of c.
type mgAtom struct {
	mu, tau, c, cerr float64
	pair             bool
}

func (d *MultiGaussian) certAtoms(eps, phi float64) []mgAtom {
	K, D, e := d.K, d.Sensitivity, d.Epsilon
	tau := D - phi
	var at []mgAtom
	for j := -K + 1; j <= K; j++ {
		a := -math.Abs(float64(j)) * e
		b := eps - math.Abs(float64(j-1))*e
		mu := float64(j) * D
		var c, cerr float64
		if !(eps == e && -iabs(j) == 1-iabs(j-1)) {
			c = math.Exp(a) - math.Exp(b)
			cerr = 8 * certUnit * (math.Exp(a) + math.Exp(b)) * (2 + math.Abs(a) + math.Abs(b))
		}
		if c != 0 || cerr != 0 {
			at = append(at, mgAtom{mu: mu, c: c, cerr: cerr})
		}
		eb := math.Exp(b)
		at = append(at, mgAtom{mu: mu, tau: tau, c: eb, cerr: 8 * certUnit * eb * (1 + math.Abs(b)), pair: true})
	}
	a := -float64(K) * e
	at = append(at, mgAtom{mu: -float64(K) * D, c: math.Exp(a), cerr: 8 * certUnit * math.Exp(a) * (1 + math.Abs(a))})
	b := eps - float64(K)*e
	at = append(at, mgAtom{mu: float64(K)*D + phi, c: -math.Exp(b), cerr: 8 * certUnit * math.Exp(b) * (1 + math.Abs(b))})
	return at
}

// farBound is e^{−98} rounded up: a Gaussian factor G(y) with |y| ≥ 14σ.
const farBound = 2.7e-43

// farFrom reports whether [ya, yb] keeps at least 14σ from 0.
func farFrom(ya, yb, s float64) bool { return ya >= 14*s || yb <= -14*s }

// gBounds returns the range of G(y) = e^{−y²/(2σ²)} for y ∈ [ya, yb] and the
// largest exponent y²/(2σ²) seen.
func gBounds(ya, yb, s float64) (lo, hi, tmax float64) {
	ta, tb := ya*ya/(2*s*s), yb*yb/(2*s*s)
	tmax = math.Max(ta, tb)
	lo = math.Exp(-tmax)
	if ya <= 0 && yb >= 0 {
		hi = 1
	} else {
		hi = math.Exp(-math.Min(ta, tb))
	}
	return lo, hi, tmax
}

// uBounds returns the range of u(ξ) = ξe^{−ξ²/(2σ²)} on [l, r] (extremes at
// the end points and ±σ).
func uBounds(l, r, s float64) (lo, hi float64) {
	u := func(x float64) float64 { return x * math.Exp(-x*x/(2*s*s)) }
	lo, hi = math.Min(u(l), u(r)), math.Max(u(l), u(r))
	for _, x := range []float64{-s, s} {
		if x > l && x < r {
			v := u(x)
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	return lo, hi
}

// cellBounds returns lower and upper bounds on Σ atoms over x ∈ [xa, xb],
// already widened by the floating-point pad.
func cellBounds(at []mgAtom, s, D, xa, xb float64) (lo, hi float64) {
	pad := 0.0
	xm := math.Max(math.Abs(xa), math.Abs(xb))
	for _, a := range at {
		ya, yb := xa-a.mu, xb-a.mu
		if far := farFrom(ya, yb, s) && (!a.pair || farFrom(ya+a.tau, yb+a.tau, s)); far {
			// Every Gaussian of the atom is more than 14σ away: |value| ≤ 2|c|e^{−98}.
			pad += 2*(math.Abs(a.c)+a.cerr)*farBound + 1e-300
			continue
		}
		g0, g1, t := gBounds(ya, yb, s)
		ym := math.Max(math.Abs(ya), math.Abs(yb))
		var vlo, vhi float64
		if !a.pair {
			if a.c >= 0 {
				vlo, vhi = a.c*g0, a.c*g1
			} else {
				vlo, vhi = a.c*g1, a.c*g0
			}
		} else {
			// D(x) = G(y) − G(y − τ'), τ' = −τ: the second Gaussian is at mu − τ.
			h0, h1, t2 := gBounds(ya+a.tau, yb+a.tau, s)
			t = math.Max(t, t2)
			ym = math.Max(ym, math.Max(math.Abs(ya+a.tau), math.Abs(yb+a.tau)))
			dlo, dhi := g0-h1, g1-h0
			// Mean value theorem: G(y) − G(y + τ) = −τ·G′(ξ) = τ·u(ξ)/σ².
			l, r := math.Min(ya, ya+a.tau), math.Max(yb, yb+a.tau)
			ulo, uhi := uBounds(l, r, s)
			k := a.tau / (s * s)
			mlo, mhi := k*ulo, k*uhi
			if k < 0 {
				mlo, mhi = k*uhi, k*ulo
			}
			// Intersect, widening the MVT bound by its own rounding (3 ulps of k·u).
			w := 4 * certUnit * math.Max(math.Abs(mlo), math.Abs(mhi))
			dlo, dhi = math.Max(dlo, mlo-w), math.Min(dhi, mhi+w)
			vlo, vhi = a.c*dlo, a.c*dhi
		}
		lo += vlo
		hi += vhi
		mag := math.Max(math.Abs(vlo), math.Abs(vhi))
		gm := math.Max(math.Abs(g1), 1e-300)
		pad += mag*16*certUnit*(1+t+ym*(math.Abs(a.mu)+xm+D)/(s*s)) + a.cerr*gm + 1e-300
	}
	pad += float64(len(at)) * 2 * certUnit * (math.Abs(lo) + math.Abs(hi))
	return lo - pad, hi + pad
}

// HockeyStickUpper returns a rigorous upper bound on H(φ) =
// ∫(f(x) − e^eps·f(x − φ))⁺dx for |φ| ≤ Δ, tight to about tol (absolute;
// tol ≤ 0 means 10⁻⁹), by the interval-and-exact-integral method described
// at the top of this file.
func (d *MultiGaussian) HockeyStickUpper(eps, phi, tol float64) float64 {
	phi = math.Abs(phi)
	if phi == 0 && eps >= 0 {
		return 0
	}
	if tol <= 0 {
		tol = 1e-9
	}
	s, D := d.Sigma, d.Sensitivity
	at := d.certAtoms(eps, phi)
	z := d.norm() * (1 - float64(2*d.K+4)*4*certUnit)
	norm := z * math.Sqrt(2*math.Pi) * s * (1 - 8*certUnit)
	leaf := 0.05 * tol * norm / float64(4*d.K+2)
	lo, hi := -float64(d.K)*D, float64(d.K)*D+phi
	// Cells: σ/4 wide within 8σ of the centres, σ wide out to 38σ.
	var edges []float64
	for x := lo - 38*s; x < lo-8*s; x += s {
		edges = append(edges, x)
	}
	n := int(math.Ceil((hi - lo + 16*s) / (s / 4)))
	for i := 0; i < n; i++ {
		edges = append(edges, lo-8*s+float64(i)*(s/4))
	}
	for x := hi + 8*s; x < hi+38*s+s; x += s {
		edges = append(edges, x)
	}
	// Terms for exact integrals of positive runs (the original components).
	type term struct{ mu, c, cerr float64 }
	var terms []term
	for k := -d.K; k <= d.K; k++ {
		a := -math.Abs(float64(k)) * d.Epsilon
		ca := math.Exp(a)
		terms = append(terms, term{float64(k) * D, ca, 4 * certUnit * ca * (1 + math.Abs(a))})
		cb := math.Exp(eps + a)
		terms = append(terms, term{float64(k)*D + phi, -cb, 4 * certUnit * cb * (1 + math.Abs(eps+a))})
	}
	runInt := func(a, b float64) float64 { // upper bound on ∫_a^b Σ terms / (√(2π)σ)
		sum, errSum := 0.0, 0.0
		for _, t := range terms {
			za, zb := (a-t.mu)/s, (b-t.mu)/s
			p := normProb(za, zb)
			sum += t.c * p
			zm := math.Max(math.Abs(za), math.Abs(zb))
			ea := 0.5 * math.Erfc(-math.Min(math.Abs(za), math.Abs(zb))/math.Sqrt2) // ≥ the two erfc terms used
			rel := 16 * certUnit * (1 + zm*(zm+(math.Abs(t.mu)+math.Abs(a)+math.Abs(b))/s))
			errSum += math.Abs(t.c)*2*ea*rel + t.cerr*p
		}
		return sum + errSum + float64(len(terms))*2*certUnit*math.Abs(sum)
	}
	total, undecided := 0.0, 0.0
	runA, runB := math.NaN(), math.NaN()
	flush := func() {
		if !math.IsNaN(runA) {
			if v := runInt(runA, runB); v > 0 {
				total += v
			}
		}
		runA, runB = math.NaN(), math.NaN()
	}
	var visit func(a, b float64, depth int)
	visit = func(a, b float64, depth int) {
		l, h := cellBounds(at, s, D, a, b)
		switch {
		case h <= 0:
			flush()
		case l >= 0:
			if !math.IsNaN(runA) && runB == a {
				runB = b
			} else {
				flush()
				runA, runB = a, b
			}
		default:
			if v := (b - a) * h; v <= leaf || depth > 60 || b-a <= 1e-13*(math.Abs(a)+math.Abs(b)+s) {
				flush()
				undecided += v
				return
			}
			m := a + (b-a)/2
			visit(a, m, depth+1)
			visit(m, b, depth+1)
		}
	}
	for i := 0; i+1 < len(edges); i++ {
		visit(edges[i], edges[i+1], 0)
	}
	flush()
	return (total/z + undecided/norm + 2e-300) * (1 + 8*certUnit)
}

// CertifyMultiGaussian proves (or fails to prove) that f(D) + X with X ~ d
// is (p.Epsilon, p.Delta)-DP for sensitivity p.Sensitivity: it bounds the
// hockey-stick divergence rigorously (HockeyStickUpper) at shifts
// 0 = φ₀ < φ₁ < … < φ_n = Δ spaced so that the semi-convexity bound covers
// every shift in between (see the top of this file). Certified is true only
// if max(U_i, U_{i+1}) + c(φ_{i+1} − φ_i)²/4 ≤ δ on every gap. MaxShortfall
// is the largest such bound minus δ (an upper bound on sup_{|φ|≤Δ} H − δ),
// WorstShift the evaluated shift with the largest bound, ShiftsChecked =
// ExactShifts the number of shifts bounded (at most 10⁵; beyond, Certified
// is false).
func CertifyMultiGaussian(d *MultiGaussian, p Params) (*Certificate, error) {
	if err := p.needDelta(0, 1, "must be in (0, 1)"); err != nil {
		return nil, err
	}
	if d == nil || !(d.Sigma > 0) || math.IsInf(d.Sigma, 0) || d.K < 0 {
		return nil, paramErr("Dist", fmt.Sprintf("%+v", d), "must be a multi-Gaussian with finite σ > 0 and K ≥ 0")
	}
	if p.Epsilon > MaxMultiGaussianEpsilon {
		return nil, paramErr("Epsilon", p.Epsilon, fmt.Sprintf("must be ≤ %d for the multi-Gaussian certificate", MaxMultiGaussianEpsilon))
	}
	cert := &Certificate{Params: p, Certified: true, MaxShortfall: math.Inf(-1)}
	c := semiConvexity * (1 + 1e-9) / (d.Sigma * d.Sigma)
	tol := 1e-4 * p.Delta
	bound := func(phi float64) float64 {
		cert.ShiftsChecked++
		cert.ExactShifts++
		if phi == 0 {
			return 0
		}
		return d.HockeyStickUpper(p.Epsilon, phi, tol)
	}
	phi, u := 0.0, 0.0
	cert.ShiftsChecked, cert.ExactShifts = 1, 1
	worst := u
	for phi < p.Sensitivity {
		slack := p.Delta - u
		if slack <= 0 || cert.ShiftsChecked > 100_000 {
			cert.Certified = false
			break
		}
		step := math.Min(p.Sensitivity-phi, 1.8*math.Sqrt(slack/c))
		for {
			next := math.Min(p.Sensitivity, phi+step)
			un := bound(next)
			gap := next - phi
			b := math.Max(u, un) + c*gap*gap/4
			if b <= p.Delta || un >= p.Delta || cert.ShiftsChecked > 100_000 {
				cert.MaxShortfall = math.Max(cert.MaxShortfall, b-p.Delta)
				if un > worst {
					worst, cert.WorstShift = un, next
				}
				if b > p.Delta {
					cert.Certified = false
				}
				phi, u = next, un
				break
			}
			step /= 2
		}
		if !cert.Certified {
			break
		}
	}
	return cert, nil
}

// semiConvexity is c·σ² = φ(1) = e^{−1/2}/√(2π): for every event A,
// φ ↦ P[X − φ ∈ A] has second derivative ∫_A f″(x + φ)dx ≥ −∫(f″)⁻ ≥
// −2φ(1)/σ² (for one Gaussian ∫|p″| = 4φ(1)/σ², and the mixture's is no
// larger), so H(φ) + cφ² is a supremum of convex functions, hence convex,
// and on [a, b] H ≤ max(H(a), H(b)) + c(b − a)²/4.
const semiConvexity = 0.24197072451914337

// ComponentProfileBound returns an upper bound on the privacy profile of the
// multi-Gaussian noise d at eps, sup over shifts |φ| ≤ Δ of
// ∫(f − e^ε f(· − φ))⁺, in closed form from its Gaussian components.
//
// Pairing. f = Σ_j w_j g_j and f(· − φ) = Σ_k w_k g'_k with g_j = N(jΔ, σ²),
// g'_k = N(kΔ + φ, σ²) and w_j ∝ e^{−|j|ε₀}. For any split of both sums into
// pieces matched in pairs (P_i, Q_i), a Q-mass left over only helps, so
// pointwise (f − αf(· − φ))⁺ ≤ Σ_i (P_i − αQ_i)⁺ (α = e^ε), and each pair of
// scaled Gaussians at distance τ costs w·δ_G(ε + ln r; τ), r the ratio of
// their weights and δ_G the Gaussian profile (Balle & Wang 2018, Thm 8),
//
//	δ_G(ε; τ) = Φ(τ/(2σ) − εσ/τ) − e^ε·Φ(−τ/(2σ) − εσ/τ),
//
// increasing in τ (valid for every real ε). By symmetry take φ ∈ [0, Δ]:
//
//   - φ ≤ Δ/2: g_j with g'_j (distance φ, r = 1): at most δ_G(ε; Δ/2);
//   - φ > Δ/2: g_j with g'_{j−1} (distance Δ − φ < Δ/2; r = e^{−ε₀} for
//     j ≤ 0, e^{ε₀} for j > 0), except that g'_{−K} is split in halves
//     between g_{−K+1} (r = e^{−ε₀}/2) and g_{−K} (distance φ ≤ Δ, r = ½):
//     at most w_{−K}δ_G(ε − ln 2; Δ) + w_{−K+1}δ_G(ε − ε₀ − ln 2; Δ/2) +
//     Σ_{−K+2 ≤ j ≤ 0} w_jδ_G(ε − ε₀; Δ/2) + Σ_{j ≥ 1} w_jδ_G(ε + ε₀; Δ/2).
//
// The result is the larger of the two, and at most δ_G(ε; Δ) (every g_j with
// g'_j: joint convexity). At small ε it is far above the multi-Gaussian's own
// profile; at large ε its terms decay like e^{−(εσ/Δ)²/2}, the largest
// carrying the small weight w_{−K}, and it is far below what
// CertifyMultiGaussian can certify there (its rounding padding dominates near
// ε ≈ 12 at (ε₀, δ₀) = (1, 10⁻³); at ε = 16 the closed form gives a few
// 10⁻⁹). Rounding: Φ from math.Erfc (log domain below −30), each term
// raised by a relative 10⁻¹², the sum by another, at least the smallest
// normal double.
func (d *MultiGaussian) ComponentProfileBound(eps float64) float64 {
	D, s := d.Sensitivity, d.Sigma
	whole := gaussProfileUpper(eps, D, s)
	if d.K == 0 {
		return whole
	}
	z := d.norm()
	w := func(j int) float64 { return math.Exp(-float64(iabs(j))*d.Epsilon) / z }
	near := gaussProfileUpper(eps, D/2, s)
	K := d.K
	far := w(-K)*gaussProfileUpper(eps-math.Ln2, D, s) + w(-K+1)*gaussProfileUpper(eps-d.Epsilon-math.Ln2, D/2, s)
	for j := -K + 2; j <= 0; j++ {
		far += w(j) * gaussProfileUpper(eps-d.Epsilon, D/2, s)
	}
	for j := 1; j <= K; j++ {
		far += w(j) * gaussProfileUpper(eps+d.Epsilon, D/2, s)
	}
	far = far*(1+1e-12) + 0x1p-1022
	return math.Min(whole, math.Max(near, far))
}

// gaussProfileUpper is δ_G(ε; τ) of N(0, σ²) against N(τ, σ²) (Balle & Wang
// 2018, Thm 8), each Φ term moved outwards by a relative 10⁻¹², in [2⁻¹⁰²², 1].
func gaussProfileUpper(eps, tau, sigma float64) float64 {
	a := tau / (2 * sigma)
	b := eps * sigma / tau
	pos := math.Exp(logStdNormalCDF(a-b)) * (1 + 1e-12)
	neg := math.Exp(eps+logStdNormalCDF(-a-b)) * (1 - 1e-12)
	return math.Min(1, math.Max(pos-neg, 0)+0x1p-1022)
}
