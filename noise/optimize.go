package noise

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/sparse"
)

// OptimalOptions configure Optimize. The zero value (plus a Loss) follows the
// appendix rule of Selvi, Liu & Wiesemann ("Setting Λ and β in Practice"):
// support [−ΛΔ, ΛΔ] with Λ = ⌈(1/ε)·ln(1 + (e^ε − 1)/(2δ))⌉ (the support of the
// truncated Laplace mechanism, rounded up) and β = Δ/k with k chosen for about
// Intervals cells (default 200, not the appendix's 2,000: see Intervals).
type OptimalOptions struct {
	// Loss is the expected loss E c(X) to minimize (default L1()).
	Loss Loss
	// Intervals is the approximate number of cells N when Granularity is 0
	// (default 200; with the dithered lower bound that certifies a gap of
	// about 0.15% at (ε,δ) = (1, 0.2); the paper's rule of thumb, 2,000, costs
	// about 12 s in the upper-bound LP, see BENCHMARKS.md).
	Intervals int
	// Granularity k ≥ 2: cells are multiples of β = Δ/k. 0: from Intervals.
	Granularity int
	// SupportMultiple Λ ≥ 1: the support is [−ΛΔ, ΛΔ]. 0: the appendix rule.
	SupportMultiple int
	// LowerSupportMultiple Λ_L ≥ 1: the lower bound's event region is
	// [−Λ_LΔ, Λ_LΔ] (the padding of the paper's Proposition 3 lies beyond
	// it). Every Λ_L gives a valid lower bound; a larger one is tighter. 0:
	// automatic, max(Λ, LowerSupportRule). The paper uses Λ_L = Λ, which at
	// small ε leaves the bound 5–28% under the optimum: see
	// LowerSupportRule. Refinements grow Λ_L with Λ.
	LowerSupportMultiple int
	// Graded uses cells of width β within FineRadius·Δ of 0 and of width
	// CoarseFactor·β beyond (a non-uniform partition, Section 4.1) for the
	// upper bound. The lower bound then uses the dithered relaxation on a
	// uniform grid when it applies (see PaperLowerBound), else the coverage
	// relaxation on the graded grid (see coverage.go), not the paper's
	// D(π,β), which is not a relaxation for non-uniform partitions; it is
	// valid but looser than on a uniform grid.
	// With Granularity 0 and ε ≥ 5, a graded upper-bound grid may also be
	// chosen automatically (OptimalResult.GradedUpper).
	Graded       bool
	FineRadius   float64 // in units of Δ (default 2)
	CoarseFactor int     // default 4
	// UpperGranularity, if > 0, solves the upper bound on the coarser grid
	// β = Δ/UpperGranularity (doubling with each refinement, at most k): the
	// upper bound converges much faster in k than the lower bound, whose cell
	// infima drive the gap, so a coarse implementable density with a fine
	// lower bound certifies a small gap at a fraction of the cost.
	UpperGranularity int
	// LowerGranularity, if > 0, solves the lower bound on the uniform grid
	// β = Δ/LowerGranularity (doubling with each refinement). 0: the level's
	// k, but at most 48·2^refinement when the dithered bound is used: its
	// error falls like β², while its LP (no symmetry restriction) grows
	// quickly with k. At ε ≥ 5 (automatic or not) the dithered bound
	// restricts its events to the central window [−wΔ, wΔ], w =
	// max(2, ⌈1.5γk⌉)/k, γ = 1/(1 + e^{ε/2}) (dropping constraints keeps a
	// relaxation; the optimal noise's mass sits within about γΔ of 0 and
	// the binding constraints compare it with its shifts), and the
	// automatic granularity is ⌈6/γ⌉·2^refinement (547 at ε = 9; while
	// ⌈6/γ⌉ ≤ 2,048, i.e. up to ε ≈ 11.3), so the
	// kink penalty of the dithered bound, on the two cells at 0, is small
	// next to the plateau: see lowerGrid and BENCHMARKS.md.
	LowerGranularity int
	// PaperLowerBound uses the paper's lower bound D(π,β) (each cell charged
	// the infimum of the loss over it; the coverage relaxation on graded
	// grids, see Graded) even when the loss declares its
	// smoothness (Loss.WithSmoothness; L1, L2 and Pinball do). By default such
	// losses use the dithered relaxation (see dither.go): a valid lower bound
	// whose error is of second order in β instead of first, unless cells are
	// wider than 1.2 times the staircase plateau γΔ, γ = 1/(1 + e^{ε/2}), or
	// δ > 1/2 (see useDither). The dithered bound always uses a uniform grid. At
	// (ε,δ) = (1, 0.2), ℓ₁, k = 25 it certifies a 0.3% gap where D(π,β)
	// needs k ≈ 100 for 1%.
	PaperLowerBound bool
	// DitherIntervals m > 1 averages the dithered bound's LP over the dither
	// offsets s = iβ/m, i = 0..m, by the trapezoid rule instead of the two
	// ends (m = 1, the default): a valid bound for every m whose kink loss
	// at 0 shrinks with m (see dither.go, "More offsets"), at one LP per
	// offset (⌊m/2⌋ + 1 for symmetric losses). The gap target's early stop
	// of the lower bound is not used then.
	DitherIntervals int
	// Symmetric restricts the density to f(x) = f(−x). The lower bound keeps the
	// restriction only when the loss is exactly symmetric by construction (L1,
	// L2; Loss.Symmetric): then it is without loss of generality, since the
	// symmetrization of a feasible density is feasible and has the same loss. A
	// user loss that is symmetric at a few points only does not qualify.
	Symmetric bool
	// Monotone restricts the density to be nonincreasing away from 0. The lower
	// bound does not use the restriction (it remains a valid, looser bound).
	Monotone bool
	// Gap > 0 refines (k doubles; Λ grows by one every second refinement) until
	// (UB − LB)/LB ≤ Gap or MaxRefinements refinements were made. 0: one pass.
	// With Gap > 0 the lower-bound cutting plane also stops as soon as its
	// relaxation value (already a valid bound) certifies the gap against the
	// best upper bound known, so LowerBound may be below the level's D(π,β).
	Gap            float64
	MaxRefinements int // default 3
	// CutsPerRound: number of most violated shifts whose constraints are added
	// per round (default 4).
	CutsPerRound int
	// CleanupEvery rounds, event cuts (EventCuts only) with slack above
	// CleanupSlack are deleted (defaults 100 and 0.05; < 0 disables clean-up).
	CleanupEvery int
	CleanupSlack float64
	// MaxRounds bounds the cutting-plane rounds per bounding problem (default 20000).
	MaxRounds int
	// SkipLowerBound computes only the upper bound (LowerBound is then NaN).
	SkipLowerBound bool
	// PlainSearch evaluates shortfalls by probing all cell pairs (Algorithm 2 as
	// written) instead of the O(N)-per-shift sweep; for benchmarks.
	PlainSearch bool
	// FullUpperLP solves the upper bound over all cells of a large uniform
	// grid. By default, with Symmetric, a uniform upper-bound grid of at
	// least AdaptiveMinCells cells is solved over an adaptive partition of
	// its cells (see OptimalResult.AdaptiveParts): a restriction of P(π,β),
	// so a valid, certified upper bound, equal to P(π,β) in the measured
	// cases (BENCHMARKS.md) but not proven equal to it.
	FullUpperLP bool
	// FullEventRegion keeps the whole event region in the dithered lower
	// bound at ε ≥ 5 instead of the central window (see LowerGranularity):
	// slower, and tighter where the window loses — at (5, 0.01), k_l = 80:
	// 0.081275 against the window's 0.080477 (BENCHMARKS.md, "Private
	// learning, round 3"). The automatic lower granularity is then the one
	// below ε = 5; set LowerGranularity.
	FullEventRegion bool
	// EventCuts adds, for a violated shift, only the dense cut of its worst
	// event (Algorithm 1 as in the paper, Kelley's method) instead of the exact
	// block of all the shift's constraints. Its tail convergence is slow.
	EventCuts bool
	// coverageLB forces the coverage lower bound on uniform grids (tests).
	coverageLB bool
	// forceDither uses the dithered lower bound whenever the loss allows (tests).
	forceDither bool
	// Progress, if set, is called after every round (from the goroutines of
	// both bounds; calls are serialized).
	Progress func(OptimizeProgress)
}

