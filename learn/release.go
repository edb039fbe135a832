package learn

import (
	"context"
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/privopt/privopt/chance"
	"github.com/privopt/privopt/noise"
	"github.com/privopt/privopt/query"
	"github.com/privopt/privopt/solver/ipm"
)

// Strategy names a release strategy.
type Strategy string

// Strategies.
const (
	// Projection: output perturbation w* + ζ followed by the Euclidean
	// projection onto C (a QP). The projection is post-processing (Dwork and
	// Roth 2014, Prop. 2.1): same guarantee as w* + ζ, always feasible.
	Projection Strategy = "projection"
	// Objective: objective perturbation (Chaudhuri, Monteleoni and Sarwate
	// 2011, Alg. 2; Kifer, Smith and Thakurta 2012, Thm 2 for constrained C):
	// minimize (1/n)[Σℓ + bᵀw] + ((λ + Δ/n)/2)‖w‖² over C ∩ {‖w‖ ≤ R}. Needs a
	// twice-differentiable loss with ∂²ℓ/∂t² ≤ c (squared: c = 1, logistic:
	// c = ¼), so β = cX̃² bounds the Hessian of ℓ in w, of rank 1. Replacing
	// a row changes the Jacobian of b ↦ w by a rank-2 update, whose
	// determinant ratio is ≤ (1 + β/(nλ + Δ))²; Δ = max(0, β/(e^{ε/4} − 1) −
	// nλ) makes it ≤ e^{ε/2}. The noise b has ‖b(D) − b(D′)‖ ≤ 2L and spends
	// the other ε/2: Laplace: density ∝ exp(−ε‖b‖/(4L)) (‖b‖ ~ Γ(k, 4L/ε),
	// uniform direction), (ε, 0)-DP; Gaussian and analytic Gaussian: the
	// mechanism's σ for sensitivity 2L at (ε/2, δ), (ε, δ)-DP. Optimal noise
	// does not apply In a plan (NewPlan) the solver's certified
	// accuracy τ is part of the guarantee: the released weights are the
	// τ-approximate minimizer plus Laplace output noise for the sensitivity
	// 2τ at 1% of ε, the objective perturbation runs at the other 99%, and
	// the two
	// compose (approximate-minima perturbation, Iyengar et al., IEEE S&P
	// 2019, Thm 1; see planObjective).
	Objective Strategy = "objective"
	// Program: program perturbation (Dvorkin et al. 2023): the released
	// w̄* + ζ satisfies the constraints of C jointly with probability ≥ 1 − η
	// (Bonferroni). In a plan (NewPlan) w̄* is the minimizer over the
	// tightened set C̄, whose margins depend only on the noise law and η, and
	// the strong-convexity certificate holds on C̄ (certifiedSensitivityAt).
	// Prepare with Options.DeclareProgram or a sampled sensitivity keeps the
	// reproduction of the paper through query.Solve: the sensitivity of w*
	// assumed for w̄* (declared) or sampled on the released statistic
	// (NotDP).
	Program Strategy = "program"
	// AdaSSP: sufficient-statistics perturbation with adaptive ridge (Wang,
	// "Revisiting differentially private linear regression", NeurIPS 2018,
	// Alg. 2), squared loss only: releases λ_min(X̃ᵀX̃), X̃ᵀX̃ and X̃ᵀy with
	// (ε/3, δ/3) each, solves (X̃ᵀX̃ + λI)θ = X̃ᵀy and projects onto C. With
	// replace-one adjacency the sensitivities are X̃² (λ_min, Weyl),
	// √2·X̃² (upper triangle of X̃ᵀX̃, Frobenius), 2X̃Y (X̃ᵀy) in ℓ₂ and X̃²,
	// (k+1)X̃², 2√k·X̃Y in ℓ₁. Optimal noise does not apply.
	AdaSSP Strategy = "adassp"
	// SSP: sufficient-statistics perturbation with one joint release, squared
	// loss only: the upper triangle of [X̃ y]ᵀ[X̃ y] (without the public n and
	// the unused Σy²) with one noise draw per entry at the full (ε, δ), then
	// the ridge fit from the noisy moments (eigenvalues floored at the noise
	// std σ, ridge σ√k on the features) projected onto C. The sensitivity is
	// SSPSensitivity's tight bound (certified, method "ssp-joint-moments");
	// releasing the moments jointly instead of AdaSSP's three (ε/3, δ/3)
	// releases divides the noise by about 3 at the same guarantee. Optimal
	// noise does not apply.
	SSP Strategy = "ssp"
)

