// Package ipm is privopt's pure-Go interior-point solver for the standard conic
// form of package solver,
//
//	minimize ½xᵀPx + qᵀx + r  subject to  Ax + s = b,  s ∈ K,
//
// with K a product of zero, nonnegative, second-order, rotated second-order,
// PSD (scaled svec), exponential and power cones.
//
// # Method
//
// The solver follows Goulart & Chen, "Clarabel: An interior-point solver for
// conic programs with quadratic objectives" (2024): a homogeneous self-dual
// embedding with variables (x, z, s, τ, κ) that handles the quadratic objective
// directly,
//
//	Px + Aᵀz + qτ = 0,  Ax + s − bτ = 0,  κ = −qᵀx − bᵀz − xᵀPx/τ,
//	(s, z) ∈ K × K*,  τ, κ ≥ 0,
//
// solved by Mehrotra's predictor–corrector method from the starting point of
// Clarabel/CVXOPT (two least-squares solves, shifted into the cones by one
// common multiple of e). Symmetric cones (nonnegative, second-order, PSD) use
// Nesterov–Todd scaling; rotated second-order cones are mapped exactly onto
// second-order cones by the orthogonal row map (u, v) ↦ ((u+v)/√2, (u−v)/√2),
// undone afterwards; zero cones are equality rows with a zero scaling block.
// A PSD block whose dual feasible set lies in a proper face, shown by one
// variable (q_j = 0, no quadratic term, its column a singular semidefinite
// matrix F of the block, so ⟨F, Y⟩ = 0 forces FY = 0), is first restricted
// to that face and the variable dropped (one step of facial reduction,
// Borwein–Wolkowicz 1981); the answer is mapped back and re-checked on the
// caller's problem (facial.go).
// Exponential and power cones start with the primal–dual scaling of Dahl &
// Andersen (2022) and switch to the dual scaling H = μ∇²f*(z) once the
// residuals and the gap are below 10⁻⁴ (Settings.NonsymScaling); both use
// the third-order corrector of Dahl & Andersen (2022),
// η = ½∇³f*(z)[Δz, (∇²f*(z))⁻¹Δs] from the predictor direction (the step
// without it is tried as well when the corrected step is shorter than 0.5);
// the dual scaling adds a backtracking line search that keeps the iterate
// near the central path (Clarabel's barrier test) and gives way to the
// primal–dual one when it stalls.
//
// When every cone is symmetric and the Schur complement assembly of the
// eliminated PSD blocks (below) costs at least Σ n³ over the PSD blocks,
// up to two multiple centrality correctors (Gondzio 1996; one when it costs
// less than 2Σ n³) follow the
// Mehrotra direction: the Jordan product of the NT-scaled trial point at
// step min(1, α + 0.1) is decomposed spectrally, its eigenvalues outside
// [0.1σμ, 10σμ] are moved onto that box by one more solve with the same
// factorization, and the corrected direction is kept when its step grows by
// at least 0.01 (correctors.go). A solve with eliminated PSD blocks whose
// best iterate meets the reduced tolerances ends when neither its merit nor
// μ has halved in four iterations, or after two consecutive steps below 0.01
// (the round-off plateau of the KKT solves).
//
// Two safeguards keep the answers accurate near the solution, where the
// scaling H has entries of very different magnitudes: in blocks with a large
// scaling (inactive constraints) the step Δs is taken from the primal
// equation Δs = −r − AΔx + bΔτ instead of from Δs = −offset − HΔz, which would
// amplify the round-off of the KKT solve; and the best iterate (by the largest
// of the relative residuals and gap) is kept, so that a solve ending by a limit
// or by numerical trouble still returns Optimal or AlmostOptimal when that
// iterate meets the (reduced) tolerances. A second iterate is kept too: of
// those meeting the reduced tolerances, the one with the smallest estimate of
// the re-check's gap + objective sensitivity (solver.Accuracy); when the
// first fails the re-check on the caller's data and the second passes, the
// second is returned, with a diagnostic saying so. This is what answers
// problems whose optimal set is at infinity (‖x‖ grows like 1/τ, so the
// sensitivity |x|ᵀ|r_d| of late iterates grows once the dual residual stops
// falling). A solve that still ends numerical-error with the equilibration
// on is repeated once without it, in the time left, and the better graded
// answer is returned with a diagnostic saying so (Solver.Solve).
//
// Every iteration factors the quasi-definite KKT matrix
//
//	[ P + εI     Aᵀ       ]
//	[ A       −(H + εI)   ]
//
// with the sparse LDLᵀ of package internal/ldl (AMD ordering; symbolic
// analysis once, numeric refactorization per iteration, dynamic
// regularization), followed by iterative refinement against the unregularized
// matrix. When the refined solves leave a relative residual above 1e-9 and
// 1e-3 times the iterate's residuals (the static regularization ε is large
// against the smallest eigenvalues of an ill-conditioned system, e.g. QPs
// whose constraints are finite-difference operators), the iteration is redone with ε
// divided by 100 at a time, down to 1e-14, and the ε with the most accurate
// solves is kept; the initial ε is tried again when the solves later get
// 1000 times worse than those that started the descent, and kept if its
// solves are 10 times more accurate.
// Second-order cones larger than Settings.SOCExpandDim enter the
// matrix in a sparse expanded form with two extra rows each instead of a dense
// block, and PSD blocks of svec dimension d whose rows touch at most 2d
// variables are eliminated into the x-block by their Schur complement
// A_pᵀH⁻¹A_p (as CVXOPT does for every cone, and CSDP and SDPA for their
// blocks), so an SDP never factors a dense d×d scaling block, and small
// ill-conditioned blocks (orders 4–16 whose dual has no interior point) keep accurate directions. The Schur complement's entries
// M_ij = tr(F_i G F_j G), G = B⁻¹ (F_i the data matrix of variable i in the
// block), are assembled from the nonzeros of the F_i by the formulas F1/F2/F3
// of Fujisawa, Kojima & Nakata (Math. Program. 79, 1997), chosen per row by
// its cost as in CSDP and SDPA (a diagonal F_i costs O(1) per entry instead of
// a dense n×n congruence); when dense data make that dearer, or when a
// solve with the sparse M fails, or it factors with regularized pivots and
// the dense rule costs at most 10× the sparse one (its rounding can make M
// indefinite near a degenerate optimum), the dense Gram
// product gt·gtᵀ is used (Settings.PSDSchurRule). Solves with eliminated blocks are refined on
// the reduced system against the exact operator A_pᵀ(H⁻¹(A_p x)), which also
// removes the assembly's rounding. The data are equilibrated by modified
// Ruiz scaling first. The Schur complements of eliminated PSD blocks are
// computed by solver.Settings.Threads goroutines (0 means GOMAXPROCS; rows
// handed out dynamically), and with more than one thread the two step-length
// computations of a PSD block run concurrently; the rest of the solver
// is sequential. Separate Solve calls may run concurrently.
//
// The NT scaling of a PSD block of order ≥ 20 comes from the symmetric
// eigenproblem of L₁ᵀZL₁ (S = L₁L₁ᵀ, Z = L₂L₂ᵀ) while the scaled point's
// condition allows, else from the SVD of L₂ᵀL₁ (LAPACK's dgesvd; below order
// 20 one-sided Jacobi rotations, psdjacobi.go, with dgesvd as fallback); the
// step length to the boundary of a block of order ≥ 40 from a Lanczos
// estimate of the extreme eigenvalue, accepted only after a Cholesky
// factorization proves the step feasible (psdstep.go), with the full
// eigenvalue problem as the fallback. On x86-64 with AVX2 and FMA3, the dense
// rule's Gram product and the congruences, H products and Jordan products of
// PSD blocks of order ≥ 20 use a register-blocked fused multiply-add kernel
// (gram.go, gram_amd64.s, rows against rows); elsewhere gonum's BLAS.
//
// # Invariants
//
//   - The problem passed to Solve is never modified.
//   - Solution.Status is Optimal only if the returned point satisfies the
//     primal and dual residual and gap tolerances of Settings on the original
//     data; AlmostOptimal only if it satisfies the reduced tolerances.
//   - For PrimalInfeasible, Solution.Y is a certificate normalized to
//     bᵀY = −1 (AᵀY ≈ 0, Y ∈ K*); for DualInfeasible, Solution.X is normalized
//     to qᵀX = −1 with PX ≈ 0 and S = −AX ∈ K (approximately).
//   - Solution duals follow the package solver convention Px + q + Aᵀy = 0,
//     y ∈ K*.
//   - Invalid input (shapes, NaN, cone sizes, non-convex P, settings) is an
//     error, never a panic or a status.
package ipm
