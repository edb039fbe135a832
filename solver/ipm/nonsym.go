package ipm

import "math"

// barrierPair describes a three-dimensional non-symmetric cone through a
// logarithmically homogeneous self-concordant barrier f of K (degree 3) and
// one f* of K* (not necessarily the conjugate of f), as in Clarabel
// (Goulart & Chen 2024, Section 4.4) and Dahl & Andersen, "A primal-dual
// interior-point algorithm for nonsymmetric exponential-cone optimization",
// Math. Program. 194 (2022).
type barrierPair interface {
	// primalGrad writes ∇f(s); false outside int K.
	primalGrad(g, s []float64) bool
	// shadowGrad writes ∇f**(s), the gradient at s of the conjugate f** of
	// the dual barrier (f**(s) = sup_z −⟨s,z⟩ − f*(z)), so that z̃ = −g is
	// the point with −∇f*(z̃) = s: the shadow iterate of the primal–dual
	// scaling. It equals primalGrad when f is the conjugate of f*; false
	// outside int K.
	shadowGrad(g, s []float64) bool
	primalValue(s []float64) float64 // +Inf outside int K
	// dualGradHess writes ∇f*(z) and ∇²f*(z) (row-major 3×3); false outside int K*.
	dualGradHess(g []float64, h *[9]float64, z []float64) bool
	dualValue(z []float64) float64
	// primalIn and dualIn decide s ∈ int K and z ∈ int K*: exactly the
	// points where primalValue and dualValue are finite, at less cost.
	primalIn(s []float64) bool
	dualIn(z []float64) bool
	// dualThird writes ∇³f*(z)[a, b], the third derivative of f* at z
	// applied to the directions a and b (a symmetric bilinear form in a, b).
	dualThird(out []float64, z, a, b []float64)
	// central writes a point with s = z on the central ray.
	central(v []float64)
}

// nonsymCone implements the primal–dual scaling of Dahl & Andersen (2022),
// Section 4 (the BFGS-type update of Tunçel 2001 / Myklebust & Tunçel 2014):
// with the shadow iterates s̃ = −∇f*(z), z̃ = −∇f**(s) (f** the conjugate
// of the dual barrier, barrierPair.shadowGrad), μ = ⟨s,z⟩/3, δs = s − μs̃,
// δz = z − μz̃,
//
//	H = ssᵀ/⟨s,z⟩ + δsδsᵀ/⟨δs,δz⟩ + t·ââᵀ,  â ∝ z × z̃,
//
// t = μ‖∇²f*(z) − s̃s̃ᵀ/3 − r rᵀ/d₂‖_F (updateScaling), which satisfies
// H z = s and H z̃ = s̃ and is positive definite; when the
// update is ill-defined (near the central path ⟨δs,δz⟩ → 0) the dual scaling
// H = μ∇²f*(z) is used instead.
type nonsymCone struct {
	f  barrierPair
	z  [3]float64
	g  [3]float64 // ∇f*(z)
	hd [9]float64 // ∇²f*(z)
	hs [9]float64 // H
	// work, work2: scratch vectors passed to the barrier's methods; as
	// fields of the (heap) cone they keep those interface calls from
	// moving a local array to the heap on every call.
	work, work2 [3]float64
	// dualOnly forces the dual scaling H = μ∇²f*(z).
	dualOnly bool
	// noThird drops the third-order term η of combinedDsShift.
	noThird bool
}

func (c *nonsymCone) dim() int        { return 3 }
func (c *nonsymCone) degree() float64 { return 3 }
func (c *nonsymCone) symmetric() bool { return false }
func (c *nonsymCone) unitInit(s, z []float64) {
	c.f.central(s)
	c.f.central(z)
}
func (c *nonsymCone) margin([]float64) float64 { return math.Inf(1) }
func (c *nonsymCone) addE([]float64, float64)  {}

