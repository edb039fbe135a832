package noise

import (
	"math"
	"math/big"
	"testing"

	"github.com/ALTree/bigfloat"
	"gonum.org/v1/gonum/stat/distuv"
)

// chiSquareCrit returns the χ² critical value with df degrees of freedom at
// false-failure probability alpha (a correct sampler fails with probability
// alpha; seeds are fixed, so the tests are deterministic).
func chiSquareCrit(df int, alpha float64) float64 {
	return distuv.ChiSquared{K: float64(df)}.Quantile(1 - alpha)
}

// chiSquare returns Σ (O − E)²/E over cells of expected count ≥ 5; cells
// with smaller expectation are merged into the tails.
func chiSquare(counts map[int64]int, pmf func(int64) float64, lo, hi int64, n int) (stat float64, df int) {
	var oTail, eTail float64
	for y, c := range counts {
		if y < lo || y > hi {
			oTail += float64(c)
		}
	}
	eTail = 1
	for y := lo; y <= hi; y++ {
		e := pmf(y) * float64(n)
		eTail -= pmf(y)
		o := float64(counts[y])
		stat += (o - e) * (o - e) / e
		df++
	}
	eTail *= float64(n)
	if eTail >= 5 {
		stat += (oTail - eTail) * (oTail - eTail) / eTail
		df++
	} else if oTail > 20 {
		stat = math.Inf(1)
	}
	return stat, df - 1
}

func discreteGaussianPMF(s float64) func(int64) float64 {
	z := 0.0
	for y := -2000.0; y <= 2000; y++ {
		z += math.Exp(-y * y / (2 * s))
	}
	return func(y int64) float64 { return math.Exp(-float64(y*y)/(2*s)) / z }
}

// TestDiscreteGaussianChiSquare: 10⁶ draws of N_ℤ(0, 10) (σ ≈ 3.16) against
// the exact pmf; χ² at false-failure rate 10⁻⁶.
func TestDiscreteGaussianChiSquare(t *testing.T) {
	const n = 1_000_000
	const s = 10
	src := NewSeededSource(2020)
	counts := map[int64]int{}
	for i := 0; i < n; i++ {
		counts[discreteGaussian(s, src)]++
	}
	stat, df := chiSquare(counts, discreteGaussianPMF(s), -13, 13, n)
	if crit := chiSquareCrit(df, 1e-6); stat > crit {
		t.Fatalf("χ² = %.1f > %.1f (df %d)", stat, crit, df)
	}
	t.Logf("χ² = %.1f, df %d, critical %.1f at 1e-6", stat, df, chiSquareCrit(df, 1e-6))
}

// TestDiscreteLaplaceChiSquare: 10⁶ draws of the discrete Laplace with t = 3
// against Pr[y] = (1 − e^{−1/t})/(1 + e^{−1/t})·e^{−|y|/t}; χ² at 10⁻⁶.
func TestDiscreteLaplaceChiSquare(t *testing.T) {
	const n = 1_000_000
	const tt = 3
	src := NewSeededSource(7)
	counts := map[int64]int{}
	for i := 0; i < n; i++ {
		counts[discreteLaplace(tt, src)]++
	}
	q := math.Exp(-1.0 / tt)
	pmf := func(y int64) float64 { return (1 - q) / (1 + q) * math.Pow(q, math.Abs(float64(y))) }
	stat, df := chiSquare(counts, pmf, -30, 30, n)
	if crit := chiSquareCrit(df, 1e-6); stat > crit {
		t.Fatalf("χ² = %.1f > %.1f (df %d)", stat, crit, df)
	}
}

// TestBernoulliExpNeg: 10⁶ trials of Bernoulli(e^{−γ}) for γ = 0.3 and 2.5;
// the count is checked against a 5.3σ binomial band (two-sided false-failure
// rate ≈ 10⁻⁷ each).
func TestBernoulliExpNeg(t *testing.T) {
	const n = 1_000_000
	src := NewSeededSource(3)
	for _, g := range [][2]int64{{3, 10}, {5, 2}} {
		p := math.Exp(-float64(g[0]) / float64(g[1]))
		c := 0
		for i := 0; i < n; i++ {
			if bernoulliExpNeg(big.NewInt(g[0]), big.NewInt(g[1]), src) {
				c++
			}
		}
		if sd := math.Sqrt(n * p * (1 - p)); math.Abs(float64(c)-n*p) > 5.3*sd {
			t.Errorf("γ = %d/%d: %d successes, expected %.0f ± %.0f", g[0], g[1], c, n*p, sd)
		}
	}
}

