package learn

import (
	"fmt"
	"math"

	"github.com/privopt/privopt/query"
)

// MethodStrongConvexity is the certificate method of CertifiedSensitivity.
const MethodStrongConvexity = "erm-strong-convexity"

// Adjacency is the neighbouring relation of every guarantee of this package.
const Adjacency = "one row replaced by any row within the declared bounds (n fixed)"

// Certificate is the release pipeline's checkable proof of a sensitivity
// bound (query.Certificate).
type Certificate = query.Certificate

func init() {
	query.RegisterVerifier(MethodStrongConvexity, VerifyStrongConvexity)
	query.RegisterVerifier(MethodObjective, verifyObjective)
	query.RegisterVerifier(MethodAdaSSP, verifyAdaSSP)
	query.RegisterVerifier(MethodSSP, verifySSP)
}

// CertifiedSensitivity returns the certified ℓ₂ sensitivity of the minimizer
// w*(D) of spec over adjacent datasets of n rows (Adjacency) inside the
// declared bounds:
//
//	‖w*(D) − w*(D′)‖₂ ≤ 2L/(nλ),
//
// Chaudhuri, Monteleoni and Sarwate (JMLR 12, 2011), Corollary 8, here on a
// data-independent closed convex set C. Proof: J_D = (1/n)Σℓ + (λ/2)‖w‖² is
// λ-strongly convex, so with w = w*(D), w′ = w*(D′) and the first-order
// conditions on C,
//
//	J_D(w′) − J_D(w) ≥ (λ/2)‖w′ − w‖²,  J_D′(w) − J_D′(w′) ≥ (λ/2)‖w − w′‖².
//
// Adding them, g = J_D − J_D′ = (1/n)(ℓ(·; zᵢ) − ℓ(·; zᵢ′)) satisfies
// g(w′) − g(w) ≥ λ‖w − w′‖², and g is (2L/n)-Lipschitz on any convex set
// holding w and w′ where ℓ is L-Lipschitz in w, so λ‖w − w′‖² ≤
// (2L/n)‖w − w′‖.
//
// L for a bound ‖x̃‖₂ ≤ X̃ (X̃ = X, or √(X² + 1) with an intercept):
//
//	hinge, logistic:  |∂ℓ/∂t| ≤ 1                   ⇒ L = X̃
//	Huber (h):        |∂ℓ/∂t| ≤ h                   ⇒ L = hX̃
//	squared:          |∂ℓ/∂t| = |y − wᵀx̃| ≤ Y + X̃R  ⇒ L = X̃(Y + X̃R)
//
// where R bounds ‖w*‖₂ for every dataset: 0 ∈ C and J_D(w*) ≤ J_D(0) =
// (1/2n)Σyᵢ² ≤ Y²/2 while J_D(w*) ≥ (λ/2)‖w*‖², so ‖w*‖ ≤ Y/√λ; with an ℓ₁
// ball also ‖w*‖₂ ≤ ‖w*‖₁ ≤ r. Both minimizers lie in C ∩ {‖w‖ ≤ R}, a convex
// set on which the squared loss is L-Lipschitz.
//
// It returns an error when λ = 0 or the intercept is free: no bound of this
// form exists and the sensitivity must be sampled (SampledSensitivity).
//
// The certificate assumes the exact minimizer; release plans use
// certifiedSensitivityAt, which also covers a minimizer over a tightened set
// and the solver's accuracy.
func CertifiedSensitivity(s Spec, n int) (*Certificate, error) {
	return certifiedSensitivityAt(s, n, 0, 0)
}