// Strategies lists the strategies in the order of comparison tables.
var Strategies = []Strategy{Projection, Objective, Program, AdaSSP, SSP}

// Privacy is the requested guarantee and noise: query's one privacy-spec
// type. An empty Mechanism means query.DefaultMechanism(Delta) (Laplace for
// δ = 0, the analytic Gaussian for δ > 0); δ > 0 is needed for the Gaussian
// kinds and optimal noise.
type Privacy = query.PrivacySpec

// Options tune a strategy.
type Options struct {
	// Eta is program perturbation's joint violation probability (default 0.05).
	Eta float64
	// IndividualEta makes Eta the violation probability of each constraint
	// row separately (chance.Approximation.Individual: the formulation of
	// Dvorkin et al.'s experiments); the joint guarantee is then only the
	// union bound, which the statement reports.
	IndividualEta bool
	// Rho is AdaSSP's failure probability of the λ_min lower bound (default 0.05).
	Rho float64
	// Gamma, Beta and Seed configure sampled sensitivities (program
	// perturbation on a constrained set; SampledSensitivity): defaults 0.1,
	// 0.1 and 0.
	Gamma, Beta float64
	Seed        uint64
	// DeclareProgram skips the sampling of w̄*'s sensitivity in program
	// perturbation on a constrained set and calibrates to the sensitivity of
	// w* instead, as Dvorkin et al. do; the guarantee is then labelled
	// "declared" (assumed, not verified). The sampled fixed point does not
	// settle when w̄* moves in proportion to the noise scale.
	DeclareProgram bool
	// Sampled supplies a sampled ℓ₂ sensitivity (SampledSensitivity) for
	// specs without a certificate (λ = 0 or a free intercept).
	Sampled *Sampled
}

// Sampled is a sensitivity measured on sampled adjacent datasets: it bounds
// the change of all but a fraction Gamma of pairs with confidence 1 − Beta
// (Dvorkin et al. Prop. 3.8), giving (ε, γ)-probabilistic DP.
type Sampled struct {
	Value       float64
	Gamma, Beta float64
	Samples     int
}

// Guarantee is what a release publishes about itself.
type Guarantee struct {
	Strategy    Strategy     `json:"strategy"`
	Noise       NoiseKind    `json:"noise"`
	Epsilon     float64      `json:"epsilon"`
	Delta       float64      `json:"delta"`
	Sensitivity float64      `json:"sensitivity"`
	Norm        string       `json:"sensitivity_norm"` // "l1", "l2" or "linf"
	Source      string       `json:"source"`           // "certified", "sampled" or "declared"
	Certificate *Certificate `json:"certificate,omitempty"`
	Gamma       float64      `json:"gamma,omitempty"`
	Beta        float64      `json:"beta,omitempty"`
	Samples     int          `json:"samples,omitempty"`
	NoiseStd    float64      `json:"noise_std"` // per weight (b's per coordinate for objective)
	// FloatingPointSafe: every noisy value is drawn by the mechanism's
	// floating-point-safe release (noise.Mechanism.Release); for Laplace
	// noise ε includes the snapping term (noise.SnappingExcess). False only
	// for objective perturbation, whose noise enters the objective.
	FloatingPointSafe bool   `json:"floating_point_safe"`
	Statement         string `json:"statement"`
}

func normName(p float64) string {
	switch {
	case p == 1:
		return "l1"
	case p == 2:
		return "l2"
	}
	return "linf"
}

// sensitivity returns the guarantee's sensitivity as the release pipeline's
// type.
func (g *Guarantee) sensitivity() query.Sensitivity {
	qs := query.Sensitivity{Value: g.Sensitivity, Norm: normValue(g.Norm), Source: query.SensitivitySource(g.Source),
		Gamma: g.Gamma, Beta: g.Beta, Samples: g.Samples, Certificate: g.Certificate}
	if g.Source == "declared" {
		qs.Source = query.Declared
	}
	return qs
}

func normValue(name string) float64 {
	switch name {
	case "l1":
		return 1
	case "l2":
		return 2
	}
	return math.Inf(1)
}

