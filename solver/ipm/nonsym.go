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
	primalValue(s []float64) float64 // +Inf outside int K
	// dualGradHess writes ∇f*(z) and ∇²f*(z) (row-major 3×3); false outside int K*.
	dualGradHess(g []float64, h *[9]float64, z []float64) bool
	dualValue(z []float64) float64
	// central writes a point with s = z on the central ray.
	central(v []float64)
}

// nonsymCone implements the primal–dual scaling of Dahl & Andersen (2022),
// Section 4 (the BFGS-type update of Tunçel 2001 / Myklebust & Tunçel 2014):
// with s̃ = −∇f*(z), z̃ = −∇f(s), μ = ⟨s,z⟩/3, δs = s − μs̃, δz = z − μz̃,
//
//	H = ssᵀ/⟨s,z⟩ + δsδsᵀ/⟨δs,δz⟩ + μ·(âᵀ∇²f*(z)â)·ââᵀ,  â ∝ z × z̃,
//
// which satisfies H z = s and H z̃ = s̃ and is positive definite; when the
// update is ill-defined (near the central path ⟨δs,δz⟩ → 0) the dual scaling
// H = μ∇²f*(z) is used instead.
type nonsymCone struct {
	f    barrierPair
	z    [3]float64
	g    [3]float64 // ∇f*(z)
	hd   [9]float64 // ∇²f*(z)
	hs   [9]float64 // H
	work [3]float64
	// dualOnly forces the dual scaling H = μ∇²f*(z).
	dualOnly bool
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
	var gp [3]float64
	if !c.f.primalGrad(gp[:], s) {
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
	var aha float64
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			aha += a[i] * c.hd[i*3+j] * a[j]
		}
	}
	t := mul * aha
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

// combinedDsShift: shift = σμ∇f*(z) + ½σμ∇³f*(z)[Δz, Δz], the second-order
// Taylor term of the central-path condition s + σμ∇f*(z + Δz) = 0 along the
// predictor direction Δz (a Mehrotra-type corrector). The third directional
// derivative is a central difference of the analytic Hessian.
func (c *nonsymCone) combinedDsShift(shift, dz, ds []float64, sigmaMu float64) {
	for i := 0; i < 3; i++ {
		shift[i] = sigmaMu * c.g[i]
	}
	nz, nd := norm2(c.z[:]), norm2(dz)
	if nd == 0 {
		return
	}
	// u = Δz: the second-order term of σμ∇f*(z + Δz)
	var u [3]float64
	copy(u[:], dz)
	h := 1e-5 * nz / nd
	var zp, zm, gtmp [3]float64
	var hp, hm [9]float64
	for k := 0; k < 20; k++ {
		for i := 0; i < 3; i++ {
			zp[i] = c.z[i] + h*dz[i]
			zm[i] = c.z[i] - h*dz[i]
		}
		if c.f.dualGradHess(gtmp[:], &hp, zp[:]) && c.f.dualGradHess(gtmp[:], &hm, zm[:]) {
			for i := 0; i < 3; i++ {
				var e float64
				for j := 0; j < 3; j++ {
					e += (hp[i*3+j] - hm[i*3+j]) * u[j]
				}
				eta := 0.5 * sigmaMu * e / (2 * h)
				if math.IsNaN(eta) || math.IsInf(eta, 0) {
					return
				}
				shift[i] += eta
			}
			return
		}
		h /= 4
	}
}

func (c *nonsymCone) dsOffset(out, ds []float64) { copy(out, ds) }

func (c *nonsymCone) stepLength(dz, ds, z, s []float64, amax float64) (float64, float64) {
	const backtrack = 0.8
	var v [3]float64
	az := amax
	for k := 0; k < 100; k++ {
		for i := 0; i < 3; i++ {
			v[i] = z[i] + az*dz[i]
		}
		if !math.IsInf(c.f.dualValue(v[:]), 1) {
			break
		}
		az *= backtrack
	}
	as := amax
	for k := 0; k < 100; k++ {
		for i := 0; i < 3; i++ {
			v[i] = s[i] + as*ds[i]
		}
		if !math.IsInf(c.f.primalValue(v[:]), 1) {
			break
		}
		as *= backtrack
	}
	return az, as
}

func (c *nonsymCone) barrier(z, s, dz, ds []float64, a float64) float64 {
	var zv, sv [3]float64
	for i := 0; i < 3; i++ {
		zv[i] = z[i] + a*dz[i]
		sv[i] = s[i] + a*ds[i]
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