// certifiedSensitivityAt is CertifiedSensitivity for the minimizer over any
// data-independent closed convex set K (C itself, or program perturbation's
// tightened C̄), computed to a certified accuracy τ (solveCertified):
//
//	‖ŵ(D) − ŵ(D′)‖₂ ≤ 2L/(nλ) + 2τ.
//
// The proof above holds on K verbatim (it uses only the first-order
// conditions on a convex set fixed across D and D′). For the squared loss the
// radius R of the ball holding the minimizers comes from a public point w₀ ∈
// K with ‖w₀‖ = r0 (r0 = 0 when 0 ∈ K): F_D(w*) ≤ F_D(w₀) ≤ ½(Y + X̃r0)² +
// (λ/2)r0² =: B and F_D(w*) ≥ (λ/2)‖w*‖², so ‖w*‖ ≤ R = √(2B/λ), which is Y/√λ
// for r0 = 0. The ℓ₁ radius r is used (R = min(R, r)) only when r0 = 0, i.e.
// when K is C. Triangle inequality: ‖ŵ(D) − ŵ(D′)‖ ≤ ‖ŵ(D) − w*(D)‖ +
// ‖w*(D) − w*(D′)‖ + ‖w*(D′) − ŵ(D′)‖.
func certifiedSensitivityAt(s Spec, n int, r0, tau float64) (*Certificate, error) {
	if err := s.Validate(dimOf(s)); err != nil {
		return nil, err
	}
	if n < 1 {
		return nil, invalidf("n is %d, must be ≥ 1", n)
	}
	if !(s.Lambda > 0) {
		return nil, invalidf("lambda is %v: no certified sensitivity without strong convexity (use a sampled sensitivity)", s.Lambda)
	}
	if s.FreeIntercept {
		return nil, invalidf("free intercept: the objective is not strongly convex in it (use a sampled sensitivity)")
	}
	b := s.bounds()
	p := map[string]float64{
		"n": float64(n), "lambda": s.Lambda, "X": b.X, "Y": b.Y,
		"loss": lossCode[s.Loss], "intercept": boolFloat(s.Intercept),
		"huber_delta": s.HuberDelta, "l1_radius": s.L1Radius,
	}
	if r0 > 0 || tau > 0 {
		p["r0"], p["accuracy"] = r0, tau
	}
	xt := featureNorm(b, s.Intercept)
	var lip float64
	switch s.Loss {
	case Hinge, Logistic:
		lip = xt
	case Huber:
		lip = s.HuberDelta * xt
	case Squared:
		r := squaredRadius(b.Y, xt, s.Lambda, r0, s.L1Radius)
		p["R"] = r
		lip = xt * (b.Y + xt*r)
	}
	p["L"] = lip
	c := &Certificate{
		Method:      MethodStrongConvexity,
		Bound:       2*lip/(float64(n)*s.Lambda) + 2*tau,
		Norm:        2,
		Adjacency:   Adjacency,
		Domain:      fmt.Sprintf("‖x‖₂ ≤ %g, |y| ≤ %g (rows clipped), n = %d", b.X, b.Y, n),
		Assumptions: certAssumptions(r0, tau),
		Params:      p,
	}
	return c, nil
}

// squaredRadius returns R = √((Y + X̃r0)²/λ + r0²) (Y/√λ for r0 = 0), capped
// by the ℓ₁ radius r when r0 = 0 and r > 0.
func squaredRadius(y, xt, lam, r0, l1 float64) float64 {
	r := math.Sqrt((y+xt*r0)*(y+xt*r0)/lam + r0*r0)
	if r0 == 0 {
		r = y / math.Sqrt(lam)
		if l1 > 0 {
			r = math.Min(r, l1)
		}
	}
	return r
}

func certAssumptions(r0, tau float64) []string {
	if r0 == 0 && tau == 0 {
		return []string{
			"w* is the exact minimizer of (1/n)Σℓ + (λ/2)‖w‖² over a data-independent convex set containing 0",
			"the released weights are w* itself plus data-independent noise (output perturbation)",
		}
	}
	return []string{
		"ŵ minimizes (1/n)Σℓ + (λ/2)‖w‖² over a data-independent closed convex set K holding a public point of norm r0 to within accuracy τ (certified per release by the projected-gradient bound)",
		"the released weights are ŵ plus data-independent noise",
	}
}

// dimOf returns a feature count consistent with the spec's cone rows (the
// certificate does not depend on d).
func dimOf(s Spec) int {
	if s.Cone != nil {
		_, c := s.Cone.Dims()
		return c
	}
	return 1
}

