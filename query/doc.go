// Package query releases linear functions of the solution of a convex program
// with differential privacy by program perturbation (Dvorkin et al., "Privacy-
// preserving convex optimization", Sections 2–3), and evaluates the release
// against the standard output and input perturbation baselines.
//
// # Workflow
//
//	p := can.Problem                         // deterministic standard form (package model)
//	cols := query.Columns(x)                 // model variable → standard-form columns
//	sol, err := query.Solve(ctx, p, query.Spec{
//		Query:   query.WeightedSum(cols, cost),  // or Identity(cols...), Sum(cols...), Linear(rows...)
//		Privacy: query.Privacy{PrivacySpec: query.PrivacySpec{Mechanism: query.Laplace, Epsilon: 1},
//			Sensitivity: query.Sensitivity{Value: cmax * alpha, Norm: 1}},
//		Chance:  chance.Spec{Approximation: chance.Approximation{Method: chance.Vertex, Eta: 0.01, Beta: 0.1}},
//		// per constraint: Groups: []chance.Group{{Rows: chance.RowRange(can.Rows(c)), Approximation: …}}
//	})
//	if errors.Is(err, query.ErrPrivacyInfeasible) { … }  // Section 3.4: too much noise for the feasible region
//	rel, err := sol.Release(query.ReleaseOptions{})      // Q x̄* + ζ̂, ζ̂ from crypto/rand, with a Record
//	ev, err := sol.Evaluate(ctx, query.EvalOptions{N: 10000})   // infeasibility, loss, CVaR; no re-solves
//	out, err := query.OutputPerturbation(ctx, p, q, privacy, query.EvalOptions{N: 10000})
//
// Solve lifts the problem to the decision rule x̃ = x̄ + Xζ (package
// lindecision) with one noise component per query row, imposes Q X = I,
// reformulates the chance constraint Pr[b − A x̃ ∈ K] ≥ 1 − η (package chance)
// and solves the counterpart (HiGHS for LP/QP counterparts, solver/ipm for
// conic ones, or Spec.Solver).
//
// # Invariants
//
//   - The released value is Q x̄* + ζ̂ where ζ̂ is drawn from the mechanism's
//     distribution, independently of the data; Solve and Release verify
//     Q X* = I (to QueryTolerance) and refuse otherwise. Q x̄* is a function of
//     the data whose sensitivity carries its provenance (Sensitivity.Source):
//     Certified (computed by privopt with a Certificate that Verify re-checks
//     independently), Declared (the caller's assumption: every Record says
//     "assuming") or Sampled (EstimateSensitivity measures the released Q x̄*,
//     never the deterministic Q x*, under the release's own calibration:
//     (ε, δ, γ)-probabilistic DP, Theorem 3.9). Record.Guarantee states it in
//     one line; plain "(ε, δ)-DP" only for a certified sensitivity.
//   - Custom noise must be a *noise.PiecewiseConstant and is certified exactly
//     (noise.Certify) at the claimed (ε, δ, Δ) before anything is solved; k
//     rows of it record the composed (kε, kδ).
//   - Laplace releases use Mironov's snapping mechanism and piecewise-constant
//     (optimal) noise an exact sampler, both through noise.Mechanism.Release;
//     Record.FloatingPointSafe says whether that was possible.
//   - Only Q x̃ is private. The full perturbed solution x̄* + X*ζ̂ depends on the
//     data through X* outside the query rows and is never returned by Release.
//   - Releases draw from crypto/rand unless a Source is given explicitly.
//     Monte Carlo evaluations and sampled reformulations use seeded simulation
//     randomness, which is never released.
//   - A Ledger composes releases (basic, or advanced composition with slack δ')
//     and refuses, with *BudgetError, any release that would exceed its budget,
//     before noise is drawn.
//   - Infeasible counterparts are results: errors matching ErrPrivacyInfeasible
//     (*chance.InfeasibleError, with a hint).
//
// # Cost
//
// Lifting and reformulating are linear in nnz(A)·k (bench/lift: a 10⁵-row
// covering LP with a weighted-sum query lifts and reformulates in about 5% of
// its HiGHS solve time). The counterpart itself is larger and can be much
// harder to solve than the deterministic problem: every variable outside the
// query gets k free recourse entries coupled through Q X = I. Restrict recourse
// (lindecision.Recourse: Zero, Pattern) to the variables that can absorb noise,
// e.g. the generators of a dispatch problem, to keep it small.
//
// Mechanisms come from package noise (Laplace, classical and analytic Gaussian,
// truncated Laplace); a piecewise-constant density (e.g. optimal noise) can be
// used with the Custom mechanism, which certifies it exactly before use.
package query
