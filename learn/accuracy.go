package learn

import (
	"context"
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"
)

// This file certifies the accuracy of the solver outputs that releases add
// noise to, and repairs it when it falls short, so that a release never
// refuses after its budget is spent.
//
// Setting. F(w) = (1/n) Σᵢ ℓ(wᵀx̃ᵢ; yᵢ) + (μ/2)‖w‖² (+ (1/n) bᵀw for
// objective perturbation) over a closed convex set K with an exact projection
// P_K: C = ℝᵏ, {w_j ≥ l} (nonnegative features), {w_{j+1} − w_j ≥ γ}
// (ordered features, pool-adjacent-violators on w_j − jγ), and for objective
// perturbation K ∩ {‖w‖ ≤ R} when K is a cone (P_{K∩B} = P_B ∘ P_K). F is
// μ-strongly convex and L_s-smooth with the public constant
//
//	L_s = c·X̃² + μ,  c = 1 (squared, Huber), ¼ (logistic),
//
// since (1/n)Σ ℓ″·x̃x̃ᵀ ⪯ c·X̃²·I for rows with ‖x̃‖ ≤ X̃.
//
// Certificate. With t = 2/(L_s + μ) the projected-gradient map T(w) =
// P_K(w − t∇F(w)) is a contraction with factor q = (L_s − μ)/(L_s + μ) (the
// gradient step contracts by max(|1 − tμ|, |1 − tL_s|) for a μ-strongly
// convex L_s-smooth F, and P_K is non-expansive), and w* = T(w*). Hence for
// every w
//
//	‖w − w*‖ ≤ ‖w − T(w)‖ + ‖T(w) − T(w*)‖ ≤ ‖w − T(w)‖ + q‖w − w*‖
//	        ⇒ ‖w − w*‖ ≤ ‖w − T(w)‖·(L_s + μ)/(2μ),
//
// a bound computed from w alone (Nesterov, Lectures on Convex Optimization,
// 2018, Thm 2.1.15 and Section 2.2.4). solveCertified accepts a point only
// when this bound, with a floating-point allowance, is at most the public
// accuracy target τ.
//
// Repair. When the interior-point solution (and its automatic-backend retry)
// does not certify, T is iterated from it; when the solvers fail, T is
// iterated from the public point w₀ = P_K(0), for which μ‖w₀ − w*‖ ≤
// ‖∇F(w₀)‖ (strong convexity and the optimality of w* on K), so N =
// ⌈ln(τ/D₀)/ln q⌉ steps with D₀ = ‖∇F(w₀)‖/μ reach ‖w − w*‖ ≤ τ in exact
// arithmetic. Either way a point is returned: the statistic differs from the
// exact minimizer by at most τ, which the certificates add twice (once per
// dataset of an adjacent pair).

// erm is the smooth objective F on clipped data, with the exact projection
// onto its feasible set.
type erm struct {
	s      Spec
	d, k   int
	n      float64
	a      *mat.Dense // the design X̃
	y      []float64
	gram   *mat.SymDense
	xty    *mat.VecDense
	b      []float64 // objective perturbation's linear term (nil: none)
	mu, ls float64   // strong convexity and smoothness (public)
	radius float64
	shift  Margins
	free   bool // K = ℝᵏ: ‖w − w*‖ ≤ ‖∇F(w)‖/μ also certifies
}

// lossCurvature returns c with 0 ≤ ∂²ℓ/∂t² ≤ c for the smooth losses
// (Huber's ℓ is C¹ with ℓ″ ∈ {0, 1} almost everywhere), or false.
func lossCurvature(l Loss) (float64, bool) {
	switch l {
	case Squared, Huber:
		return 1, true
	case Logistic:
		return 0.25, true
	}
	return 0, false
}

// smoothness returns the public strong-convexity and smoothness constants
// (μ, L_s) of the spec's objective with the extra ridge extra.
func (s Spec) smoothness(extra float64) (mu, ls float64, ok bool) {
	c, ok := lossCurvature(s.Loss)
	if !ok || s.FreeIntercept {
		return 0, 0, false
	}
	xt := featureNorm(s.bounds(), s.Intercept)
	mu = s.Lambda + extra
	return mu, c*xt*xt + mu, mu > 0
}

// exactProjection reports whether C has an exact projection here
// (projectShifted): no cone rows, and the ℓ₁ ball only on its own.
func (s Spec) exactProjection() bool {
	return s.Cone == nil && (s.L1Radius == 0 || (!s.Nonnegative && !s.Ordered))
}