func boolFloat(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// inNorm returns a copy of c stated in the ℓ_p norm for a k-vector: ℓ∞ keeps
// the ℓ₂ bound (‖v‖∞ ≤ ‖v‖₂), ℓ₁ multiplies it by √k.
func inNorm(c *Certificate, p float64, k int) *Certificate {
	o := *c
	o.Params = map[string]float64{}
	for key, v := range c.Params {
		o.Params[key] = v
	}
	o.Norm = p
	if p == 1 {
		o.Bound = math.Sqrt(float64(k)) * c.Bound
		o.Params["k"] = float64(k)
	}
	return &o
}

// VerifyStrongConvexity re-derives the bound of an "erm-strong-convexity"
// certificate from its Params alone (n, λ, X, Y, the loss code, the
// intercept flag, the Huber threshold and the ℓ₁ radius), independently of
// CertifiedSensitivity's code path: it recomputes X̃, R = min(Y/√λ, r), the
// Lipschitz constant L and 2L/(nλ), and fails if the certificate's L or Bound
// is smaller than the recomputed value (relative tolerance 1e-12) or any
// parameter is out of range.
func VerifyStrongConvexity(c *Certificate) error {
	if c == nil {
		return invalidf("certificate is nil")
	}
	if c.Method != MethodStrongConvexity {
		return invalidf("certificate method is %q, want %q", c.Method, MethodStrongConvexity)
	}
	// ‖v‖∞ ≤ ‖v‖₂ ≤ ‖v‖₁ ≤ √k‖v‖₂: an ℓ₁ certificate needs the weight count k.
	factor := 1.0
	switch {
	case c.Norm == 2, math.IsInf(c.Norm, 1):
	case c.Norm == 1:
		k, ok := c.Params["k"]
		if !ok || !(k >= 1) || k != math.Trunc(k) {
			return invalidf("ℓ1 certificate needs an integer param k ≥ 1, got %v", k)
		}
		factor = math.Sqrt(k)
	default:
		return invalidf("certificate norm is %v, must be 1, 2 or +Inf", c.Norm)
	}
	get := func(k string) (float64, error) {
		v, ok := c.Params[k]
		if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, invalidf("certificate param %q is missing or not finite", k)
		}
		return v, nil
	}
	var vals [8]float64
	for i, k := range []string{"n", "lambda", "X", "Y", "loss", "intercept", "huber_delta", "l1_radius"} {
		v, err := get(k)
		if err != nil {
			return err
		}
		vals[i] = v
	}
	n, lam, x, y, loss, icpt, h, r1 := vals[0], vals[1], vals[2], vals[3], vals[4], vals[5], vals[6], vals[7]
	r0, tau := c.Params["r0"], c.Params["accuracy"] // absent: 0 (exact minimizer over C ∋ 0)
	if n < 1 || n != math.Trunc(n) || !(lam > 0) || !(x > 0) || !(y > 0) || r1 < 0 || !(r0 >= 0) || !(tau >= 0) || math.IsInf(r0+tau, 0) {
		return invalidf("certificate params out of range: n=%v lambda=%v X=%v Y=%v l1_radius=%v r0=%v accuracy=%v", n, lam, x, y, r1, r0, tau)
	}
	xt := x
	if icpt == 1 {
		xt = math.Sqrt(x*x + 1)
	}
	var lip float64
	switch loss {
	case 3, 4: // logistic, hinge: |ℓ′| ≤ 1
		lip = xt
	case 2: // Huber: |ℓ′| ≤ h
		if !(h > 0) {
			return invalidf("certificate huber_delta is %v, must be > 0", h)
		}
		lip = h * xt
	case 1: // squared: |y − wᵀx̃| ≤ Y + X̃‖w‖, ‖w‖ ≤ R
		lip = xt * (y + xt*squaredRadius(y, xt, lam, r0, r1))
	default:
		return invalidf("certificate loss code is %v, unknown", loss)
	}
	want := factor * (2*lip/(n*lam) + 2*tau)
	if got, _ := get("L"); got < lip*(1-1e-12) {
		return fmt.Errorf("learn: certificate L = %v is below the recomputed Lipschitz constant %v", got, lip)
	}
	if c.Bound < want*(1-1e-12) {
		return fmt.Errorf("learn: certificate bound %v is below the recomputed %v·(2L/(nλ) + 2τ) = %v", c.Bound, factor, want)
	}
	return nil
}

