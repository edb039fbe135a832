package ipm

import "math"

// conic is one block of the internal product cone. Its methods implement the
// per-cone operations of the primal–dual method of Goulart & Chen, "Clarabel: An
// interior-point solver for conic programs with quadratic objectives" (2024),
// Section 4. With H the block of the scaling matrix (H = WᵀW for symmetric
// cones, H ≈ μ∇²f*(z) for the exponential and power cones), the linearized
// complementarity of the Newton system reads
//
//	Δs + H·Δz = −offset(ds),
//
// where offset(ds) = Wᵀ(λ \ ds) for symmetric cones (λ = Wz = W⁻ᵀs, "\" the
// inverse Jordan product) and offset(ds) = ds for the non-symmetric cones.
// Vectors passed to the methods are the block's own coordinates.
type conic interface {
	dim() int
	// degree is the barrier parameter ν of the block (0 for the zero cone).
	degree() float64
	symmetric() bool
	// unitInit sets s and z to a central point of the cone and its dual.
	unitInit(s, z []float64)
	// margin returns the smallest eigenvalue of v (+Inf for the zero cone),
	// and addE adds a·e (symmetric cones only).
	margin(v []float64) float64
	addE(v []float64, a float64)
	// updateScaling computes the scaling at (s, z) with μ = ⟨s,z⟩/ν of the whole
	// problem; false means s or z left the interior.
	updateScaling(s, z []float64, mu float64) bool
	// mulH computes out = H·v.
	mulH(out, v []float64)
	// affineDs sets the predictor right-hand side: λ∘λ (symmetric) or s.
	affineDs(ds, s []float64)
	// combinedDsShift sets shift to the corrector term added to affineDs:
	// (W⁻ᵀΔs)∘(WΔz) − σμe (symmetric), σμ∇f*(z) − ½∇³f*(z)[Δz, ∇²f*(z)⁻¹Δs]
	// (non-symmetric). It may overwrite dz and ds.
	combinedDsShift(shift, dz, ds []float64, sigmaMu float64)
	// dsOffset sets out = offset(ds).
	dsOffset(out, ds []float64)
	// stepLength returns the largest α ≤ αmax with z + α·dz ∈ K* and
	// s + α·ds ∈ K (strictly, for the backtracking cones).
	stepLength(dz, ds, z, s []float64, alphaMax float64) (alphaZ, alphaS float64)
	// barrier returns f(s + α·ds) + f*(z + α·dz) (used by the centrality check
	// of the non-symmetric cones; +Inf outside the domain).
	barrier(z, s, dz, ds []float64, alpha float64) float64
}

// hBlock is implemented by cones whose H enters the KKT matrix as a dense
// block: denseH writes H into out, column-major d×d.
type hBlock interface {
	denseH(out []float64)
}

// socExpander is implemented by the second-order cone: H = η²(D + uuᵀ − vvᵀ)
// with D diagonal, represented in the KKT matrix by two extra rows.
type socExpander interface {
	expansion() (eta2 float64, d0 float64, u, v []float64)
}

var sqrtEps = math.Sqrt(2.220446049250313e-16)

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// normInf returns ‖v‖∞ = max_i |v_i| (0 for an empty v), NaN if an entry
// is NaN; on x86-64 by normInfAsm.
func normInf(v []float64) float64 {
	if haveMulKAsm && len(v) > 0 {
		return normInfAsm(&v[0], len(v))
	}
	var m float64
	for _, x := range v {
		if a := math.Abs(x); a > m || math.IsNaN(a) {
			m = a
		}
	}
	return m
}

// ---------------------------------------------------------------- zero cone

// zeroCone is {0}^d: s = 0, z free. Its H block is zero (the KKT matrix keeps
// only the static regularization there), its degree 0.
type zeroCone struct{ d int }

func (c *zeroCone) dim() int                                                      { return c.d }
func (c *zeroCone) degree() float64                                               { return 0 }
func (c *zeroCone) symmetric() bool                                               { return true }
func (c *zeroCone) unitInit(s, z []float64)                                       { clear(s); clear(z) }
func (c *zeroCone) margin([]float64) float64                                      { return math.Inf(1) }
func (c *zeroCone) addE([]float64, float64)                                       {}
func (c *zeroCone) updateScaling(_, _ []float64, _ float64) bool                  { return true }
func (c *zeroCone) mulH(out, _ []float64)                                         { clear(out) }
func (c *zeroCone) affineDs(ds, _ []float64)                                      { clear(ds) }
func (c *zeroCone) combinedDsShift(shift, _, _ []float64, _ float64)              { clear(shift) }
func (c *zeroCone) dsOffset(out, _ []float64)                                     { clear(out) }
func (c *zeroCone) stepLength(_, _, _, _ []float64, a float64) (float64, float64) { return a, a }
func (c *zeroCone) barrier(_, _, _, _ []float64, _ float64) float64               { return 0 }
func (c *zeroCone) denseH(out []float64)                                          { clear(out) }