// OptimizeProgress reports one cutting-plane round.
type OptimizeProgress struct {
	Stage        string // "upper" or "lower"
	Refinement   int
	Round        int
	Intervals    int
	Cuts         int     // cuts in the LP
	Objective    float64 // current relaxation value (the loss's units)
	MaxViolation float64 // largest shortfall minus δ_LP found this round
}

// OptimalResult is the outcome of Optimize.
type OptimalResult struct {
	Mechanism   *Mechanism         // Name "optimal"; Dist is Dist
	LossName    string             // the loss minimized
	Dist        *PiecewiseConstant // the certified upper-bound distribution
	Certificate *Certificate       // its exact DP certificate (Certified is true)
	UpperBound  float64            // E c(X) under Dist (P(π,β))
	LowerBound  float64            // best valid lower bound on any (ε,δ)-DP noise's loss
	Gap         float64            // (UpperBound − LowerBound)/LowerBound
	Intervals   int                // cells of Dist
	Granularity int                // k of the returned density (β = Δ/k)
	// LowerGranularity is k of the grid of the best lower bound (uniform
	// unless LowerMethod is "coverage").
	LowerGranularity int
	// LowerMethod names the relaxation of the best lower bound: "dithered"
	// (see OptimalOptions.PaperLowerBound), "dithered-window" (the same with
	// events restricted to a central window, automatic at ε ≥ 5, see
	// OptimalOptions.LowerGranularity), "cell-infimum" (the paper's
	// D(π,β)) or "coverage" (graded grids, see Graded).
	LowerMethod string
	// GradedUpper reports that the returned density lives on a graded grid
	// (Graded was set, or chosen automatically for large ε).
	GradedUpper bool
	// AdaptiveParts > 0 reports that the upper bound was solved over an
	// adaptive partition of the uniform grid's cells into AdaptiveParts
	// parts (the density is constant on each; see
	// OptimalOptions.FullUpperLP): UpperBound is then the value of that
	// restriction of P(π,β), an upper bound on P(π,β) itself.
	AdaptiveParts int
	Support       int // Λ
	// LowerSupport is Λ_L of the best lower bound's event region
	// [−Λ_LΔ, Λ_LΔ] (see OptimalOptions.LowerSupportMultiple; the central
	// window of "dithered-window" lies inside it).
	LowerSupport int
	Refinements  int
	Rounds       int           // cutting-plane rounds (all problems)
	Cuts         int           // cuts in the final upper-bound LP
	Repairs      int           // re-solves with a tightened δ after a failed certificate
	LPTime       time.Duration // summed over both bounds (they run concurrently)
	SearchTime   time.Duration // shortfall search, summed over both bounds
	CertifyTime  time.Duration
	Time         time.Duration // wall time
}

// Validate checks the option ranges.
func (o OptimalOptions) Validate() error {
	switch {
	case o.Intervals < 0:
		return paramErr("Intervals", o.Intervals, "must be ≥ 0")
	case o.Granularity == 1 || o.Granularity < 0:
		return paramErr("Granularity", o.Granularity, "must be 0 (automatic) or ≥ 2")
	case o.UpperGranularity < 0 || o.UpperGranularity == 1:
		return paramErr("UpperGranularity", o.UpperGranularity, "must be 0 (same as Granularity) or ≥ 2")
	case o.LowerGranularity < 0 || o.LowerGranularity == 1:
		return paramErr("LowerGranularity", o.LowerGranularity, "must be 0 (automatic) or ≥ 2")
	case o.SupportMultiple < 0:
		return paramErr("SupportMultiple", o.SupportMultiple, "must be 0 (automatic) or ≥ 1")
	case o.LowerSupportMultiple < 0:
		return paramErr("LowerSupportMultiple", o.LowerSupportMultiple, "must be 0 (automatic) or ≥ 1")
	case o.Graded && (math.IsNaN(o.FineRadius) || o.FineRadius < 0):
		return paramErr("FineRadius", o.FineRadius, "must be ≥ 0")
	case o.CoarseFactor < 0:
		return paramErr("CoarseFactor", o.CoarseFactor, "must be ≥ 0")
	case math.IsNaN(o.Gap) || o.Gap < 0:
		return paramErr("Gap", o.Gap, "must be ≥ 0")
	case o.MaxRefinements < 0:
		return paramErr("MaxRefinements", o.MaxRefinements, "must be ≥ 0")
	case o.CutsPerRound < 0:
		return paramErr("CutsPerRound", o.CutsPerRound, "must be ≥ 0")
	case math.IsNaN(o.CleanupSlack) || o.CleanupSlack < 0:
		return paramErr("CleanupSlack", o.CleanupSlack, "must be ≥ 0")
	case o.MaxRounds < 0:
		return paramErr("MaxRounds", o.MaxRounds, "must be ≥ 0")
	case o.DitherIntervals < 0:
		return paramErr("DitherIntervals", o.DitherIntervals, "must be ≥ 0")
	}
	return nil
}

func (o OptimalOptions) withDefaults() OptimalOptions {
	if o.Loss.Func == nil {
		o.Loss = L1()
	}
	if o.Intervals == 0 {
		o.Intervals = 200
	}
	if o.FineRadius == 0 {
		o.FineRadius = 2
	}
	if o.CoarseFactor == 0 {
		o.CoarseFactor = 4
	}
	if o.MaxRefinements == 0 {
		o.MaxRefinements = 3
	}
	if o.CutsPerRound == 0 {
		o.CutsPerRound = 4
	}
	if o.CleanupEvery == 0 {
		o.CleanupEvery = 100
	}
	if o.CleanupSlack == 0 {
		o.CleanupSlack = 0.05
	}
	if o.MaxRounds == 0 {
		o.MaxRounds = 20000
	}
	return o
}

