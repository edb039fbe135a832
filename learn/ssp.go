package learn

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/privopt/privopt/noise"
)

// MethodSSP is the certificate method of the SSP strategy: the sensitivity of
// the upper triangle of the joint second-moment matrix (SSPSensitivity).
const MethodSSP = "ssp-joint-moments"

// SSPSensitivity returns the ℓ₁ and ℓ₂ sensitivities of the statistic the SSP
// strategy releases, under replace-one adjacency with ‖x‖₂ ≤ X and |y| ≤ Y.
//
// The statistic is the upper triangle of M = Σᵢ zᵢzᵢᵀ with zᵢ = (xᵢ, c, yᵢ),
// c = 1 with an intercept and 0 without, leaving out the two entries that
// carry no information or are public: the (c, c) entry (n c², n is public)
// and the (y, y) entry (Σyᵢ², not needed for the fit). With z = (x, c, y),
// z′ = (x′, c, y′), a = ‖x‖, b = ‖x′‖, p = xᵀx′, the squared ℓ₂ change is
//
//	S = U(xxᵀ − x′x′ᵀ) + c²‖x − x′‖² + ‖xy − x′y′‖² + c²(y − y′)²,
//
// where U(A) sums the squares of A's upper triangle, so U(A) ≤ ‖A‖²_F and
// ‖xxᵀ − x′x′ᵀ‖²_F = a⁴ + b⁴ − 2p². Collecting the terms in p,
//
//	S ≤ a⁴ + b⁴ + c²(a² + b²) + a²y² + b²y′² + c²(y − y′)² − 2p² − 2p(c² + yy′),
//
// and −2p² − 2pq ≤ q²/2 for every p, so S ≤ 2X⁴ + 2c²X² + q(y, y′) with
//
//	q(y, y′) = X²(y² + y′²) + (c² + yy′)²/2 + c²(y − y′)².
//
// q is a convex quadratic in y for fixed y′ and in y′ for fixed y, so its
// maximum over the box [−Y, Y]² is at a vertex:
//
//	Δ₂² = 2X⁴ + 2c²X² + 2X²Y² + max((c² + Y²)²/2, (c² − Y²)²/2 + 4c²Y²).
//
// The bound is attained (X = Y = c = 1: x ⟂ x′, y = −y′ = 1 gives S = 10 =
// Δ₂²), so it is tight. For ℓ₁, Σ_{i≤j}|xᵢxⱼ| = (‖x‖₁² + ‖x‖₂²)/2 ≤ (d + 1)X²/2
// and ‖x‖₁ ≤ √d‖x‖₂ give
//
//	Δ₁ = (d + 1)X² + 2√d·X(c + Y) + 2cY.
//
// Sources: sufficient-statistics perturbation (Vu and Slavković 2009; Foulds,
// Geumlek, Welling and Chaudhuri, UAI 2016; Wang, NeurIPS 2018, which splits
// the budget over λ_min, X̃ᵀX̃ and X̃ᵀy); the joint release and the bound above
// are this package's.
func SSPSensitivity(d int, b Bounds, intercept bool) (l1, l2 float64) {
	x, y := b.X, b.Y
	c := 0.0
	if intercept {
		c = 1
	}
	c2, x2, y2 := c*c, x*x, y*y
	q := math.Max((c2+y2)*(c2+y2)/2, (c2-y2)*(c2-y2)/2+4*c2*y2)
	l2 = math.Sqrt(2*x2*x2 + 2*c2*x2 + 2*x2*y2 + q)
	sd := math.Sqrt(float64(d))
	l1 = float64(d+1)*x2 + 2*sd*x*(c+y) + 2*c*y
	return l1, l2
}