// Certificate methods of the other strategies: they certify the numbers of
// a privacy proof rather than an output sensitivity.
const (
	// MethodObjective: objective perturbation's gradient bound 2L, Hessian
	// bound β and extra ridge Δ (see Objective).
	MethodObjective = "objective-perturbation"
	// MethodAdaSSP: the sensitivities of λ_min(X̃ᵀX̃), X̃ᵀX̃ and X̃ᵀy (see
	// AdaSSP); Bound is that of X̃ᵀX̃.
	MethodAdaSSP = "adassp-sufficient-statistics"
)

func params(c *Certificate, keys ...string) ([]float64, error) {
	out := make([]float64, len(keys))
	for i, k := range keys {
		v, ok := c.Params[k]
		if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, invalidf("certificate param %q is missing or not finite", k)
		}
		out[i] = v
	}
	return out, nil
}

// verifyObjective recomputes X̃, β = cX̃² (c = 1 squared, ¼ logistic), the
// gradient bound L on the imposed ball and checks nλ + Δ ≥ β/(e^{ε/4} − 1),
// the certificate's β ≥ recomputed β and Bound = 2L ≥ recomputed 2L.
func verifyObjective(c *Certificate) error {
	v, err := params(c, "n", "lambda", "extra", "epsilon", "loss", "X", "Y", "intercept", "R", "beta")
	if err != nil {
		return err
	}
	n, lam, extra, eps, loss, x, y, icpt, r, beta := v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9]
	xt := x
	if icpt == 1 {
		xt = math.Sqrt(x*x + 1)
	}
	var cc, lip float64
	switch loss {
	case 1:
		if !(r > 0) {
			return invalidf("objective certificate: squared loss needs a ball radius R > 0, got %v", r)
		}
		cc, lip = 1, xt*(y+xt*r)
	case 3:
		cc, lip = 0.25, xt
	default:
		return invalidf("objective certificate: loss code %v has no bounded second derivative", loss)
	}
	if beta < cc*xt*xt*(1-1e-12) {
		return fmt.Errorf("learn: objective certificate β = %v below cX̃² = %v", beta, cc*xt*xt)
	}
	if need := cc * xt * xt / math.Expm1(eps/4); n*lam+extra < need*(1-1e-12) {
		return fmt.Errorf("learn: objective certificate: nλ + Δ = %v below β/(e^{ε/4} − 1) = %v", n*lam+extra, need)
	}
	if c.Bound < 2*lip*(1-1e-12) {
		return fmt.Errorf("learn: objective certificate bound %v below 2L = %v", c.Bound, 2*lip)
	}
	return nil
}

// verifyAdaSSP recomputes the three sensitivities from X̃, Y and k in the
// certificate's norm.
func verifyAdaSSP(c *Certificate) error {
	v, err := params(c, "X", "Y", "k", "intercept", "lambda_min", "gram", "xty")
	if err != nil {
		return err
	}
	x, y, k, icpt := v[0], v[1], v[2], v[3]
	xt := x
	if icpt == 1 {
		xt = math.Sqrt(x*x + 1)
	}
	want := []float64{xt * xt, math.Sqrt2 * xt * xt, 2 * xt * y}
	if c.Norm == 1 {
		want = []float64{xt * xt, (k + 1) * xt * xt, 2 * math.Sqrt(k) * xt * y}
	} else if c.Norm != 2 {
		return invalidf("adassp certificate norm is %v, must be 1 or 2", c.Norm)
	}
	for i, name := range []string{"lambda_min", "gram", "xty"} {
		if v[4+i] < want[i]*(1-1e-12) {
			return fmt.Errorf("learn: adassp certificate %s sensitivity %v below %v", name, v[4+i], want[i])
		}
	}
	if c.Bound < want[1]*(1-1e-12) {
		return fmt.Errorf("learn: adassp certificate bound %v below %v", c.Bound, want[1])
	}
	return nil
}