// TestDiscreteGaussianDelta checks the pessimistic δ against an independent
// 200-bit evaluation of Σ_y max(0, p(y) − e^ε p(y − k)) and against the
// continuous Gaussian profile (Balle and Wang 2018), which the discrete one
// approaches as σ grows.
func TestDiscreteGaussianDelta(t *testing.T) {
	for _, c := range []struct {
		eps, s float64
		k      int64
	}{{0.5, 4, 1}, {1, 30, 3}, {2, 100, 2}, {0.1, 400, 5}} {
		got := discreteGaussianDelta(c.eps, c.s, c.k)
		ref := bigDiscreteGaussianDelta(c.eps, c.s, c.k)
		if !(got >= ref) || got > ref*(1+1e-8) {
			t.Errorf("%+v: δ = %.15g, 200-bit reference %.15g", c, got, ref)
		}
	}
	// Large σ: the discrete profile equals the continuous one to 1e-6 relative.
	eps, k := 1.0, int64(1000)
	s := 4000.0 * 4000
	got := discreteGaussianDelta(eps, s, k)
	cont := analyticGaussianDelta(eps, float64(k), math.Sqrt(s))
	if math.Abs(got-cont) > 1e-6*cont {
		t.Errorf("σ = 4000, k = 1000: discrete δ %.9g, continuous %.9g", got, cont)
	}
}

func bigDiscreteGaussianDelta(eps, s float64, k int64) float64 {
	const prec = 200
	f := func(x float64) *big.Float { return new(big.Float).SetPrec(prec).SetFloat64(x) }
	span := int64(60*math.Sqrt(s)) + 10 + k
	memo := map[int64]*big.Float{}
	q := func(y int64) *big.Float {
		if y < 0 {
			y = -y
		}
		if v, ok := memo[y]; ok {
			return v
		}
		v := bigfloat.Exp(f(-float64(y*y) / (2 * s)))
		memo[y] = v
		return v
	}
	z := f(0)
	for y := -span; y <= span; y++ {
		z.Add(z, q(y))
	}
	ee := bigfloat.Exp(f(eps))
	d := f(0)
	for y := -span; y <= span; y++ {
		term := new(big.Float).SetPrec(prec).Mul(ee, q(y-k))
		term.Sub(q(y), term)
		if term.Sign() > 0 {
			d.Add(d, term)
		}
	}
	d.Quo(d, z)
	v, _ := d.Float64()
	return v
}

