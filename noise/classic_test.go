package noise

import (
	"math"
	"testing"
)

// Liu & Selvi, Theorem 3 / Algorithm 4 (REFERENCE.md): smallest σ with Δ = 1.
func TestQuasiGaussianSigma(t *testing.T) {
	for _, c := range []struct{ eps, delta, want float64 }{
		{1, 0.1, 0.87287}, {2, 0.1, 0.39225}, {5, 0.01, 0.23369},
	} {
		m, err := QuasiGaussianMechanism(Params{Epsilon: c.eps, Delta: c.delta, Sensitivity: 1})
		if err != nil {
			t.Fatal(err)
		}
		near(t, "quasi-Gaussian sigma", m.Dist.(*QuasiGaussian).Sigma, c.want, 5e-6)
		// Scale equivariance: Δ = 7 multiplies σ by 7.
		m7, _ := QuasiGaussianMechanism(Params{Epsilon: c.eps, Delta: c.delta, Sensitivity: 7})
		near(t, "quasi-Gaussian sigma Δ=7", m7.Dist.(*QuasiGaussian).Sigma, 7*m.Dist.(*QuasiGaussian).Sigma, 1e-8)
	}
}

// numericMoments integrates |x| and x² against d.PDF with a fine midpoint rule
// on [lo, hi]: an independent check of the closed-form moments.
func numericMoments(d Distribution, lo, hi float64, n int) (mass, meanAbs, second float64) {
	h := (hi - lo) / float64(n)
	for i := 0; i < n; i++ {
		x := lo + (float64(i)+0.5)*h
		f := d.PDF(x) * h
		mass += f
		meanAbs += math.Abs(x) * f
		second += x * x * f
	}
	return
}

func TestMomentsAgainstQuadrature(t *testing.T) {
	q, _ := NewQuasiGaussian(1, 1, 0.87287)
	s, _ := NewStaircase(1, 1, 0.25) // breakpoints on the quadrature grid
	s2, _ := NewStaircase(0.3, 2, 0.7)
	tl, _ := NewTruncatedLaplace(1.5, 4)
	l, _ := NewLaplace(2)
	g, _ := NewGaussian(0.7)
	for _, c := range []struct {
		name string
		d    Distribution
		R    float64
	}{{"quasi", q, 12}, {"staircase", s, 60}, {"staircase2", s2, 400}, {"tlap", tl, 4}, {"laplace", l, 90}, {"gauss", g, 10}} {
		// h = 1e-4 puts every staircase breakpoint on the midpoint grid.
		mass, ma, m2 := numericMoments(c.d, -c.R, c.R, int(math.Round(2*c.R/1e-4)))
		near(t, c.name+" mass", mass, 1, 1e-6)
		near(t, c.name+" E|X|", c.d.MeanAbs(), ma, 1e-6*math.Max(1, ma))
		near(t, c.name+" Var", c.d.Variance(), m2, 1e-6*math.Max(1, m2))
		// CDF/Quantile round trip and CDF against integrated density.
		for _, p := range []float64{1e-6, 0.01, 0.2, 0.5, 0.77, 0.999} {
			x := c.d.Quantile(p)
			near(t, c.name+" CDF(Quantile(p))", c.d.CDF(x), p, 1e-9)
		}
		for _, x := range []float64{-1.3, -0.2, 0.4, 2.5} {
			m, _, _ := numericMoments(c.d, -c.R, x, int(math.Round((x+c.R)/1e-4)))
			near(t, c.name+" CDF vs ∫PDF", c.d.CDF(x), m, 2e-6)
		}
	}
}

// The closed-form γ* of Geng & Viswanath minimize E|X| (ℓ₁) and E X² (ℓ₂) over
// γ ∈ [0, 1]: checked against a golden-section search over γ.
func TestStaircaseGammaOptimal(t *testing.T) {
	for _, eps := range []float64{0.1, 0.5, 1, 2, 5} {
		for _, l2 := range []bool{false, true} {
			cost := func(g float64) float64 {
				s, _ := NewStaircase(eps, 1, g)
				if l2 {
					return s.Variance()
				}
				return s.MeanAbs()
			}
			a, b := 0.0, 1.0
			const r = 0.6180339887498949
			for k := 0; k < 100; k++ {
				c, d := b-r*(b-a), a+r*(b-a)
				if cost(c) < cost(d) {
					b = d
				} else {
					a = c
				}
			}
			want := StaircaseGammaL1(eps)
			if l2 {
				want = StaircaseGammaL2(eps)
			}
			near(t, "γ*", 0.5*(a+b), want, 1e-6)
		}
	}
}

// Numerical privacy profile sup_A P[X∈A] − e^ε P[X+φ∈A] = ∫(f(x) − e^ε f(x−φ))⁺dx
// by the midpoint rule, an independent check that Theorem 3's σ, the analytic
// Gaussian σ, the truncated Laplace and the staircase are (ε,δ)-DP.
func numericShortfall(d Distribution, eps, phi, R float64, n int) float64 {
	h := 2 * R / float64(n)
	e := math.Exp(eps)
	s := 0.0
	for i := 0; i < n; i++ {
		x := -R + (float64(i)+0.5)*h
		if v := d.PDF(x) - e*d.PDF(x-phi); v > 0 {
			s += v * h
		}
	}
	return s
}

func TestMechanismsArePrivateNumerically(t *testing.T) {
	for _, c := range []struct {
		name string
		mk   func(Params) (*Mechanism, error)
		p    Params
		R    float64
	}{
		{"quasi(1,0.1)", QuasiGaussianMechanism, Params{1, 0.1, 1}, 10},
		{"quasi(5,0.01)", QuasiGaussianMechanism, Params{5, 0.01, 1}, 10},
		{"analytic(1,0.2)", AnalyticGaussianMechanism, Params{1, 0.2, 1}, 10},
		{"tlap(1,0.2)", TruncatedLaplaceMechanism, Params{1, 0.2, 1}, 4},
		{"staircase(1)", func(p Params) (*Mechanism, error) { return StaircaseMechanism(p, L1()) }, Params{1, 0, 1}, 40},
		{"laplace(0.5)", LaplaceMechanism, Params{0.5, 0, 2}, 120},
	} {
		m, err := c.mk(c.p)
		if err != nil {
			t.Fatal(err)
		}
		worst := 0.0
		for _, phi := range []float64{0.25, 0.5, 0.9, 1} {
			worst = math.Max(worst, numericShortfall(m.Dist, m.Params.Epsilon, phi*m.Params.Sensitivity, c.R, 400_000))
		}
		if worst > m.Params.Delta+1e-4 {
			t.Errorf("%s: numerical shortfall %v > δ = %v", c.name, worst, m.Params.Delta)
		}
	}
}
