// Package cone describes the closed convex cones of privopt's standard form
//
//	minimize ½xᵀPx + qᵀx + r  subject to  Ax + s = b,  s ∈ K = K₁ × … × K_p,
//
// with each Kᵢ a zero, nonnegative, second-order, rotated second-order, PSD (scaled
// svec), exponential or power cone. It knows dimensions, membership, projections
// where a closed form exists, and dual cones. It knows nothing of models or solvers.
package cone