// state sets Statement: query.GuaranteeString (plain "(ε, δ)-DP" only for a
// certified sensitivity) followed by the strategy's note.
func (g *Guarantee) state(note string) {
	g.Statement = query.GuaranteeString(g.Epsilon, g.Delta, g.sensitivity())
	if note != "" {
		g.Statement += "; " + note
	}
	if g.Source == "sampled" {
		g.Statement += "; " + NotDP
	}
}

// NotDP labels every release whose noise is calibrated to a sampled
// sensitivity: it reproduces the (ε, γ)-probabilistic notion of Dvorkin et
// al. and is no differential-privacy release.
const NotDP = "not differentially private: calibrated on the data"

// Releaser holds one strategy prepared on one dataset; Draw returns
// independent releases. It holds private data and must not be published.
type Releaser struct {
	guarantee Guarantee
	draw      func(ctx context.Context, src noise.Source) ([]float64, error)
}

// Guarantee returns the guarantee every Draw carries.
func (r *Releaser) Guarantee() Guarantee { return r.guarantee }

// Draw returns one release of the weights, with noise from src (nil:
// crypto/rand). Each call spends the guarantee again.
func (r *Releaser) Draw(ctx context.Context, src noise.Source) ([]float64, error) {
	if src == nil {
		src = noise.CryptoSource()
	}
	return r.draw(ctx, src)
}

// Release prepares strat and draws one release from crypto/rand.
func Release(ctx context.Context, data Data, s Spec, strat Strategy, p Privacy, opt Options) ([]float64, Guarantee, error) {
	r, err := Prepare(ctx, data, s, strat, p, opt)
	if err != nil {
		return nil, Guarantee{}, err
	}
	w, err := r.Draw(ctx, nil)
	return w, r.guarantee, err
}

// sensitivity returns the ℓ₂ sensitivity of w* with its provenance.
func sensitivity(s Spec, n int, opt Options) (float64, *Certificate, *Sampled, error) {
	c, err := CertifiedSensitivity(s, n)
	if err == nil {
		return c.Bound, c, nil, nil
	}
	if opt.Sampled != nil {
		return opt.Sampled.Value, nil, opt.Sampled, nil
	}
	return 0, nil, nil, fmt.Errorf("learn: no sensitivity: %w; pass Options.Sampled from SampledSensitivity", err)
}

// Prepare clips the data, fits what strat needs and calibrates its noise.
func Prepare(ctx context.Context, data Data, s Spec, strat Strategy, p Privacy, opt Options) (*Releaser, error) {
	if err := data.Validate(); err != nil {
		return nil, err
	}
	_, d := data.X.Dims()
	if err := s.Validate(d); err != nil {
		return nil, err
	}
	p = p.WithDefault()
	if err := p.Validate(); err != nil {
		return nil, err
	}
	clipped, _ := s.bounds().Clip(data)
	n := data.N()
	k := s.weights(d)
	g := Guarantee{Strategy: strat, Noise: p.Mechanism, Epsilon: p.Epsilon, Delta: p.Delta}
	switch strat {
	case Projection, Program:
		// The certified plan (certified solver accuracy, program perturbation
		// over the tightened set) unless the caller asks for the sampled or
		// declared sensitivities of the (ε, γ) reproductions, or the spec is
		// outside the plan's reach (ℓ₁ ball, cone rows, hinge loss).
		var planErr error
		if opt.Sampled == nil && (strat == Projection || (!opt.DeclareProgram && opt.Gamma == 0 && opt.Beta == 0)) {
			pl, err := NewPlan(ctx, PlanSpec{Spec: s, N: n, Features: d, Strategy: strat, Privacy: p, Eta: opt.Eta, IndividualEta: opt.IndividualEta})
			if err == nil {
				return bind(ctx, pl.Guarantee, pl.draw, clipped)
			}
			planErr = err
		}
		// Outside a plan (the reproductions of Dvorkin et al., cone rows, the
		// hinge loss): the sensitivity of the exact minimizer, and the
		// statement says that the solver's accuracy is not covered.
		noPlan := ""
		if planErr != nil {
			noPlan = "; NO release plan (" + strings.TrimPrefix(planErr.Error(), ErrInvalid.Error()+": ") + "): the certificate assumes the exact minimizer and the solver's accuracy is not certified"
		}
		sens, cert, smp, err := sensitivity(s, n, opt)
		if err != nil {
			return nil, err
		}
		vn, err := newVectorNoise(ctx, p.Mechanism, k, k, sens, p.Epsilon, p.Delta)
		if err != nil {
			return nil, err
		}
		g.Delta, g.Sensitivity, g.Norm, g.NoiseStd = vn.delta, vn.sens, normName(vn.norm), vn.std()
		switch {
		case cert != nil:
			g.Source, g.Certificate = "certified", inNorm(cert, vn.norm, k)
		case smp != nil:
			g.Source, g.Gamma, g.Beta, g.Samples = "sampled", smp.Gamma, smp.Beta, smp.Samples
		}
		if strat == Projection {
			g.floatSafe([]*vectorNoise{vn}, []int{k})
			g.state(vn.detail + "; projection onto the constraints is post-processing" + noPlan)
			wstar, err := fitClipped(ctx, clipped, s, nil)
			if err != nil {
				return nil, err
			}
			return &Releaser{guarantee: g, draw: func(ctx context.Context, src noise.Source) ([]float64, error) {
				w, err := vn.add(wstar, src)
				if err != nil {
					return nil, err
				}
				return Project(ctx, w, d, s)
			}}, nil
		}
		return prepareProgram(ctx, clipped, s, p, opt, vn, g, noPlan)
	case Objective:
		g, _, draw, err := planObjective(ctx, s, n, d, p, g, 0)
		if err != nil {
			return nil, err
		}
		return bind(ctx, g, draw, clipped)
	case AdaSSP:
		g, _, draw, err := planAdaSSP(ctx, s, n, d, p, opt.Rho, g)
		if err != nil {
			return nil, err
		}
		return bind(ctx, g, draw, clipped)
	case SSP:
		g, _, draw, err := planSSP(ctx, s, n, d, p, g)
		if err != nil {
			return nil, err
		}
		return bind(ctx, g, draw, clipped)
	}
	return nil, invalidf("strategy is %q, must be projection, objective, program, adassp or ssp", strat)
}