// SupportRule returns the smallest integer Λ ≥ 1 with Λ > A = (1/ε)·ln(1 +
// (e^ε − 1)/(2δ')), δ' = δ(1 − 10⁻⁵): the appendix rule Λ ≥ ⌈A⌉ that makes
// P(π,β) feasible for β = Δ/k, k ≥ 2, made strict (and taken at a δ' just
// below δ, as the upper-bound LP is) so that the feasibility witness has slack.
func SupportRule(p Params) int {
	// A is taken at δ(1 − 10⁻⁵): the upper-bound LP runs with δ_LP < δ, and
	// at tiny ε (A ≈ 1/(2δ) − O(ε)) Λ = ⌊A⌋ + 1 would otherwise sit within
	// 10⁻⁶ of the A of δ_LP and leave the LP infeasible.
	a := truncatedLaplaceBound(Params{Epsilon: p.Epsilon, Delta: p.Delta * (1 - 1e-5), Sensitivity: 1})
	// Λ > A strictly: at Λ = A the truncated-Laplace witness of feasibility
	// has no slack, and the upper-bound LP runs with δ_LP slightly below δ.
	return max(1, int(math.Floor(a))+1)
}

// LowerSupportRule returns the automatic half-width Λ_L (in multiples of Δ)
// of the lower bound's event region: ⌈2A⌉ + 1 with A the truncated Laplace
// support of SupportRule, and at least SupportRule(p).
//
// Why: the lower bound D(π,β) constrains only events inside [−Λ_LΔ, Λ_LΔ];
// the mass beyond is lumped into the padding cells (the paper's Proposition 3)
// and never charged for the δ it would cost there. With the paper's Λ_L = Λ ≈ A
// (where near-optimal noise ends) the bound's density can end in a cliff at the
// region's edge for free: at small ε that leaves D(π,β) 5–28% under the
// optimum for any β (at (ε,δ) = (0.1, 0.05), k = 4: gap 10.6% at Λ_L = 8,
// 0.23% at 12, 0.14% at 16). Every Λ_L gives a valid bound, and the bound is
// nondecreasing in Λ_L (the problem at Λ_L relaxes the one at Λ_L' > Λ_L by
// lumping mass beyond Λ_L into the padding, whose cost is the loss at the
// edge); once the bound's density leaves the padding empty, a larger region
// cannot raise it (the density stays feasible with the same cost). Measured
// saturation points: Λ_L ≈ 1.9A at (0.005, 0.005), 1.4A at (0.3, 10⁻³),
// A + 1.1 at (1, 0.01); ⌈2A⌉ + 1 covers them (BENCHMARKS.md, "Private learning,
// round 4").
func LowerSupportRule(p Params) int {
	a := truncatedLaplaceBound(Params{Epsilon: p.Epsilon, Delta: p.Delta * (1 - 1e-5), Sensitivity: 1})
	return max(SupportRule(p), int(math.Ceil(2*a))+1)
}

