package accounting

import (
	"context"
	"math"
	"testing"

	"github.com/privopt/privopt/noise"
)

// gdpEpsilon is the exact ε of μ-GDP at δ (bisection on gdpDelta).
func gdpEpsilon(mu, delta float64) float64 {
	lo, hi := 0.0, 200.0
	for hi-lo > 1e-12 {
		m := (lo + hi) / 2
		if gdpDelta(mu, m) <= delta {
			hi = m
		} else {
			lo = m
		}
	}
	return hi
}

// TestProfilePLDGaussian: the connect-the-dots PLD of the exact Gaussian
// profile (Balle & Wang, Thm 8; σ = 2, Δ = 1), composed k ∈ {1, 10, 100}
// times, against exact μ-GDP with μ = √k/σ: never below, within 1% + k·h.
func TestProfilePLDGaussian(t *testing.T) {
	const sigma, h, delta = 2.0, 1e-3, 1e-5
	prof := func(eps float64) (float64, error) {
		a, b := 1/(2*sigma), eps*sigma
		return normCDF(a-b) - math.Exp(eps)*normCDF(-a-b), nil
	}
	p, err := ProfilePLD(prof, 12, h, 240)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []int{1, 10, 100} {
		pk, err := p.ComposeK(k)
		if err != nil {
			t.Fatal(err)
		}
		got, ex := pk.Epsilon(delta), gdpEpsilon(math.Sqrt(float64(k))/sigma, delta)
		t.Logf("k = %d: ε %.5f, exact %.5f", k, got, ex)
		if got < ex-1e-9 || got > ex*1.01+float64(k)*h {
			t.Errorf("k = %d: ε %.6f outside [%.6f, 1.01·exact + kh]", k, got, ex)
		}
	}
}

// optimisticShiftPLD is an independent lower reference: the law of the loss
// ln f(x)/f(x − φ), x ~ f, of one fixed shift by midpoint quadrature on
// [lo, hi], rounded DOWN to the grid (the mass outside is dropped).
func optimisticShiftPLD(pdf func(float64) float64, phi, lo, hi, step float64) *PLD {
	const n = 1_000_000
	dx := (hi - lo) / n
	m := map[int]float64{}
	inf := 0.0
	for i := 0; i < n; i++ {
		x := lo + (float64(i)+0.5)*dx
		f, g := pdf(x), pdf(x-phi)
		if f == 0 {
			continue
		}
		if g == 0 {
			inf += f * dx
			continue
		}
		m[int(math.Floor(math.Log(f/g)/step))] += f * dx
	}
	jmin, jmax := math.MaxInt, math.MinInt
	for j := range m {
		jmin, jmax = min(jmin, j), max(jmax, j)
	}
	p := &PLD{Step: step, Offset: jmin, Mass: make([]float64, jmax-jmin+1), Inf: inf}
	for j, v := range m {
		p.Mass[j-jmin] = v
	}
	return p
}

// TestMechanismPLDs: dominating PLDs of the multi-Gaussian, staircase and
// optimal (piecewise-constant) mechanisms composed k ∈ {1, 10, 100} times.
// Lower reference: the direct numerical composition of the worst single
// shift's loss (midpoint quadrature, rounded down; a composition of one
// fixed pair can only be less private), within its quadrature error 10⁻⁴k. Upper references: basic composition (kε₀, kδ₀)
// of the certified guarantee, and for the multi-Gaussian the exact μ-GDP of
// the Gaussian with the same σ (its profile dominates the mixture's by joint
// convexity, Lemma 23's argument, and domination survives composition).
func TestMechanismPLDs(t *testing.T) {
	const h = 1e-3
	// Multi-Gaussian at (2, 0.1), K = 1.
	mg, err := noise.MultiGaussianMechanism(noise.Params{Epsilon: 2, Delta: 0.1, Sensitivity: 1}, noise.MultiGaussianOptions{K: 1})
	if err != nil {
		t.Fatal(err)
	}
	d := mg.Dist.(*noise.MultiGaussian)
	pm, err := ProfilePLD(MultiGaussianProfile(d), 8, h, 80)
	if err != nil {
		t.Fatal(err)
	}
	// Staircase ε₀ = 1.
	sc, _ := noise.StaircaseMechanism(noise.Params{Epsilon: 1, Sensitivity: 1}, noise.L1())
	ps, err := MechanismPLD(context.Background(), sc, h)
	if err != nil {
		t.Fatal(err)
	}
	// Optimal noise at (1, 0.2), 40 cells.
	r, err := noise.Optimize(context.Background(), noise.Params{Epsilon: 1, Delta: 0.2, Sensitivity: 1}, noise.OptimalOptions{Intervals: 40, Symmetric: true, SkipLowerBound: true})
	if err != nil {
		t.Fatal(err)
	}
	po, err := MechanismPLD(context.Background(), r.Mechanism, h)
	if err != nil {
		t.Fatal(err)
	}
	pc := r.Mechanism.Dist.(*noise.PiecewiseConstant)
	lo, hi := pc.Support()
	for _, c := range []struct {
		name     string
		p, lower *PLD
		eps0, d0 float64
		evalEps  float64 // ε at which δ is compared
		gdpSigma float64
	}{
		{"multi-gaussian", pm, optimisticShiftPLD(d.PDF, d.Sensitivity, -12, 13, h), 2, 0.1, 2, d.Sigma},
		{"staircase", ps, optimisticShiftPLD(sc.Dist.PDF, 1, -40, 41, h), 1, 0, 1, 0},
		{"optimal", po, optimisticShiftPLD(pc.PDF, 1, lo, hi+1, h), 1, 0.2, 1, 0},
	} {
		for _, k := range []int{1, 10, 100} {
			pk, err := c.p.ComposeK(k)
			if err != nil {
				t.Fatal(err)
			}
			lk, err := c.lower.ComposeK(k)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range []float64{c.evalEps, float64(k) * c.evalEps / 2, float64(k) * c.evalEps} {
				got, low := pk.Delta(e), lk.deltaPlain(e)
				if got < low-1e-4*float64(k) { // the reference's quadrature error (discontinuous densities)
					t.Errorf("%s k = %d ε = %g: PLD δ %.6g below the fixed-shift composition %.6g", c.name, k, e, got, low)
				}
				if e == float64(k)*c.eps0 && got > math.Min(1, float64(k)*c.d0)+1e-9*float64(k) {
					t.Errorf("%s k = %d: δ(kε₀) = %.6g above basic composition %g", c.name, k, got, float64(k)*c.d0)
				}
				if c.gdpSigma > 0 {
					if g := gdpDelta(math.Sqrt(float64(k))/c.gdpSigma, e); got > g+1e-9 {
						t.Errorf("%s k = %d ε = %g: δ %.6g above the Gaussian bound %.6g", c.name, k, e, got, g)
					}
				}
				t.Logf("%s k = %d ε = %g: δ %.6g (fixed-shift lower %.6g)", c.name, k, e, got, low)
			}
		}
	}
}