// verifySSP recomputes SSPSensitivity from the certificate's d, X, Y and
// intercept and checks Bound in the certificate's norm.
func verifySSP(c *Certificate) error {
	v, err := params(c, "d", "X", "Y", "intercept")
	if err != nil {
		return err
	}
	d, x, y, icpt := v[0], v[1], v[2], v[3]
	if d < 1 || d != math.Trunc(d) || !(x > 0) || !(y > 0) {
		return invalidf("ssp certificate: d = %v, X = %v, Y = %v must be a positive integer and positive bounds", d, x, y)
	}
	l1, l2 := SSPSensitivity(int(d), Bounds{X: x, Y: y}, icpt == 1)
	want := l2
	switch c.Norm {
	case 1:
		want = l1
	case 2:
	default:
		return invalidf("ssp certificate norm is %v, must be 1 or 2", c.Norm)
	}
	if c.Bound < want*(1-1e-12) {
		return fmt.Errorf("learn: ssp certificate bound %v below the recomputed %v", c.Bound, want)
	}
	return nil
}

// sspEntries is the number of entries SSP releases for k weights: the upper
// triangle of X̃ᵀX̃ and X̃ᵀy, without the public (1, 1) entry n of an
// intercept.
func sspEntries(k int, intercept bool) int {
	e := k*(k+1)/2 + k
	if intercept {
		e--
	}
	return e
}

// planSSP calibrates one release of the joint moments (SSPSensitivity) from
// public inputs and returns the draw computed from the clipped data: the
// noisy X̃ᵀX̃ is projected onto {H ⪰ σI} (eigenvalues floored at the
// per-entry noise std σ), a ridge ρ = σ√k is added to the feature diagonal
// (not the intercept), the system H θ = X̃ᵀy is solved and θ is projected onto
// C. Everything after the noise is post-processing (Dwork and Roth 2014,
// Prop. 2.1) and cannot fail: the floored system is positive definite. ρ is
// the scale of the noise matrix's spectral norm (about 2σ√k for a k×k
// symmetric Gaussian matrix), a data-independent choice; Spec.Lambda is not
// used.
func planSSP(ctx context.Context, s Spec, n, d int, p Privacy, g Guarantee) (Guarantee, *vectorNoise, dataDraw, error) {
	if s.Loss != Squared {
		return g, nil, nil, invalidf("SSP is for the squared loss, got %q", s.Loss)
	}
	k := s.weights(d)
	l1, l2 := SSPSensitivity(d, s.bounds(), s.Intercept)
	entries := sspEntries(k, s.Intercept)
	var vn *vectorNoise
	var err error
	switch p.Mechanism {
	case Laplace:
		vn, err = laplaceNoise(l1, p.Epsilon, fmt.Sprintf("Laplace per entry, ℓ1 sensitivity %.4g", l1))
	case Gaussian, AnalyticGaussian:
		vn, err = newVectorNoise(ctx, p.Mechanism, 1, entries, l2, p.Epsilon, p.Delta)
	default:
		return g, nil, nil, invalidf("SSP supports laplace, gaussian and analytic-gaussian noise, not %q", p.Mechanism)
	}
	if err != nil {
		return g, nil, nil, err
	}
	sigma := vn.std()
	ridge := sigma * math.Sqrt(float64(k))
	g.Delta, g.Sensitivity, g.Norm, g.Source, g.NoiseStd = vn.delta, vn.sens, normName(vn.norm), "certified", sigma
	g.floatSafe([]*vectorNoise{vn}, []int{entries})
	g.Certificate = &Certificate{
		Method: MethodSSP, Bound: vn.sens, Norm: vn.norm, Adjacency: Adjacency,
		Domain: fmt.Sprintf("‖x‖₂ ≤ %g, |y| ≤ %g (rows clipped), n = %d", s.bounds().X, s.bounds().Y, n),
		Params: map[string]float64{"d": float64(d), "X": s.bounds().X, "Y": s.bounds().Y, "intercept": boolFloat(s.Intercept)},
	}
	g.state(fmt.Sprintf("SSP: one release of the upper triangle of [X̃ y]ᵀ[X̃ y] (%s); eigenvalues floored at σ = %.4g, ridge σ√k = %.4g (Spec.Lambda not used); the rest is post-processing",
		vn.detail, sigma, ridge))
	return g, vn, func(ctx context.Context, data Data) (drawFn, error) {
		gram, xty := s.moments(data)
		return sspDraw(s, d, vn, sigma, ridge, gram, xty), nil
	}, nil
}