// Optimize computes near-optimal (ε,δ)-DP additive noise for sensitivity Δ and
// the loss in opt: the upper bound P(π,β) (an implementable piecewise-constant
// density) and the lower bound D(π,β) of Selvi, Liu & Wiesemann (Section 4.1),
// both by constraint generation in the spirit of their Algorithm 1 on HiGHS
// with warm re-solves, the two bounds concurrently.
//
// Separation: for a grid density the shortfall of every shift φ = mβ,
// |m| ≤ k, is Σ_u (D_u − e^ε D_{u−m})⁺ over unit cells u (Lemma C.16: only
// these shifts and only overlapping cells matter), O(support/β) per shift
// instead of the O(N³) of Algorithm 2. Constraints: by default a violated
// shift enters with the exact block of all its events (one auxiliary variable
// per overlapping cell pair, see shiftBlock), so each shift is added once;
// EventCuts adds the paper's single worst-event cut instead (slow tail
// convergence).
//
// The returned distribution has passed Certify exactly. The upper-bound LP
// uses δ_LP = δ − max(10⁻⁶δ, min(10⁻⁹, δ/100)); if the certificate still
// fails (solver tolerances), the margin becomes twice itself plus twice the
// shortfall (at most δ/2) and the solve continues warm, up to five times; then
// ErrNotCertified is returned.
//
// Δ enters only through the grid: the problem is solved in units of Δ with the
// loss x ↦ c(Δx), so for ℓ₁ (ℓ₂) the optimal loss is Δ (Δ²) times that of
// Δ = 1, and the optimal density is the Δ = 1 density stretched by Δ.
func Optimize(ctx context.Context, p Params, opt OptimalOptions) (*OptimalResult, error) {
	start := time.Now()
	if err := p.needDelta(0, 1, "must be in (0, 1) for optimized noise"); err != nil {
		return nil, err
	}
	if p.Epsilon > MaxOptimizeEpsilon {
		return nil, paramErr("Epsilon", p.Epsilon, fmt.Sprintf("must be ≤ %g for optimized noise: the LPs' coefficients e^ε exceed the range a double-precision simplex resolves (use the staircase or truncated-laplace mechanism)", float64(MaxOptimizeEpsilon)))
	}
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	autoSupport := opt.SupportMultiple == 0
	opt = opt.withDefaults()
	if err := opt.Loss.validate(); err != nil {
		return nil, err
	}
	lam := opt.SupportMultiple
	if lam == 0 {
		lam = SupportRule(p)
	}
	// The lower bound's region exceeds the support by lamExtra multiples of
	// Δ (kept through the refinements, which grow Λ).
	lamExtra := max(0, LowerSupportRule(p)-lam)
	if opt.LowerSupportMultiple > 0 {
		lamExtra = opt.LowerSupportMultiple - lam
	}
	k := opt.Granularity
	if k == 0 {
		cellsPerDelta := 2 * float64(lam)
		if opt.Graded {
			f := math.Min(opt.FineRadius, float64(lam))
			cellsPerDelta = 2 * (f + (float64(lam)-f)/float64(opt.CoarseFactor))
		}
		k = max(2, int(math.Round(float64(opt.Intervals)/cellsPerDelta)))
	}
	// Large ε: near-optimal noise concentrates on a plateau of half-width
	// about γΔ, γ = 1/(1 + e^{ε/2}) (the staircase's), which the automatic
	// uniform grid cannot resolve (β > γΔ). Then the upper bound uses a graded grid
	// with β ≤ γΔ/8 inside 2γΔ of 0 and about Intervals cells in all; the
	// lower bound stays on the uniform grid (see autoGraded).
	ag := autoGraded(p, opt, lam, k)
	if float64(lam)*float64(k) > 5e6 {
		return nil, paramErr("Granularity", k, fmt.Sprintf("with support Λ = %d gives %g unit cells, more than 5e6", lam, float64(lam)*float64(k)))
	}
	scale := 0.5 * (opt.Loss.Func(p.Sensitivity) + opt.Loss.Func(-p.Sensitivity))
	if !(scale > 0) || math.IsInf(scale, 0) {
		return nil, paramErr("Loss", opt.Loss.Name, fmt.Sprintf("is %g at ±Δ; it must be positive and finite there", scale))
	}
	// The lower bound may keep the symmetry restriction only for a loss that is
	// exactly symmetric (then symmetrizing a feasible density loses nothing); a
	// probe at a few points cannot establish that, so the loss's own flag decides.
	symLoss := opt.Loss.symmetric

	res := &OptimalResult{LowerBound: math.Inf(-1), UpperBound: math.Inf(1)}
	if opt.Progress != nil { // the two bounds run concurrently: serialize reports
		var mu sync.Mutex
		f := opt.Progress
		opt.Progress = func(pr OptimizeProgress) {
			mu.Lock()
			defer mu.Unlock()
			f(pr)
		}
	}
	for ref := 0; ; ref++ {
		// The upper and lower bounding problems are independent: solve them
		// concurrently (two HiGHS instances).
		var (
			ub       *upperResult
			lb       float64
			ubErr    error
			lbErr    error
			ubStat   OptimalResult
			lbStat   OptimalResult
			lbMethod string
			lbK      int
			lbLam    int
			wg       sync.WaitGroup
		)
		// With a gap target the lower bound may stop as soon as it certifies
		// the target against the best upper bound known (this level's once
		// it is certified, else the previous levels').
		var target atomic.Uint64 // UB/(1+Gap); +Inf until an upper bound is known
		target.Store(math.Float64bits(res.UpperBound / (1 + opt.Gap)))
		var stopAt func() float64
		if opt.Gap > 0 {
			stopAt = func() float64 { return math.Float64frombits(target.Load()) }
		}
		if !opt.SkipLowerBound {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ol := opt
				ol.Symmetric = opt.Symmetric && symLoss
				kl, dither, window := lowerGrid(p, opt, k, ref)
				lbK = kl
				lamL := max(1, lam+lamExtra)
				lbLam = lamL
				switch {
				case dither:
					lbMethod = "dithered"
					ev := lamL * kl
					if window > 0 {
						lbMethod, ev = "dithered-window", window
					}
					lb, lbErr = solveLowerDither(ctx, p, ol, ev, kl, ref, &lbStat, scale, stopAt)
				case opt.Graded || opt.coverageLB:
					lbMethod = "coverage"
					gl := newGrid(p, lamL, kl, ol, true, scale)
					lb, lbErr = gl.solveLowerCoverage(ctx, p, ol, ref, &lbStat, ol.Symmetric)
				default:
					lbMethod = "cell-infimum"
					gl := newGrid(p, lamL, kl, ol, true, scale)
					lb, lbErr = gl.solveLower(ctx, p, ol, ref, &lbStat, ol.Symmetric, stopAt)
				}
			}()
		}
		ku := k
		if opt.UpperGranularity > 0 {
			ku = max(2, min(k, opt.UpperGranularity<<ref))
		}
		ou := opt
		if ag != nil {
			// Refinements double the graded grid up to k' = 4,000 (the
			// search costs O(k'²) per round), keeping the cells' real widths.
			ku = min(ag.k<<ref, max(ag.k, 4000))
			ou.Graded, ou.FineRadius, ou.CoarseFactor = true, ag.fineRadius, ag.coarse*ku/ag.k
		}
		adaptive := useAdaptive(ou, lam, ku)
		if adaptive {
			ub, adaptive, ubErr = solveUpperAdaptive(ctx, p, ou, lam*ku, ku, ref, scale, &ubStat)
		} else {
			ub, ubErr = newGrid(p, lam, ku, ou, false, scale).solveUpper(ctx, p, ou, ref, &ubStat)
		}
		if ubErr == nil && opt.Gap > 0 && ub.UpperBound < res.UpperBound {
			target.Store(math.Float64bits(ub.UpperBound / (1 + opt.Gap)))
		}
		wg.Wait()
		if ubErr != nil {
			return nil, blameAutomatic(ubErr, autoSupport, p)
		}
		if lbErr != nil {
			return nil, blameAutomatic(lbErr, autoSupport, p)
		}
		for _, st := range []*OptimalResult{&ubStat, &lbStat} {
			res.Rounds += st.Rounds
			res.Repairs += st.Repairs
			res.LPTime += st.LPTime
			res.SearchTime += st.SearchTime
			res.CertifyTime += st.CertifyTime
		}
		if ub.UpperBound < res.UpperBound {
			res.Dist, res.Certificate, res.UpperBound = ub.Dist, ub.Certificate, ub.UpperBound
			res.Intervals, res.Granularity, res.Support, res.Cuts = ub.Intervals, ku, lam, ub.Cuts
			res.GradedUpper = ou.Graded
			res.AdaptiveParts = 0
			if adaptive {
				res.AdaptiveParts = ub.Intervals
			}
		}
		if !opt.SkipLowerBound {
			if lb > res.LowerBound {
				res.LowerBound, res.LowerGranularity, res.LowerMethod, res.LowerSupport = lb, lbK, lbMethod, lbLam
			}
		}
		res.Refinements = ref
		if opt.SkipLowerBound {
			res.LowerBound = math.NaN()
			res.Gap = math.NaN()
		} else {
			res.Gap = (res.UpperBound - res.LowerBound) / math.Abs(res.LowerBound)
		}
		if opt.Gap == 0 || opt.SkipLowerBound || res.Gap <= opt.Gap || ref >= opt.MaxRefinements {
			break
		}
		k *= 2
		if ref%2 == 1 {
			lam++
		}
	}
	res.Mechanism = &Mechanism{Name: "optimal", Params: p, Dist: res.Dist}
	res.LossName = opt.Loss.Name
	res.Time = time.Since(start)
	return res, nil
}

// MaxOptimizeEpsilon is the largest ε Optimize accepts. The bounding LPs
// carry the coefficient e^ε next to 1; beyond e^20 ≈ 4.9·10⁸ HiGHS's
// tolerances (10⁻⁷ on feasibility) no longer resolve the constraints, and at
// ε ≳ 40 HiGHS rejects the rows outright (measured: ε = 15 already ends in a
// numerical error of the lower-bound LP, reported as an error).
const MaxOptimizeEpsilon = 20

// blameAutomatic rewrites an error that names SupportMultiple when the user
// left it 0: the support came from SupportRule, and the message says so
// instead of blaming an option that was never set.
func blameAutomatic(err error, auto bool, p Params) error {
	var pe *ParamError
	if !auto || !errors.As(err, &pe) || pe.Param != "SupportMultiple" {
		return err
	}
	return paramErr("Epsilon", p.Epsilon, fmt.Sprintf("with δ = %g: the automatic support Λ = %v (SupportRule) %s; set OptimalOptions.SupportMultiple above it", p.Delta, pe.Value, pe.Reason))
}