// ---------------------------------------------------------- nonnegative cone

// nonnegCone is the orthant with the scaling W = diag(√(s/z)), λ = √(s∘z).
type nonnegCone struct {
	d      int
	w, lam []float64
}

// nonnegFloats is the number of float64s per dimension a nonnegCone holds.
const nonnegFloats = 2

// newNonneg returns the orthant of dimension d; its vectors are cut from buf
// (nonnegFloats·d floats), or allocated when buf is nil.
func newNonneg(d int, buf []float64) *nonnegCone {
	if buf == nil {
		buf = make([]float64, nonnegFloats*d)
	}
	return &nonnegCone{d: d, w: buf[:d:d], lam: buf[d : 2*d : 2*d]}
}

func (c *nonnegCone) dim() int        { return c.d }
func (c *nonnegCone) degree() float64 { return float64(c.d) }
func (c *nonnegCone) symmetric() bool { return true }
func (c *nonnegCone) unitInit(s, z []float64) {
	for i := range s {
		s[i], z[i] = 1, 1
	}
}
func (c *nonnegCone) margin(v []float64) float64 {
	m := math.Inf(1)
	for _, x := range v {
		m = min(m, x)
	}
	return m
}
func (c *nonnegCone) addE(v []float64, a float64) {
	for i := range v {
		v[i] += a
	}
}
func (c *nonnegCone) updateScaling(s, z []float64, _ float64) bool {
	for i := range s {
		if !(s[i] > 0 && z[i] > 0) {
			return false
		}
		c.w[i] = math.Sqrt(s[i] / z[i])
		c.lam[i] = math.Sqrt(s[i] * z[i])
	}
	return true
}
func (c *nonnegCone) mulH(out, v []float64) {
	for i := range v {
		out[i] = c.w[i] * c.w[i] * v[i]
	}
}
func (c *nonnegCone) affineDs(ds, _ []float64) {
	for i := range ds {
		ds[i] = c.lam[i] * c.lam[i]
	}
}
func (c *nonnegCone) combinedDsShift(shift, dz, ds []float64, sigmaMu float64) {
	for i := range shift {
		shift[i] = dz[i]*ds[i] - sigmaMu
	}
}
func (c *nonnegCone) dsOffset(out, ds []float64) {
	// Wᵀ(λ \ ds) = w·ds/λ = ds/z.
	for i := range out {
		out[i] = c.w[i] * ds[i] / c.lam[i]
	}
}
func (c *nonnegCone) stepLength(dz, ds, z, s []float64, a float64) (float64, float64) {
	az, as := a, a
	for i := range dz {
		if dz[i] < 0 {
			az = min(az, -z[i]/dz[i])
		}
		if ds[i] < 0 {
			as = min(as, -s[i]/ds[i])
		}
	}
	return az, as
}
func (c *nonnegCone) barrier(z, s, dz, ds []float64, a float64) float64 {
	var b float64
	for i := range z {
		p := (s[i] + a*ds[i]) * (z[i] + a*dz[i])
		if !(p > 0) {
			return math.Inf(1)
		}
		b -= math.Log(p)
	}
	return b
}
func (c *nonnegCone) denseH(out []float64) {
	clear(out)
	for i := 0; i < c.d; i++ {
		out[i*c.d+i] = c.w[i] * c.w[i]
	}
}

// -------------------------------------------------------- second-order cone

// socCone is {(t, x) : t ≥ ‖x‖} with Nesterov–Todd scaling W = η·W̄,
//
//	W̄ = [w₀ w₁ᵀ; w₁ I + w₁w₁ᵀ/(1+w₀)],  w̄ = (s̄ + Jz̄)/(2γ),
//	s̄ = s/√(sᵀJs), z̄ = z/√(zᵀJz), γ = √((1 + s̄ᵀz̄)/2), η = (sᵀJs/zᵀJz)^{1/4},
//
// J = diag(1, −1, …, −1), so that W z = W s⁻ᵀ… = λ and WᵀW = η²(2w̄w̄ᵀ − J)
// (Vandenberghe, "The CVXOPT linear and quadratic cone program solvers", 2010,
// Section 4).
type socCone struct {
	d    int
	eta  float64
	w    []float64 // w̄
	lam  []float64
	work []float64
	// sparse expansion: WᵀW = η²(D + uuᵀ − vvᵀ), D = diag(d0, 1, …, 1)
	d0   float64
	u, v []float64
}

