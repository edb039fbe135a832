// Package accounting composes privacy losses: privacy filters for budgets
// spent adaptively, and a privacy-loss-distribution (PLD) accountant for
// tight composition of known mechanisms.
//
// # Filters
//
// A Filter decides, given a budget fixed in advance and the releases so far
// (each possibly chosen after seeing earlier outputs), whether one more
// release may run (Rogers, Roth, Ullman and Vadhan, "Privacy odometers and
// filters: pay-as-you-go composition", NeurIPS 2016; Whitehouse, Ramdas,
// Rogers and Wu, "Fully-adaptive composition in differential privacy", ICML
// 2023). It keeps running totals in a State, so one more release costs O(1).
// BasicFilter — admit while Σε ≤ ε_g, Σδ ≤ δ_g, Σγ ≤ γ_g, summed exactly;
// RDPFilter — Σρ(α) ≤ ε_g − ln(1/δ_g)/(α−1) at one order α (Feldman and
// Zrnic, NeurIPS 2021); GDPFilter — Σμ² ≤ μ_g² for Gaussian releases (Smith
// and Thakurta 2022). Fixed-parameter theorems (advanced composition, PLD
// composition) are not filters and are not used to admit adaptively chosen
// releases; a batch fixed in advance is composed by its PLD (BatchCost) and
// charged to a filter as one release.
//
// # Privacy-loss distributions
//
// A PLD is the law of the privacy loss L = ln(P(x)/Q(x)), x ~ P, of a
// mechanism's worst pair of output distributions, rounded up to a grid h·ℤ.
// Its hockey-stick curve δ(ε) = Pr[L = ∞] + E(1 − e^{ε−L})⁺ is an upper bound
// on the mechanism's; composing mechanisms adds independent losses, i.e.
// convolves PLDs (Compose, by FFT; ComposeK by repeated squaring), and the
// rounding stays an upper bound under composition. Constructors give the
// exact law before rounding: LaplacePLD, GaussianPLD, TruncatedLaplacePLD
// (closed-form CDFs of L) and PiecewisePLD (finitely many loss values on the
// common refinement of the cells of X and X + Δ: the optimal noise of
// package noise, which no other DP library can account). Every PLD carries
// Err, a bound on the floating-point error of its masses, which Delta adds.
//
// Every mechanism. ProfilePLD turns an upper bound on a mechanism's privacy
// profile (sup over neighbours of the hockey-stick divergence) into a
// dominating discrete pair — the "connect the dots" construction — so that
// mechanisms whose worst shift is not Δ compose tightly too: MechanismPLD
// does it for the multi-Gaussian (MultiGaussianProfile, from the rigorous
// noise.CertifyMultiGaussian), staircase and piecewise-constant/optimal noise
// (PiecewiseProfile, from the big-float noise.Certify), and returns the
// closed-form PLDs for Laplace, Gaussian and truncated Laplace.
//
// Minibatch methods. SubsampledGaussianPLD is the PLD of one step of the
// Poisson-subsampled Gaussian mechanism (DP-SGD with clipping norm Δ) for
// the add/remove adjacency, in either direction (Neighbour);
// SubsampledGaussianEpsilon and SubsampledGaussianDelta compose k steps in
// both directions and keep the worse, SubsampledGaussianSigma finds the
// smallest σ for a target (ε, δ) by bisection.
//
// Invariants: Mass ≥ 0, Σ Mass + Inf ≈ 1 (within Err); the loss value of
// Mass[i] is (Offset + i)·Step; PLDs compose only on the same Step. The
// excess of the accountant's ε over the exact one is at most k·Step for k
// compositions (each loss is rounded up by less than one step).
package accounting