func (c *nonsymCone) updateScaling(s, z []float64, mu float64) bool {
	copy(c.z[:], z)
	if !c.f.dualGradHess(c.g[:], &c.hd, z) {
		return false
	}
	gp := &c.work
	if !c.f.shadowGrad(gp[:], s) {
		return false
	}
	// fallback: dual scaling
	for i := range c.hs {
		c.hs[i] = mu * c.hd[i]
	}
	sz := dot(s, z)
	if c.dualOnly || !(sz > 0) {
		return true
	}
	mul := sz / 3
	var st, zt, ds, dz [3]float64
	for i := 0; i < 3; i++ {
		st[i] = -c.g[i]
		zt[i] = -gp[i]
		ds[i] = s[i] - mul*st[i]
		dz[i] = z[i] - mul*zt[i]
	}
	dd := dot(ds[:], dz[:])
	a := [3]float64{z[1]*zt[2] - z[2]*zt[1], z[2]*zt[0] - z[0]*zt[2], z[0]*zt[1] - z[1]*zt[0]}
	na := norm2(a[:])
	// ⟨δs,δz⟩ = μ(μ⟨s̃,z̃⟩ − 3) ≥ 0; require it clearly positive.
	if !(dd > sqrtEps*sz) || !(na > sqrtEps*norm2(z)*norm2(zt[:])) {
		return true
	}
	for i := range a {
		a[i] /= na
	}
	// t = μ‖∇²f*(z) − s̃s̃ᵀ/3 − r rᵀ/d₂‖_F with μ̃ = ⟨s̃,z̃⟩/3,
	// r = μ̃s̃ − ∇²f*(z)z̃, d₂ = z̃ᵀ∇²f*(z)z̃ − 3μ̃² (Dahl & Andersen 2022,
	// Section 4; Clarabel's choice): the size of ∇²f*(z) in the direction
	// the two secant conditions leave free (the sign flips of s̃, z̃ relative
	// to ∇f*, ∇f** cancel in every product).
	mut := dot(st[:], zt[:]) / 3
	var hz [3]float64
	var zhz float64
	for i := 0; i < 3; i++ {
		hz[i] = c.hd[i*3]*zt[0] + c.hd[i*3+1]*zt[1] + c.hd[i*3+2]*zt[2]
		zhz += zt[i] * hz[i]
	}
	d2 := zhz - 3*mut*mut
	if !(math.Abs(d2) > 0x1p-52) {
		return true
	}
	var fro float64
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			ri, rj := mut*st[i]-hz[i], mut*st[j]-hz[j]
			v := c.hd[i*3+j] - st[i]*st[j]/3 - ri*rj/d2
			fro += v * v
		}
	}
	t := mul * math.Sqrt(fro)
	if !(t > 0) {
		return true
	}
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			c.hs[i*3+j] = s[i]*s[j]/sz + ds[i]*ds[j]/dd + t*a[i]*a[j]
		}
	}
	return true
}

func (c *nonsymCone) mulH(out, v []float64) {
	for i := 0; i < 3; i++ {
		out[i] = c.hs[i*3]*v[0] + c.hs[i*3+1]*v[1] + c.hs[i*3+2]*v[2]
	}
}

func (c *nonsymCone) denseH(out []float64) { copy(out, c.hs[:]) }

func (c *nonsymCone) affineDs(ds, s []float64) { copy(ds, s) }

// combinedDsShift: shift = σμ∇f*(z) − η with the third-order correction
//
//	η = ½·∇³f*(z)[Δz, (∇²f*(z))⁻¹Δs]
//
// along the predictor direction (Δs, Δz) (Dahl & Andersen 2022, Section 5.2;
// Clarabel's combined_ds_shift). It is the second-order Taylor term of the
// dual central path s(α) = −μ(α)∇f*(z(α)) with μ(α) = (1−α)μ: differentiating
// twice and using the logarithmic homogeneity ∇³f*(z)[z] = −2∇²f*(z) gives
// s̈ + μ∇²f*(z)z̈ = ∇³f*(z)[ż, (∇²f*(z))⁻¹ṡ]. On the nonnegative orthant
// (f* = −Σ log z) η = −ΔsΔz/z, Mehrotra's corrector.
func (c *nonsymCone) combinedDsShift(shift, dz, ds []float64, sigmaMu float64) {
	for i := 0; i < 3; i++ {
		shift[i] = sigmaMu * c.g[i]
	}
	u, eta := &c.work, &c.work2
	if c.noThird || !solve3(u[:], &c.hd, ds) {
		return
	}
	c.f.dualThird(eta[:], c.z[:], dz, u[:])
	for i := 0; i < 3; i++ {
		e := 0.5 * eta[i]
		if math.IsNaN(e) || math.IsInf(e, 0) {
			for k := 0; k < 3; k++ {
				shift[k] = sigmaMu * c.g[k]
			}
			return
		}
		shift[i] -= e
	}
}