// sspDraw returns the draw of an SSP release from the clipped moments X̃ᵀX̃
// (gram) and X̃ᵀy (xty): noise on every released entry, then the
// post-processing of planSSP.
func sspDraw(s Spec, d int, vn *vectorNoise, sigma, ridge float64, gram *mat.SymDense, xty *mat.VecDense) drawFn {
	k := s.weights(d)
	return func(ctx context.Context, src noise.Source) ([]float64, error) {
		h := mat.NewSymDense(k, nil)
		for i := 0; i < k; i++ {
			for j := i; j < k; j++ {
				v := gram.At(i, j)
				if !(s.Intercept && i == d && j == d) { // n·1² is public
					var err error
					if v, err = vn.release(v, src); err != nil {
						return nil, err
					}
				}
				h.SetSym(i, j, v)
			}
		}
		rhs, err := vn.add(xty.RawVector().Data, src)
		if err != nil {
			return nil, err
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return projectOrClean(ctx, ridgeSolve(h, rhs, sigma, ridge, d), d, s), nil
	}
}

// prepareSSPMoments prepares an SSP release from moments already computed
// from n clipped rows with d features (streamed from a CSV or aggregated in
// a database, see Moments): the same plan as planSSP, the draw from the
// moments.
func prepareSSPMoments(ctx context.Context, gram *mat.SymDense, xty *mat.VecDense, n, d int, s Spec, p Privacy, g Guarantee) (*Releaser, error) {
	g, vn, _, err := planSSP(ctx, s, n, d, p, g)
	if err != nil {
		return nil, err
	}
	sigma := vn.std()
	ridge := sigma * math.Sqrt(float64(s.weights(d)))
	return &Releaser{guarantee: g, draw: sspDraw(s, d, vn, sigma, ridge, gram, xty)}, nil
}

// ridgeSolve returns θ solving (P(H) + ρ·I_d) θ = r, where P(H) floors the
// eigenvalues of H at floor > 0 and I_d is the identity on the first d
// coordinates (the features; an intercept coordinate d is not ridged). The
// system matrix is ⪰ floor·I: it is solved by its own eigendecomposition,
// with no failure path (a release after the spend must return a value). A
// non-finite noisy entry (impossible for finite moments) gives θ = 0.
func ridgeSolve(h *mat.SymDense, r []float64, floor, rho float64, d int) []float64 {
	k := h.SymmetricDim()
	p := mat.NewSymDense(k, nil)
	floorInto(p, h, floor)
	for i := 0; i < d; i++ {
		p.SetSym(i, i, p.At(i, i)+rho)
	}
	th := make([]float64, k)
	var eig mat.EigenSym
	if !eig.Factorize(p, true) {
		return th
	}
	vals := eig.Values(nil)
	var vec mat.Dense
	eig.VectorsTo(&vec)
	for l, lv := range vals {
		c := 0.0
		for i := 0; i < k; i++ {
			c += vec.At(i, l) * r[i]
		}
		c /= math.Max(lv, floor)
		for i := 0; i < k; i++ {
			th[i] += c * vec.At(i, l)
		}
	}
	return th
}

// floorInto sets p to V·diag(max(λ, floor))·Vᵀ for H = V·diag(λ)·Vᵀ (p = floor·I
// if the decomposition fails).
func floorInto(p, h *mat.SymDense, floor float64) {
	k := h.SymmetricDim()
	var eig mat.EigenSym
	if !eig.Factorize(h, true) {
		for i := 0; i < k; i++ {
			p.SetSym(i, i, floor)
		}
		return
	}
	vals := eig.Values(nil)
	var vec mat.Dense
	eig.VectorsTo(&vec)
	for i := 0; i < k; i++ {
		for j := i; j < k; j++ {
			v := 0.0
			for l, lv := range vals {
				v += vec.At(i, l) * math.Max(lv, floor) * vec.At(j, l)
			}
			p.SetSym(i, j, v)
		}
	}
}
