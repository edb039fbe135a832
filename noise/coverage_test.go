package noise

import (
	"testing"
)

// On a uniform grid the coverage relaxation is the exact constraint set, so
// its lower bound (Kelley cuts found by dynamic programming) must equal the
// one of the exact per-shift blocks.
func TestCoverageLowerBoundEqualsExactOnUniformGrid(t *testing.T) {
	for _, pr := range [][2]float64{{1, 0.2}, {2, 0.05}} {
		p := Params{Epsilon: pr[0], Delta: pr[1], Sensitivity: 1}
		exact := optimizeT(t, p, OptimalOptions{Granularity: 16, Symmetric: true, PaperLowerBound: true})
		cov := optimizeT(t, p, OptimalOptions{Granularity: 16, Symmetric: true, coverageLB: true})
		t.Logf("(ε,δ) = %v: exact LB %.9f, coverage LB %.9f", pr, exact.LowerBound, cov.LowerBound)
		if d := cov.LowerBound - exact.LowerBound; d > 1e-7 || d < -1e-7 {
			t.Errorf("(ε,δ) = %v: coverage LB %.9f ≠ exact LB %.9f", pr, cov.LowerBound, exact.LowerBound)
		}
	}
}

// The paper's D(π,β) on a non-uniform partition spreads each cell's mass
// uniformly over the cell. The cell masses of a certified (ε,δ)-DP density,
// spread that way over a graded partition, violate its constraints, so
// D(π,β) is not a relaxation; the coverage lower bound used for graded grids
// stays below a certified upper bound.
func TestGradedLowerBoundIsValid(t *testing.T) {
	p := Params{Epsilon: 1, Delta: 0.2, Sensitivity: 1}
	k := 64
	fine := optimizeT(t, p, OptimalOptions{Granularity: k, Symmetric: true, SkipLowerBound: true})
	g := newGrid(p, fine.Support, k, OptimalOptions{Graded: true, FineRadius: 0.5, CoarseFactor: 4, Loss: L1()}, false, 1)
	probs := make([]float64, len(g.width))
	for u, q := range fine.Dist.Probs() { // the fine cells are the unit cells of g
		probs[g.cellOf[u]] += q
	}
	smoothed, err := newGridPiecewise(g.unitReal, g.idx, probs)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Certify(smoothed, p)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("smoothed certified density: max shortfall %.6f (δ = %g)", c.MaxShortfall, p.Delta)
	if c.Certified || c.MaxShortfall < 1e-3 {
		t.Errorf("smoothing within graded cells kept DP (shortfall %g); the counterexample is gone", c.MaxShortfall)
	}
	gr := optimizeT(t, p, OptimalOptions{Granularity: 32, Graded: true, FineRadius: 0.5, CoarseFactor: 4, Symmetric: true})
	t.Logf("graded: LB %.6f, UB %.6f; certified uniform k = %d: UB %.6f", gr.LowerBound, gr.UpperBound, k, fine.UpperBound)
	if !(gr.LowerBound > 0.45 && gr.LowerBound <= fine.UpperBound && gr.LowerBound <= gr.UpperBound) {
		t.Errorf("graded coverage LB %.6f not in (0.45, %.6f]", gr.LowerBound, fine.UpperBound)
	}
}

// Large ε: the automatic grid switches the upper bound to a graded grid that
// resolves the central plateau, which gives much less noise than the uniform
// automatic grid; the lower bound (uniform grid, central event window, see
// lowerGrid) certifies a gap below 5% (measured 1.7%; 258% before the window).
func TestLargeEpsilonAutomaticGrid(t *testing.T) {
	p := Params{Epsilon: 9, Delta: 0.01, Sensitivity: 1}
	auto := optimizeT(t, p, OptimalOptions{Symmetric: true})
	// The uniform grid the automatic choice would use without grading
	// (200 cells over Λ = 2: k = 50).
	uni := optimizeT(t, p, OptimalOptions{Granularity: 50, Symmetric: true, SkipLowerBound: true})
	tl, err := TruncatedLaplaceMechanism(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("auto: graded %v, k = %d, %d cells, UB %.6f, LB %.6f (k = %d), gap %.1f%%; uniform k = %d: UB %.6f; truncated Laplace %.6f",
		auto.GradedUpper, auto.Granularity, auto.Intervals, auto.UpperBound, auto.LowerBound, auto.LowerGranularity, 100*auto.Gap, uni.Granularity, uni.UpperBound, tl.Dist.MeanAbs())
	if !auto.GradedUpper || !auto.Certificate.Certified {
		t.Fatalf("expected a certified graded upper bound, got graded=%v", auto.GradedUpper)
	}
	if auto.UpperBound > 0.9*uni.UpperBound {
		t.Errorf("graded UB %.6f not 10%% below the uniform UB %.6f", auto.UpperBound, uni.UpperBound)
	}
	if auto.LowerMethod != "dithered-window" || !(auto.Gap < 0.05) {
		t.Errorf("lower bound %s, certified gap %.2f%%, want dithered-window below 5%%", auto.LowerMethod, 100*auto.Gap)
	}
	if !(auto.LowerBound <= auto.UpperBound && auto.UpperBound < tl.Dist.MeanAbs()) {
		t.Errorf("bounds out of order: LB %.6f UB %.6f truncated Laplace %.6f", auto.LowerBound, auto.UpperBound, tl.Dist.MeanAbs())
	}
}