// solve3 solves the symmetric positive definite 3×3 system H·x = b (row-major
// H) by Cholesky; false if H is not numerically positive definite.
func solve3(x []float64, h *[9]float64, b []float64) bool {
	l00 := h[0]
	if !(l00 > 0) {
		return false
	}
	l00 = math.Sqrt(l00)
	l10 := h[3] / l00
	l20 := h[6] / l00
	d1 := h[4] - l10*l10
	if !(d1 > 0) {
		return false
	}
	l11 := math.Sqrt(d1)
	l21 := (h[7] - l20*l10) / l11
	d2 := h[8] - l20*l20 - l21*l21
	if !(d2 > 0) {
		return false
	}
	l22 := math.Sqrt(d2)
	y0 := b[0] / l00
	y1 := (b[1] - l10*y0) / l11
	y2 := (b[2] - l20*y0 - l21*y1) / l22
	x[2] = y2 / l22
	x[1] = (y1 - l21*x[2]) / l11
	x[0] = (y0 - l10*x[1] - l20*x[2]) / l00
	return true
}

func (c *nonsymCone) dsOffset(out, ds []float64) { copy(out, ds) }

// stepBisections is the number of bisections by which the primal–dual
// scaling's step length is refined between the first backtracking step
// inside the cone and the one before it (at most a 0.8⁻¹ − 1 = 25% longer
// step; the dual scaling's step is the backtracking one, its barrier test
// decides it). Measured (BENCHMARKS.md "Exponential-cone scaling, round
// 13"): 3 bisections take exp 748 instead of 801 iterations, entropy 618
// instead of 683, over the 50 instances of each family.
const stepBisections = 3

func (c *nonsymCone) stepLength(dz, ds, z, s []float64, amax float64) (float64, float64) {
	if _, ok := c.f.(expBarriers); ok {
		return expStepLength(dz, ds, z, s, amax, !c.dualOnly)
	}
	const backtrack = 0.8
	v := &c.work
	az := amax
	for k := 0; k < 100; k++ {
		for i := 0; i < 3; i++ {
			v[i] = z[i] + az*dz[i]
		}
		if c.f.dualIn(v[:]) {
			break
		}
		az *= backtrack
	}
	as := amax
	for k := 0; k < 100; k++ {
		for i := 0; i < 3; i++ {
			v[i] = s[i] + as*ds[i]
		}
		if c.f.primalIn(v[:]) {
			break
		}
		as *= backtrack
	}
	if !c.dualOnly {
		refine := func(a float64, in func([]float64) bool, x, dx []float64) float64 {
			if a >= amax {
				return a
			}
			lo, hi := a, math.Min(amax, a/backtrack)
			for k := 0; k < stepBisections; k++ {
				mid := 0.5 * (lo + hi)
				for i := 0; i < 3; i++ {
					v[i] = x[i] + mid*dx[i]
				}
				if in(v[:]) {
					lo = mid
				} else {
					hi = mid
				}
			}
			return lo
		}
		az = refine(az, c.f.dualIn, z, dz)
		as = refine(as, c.f.primalIn, s, ds)
	}
	return az, as
}