func prepareProgram(ctx context.Context, data Data, s Spec, p Privacy, opt Options, vn *vectorNoise, g Guarantee, noPlan string) (*Releaser, error) {
	eta := opt.Eta
	if eta == 0 {
		eta = 0.05
	}
	if !(eta > 0 && eta < 1) {
		return nil, invalidf("eta is %v, must be in (0, 1)", eta)
	}
	prob, cols, err := s.standardForm(data)
	if err != nil {
		return nil, err
	}
	k := len(cols)
	safety := chance.Cantelli
	priv := query.Privacy{PrivacySpec: query.PrivacySpec{Epsilon: p.Epsilon, Delta: p.Delta}, Sensitivity: g.sensitivity()}
	switch p.Mechanism {
	case Laplace:
		priv.Mechanism = query.Laplace
	case Gaussian:
		priv.Mechanism, safety = query.Gaussian, chance.Gaussian
	case AnalyticGaussian:
		priv.Mechanism, safety = query.AnalyticGaussian, chance.Gaussian
	case Optimal:
		// One scalar mechanism per weight at (ε/k, δ/k), composed.
		pc, ok := vn.dist.(*noise.PiecewiseConstant)
		if !ok {
			return nil, fmt.Errorf("learn: optimal noise is a %T, want *noise.PiecewiseConstant", vn.dist)
		}
		priv.Mechanism, priv.Noise = query.Custom, pc
		priv.Epsilon, priv.Delta = p.Epsilon/float64(k), p.Delta/float64(k)
	}
	// The counterparts are solved by the interior-point solver unless the
	// spec names one: HiGHS's QP route reports numerical trouble on some of
	// them (the robust default route of package query is pending).
	qsolver := s.Solver
	if qsolver == nil {
		qsolver = ipm.New()
	}
	qspec := query.Spec{Query: query.Identity(cols...), Privacy: priv, Solver: qsolver, Settings: s.Settings,
		Chance: chance.Spec{Approximation: chance.Approximation{Method: chance.Bonferroni, Eta: eta, Safety: safety, Individual: opt.IndividualEta}}}
	note := vn.detail + fmt.Sprintf("; program perturbation, joint constraint violation ≤ %g (Bonferroni)", eta)
	if opt.IndividualEta {
		note = vn.detail + fmt.Sprintf("; program perturbation, each constraint row violated with probability ≤ %g individually (no joint bound beyond the union bound)", eta)
	}
	// w̄* = w* only for the squared loss on ℝᵏ (no constraint row involves
	// the weights); otherwise the chance constraints move w̄*.
	moves := s.constrained() || s.Loss != Squared
	if moves && opt.DeclareProgram {
		g.Source, g.Certificate = "declared", nil
		qspec.Privacy.Sensitivity.Source, qspec.Privacy.Sensitivity.Certificate = query.Declared, nil
		note += "; the sensitivity of w* is assumed for the released w̄*"
	}
	if moves && !opt.DeclareProgram {
		// w̄* is not w*: its sensitivity is sampled on the released
		// statistic (recalibrating fixed point, query.EstimateSensitivity).
		gamma, beta := opt.Gamma, opt.Beta
		if gamma == 0 {
			gamma = 0.1
		}
		if beta == 0 {
			beta = 0.1
		}
		sens, err := query.EstimateSensitivity(ctx, query.SensitivitySpec{Program: qspec, Norm: priv.Sensitivity.Norm,
			Gamma: gamma, Beta: beta, Pair: s.adjacentPairs(data), Seed: opt.Seed, Workers: 2})
		if err != nil {
			return nil, fmt.Errorf("learn: program perturbation: sampling the sensitivity of the released weights: %w", err)
		}
		qspec.Privacy.Sensitivity = sens
		if sens.Value != vn.sens {
			vn2, err := newVectorNoise(ctx, p.Mechanism, k, k, sens.Value, p.Epsilon, p.Delta)
			if err != nil {
				return nil, err
			}
			if p.Mechanism == Laplace {
				// sens.Value is already an ℓ₁ value: undo the √k factor.
				vn2, err = newVectorNoise(ctx, p.Mechanism, k, k, sens.Value/math.Sqrt(float64(k)), p.Epsilon, p.Delta)
				if err != nil {
					return nil, err
				}
			}
			vn = vn2
			if p.Mechanism == Optimal {
				qspec.Privacy.Noise = vn.dist.(*noise.PiecewiseConstant)
			}
		}
		g.Source, g.Certificate, g.Sensitivity = "sampled", nil, sens.Value
		g.Gamma, g.Beta, g.Samples = sens.Gamma, sens.Beta, sens.Samples
		g.NoiseStd = vn.std()
	}
	sol, err := query.Solve(ctx, prob, qspec)
	if err != nil {
		return nil, fmt.Errorf("learn: program perturbation: %w", err)
	}
	// Releases go through the pipeline's own Release (floating-point-safe
	// draws, covered by the chance constraints' release margin).
	g.Epsilon = p.Epsilon
	g.floatSafe([]*vectorNoise{vn}, []int{k})
	g.state(note + noPlan)
	return &Releaser{guarantee: g, draw: func(ctx context.Context, src noise.Source) ([]float64, error) {
		rel, err := sol.Release(query.ReleaseOptions{Source: src})
		if err != nil {
			return nil, fmt.Errorf("learn: program perturbation: %w", err)
		}
		if !rel.Record.FloatingPointSafe || rel.Record.Epsilon != g.Epsilon {
			return nil, fmt.Errorf("learn: program perturbation: the release's record (ε = %v, floating-point safe %v) differs from the guarantee (ε = %v)",
				rel.Record.Epsilon, rel.Record.FloatingPointSafe, g.Epsilon)
		}
		return rel.Value, nil
	}}, nil
}