// noExactProjection names, for a public refusal, why C has no exact
// projection.
func (s Spec) noExactProjection() string {
	if s.Cone != nil {
		return "cone rows G·w ≥ 0 have no exact projection here (only an interior-point QP, whose answer carries no certified distance), so the solver accuracy τ that the certificate adds cannot be certified"
	}
	return "the ℓ₁ ball combined with nonnegativity or ordering has no exact projection here, so the solver accuracy τ that the certificate adds cannot be certified"
}

func newERM(data Data, s Spec, pert *perturbation) *erm {
	n, d := data.X.Dims()
	e := &erm{s: s, d: d, k: s.weights(d), n: float64(n), a: s.design(data.X), y: data.Y}
	extra := 0.0
	if pert != nil {
		e.b, e.radius, e.shift, extra = pert.b, pert.radius, pert.shift, pert.extra
	}
	e.mu, e.ls, _ = s.smoothness(extra)
	if s.Loss == Squared {
		e.gram, e.xty = s.moments(data)
	}
	// The data's own smoothness c·λ_max(X̃ᵀX̃/n) + μ (≤ the public L_s)
	// tightens the certificate and the step; it is used only inside the
	// release (it decides how long to iterate, never what is published),
	// inflated by 10⁻⁶ for the eigenvalue's rounding.
	c, _ := lossCurvature(s.Loss)
	g := e.gram
	if g == nil {
		g = mat.NewSymDense(e.k, nil)
		g.SymOuterK(1, e.a.T())
	}
	var eig mat.EigenSym
	if eig.Factorize(g, false) {
		vals := eig.Values(nil)
		if l := c*vals[len(vals)-1]/e.n*(1+1e-6) + 1e-12*e.ls + e.mu; l < e.ls {
			e.ls = l
		}
	}
	e.free = !s.constrained() && e.radius == 0
	return e
}

// grad sets g = ∇F(w).
func (e *erm) grad(w, g []float64) {
	for j := range g {
		g[j] = e.mu * w[j]
		if e.b != nil {
			g[j] += e.b[j] / e.n
		}
	}
	if e.s.Loss == Squared {
		// (1/n)(X̃ᵀX̃ w − X̃ᵀy).
		for i := 0; i < e.k; i++ {
			v := -e.xty.AtVec(i)
			for j := 0; j < e.k; j++ {
				v += e.gram.At(i, j) * w[j]
			}
			g[i] += v / e.n
		}
		return
	}
	rows, _ := e.a.Dims()
	for i := 0; i < rows; i++ {
		x := e.a.RawRowView(i)
		t := 0.0
		for j, v := range x {
			t += v * w[j]
		}
		var dl float64 // ∂ℓ/∂t
		switch e.s.Loss {
		case Huber:
			dl = -math.Max(-e.s.HuberDelta, math.Min(e.s.HuberDelta, e.y[i]-t))
		case Logistic:
			// −y·σ(−y t), computed without overflow.
			z := -e.y[i] * t
			if z > 0 {
				dl = -e.y[i] / (1 + math.Exp(-z))
			} else {
				ez := math.Exp(z)
				dl = -e.y[i] * ez / (1 + ez)
			}
		}
		for j, v := range x {
			g[j] += dl * v / e.n
		}
	}
}

// project replaces w by its exact projection onto the feasible set.
func (e *erm) project(w []float64) {
	projectShifted(w, e.d, e.s, e.shift)
	if e.radius > 0 {
		if nr := norm2(w); nr > e.radius {
			for j := range w {
				w[j] *= e.radius / nr
			}
		}
	}
}

// projectShifted replaces w by its Euclidean projection onto C̄ (C shifted
// by mg) for specs with an exact projection (exactProjection):
//
//   - nonnegative only: w_j ← max(w_j, Lower);
//   - ordered (with or without nonnegativity): with v_j = w_j − j·Gap the set
//     is {v nondecreasing, v_0 ≥ Lower} (v_j ≥ v_0 ≥ Lower ≥ Lower − j·Gap
//     covers every w_j ≥ Lower), whose projection is the isotonic fit
//     (pool-adjacent-violators) clamped below at Lower — bounded isotonic
//     regression is the clamped unbounded one (Barlow et al. 1972, Ch. 1;
//     Németh and Németh, "How to project onto an isotone projection cone",
//     Linear Algebra Appl. 433, 2010);
//   - the ℓ₁ ball ‖w‖₁ ≤ r over all weights: soft thresholding at the θ
//     found by sorting (Duchi, Shalev-Shwartz, Singer and Chandra,
//     "Efficient projections onto the ℓ₁-ball", ICML 2008, Fig. 1).
func projectShifted(w []float64, d int, s Spec, mg Margins) {
	switch {
	case s.Ordered:
		for j := 0; j < d; j++ {
			w[j] -= float64(j) * mg.Gap
		}
		isotonic(w[:d])
		for j := 0; j < d; j++ {
			if s.Nonnegative {
				w[j] = math.Max(w[j], mg.Lower)
			}
			w[j] += float64(j) * mg.Gap
		}
	case s.Nonnegative:
		for j := 0; j < d; j++ {
			w[j] = math.Max(w[j], mg.Lower)
		}
	}
	if s.L1Radius > 0 && !s.Nonnegative && !s.Ordered {
		projectL1(w, s.L1Radius)
	}
}