// socFloats is the number of float64s per dimension a socCone holds.
const socFloats = 5

// newSOC returns the second-order cone of dimension d; its vectors are cut
// from buf (socFloats·d floats), or allocated when buf is nil.
func newSOC(d int, buf []float64) *socCone {
	if buf == nil {
		buf = make([]float64, socFloats*d)
	}
	cut := func(i int) []float64 { return buf[i*d : (i+1)*d : (i+1)*d] }
	return &socCone{d: d, w: cut(0), lam: cut(1), work: cut(2), u: cut(3), v: cut(4)}
}

func (c *socCone) dim() int        { return c.d }
func (c *socCone) degree() float64 { return 1 }
func (c *socCone) symmetric() bool { return true }
func (c *socCone) unitInit(s, z []float64) {
	clear(s)
	clear(z)
	s[0], z[0] = 1, 1
}

// socResidual returns t² − ‖x‖² computed as (t − ‖x‖)(t + ‖x‖).
func socResidual(v []float64) float64 {
	nx := norm2(v[1:])
	return (v[0] - nx) * (v[0] + nx)
}

func norm2(v []float64) float64 {
	var scale, ssq float64 = 0, 1
	for _, x := range v {
		if x != 0 {
			a := math.Abs(x)
			if scale < a {
				ssq = 1 + ssq*(scale/a)*(scale/a)
				scale = a
			} else {
				ssq += (a / scale) * (a / scale)
			}
		}
	}
	return scale * math.Sqrt(ssq)
}

func (c *socCone) margin(v []float64) float64  { return v[0] - norm2(v[1:]) }
func (c *socCone) addE(v []float64, a float64) { v[0] += a }

func (c *socCone) updateScaling(s, z []float64, _ float64) bool {
	sres, zres := socResidual(s), socResidual(z)
	if !(sres > 0 && zres > 0 && s[0] > 0 && z[0] > 0) {
		return false
	}
	sn, zn := math.Sqrt(sres), math.Sqrt(zres)
	var sz float64
	for i := range s {
		sz += s[i] * z[i]
	}
	gamma := math.Sqrt((1 + sz/(sn*zn)) / 2)
	w := c.w
	w[0] = (s[0]/sn + z[0]/zn) / (2 * gamma)
	for i := 1; i < c.d; i++ {
		w[i] = (s[i]/sn - z[i]/zn) / (2 * gamma)
	}
	// Renormalize w̄ onto the hyperboloid w₀² − ‖w₁‖² = 1 for stability.
	w1 := norm2(w[1:])
	w[0] = math.Sqrt(1 + w1*w1)
	c.eta = math.Sqrt(sn / zn)
	// λ = W z
	c.mulW(c.lam, z)
	// sparse expansion (see socExpander): with wsq = ‖w̄‖²,
	// d0 = 1/(2 wsq), u = (u0, u1 w̄₁), v = (0, v1 w̄₁),
	// u0 = √(wsq − d0), u1 = 2w̄₀/u0, v1 = √(u1² − 2).
	wsq := w[0]*w[0] + w1*w1
	c.d0 = 0.5 / wsq
	u0 := math.Sqrt(wsq - c.d0)
	u1 := 2 * w[0] / u0
	v1 := math.Sqrt(math.Max(u1*u1-2, 0))
	c.u[0], c.v[0] = u0, 0
	for i := 1; i < c.d; i++ {
		c.u[i] = u1 * w[i]
		c.v[i] = v1 * w[i]
	}
	return true
}

// mulW: out = W v = η W̄ v (W symmetric). out must not alias v.
func (c *socCone) mulW(out, v []float64) {
	w := c.w
	w1v1 := dot(w[1:], v[1:])
	out[0] = c.eta * (w[0]*v[0] + w1v1)
	f := v[0] + w1v1/(1+w[0])
	for i := 1; i < c.d; i++ {
		out[i] = c.eta * (v[i] + f*w[i])
	}
}

// mulWinv: out = W⁻¹ v = (1/η) J W̄ J v. out must not alias v.
func (c *socCone) mulWinv(out, v []float64) {
	w := c.w
	w1v1 := dot(w[1:], v[1:])
	out[0] = (w[0]*v[0] - w1v1) / c.eta
	f := -v[0] + w1v1/(1+w[0])
	for i := 1; i < c.d; i++ {
		out[i] = (v[i] + f*w[i]) / c.eta
	}
}