// grid is a bounding problem on cells whose edges are integers in units of
// β = Δ/k.
type grid struct {
	k        int
	idx      []int     // cell edges (units), len N+1
	width    []int     // cell widths (units)
	cellOf   []int32   // unit u − idx[0] → cell
	rlo, rhi int       // event region [rlo, rhi) (units)
	cost     []float64 // objective coefficients (loss/scale)
	e        float64
	shifts   []int
	unitReal float64 // Δ/k
	scale    float64
	lower    bool
}

func newGrid(p Params, lam, k int, opt OptimalOptions, lower bool, scale float64) *grid {
	return newGridUnits(p, lam*k, k, opt, lower, scale)
}

// newGridUnits is newGrid with the event region [−S, S) given in units of
// β = Δ/k (S = Λk for newGrid; the central event window of the large-ε lower
// bound uses a smaller S, see lowerGrid).
func newGridUnits(p Params, S, k int, opt OptimalOptions, lower bool, scale float64) *grid {
	var pos []int // nonnegative edges
	if opt.Graded {
		F := min(S, int(math.Round(opt.FineRadius*float64(k))))
		for u := 0; u <= F; u++ {
			pos = append(pos, u)
		}
		for u := F + opt.CoarseFactor; u < S; u += opt.CoarseFactor {
			pos = append(pos, u)
		}
		if pos[len(pos)-1] != S {
			pos = append(pos, S)
		}
	} else {
		for u := 0; u <= S; u++ {
			pos = append(pos, u)
		}
	}
	return newGridPos(p, pos, S, k, opt, lower, scale)
}

// newGridPos is newGridUnits with the nonnegative cell edges pos (0 first, S
// last, in units of β = Δ/k) given; the grid is their mirror image about 0.
func newGridPos(p Params, pos []int, S, k int, opt OptimalOptions, lower bool, scale float64) *grid {
	if lower { // padding 𝔑: k unit cells beyond each end
		pos = pos[:len(pos):len(pos)]
		for u := S + 1; u <= S+k; u++ {
			pos = append(pos, u)
		}
	}
	idx := make([]int, 0, 2*len(pos)-1)
	for i := len(pos) - 1; i > 0; i-- {
		idx = append(idx, -pos[i])
	}
	idx = append(idx, pos...)
	g := &grid{k: k, idx: idx, rlo: -S, rhi: S, e: math.Exp(p.Epsilon), unitReal: p.Sensitivity / float64(k), scale: scale, lower: lower}
	n := len(idx) - 1
	g.width = make([]int, n)
	g.cost = make([]float64, n)
	g.cellOf = make([]int32, idx[n]-idx[0])
	for j := 0; j < n; j++ {
		g.width[j] = idx[j+1] - idx[j]
		for u := idx[j]; u < idx[j+1]; u++ {
			g.cellOf[u-idx[0]] = int32(j)
		}
		a, b := float64(idx[j])*g.unitReal, float64(idx[j+1])*g.unitReal
		if lower {
			g.cost[j] = opt.Loss.Inf(a, b) / scale
		} else {
			g.cost[j] = opt.Loss.Average(a, b) / scale
		}
	}
	for m := -k; m <= k; m++ {
		if opt.Symmetric && m < 0 {
			continue
		}
		g.shifts = append(g.shifts, m)
	}
	return g
}

// shortfalls returns V(mβ) for every candidate shift m: Σ over unit cells u of
// the event region of (D_u − e·D_{u−m})⁺ with D_u the probability of unit cell u.
// A non-nil stop is polled every 32 shifts (a shift costs O(unit cells), and
// fine lattices at large ε make one search take 100s of ms); it reports
// whether stop fired, leaving out incomplete.
func (g *grid) shortfalls(p []float64, out []float64, unitDens []float64, stop func() bool) bool {
	lo, hi := g.idx[0], g.idx[len(g.idx)-1]
	for u := range unitDens {
		j := g.cellOf[u]
		unitDens[u] = p[j] / float64(g.width[j])
	}
	for s, m := range g.shifts {
		if stop != nil && s%32 == 0 && stop() {
			return true
		}
		v := 0.0
		// u with u − m outside [lo, hi): only D_u counts.
		a, b := max(g.rlo, lo+m), min(g.rhi, hi+m)
		for u := g.rlo; u < min(a, g.rhi); u++ {
			v += unitDens[u-lo]
		}
		for u := max(b, g.rlo); u < g.rhi; u++ {
			v += unitDens[u-lo]
		}
		if a < b {
			x := unitDens[a-lo : b-lo]
			y := unitDens[a-m-lo : b-m-lo]
			e := g.e
			for i := range x {
				if t := x[i] - e*y[i]; t > 0 {
					v += t
				}
			}
		}
		out[s] = v
	}
	return false
}

// shortfallsPlain computes the same values as shortfalls by probing all cell
// pairs for every shift (Algorithm 2 as written, O(N²) per shift).
func (g *grid) shortfallsPlain(p []float64, out []float64) {
	n := len(g.width)
	view := &cellsView{edges: make([]float64, n+1), dens: make([]float64, n)}
	for j := range view.edges {
		view.edges[j] = float64(g.idx[j])
	}
	for j := range view.dens {
		view.dens[j] = p[j] / float64(g.width[j])
	}
	for s, m := range g.shifts {
		out[s] = view.shortfallPlain(float64(g.rlo), float64(g.rhi), float64(m), g.e)
	}
}

// cut returns the DP constraint (coefficients of p) of the worst event for
// shift m: +1/w_j for every unit cell of A* in cell j, −e/w_j' for its shift.
func (g *grid) cut(unitDens []float64, m int, acc []float64) (idx []int, val []float64) {
	lo, hi := g.idx[0], g.idx[len(g.idx)-1]
	for i := range acc {
		acc[i] = 0
	}
	for u := g.rlo; u < g.rhi; u++ {
		du := unitDens[u-lo]
		v := u - m
		inside := v >= lo && v < hi
		dv := 0.0
		if inside {
			dv = unitDens[v-lo]
		}
		if du-g.e*dv > 0 {
			j := g.cellOf[u-lo]
			acc[j] += 1 / float64(g.width[j])
			if inside {
				jj := g.cellOf[v-lo]
				acc[jj] -= g.e / float64(g.width[jj])
			}
		}
	}
	for j, a := range acc {
		if a != 0 {
			idx = append(idx, j)
			val = append(val, a)
		}
	}
	return idx, val
}