// TestGaussianReleaseDiscrete: Release of the analytic Gaussian mechanism
// (1, 10⁻⁵, 1) goes through the discrete Gaussian; every output is a multiple
// of the grid, the accounted cost is below 0.2%, and 2·10⁵ releases of 0.3
// have mean and standard deviation within 5.3 standard errors of the
// discrete law's (false-failure rate ≈ 10⁻⁷ each).
func TestGaussianReleaseDiscrete(t *testing.T) {
	m, err := AnalyticGaussianMechanism(Params{Epsilon: 1, Delta: 1e-5, Sensitivity: 1})
	if err != nil {
		t.Fatal(err)
	}
	sigma := m.Dist.(*Gaussian).Sigma
	dg, err := DiscreteGaussianFor(sigma, m.Params, 0)
	if err != nil {
		t.Fatal(err)
	}
	if dg.SigmaFactor < 1 || dg.SigmaFactor > 1.002 || dg.Granularity != 0x1p-10 || dg.GridSensitivity != 1025 {
		t.Fatalf("calibration %+v (σ = %g)", dg, sigma)
	}
	if d := discreteGaussianDelta(1, float64(dg.Variance), dg.GridSensitivity); d > 1e-5 {
		t.Fatalf("discrete δ %g > 1e-5", d)
	}
	src := NewSeededSource(11)
	const n = 200_000
	var sum, sum2 float64
	for i := 0; i < n; i++ {
		x, err := m.Release(0.3, src, ReleaseOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if k := x / dg.Granularity; k != math.Trunc(k) {
			t.Fatalf("release %v is not a multiple of %g", x, dg.Granularity)
		}
		sum += x
		sum2 += (x - 0.3) * (x - 0.3)
	}
	sd := dg.Granularity * math.Sqrt(float64(dg.Variance)) // discrete σ ≈ continuous for σ_Z ≫ 1
	mean := sum / n
	center := math.RoundToEven(0.3/dg.Granularity) * dg.Granularity
	if math.Abs(mean-center) > 5.3*sd/math.Sqrt(n) {
		t.Errorf("mean %v, want %v ± %v", mean, center, 5.3*sd/math.Sqrt(n))
	}
	if got := math.Sqrt(sum2 / n); math.Abs(got-sd) > 5.3*sd/math.Sqrt(2*n) {
		t.Errorf("std %v, want %v", got, sd)
	}
}

// TestLogCR checks the correctly rounded logarithm independently of
// bigfloat.Log: y = logCR(x) is the float64 nearest ln x iff x lies between
// exp(y − ulp/2) and exp(y + ulp/2), evaluated with bigfloat.Exp at 300 bits.
func TestLogCR(t *testing.T) {
	src := NewSeededSource(5)
	xs := []float64{0.5, 2, math.SmallestNonzeroFloat64, math.MaxFloat64, math.Nextafter(1, 0), math.Nextafter(1, 2), 1e-300}
	for i := 0; i < 300; i++ {
		xs = append(xs, uniform01(src))
	}
	differ := 0
	for _, x := range xs {
		y := logCR(x)
		if y != math.Log(x) {
			differ++
		}
		ulp := math.Nextafter(math.Abs(y), math.Inf(1)) - math.Abs(y)
		if y != 0 {
			lo := new(big.Float).SetPrec(300).SetFloat64(y)
			hi := new(big.Float).SetPrec(300).SetFloat64(y)
			h := new(big.Float).SetPrec(300).SetFloat64(ulp / 2)
			lo.Sub(lo, h)
			hi.Add(hi, h)
			bx := new(big.Float).SetPrec(300).SetFloat64(x)
			if bigfloat.Exp(lo).Cmp(bx) > 0 || bigfloat.Exp(hi).Cmp(bx) < 0 {
				t.Errorf("logCR(%g) = %v is not the nearest float64 to ln x", x, y)
			}
		}
	}
	t.Logf("math.Log differs from the correctly rounded value on %d of %d arguments", differ, len(xs))
}

// TestSnappingChiSquare: 10⁶ snapped Laplace releases (λ = 3, Λ = 4, v = 2.2,
// correctly rounded logarithm) against Pr[output = 4t] = F(4t + 2 − v) −
// F(4t − 2 − v) of the Laplace CDF; χ² at false-failure rate 10⁻⁶. (Clamping at
// B = 2³⁰Δ has probability e^{−2³⁰/2}: negligible.)
func TestSnappingChiSquare(t *testing.T) {
	m, _ := LaplaceMechanism(Params{Epsilon: 0.5, Sensitivity: 1.5})
	lap := m.Dist.(*Laplace)
	const v = 2.2
	const n = 1_000_000
	src := NewSeededSource(1012)
	counts := map[int64]int{}
	for i := 0; i < n; i++ {
		y, err := m.Release(v, src, ReleaseOptions{})
		if err != nil {
			t.Fatal(err)
		}
		counts[int64(y/4)]++
	}
	pmf := func(k int64) float64 { return lap.CDF(4*float64(k)+2-v) - lap.CDF(4*float64(k)-2-v) }
	stat, df := chiSquare(counts, pmf, -12, 12, n)
	if crit := chiSquareCrit(df, 1e-6); stat > crit {
		t.Fatalf("χ² = %.1f > %.1f (df %d)", stat, crit, df)
	}
	t.Logf("χ² = %.1f (df %d, critical %.1f)", stat, df, chiSquareCrit(df, 1e-6))
}