func (c *nonsymCone) barrier(z, s, dz, ds []float64, a float64) float64 {
	zv, sv := &c.work, &c.work2
	for i := 0; i < 3; i++ {
		zv[i] = z[i] + a*dz[i]
		sv[i] = s[i] + a*ds[i]
	}
	if _, ok := c.f.(expBarriers); ok {
		return expBarrierSum(zv, sv)
	}
	return c.f.dualValue(zv[:]) + c.f.primalValue(sv[:])
}

// assembleGH sets g = −∇ψ/ψ + lg and h = ∇ψ∇ψᵀ/ψ² − ∇²ψ/ψ + diag(ld), the
// gradient and Hessian of −log ψ + (separable log terms).
func assembleGH(g []float64, h *[9]float64, psi float64, dpsi [3]float64, d2psi [9]float64, lg, ld [3]float64) {
	for i := 0; i < 3; i++ {
		g[i] = -dpsi[i]/psi + lg[i]
		for j := 0; j < 3; j++ {
			h[i*3+j] = dpsi[i]*dpsi[j]/(psi*psi) - d2psi[i*3+j]/psi
		}
		h[i*3+i] += ld[i]
	}
}

// assembleThird sets out = ∇³(−log ψ)[a, b] + diag(lt)·(a∘b), the third
// derivative of −log ψ + (separable log terms) applied to a and b, from
// ψ, ∇ψ, ∇²ψ and t3 = ∇³ψ[a, b]:
//
//	∇³(−log ψ)[a,b] = −t3/ψ + (∇²ψa·(∇ψᵀb) + ∇²ψb·(∇ψᵀa) + ∇ψ·(aᵀ∇²ψb))/ψ²
//	                  − 2∇ψ(∇ψᵀa)(∇ψᵀb)/ψ³.
func assembleThird(out []float64, psi float64, dpsi [3]float64, d2psi [9]float64, t3, lt [3]float64, a, b []float64) {
	var ha, hb [3]float64
	var ga, gb, ahb float64
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			ha[i] += d2psi[i*3+j] * a[j]
			hb[i] += d2psi[i*3+j] * b[j]
		}
		ga += dpsi[i] * a[i]
		gb += dpsi[i] * b[i]
	}
	for i := 0; i < 3; i++ {
		ahb += a[i] * hb[i]
	}
	p2, p3 := psi*psi, psi*psi*psi
	for i := 0; i < 3; i++ {
		out[i] = -t3[i]/psi + (ha[i]*gb+hb[i]*ga+dpsi[i]*ahb)/p2 - 2*dpsi[i]*ga*gb/p3 + lt[i]*a[i]*b[i]
	}
}

// ------------------------------------------------------- exponential cone

// expBarriers: K = cl{(x,y,z) : y > 0, y·exp(x/y) ≤ z},
//
//	f(s)  = −log(y·log(z/y) − x) − log y − log z,
//	f*(u,v,w) = −log(v − u − u·log(−w/u)) − log(−u) − log w,
//
// the barriers used by Clarabel and by Dahl & Andersen (2022).
type expBarriers struct{}

func (expBarriers) central(v []float64) {
	// The point with s = z = −∇f*(z) used by Clarabel and ECOS.
	v[0], v[1], v[2] = -1.051383945322714, 0.556409619469370, 1.258967884768947
}

// primalIn decides (x,y,z) ∈ int K with one logarithm: y > 0, z > 0 and
// φ = y·log(z/y) − x > 0. This is the domain of f: −log y and −log z are
// finite iff y, z > 0, and then −log φ is finite iff φ > 0. It is int K:
// for y, z > 0, y·exp(x/y) < z ⇔ x/y < log(z/y) (log is increasing)
// ⇔ φ > 0 (multiply by y > 0); and y > 0 holds on int K since the points of
// K with y = 0 (x ≤ 0, z ≥ 0) form its boundary.
func (expBarriers) primalIn(s []float64) bool {
	x, y, z := s[0], s[1], s[2]
	return y > 0 && z > 0 && y*math.Log(z/y)-x > 0
}

