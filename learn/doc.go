// Package learn fits and privately releases the weights of regularized
// empirical-risk-minimization models — least squares, ridge, nonnegative,
// monotone and ℓ₁-constrained regression, Huber and logistic regression and the
// linear SVM of Dvorkin et al. (eq. 17) — built on package model, with
// certified sensitivities where the theory gives one and four release
// strategies side by side.
//
// # Problem
//
// Given rows (xᵢ, yᵢ), i = 1..n, Fit solves
//
//	minimize  (1/n) Σᵢ ℓ(wᵀx̃ᵢ; yᵢ) + (λ/2)‖w‖₂²   subject to  w ∈ C,
//
// with x̃ᵢ = xᵢ, or (xᵢ, 1) when an intercept is fitted (the intercept is the
// last weight and is regularized like the others), and C a data-independent
// closed convex set containing 0: any combination of w ≥ 0, ordered
// coefficients, homogeneous rows G w ≥ 0 and ‖w‖₁ ≤ r.
//
// # Public bounds and clipping
//
// Privacy is defined for datasets whose rows satisfy the declared public
// Bounds: ‖xᵢ‖₂ ≤ X and |yᵢ| ≤ Y. Every entry point clips the data first
// (Bounds.Clip: a row with ‖xᵢ‖ > X is scaled to norm X, a target outside
// [−Y, Y] is clamped), so the guarantee holds for any input. The bounds are
// parameters, never computed from the data: DefaultBounds is X = Y = 1, which
// suits features and targets the caller has scaled by public ranges.
//
// # Adjacency and certified sensitivity
//
// Two datasets are adjacent when they have the same n and differ in one row,
// both rows within the bounds. When λ > 0 the objective is λ-strongly convex on
// C, and for an L-Lipschitz loss on C ∩ {‖w‖ ≤ R}
//
//	‖w*(D) − w*(D′)‖₂ ≤ 2L/(nλ)
//
// (Chaudhuri, Monteleoni and Sarwate, JMLR 12, 2011, Cor. 8; the proof is
// repeated at CertifiedSensitivity). The bound is recorded as a certificate
// with method "erm-strong-convexity" whose verifier recomputes it from the
// declared numbers. Without a bound (λ = 0, or the SVM with its unregularized
// offset) NewPlan refuses projection and program perturbation; only Prepare
// still accepts a sampled sensitivity, for reproductions of the (ε, γ)
// notion of Dvorkin et al., and its statement says NotDP.
//
// # Release strategies
//
// Output perturbation with projection (w* + ζ projected onto C, a
// post-processing), objective perturbation (Chaudhuri et al. 2011; Kifer,
// Smith and Thakurta 2012), program perturbation (the released w̄* + ζ
// satisfies the constraints with probability ≥ 1 − η; w̄* minimizes over the
// tightened set C̄ in a plan, through query.Solve in Prepare's declared and
// sampled reproductions), AdaSSP
// (Wang 2018) and SSP (one joint release of X̃ᵀX̃ and X̃ᵀy whose tight
// sensitivity SSPSensitivity derives, certified for every λ including plain
// least squares, then a ridge fit chosen from the noise scale), each with
// Laplace, Gaussian, analytic Gaussian and optimal noise where the mechanism
// applies. Compare reports test error and
// constraint violation over Monte Carlo releases.
//
// # Iterative private optimization
//
// TrainIterative (and DPGradientDescent for losses defined elsewhere, such
// as SPO+) runs DP gradient descent, DP-SGD or DP proximal coordinate
// descent (Mangold et al. 2022) for ℓ₁/ridge-regularized logistic and
// squared losses: per-example gradients (or partial derivatives) are
// clipped to a public C, so every averaged step has the certified
// sensitivity 2C/(nq) whatever the data; Gaussian noise of multiplier z is
// added and the steps are composed by a StepAccountant (default
// GaussianAccountant: exact μ-GDP read from accounting's PLD; PLDAccountant
// composes any per-step PLD by FFT, the plug for subsampled PLDs); z is the
// smallest multiplier meeting (ε, δ) (NoiseMultiplier, bisection). The
// released model is the last or averaged iterate. IterativePrivacy.PerStep
// reproduces the papers' per-update calibration with any StepMechanisms
// entry and reports the (much weaker) composed guarantee of the run.

// # Release plans
//
// NewPlan computes a Plan from a PlanSpec — the spec with its public bounds,
// n (public under replace-one adjacency), d, the strategy, (ε, δ) and the
// public solver-accuracy target τ — and never sees data: the certificate,
// the calibrated noise, the output grid, program perturbation's constraint
// margins and the notes are fixed before any row is read, and every refusal
// (λ = 0 with projection or program, constraint sets without an exact
// projection, a program perturbation whose tightened set outgrows its noise)
// happens there. Plan.Release spends the budget first, clips the rows and
// returns the noisy weights; it never refuses after the spend: solver
// outputs are certified to within τ of the exact minimizer by the
// projected-gradient bound and repaired when they are not (solveCertified),
// and the certificates add 2τ. Program perturbation minimizes over the
// tightened set C̄ = {w_j ≥ l, w_{j+1} − w_j ≥ γ}, data-independent, so the
// strong-convexity certificate holds on it (certifiedSensitivityAt). The
// vector discrete Gaussian is calibrated to Δ + √m·g for m rounded
// coordinates on the grid g. Prepare keeps the sampled and declared
// sensitivities of the (ε, γ) reproductions, labelled NotDP.
//
// # Invariants
//
//   - Only released values leave Release: the non-private fit is returned
//     only by Fit, whose callers decide what to publish.
//   - Releases draw from crypto/rand unless a noise.Source is given; Monte
//     Carlo comparisons use seeded sources and are never releases.
//   - Every noisy value is drawn by the mechanism's floating-point-safe
//     release (noise.Mechanism.Release; program perturbation through
//     query.Solution.Release), with Laplace snapping's ε term included:
//     Guarantee.FloatingPointSafe. Objective perturbation is the exception
//     (its noise enters the objective) and its statement says so.
package learn
