package chance

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/lindecision"
	"github.com/privopt/privopt/noise"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/highs"
	"github.com/privopt/privopt/solver/ipm"
	"github.com/privopt/privopt/sparse"
)

func TestVertexSampleSize(t *testing.T) {
	// Dvorkin et al. Section 4.1: η = 1%, β = 10%, k = 1 gives S = 523.
	s, err := VertexSampleSize(0.01, 0.1, 1)
	if err != nil || s != 523 {
		t.Fatalf("VertexSampleSize(0.01, 0.1, 1) = %d, %v; want 523", s, err)
	}
	// k = 2: ⌈100·1.5820·(3 + 2.3026)⌉ = 839.
	if s, _ := VertexSampleSize(0.01, 0.1, 2); s != 839 {
		t.Fatalf("k = 2: got %d, want 839", s)
	}
	for _, bad := range [][2]float64{{0, 0.1}, {1, 0.1}, {0.1, 0}, {math.NaN(), 0.1}} {
		if _, err := VertexSampleSize(bad[0], bad[1], 1); !errors.Is(err, ErrInvalid) {
			t.Errorf("eta %v beta %v: want ErrInvalid, got %v", bad[0], bad[1], err)
		}
	}
}

func TestScenarioSampleSize(t *testing.T) {
	// d = 1: the condition is (1−η)^N ≤ β, N = ⌈ln β / ln(1−η)⌉.
	for _, c := range []struct{ eta, beta float64 }{{0.01, 0.1}, {0.05, 0.01}, {0.2, 0.5}} {
		want := int(math.Ceil(math.Log(c.beta) / math.Log1p(-c.eta)))
		got, err := ScenarioSampleSize(c.eta, c.beta, 1)
		if err != nil || got != want {
			t.Errorf("eta %v beta %v d 1: got %d, %v; want %d", c.eta, c.beta, got, err, want)
		}
	}
	// d = 3 against a brute-force scan with the direct binomial sum.
	direct := func(n, d int, eta float64) float64 {
		s := 0.0
		for i := 0; i < d; i++ {
			c := 1.0
			for t := 0; t < i; t++ {
				c = c * float64(n-t) / float64(t+1)
			}
			s += c * math.Pow(eta, float64(i)) * math.Pow(1-eta, float64(n-i))
		}
		return s
	}
	want := 3
	for direct(want, 3, 0.05) > 0.01 {
		want++
	}
	if got, _ := ScenarioSampleSize(0.05, 0.01, 3); got != want {
		t.Fatalf("d = 3: got %d, want %d", got, want)
	}
}

func TestSafetyFactors(t *testing.T) {
	for _, c := range []struct {
		s    Safety
		eta  float64
		want float64
	}{
		{Cantelli, 0.05, math.Sqrt(19)},
		{Chebyshev, 0.04, 5},
		{Gaussian, 0.05, 1.6448536269514722},
		{Gaussian, 0.5, 0},
	} {
		got, err := c.s.Factor(c.eta)
		if err != nil || math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%v(%v) = %v, %v; want %v", c.s, c.eta, got, err, c.want)
		}
	}
}

// example27 is Dvorkin et al. Example 2.7: minimize c·x subject to ℓ ≤ x ≤ u,
// in standard form rows −x + s = −ℓ and x + s = u. With u = +Inf only the lower
// row is kept.
func example27(c, l, u float64) *solver.Problem {
	m := 2
	if math.IsInf(u, 1) {
		m = 1
	}
	a := sparse.NewTriplets(m, 1, 2)
	a.Append(0, 0, -1)
	b := []float64{-l}
	if m == 2 {
		a.Append(1, 0, 1)
		b = append(b, u)
	}
	return &solver.Problem{Q: []float64{c}, A: a.ToCSC(), B: b, Cones: []cone.Cone{cone.NewNonnegative(m)}}
}

func identitySpec(d ...lindecision.Distribution) lindecision.Spec {
	q := make([]lindecision.SparseVector, len(d))
	for j := range d {
		q[j] = lindecision.SparseVector{Idx: []int{j}, Val: []float64{1}}
	}
	return lindecision.Spec{Noise: lindecision.Perturbation{Components: d}, Query: q}
}