func (expBarriers) primalValue(s []float64) float64 {
	x, y, z := s[0], s[1], s[2]
	if !(y > 0 && z > 0) {
		return math.Inf(1)
	}
	phi := y*math.Log(z/y) - x
	if !(phi > 0) {
		return math.Inf(1)
	}
	return -math.Log(phi) - math.Log(y) - math.Log(z)
}

func (expBarriers) primalGrad(g, s []float64) bool {
	x, y, z := s[0], s[1], s[2]
	if !(y > 0 && z > 0) {
		return false
	}
	lzy := math.Log(z / y)
	phi := y*lzy - x
	if !(phi > 0) {
		return false
	}
	g[0] = 1 / phi
	g[1] = -(lzy-1)/phi - 1/y
	g[2] = -(y/z)/phi - 1/z
	return true
}

// shadowGrad: f* is not the conjugate of f here, so the shadow point
// comes from solving s = −∇f*(z̃) in closed form. With
//
//	∇f*(u,v,w) = (log(−w/u)/ψ − 1/u, −1/ψ, u/(wψ) − 1/w),  ψ = v − u − u·log(−w/u),
//
// s = (x, y, z) = −∇f*(u,v,w) gives ψ = 1/y; writing p = u·y and
// ω = 1 − 1/p, the first and third components reduce to
// ω + log ω = 1 − x/y − log(y/z) =: t, so ω = W(t) (the Wright omega
// function; t > 1 exactly on int K, where y·log(z/y) − x > 0, and then
// ω > 1), and
//
//	u = 1/((1−ω)y),  w = ω/((ω−1)z),  v = 1/y + u + u·log(ωy/z),
//
// so ∇f**(s) = −(u, v, w). The same closed form is used by Clarabel
// (Goulart & Chen 2024, Section 4.4) and by Dahl & Andersen (2022,
// Section 3); TestExpShadowGrad checks −∇f*(−g) = s.
func (expBarriers) shadowGrad(g, s []float64) bool {
	x, y, z := s[0], s[1], s[2]
	if !(y > 0 && z > 0) {
		return false
	}
	t := 1 - x/y - math.Log(y/z)
	if !(t > 1) || math.IsInf(t, 0) {
		return false
	}
	w := wrightOmega(t)
	u := 1 / ((1 - w) * y)
	g[0] = -u
	g[1] = -1/y - u - u*math.Log(w*y/z)
	g[2] = w / ((1 - w) * z)
	return true
}

// wrightOmega returns ω(t), the solution y of y + log y = t, for t ≥ 1
// (then y ≥ 1), by Newton's method on h(y) = y + log y − t from
// y₀ = t − log t (exact at t = 1; relative error O(log t / t) for large
// t): h is increasing and concave, so from y₀ ≤ ω(t)... the iterates
// converge quadratically; it stops when a step changes y by at most
// 2 ulps.
func wrightOmega(t float64) float64 {
	y := t - math.Log(t)
	for k := 0; k < 50; k++ {
		d := (y + math.Log(y) - t) / (1 + 1/y)
		y -= d
		if math.Abs(d) <= 4e-16*y {
			break
		}
	}
	return y
}

// dualIn decides (u,v,w) ∈ int K* with one logarithm: u < 0, w > 0 and
// ψ = v − u − u·log(−w/u) > 0, the domain of f* (−log(−u), −log w finite
// iff u < 0, w > 0; then −log ψ finite iff ψ > 0). K* = cl{(u,v,w) : u < 0,
// −u·exp(v/u) ≤ e·w}; for u < 0, w > 0: −u·exp(v/u) < e·w ⇔
// v/u < 1 + log(−w/u) ⇔ v > u + u·log(−w/u) (multiply by u < 0) ⇔ ψ > 0.
func (expBarriers) dualIn(zv []float64) bool {
	u, v, w := zv[0], zv[1], zv[2]
	return u < 0 && w > 0 && v-u-u*math.Log(-w/u) > 0
}