// cuttingPlane is one bounding LP solved by Algorithm 1.
type cuttingPlane struct {
	g       *grid
	lp      LP
	cuts    int
	deltaLP float64
	n       int
	ncols   int
	p       []float64
	blocks  map[int]*shiftBlock
	seed    []int // shifts (indices into g.shifts) whose blocks the first round adds
	// ref, if set, is a reference density per unit of each cell (a coarser
	// solution): a new block then takes only the pairs (j, j') with
	// ref_j > 0.9·e^ε·ref_j' or positive at the current point (see run).
	ref        []float64
	budgetRows []int
	obj        float64
	rounds     int
	lpTime     time.Duration
	srTime     time.Duration
}

func csrRows(n int, rows [][]int, vals [][]float64) *sparse.CSC {
	c := &sparse.CSC{Rows: n, Cols: len(rows), ColPtr: make([]int, len(rows)+1)}
	for r := range rows {
		c.RowIdx = append(c.RowIdx, rows[r]...)
		c.Val = append(c.Val, vals[r]...)
		c.ColPtr[r+1] = len(c.RowIdx)
	}
	return c
}

// newCuttingPlane sets up the LP over the cell probabilities p (columns 0..N−1)
// with Σp = 1 and the symmetry and monotonicity rows if asked.
func newCuttingPlane(g *grid, deltaLP float64, symmetric, monotone bool) (*cuttingPlane, error) {
	n := len(g.width)
	lp, err := newLP()
	if err != nil {
		return nil, err
	}
	lower := make([]float64, n)
	upper := make([]float64, n)
	for j := range upper {
		upper[j] = 1
	}
	if err := lp.AddColumns(g.cost, lower, upper); err != nil {
		return nil, err
	}
	var rows [][]int
	var vals [][]float64
	var lo, hi []float64
	all := make([]int, n)
	ones := make([]float64, n)
	for j := range all {
		all[j], ones[j] = j, 1
	}
	rows, vals, lo, hi = append(rows, all), append(vals, ones), append(lo, 1), append(hi, 1)
	if symmetric {
		for j := 0; j < n/2; j++ {
			m := n - 1 - j
			rows = append(rows, []int{j, m})
			vals = append(vals, []float64{1 / float64(g.width[j]), -1 / float64(g.width[m])})
			lo, hi = append(lo, 0), append(hi, 0)
		}
	}
	if monotone {
		for j := 0; j < n; j++ {
			var nb int
			switch {
			case g.idx[j] >= 0 && j+1 < n:
				nb = j + 1
			case g.idx[j+1] <= 0 && j > 0:
				nb = j - 1
			default:
				continue
			}
			a, b := min(j, nb), max(j, nb)
			va, vb := 1/float64(g.width[j]), -1/float64(g.width[nb])
			if a != j {
				va, vb = vb, va
			}
			rows = append(rows, []int{a, b})
			vals = append(vals, []float64{va, vb})
			lo, hi = append(lo, 0), append(hi, math.Inf(1))
		}
	}
	if err := lp.AddRows(lo, hi, csrRows(n, rows, vals)); err != nil {
		return nil, err
	}
	return &cuttingPlane{g: g, lp: lp, n: n, ncols: n, deltaLP: deltaLP, blocks: map[int]*shiftBlock{}}, nil
}

// shiftBlock is the exact form of all DP constraints of one shift m. For each
// pair of cells (j, j') that overlap after the shift (unit cells u ∈ Π_j with
// u − m ∈ Π_j', n_{jj'} of them), with D_j = p_j/w_j the probability per unit
// cell,
//
//	t_{jj'} ≥ D_j − e^ε·D_{j'},  t_{jj'} ≥ 0,
//	Σ_{jj'} n_{jj'}·t_{jj'} + Σ_{u: u−m ∉ grid} D_{j(u)} ≤ δ_LP,
//
// which is equivalent to max_A P[X∈A] − e^ε·P[X+mβ∈A] ≤ δ_LP (LP duality of
// the maximum over events). Only overlapping cell pairs get a variable (at most
// 2N per shift: the structure of Lemma C.17). Compared with one dense cut per
// worst event (Algorithm 1 as written) a block represents all events of the
// shift at once, so vertices with many ties D_j = e^ε·D_{j'} need no long
// sequence of cuts.
type shiftBlock struct {
	pairs map[int]int     // cell pair j·N + j' → column of its t
	count map[int]float64 // column → number of unit cells sharing it
}

