// Package noise provides scalar additive noise for (ε,δ)-differential privacy:
// distributions, the textbook mechanisms calibrated to (ε, δ, Δ), the optimal
// piecewise-constant noise of Selvi, Liu & Wiesemann ("Differential Privacy
// via Distributionally Robust Optimization", 2024) with upper and lower
// bounds, an exact big-float DP certificate for piecewise-constant densities,
// and samplers fit for real releases.
//
// Contents:
//
//   - Distribution (PDF, CDF, Quantile, Mean, Variance, MeanAbs, Support,
//     Sample) with Laplace, Gaussian, TruncatedLaplace, Staircase,
//     QuasiGaussian and PiecewiseConstant; simple constructors NewLaplace,
//     NewGaussian, NewTruncatedLaplace, … for callers that calibrate themselves.
//   - Mechanisms from Params{Epsilon, Delta, Sensitivity}: LaplaceMechanism,
//     GaussianMechanism (classical, ε < 1), AnalyticGaussianMechanism (Balle &
//     Wang 2018), TruncatedLaplaceMechanism (Geng et al. 2020),
//     StaircaseMechanism (Geng & Viswanath 2016), QuasiGaussianMechanism (Liu &
//     Selvi, Theorem 3), MultiGaussianMechanism (Liu & Selvi, Definition 3,
//     Theorem 5, Algorithms 6–7) with its rigorous certificate
//     CertifyMultiGaussian and hockey-stick profile (HockeyStick,
//     HockeyStickUpper, MaxHockeyStick).
//   - Optimize: data-independent optimal noise (Sections 2 and 4); it solves
//     its LPs through a registered LP (see LP; import _
//     "github.com/privopt/privopt/noise/lphighs" for HiGHS). Everything else in
//     the package is pure Go and builds with CGO_ENABLED=0. for ℓ₁, ℓ₂,
//     pinball or user losses (CustomLoss), with symmetric/monotone options,
//     uniform or graded partitions, the appendix rule for Λ and β and a
//     refinement loop to a requested gap. OptimizeDataDependent: Section 3.
//   - Certify: exact maximal privacy shortfall of a PiecewiseConstant.
//   - GengLowerBoundL1: the literature lower bound on E|X| (Geng & Viswanath
//     2015, Thm 8; Geng et al. 2020, Thm 4), the benchmark of Table 1.
//   - Mechanism.Release: floating-point-safe releases (Laplace snapping with a
//     correctly rounded logarithm and SnappingExcess for its k-row ε term,
//     exact piecewise-constant sampling, and the exact discrete Gaussian of
//     Canonne, Kamath and Steinke 2020 for Gaussian noise, DiscreteGaussianFor;
//     an exact discrete truncated Laplace, DiscreteTruncatedLaplaceFor; an
//     exact staircase sampler; an exact discrete quasi-Gaussian,
//     DiscreteQuasiGaussianFor). Only user-defined distribution types return
//     ErrUnsafeRelease.
//   - WritePiecewise / LoadPiecewise: piecewise densities as JSON artifacts,
//     re-certified exactly on load.
//
// Invariants:
//
//   - A mechanism f(D) + X with sensitivity Δ is (ε,δ)-DP when
//     P[X ∈ A] ≤ e^ε·P[X + φ ∈ A] + δ for all shifts |φ| ≤ Δ and events A.
//     Every constructor validates (ε, δ, Δ) and returns a *ParamError
//     (errors.Is(err, ErrInvalidParam)) naming the parameter otherwise.
//   - Calibrations hold for every finite ε > 0: the analytic Gaussian works in
//     the log domain (e^ε·Φ(·) never overflows), the truncated Laplace moments
//     use series where the closed forms cancel (tiny ε). A mechanism whose
//     noise has a standard deviation or E|X| outside the float64 range
//     (ε = 10⁻³⁰⁰, say) is a ParamError, never +Inf or NaN; Optimize accepts
//     ε ≤ MaxOptimizeEpsilon (20).
//   - Every distribution returned by Optimize or OptimizeDataDependent has
//     passed the exact certificate (shortfall ≤ 0 in big-float arithmetic with
//     upward rounding); if it cannot be certified after repair, ErrNotCertified
//     is returned and no distribution.
//   - Lower bounds are valid for every (ε,δ)-DP additive noise (of the
//     problem's class: data-independent, or data-dependent on the given
//     partition of the query range), whatever the grid.
//   - Randomness comes from a Source; nil means crypto/rand. Seeded sources exist
//     for experiments only.
//
// Lower bounds: for ℓ₁, ℓ₂, pinball and user losses that declare their
// smoothness (Loss.WithSmoothness), Optimize and OptimizeDataDependent use a
// dithered relaxation whose error is of second order in the cell width β
// (dither.go); otherwise, and with PaperLowerBound, the paper's D(π,β)
// (cell infima, first order in β).
//
// Performance note: the bounding LPs are solved by constraint generation with
// one exact block per violated shift (see shiftBlock). At (ε,δ) = (1, 0.2),
// ℓ₁, symmetric, with HiGHS: a certified gap of 0.27% with 100 cells in about
// 0.1 s, 0.14% with 200 cells in 0.4 s (BENCHMARKS.md). The upper bound is
// already within 0.01% of its limit at 100 cells; a 2,000-cell upper bound
// (the paper's rule of thumb) takes about 12 s.
package noise
