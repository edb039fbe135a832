// Package lindecision lifts a deterministic conic program in privopt's standard
// form into its linear-decision-rule counterpart, the first step of program
// perturbation (Dvorkin et al., "Privacy-preserving convex optimization",
// Section 3.1).
//
// The deterministic program is the canonical form of package solver,
//
//	minimize    ½xᵀPx + qᵀx + r
//	subject to  Ax + s = b,  s ∈ K,
//
// as produced by the model package's canonicalization (variable v occupies the
// columns v.Col(0)…, constraint c the rows can.Rows(c)). Every variable becomes the
// affine decision rule
//
//	x̃ = x̄ + Xζ,   ζ ∈ Rᵏ zero-mean noise,
//
// with decision variables x̄ ∈ Rⁿ and X ∈ Rⁿˣᵏ. The random slack of row i is then
// the random-affine function
//
//	s_i(ζ) = b_i − a_iᵀ(x̄ + Xζ) = f_i0 + Σ_j f_ij ζ_j,
//	f_i0 = b_i − a_iᵀx̄,   f_ij = −a_iᵀX_j,
//
// whose coefficients are affine in the lifted decision vector v = (x̄, free
// entries of X). A RandomAffine is the unit every chance-constraint
// reformulation (package chance) works on.
//
// # Invariants
//
//   - Lifted variable layout: x̄_i is column i (0 ≤ i < n); the free entries of X
//     follow in row-major order (i, then j). Fixed entries of X (query rows,
//     zero recourse) are constants, never variables: Lifted.XCol returns −1 and
//     Lifted.XFixed their value.
//   - Zero-cone rows (equalities) never become chance constraints: by Remark 3.5
//     they are replaced by f_i0 = 0 and f_ij = 0 for every j, which makes them
//     hold with probability one (Lifted.Equalities).
//   - Query constraints Q X = I (k rows of Q, one per noise component) make the
//     random part of the released query Q x̃ equal to ζ itself, independent of the
//     data (Examples 3.1, 3.2 and eq. 15d). A query row with a single non-zero
//     entry on a column no other query row touches fixes that row of X to a
//     constant (the identity query's X = I); the other rows become linear
//     equalities on X.
//   - The expected objective is exact: E[qᵀx̃] = qᵀx̄ because E[ζ] = 0, and
//     E[½x̃ᵀPx̃] = ½x̄ᵀPx̄ + ½Tr(XᵀPXΣ) with Σ the covariance of ζ (Section 4.2),
//     i.e. a block (Σ ⊗ P) on vec X. Components are required to have mean zero.
//   - Lifting costs O(nnz(A)·k + nnz(P)·nnz(Σ)) time and memory; nothing is
//     enumerated over the 2ᵏ vertices of a box here.
//
// Noise components are described by the small Distribution interface; the
// distributions of package noise satisfy it.
package lindecision