func solve(t *testing.T, p *solver.Problem, ls lindecision.Spec, cs Spec) (*Result, *Counterpart) {
	t.Helper()
	l, err := lindecision.Lift(p, ls)
	if err != nil {
		t.Fatal(err)
	}
	cp, err := Reformulate(l, cs)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Solve(context.Background(), cp, highs.New(), solver.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	return res, cp
}

// violation estimates Pr[b − A x̃(ζ) ∉ K] with n fresh samples of ζ (nonnegative
// rows only), with tolerance 1e-9.
func violation(p *solver.Problem, rule *lindecision.Rule, pert *lindecision.Perturbation, n int, seed uint64) float64 {
	rng := rand.New(rand.NewPCG(seed, seed^0x5bd1e995))
	f, _ := pert.Factor()
	z := make([]float64, pert.K())
	x := make([]float64, len(rule.XBar))
	ax := make([]float64, p.NumRows())
	bad := 0
	for s := 0; s < n; s++ {
		pert.Sample(z, rng.Uint64, f)
		rule.Apply(x, z)
		p.A.MulVecTo(ax, 1, x, 0)
		for i := range ax {
			if p.B[i]-ax[i] < -1e-9 {
				bad++
				break
			}
		}
	}
	return float64(bad) / float64(n)
}

// binomialOK reports whether an empirical frequency over n samples is within
// z standard errors of p.
func binomialOK(freq, p float64, n int, z float64) bool {
	return math.Abs(freq-p) <= z*math.Sqrt(p*(1-p)/float64(n))
}

const mcSamples = 100000

func TestExample27Vertex(t *testing.T) {
	lap, _ := noise.NewLaplace(1)
	p := example27(1, 1, 20)
	res, cp := solve(t, p, identitySpec(lap), Spec{Approximation: Approximation{Method: Vertex, Eta: 0.01, Beta: 0.1}, Rand: rand.New(rand.NewPCG(7, 7))})
	g := cp.Guarantee
	if g.SampleSize != 523 || g.Kind != Conservative || len(g.Box) != 1 {
		t.Fatalf("guarantee %+v", g)
	}
	lo := g.Box[0].Lo
	// Analytic optimum: x̄* = ℓ − lo (the lower row binds at the box's lower end).
	if want := 1 - lo; math.Abs(res.Rule.XBar[0]-want) > 1e-7 {
		t.Fatalf("x̄* = %v, want ℓ − lo = %v", res.Rule.XBar[0], want)
	}
	// True violation probability of this rule: ½·exp(lo/b) (+ negligible upper tail).
	truth := 0.5 * math.Exp(lo)
	v := violation(p, res.Rule, cp.Lifted.Noise(), mcSamples, 11)
	// 5 standard errors: false-failure probability < 1e-6.
	if !binomialOK(v, truth, mcSamples, 5) || v > 0.01 {
		t.Fatalf("empirical violation %v, analytic %v, want ≤ η = 0.01", v, truth)
	}
	t.Logf("vertex: box lo %.3f, x̄* %.3f, violation %.4f (analytic %.4f)", lo, res.Rule.XBar[0], v, truth)
}

func TestExample27BonferroniExact(t *testing.T) {
	lap, _ := noise.NewLaplace(2)
	// One-sided: the single-component reformulation is exact, violation = η.
	p := example27(1, 1, math.Inf(1))
	res, cp := solve(t, p, identitySpec(lap), Spec{Approximation: Approximation{Method: Bonferroni, Eta: 0.05}})
	if cp.Guarantee.Kind != Exact {
		t.Fatalf("kind %v, want exact", cp.Guarantee.Kind)
	}
	// x̄* = ℓ − F⁻¹(η) = ℓ + b·ln(1/(2η)).
	if want := 1 + 2*math.Log(1/(2*0.05)); math.Abs(res.Rule.XBar[0]-want) > 1e-7 {
		t.Fatalf("x̄* = %v, want %v", res.Rule.XBar[0], want)
	}
	v := violation(p, res.Rule, cp.Lifted.Noise(), mcSamples, 12)
	if !binomialOK(v, 0.05, mcSamples, 5) {
		t.Fatalf("violation %v, want 0.05 ± 5 s.e.", v)
	}
	// Two-sided with u far away: η splits into η/2 per row, x̄* = ℓ + b ln(1/η).
	p2 := example27(1, 1, 40)
	res2, cp2 := solve(t, p2, identitySpec(lap), Spec{Approximation: Approximation{Method: Bonferroni, Eta: 0.05}})
	if want := 1 + 2*math.Log(1/0.05); math.Abs(res2.Rule.XBar[0]-want) > 1e-7 {
		t.Fatalf("two-sided x̄* = %v, want %v", res2.Rule.XBar[0], want)
	}
	if cp2.Guarantee.Kind != Conservative || cp2.Guarantee.RowRisk[0] != 0.025 {
		t.Fatalf("two-sided guarantee %+v", cp2.Guarantee)
	}
	// User weights 3:1 give the lower row η₀ = 0.0375.
	res3, cp3 := solve(t, p2, identitySpec(lap), Spec{Approximation: Approximation{Method: Bonferroni, Eta: 0.05, Weights: map[int]float64{0: 3, 1: 1}}})
	if want := 1 + 2*math.Log(1/(2*0.0375)); math.Abs(res3.Rule.XBar[0]-want) > 1e-7 || math.Abs(cp3.Guarantee.RowRisk[1]-0.0125) > 1e-15 {
		t.Fatalf("weighted: x̄* = %v (want %v), risks %v", res3.Rule.XBar[0], want, cp3.Guarantee.RowRisk)
	}
	truth := 0.025 + 0.5*math.Exp(-(40-res2.Rule.XBar[0])/2)
	v2 := violation(p2, res2.Rule, cp2.Lifted.Noise(), mcSamples, 13)
	if !binomialOK(v2, truth, mcSamples, 5) || v2 > 0.05 {
		t.Fatalf("two-sided violation %v, analytic %v", v2, truth)
	}
}

// Individual chance constraints: on the two-sided example each row gets the
// whole η (x̄* = ℓ + b ln(1/(2η)), the one-sided value), the guarantee reports
// the union bound 2η as the joint risk and says so, and Individual with
// another method or with weights is refused.
func TestBonferroniIndividual(t *testing.T) {
	lap, _ := noise.NewLaplace(2)
	p := example27(1, 1, 40)
	res, cp := solve(t, p, identitySpec(lap), Spec{Approximation: Approximation{Method: Bonferroni, Eta: 0.05, Individual: true}})
	if want := 1 + 2*math.Log(1/(2*0.05)); math.Abs(res.Rule.XBar[0]-want) > 1e-7 {
		t.Fatalf("x̄* = %v, want %v", res.Rule.XBar[0], want)
	}
	g := cp.Guarantee
	if g.RowRisk[0] != 0.05 || g.RowRisk[1] != 0.05 || math.Abs(g.Eta-0.1) > 1e-15 || g.Kind != Conservative || !strings.Contains(g.Note, "union bound 0.1") {
		t.Fatalf("guarantee %+v", g)
	}
	// The lower row is violated with probability exactly η (Monte Carlo).
	v := violation(p, res.Rule, cp.Lifted.Noise(), mcSamples, 16)
	truth := 0.05 + 0.5*math.Exp(-(40-res.Rule.XBar[0])/2)
	if !binomialOK(v, truth, mcSamples, 5) {
		t.Fatalf("violation %v, analytic %v", v, truth)
	}
	for _, a := range []Approximation{{Method: Vertex, Eta: 0.05, Beta: 0.1, Individual: true}, {Method: Bonferroni, Eta: 0.05, Individual: true, Weights: map[int]float64{0: 2}}} {
		if err := a.Validate(); !errors.Is(err, ErrInvalid) {
			t.Fatalf("%+v: want ErrInvalid, got %v", a, err)
		}
	}
}

func TestExample27Robust(t *testing.T) {
	tl, _ := noise.NewTruncatedLaplace(1, 3)
	p := example27(1, 1, 20)
	res, cp := solve(t, p, identitySpec(tl), Spec{Approximation: Approximation{Method: Robust}})
	if cp.Guarantee.Kind != Certain || cp.Guarantee.Eta != 0 {
		t.Fatalf("guarantee %+v", cp.Guarantee)
	}
	if want := 1 + 3.0; math.Abs(res.Rule.XBar[0]-want) > 1e-7 {
		t.Fatalf("x̄* = %v, want ℓ + A = %v", res.Rule.XBar[0], want)
	}
	if v := violation(p, res.Rule, cp.Lifted.Noise(), mcSamples, 14); v != 0 {
		t.Fatalf("violation %v, want 0 (bounded support)", v)
	}
	// Unbounded support is rejected with a clear error.
	lap, _ := noise.NewLaplace(1)
	l, _ := lindecision.Lift(p, identitySpec(lap))
	if _, err := Reformulate(l, Spec{Approximation: Approximation{Method: Robust}}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("robust with Laplace: want ErrInvalid, got %v", err)
	}
}

func TestExample27Scenario(t *testing.T) {
	lap, _ := noise.NewLaplace(1)
	p := example27(1, 1, 20)
	res, cp := solve(t, p, identitySpec(lap), Spec{Approximation: Approximation{Method: Scenario, Eta: 0.01, Beta: 0.1}, Rand: rand.New(rand.NewPCG(8, 8))})
	if cp.Guarantee.SampleSize != 230 { // ⌈ln 0.1 / ln 0.99⌉ for d = 1
		t.Fatalf("scenario sample size %d, want 230", cp.Guarantee.SampleSize)
	}
	v := violation(p, res.Rule, cp.Lifted.Noise(), mcSamples, 15)
	truth := 0.5 * math.Exp(-(res.Rule.XBar[0] - 1))
	if !binomialOK(v, truth, mcSamples, 5) {
		t.Fatalf("violation %v, analytic %v", v, truth)
	}
	// This particular sample set's rule violates slightly more than η: the
	// guarantee holds with confidence 1 − β only (0.099 of sample sets fail,
	// see TestSampledConfidence); the test checks the analytic violation.
	t.Logf("scenario: x̄* %.3f, violation %.4f (η = 0.01 with confidence 0.9)", res.Rule.XBar[0], v)
}

// TestBonferroniSafetyFactors checks the analytic rows with two noise
// components: minimize x1 + x2 subject to x1 + x2 ≥ 1, identity query on both,
// ζ ~ N(0, σ²I). The row's random part is ζ1 + ζ2 (constant coefficients), so
// every safety factor yields a linear row x̄1 + x̄2 ≥ 1 + z·σ√2.
func TestBonferroniSafetyFactors(t *testing.T) {
	a := sparse.NewTriplets(1, 2, 2)
	a.Append(0, 0, -1)
	a.Append(0, 1, -1)
	p := &solver.Problem{Q: []float64{1, 1}, A: a.ToCSC(), B: []float64{-1}, Cones: []cone.Cone{cone.NewNonnegative(1)}}
	sigma := 0.7
	g, _ := noise.NewGaussian(sigma)
	const eta = 0.05
	for _, s := range []Safety{Gaussian, Cantelli, Chebyshev} {
		res, cp := solve(t, p, identitySpec(g, g), Spec{Approximation: Approximation{Method: Bonferroni, Eta: eta, Safety: s}})
		z, _ := s.Factor(eta)
		sum := res.Rule.XBar[0] + res.Rule.XBar[1]
		if want := 1 + z*sigma*math.Sqrt2; math.Abs(sum-want) > 1e-7 {
			t.Fatalf("%v: x̄1 + x̄2 = %v, want %v", s, sum, want)
		}
		v := violation(p, res.Rule, cp.Lifted.Noise(), mcSamples, 16)
		truth := 0.5 * math.Erfc(z/math.Sqrt2) // Pr[N(0,1) > z]
		if !binomialOK(v, truth, mcSamples, 5) {
			t.Fatalf("%v: violation %v, analytic %v", s, v, truth)
		}
		if s == Gaussian && (cp.Guarantee.Kind != Exact || !binomialOK(v, eta, mcSamples, 5)) {
			t.Fatalf("gaussian factor should be exact: kind %v, violation %v", cp.Guarantee.Kind, v)
		}
		if s != Gaussian && (v > eta/4 || cp.Guarantee.Kind != Conservative) {
			t.Fatalf("%v should be conservative, well below η = %v, got %v (%v)", s, eta, v, cp.Guarantee.Kind)
		}
		t.Logf("%v: z = %.3f, violation %.5f (η = %v)", s, z, v, eta)
	}
}

func TestInfeasibleIsTypedResult(t *testing.T) {
	// ℓ = 1, u = 2 with Laplace(1) noise: at η = 1% the box needs a width of
	// about 2·ln(50) ≈ 7.8 > 1, so the counterpart is infeasible.
	lap, _ := noise.NewLaplace(1)
	p := example27(1, 1, 2)
	l, _ := lindecision.Lift(p, identitySpec(lap))
	cp, err := Reformulate(l, Spec{Approximation: Approximation{Method: Vertex, Eta: 0.01, Beta: 0.1}, Rand: rand.New(rand.NewPCG(9, 9))})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Solve(context.Background(), cp, highs.New(), solver.Settings{})
	var inf *InfeasibleError
	if !errors.As(err, &inf) || !errors.Is(err, ErrInfeasible) || inf.Hint() == "" {
		t.Fatalf("want *InfeasibleError, got %v", err)
	}
}

func TestConicBlockVertices(t *testing.T) {
	// A second-order block (t, x1, x2) with t = 3 − 0, x = x̄ + ζ: the counterpart
	// holds one block per box vertex (2² = 4).
	a := sparse.NewTriplets(3, 2, 2)
	a.Append(1, 0, -1)
	a.Append(2, 1, -1)
	p := &solver.Problem{Q: []float64{1, 1}, A: a.ToCSC(), B: []float64{3, 0, 0}, Cones: []cone.Cone{cone.NewSecondOrder(3)}}
	tl, _ := noise.NewTruncatedLaplace(1, 1)
	l, err := lindecision.Lift(p, identitySpec(tl, tl))
	if err != nil {
		t.Fatal(err)
	}
	cp, err := Reformulate(l, Spec{Approximation: Approximation{Method: Robust}})
	if err != nil {
		t.Fatal(err)
	}
	if cp.Stats.Vertices != 4 || len(cp.Problem.Cones) != 4 || cp.Problem.NumRows() != 12 {
		t.Fatalf("stats %+v, cones %v", cp.Stats, cp.Problem.Cones)
	}
	// Each vertex block evaluated at v: (3, x̄1 + ζ1, x̄2 + ζ2).
	v := []float64{0.25, -0.5}
	s := make([]float64, 12)
	cp.Problem.A.MulVecTo(s, -1, v, 0)
	for i := range s {
		s[i] += cp.Problem.B[i]
	}
	seen := map[[2]float64]bool{}
	for blk := 0; blk < 4; blk++ {
		if s[3*blk] != 3 {
			t.Fatalf("block %d head %v, want 3", blk, s[3*blk])
		}
		seen[[2]float64{s[3*blk+1] - v[0], s[3*blk+2] - v[1]}] = true
	}
	for _, z := range [][2]float64{{-1, -1}, {-1, 1}, {1, -1}, {1, 1}} {
		if !seen[z] {
			t.Fatalf("vertex %v missing: %v", z, seen)
		}
	}
	if _, err := Reformulate(l, Spec{Approximation: Approximation{Method: Robust}, MaxVertices: 2}); !errors.Is(err, ErrTooManyVertices) {
		t.Fatalf("want ErrTooManyVertices, got %v", err)
	}
}

// TestSampledConfidence checks the confidence statement of the sampled methods
// on Example 2.7 (one-sided, Laplace(1), ℓ = 1), where the violation of a rule
// is known in closed form: ½·exp(−(x̄ − ℓ)). Over 400 independent sample sets,
// the fraction with violation > η must match (1−η)^N = 0.0991 for the scenario
// method with N = 230 (d = 1 makes the Campi–Garatti bound tight) and stay below
// β for the vertex method. Tolerance: 4 binomial standard errors (false-failure
// probability < 1e-4).
func TestSampledConfidence(t *testing.T) {
	lap, _ := noise.NewLaplace(1)
	p := example27(1, 1, math.Inf(1))
	l, _ := lindecision.Lift(p, identitySpec(lap))
	const trials, eta, beta = 400, 0.01, 0.1
	for _, m := range []Method{Scenario, Vertex} {
		bad := 0
		for s := 0; s < trials; s++ {
			cp, err := Reformulate(l, Spec{Approximation: Approximation{Method: m, Eta: eta, Beta: beta}, Rand: rand.New(rand.NewPCG(uint64(s), 99))})
			if err != nil {
				t.Fatal(err)
			}
			res, err := Solve(context.Background(), cp, highs.New(), solver.Settings{})
			if err != nil {
				t.Fatal(err)
			}
			if 0.5*math.Exp(-(res.Rule.XBar[0]-1)) > eta {
				bad++
			}
		}
		freq := float64(bad) / trials
		switch m {
		case Scenario:
			want := math.Pow(1-eta, 230)
			if !binomialOK(freq, want, trials, 4) {
				t.Fatalf("scenario: %v of sample sets violate more than η, want %v", freq, want)
			}
		case Vertex:
			if freq > beta+4*math.Sqrt(beta*(1-beta)/trials) {
				t.Fatalf("vertex: %v of sample sets violate more than η, want ≤ β = %v", freq, beta)
			}
		}
		t.Logf("%v: %.3f of %d sample sets give violation > η (β = %v)", m, freq, trials, beta)
	}
}

// TestCVaRObjective: minimize x1 + 2x2 + 4x3 subject to x1 + x2 + x3 = 30,
// 0 ≤ x1 ≤ 20, x2, x3 ≥ 0, with an identity query on x1 (X1 = 1, so X2 + X3 = −1
// by Remark 3.5). The cost's random part is −(3 + 2X2)ζ: the expected objective
// ignores it, CVaR (eqs. 12c–13) does not. Checks: the CVaR counterpart's
// optimal value matches an independent Monte Carlo CVaR of its rule (2·10⁵
// samples, 3% tolerance; with a zero random coefficient the CVaR equals the
// mean, so the sample approximation is exact here), and its rule has a lower Monte Carlo CVaR than the expectation-optimal
// rule.
func TestCVaRObjective(t *testing.T) {
	a := sparse.NewTriplets(5, 3, 6)
	a.Append(0, 0, 1)
	a.Append(0, 1, 1)
	a.Append(0, 2, 1)
	a.Append(1, 0, 1)  // x1 ≤ 20
	a.Append(2, 0, -1) // x1 ≥ 0
	a.Append(3, 1, -1) // x2 ≥ 0
	a.Append(4, 2, -1) // x3 ≥ 0
	p := &solver.Problem{Q: []float64{1, 2, 4}, A: a.ToCSC(), B: []float64{30, 20, 0, 0, 0}, Cones: []cone.Cone{cone.NewZero(1), cone.NewNonnegative(4)}}
	lap, _ := noise.NewLaplace(1)
	const alpha = 0.99
	mcCVaR := func(rule *lindecision.Rule) (mean, cvar float64) {
		rng := rand.New(rand.NewPCG(77, 78))
		const n = 200000
		ls := make([]float64, n)
		x := make([]float64, 3)
		for s := range ls {
			z := lap.Quantile(lindecision.Uniform01(rng.Uint64()))
			rule.Apply(x, []float64{z})
			ls[s] = x[0] + 2*x[1] + 4*x[2]
			mean += ls[s]
		}
		sortFloats(ls)
		tail := ls[int(alpha*n):]
		for _, v := range tail {
			cvar += v
		}
		return mean / n, cvar / float64(len(tail))
	}
	// η = 0.2 gives S = 27 samples and a box half-width w ≈ 3.3 below
	// CVaR_0.99 of Laplace(1) = 1 − ln 0.02 ≈ 4.91, so hedging pays: the CVaR rule
	// sets the cost's random coefficient −(3 + 2X2) to zero (X2 = −1.5), while
	// the expectation rule minimizes margins (X3 = 0, X2 = −1).
	vspec := Approximation{Method: Vertex, Eta: 0.2, Beta: 0.1}
	resE, _ := solve(t, p, identitySpec(lap), Spec{Approximation: vspec, Rand: rand.New(rand.NewPCG(1, 5))})
	resC, _ := solve(t, p, identitySpec(lap), Spec{Approximation: vspec, Rand: rand.New(rand.NewPCG(1, 5)), CVaR: &CVaR{Alpha: alpha, Samples: 4000}})
	meanE, cvarE := mcCVaR(resE.Rule)
	meanC, cvarC := mcCVaR(resC.Rule)
	if math.Abs(resC.Objective-cvarC) > 0.03*math.Abs(cvarC) {
		t.Fatalf("CVaR counterpart value %v, Monte Carlo CVaR of its rule %v", resC.Objective, cvarC)
	}
	if math.Abs(resE.Objective-meanE) > 0.01*math.Abs(meanE) {
		t.Fatalf("expected counterpart value %v, Monte Carlo mean %v", resE.Objective, meanE)
	}
	if math.Abs(resE.Rule.X.At(1, 0)+1) > 1e-7 || math.Abs(3+2*resC.Rule.X.At(1, 0)) > 1e-6 {
		t.Fatalf("X2: expectation rule %v (want −1), CVaR rule %v (want −1.5)", resE.Rule.X.At(1, 0), resC.Rule.X.At(1, 0))
	}
	if !(cvarC < cvarE-0.1) || meanC < meanE-1e-6 {
		t.Fatalf("CVaR rule: mean %v CVaR %v; expectation rule: mean %v CVaR %v", meanC, cvarC, meanE, cvarE)
	}
	t.Logf("expectation rule: mean %.3f CVaR99 %.3f (X2 %.3f); CVaR rule: mean %.3f CVaR99 %.3f (X2 %.3f)",
		meanE, cvarE, resE.Rule.X.At(1, 0), meanC, cvarC, resC.Rule.X.At(1, 0))
}

func sortFloats(v []float64) { sort.Float64s(v) }

// TestBonferroniSOC: maximize x̄1 + x̄2 subject to y ≥ x1 + x2 + 1 and y ≤ 5,
// identity query on (x1, x2) with ζ ~ N(0, σ²I), y with free recourse. Both rows
// carry decision-dependent noise coefficients, so Bonferroni builds second-order
// cones: ȳ − x̄1 − x̄2 − 1 ≥ z‖σ(Y − 1)‖ and 5 − ȳ ≥ z‖σY‖ with z = Φ⁻¹(1 − η/2).
// Adding them, the optimum is x̄1 + x̄2 = 4 − zσ√2 (Y on the segment [0, 1]²
// diagonal). Solved by the interior-point solver; violation checked by Monte
// Carlo (each row exact at η/2, joint ≤ η).
func TestBonferroniSOC(t *testing.T) {
	a := sparse.NewTriplets(2, 3, 4)
	a.Append(0, 0, 1) // x1 + x2 − y + s = −1
	a.Append(0, 1, 1)
	a.Append(0, 2, -1)
	a.Append(1, 2, 1) // y + s = 5
	p := &solver.Problem{Q: []float64{-1, -1, 0}, A: a.ToCSC(), B: []float64{-1, 5}, Cones: []cone.Cone{cone.NewNonnegative(2)}}
	const sigma, eta = 0.5, 0.05
	g, _ := noise.NewGaussian(sigma)
	l, err := lindecision.Lift(p, identitySpec(g, g))
	if err != nil {
		t.Fatal(err)
	}
	cp, err := Reformulate(l, Spec{Approximation: Approximation{Method: Bonferroni, Eta: eta, Safety: Gaussian}})
	if err != nil {
		t.Fatal(err)
	}
	if cp.Stats.SOC != 2 {
		t.Fatalf("want 2 second-order cones, got %+v", cp.Stats)
	}
	res, err := Solve(context.Background(), cp, ipm.New(), solver.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	z, _ := Gaussian.Factor(eta / 2)
	if got, want := res.Rule.XBar[0]+res.Rule.XBar[1], 4-z*sigma*math.Sqrt2; math.Abs(got-want) > 1e-5 {
		t.Fatalf("x̄1 + x̄2 = %v, want %v", got, want)
	}
	v := violation(p, res.Rule, l.Noise(), mcSamples, 21)
	if v > eta+5*math.Sqrt(eta*(1-eta)/mcSamples) {
		t.Fatalf("violation %v, want ≤ %v", v, eta)
	}
	t.Logf("SOC Bonferroni: x̄ = %.4f, Y = (%.3f, %.3f), violation %.4f (η = %v)", res.Rule.XBar, res.Rule.X.At(2, 0), res.Rule.X.At(2, 1), v, eta)
}

// TestConicVertexRobust: maximize x̄1 + x̄2 subject to ‖x‖ ≤ 3 (a second-order
// block), identity query with truncated Laplace noise on [−1, 1]². The robust
// counterpart enforces the cone at the four box vertices, which by convexity
// keeps it for the whole box: x̄ = (a, a) with ‖(a+1, a+1)‖ = 3, objective
// 3√2 − 2. Monte Carlo: no violation.
func TestConicVertexRobust(t *testing.T) {
	a := sparse.NewTriplets(3, 2, 2)
	a.Append(1, 0, -1)
	a.Append(2, 1, -1)
	p := &solver.Problem{Q: []float64{-1, -1}, A: a.ToCSC(), B: []float64{3, 0, 0}, Cones: []cone.Cone{cone.NewSecondOrder(3)}}
	tl, _ := noise.NewTruncatedLaplace(1, 1)
	res, cp := solveWith(t, p, identitySpec(tl, tl), Spec{Approximation: Approximation{Method: Robust}}, ipm.New())
	if got, want := res.Rule.XBar[0]+res.Rule.XBar[1], 3*math.Sqrt2-2; math.Abs(got-want) > 1e-6 {
		t.Fatalf("x̄1 + x̄2 = %v, want %v", got, want)
	}
	rng := rand.New(rand.NewPCG(5, 5))
	x := make([]float64, 2)
	for s := 0; s < mcSamples; s++ {
		z := []float64{tl.Quantile(lindecision.Uniform01(rng.Uint64())), tl.Quantile(lindecision.Uniform01(rng.Uint64()))}
		res.Rule.Apply(x, z)
		if math.Hypot(x[0], x[1]) > 3+1e-6 {
			t.Fatalf("sample %d: ‖x̃‖ = %v > 3", s, math.Hypot(x[0], x[1]))
		}
	}
	if cp.Stats.Vertices != 4 {
		t.Fatalf("vertices %d, want 4", cp.Stats.Vertices)
	}
}

// TestGroups: the lower row of Example 2.7 by Bonferroni (exact, η₁ = 2%), the
// upper row by the vertex method (η₂ = 1%, β = 10%): the joint guarantee is the
// union bound η = 3% with confidence 90%.
func TestGroups(t *testing.T) {
	lap, _ := noise.NewLaplace(1)
	p := example27(1, 1, 40)
	res, cp := solve(t, p, identitySpec(lap), Spec{
		Approximation: Approximation{Method: Bonferroni, Eta: 0.02},
		Groups:        []Group{{Rows: []int{1}, Approximation: Approximation{Method: Vertex, Eta: 0.01, Beta: 0.1}}},
		Rand:          rand.New(rand.NewPCG(4, 4)),
	})
	g := cp.Guarantee
	if g.Method != "mixed" || math.Abs(g.Eta-0.03) > 1e-15 || g.Beta != 0.1 || len(g.Groups) != 2 || g.Kind != Conservative {
		t.Fatalf("guarantee %+v", g)
	}
	// Lower row alone under Bonferroni: x̄* = ℓ + ln(1/(2·0.02)).
	if want := 1 + math.Log(1/0.04); math.Abs(res.Rule.XBar[0]-want) > 1e-7 {
		t.Fatalf("x̄* = %v, want %v", res.Rule.XBar[0], want)
	}
	if _, err := Reformulate(cp.Lifted, Spec{Approximation: Approximation{Method: Bonferroni, Eta: 0.02},
		Groups: []Group{{Rows: []int{1}, Approximation: Approximation{Method: Robust}}, {Rows: []int{1}, Approximation: Approximation{Method: Robust}}}}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("row in two groups: want ErrInvalid, got %v", err)
	}
}

func solveWith(t *testing.T, p *solver.Problem, ls lindecision.Spec, cs Spec, s solver.Solver) (*Result, *Counterpart) {
	t.Helper()
	l, err := lindecision.Lift(p, ls)
	if err != nil {
		t.Fatal(err)
	}
	cp, err := Reformulate(l, cs)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Solve(context.Background(), cp, s, solver.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	return res, cp
}

// TestBonferroniCorrelatedGaussian: x1 + x2 ≥ 1 with ζ ~ N(0, Σ),
// Σ = σ²[[1, ρ], [ρ, 1]]: the Gaussian row x̄1 + x̄2 ≥ 1 + z·σ√(2 + 2ρ) is exact.
func TestBonferroniHeuristicKind(t *testing.T) {
	// The Gaussian factor on Laplace noise is reported as no guarantee.
	a := sparse.NewTriplets(1, 2, 2)
	a.Append(0, 0, -1)
	a.Append(0, 1, -1)
	p := &solver.Problem{Q: []float64{1, 1}, A: a.ToCSC(), B: []float64{-1}, Cones: []cone.Cone{cone.NewNonnegative(1)}}
	lap, _ := noise.NewLaplace(1)
	l, _ := lindecision.Lift(p, identitySpec(lap, lap))
	cp, err := Reformulate(l, Spec{Approximation: Approximation{Method: Bonferroni, Eta: 0.05, Safety: Gaussian}})
	if err != nil || cp.Guarantee.Kind != Heuristic {
		t.Fatalf("kind %v (%v), want heuristic", cp.Guarantee.Kind, err)
	}
}

func TestBonferroniCorrelatedGaussian(t *testing.T) {
	a := sparse.NewTriplets(1, 2, 2)
	a.Append(0, 0, -1)
	a.Append(0, 1, -1)
	p := &solver.Problem{Q: []float64{1, 1}, A: a.ToCSC(), B: []float64{-1}, Cones: []cone.Cone{cone.NewNonnegative(1)}}
	const sigma, rho, eta = 0.8, 0.6, 0.05
	g, _ := noise.NewGaussian(sigma)
	ls := identitySpec(g, g)
	ls.Noise.Covariance = mat.NewSymDense(2, []float64{sigma * sigma, rho * sigma * sigma, rho * sigma * sigma, sigma * sigma})
	res, cp := solve(t, p, ls, Spec{Approximation: Approximation{Method: Bonferroni, Eta: eta, Safety: Gaussian}})
	z, _ := Gaussian.Factor(eta)
	if got, want := res.Rule.XBar[0]+res.Rule.XBar[1], 1+z*sigma*math.Sqrt(2+2*rho); math.Abs(got-want) > 1e-7 {
		t.Fatalf("x̄1 + x̄2 = %v, want %v", got, want)
	}
	if v := violation(p, res.Rule, cp.Lifted.Noise(), mcSamples, 31); !binomialOK(v, eta, mcSamples, 5) {
		t.Fatalf("violation %v, want η = %v (exact)", v, eta)
	}
}

// TestScenarioConic: the disk ‖x‖ ≤ 3 of TestConicVertexRobust under Laplace
// noise and the scenario method: one cone copy per sample, empirical violation
// ≤ η (the guarantee holds with confidence 1 − β; this seed is in the good set,
// as the logged value shows).
func TestScenarioConic(t *testing.T) {
	a := sparse.NewTriplets(3, 2, 2)
	a.Append(1, 0, -1)
	a.Append(2, 1, -1)
	p := &solver.Problem{Q: []float64{-1, -1}, A: a.ToCSC(), B: []float64{3, 0, 0}, Cones: []cone.Cone{cone.NewSecondOrder(3)}}
	lap, _ := noise.NewLaplace(0.3)
	res, cp := solveWith(t, p, identitySpec(lap, lap), Spec{Approximation: Approximation{Method: Scenario, Eta: 0.05, Beta: 0.1}, Rand: rand.New(rand.NewPCG(6, 6))}, ipm.New())
	n := cp.Guarantee.SampleSize
	if len(cp.Problem.Cones) != n {
		t.Fatalf("%d cones for %d scenarios", len(cp.Problem.Cones), n)
	}
	rng := rand.New(rand.NewPCG(8, 8))
	x := make([]float64, 2)
	bad := 0
	for s := 0; s < mcSamples; s++ {
		z := []float64{lap.Quantile(lindecision.Uniform01(rng.Uint64())), lap.Quantile(lindecision.Uniform01(rng.Uint64()))}
		res.Rule.Apply(x, z)
		if math.Hypot(x[0], x[1]) > 3+1e-7 {
			bad++
		}
	}
	v := float64(bad) / mcSamples
	if v > 0.05 {
		t.Fatalf("violation %v > η", v)
	}
	t.Logf("scenario SOC: N = %d, x̄ = %.3f, violation %.4f (η = 0.05)", n, res.Rule.XBar, v)
}

// TestCVaRQuadratic: minimize ½x² + x subject to x ≥ 1, x̃ = x̄ + ζ with
// ζ ~ Laplace(0.5), the lower row exact at η = 10%, and pure CVaR_0.9 of the
// objective (rotated second-order cone per sample, interior-point solver). The
// counterpart's value must match a Monte Carlo CVaR of its own rule (2·10⁵
// samples; 4% tolerance covers the S = 3000 sample approximation).
func TestCVaRQuadratic(t *testing.T) {
	a := sparse.NewTriplets(1, 1, 1)
	a.Append(0, 0, -1)
	pt := sparse.NewTriplets(1, 1, 1)
	pt.Append(0, 0, 1)
	p := &solver.Problem{P: pt.ToCSC(), Q: []float64{1}, A: a.ToCSC(), B: []float64{-1}, Cones: []cone.Cone{cone.NewNonnegative(1)}}
	lap, _ := noise.NewLaplace(0.5)
	const alpha = 0.9
	res, cp := solveWith(t, p, identitySpec(lap), Spec{Approximation: Approximation{Method: Bonferroni, Eta: 0.1},
		CVaR: &CVaR{Alpha: alpha, Samples: 3000}, Rand: rand.New(rand.NewPCG(3, 3))}, ipm.New())
	if len(cp.Problem.Cones) < 3000 {
		t.Fatalf("expected one rotated cone per sample, cones %d", len(cp.Problem.Cones))
	}
	rng := rand.New(rand.NewPCG(9, 9))
	const n = 200000
	ls := make([]float64, n)
	for s := range ls {
		x := res.Rule.XBar[0] + lap.Quantile(lindecision.Uniform01(rng.Uint64()))
		ls[s] = 0.5*x*x + x
	}
	sort.Float64s(ls)
	cv := 0.0
	for _, v := range ls[int(alpha*n):] {
		cv += v
	}
	cv /= float64(n - int(alpha*n))
	if math.Abs(res.Objective-cv) > 0.04*cv {
		t.Fatalf("counterpart CVaR %v, Monte Carlo %v", res.Objective, cv)
	}
	if want := 1 + 0.5*math.Log(1/(2*0.1)); math.Abs(res.Rule.XBar[0]-want) > 1e-5 {
		t.Fatalf("x̄* = %v, want the chance bound %v", res.Rule.XBar[0], want)
	}
	t.Logf("quadratic CVaR: counterpart %.4f, Monte Carlo %.4f", res.Objective, cv)
}

// TestReformulateContextCancelled: the sampling loops of the vertex and
// scenario methods stop at a cancelled context with an error wrapping
// context.Canceled (at η = 10⁻⁹ vertex sampling would draw about 2·10⁹
// samples); the scenario method refuses 2·10⁹ scenarios before allocating
// them (it once died of memory); the same specs with a live context and a
// normal η succeed.
func TestReformulateContextCancelled(t *testing.T) {
	lap, _ := noise.NewLaplace(1)
	p := example27(1, 1, 20)
	l, err := lindecision.Lift(p, identitySpec(lap))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, m := range []Method{Vertex, Scenario} {
		spec := Spec{Approximation: Approximation{Method: m, Eta: 1e-9, Beta: 0.1}, Rand: rand.New(rand.NewPCG(1, 1))}
		if m == Scenario {
			// 2.3·10⁹ scenarios exceed MaxRows before any is drawn
			if _, err := ReformulateContext(ctx, l, spec); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "MaxRows") {
				t.Errorf("scenario at η = 1e-9: %v, want ErrInvalid naming MaxRows", err)
			}
			spec.Eta = 1e-5 // 230,000 samples
		}
		if _, err := ReformulateContext(ctx, l, spec); !errors.Is(err, context.Canceled) {
			t.Errorf("%v at η = %g, cancelled context: %v, want context.Canceled", m, spec.Eta, err)
		}
		spec.Eta = 0.01
		if _, err := ReformulateContext(context.Background(), l, spec); err != nil {
			t.Errorf("%v at η = 0.01: %v", m, err)
		}
	}
}
