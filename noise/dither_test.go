package noise

import (
	"context"
	"errors"
	"math"
	"testing"
)

// For δ → 0 the optimal noise is the staircase (Geng & Viswanath), and the
// optimal loss at δ > 0 is at most the staircase's. A valid lower bound must
// therefore stay below the staircase's closed-form loss; the dithered bound
// does, within 0.3% at k = 32. Declaring a wrong curvature for ℓ₂ (dropping
// the Kβ²/8 correction) makes the bound exceed the staircase's loss: the
// correction is needed and this check can fail.
func TestDitheredLowerBoundBelowStaircase(t *testing.T) {
	naiveL2, err := L2().WithSmoothness(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		eps     float64
		loss    Loss
		k       int
		minFrac float64 // LB ≥ minFrac·staircase
		invalid bool    // the loss declaration is wrong: LB must exceed the staircase
	}{
		{2, L1(), 32, 0.997, false},
		{4, L1(), 32, 0.98, false},
		{4, L2(), 16, 0.97, false},
		{4, naiveL2, 16, 0, true},
	}
	for _, c := range cases {
		p := Params{Epsilon: c.eps, Delta: 1e-6, Sensitivity: 1}
		m, err := StaircaseMechanism(p, c.loss)
		if err != nil {
			t.Fatal(err)
		}
		sc := m.Dist.MeanAbs()
		if c.loss.Name == "l2" {
			sc = m.Dist.Variance()
		}
		var r *OptimalResult
		if c.invalid { // optimizeT would reject LB > UB
			if r, err = Optimize(context.Background(), p, OptimalOptions{Loss: c.loss, Granularity: c.k, Symmetric: true}); err != nil {
				t.Fatal(err)
			}
		} else {
			r = optimizeT(t, p, OptimalOptions{Loss: c.loss, Granularity: c.k, Symmetric: true})
		}
		t.Logf("ε = %g %s k = %d: dithered LB %.6f (%s), UB %.6f, staircase %.6f", c.eps, c.loss.Name, c.k, r.LowerBound, r.LowerMethod, r.UpperBound, sc)
		if r.LowerMethod != "dithered" {
			t.Errorf("ε = %g %s: lower method %q, want dithered", c.eps, c.loss.Name, r.LowerMethod)
		}
		if c.invalid {
			if !(r.LowerBound > sc) {
				t.Errorf("ε = %g: the mis-declared ℓ₂ bound %.6f no longer exceeds the staircase %.6f (the check lost its power)", c.eps, r.LowerBound, sc)
			}
			continue
		}
		if !(r.LowerBound <= sc) {
			t.Errorf("ε = %g %s: lower bound %.6f above the staircase loss %.6f", c.eps, c.loss.Name, r.LowerBound, sc)
		}
		if !(r.LowerBound >= c.minFrac*sc) {
			t.Errorf("ε = %g %s: lower bound %.6f below %.3f × staircase %.6f", c.eps, c.loss.Name, r.LowerBound, c.minFrac, sc)
		}
	}
}

// At (ε, δ) = (1, 0.2), ℓ₁, k = 25 (100 cells) the dithered bound certifies a
// gap below 0.3%, stays below a certified density on a 2.5× finer grid, and
// beats the paper's D(π, β) on the same grid by about 0.02 (3.5%).
func TestDitheredLowerBoundExample1(t *testing.T) {
	p := Params{Epsilon: 1, Delta: 0.2, Sensitivity: 1}
	r := optimizeT(t, p, OptimalOptions{Granularity: 25, Symmetric: true})
	paper := optimizeT(t, p, OptimalOptions{Granularity: 25, Symmetric: true, PaperLowerBound: true})
	fine := optimizeT(t, p, OptimalOptions{Granularity: 64, Symmetric: true, SkipLowerBound: true})
	t.Logf("k = 25: UB %.6f, dithered LB %.6f (gap %.3f%%), paper LB %.6f (gap %.3f%%); k = 64 UB %.6f",
		r.UpperBound, r.LowerBound, 100*r.Gap, paper.LowerBound, 100*paper.Gap, fine.UpperBound)
	if r.LowerMethod != "dithered" || paper.LowerMethod != "cell-infimum" {
		t.Errorf("methods %q and %q", r.LowerMethod, paper.LowerMethod)
	}
	if !(r.Gap < 0.003) {
		t.Errorf("gap %.4f%%, want < 0.3%%", 100*r.Gap)
	}
	if !(r.LowerBound <= fine.UpperBound) {
		t.Errorf("LB %.6f above the certified k = 64 UB %.6f", r.LowerBound, fine.UpperBound)
	}
	if !(r.LowerBound > paper.LowerBound+0.015) {
		t.Errorf("dithered LB %.6f not clearly above the paper's %.6f", r.LowerBound, paper.LowerBound)
	}
}

// The pinball loss is not symmetric: the bound averages the LPs of the two
// dither offsets. It must stay below a certified finer density and beat the
// paper's bound.
func TestDitheredLowerBoundPinball(t *testing.T) {
	p := Params{Epsilon: 1, Delta: 0.1, Sensitivity: 1}
	l, err := Pinball(0.3)
	if err != nil {
		t.Fatal(err)
	}
	r := optimizeT(t, p, OptimalOptions{Loss: l, Granularity: 8})
	paper := optimizeT(t, p, OptimalOptions{Loss: l, Granularity: 8, PaperLowerBound: true})
	fine := optimizeT(t, p, OptimalOptions{Loss: l, Granularity: 48, SkipLowerBound: true})
	t.Logf("pinball(0.3) k = 8: dithered LB %.6f, paper LB %.6f, UB %.6f; k = 48 UB %.6f", r.LowerBound, paper.LowerBound, r.UpperBound, fine.UpperBound)
	if !(r.LowerBound <= fine.UpperBound && r.LowerBound > paper.LowerBound+0.01) {
		t.Errorf("dithered LB %.6f not in (%.6f, %.6f]", r.LowerBound, paper.LowerBound+0.01, fine.UpperBound)
	}
}

