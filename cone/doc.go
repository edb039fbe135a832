// Package cone describes the closed convex cones of privopt's standard form
//
//	minimize ½xᵀPx + qᵀx + r  subject to  Ax + s = b,  s ∈ K = K₁ × … × K_p,
//
// with each Kᵢ a zero, nonnegative, second-order, rotated second-order, PSD (scaled
// svec), exponential or power cone, plus the free, dual exponential and dual power
// cones that complete the set under duality. It knows dimensions, membership with
// a tolerance (Contains, Distance), Euclidean projections (Project), dual cones
// (Dual, ContainsDual) and the svec/smat maps of the PSD cone. It knows nothing of
// models or solvers.
//
// Invariants and conventions:
//
//   - Coordinates inside a block follow the order documented at Kind; a product
//     cone is a slice of Cones covering consecutive blocks of a vector.
//   - PSD coordinates are the scaled lower-triangular column-major svec
//     (SVec/SMat/SVecIndex), so ⟨svec A, svec B⟩ = tr(AB) and the PSD cone is
//     self-dual with the Euclidean inner product used everywhere in this package.
//   - Duality is with respect to the Euclidean inner product: K* = {y : ⟨s, y⟩ ≥ 0
//     for all s ∈ K}, and Dual().Dual() is the identity.
//   - Contains(s, tol) means dist(s, K) ≤ tol in the Euclidean norm (an absolute
//     tolerance; scale it by ‖s‖ for a relative test).
//   - Project and Distance never panic on user input: invalid cones, wrong lengths
//     and non-finite entries are errors (ErrDimension, ErrNotFinite), and Contains
//     reports false for them.
//   - Projections satisfy Moreau's decomposition s = Π_K(s) − Π_{K*}(−s) with
//     orthogonal parts to about 1e-10·‖s‖; the exponential and power projections
//     solve a scalar equation by bisection to machine precision, so they always
//     terminate (at most about 2,000 steps, typically under 100).
package cone
