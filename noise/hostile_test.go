package noise

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"
)

// mechanismsUnderTest lists every closed-form mechanism constructor.
var mechanismsUnderTest = []struct {
	name string
	make func(Params) (*Mechanism, error)
}{
	{"laplace", LaplaceMechanism},
	{"gaussian", GaussianMechanism},
	{"analytic-gaussian", AnalyticGaussianMechanism},
	{"truncated-laplace", TruncatedLaplaceMechanism},
	{"staircase-l1", func(p Params) (*Mechanism, error) { return StaircaseMechanism(p, L1()) }},
	{"staircase-l2", func(p Params) (*Mechanism, error) { return StaircaseMechanism(p, L2()) }},
	{"quasi-gaussian", QuasiGaussianMechanism},
}

// checkMechanismParams calibrates every mechanism at p and fails on a hang
// (10 s, far above the microseconds a calibration takes), a panic, an error
// that is not a ParamError, or a success whose noise has a non-positive or
// non-finite standard deviation, E|X|, or a non-finite sample.
func checkMechanismParams(t *testing.T, p Params) {
	t.Helper()
	for _, mk := range mechanismsUnderTest {
		type outcome struct {
			m   *Mechanism
			err error
		}
		done := make(chan outcome, 1)
		go func() {
			m, err := mk.make(p)
			done <- outcome{m, err}
		}()
		var o outcome
		select {
		case o = <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s at %+v did not return", mk.name, p)
		}
		if o.err != nil {
			if !errors.Is(o.err, ErrInvalidParam) {
				t.Errorf("%s at %+v: error %v does not match ErrInvalidParam", mk.name, p, o.err)
			}
			continue
		}
		d := o.m.Dist
		std, ma := Std(d), d.MeanAbs()
		if !(std > 0) || math.IsInf(std, 0) || !(ma > 0) || math.IsInf(ma, 0) {
			t.Errorf("%s at %+v: std %g, E|X| %g", mk.name, p, std, ma)
		}
		// E|X| ≤ std (Jensen), up to rounding.
		if ma > std*(1+1e-9) {
			t.Errorf("%s at %+v: E|X| %g exceeds std %g", mk.name, p, ma, std)
		}
		if lo, hi := d.Support(); !math.IsInf(hi, 0) && (std > (hi-lo)/2*(1+1e-9) || lo != -hi) {
			t.Errorf("%s at %+v: std %g with support [%g, %g]", mk.name, p, std, lo, hi)
		}
		if x := d.Sample(nil); math.IsNaN(x) || math.IsInf(x, 0) {
			t.Errorf("%s at %+v: sample %g", mk.name, p, x)
		}
	}
}

// TestMechanismsExtremeParameters is the corpus of the extreme calibrations
// that once panicked, hung or returned wrong numbers: ε = 710 (analytic
// Gaussian looped forever on e^ε = +Inf), ε = 1000, tiny ε (truncated Laplace
// std 0 by cancellation), ε = 10⁻³⁰⁰ (variance overflow reported as +Inf).
func TestMechanismsExtremeParameters(t *testing.T) {
	for _, e := range []float64{1e-300, 1e-12, 1e-7, 1e-3, 1, 30, 700, 709.9, 710, 1000, 1e300} {
		for _, d := range []float64{0, 1e-300, 1e-12, 0.1, 0.49, 0.9} {
			checkMechanismParams(t, Params{Epsilon: e, Delta: d, Sensitivity: 1})
		}
	}
}

// TestTruncatedLaplaceTinyEpsilon: at ε = 10⁻⁷ the truncated Laplace density is
// uniform on [−A, A] to 10⁻⁷, so std = A/√3 and E|X| = A/2 (closed forms of
// the uniform law); the closed form 2Bλ³(2 − e^{−a}(…)) once gave std 0 or 210.
func TestTruncatedLaplaceTinyEpsilon(t *testing.T) {
	for _, d := range []float64{0.1, 0.01} {
		m, err := TruncatedLaplaceMechanism(Params{Epsilon: 1e-7, Delta: d, Sensitivity: 1})
		if err != nil {
			t.Fatal(err)
		}
		A := m.Dist.(*TruncatedLaplace).Bound
		if got, want := Std(m.Dist), A/math.Sqrt(3); math.Abs(got-want) > 1e-6*want {
			t.Errorf("δ = %g: std %.10g, want %.10g", d, got, want)
		}
		if got, want := m.Dist.MeanAbs(), A/2; math.Abs(got-want) > 1e-6*want {
			t.Errorf("δ = %g: E|X| %.10g, want %.10g", d, got, want)
		}
	}
}

// TestLowerGammaInt checks the series branch against the closed form where
// the closed form has no cancellation (a ∈ [0.5, 2)) and against the leading
// term aⁿ/n at a = 10⁻⁸.
func TestLowerGammaInt(t *testing.T) {
	for _, a := range []float64{0.5, 1, 1.999} {
		if got, want := lowerGammaInt(2, a), 1-math.Exp(-a)*(1+a); math.Abs(got-want) > 1e-14 {
			t.Errorf("γ(2, %g) = %.17g, want %.17g", a, got, want)
		}
		if got, want := lowerGammaInt(3, a), 2-math.Exp(-a)*(a*a+2*a+2); math.Abs(got-want) > 1e-14 {
			t.Errorf("γ(3, %g) = %.17g, want %.17g", a, got, want)
		}
	}
	a := 1e-8
	if got, want := lowerGammaInt(3, a), a*a*a/3; math.Abs(got-want) > 1e-7*want {
		t.Errorf("γ(3, 1e-8) = %g, want %g", got, want)
	}
}