// hessianBound returns c with 0 ≤ ∂²ℓ/∂t² ≤ c, or false.
func hessianBound(l Loss) (float64, bool) {
	switch l {
	case Squared:
		return 1, true
	case Logistic:
		return 0.25, true
	}
	return 0, false
}

// objectiveLip returns objective perturbation's gradient bound L, the ball
// radius R it imposes for the squared loss (0: none), the extra ridge Δ and
// the Hessian bound β.
func objectiveLip(s Spec, n int, eps float64) (lip, radius, extra, beta float64, err error) {
	c, ok := hessianBound(s.Loss)
	if !ok {
		return 0, 0, 0, 0, invalidf("objective perturbation needs a twice-differentiable loss (squared or logistic), got %q", s.Loss)
	}
	if s.FreeIntercept {
		return 0, 0, 0, 0, invalidf("objective perturbation needs every weight regularized (free intercept set)")
	}
	b := s.bounds()
	xt := featureNorm(b, s.Intercept)
	beta = c * xt * xt
	fn := float64(n)
	extra = math.Max(0, beta/math.Expm1(eps/4)-fn*s.Lambda) // Δ (unnormalized)
	switch s.Loss {
	case Logistic:
		lip = xt
	case Squared:
		lam := s.Lambda + extra/fn
		radius = b.Y / math.Sqrt(lam) // the unperturbed bound; imposed as a constraint
		if s.L1Radius > 0 {
			radius = math.Min(radius, s.L1Radius)
		}
		lip = xt * (b.Y + xt*radius)
	}
	return lip, radius, extra, beta, nil
}

