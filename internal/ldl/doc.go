// Package ldl is a sparse LDLᵀ factorization for symmetric quasi-definite
// matrices, the KKT systems of privopt's interior-point solver:
//
//	K = [ H   Aᵀ ]     H ≻ 0 (n₁×n₁),  G ≻ 0 (n₂×n₂),
//	    [ A  −G  ]
//
// Every symmetric permutation of a quasi-definite matrix has a factorization
// P K Pᵀ = L D Lᵀ with L unit lower triangular and D diagonal (n₁ positive and
// n₂ negative pivots), so the permutation can be chosen for sparsity alone, once,
// from the pattern (Vanderbei, "Symmetric quasi-definite matrices", SIAM J.
// Optim. 5(1), 1995).
//
// The work is split in three phases:
//
//   - Analyze (pattern only): a fill-reducing ordering (approximate minimum
//     degree by default; exact minimum degree on bitsets, Ordering
//     MinimumDegree, for small matrices), the elimination tree and the
//     column counts of L.
//   - Analyze also picks the numeric method: simplicial up-looking (row by
//     row, Davis's LDL) or left-looking supernodal with dense kernels and
//     relaxed supernodes, by the work per entry of L (Options.Method overrides).
//     Supernodes of 512 columns or more are factored in panels
//     whose update by the earlier columns is a matrix product (an AVX2/FMA
//     kernel on x86-64, kernel_amd64.s).
//   - Symbolic.Factor / Factor.Refactor (values): the numeric factorization,
//     with optional dynamic regularization of pivots whose sign differs from the
//     expected one. Refactor reuses all memory and does not allocate.
//   - Factor.Solve / Factor.SolveRefine: triangular solves, and iterative
//     refinement against the unregularized matrix.
//
// Invariants: matrices are passed as their upper triangle including the
// diagonal (sparse.CSC, rows sorted in each column, every diagonal entry stored);
// a Symbolic is immutable and may be shared; a Factor owns its workspaces, so its
// methods allocate nothing after Factor returns but a Factor must not be used
// concurrently. Indices and signs in the API are in the original ordering; the
// permutation is internal.
package ldl
