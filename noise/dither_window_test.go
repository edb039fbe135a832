package noise

import (
	"context"
	"testing"
)

// windowLB computes the automatic large-ε lower bound (the dithered bound on
// the central event window) without the upper-bound LP.
func windowLB(t *testing.T, p Params, opt OptimalOptions) (lb float64, kl, win int) {
	t.Helper()
	opt = opt.withDefaults()
	kl, dither, win := lowerGrid(p, opt, 0, 0)
	if !dither {
		t.Fatalf("%+v: the dithered bound is not used at k_l = %d", p, kl)
	}
	ev := SupportRule(p) * kl
	if win > 0 {
		ev = win
	}
	lb, err := solveLowerDither(context.Background(), p, opt, ev, kl, 0, &OptimalResult{}, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	return lb, kl, win
}

// Item 7 of the large-ε acceptance: at (9, 0.01) and (9, 10⁻⁴) the
// staircase (pure ε-DP, so (ε,δ)-DP; its loss is a closed-form upper bound on
// the optimum) and the automatic lower bound are within 5% (measured 1.8% and
// 547); the lower bound must also stay below the staircase (it is a valid
// bound), which it would not if the window dropped the padding that holds the
// shifted images. Before the window the automatic bound was 0.0031 (258%).
func TestWindowLowerBoundLargeEpsilon(t *testing.T) {
	for _, delta := range []float64{0.01, 1e-4} {
		p := Params{Epsilon: 9, Delta: delta, Sensitivity: 1}
		lb, kl, win := windowLB(t, p, OptimalOptions{})
		sc, err := StaircaseMechanism(p, L1())
		if err != nil {
			t.Fatal(err)
		}
		ub := sc.Dist.MeanAbs()
		gap := (ub - lb) / lb
		t.Logf("(9, %g): k_l = %d, window ±%d units: LB %.6f, staircase %.6f, gap %.2f%%", delta, kl, win, lb, ub, 100*gap)
		if kl != 547 || win != 10 {
			t.Errorf("(9, %g): lower grid k_l = %d, window %d, want 547 and 10", delta, kl, win)
		}
		if !(lb <= ub) {
			t.Errorf("(9, %g): lower bound %.6f above the staircase's loss %.6f", delta, lb, ub)
		}
		if !(gap < 0.05) {
			t.Errorf("(9, %g): certified gap %.2f%%, want < 5%%", delta, 100*gap)
		}
	}
}

// At (5, 0.01) the whole solver (certified upper density and the window
// lower bound) closes the gap below 5% (measured 1.9%).
func TestWindowOptimizeEpsilon5(t *testing.T) {
	r := optimizeT(t, Params{Epsilon: 5, Delta: 0.01, Sensitivity: 1}, OptimalOptions{Symmetric: true})
	t.Logf("(5, 0.01): UB %.6f, LB %.6f (%s, k_l = %d), gap %.2f%%", r.UpperBound, r.LowerBound, r.LowerMethod, r.LowerGranularity, 100*r.Gap)
	if r.LowerMethod != "dithered-window" {
		t.Errorf("lower method %q, want dithered-window", r.LowerMethod)
	}
	if !(r.Gap < 0.05) {
		t.Errorf("certified gap %.2f%%, want < 5%%", 100*r.Gap)
	}
}

// The window drops constraints, so its bound is at most the whole region's
// on the same grid; it must also stay close to it (the window is where the
// binding constraints are). Independent of the automatic choice: both use
// LowerGranularity.
func TestWindowIsRelaxation(t *testing.T) {
	p := Params{Epsilon: 6, Delta: 0.01, Sensitivity: 1}
	win, kl, w := windowLB(t, p, OptimalOptions{LowerGranularity: 32})
	full, _, fw := windowLB(t, p, OptimalOptions{LowerGranularity: 32, FullEventRegion: true})
	t.Logf("(6, 0.01) k_l = %d: window ±%d units LB %.6f, whole region LB %.6f", kl, w, win, full)
	if w == 0 || fw != 0 {
		t.Fatalf("windows %d and %d, want > 0 and 0", w, fw)
	}
	if !(win <= full+1e-9) {
		t.Errorf("window LB %.9f above the whole region's %.9f: not a relaxation", win, full)
	}
	if !(win >= 0.99*full) {
		t.Errorf("window LB %.6f more than 1%% below the whole region's %.6f", win, full)
	}
}