// projectL1 replaces w by its projection onto {‖w‖₁ ≤ r} (Duchi et al. 2008):
// sort |w| descending, ρ the largest j with u_j > (Σ_{i≤j} u_i − r)/j, θ =
// (Σ_{i≤ρ} u_i − r)/ρ, w_j ← sign(w_j)·max(|w_j| − θ, 0).
func projectL1(w []float64, r float64) {
	t := 0.0
	u := make([]float64, len(w))
	for j, x := range w {
		u[j] = math.Abs(x)
		t += u[j]
	}
	if t <= r {
		return
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(u)))
	theta, cum := 0.0, 0.0
	for j, x := range u {
		cum += x
		if th := (cum - r) / float64(j+1); x > th {
			theta = th
		}
	}
	for j, x := range w {
		w[j] = math.Copysign(math.Max(math.Abs(x)-theta, 0), x)
	}
}

func norm2(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x * x
	}
	return math.Sqrt(s)
}

// step returns T(w) and the certified bound ‖w − T(w)‖·(L_s + μ)/(2μ) on
// ‖w − w*‖, inflated for floating point (relative 10⁻⁹ and 10⁻¹⁴ of the
// scale of w times the condition factor).
func (e *erm) step(w []float64) ([]float64, float64) {
	g := make([]float64, e.k)
	e.grad(w, g)
	t := 2 / (e.ls + e.mu)
	next := make([]float64, e.k)
	for j := range w {
		next[j] = w[j] - t*g[j]
	}
	e.project(next)
	f := (e.ls + e.mu) / (2 * e.mu)
	bound := f * dist2(w, next)
	if e.free {
		// Unconstrained: μ‖w − w*‖² ≤ ⟨∇F(w) − ∇F(w*), w − w*⟩ ≤ ‖∇F(w)‖‖w − w*‖.
		bound = math.Min(bound, norm2(g)/e.mu)
	}
	return next, bound*(1+1e-9) + 1e-14*f*(norm2(w)+1)
}

// solveCertified returns a point of the feasible set within tau of the exact
// minimizer of the (perturbed) objective on clipped data: the
// interior-point solution if its certificate holds, else that solution
// polished by projected-gradient steps, else projected-gradient steps from
// the public start P(0) (see the file comment). It never fails on the
// data; its only error is ctx's (a cancellation is not data-dependent).
func solveCertified(ctx context.Context, data Data, s Spec, pert *perturbation, tau float64) ([]float64, error) {
	e := newERM(data, s, pert)
	if w, err := fitClipped(ctx, data, s, pert); err == nil && finite(w) {
		e.project(w)
		for it := 0; it < 200; it++ {
			next, bound := e.step(w)
			if bound <= tau {
				return w, nil
			}
			w = next
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	w := make([]float64, e.k)
	e.project(w)
	g := make([]float64, e.k)
	e.grad(w, g)
	d0 := norm2(g) / e.mu
	q := (e.ls - e.mu) / (e.ls + e.mu)
	steps := 1
	if d0 > tau && q > 0 {
		steps = int(math.Ceil(math.Log(tau/d0)/math.Log(q))) + 1
	}
	for it := 0; it < steps; it++ {
		if it%1024 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		next, bound := e.step(w)
		if bound <= tau {
			return w, nil
		}
		w = next
	}
	return w, nil
}

func finite(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// fallbackSteps returns a public upper bound on the projected-gradient steps
// solveCertified may take from P(0): D₀ ≤ (G₀ + μ‖w₀‖)/μ with G₀ the bound
// on ‖∇ℓ‖ at ‖w₀‖ (squared: X̃(Y + X̃‖w₀‖); Huber: hX̃; logistic: X̃).
func fallbackSteps(s Spec, r0, tau float64) float64 {
	mu, ls, ok := s.smoothness(0)
	if !ok {
		return math.Inf(1)
	}
	b := s.bounds()
	xt := featureNorm(b, s.Intercept)
	var g0 float64
	switch s.Loss {
	case Squared:
		g0 = xt * (b.Y + xt*r0)
	case Huber:
		g0 = s.HuberDelta * xt
	default:
		g0 = xt
	}
	d0 := (g0 + mu*r0) / mu
	q := (ls - mu) / (ls + mu)
	if d0 <= tau || q == 0 {
		return 1
	}
	return math.Ceil(math.Log(tau/d0)/math.Log(q)) + 1
}