func (expBarriers) dualValue(zv []float64) float64 {
	u, v, w := zv[0], zv[1], zv[2]
	if !(u < 0 && w > 0) {
		return math.Inf(1)
	}
	psi := v - u - u*math.Log(-w/u)
	if !(psi > 0) {
		return math.Inf(1)
	}
	return -math.Log(psi) - math.Log(-u) - math.Log(w)
}

func (expBarriers) dualGradHess(g []float64, h *[9]float64, zv []float64) bool {
	u, v, w := zv[0], zv[1], zv[2]
	if !(u < 0 && w > 0) {
		return false
	}
	psi := v - u - u*math.Log(-w/u)
	if !(psi > 0) {
		return false
	}
	dpsi := [3]float64{math.Log(-u / w), 1, -u / w}
	d2 := [9]float64{1 / u, 0, -1 / w, 0, 0, 0, -1 / w, 0, u / (w * w)}
	assembleGH(g, h, psi, dpsi, d2, [3]float64{-1 / u, 0, -1 / w}, [3]float64{1 / (u * u), 0, 1 / (w * w)})
	return true
}

// dualThird: ψ = v − u − u·log(−w/u) has the third derivatives ψ_uuu = −1/u²,
// ψ_uww = 1/w², ψ_www = −2u/w³ (the others vanish); −log(−u) and −log w
// contribute −2/u³ and −2/w³.
func (expBarriers) dualThird(out []float64, zv, a, b []float64) {
	u, v, w := zv[0], zv[1], zv[2]
	psi := v - u - u*math.Log(-w/u)
	dpsi := [3]float64{math.Log(-u / w), 1, -u / w}
	d2 := [9]float64{1 / u, 0, -1 / w, 0, 0, 0, -1 / w, 0, u / (w * w)}
	t3 := [3]float64{
		-a[0]*b[0]/(u*u) + a[2]*b[2]/(w*w),
		0,
		(a[0]*b[2]+a[2]*b[0])/(w*w) - 2*u*a[2]*b[2]/(w*w*w),
	}
	assembleThird(out, psi, dpsi, d2, t3, [3]float64{-2 / (u * u * u), 0, -2 / (w * w * w)}, a, b)
}

// ------------------------------------------------------------- power cone

// powBarriers: K_α = {(x,y,z) : x^α y^{1−α} ≥ |z|, x, y ≥ 0},
//
//	f(s)  = −log(x^{2α} y^{2−2α} − z²) − (1−α)·log x − α·log y,
//	f*(u,v,w) = −log((u/α)^{2α} (v/(1−α))^{2−2α} − w²) − (1−α)·log u − α·log v,
//
// the dual cone being {(u,v,w) : (u/α)^α (v/(1−α))^{1−α} ≥ |w|} (Clarabel).
type powBarriers struct{ alpha float64 }

func (p powBarriers) central(v []float64) {
	v[0], v[1], v[2] = math.Sqrt(1+p.alpha), math.Sqrt(2-p.alpha), 0
}

// primalIn decides (x,y,z) ∈ int K_α: x, y > 0 and φ = x^{2α}y^{2−2α} − z² > 0
// (the domain of f: the log terms in x and y are finite iff x, y > 0, and
// then −log φ iff φ > 0; φ > 0 ⇔ x^α y^{1−α} > |z|), without f's three
// further logarithms.
func (p powBarriers) primalIn(s []float64) bool {
	x, y, z := s[0], s[1], s[2]
	a := p.alpha
	return x > 0 && y > 0 && math.Exp(2*a*math.Log(x)+(2-2*a)*math.Log(y))-z*z > 0
}

// dualIn decides (u,v,w) ∈ int K_α*: u, v > 0 and
// (u/α)^{2α}(v/(1−α))^{2−2α} − w² > 0, the domain of f*, as primalIn.
func (p powBarriers) dualIn(zv []float64) bool {
	u, v, w := zv[0], zv[1], zv[2]
	a := p.alpha
	return u > 0 && v > 0 && math.Exp(2*a*math.Log(u/a)+(2-2*a)*math.Log(v/(1-a)))-w*w > 0
}

