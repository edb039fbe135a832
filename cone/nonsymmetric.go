package cone

import "math"

// inExp reports exact membership in K_exp = cl{(x, y, z) : y > 0, y·exp(x/y) ≤ z},
// evaluated in logarithmic form so that it does not overflow.
func inExp(x, y, z float64) bool {
	if y > 0 {
		return z > 0 && x <= y*math.Log(z/y)
	}
	return y == 0 && x <= 0 && z >= 0
}

// inDualExp reports exact membership in
// K*_exp = cl{(u, v, w) : u < 0, −u·exp(v/u) ≤ e·w}.
func inDualExp(u, v, w float64) bool {
	if u < 0 {
		// −u·exp(v/u) ≤ e·w  ⇔  log(−u) + v/u ≤ 1 + log(w), w > 0.
		return w > 0 && math.Log(-u)+v/u <= 1+math.Log(w)
	}
	return u == 0 && v >= 0 && w >= 0
}

// projectExp returns the Euclidean projection of v onto K_exp.
//
// Outside the closed-form cases, Moreau's decomposition v = Π_K(v) + Π_{K°}(v)
// with orthogonal parts on the boundaries of K and K° = −K* reads
//
//	v = a·(ρ, 1, e^ρ) + b·(1, 1−ρ, −e^{−ρ}),   a, b > 0,
//
// (the second vector is −1 times the point (−1, ρ−1, e^{−ρ}) of ∂K*_exp that is
// orthogonal to (ρ, 1, e^ρ)). The first two coordinates give
// a(ρ) = ((ρ−1)x + y)/(ρ²−ρ+1) and b(ρ) = (x − ρy)/(ρ²−ρ+1), and the third one the
// scalar equation H(ρ) = a(ρ)·e^ρ − b(ρ)·e^{−ρ} − z = 0, which is Friberg's h(ρ)
// divided by ρ²−ρ+1 > 0. On the interval where a(ρ), b(ρ) > 0, H < 0 at the end
// where a = 0 (else v ∈ K°) and H > 0 at the end where b = 0 (else v ∈ K), so
// bisection finds a root, and any root there yields the (unique) Moreau
// decomposition. The returned point is a·(ρ, 1, e^ρ) and the returned residual
// p − v ∈ K* is b·(−1, ρ−1, e^{−ρ}), with a and b the optimal scales on those two
// rays, so both lie on their cones' boundaries up to rounding even where the
// subtraction p − v would lose all relative accuracy.
func projectExp(v [3]float64) (p, r [3]float64) {
	x, y, z := v[0], v[1], v[2]
	switch {
	case inExp(x, y, z):
		return v, r
	case inDualExp(-x, -y, -z):
		return p, [3]float64{-x, -y, -z}
	case x <= 0 && y <= 0:
		return [3]float64{x, 0, math.Max(z, 0)}, [3]float64{0, -y, math.Max(z, 0) - z}
	}
	h := func(rho float64) float64 {
		den := rho*rho - rho + 1
		a := ((rho-1)*x + y) / den
		b := (x - rho*y) / den
		return a*math.Exp(rho) - b*math.Exp(-rho) - z
	}
	var lo, hi float64
	switch {
	case x > 0 && y > 0:
		lo, hi = 1-y/x, x/y
	case x > 0: // y ≤ 0: the interval is (1 − y/x, ∞)
		lo = 1 - y/x
		hi = expandBracket(h, lo, +1)
	default: // x ≤ 0 < y: the interval is (−∞, x/y)
		hi = x / y
		lo = expandBracket(h, hi, -1)
	}
	for range 200 {
		mid := lo + (hi-lo)/2
		if mid <= lo || mid >= hi {
			break
		}
		if h(mid) < 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	rho := lo + (hi-lo)/2
	// Boundary direction d ∝ (ρ, 1, e^ρ), scaled to avoid overflow for large ρ.
	d := [3]float64{rho, 1, math.Exp(rho)}
	if rho > 0 {
		e := math.Exp(-rho)
		d = [3]float64{rho * e, e, 1}
	}
	a := math.Max(0, (x*d[0]+y*d[1]+z*d[2])/(d[0]*d[0]+d[1]*d[1]+d[2]*d[2]))
	p = [3]float64{a * d[0], a * d[1], a * d[2]}
	// Dual boundary direction g ∝ (−1, ρ−1, e^{−ρ}), scaled likewise.
	g := [3]float64{-1, rho - 1, math.Exp(-rho)}
	if rho < 0 {
		e := math.Exp(rho)
		g = [3]float64{-e, (rho - 1) * e, 1}
	}
	b := math.Max(0, -(x*g[0]+y*g[1]+z*g[2])/(g[0]*g[0]+g[1]*g[1]+g[2]*g[2]))
	r = [3]float64{b * g[0], b * g[1], b * g[2]}
	return p, r
}

// expandBracket walks from the finite end of a half-infinite interval in direction
// dir (+1 or −1) with doubling steps until h changes to the sign it has at that
// infinite end (positive for +1, negative for −1), and returns that point. h is
// ±Inf far enough out, so the loop ends within about 11 steps.
func expandBracket(h func(float64) float64, end float64, dir float64) float64 {
	step := 1.0
	for range 64 {
		p := end + dir*step
		if f := h(p); (dir > 0 && f > 0) || (dir < 0 && f < 0) || math.IsNaN(f) {
			return p
		}
		step *= 2
	}
	return end + dir*step
}

// inPower reports exact membership in {(x, y, z) : x^α y^(1−α) ≥ |z|, x, y ≥ 0}.
func inPower(x, y, z, alpha float64) bool {
	if x < 0 || y < 0 {
		return false
	}
	if z == 0 {
		return true
	}
	if x == 0 || y == 0 {
		return false
	}
	return alpha*math.Log(x)+(1-alpha)*math.Log(y) >= math.Log(math.Abs(z))
}

// projectPower returns the Euclidean projection p of v onto the power cone with
// exponent alpha (Hien 2015, see Cone.Project) and the residual p − v ∈ K*,
// computed without cancellation. Φ(r) = φ₁(r)^α φ₂(r)^(1−α) − r is positive near
// r = 0 and negative at r = |z| when v ∉ K ∪ −K*, with a unique root in between.
// The root is bracketed in r on (0, |z|/2] and in δ = |z| − r on (0, |z|/2], so
// that r·(|z| − r) keeps full relative accuracy at both ends (a root can sit within
// 10⁻²⁰·|z| of |z| when α is small).
func projectPower(v [3]float64, alpha float64) (p, res [3]float64) {
	x, y, z := v[0], v[1], v[2]
	switch {
	case inPower(x, y, z, alpha):
		return v, res
	case inPower(-x/alpha, -y/(1-alpha), -z, alpha): // −v ∈ K*
		return p, [3]float64{-x, -y, -z}
	case z == 0:
		return [3]float64{math.Max(x, 0), math.Max(y, 0), 0}, [3]float64{math.Max(-x, 0), math.Max(-y, 0), 0}
	}
	az := math.Abs(z)
	// phi returns φ = (c + √(c² + q))/2 and φ − c, both without cancellation.
	phi := func(c, q float64) (float64, float64) {
		sd := math.Sqrt(c*c + q)
		if c >= 0 {
			return (c + sd) / 2, q / (2 * (sd + c))
		}
		return q / (2 * (sd - c)), (sd - c) / 2
	}
	// eval takes r and δ = |z| − r (one of them exact, the other derived).
	eval := func(r, delta float64) (p1, d1, p2, d2, f float64) {
		q := 4 * r * delta
		p1, d1 = phi(x, alpha*q)
		p2, d2 = phi(y, (1-alpha)*q)
		return p1, d1, p2, d2, math.Pow(p1, alpha)*math.Pow(p2, 1-alpha) - r
	}
	half := az / 2
	_, _, _, _, fHalf := eval(half, az-half)
	upper := fHalf > 0 // root in (|z|/2, |z|): bisect on δ
	at := func(t float64) (float64, float64) {
		if upper {
			return az - t, t
		}
		return t, az - t
	}
	lo, hi := 0.0, half
	for range 2100 {
		mid := lo + (hi-lo)/2
		if mid <= lo || mid >= hi {
			break
		}
		r, delta := at(mid)
		_, _, _, _, f := eval(r, delta)
		if (f > 0) != upper {
			lo = mid
		} else {
			hi = mid
		}
	}
	r, delta := at(lo + (hi-lo)/2)
	p1, d1, p2, d2, _ := eval(r, delta)
	// The cone point with these x, y has |z| = p1^α p2^(1−α) ≈ r; use the smaller
	// so that p lies in K.
	if pz := math.Pow(p1, alpha) * math.Pow(p2, 1-alpha); pz < r {
		delta += r - pz
		r = pz
	}
	return [3]float64{p1, p2, math.Copysign(r, z)}, [3]float64{d1, d2, -math.Copysign(delta, z)}
}
