// Package noise provides scalar additive noise for (ε,δ)-differential privacy:
// distributions, the textbook mechanisms calibrated to (ε, δ, Δ), the optimal
// piecewise-constant noise of Selvi, Liu & Wiesemann ("Differential Privacy
// via Distributionally Robust Optimization", 2024) computed by a cutting-plane
// method with upper and lower bounds, an exact big-float DP certificate for
// piecewise-constant densities, and samplers fit for real releases.
//
// Invariants:
//
//   - A mechanism f(D) + X with sensitivity Δ is (ε,δ)-DP when
//     P[X ∈ A] ≤ e^ε·P[X + φ ∈ A] + δ for all shifts |φ| ≤ Δ and events A.
//     Every constructor validates (ε, δ, Δ) and returns a *ParamError
//     (errors.Is(err, ErrInvalidParam)) naming the parameter otherwise.
//   - Every distribution returned by Optimize has passed Certify (exact shortfall
//     ≤ 0 in big-float arithmetic); if it cannot be certified after repair,
//     Optimize returns ErrNotCertified and no distribution.
//   - Randomness comes from a Source; nil means crypto/rand. Seeded sources exist
//     for experiments only.
//   - Mechanism.Release adds noise without the floating-point leaks described
//     by Mironov (2012): see its documentation for the argument per mechanism.
package noise
