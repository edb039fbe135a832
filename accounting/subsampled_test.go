package accounting

import (
	"math"
	"testing"
)

// hsMixture is an independent reference for the hockey-stick divergence
// ∫(p − e^ε q)⁺ of the subsampled-Gaussian pair in direction dir: Simpson
// quadrature of the densities on [−30σ, Δ + 30σ] (no loss CDF inversion).
func hsMixture(sigma, q, D, eps float64, dir Neighbour) float64 {
	pdf := func(x, m float64) float64 {
		z := (x - m) / sigma
		return math.Exp(-z*z/2) / (sigma * math.Sqrt(2*math.Pi))
	}
	lo, hi := -30*sigma, D+30*sigma
	const n = 400_000
	h := (hi - lo) / n
	ee := math.Exp(eps)
	s := 0.0
	for i := 0; i <= n; i++ {
		x := lo + float64(i)*h
		mix := (1-q)*pdf(x, 0) + q*pdf(x, D)
		g := pdf(x, 0)
		p, qq := mix, g
		if dir == Add {
			p, qq = g, mix
		}
		w := 2.0
		if i == 0 || i == n {
			w = 1
		} else if i%2 == 1 {
			w = 4
		}
		s += w * math.Max(0, p-ee*qq)
	}
	return s * h / 3
}

// TestSubsampledGaussianPLD: one step against quadrature of the pair's
// hockey-stick divergence (both directions): δ_PLD(ε) ∈ [δ(ε), δ(ε − h)].
// q = 1 composed k ∈ {1, 10, 100} times against exact μ-GDP, μ = √k·Δ/σ.
func TestSubsampledGaussianPLD(t *testing.T) {
	const h = 1e-4
	for _, c := range []struct{ sigma, q float64 }{{1, 0.01}, {0.8, 0.2}} {
		for _, dir := range []Neighbour{Remove, Add} {
			p, err := SubsampledGaussianPLD(c.sigma, c.q, 1, h, dir)
			if err != nil {
				t.Fatal(err)
			}
			for _, eps := range []float64{0, 0.05, 0.5} {
				d, lo, hi := p.Delta(eps), hsMixture(c.sigma, c.q, 1, eps, dir), hsMixture(c.sigma, c.q, 1, eps-h, dir)
				if d < lo-1e-10 || d > hi+1e-10 {
					t.Errorf("σ %g q %g dir %d ε %g: PLD δ %.10g outside [%.10g, %.10g]", c.sigma, c.q, dir, eps, d, lo, hi)
				}
			}
		}
	}
	for _, c := range []struct {
		k     int
		sigma float64
	}{{1, 2}, {10, 5}, {100, 10}} {
		const delta, h = 1e-5, 2e-4
		k, sigma := c.k, c.sigma
		got, err := SubsampledGaussianEpsilon(sigma, 1, 1, k, delta, SubsampledGaussianOptions{Step: h})
		if err != nil {
			t.Fatal(err)
		}
		hi := gdpEpsilon(math.Sqrt(float64(k))/sigma, delta)
		if got < hi-1e-9 || got > hi+float64(k)*h {
			t.Errorf("q = 1, k = %d: ε %.6f outside [%.6f, %.6f]", k, got, hi, hi+float64(k)*h)
		}
	}
}