func (p powBarriers) primalValue(s []float64) float64 {
	x, y, z := s[0], s[1], s[2]
	a := p.alpha
	if !(x > 0 && y > 0) {
		return math.Inf(1)
	}
	phi := math.Exp(2*a*math.Log(x)+(2-2*a)*math.Log(y)) - z*z
	if !(phi > 0) {
		return math.Inf(1)
	}
	return -math.Log(phi) - (1-a)*math.Log(x) - a*math.Log(y)
}

func (p powBarriers) primalGrad(g, s []float64) bool {
	x, y, z := s[0], s[1], s[2]
	a := p.alpha
	if !(x > 0 && y > 0) {
		return false
	}
	phi1 := math.Exp(2*a*math.Log(x) + (2-2*a)*math.Log(y))
	phi := phi1 - z*z
	if !(phi > 0) {
		return false
	}
	g[0] = -2*a*phi1/x/phi - (1-a)/x
	g[1] = -(2-2*a)*phi1/y/phi - a/y
	g[2] = 2 * z / phi
	return true
}

// shadowGrad solves s = −∇f*(z̃) for z̃ = (u, v, w) and writes −z̃. With
// φ = (u/α)^{2α}(v/(1−α))^{2−2α}, ψ = φ − w² and r = φ/ψ ≥ 1, the three
// components of s = −∇f*(z̃) read
//
//	x = (2αr + 1 − α)/u,  y = ((2−2α)r + α)/v,  z = −2w/ψ,
//
// and w² = φ − ψ = (r−1)ψ gives ψ = 4(r−1)/z², w = −2(r−1)/z (z ≠ 0).
// Substituting u and v into φ = rψ leaves one equation in r:
//
//	G(r) = 2α·log(2r + (1−α)/α) + (2−2α)·log(2r + α/(1−α)) − log(r(r−1))
//	       − log(4·x^{2α}y^{2−2α}/z²) = 0,
//
// with G → +∞ as r → 1 and G → −log(x^{2α}y^{2−2α}/z²) < 0 as r → ∞ on
// int K, so a root exists; it is found in t = log(r − 1) by bracketing and
// safeguarded Newton steps. z = 0 gives r = 1 and w = 0. Should the root
// not be bracketed (|t| beyond 700), the primal gradient is used: the
// update's secant conditions hold for any shadow point, only its quality
// differs. TestPowShadowGrad checks −∇f*(z̃) = s.
func (p powBarriers) shadowGrad(g, s []float64) bool {
	x, y, z := s[0], s[1], s[2]
	a := p.alpha
	if !p.primalIn(s) {
		return false
	}
	if z == 0 {
		g[0], g[1], g[2] = -(1+a)/x, -(2-a)/y, 0
		return true
	}
	a1, a2 := (1-a)/a, a/(1-a)
	c := 2*a*math.Log(x) + (2-2*a)*math.Log(y) - 2*math.Log(math.Abs(z)) + math.Log(4)
	// G and dG/dt at t = log(r − 1).
	eval := func(t float64) (float64, float64) {
		rho := math.Exp(t)
		r := 1 + rho
		gv := 2*a*math.Log(2*r+a1) + (2-2*a)*math.Log(2*r+a2) - math.Log(r) - t - c
		d := (4*a/(2*r+a1) + (4-4*a)/(2*r+a2) - 1/r) * rho
		return gv, d - 1
	}
	lo, hi := -1.0, 1.0 // G(lo) > 0 > G(hi)
	for gl, _ := eval(lo); gl <= 0; gl, _ = eval(lo) {
		if lo -= 4; lo < -700 {
			return p.primalGrad(g, s)
		}
	}
	for gh, _ := eval(hi); gh >= 0; gh, _ = eval(hi) {
		if hi += 4; hi > 700 {
			return p.primalGrad(g, s)
		}
	}
	t := 0.5 * (lo + hi)
	for k := 0; k < 200; k++ {
		gv, d := eval(t)
		if gv > 0 {
			lo = t
		} else {
			hi = t
		}
		next := t - gv/d
		if !(next > lo && next < hi) || d >= 0 {
			next = 0.5 * (lo + hi)
		}
		if math.Abs(next-t) <= 1e-15*(1+math.Abs(t)) || hi-lo <= 1e-15*(1+math.Abs(t)) {
			t = next
			break
		}
		t = next
	}
	rho := math.Exp(t)
	r := 1 + rho
	g[0] = -(2*a*r + 1 - a) / x
	g[1] = -((2-2*a)*r + a) / y
	g[2] = 2 * rho / z
	return true
}

