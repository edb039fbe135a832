package learn

import (
	"encoding/json"
	"fmt"
	"math"
)

// MethodStrongConvexity is the certificate method of CertifiedSensitivity.
const MethodStrongConvexity = "erm-strong-convexity"

// Adjacency is the neighbouring relation of every guarantee of this package.
const Adjacency = "one row replaced by any row within the declared bounds (n fixed)"

// Certificate is a checkable proof of a sensitivity bound; its fields are
// those of the release pipeline's certificate (method, bound, norm, adjacency,
// domain, assumptions and the numbers the verifier recomputes from).
type Certificate struct {
	Method      string             `json:"method"`
	Bound       float64            `json:"bound"`
	Norm        float64            `json:"norm"`
	Adjacency   string             `json:"adjacency"`
	Domain      string             `json:"domain"`
	Assumptions []string           `json:"assumptions,omitempty"`
	Params      map[string]float64 `json:"params,omitempty"`
	Evidence    json.RawMessage    `json:"evidence,omitempty"`
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
func CertifiedSensitivity(s Spec, n int) (*Certificate, error) {
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
	xt := featureNorm(b, s.Intercept)
	var lip float64
	switch s.Loss {
	case Hinge, Logistic:
		lip = xt
	case Huber:
		lip = s.HuberDelta * xt
	case Squared:
		r := b.Y / math.Sqrt(s.Lambda)
		if s.L1Radius > 0 {
			r = math.Min(r, s.L1Radius)
		}
		p["R"] = r
		lip = xt * (b.Y + xt*r)
	}
	p["L"] = lip
	c := &Certificate{
		Method:    MethodStrongConvexity,
		Bound:     2 * lip / (float64(n) * s.Lambda),
		Norm:      2,
		Adjacency: Adjacency,
		Domain:    fmt.Sprintf("‖x‖₂ ≤ %g, |y| ≤ %g (rows clipped), n = %d", b.X, b.Y, n),
		Assumptions: []string{
			"w* is the exact minimizer of (1/n)Σℓ + (λ/2)‖w‖² over a data-independent convex set containing 0",
			"the released weights are w* itself plus data-independent noise (output perturbation)",
		},
		Params: p,
	}
	return c, nil
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
	if c.Norm != 2 {
		return invalidf("certificate norm is %v, want 2", c.Norm)
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
	if n < 1 || n != math.Trunc(n) || !(lam > 0) || !(x > 0) || !(y > 0) || r1 < 0 {
		return invalidf("certificate params out of range: n=%v lambda=%v X=%v Y=%v l1_radius=%v", n, lam, x, y, r1)
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
	case 1: // squared: |y − wᵀx̃| ≤ Y + X̃‖w‖, ‖w‖ ≤ min(Y/√λ, r)
		rad := y / math.Sqrt(lam)
		if r1 > 0 && r1 < rad {
			rad = r1
		}
		lip = xt * (y + xt*rad)
	default:
		return invalidf("certificate loss code is %v, unknown", loss)
	}
	want := 2 * lip / (n * lam)
	if got, _ := get("L"); got < lip*(1-1e-12) {
		return fmt.Errorf("learn: certificate L = %v is below the recomputed Lipschitz constant %v", got, lip)
	}
	if c.Bound < want*(1-1e-12) {
		return fmt.Errorf("learn: certificate bound %v is below the recomputed 2L/(nλ) = %v", c.Bound, want)
	}
	return nil
}