// TestSubsampledGaussianComposition: k ∈ {1, 10, 100} steps at σ = 1,
// q = 0.02 against a direct numerical composition: the law of one loss by
// quadrature over x (midpoint rule, no CDF inversion), rounded DOWN to the
// grid (an optimistic PLD, a lower bound) and trimmed of masses below 10⁻²⁰,
// composed by direct convolution for k ≤ 10 and by ComposeK for k = 100.
// The accountant's δ must lie between it and its value 2k bins lower.
func TestSubsampledGaussianComposition(t *testing.T) {
	const sigma, q, h = 1.0, 0.02, 2e-3
	for _, dir := range []Neighbour{Remove, Add} {
		pess, err := SubsampledGaussianPLD(sigma, q, 1, h, dir)
		if err != nil {
			t.Fatal(err)
		}
		// Optimistic PLD by quadrature: midpoint rule on a fine x grid.
		opt := map[int]float64{}
		const n = 2_000_000
		lo, hi := -12*sigma, 1+12*sigma
		dx := (hi - lo) / n
		for i := 0; i < n; i++ {
			x := lo + (float64(i)+0.5)*dx
			g := math.Exp(-x*x/2) / math.Sqrt(2*math.Pi)
			m := (1-q)*g + q*math.Exp(-(x-1)*(x-1)/2)/math.Sqrt(2*math.Pi)
			p, l := m, math.Log(m/g)
			if dir == Add {
				p, l = g, math.Log(g/m)
			}
			opt[int(math.Floor(l/h))] += p * dx
		}
		jmin, jmax := math.MaxInt, math.MinInt
		for j, m := range opt {
			if m < 1e-20 {
				continue
			}
			jmin, jmax = min(jmin, j), max(jmax, j)
		}
		o := &PLD{Step: h, Offset: jmin, Mass: make([]float64, jmax-jmin+1)}
		for j, m := range opt {
			if j >= jmin && j <= jmax {
				o.Mass[j-jmin] = m
			}
		}
		for _, k := range []int{1, 10, 100} {
			pk, err := pess.ComposeK(k)
			if err != nil {
				t.Fatal(err)
			}
			ok := o
			if k <= 10 {
				for i := 1; i < k; i++ {
					ok = convolveDirect(ok, o)
				}
			} else if ok, err = o.ComposeK(k); err != nil {
				t.Fatal(err)
			}
			for _, eps := range []float64{0.1, 0.5, 1} {
				dp := pk.Delta(eps)
				dl := ok.deltaPlain(eps)
				du := ok.deltaPlain(eps - 2*float64(k)*h) // one bin of each rounding, k losses
				if dp < dl-1e-9 || dp > du+1e-6 {
					t.Errorf("dir %d k %d ε %g: PLD δ %.9g outside [%.9g, %.9g]", dir, k, eps, dp, dl, du)
				}
			}
		}
	}
}

func convolveDirect(a, b *PLD) *PLD {
	out := &PLD{Step: a.Step, Offset: a.Offset + b.Offset, Mass: make([]float64, len(a.Mass)+len(b.Mass)-1)}
	for i, x := range a.Mass {
		if x == 0 {
			continue
		}
		for j, y := range b.Mass {
			out.Mass[i+j] += x * y
		}
	}
	return out
}

// deltaPlain is Σ m(1 − e^{ε−l})⁺ without the error terms of Delta.
func (p *PLD) deltaPlain(eps float64) float64 {
	s := p.Inf
	for i, m := range p.Mass {
		if l := float64(p.Offset+i) * p.Step; l > eps {
			s += m * -math.Expm1(eps-l)
		}
	}
	return s
}

// TestSubsampledGaussianSigma: the bisection's σ meets the target and 0.5%
// less does not; smaller q needs less noise.
func TestSubsampledGaussianSigma(t *testing.T) {
	o := SubsampledGaussianOptions{Step: 2e-3}
	s, err := SubsampledGaussianSigma(1, 1e-5, 0.01, 1, 20, o)
	if err != nil {
		t.Fatal(err)
	}
	e, _ := SubsampledGaussianEpsilon(s, 0.01, 1, 20, 1e-5, o)
	e2, _ := SubsampledGaussianEpsilon(s*0.995, 0.01, 1, 20, 1e-5, o)
	if e > 1 || e2 <= 1 {
		t.Errorf("σ = %g: ε %g (want ≤ 1), at 0.995σ ε %g (want > 1)", s, e, e2)
	}
	s2, err := SubsampledGaussianSigma(1, 1e-5, 0.05, 1, 20, o)
	if err != nil || !(s2 > s) {
		t.Errorf("q = 0.05 needs σ %g, q = 0.01 σ %g (%v)", s2, s, err)
	}
	t.Logf("σ(q = 0.01, k = 20, (1, 1e-5)) = %.4f, ε %.4f; q = 0.05: σ = %.4f", s, e, s2)
}