func (p powBarriers) dualValue(zv []float64) float64 {
	u, v, w := zv[0], zv[1], zv[2]
	a := p.alpha
	if !(u > 0 && v > 0) {
		return math.Inf(1)
	}
	psi := math.Exp(2*a*math.Log(u/a)+(2-2*a)*math.Log(v/(1-a))) - w*w
	if !(psi > 0) {
		return math.Inf(1)
	}
	return -math.Log(psi) - (1-a)*math.Log(u) - a*math.Log(v)
}

func (p powBarriers) dualGradHess(g []float64, h *[9]float64, zv []float64) bool {
	u, v, w := zv[0], zv[1], zv[2]
	a := p.alpha
	if !(u > 0 && v > 0) {
		return false
	}
	psi1 := math.Exp(2*a*math.Log(u/a) + (2-2*a)*math.Log(v/(1-a)))
	psi := psi1 - w*w
	if !(psi > 0) {
		return false
	}
	dpsi := [3]float64{2 * a * psi1 / u, (2 - 2*a) * psi1 / v, -2 * w}
	uv := 2 * a * (2 - 2*a) * psi1 / (u * v)
	d2 := [9]float64{
		2 * a * (2*a - 1) * psi1 / (u * u), uv, 0,
		uv, (2 - 2*a) * (1 - 2*a) * psi1 / (v * v), 0,
		0, 0, -2}
	assembleGH(g, h, psi, dpsi, d2, [3]float64{-(1 - a) / u, -a / v, 0}, [3]float64{(1 - a) / (u * u), a / (v * v), 0})
	return true
}

// dualThird: ψ = φ(u, v) − w² with φ = (u/α)^p (v/(1−α))^q, p = 2α,
// q = 2 − 2α, whose third derivatives are φ·p(p−1)(p−2)/u³, φ·p(p−1)q/(u²v),
// φ·pq(q−1)/(uv²), φ·q(q−1)(q−2)/v³; −(1−α)log u and −α log v contribute
// −2(1−α)/u³ and −2α/v³.
func (p powBarriers) dualThird(out []float64, zv, a, b []float64) {
	u, v, w := zv[0], zv[1], zv[2]
	al := p.alpha
	pp, qq := 2*al, 2-2*al
	phi := math.Exp(pp*math.Log(u/al) + qq*math.Log(v/(1-al)))
	psi := phi - w*w
	dpsi := [3]float64{pp * phi / u, qq * phi / v, -2 * w}
	uv := pp * qq * phi / (u * v)
	d2 := [9]float64{
		pp * (pp - 1) * phi / (u * u), uv, 0,
		uv, qq * (qq - 1) * phi / (v * v), 0,
		0, 0, -2}
	tuuu := phi * pp * (pp - 1) * (pp - 2) / (u * u * u)
	tuuv := phi * pp * (pp - 1) * qq / (u * u * v)
	tuvv := phi * pp * qq * (qq - 1) / (u * v * v)
	tvvv := phi * qq * (qq - 1) * (qq - 2) / (v * v * v)
	ab := a[0]*b[1] + a[1]*b[0]
	t3 := [3]float64{
		tuuu*a[0]*b[0] + tuuv*ab + tuvv*a[1]*b[1],
		tuuv*a[0]*b[0] + tuvv*ab + tvvv*a[1]*b[1],
		0,
	}
	assembleThird(out, psi, dpsi, d2, t3, [3]float64{-2 * (1 - al) / (u * u * u), -2 * al / (v * v * v), 0}, a, b)
}
