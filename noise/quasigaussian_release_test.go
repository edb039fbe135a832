package noise

import (
	"math"
	"math/big"
	"testing"

	"github.com/ALTree/bigfloat"
)

// TestDiscreteQuasiGaussianSampler: 10⁶ exact draws with s = 9, K = 4, ε = 1
// against π(y) ∝ e·exp(−y²/18) + exp(−(|y| − 4)²/18); χ² at false-failure
// rate 10⁻⁶.
func TestDiscreteQuasiGaussianSampler(t *testing.T) {
	const n = 1_000_000
	src := NewSeededSource(77)
	counts := map[int64]int{}
	for i := 0; i < n; i++ {
		counts[sampleDiscreteQuasiGaussian(9, 4, 1, src)]++
	}
	pi := func(y float64) float64 {
		a := math.Abs(y) - 4
		return math.E*math.Exp(-y*y/18) + math.Exp(-a*a/18)
	}
	z := 0.0
	for y := -200.0; y <= 200; y++ {
		z += pi(y)
	}
	stat, df := chiSquare(counts, func(y int64) float64 { return pi(float64(y)) / z }, -15, 15, n)
	if crit := chiSquareCrit(df, 1e-6); stat > crit {
		t.Fatalf("χ² = %.1f > %.1f (df %d)", stat, crit, df)
	}
	t.Logf("χ² = %.1f (df %d)", stat, df)
}

// TestQuasiGaussianGridDelta: the pessimistic δ against an independent
// 200-bit evaluation of max_j Σ_y max(0, p(y) − e^ε p(y − j)).
func TestQuasiGaussianGridDelta(t *testing.T) {
	for _, c := range []struct {
		eps float64
		s   float64
		k   int64
	}{{1, 9, 4}, {0.5, 50, 3}, {2, 200, 6}} {
		got := quasiGaussianGridDelta(c.eps, c.s, c.k)
		const prec = 200
		f := func(x float64) *big.Float { return new(big.Float).SetPrec(prec).SetFloat64(x) }
		ee := bigfloat.Exp(f(c.eps))
		span := int64(c.k) + int64(60*math.Sqrt(c.s)) + 10
		memo := map[int64]*big.Float{}
		pi := func(y int64) *big.Float {
			if v, ok := memo[y]; ok {
				return v
			}
			a := math.Abs(float64(y)) - float64(c.k)
			v := new(big.Float).SetPrec(prec).Mul(ee, bigfloat.Exp(f(-float64(y*y)/(2*c.s))))
			v.Add(v, bigfloat.Exp(f(-a*a/(2*c.s))))
			memo[y] = v
			return v
		}
		z := f(0)
		for y := -span; y <= span; y++ {
			z.Add(z, pi(y))
		}
		worst := f(0)
		for j := int64(1); j <= c.k; j++ {
			sum := f(0)
			for y := -span; y <= span+j; y++ {
				d := new(big.Float).SetPrec(prec).Mul(ee, pi(y-j))
				d.Sub(pi(y), d)
				if d.Sign() > 0 {
					sum.Add(sum, d)
				}
			}
			if sum.Cmp(worst) > 0 {
				worst = sum
			}
		}
		ref, _ := worst.Quo(worst, z).Float64()
		if !(got >= ref) || got > ref*(1+1e-6)+1e-15 {
			t.Errorf("%+v: δ = %.15g, 200-bit reference %.15g", c, got, ref)
		}
	}
}

// TestQuasiGaussianRelease: the calibration for the quasi-Gaussian mechanism
// (1, 10⁻⁵, 1) meets δ at a stated cost, and releases lie on its grid.
func TestQuasiGaussianRelease(t *testing.T) {
	m, err := QuasiGaussianMechanism(Params{Epsilon: 1, Delta: 1e-5, Sensitivity: 1})
	if err != nil {
		t.Fatal(err)
	}
	d, err := DiscreteQuasiGaussianFor(m.Dist.(*QuasiGaussian).Sigma, m.Params, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := quasiGaussianGridDelta(1, float64(d.Variance), d.GridSensitivity); got > 1e-5 {
		t.Fatalf("δ = %v", got)
	}
	t.Logf("grid %g, k = %d, s = %d, σ factor %.4f", d.Granularity, d.GridSensitivity, d.Variance, d.SigmaFactor)
	if d.SigmaFactor < 1 || d.SigmaFactor > 1.1 {
		t.Errorf("σ factor %v", d.SigmaFactor)
	}
	src := NewSeededSource(5)
	for i := 0; i < 1000; i++ {
		x, err := m.Release(0.3, src, ReleaseOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if x != math.Trunc(x/d.Granularity)*d.Granularity {
			t.Fatalf("release %v off the grid %v", x, d.Granularity)
		}
	}
}