func (c *socCone) mulH(out, v []float64) {
	// η²(2 w̄ w̄ᵀv − Jv)
	e2 := c.eta * c.eta
	t := 2 * dot(c.w, v)
	out[0] = e2 * (t*c.w[0] - v[0])
	for i := 1; i < c.d; i++ {
		out[i] = e2 * (t*c.w[i] + v[i])
	}
}

func (c *socCone) denseH(out []float64) {
	e2 := c.eta * c.eta
	d := c.d
	for j := 0; j < d; j++ {
		for i := 0; i < d; i++ {
			out[j*d+i] = e2 * 2 * c.w[i] * c.w[j]
		}
	}
	out[0] -= e2
	for i := 1; i < d; i++ {
		out[i*d+i] += e2
	}
}

func (c *socCone) expansion() (float64, float64, []float64, []float64) {
	return c.eta * c.eta, c.d0, c.u, c.v
}

// jordan: out = x∘y = (xᵀy, x₀y₁ + y₀x₁).
func socJordan(out, x, y []float64) {
	out[0] = dot(x, y)
	for i := 1; i < len(x); i++ {
		out[i] = x[0]*y[i] + y[0]*x[i]
	}
}

// socJordanInv: out = λ \ d, the solution of λ∘out = d.
func socJordanInv(out, lam, d []float64) {
	rho := (lam[0] - norm2(lam[1:])) * (lam[0] + norm2(lam[1:]))
	l1d1 := dot(lam[1:], d[1:])
	x0 := (lam[0]*d[0] - l1d1) / rho
	out[0] = x0
	for i := 1; i < len(d); i++ {
		out[i] = (d[i] - x0*lam[i]) / lam[0]
	}
}

func (c *socCone) affineDs(ds, _ []float64) { socJordan(ds, c.lam, c.lam) }

func (c *socCone) combinedDsShift(shift, dz, ds []float64, sigmaMu float64) {
	// shift = (W⁻¹Δs)∘(WΔz) − σμe (W symmetric, so W⁻ᵀ = W⁻¹)
	copy(c.work, dz)
	c.mulW(dz, c.work)
	copy(c.work, ds)
	c.mulWinv(ds, c.work)
	socJordan(shift, ds, dz)
	shift[0] -= sigmaMu
}

func (c *socCone) dsOffset(out, ds []float64) {
	socJordanInv(c.work, c.lam, ds)
	c.mulW(out, c.work)
}

// socStep returns the largest α ≤ amax with x + α·d ∈ SOC, x in the interior.
func socStep(x, d []float64, amax float64) float64 {
	// (x₀ + αd₀)² − ‖x₁ + αd₁‖² ≥ 0 and x₀ + αd₀ ≥ 0
	a := d[0]*d[0] - dot(d[1:], d[1:])
	b := 2 * (x[0]*d[0] - dot(x[1:], d[1:]))
	c := socResidual(x)
	if c < 0 {
		c = 0
	}
	alpha := amax
	if d[0] < 0 {
		alpha = math.Min(alpha, -x[0]/d[0])
	}
	// smallest positive root of aα² + bα + c
	disc := b*b - 4*a*c
	var r float64 = math.Inf(1)
	switch {
	case a == 0:
		if b < 0 {
			r = -c / b
		}
	case disc < 0:
		// no real roots: a > 0 means always positive (c ≥ 0)
	default:
		sq := math.Sqrt(disc)
		var t float64
		if b >= 0 {
			t = -(b + sq) / 2
		} else {
			t = -(b - sq) / 2
		}
		r1, r2 := t/a, c/t
		if t == 0 {
			r1, r2 = math.Inf(1), math.Inf(1)
		}
		for _, rr := range []float64{r1, r2} {
			if rr > 0 && rr < r {
				r = rr
			}
		}
	}
	return math.Min(alpha, r)
}

func (c *socCone) stepLength(dz, ds, z, s []float64, a float64) (float64, float64) {
	return socStep(z, dz, a), socStep(s, ds, a)
}

func (c *socCone) barrier(z, s, dz, ds []float64, a float64) float64 {
	for i := range c.work {
		c.work[i] = s[i] + a*ds[i]
	}
	rs := socResidual(c.work)
	for i := range c.work {
		c.work[i] = z[i] + a*dz[i]
	}
	rz := socResidual(c.work)
	if !(rs > 0 && rz > 0) {
		return math.Inf(1)
	}
	return -0.5*math.Log(rs) - 0.5*math.Log(rz)
}