// run grows the shift blocks until no shift is violated by more than the
// acceptance level (Algorithm 1 with the structured search).
func (cp *cuttingPlane) run(ctx context.Context, opt OptimalOptions, stage string, ref int, accept float64, stopAt func() float64) error {
	g := cp.g
	n := cp.n
	lo, hi := g.idx[0], g.idx[len(g.idx)-1]
	unitDens := make([]float64, len(g.cellOf))
	v := make([]float64, len(g.shifts))
	order := make([]int, len(g.shifts))
	acc := make([]float64, n)
	for round := 0; ; round++ {
		if round >= opt.MaxRounds {
			return fmt.Errorf("noise: %s bound: no convergence after %d cutting-plane rounds", stage, round)
		}
		r, err := cp.solve(ctx, stage, false)
		if err != nil {
			return err
		}
		cp.rounds++
		cp.obj = r.Objective
		if stopAt != nil && cp.obj*g.scale >= stopAt() {
			// A relaxation's optimal value is already a valid lower bound.
			return nil
		}
		cp.p = append(cp.p[:0], r.X[:n]...)
		t0 := time.Now()
		if opt.PlainSearch {
			for u := range unitDens {
				j := g.cellOf[u]
				unitDens[u] = cp.p[j] / float64(g.width[j])
			}
			g.shortfallsPlain(cp.p, v)
		} else if g.shortfalls(cp.p, v, unitDens, func() bool { return ctx.Err() != nil }) {
			return fmt.Errorf("noise: %s bound: most-violated-shift search: %w", stage, ctx.Err())
		}
		for i := range order {
			order[i] = i
		}
		// Most violated first; ties (e.g. the first LP's point mass violates
		// every shift equally) broken towards large |m|, the shifts that bind
		// at optimal densities.
		sort.Slice(order, func(a, b int) bool {
			va, vb := v[order[a]], v[order[b]]
			if va != vb {
				return va > vb
			}
			return abs(g.shifts[order[a]]) > abs(g.shifts[order[b]])
		})
		worst := v[order[0]]
		cp.srTime += time.Since(t0)
		if opt.Progress != nil {
			opt.Progress(OptimizeProgress{Stage: stage, Refinement: ref, Round: round, Intervals: n, Cuts: cp.ncols - n, Objective: r.Objective * g.scale, MaxViolation: worst - cp.deltaLP})
		}
		if worst <= accept {
			return nil
		}
		if opt.EventCuts {
			// Kelley cuts: the worst event of each of the most violated shifts.
			var rows [][]int
			var vals [][]float64
			var rlo, rhi []float64
			for _, s := range order[:min(opt.CutsPerRound, len(order))] {
				if v[s] <= accept {
					break
				}
				ri, rv := g.cut(unitDens, g.shifts[s], acc)
				rows, vals = append(rows, ri), append(vals, rv)
				rlo, rhi = append(rlo, math.Inf(-1)), append(rhi, cp.deltaLP)
			}
			if opt.CleanupEvery > 0 && round > 0 && round%opt.CleanupEvery == 0 {
				var del []int
				keep := cp.budgetRows[:0]
				shift := 0
				for _, i := range cp.budgetRows {
					if cp.deltaLP-r.RowValue[i] > opt.CleanupSlack {
						del = append(del, i)
						shift++
						continue
					}
					keep = append(keep, i-shift)
				}
				if len(del) > 0 {
					if err := cp.lp.DeleteRows(del); err != nil {
						return err
					}
					cp.budgetRows = keep
				}
			}
			base := cp.lp.NumRows()
			for i := range rows {
				cp.budgetRows = append(cp.budgetRows, base+i)
			}
			if err := cp.lp.AddRows(rlo, rhi, csrRows(cp.ncols, rows, vals)); err != nil {
				return err
			}
			continue
		}
		// Grow the blocks of the most violated shifts.
		var newCols int
		var prow [][]int
		var pval [][]float64
		var plo, phi []float64
		pick, seeded := order[:min(opt.CutsPerRound, len(order))], map[int]bool(nil)
		if len(cp.seed) > 0 {
			seeded = map[int]bool{}
			for _, s := range cp.seed {
				seeded[s] = true
			}
			pick = append(append([]int(nil), cp.seed...), pick...)
			cp.seed = nil
		}
		for i, s := range pick {
			if v[s] <= accept && !(seeded[s] && i < len(seeded)) {
				if seeded[s] {
					continue
				}
				break
			}
			if seeded[s] && i >= len(seeded) {
				continue // its block was added with the seeds
			}
			m := g.shifts[s]
			b := cp.blocks[m]
			creating := b == nil
			if creating {
				b = &shiftBlock{pairs: map[int]int{}, count: map[int]float64{}}
				cp.blocks[m] = b
			}
			// One auxiliary variable per overlapping cell pair (j, j'): all
			// unit cells u ∈ Π_j with u − m ∈ Π_j' share the integrand.
			a0, b0 := max(g.rlo, lo+m), min(g.rhi, hi+m)
			cnt := map[int]float64{}
			var keys []int
			for u := a0; u < b0; u++ {
				key := int(g.cellOf[u-lo])*n + int(g.cellOf[u-m-lo])
				if cnt[key] == 0 {
					keys = append(keys, key)
				}
				cnt[key]++
			}
			grown := 0
			for _, key := range keys {
				if _, ok := b.pairs[key]; ok {
					continue
				}
				j, jj := key/n, key%n
				dj, djj := cp.p[j]/float64(g.width[j]), cp.p[jj]/float64(g.width[jj])
				// A new block takes every pair (an exact block); a block that
				// is violated again (solver tolerance) grows by the pairs
				// positive at the current point, if any.
				if !creating && !(dj-g.e*djj > 0) {
					continue
				}
				// A pair within one cell is never positive (D − e^ε·D ≤ 0);
				// with a reference density a new block leaves out the pairs
				// far from positive there and not positive now (a relaxation:
				// if they turn positive the shift is violated again and its
				// block grows by them).
				if creating && (j == jj || cp.ref != nil && !(cp.ref[j] > 0.9*g.e*cp.ref[jj]) && !(dj-g.e*djj > 0)) {
					continue
				}
				grown++
				col := cp.ncols + newCols
				newCols++
				b.pairs[key] = col
				b.count[col] = cnt[key]
				cj, cjj := -1/float64(g.width[j]), g.e/float64(g.width[jj])
				var ri []int
				var rv []float64
				switch {
				case j == jj:
					ri, rv = []int{j, col}, []float64{cj + cjj, 1}
				case j < jj:
					ri, rv = []int{j, jj, col}, []float64{cj, cjj, 1}
				default:
					ri, rv = []int{jj, j, col}, []float64{cjj, cj, 1}
				}
				prow, pval = append(prow, ri), append(pval, rv)
				plo, phi = append(plo, 0), append(phi, math.Inf(1))
			}
			if grown == 0 && !creating {
				continue // complete for this point: the violation is solver tolerance
			}
			// Budget row over all pairs of the block plus the uncovered cells.
			acc := map[int]float64{}
			for u := g.rlo; u < g.rhi; u++ {
				if u-m < lo || u-m >= hi {
					j := int(g.cellOf[u-lo])
					acc[j] += 1 / float64(g.width[j])
				}
			}
			for col, c := range b.count {
				acc[col] = c
			}
			keys = make([]int, 0, len(acc))
			for k := range acc {
				keys = append(keys, k)
			}
			sort.Ints(keys)
			vals := make([]float64, len(keys))
			for i, k := range keys {
				vals[i] = acc[k]
			}
			prow, pval = append(prow, keys), append(pval, vals)
			plo, phi = append(plo, math.Inf(-1)), append(phi, cp.deltaLP)
		}
		if len(prow) == 0 {
			return nil // every violated shift is complete: violation is solver tolerance
		}
		if newCols > 0 {
			z := make([]float64, newCols)
			inf := make([]float64, newCols)
			for i := range inf {
				inf[i] = math.Inf(1)
			}
			if err := cp.lp.AddColumns(z, make([]float64, newCols), inf); err != nil {
				return err
			}
			cp.ncols += newCols
		}
		base := cp.lp.NumRows()
		for i := range prow {
			if math.IsInf(plo[i], -1) { // budget row
				cp.budgetRows = append(cp.budgetRows, base+i)
			}
		}
		if err := cp.lp.AddRows(plo, phi, csrRows(cp.ncols, prow, pval)); err != nil {
			return err
		}
	}
}

// solve re-solves the LP (adding to lpTime) and maps a non-optimal status
// to an error. coldRetry re-solves once from scratch after a numerical error.
func (cp *cuttingPlane) solve(ctx context.Context, stage string, coldRetry bool) (*LPSolution, error) {
	g := cp.g
	r, err := cp.lp.Solve(ctx)
	if err != nil {
		return nil, err
	}
	cp.lpTime += r.Time
	if coldRetry && r.Status == solver.NumericalError {
		if err := cp.lp.ResetBasis(); err != nil {
			return nil, err
		}
		if r, err = cp.lp.Solve(ctx); err != nil {
			return nil, err
		}
		cp.lpTime += r.Time
	}
	switch r.Status {
	case solver.Optimal:
		return r, nil
	case solver.Cancelled:
		return nil, ctx.Err()
	case solver.PrimalInfeasible:
		return nil, paramErr("SupportMultiple", g.rhi/g.k, fmt.Sprintf("gives an infeasible %s-bound LP (granularity k = %d): the support [−ΛΔ, ΛΔ] is too small or the grid too coarse", stage, g.k))
	}
	return nil, fmt.Errorf("noise: %s-bound LP: %v", stage, r.Status)
}

