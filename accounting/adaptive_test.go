package accounting

import (
	"math"
	"testing"
)

// The GDP curve against the PLD of the Gaussian mechanism with σ = 1/μ
// (an independent computation: discretized loss law, FFT-free for one
// mechanism): δ_μ(ε) ≤ PLD δ(ε) ≤ δ_μ(ε) + a grid step's worth.
func TestGDPDeltaMatchesGaussianPLD(t *testing.T) {
	for _, mu := range []float64{0.3, 1, 2.5} {
		p, err := GaussianPLD(1/mu, 1, 1e-4)
		if err != nil {
			t.Fatal(err)
		}
		for _, eps := range []float64{0, 0.5, 1, 3} {
			g, d := GDPDelta(mu, eps), p.Delta(eps)
			if !(g <= d+1e-9 && d <= g+5e-4) {
				t.Errorf("μ %g ε %g: GDP δ %.9g, PLD δ %.9g", mu, eps, g, d)
			}
		}
	}
	// Closed form at μ = 1, ε = 1: Φ(−1/2) − e·Φ(−3/2).
	if got, want := GDPDelta(1, 1), 0.3085375387259869-math.E*0.0668072012688581; math.Abs(got-want) > 1e-12 {
		t.Errorf("GDPDelta(1, 1) = %.15g, want %.15g", got, want)
	}
	mu := GDPMu(1, 1e-5)
	if d := GDPDelta(mu, 1); d > 1e-5 || GDPDelta(mu*1.001, 1) <= 1e-5 {
		t.Errorf("GDPMu(1, 1e-5) = %g: δ %g, not the largest", mu, d)
	}
	if e := GDPEpsilon(mu, 1e-5); math.Abs(e-1) > 1e-6 {
		t.Errorf("GDPEpsilon(GDPMu(1, 1e-5)) = %g, want 1", e)
	}
}

// A Laplace release is charged the pure-DP bound min(ε, αε²/2), which is
// never below the ideal Laplace law's Rényi divergence
// D_α(Lap(0,1) ‖ Lap(ε,1)) = 1/(α−1)·ln ∫ p^α q^{1−α} (numerical
// integration): sound for the ideal law and, being a pure-DP bound, for the
// snapped release whose ε includes the snapping term.
func TestLaplaceChargeCoversRDP(t *testing.T) {
	for _, a := range []float64{1.5, 2, 8, 32} {
		for _, e := range []float64{0.1, 1} {
			n := 400000
			lo, hi := -60.0, 60.0
			h := (hi - lo) / float64(n)
			s := 0.0
			for i := 0; i < n; i++ {
				x := lo + (float64(i)+0.5)*h
				lp := -math.Abs(x) - math.Ln2
				lq := -math.Abs(x-e) - math.Ln2
				s += math.Exp(a*lp+(1-a)*lq) * h
			}
			ideal := math.Log(s) / (a - 1)
			got, err := RDPFilter{Alpha: a}.RDP(Charge{Cost: Cost{Epsilon: e}, Curve: &Curve{Kind: "laplace", Value: e}})
			if err != nil {
				t.Fatal(err)
			}
			if want := math.Min(e, a*e*e/2); math.Abs(got-want) > 1e-9*want || got < ideal {
				t.Errorf("α %g ε %g: charged %.10g, want min(ε, αε²/2) = %.10g ≥ ideal %.10g", a, e, got, want, ideal)
			}
		}
	}
}

// The filters admit exactly the number of identical releases their rules
// allow (computed by hand), and Replay reproduces the running state.
func TestFiltersAdmitCounts(t *testing.T) {
	b := Budget{Epsilon: 2, Delta: 1e-6}
	mu := 0.25
	g := Charge{Cost: Cost{Epsilon: 1, Delta: 1e-7}, Curve: &Curve{Kind: "gaussian", Value: mu}}
	muB := GDPMu(2, 1e-6)
	rdp := RDPFilter{Alpha: 16}
	B := 2 - math.Log(1e6)/15
	for _, tc := range []struct {
		f    Filter
		want int
	}{
		{BasicFilter{}, 2}, // ε 1 each against ε 2
		{GDPFilter{}, int(math.Floor(muB * muB / (mu * mu) * (1 - 1e-9)))},
		{rdp, int(math.Floor(B / (16 * mu * mu / 2) * (1 - 1e-9)))},
	} {
		var s State
		var charges []Charge
		n := 0
		for n < 10000 {
			next, ok, err := tc.f.Add(b, s, g)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				break
			}
			s, n = next, n+1
			charges = append(charges, g)
		}
		if n != tc.want {
			t.Errorf("%s: admitted %d, want %d", tc.f.Name(), n, tc.want)
		}
		r, err := Replay(tc.f, b, charges)
		if err != nil || r != s {
			t.Errorf("%s: replay %q %v, running %q", tc.f.Name(), r, err, s)
		}
		sp, err := tc.f.Spent(b, s)
		if err != nil || sp.Epsilon > b.Epsilon*(1+1e-9) || sp.Delta > b.Delta {
			t.Errorf("%s: spent %+v %v exceeds budget", tc.f.Name(), sp, err)
		}
		if f2, err := FilterByName(tc.f.Name()); err != nil || f2 != tc.f {
			t.Errorf("FilterByName(%q) = %v, %v", tc.f.Name(), f2, err)
		}
	}
	// A (ε, δ > 0) release without a curve cannot be accounted by RDP/GDP.
	for _, f := range []Filter{GDPFilter{}, rdp} {
		if _, _, err := f.Add(b, "", Charge{Cost: Cost{Epsilon: 0.1, Delta: 1e-8}}); err == nil {
			t.Errorf("%s accepted a release without a curve", f.Name())
		}
	}
}

// 365 Laplace releases with ε₀ = 0.1 fixed in advance: the PLD batch cost
// at δ = 10⁻⁶ is far below basic composition (36.5) and at or below the
// advanced-composition bound.
func TestBatchCostLaplace365(t *testing.T) {
	one, err := LaplacePLD(10, 1, 1e-3)
	if err != nil {
		t.Fatal(err)
	}
	c, err := BatchCost(one, 365, 1e-6)
	if err != nil {
		t.Fatal(err)
	}
	adv := AdvancedComposition(0.1, 365, 1e-6)
	if !(c.Epsilon > 0.1*math.Sqrt(365) && c.Epsilon <= adv && c.Epsilon < 36.5) {
		t.Errorf("PLD ε of 365 × Laplace(ε₀ 0.1) = %g; want in (%g, %g]", c.Epsilon, 0.1*math.Sqrt(365), adv)
	}
}