// The automatic choice: the dithered bound needs a declared smoothness,
// δ ≤ 1/2 and cells at most 2γΔ wide.
func TestLowerMethodChoice(t *testing.T) {
	custom, err := CustomLoss("abs", math.Abs, 1)
	if err != nil {
		t.Fatal(err)
	}
	declared, err := custom.WithSmoothness(0, 2)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		p    Params
		opt  OptimalOptions
		want string
	}{
		{Params{1, 0.2, 1}, OptimalOptions{Granularity: 8}, "dithered"},
		{Params{1, 0.2, 1}, OptimalOptions{Granularity: 8, Loss: custom}, "cell-infimum"},
		{Params{1, 0.2, 1}, OptimalOptions{Granularity: 8, Loss: declared}, "dithered"},
		{Params{1, 0.6, 1}, OptimalOptions{Granularity: 8}, "cell-infimum"},
		{Params{4, 0.01, 1}, OptimalOptions{Granularity: 6}, "cell-infimum"}, // β = 0.167 > 1.2γ = 0.143
		{Params{4, 0.01, 1}, OptimalOptions{Granularity: 8}, "dithered"},
		{Params{1, 0.2, 1}, OptimalOptions{Granularity: 100}, "dithered"}, // lower grid capped at k = 48
		{Params{1, 0.2, 1}, OptimalOptions{Granularity: 8, PaperLowerBound: true}, "cell-infimum"},
		{Params{1, 0.2, 1}, OptimalOptions{Granularity: 8, Graded: true, PaperLowerBound: true}, "coverage"},
		{Params{1, 0.2, 1}, OptimalOptions{Granularity: 8, Graded: true}, "dithered"},
	}
	for i, c := range cases {
		c.opt.Symmetric = true
		r := optimizeT(t, c.p, c.opt)
		if r.LowerMethod != c.want {
			t.Errorf("case %d: lower method %q, want %q", i, r.LowerMethod, c.want)
		}
		if !(r.LowerBound <= r.UpperBound) {
			t.Errorf("case %d: LB %v > UB %v", i, r.LowerBound, r.UpperBound)
		}
	}
	if r := optimizeT(t, Params{1, 0.2, 1}, OptimalOptions{Granularity: 100, Symmetric: true, SkipLowerBound: false}); r.LowerGranularity != ditherCap || r.Granularity != 100 {
		t.Errorf("automatic lower grid k = %d (upper %d), want %d", r.LowerGranularity, r.Granularity, ditherCap)
	}
	// The same loss declared or not: the declared one bounds tighter.
	a := optimizeT(t, Params{1, 0.2, 1}, OptimalOptions{Granularity: 8, Loss: custom})
	b := optimizeT(t, Params{1, 0.2, 1}, OptimalOptions{Granularity: 8, Loss: declared})
	if !(b.LowerBound > a.LowerBound) {
		t.Errorf("declared smoothness LB %v not above %v", b.LowerBound, a.LowerBound)
	}
}

func TestWithSmoothnessBadInput(t *testing.T) {
	for _, c := range [][2]float64{{-1, 0}, {0, -1}, {math.NaN(), 0}, {0, math.Inf(1)}} {
		_, err := L1().WithSmoothness(c[0], c[1])
		var pe *ParamError
		if !errors.As(err, &pe) {
			t.Errorf("WithSmoothness(%v, %v): error %v, want *ParamError", c[0], c[1], err)
		}
	}
}

// More dither offsets (DitherIntervals): the bound stays below the certified
// upper bound and rises where the optimal noise has mass at 0 — at (5, 0.3),
// k_l = 80 (central event window), from 0.055945 (m = 1) to 0.056884 (m = 4)
// — and stays at least the m = 1 bound at (1, 0.2).
func TestDitherIntervals(t *testing.T) {
	for _, c := range []struct {
		p    Params
		k, l int
		rise float64
	}{{Params{5, 0.3, 1}, 25, 80, 0.01}, {Params{1, 0.2, 1}, 50, 0, 0}} {
		one := optimizeT(t, c.p, OptimalOptions{Symmetric: true, Granularity: c.k, LowerGranularity: c.l})
		four := optimizeT(t, c.p, OptimalOptions{Symmetric: true, Granularity: c.k, LowerGranularity: c.l, DitherIntervals: 4})
		t.Logf("%+v: LB %.6f (m = 1), %.6f (m = 4), UB %.6f", c.p, one.LowerBound, four.LowerBound, four.UpperBound)
		if !(four.LowerBound >= one.LowerBound*(1+c.rise)) || four.LowerBound > four.UpperBound {
			t.Errorf("%+v: LB %v (m = 4) vs %v (m = 1), want ≥ %.0f%% higher and ≤ UB %v", c.p, four.LowerBound, one.LowerBound, 100*c.rise, four.UpperBound)
		}
	}
	s, w, corr := ditherNodes(L2(), 4, 0.5)
	if len(s) != 3 || w[0] != 0.25 || w[1] != 0.5 || w[2] != 0.25 {
		t.Errorf("symmetric nodes %v weights %v, want 0, ¼, ½ with ¼, ½, ¼", s, w)
	}
	if want := L2().curvature * (0.25/24 + 0.125*0.125/12); math.Abs(corr-want) > 1e-15 {
		t.Errorf("correction %v, want %v", corr, want)
	}
}
