// Package chance turns the joint chance constraint of a lifted program,
//
//	Pr[ b − A(x̄ + Xζ) ∈ K ] ≥ 1 − η,
//
// into a deterministic counterpart in privopt's standard form (Dvorkin et al.,
// "Privacy-preserving convex optimization", Section 3.1.2), solves it and
// decodes the decision rule.
//
// Each random row is a lindecision.RandomAffine s(ζ) = f0 + Σ_j f_j ζ_j with f0,
// f_j affine in the decision variables. Methods (one per model or per group of
// rows; groups combine by the union bound):
//
//	Vertex      box from S sampled ζ (Prop. 3.3, S = ⌈(1/η)(e/(e−1))(2k−1+ln(1/β))⌉);
//	            linear rows: exact robust counterpart over the box
//	            f0 + Σ_j c_j f_j − Σ_j w_j t_j ≥ 0, t_j ≥ ±f_j  (O(nnz·k), no 2ᵏ enumeration);
//	            conic rows: one cone copy per box vertex (capped by MaxVertices).
//	Scenario    the rows at N samples (Campi and Garatti 2008 sample size).
//	Bonferroni  η_i = η·w_i/Σw per random linear row; f0 ≥ z(η_i)·‖Fᵀf‖ as a
//	            second-order cone (Cantelli, Chebyshev or Gaussian safety factor),
//	            or exact quantiles when a single noise component enters the row.
//	Robust      the support box of bounded noise: probability one, no sampling.
//
// # Invariants
//
//   - Row layout of a Counterpart: [lifted equalities | nonnegative rows |
//     conic blocks]; variables: the lifted vector v (lindecision layout) followed
//     by auxiliaries. The objective is the lifted expected objective; auxiliaries
//     have zero cost, so the counterpart's optimal value is the optimal expected
//     objective.
//   - Every Counterpart carries a Guarantee (method, η, β, exact, conservative
//     or probability-one, sample size, box, per-row risks).
//   - Reformulations only add constraints; they never remove a deterministic
//     row. A deterministic row (no noise enters it) is kept as is.
//   - An infeasible counterpart is a result: Solve returns *InfeasibleError
//     (errors.Is(err, ErrInfeasible)) with a hint (Section 3.4).
//   - Samples for Vertex and Scenario come from Spec.Rand (default seeded from
//     crypto/rand); they only shape the uncertainty set and are not secret.
//
// Solve picks HiGHS for LP/QP counterparts and the interior-point solver
// (solver/ipm) for counterparts with conic rows, unless a solver is given.
package chance