// objectiveAccuracyShare is the public share of (ε, δ) that a planned
// objective perturbation spends on the output noise covering the solver
// accuracy τ (planObjective).
const objectiveAccuracyShare = 0.01

// planObjective calibrates objective perturbation from public inputs and
// returns the draw on clipped data: b is sampled, the perturbed objective is
// minimized (solve, see solveCertified).
//
// Solver accuracy (tau > 0, plans). The privacy proof of objective
// perturbation is about the exact minimizer w*(b) of the perturbed
// objective; the solver returns ŵ with ‖ŵ − w*(b)‖₂ ≤ τ (certified,
// solveCertified). The plan releases ŵ + ζ₂ with ζ₂ output noise of ℓ₂
// sensitivity 2τ, the approximate-minima perturbation of Iyengar, Near,
// Song, Thakkar, Thakurta and Wang ("Towards practical differentially
// private convex optimization", IEEE S&P 2019, Alg. 1 and Thm 1):
//
//	objective perturbation at (ε₁, δ) with ε₁ = (1 − f)·ε,
//	ζ₂ Laplace per weight for the ℓ₁ sensitivity √k·2τ at (ε₂, 0), ε₂ = f·ε,
//	total (ε₁ + ε₂, δ) = (ε, δ) by (adaptive) basic composition,
//
// f = objectiveAccuracyShare (plus Laplace snapping's excess, which the
// guarantee adds; Laplace for every noise kind because its safe release
// is cheap at the small ε₂, where the discrete Gaussian's grid is fine).
//
// Proof sketch: given the first output t = w*(D, b), e(D) = ŵ − t has ‖e‖ ≤
// τ on every dataset, so e(D) + ζ₂ is a mixture of noise laws centred in the
// ball of radius τ, each pair of which is (ε₂, 0)-indistinguishable (the
// centres differ by ≤ 2τ), and the hockey-stick divergence is jointly
// convex; ŵ + ζ₂ = t + (e + ζ₂) is post-processing of the pair. ζ₂ is drawn
// by the mechanism's floating-point-safe release. With tau = 0 (Prepare's
// reproduction) no ζ₂ is added and the statement says the proof assumes the
// exact minimizer.
func planObjective(ctx context.Context, s Spec, n, d int, p Privacy, g Guarantee, tau float64) (Guarantee, *vectorNoise, dataDraw, error) {
	k := s.weights(d)
	var out *vectorNoise
	if tau > 0 {
		var err error
		out, err = newVectorNoise(ctx, Laplace, k, k, 2*tau, objectiveAccuracyShare*p.Epsilon, 0)
		if err != nil {
			return g, nil, nil, err
		}
		p.Epsilon = (1 - objectiveAccuracyShare) * p.Epsilon
		g.Epsilon = p.Epsilon
	}
	lip, radius, extra, beta, err := objectiveLip(s, n, p.Epsilon)
	if err != nil {
		return g, nil, nil, err
	}
	b := s.bounds()
	fn := float64(n)
	g.Sensitivity, g.Norm, g.Source = 2*lip, "l2", "certified"
	var sample func(src noise.Source) []float64
	switch p.Mechanism {
	case Laplace:
		g.Delta = 0
		scale := 4 * lip / p.Epsilon
		gauss, _ := noise.NewGaussian(1)
		sample = func(src noise.Source) []float64 {
			// ‖b‖ ~ Γ(k, scale): a sum of k exponentials; direction uniform.
			r := 0.0
			for i := 0; i < k; i++ {
				r -= math.Log(1 - uniform(src))
			}
			r *= scale
			v := make([]float64, k)
			nv := 0.0
			for i := range v {
				v[i] = gauss.Sample(src)
				nv += v[i] * v[i]
			}
			for i := range v {
				v[i] *= r / math.Sqrt(nv)
			}
			return v
		}
		g.NoiseStd = scale * math.Sqrt(float64(k)*(float64(k)+1)/float64(k))
	case Gaussian, AnalyticGaussian:
		vn, err := newVectorNoise(ctx, p.Mechanism, k, 0, 2*lip, p.Epsilon/2, p.Delta)
		if err != nil {
			return g, nil, nil, err
		}
		g.Delta, g.NoiseStd = vn.delta, vn.std()
		sample = func(src noise.Source) []float64 {
			b := make([]float64, k)
			for j := range b {
				b[j] = vn.dist.Sample(src)
			}
			return b
		}
	default:
		return g, nil, nil, invalidf("objective perturbation supports laplace, gaussian and analytic-gaussian noise, not %q", p.Mechanism)
	}
	// The certificate records the numbers of the privacy proof (not an
	// output sensitivity: the noise enters the objective).
	g.Certificate = &Certificate{
		Method: MethodObjective, Bound: 2 * lip, Norm: 2, Adjacency: Adjacency,
		Domain: fmt.Sprintf("‖x‖₂ ≤ %g, |y| ≤ %g (rows clipped), n = %d", b.X, b.Y, n),
		Params: map[string]float64{"n": fn, "lambda": s.Lambda, "extra": extra, "beta": beta, "L": lip, "R": radius, "epsilon": p.Epsilon,
			"loss": lossCode[s.Loss], "X": b.X, "Y": b.Y, "intercept": boolFloat(s.Intercept)},
		Assumptions: []string{"exact minimizer of the perturbed objective", "loss convex, twice differentiable, |∂²ℓ/∂t²| ≤ c"},
	}
	acc := ""
	if out != nil {
		g.Epsilon += out.eps + out.snapExcess(k)
		g.Certificate.Params["accuracy"], g.Certificate.Params["accuracy_share"] = tau, objectiveAccuracyShare
		g.Certificate.Assumptions = []string{"the released weights are within τ of the exact minimizer of the perturbed objective (certified per release by the projected-gradient bound) plus output noise of ℓ2 sensitivity 2τ",
			"loss convex, twice differentiable, |∂²ℓ/∂t²| ≤ c"}
		acc = fmt.Sprintf("; solver accuracy: the released weights are the certified τ = %.3g approximation plus Laplace noise of ℓ1 sensitivity √%d·2τ at ε = %.4g (snapped), composed (approximate-minima perturbation, Iyengar et al. 2019, Thm 1) with the objective perturbation at ε = %.4g", tau, k, out.eps, p.Epsilon)
	} else {
		acc = "; the privacy proof assumes the exact minimizer of the perturbed objective (the solver's accuracy is not covered: no release plan)"
	}
	g.state(fmt.Sprintf("objective perturbation (the sensitivity is that of the gradient term b, 2L), ‖∇ℓ‖ ≤ L = %.4g, extra ridge Δ = %.4g; b is sampled in floating point (it enters the objective, not the output: no floating-point-safe procedure applies)", lip, extra) + acc)
	pert := &perturbation{extra: extra / fn, radius: radius}
	return g, out, func(ctx context.Context, data Data) (drawFn, error) {
		return func(ctx context.Context, src noise.Source) ([]float64, error) {
			pp := *pert
			pp.b = sample(src)
			if out == nil {
				return fitClipped(ctx, data, s, &pp)
			}
			w, err := solveCertified(ctx, data, s, &pp, tau)
			if err != nil {
				return nil, err
			}
			return out.add(w, src)
		}, nil
	}, nil
}

