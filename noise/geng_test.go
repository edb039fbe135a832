package noise

import (
	"context"
	"errors"
	"math"
	"testing"
)

// Closed-form limits of GengLowerBoundL1, derived independently of the code:
//   - δ → 0: n → ∞, 2a' → 1 − b and 2a'Δ·Σ k·b^k → Δ·b/(1 − b) = Δ/(e^ε − 1)
//     (Geng et al. 2020, Thm 6: ratio ε/(e^ε − 1) to Δ/ε), below the
//     staircase ℓ₁ optimum Δe^{ε/2}/(e^ε − 1) by the factor e^{−ε/2}.
//   - ε → 0: n* → 1/(2δ), n = ⌊1/(2δ)⌋, a' → 1/(2n), and the bound tends to
//     2Δ·Σ_{k<n} k/(2n) = Δ(n − 1)/2.
//   - n* an integer (δ solved from n): the theorem's closed form, eq. (11).
func TestGengLowerBoundL1Limits(t *testing.T) {
	for _, eps := range []float64{0.1, 0.5, 1, 2, 5} {
		p := Params{Epsilon: eps, Delta: 1e-12, Sensitivity: 1}
		got, err := GengLowerBoundL1(p)
		if err != nil {
			t.Fatal(err)
		}
		want := 1 / math.Expm1(eps)
		near(t, "δ→0 limit", got, want, 1e-9*want+1e-12)
		st, _ := StaircaseMechanism(p, L1())
		if r := got / st.Dist.MeanAbs(); math.Abs(r-math.Exp(-eps/2)) > 1e-9 {
			t.Errorf("ε=%g: ratio to the staircase optimum %v, want e^{−ε/2} = %v", eps, r, math.Exp(-eps/2))
		}
	}
	// The closed-form moment (more than 10⁷ terms) against the same limit.
	p := Params{Epsilon: 1e-5, Delta: 1e-300, Sensitivity: 1}
	if n := gengTermsReal(p); n <= gengDirectTerms {
		t.Fatalf("n* = %v does not exercise the closed form", n)
	}
	got, _ := GengLowerBoundL1(p)
	near(t, "closed-form branch", got, 1/math.Expm1(1e-5), 0.1)

	for _, c := range []struct{ delta, want float64 }{
		{0.2, 0.5}, {0.15, 1}, {0.07, 3}, {0.3, 0},
	} {
		got, _ := GengLowerBoundL1(Params{Epsilon: 1e-7, Delta: c.delta, Sensitivity: 1})
		near(t, "ε→0 limit", got, c.want, 1e-5)
	}
	// δ chosen so that Σ_{k<n} a·b^k = ½ with n = 6, lowered by 10⁻¹⁰ relative
	// so that floating-point n* is not just below 6: the theorem's eq. (11).
	for _, eps := range []float64{0.3, 1, 2} {
		const n = 6.0
		b := math.Exp(-eps)
		a := (1 - b) / (2 * (1 - math.Pow(b, n)))
		delta := (a/b - math.Expm1(eps)/2) * (1 - 1e-10)
		want := 2 * a * ((b-math.Pow(b, n))/((1-b)*(1-b)) - (n-1)*math.Pow(b, n)/(1-b))
		got, _ := GengLowerBoundL1(Params{Epsilon: eps, Delta: delta, Sensitivity: 1})
		near(t, "eq. (11)", got, want, 1e-8*want)
	}
	// Homogeneous of degree one in Δ; nonincreasing in δ.
	l1, _ := GengLowerBoundL1(Params{Epsilon: 0.7, Delta: 0.03, Sensitivity: 1})
	l3, _ := GengLowerBoundL1(Params{Epsilon: 0.7, Delta: 0.03, Sensitivity: 3})
	near(t, "Δ scaling", l3, 3*l1, 1e-12)
	prev := math.Inf(1)
	for d := 0.001; d < 0.6; d += 0.001 {
		v, _ := GengLowerBoundL1(Params{Epsilon: 0.4, Delta: d, Sensitivity: 1})
		if v > prev {
			t.Fatalf("δ=%g: bound %v increased from %v", d, v, prev)
		}
		prev = v
	}
}

func TestGengLowerBoundL1BadInput(t *testing.T) {
	for _, c := range []struct {
		p     Params
		param string
	}{
		{Params{-1, 0.1, 1}, "Epsilon"},
		{Params{1, 0, 1}, "Delta"},
		{Params{1, 1, 1}, "Delta"},
		{Params{1, 0.1, math.NaN()}, "Sensitivity"},
	} {
		_, err := GengLowerBoundL1(c.p)
		var pe *ParamError
		if !errors.As(err, &pe) || pe.Param != c.param || !errors.Is(err, ErrInvalidParam) {
			t.Errorf("%+v: err %v, want ParamError on %s", c.p, err, c.param)
		}
	}
}

// The literature bound may not exceed our certified lower bound D(π, β) (a
// valid bound on every (ε,δ)-DP noise) by more than rounding.
func TestGengBelowCertifiedLowerBound(t *testing.T) {
	for _, p := range []Params{
		{1, 0.2, 1}, {1, 0.05, 1}, {2, 0.1, 1}, {0.5, 0.1, 1}, {5, 0.02, 1}, {1, 0.01, 1},
		{0.5, 0.005, 1},
	} {
		r, err := Optimize(context.Background(), p, OptimalOptions{Symmetric: true, Intervals: 160})
		if err != nil {
			t.Fatal(err)
		}
		g, _ := GengLowerBoundL1(p)
		t.Logf("%+v: Geng %.5f (Table 1 variant %.5f), certified LB %.5f, UB %.5f", p, g, gengPaperL1(p), r.LowerBound, r.UpperBound)
		if g > r.LowerBound*(1+1e-9) {
			t.Errorf("%+v: Geng bound %v exceeds the certified lower bound %v", p, g, r.LowerBound)
		}
	}
}

// Rounding n* up (the Table 1 variant) is not a valid lower bound: at
// (ε, δ) = (0.05, 0.2), n* = 2.41 and the n = 3 value 1.1852 exceeds the loss of
// a certified (ε, δ)-DP density (1.1764 at 160 intervals).
func TestGengRoundedUpIsNotABound(t *testing.T) {
	p := Params{Epsilon: 0.05, Delta: 0.2, Sensitivity: 1}
	r := optimizeT(t, p, OptimalOptions{Symmetric: true, Intervals: 160})
	up := gengPaperL1(p)
	valid, _ := GengLowerBoundL1(p)
	t.Logf("rounded up %.5f, floor/δ' %.5f, certified UB %.5f, LB %.5f", up, valid, r.UpperBound, r.LowerBound)
	if !(up > r.UpperBound) {
		t.Errorf("rounded-up value %v not above the certified loss %v", up, r.UpperBound)
	}
	if !(valid <= r.LowerBound) {
		t.Errorf("bound %v above the certified lower bound %v", valid, r.LowerBound)
	}
}