// tighten lowers the right-hand side of every cut (and of future cuts).
func (cp *cuttingPlane) tighten(deltaLP float64) error {
	cp.deltaLP = deltaLP
	for _, i := range cp.budgetRows {
		if err := cp.lp.SetRowBounds(i, math.Inf(-1), deltaLP); err != nil {
			return err
		}
	}
	return nil
}

type upperResult struct {
	Dist        *PiecewiseConstant
	Certificate *Certificate
	UpperBound  float64
	Intervals   int
	Cuts        int
	Shifts      []int // indices (into grid.shifts) of the shifts whose blocks bind
}

func (g *grid) solveUpper(ctx context.Context, p Params, opt OptimalOptions, ref int, res *OptimalResult) (*upperResult, error) {
	return g.solveUpperSeeded(ctx, p, opt, ref, res, nil, nil, nil)
}

// solveUpperSeeded is solveUpper with the blocks of the shifts seed (indices
// into g.shifts) added in the first round and the reference density refDens
// (see cuttingPlane.ref; nil: none). A non-nil final is called with the LP's
// density before certification: if it returns false, the density is returned
// uncertified (Certificate nil, no repairs).
func (g *grid) solveUpperSeeded(ctx context.Context, p Params, opt OptimalOptions, ref int, res *OptimalResult, seed []int, refDens []float64, final func(*PiecewiseConstant) bool) (*upperResult, error) {
	margin := ubMargin(p.Delta)
	cp, err := newCuttingPlane(g, p.Delta-margin, opt.Symmetric, opt.Monotone)
	if err != nil {
		return nil, err
	}
	cp.seed, cp.ref = seed, refDens
	defer cp.lp.Close()
	for attempt := 0; ; attempt++ {
		if err := cp.run(ctx, opt, "upper", ref, p.Delta-margin/2, nil); err != nil {
			return nil, err
		}
		probs := make([]float64, len(cp.p))
		for j, x := range cp.p {
			probs[j] = math.Max(0, x)
		}
		if perturbHook != nil {
			perturbHook(probs)
		}
		d, err := newGridPiecewise(g.unitReal, g.idx, probs)
		if err != nil {
			return nil, fmt.Errorf("noise: upper-bound LP returned an unusable distribution: %w", err)
		}
		if final != nil && attempt == 0 && !final(d) {
			res.Rounds += cp.rounds
			res.LPTime += cp.lpTime
			res.SearchTime += cp.srTime
			return &upperResult{Dist: d, UpperBound: d.ExpectedLoss(opt.Loss), Intervals: d.Len(), Cuts: cp.ncols - cp.n, Shifts: cp.bindingShifts(p.Delta)}, nil
		}
		t0 := time.Now()
		cert, err := Certify(d, p)
		res.CertifyTime += time.Since(t0)
		if err != nil {
			return nil, err
		}
		res.Rounds += cp.rounds
		cp.rounds = 0
		res.LPTime += cp.lpTime
		res.SearchTime += cp.srTime
		cp.lpTime, cp.srTime = 0, 0
		if cert.Certified {
			return &upperResult{Dist: d, Certificate: cert, UpperBound: d.ExpectedLoss(opt.Loss), Intervals: d.Len(), Cuts: cp.ncols - cp.n, Shifts: cp.bindingShifts(p.Delta)}, nil
		}
		if attempt >= 5 {
			return nil, fmt.Errorf("%w: max shortfall %g after %d repairs", ErrNotCertified, cert.MaxShortfall, attempt)
		}
		res.Repairs++
		margin = math.Min(2*margin+2*cert.MaxShortfall, p.Delta/2)
		if err := cp.tighten(p.Delta - margin); err != nil {
			return nil, err
		}
	}
}

// bindingShifts returns the shifts (indices into g.shifts) with a block
// whose shortfall at the current point is within 10⁻⁶δ of δ_LP.
func (cp *cuttingPlane) bindingShifts(delta float64) []int {
	g := cp.g
	v := make([]float64, len(g.shifts))
	g.shortfalls(cp.p, v, make([]float64, len(g.cellOf)), nil)
	var shifts []int
	for s, m := range g.shifts {
		if cp.blocks[m] != nil && v[s] >= cp.deltaLP-1e-6*delta {
			shifts = append(shifts, s)
		}
	}
	return shifts
}

func (g *grid) solveLower(ctx context.Context, p Params, opt OptimalOptions, ref int, res *OptimalResult, symmetric bool, stopAt func() float64) (float64, error) {
	cp, err := newCuttingPlane(g, p.Delta, symmetric, false)
	if err != nil {
		return 0, err
	}
	defer cp.lp.Close()
	if err := cp.run(ctx, opt, "lower", ref, p.Delta+1e-9, stopAt); err != nil {
		return 0, err
	}
	res.Rounds += cp.rounds
	res.LPTime += cp.lpTime
	res.SearchTime += cp.srTime
	return cp.obj * g.scale, nil
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// ubMargin is δ − δ_LP for the upper-bound LPs: 10⁻⁶δ, at least 10⁻⁹ but at
// most 1% of δ.
func ubMargin(delta float64) float64 { return math.Max(1e-6*delta, math.Min(1e-9, 0.01*delta)) }

// perturbHook, if set (tests only), alters the upper-bound solution before
// certification, to exercise the repair path.
var perturbHook func(probs []float64)

// autoGrid is the graded upper-bound grid chosen for large ε.
type autoGrid struct {
	k          int
	fineRadius float64
	coarse     int
}

// autoGraded returns the graded upper-bound grid for large ε, or nil: only
// when the grid is automatic (Granularity, UpperGranularity and Graded unset),
// ε ≥ 5 and the uniform cells β = Δ/k are wider than γΔ with γ = 1/(1 + e^{ε/2})
// (at Intervals = 200 and Λ = 2: ε > 7.8; at ε = 5 the uniform grid is still
// slightly better).
// The graded grid has unit β' = Δ/k' with k' = ⌈8/γ⌉ (at most 4,000), unit
// cells within 2γΔ of 0 and cells of CoarseFactor units beyond, the factor
// chosen for about Intervals cells in all.
func autoGraded(p Params, opt OptimalOptions, lam, k int) *autoGrid {
	if opt.Granularity != 0 || opt.UpperGranularity != 0 || opt.Graded {
		return nil
	}
	gamma := 1 / (1 + math.Exp(p.Epsilon/2))
	if p.Epsilon < 5 || 1/float64(k) <= gamma {
		return nil
	}
	kg := min(4000, int(math.Ceil(8/gamma)))
	fr := 2 * gamma
	fine := 2 * fr * float64(kg)
	coarseCells := math.Max(float64(opt.Intervals)-fine, 20)
	cf := max(2, int(math.Ceil(2*(float64(lam)-fr)*float64(kg)/coarseCells)))
	return &autoGrid{k: kg, fineRadius: fr, coarse: cf}
}