// uniform returns a uniform in [0, 1) from src.
func uniform(src noise.Source) float64 { return float64(src.Uint64()>>11) / (1 << 53) }

// planAdaSSP calibrates AdaSSP from public inputs and returns the draw on
// clipped data. The noisy system is solved with its eigenvalues floored at
// 10⁻⁶ of the noise std of X̃ᵀX̃ (post-processing), so a draw never fails.
func planAdaSSP(ctx context.Context, s Spec, n, d int, p Privacy, rho float64, g Guarantee) (Guarantee, *vectorNoise, dataDraw, error) {
	if s.Loss != Squared {
		return g, nil, nil, invalidf("AdaSSP is for the squared loss, got %q", s.Loss)
	}
	if rho == 0 {
		rho = 0.05
	}
	k := s.weights(d)
	b := s.bounds()
	xt := featureNorm(b, s.Intercept)
	e3, d3 := p.Epsilon/3, p.Delta/3
	mk := func(s2, s1 float64, coords int) (*vectorNoise, error) {
		if p.Mechanism == Laplace {
			return laplaceNoise(s1, e3, "")
		}
		return newVectorNoise(ctx, p.Mechanism, 1, coords, s2, e3, d3)
	}
	if p.Mechanism == Optimal {
		return g, nil, nil, invalidf("AdaSSP supports laplace, gaussian and analytic-gaussian noise, not optimal")
	}
	nl, err := mk(xt*xt, xt*xt, 1)
	if err != nil {
		return g, nil, nil, err
	}
	ng, err := mk(math.Sqrt2*xt*xt, float64(k+1)*xt*xt, k*(k+1)/2)
	if err != nil {
		return g, nil, nil, err
	}
	ny, err := mk(2*xt*b.Y, 2*math.Sqrt(float64(k))*xt*b.Y, k)
	if err != nil {
		return g, nil, nil, err
	}
	g.Delta = nl.delta + ng.delta + ny.delta
	g.Sensitivity, g.Norm, g.Source, g.NoiseStd = ng.sens, normName(ng.norm), "certified", ng.std()
	g.floatSafe([]*vectorNoise{nl, ng, ny}, []int{1, k * (k + 1) / 2, k})
	g.Certificate = &Certificate{
		Method: MethodAdaSSP, Bound: ng.sens, Norm: ng.norm, Adjacency: Adjacency,
		Domain: fmt.Sprintf("‖x‖₂ ≤ %g, |y| ≤ %g (rows clipped), n = %d", b.X, b.Y, n),
		Params: map[string]float64{"X": b.X, "Y": b.Y, "intercept": boolFloat(s.Intercept), "k": float64(k), "lambda_min": nl.sens, "gram": ng.sens, "xty": ny.sens},
	}
	g.state(fmt.Sprintf("AdaSSP: λ_min, X̃ᵀX̃ and X̃ᵀy each at (ε/3, δ/3), composed; ρ = %g", rho))
	shift := nl.dist.Quantile(1 - rho) // λ̃_min is a (1−ρ) lower bound of λ_min
	lam0 := math.Sqrt(float64(k)*math.Log(2*float64(k*k)/rho)) * ng.std()
	floor := 1e-6 * ng.std()
	return g, ng, func(ctx context.Context, data Data) (drawFn, error) {
		gram, xty := s.moments(data)
		lmin := 0.0
		var eig mat.EigenSym
		if eig.Factorize(gram, false) {
			lmin = eig.Values(nil)[0]
		}
		return func(ctx context.Context, src noise.Source) ([]float64, error) {
			lv, err := nl.release(lmin, src)
			if err != nil {
				return nil, err
			}
			lt := math.Max(lv-shift, 0)
			lam := math.Max(0, lam0-lt)
			h := mat.NewSymDense(k, nil)
			for i := 0; i < k; i++ {
				for j := i; j < k; j++ {
					v, err := ng.release(gram.At(i, j), src)
					if err != nil {
						return nil, err
					}
					if i == j {
						v += lam
					}
					h.SetSym(i, j, v)
				}
			}
			rhs, err := ny.add(xty.RawVector().Data, src)
			if err != nil {
				return nil, err
			}
			return projectOrClean(ctx, ridgeSolve(h, rhs, floor, 0, d), d, s), nil
		}, nil
	}, nil
}

// dataDraw computes a plan's statistic from clipped data (the fit, the
// moments) and returns the function that adds the noise to it.
type dataDraw func(ctx context.Context, data Data) (drawFn, error)

// drawFn draws one release (the noise and the post-processing).
type drawFn func(ctx context.Context, src noise.Source) ([]float64, error)

// bind returns the Releaser of a plan-style draw on fixed clipped data: the
// statistic is computed once, each Draw adds fresh noise.
func bind(ctx context.Context, g Guarantee, draw dataDraw, data Data) (*Releaser, error) {
	d, err := draw(ctx, data)
	if err != nil {
		return nil, err
	}
	return &Releaser{guarantee: g, draw: d}, nil
}

// NewReleaser wraps a draw function with its guarantee, for strategies
// defined outside this package (e.g. plain output perturbation without
// projection in a comparison). The caller vouches for the guarantee.
func NewReleaser(g Guarantee, draw func(ctx context.Context, src noise.Source) ([]float64, error)) *Releaser {
	return &Releaser{guarantee: g, draw: draw}
}