// TestAnalyticGaussianLargeEpsilon: the log-domain privacy profile equals the
// direct formula where e^ε is finite (ε = 700), and at ε = 710 (e^ε = +Inf)
// the calibrated σ satisfies the condition and lies just below σ(700)
// (σ decreases in ε).
func TestAnalyticGaussianLargeEpsilon(t *testing.T) {
	for _, s := range []float64{0.01, 0.03, 0.1} {
		a, b := 1/(2*s), 700*s
		direct := stdNormalCDF(a-b) - math.Exp(700)*stdNormalCDF(-a-b)
		if got := analyticGaussianDelta(700, 1, s); math.Abs(got-direct) > 1e-12 {
			t.Errorf("σ = %g: log-domain δ %.17g, direct %.17g", s, got, direct)
		}
	}
	m700, err := AnalyticGaussianMechanism(Params{Epsilon: 700, Delta: 0.1, Sensitivity: 1})
	if err != nil {
		t.Fatal(err)
	}
	m710, err := AnalyticGaussianMechanism(Params{Epsilon: 710, Delta: 0.1, Sensitivity: 1})
	if err != nil {
		t.Fatal(err)
	}
	s700, s710 := m700.Dist.(*Gaussian).Sigma, m710.Dist.(*Gaussian).Sigma
	if !(s710 < s700 && s710 > 0.95*s700) {
		t.Errorf("σ(710) = %g, σ(700) = %g", s710, s700)
	}
	if d := analyticGaussianDelta(710, 1, s710); d > 0.1 {
		t.Errorf("δ(σ(710)) = %g > 0.1", d)
	}
}

// TestLogStdNormalCDF compares the asymptotic branch with erfc where both are
// accurate (z = −30 … −37: Φ ≥ 10⁻³⁰⁰).
func TestLogStdNormalCDF(t *testing.T) {
	for _, z := range []float64{-30.5, -33, -37} {
		want := math.Log(stdNormalCDF(z))
		if got := logStdNormalCDF(z); math.Abs(got-want) > 1e-12*math.Abs(want) {
			t.Errorf("ln Φ(%g) = %.17g, want %.17g", z, got, want)
		}
	}
}

// TestOptimizeExtremeEpsilon: ε = 1000 once panicked with an index out of
// range; ε above MaxOptimizeEpsilon is now an error naming Epsilon. At tiny ε
// the automatic support no longer gives an infeasible LP blamed on
// SupportMultiple.
func TestOptimizeExtremeEpsilon(t *testing.T) {
	for _, e := range []float64{1000, 710, 1e300} {
		_, err := Optimize(context.Background(), Params{Epsilon: e, Delta: 0.1, Sensitivity: 1}, OptimalOptions{})
		var pe *ParamError
		if !errors.As(err, &pe) || pe.Param != "Epsilon" {
			t.Errorf("ε = %g: error %v, want a ParamError on Epsilon", e, err)
		}
	}
	res, err := Optimize(context.Background(), Params{Epsilon: 1e-7, Delta: 0.1, Sensitivity: 1}, OptimalOptions{Intervals: 40})
	if err != nil {
		t.Fatalf("ε = 1e-7: %v", err)
	}
	// Near ε = 0 the optimal ℓ₁ noise is uniform on [−1/(2δ), 1/(2δ)]:
	// E|X| = 1/(4δ) = 2.5; the bounds bracket it.
	if !(res.LowerBound <= 2.5*(1+1e-6) && res.UpperBound >= 2.5*(1-1e-3)) {
		t.Errorf("ε = 1e-7: bounds [%g, %g] do not bracket 2.5", res.LowerBound, res.UpperBound)
	}
}

// TestOptimizeDataDependentExtremeEpsilon: the data-dependent optimizer has
// the same ε cap as Optimize.
func TestOptimizeDataDependentExtremeEpsilon(t *testing.T) {
	_, err := OptimizeDataDependent(context.Background(), Params{Epsilon: 1000, Delta: 0.1, Sensitivity: 1}, DataDependentOptions{})
	var pe *ParamError
	if !errors.As(err, &pe) || pe.Param != "Epsilon" {
		t.Errorf("ε = 1000: error %v, want a ParamError on Epsilon", err)
	}
}

// TestOptimizeDeadlineDuringShiftSearch: at (ε, δ) = (15.3125, 1/60) with 16
// cells the unit lattice is fine and one most-violated-shift search took
// 430 ms without polling the context (fuzzing reported the input as a hang
// on a loaded machine); the search now polls it, and a 100 ms deadline ends
// Optimize with the deadline error.
func TestOptimizeDeadlineDuringShiftSearch(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := Optimize(ctx, Params{Epsilon: 15.3125, Delta: 1.0 / 60, Sensitivity: 1}, OptimalOptions{Intervals: 16})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Optimize with a 100 ms deadline: %v, want context.DeadlineExceeded", err)
	}
	t.Log(err)
}
