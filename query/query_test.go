package query

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/privopt/privopt/accounting"
	"github.com/privopt/privopt/chance"
	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/ledger"
	"github.com/privopt/privopt/lindecision"
	"github.com/privopt/privopt/model"
	"github.com/privopt/privopt/noise"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/sparse"
)

// example27 is Dvorkin et al. Example 2.7: minimize c·x subject to ℓ ≤ x ≤ u.
func example27(c, l, u float64) *solver.Problem {
	a := sparse.NewTriplets(2, 1, 2)
	a.Append(0, 0, -1)
	a.Append(1, 0, 1)
	return &solver.Problem{Q: []float64{c}, A: a.ToCSC(), B: []float64{-l, u}, Cones: []cone.Cone{cone.NewNonnegative(2)}}
}

func laplacePrivacy(eps, sens float64) Privacy {
	return Privacy{PrivacySpec: PrivacySpec{Mechanism: Laplace, Epsilon: eps}, Sensitivity: Sensitivity{Value: sens, Norm: 1, Source: Declared}}
}

func within(freq, p float64, n int, z float64) bool {
	return math.Abs(freq-p) <= z*math.Sqrt(p*(1-p)/float64(n))
}

// TestExample27EndToEnd reproduces Example 2.7 and Figure 2: with ℓ private and
// α = 1 adjacency (Δ₁ = 1), ε = 1, output and input perturbation release an
// infeasible x half of the time, program perturbation at most η.
func TestExample27EndToEnd(t *testing.T) {
	ctx := context.Background()
	const l, u, eta = 2.0, 30.0, 0.01
	p := example27(1, l, u)
	priv := laplacePrivacy(1, 1)
	spec := Spec{
		Query:   Identity(0),
		Privacy: priv,
		Chance:  chance.Spec{Approximation: chance.Approximation{Method: chance.Vertex, Eta: eta, Beta: 0.1}, Rand: rand.New(rand.NewPCG(1, 1))},
	}
	sol, err := Solve(ctx, p, spec)
	if err != nil {
		t.Fatal(err)
	}
	// Analytic optimum of the vertex counterpart: x̄* = ℓ − min of the 523 samples.
	lo := sol.Counterpart.Guarantee.Box[0].Lo
	if math.Abs(sol.Rule.XBar[0]-(l-lo)) > 1e-7 || sol.Rule.X.At(0, 0) != 1 {
		t.Fatalf("x̄* = %v, X = %v; want ℓ − lo = %v and X = 1", sol.Rule.XBar[0], sol.Rule.X.At(0, 0), l-lo)
	}
	const n = 100000
	prog, err := sol.Evaluate(ctx, EvalOptions{N: n, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	// Pr[x̄* + ζ < ℓ] = ½·exp(lo) for Laplace(1). 5 s.e.: false failure < 1e-6.
	if truth := 0.5 * math.Exp(lo); !within(prog.InfeasibleRate, truth, n, 5) || prog.InfeasibleRate > eta {
		t.Fatalf("program perturbation infeasible %v, analytic %v, want ≤ η", prog.InfeasibleRate, truth)
	}
	// Expected loss is exact: E[x̃] − x* = x̄* − ℓ = −lo, relative to ℓ.
	if want := 100 * (-lo) / l; math.Abs(prog.MeanLossPct-want) > 5*100/l*math.Sqrt(2.0/n) {
		t.Fatalf("mean loss %v%%, want %v%%", prog.MeanLossPct, want)
	}
	out, err := OutputPerturbation(ctx, p, Identity(0), priv, EvalOptions{N: n, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	if !within(out.InfeasibleRate, 0.5, n, 5) {
		t.Fatalf("output perturbation infeasible %v, want 0.5", out.InfeasibleRate)
	}
	in, err := InputPerturbation(ctx, p, 1, priv, func(z []float64) (*solver.Problem, error) {
		return example27(1, l+z[0], u), nil
	}, EvalOptions{N: 2000, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	if !within(in.InfeasibleRate, 0.5, 2000, 5) {
		t.Fatalf("input perturbation infeasible %v, want 0.5", in.InfeasibleRate)
	}
	t.Logf("Example 2.7 (ℓ=%v, ε=1, Δ=1, η=%v): infeasible program %.4f, output %.4f, input %.4f; program mean loss %.1f%%, CVaR95 %.1f%%",
		l, eta, prog.InfeasibleRate, out.InfeasibleRate, in.InfeasibleRate, prog.MeanLossPct, prog.CVaRLossPct)

	// Release: Q x̄* + ζ̂ with a record stating Theorem 3.6.
	rel, err := sol.Release(ReleaseOptions{Source: noise.NewSeededSource(1)})
	if err != nil {
		t.Fatal(err)
	}
	// ε = 1 plus the snapping term 2⁻¹⁹·ε of one snapped row.
	if rel.Record.Epsilon != 1+0x1p-19 || rel.Record.Mechanism != Laplace || rel.Record.Theorem == "" || rel.Record.Eta != eta || rel.Record.SolverStatus != "optimal" || !rel.Record.FloatingPointSafe {
		t.Fatalf("record %+v", rel.Record)
	}
	// The released values are centred on x̄* with the Laplace variance 2b² plus
	// the snapping grid's rounding variance ≤ 1/12 (grid 1 for b = 1): 20,000
	// releases, 5 standard errors.
	src := noise.NewSeededSource(2)
	const nr = 20000
	var s1, s2 float64
	for i := 0; i < nr; i++ {
		r, err := sol.Release(ReleaseOptions{Source: src})
		if err != nil {
			t.Fatal(err)
		}
		d := r.Value[0] - sol.QueryMean[0]
		s1 += d
		s2 += d * d
	}
	mean, variance := s1/nr, s2/nr-(s1/nr)*(s1/nr)
	if math.Abs(mean) > 5*math.Sqrt(2.0/nr) || math.Abs(variance-2-1.0/12) > 5*math.Sqrt(20.0/nr)+1.0/12 {
		t.Fatalf("released values: mean offset %v, variance %v; want 0 and 2 (+ rounding)", mean, variance)
	}
}

// TestDataIndependentNoise: for identity, sum and weighted-sum queries, two
// different datasets give Q X* = I (identical X on the query rows), so the
// released noise does not depend on the data, and the privacy loss of the
// release is bounded by ε·‖Q x̄*(D) − Q x̄*(D')‖₁/Δ₁ (Theorems 3.6, 3.7).
//
// Problem (a small DC-OPF-like LP): minimize cᵀx s.t. 1ᵀx = d, 0 ≤ x ≤ 40;
// the dataset is the demand d, α-adjacent datasets differ by α in d.
func TestDataIndependentNoise(t *testing.T) {
	ctx := context.Background()
	c := []float64{1, 2, 3, 4}
	build := func(d float64) *solver.Problem {
		n := len(c)
		a := sparse.NewTriplets(1+2*n, n, 3*n)
		b := []float64{d}
		for i := 0; i < n; i++ {
			a.Append(0, i, 1)
			a.Append(1+i, i, 1)    // x_i ≤ 10
			a.Append(1+n+i, i, -1) // x_i ≥ 0
		}
		for i := 0; i < n; i++ {
			b = append(b, 40)
		}
		for i := 0; i < n; i++ {
			b = append(b, 0)
		}
		return &solver.Problem{Q: c, A: a.ToCSC(), B: b, Cones: []cone.Cone{cone.NewZero(1), cone.NewNonnegative(2 * n)}}
	}
	const alpha = 0.5
	for _, tc := range []struct {
		q    Query
		sens float64 // ℓ₁ sensitivity of Q x̄* to α-adjacent demand (analytic: marginal unit)
	}{
		{Identity(0, 1), 2 * alpha},
		{Sum(0, 1), alpha},
		{WeightedSum([]int{0, 1, 2, 3}, c), 4 * alpha},
	} {
		priv := laplacePrivacy(1, tc.sens)
		spec := Spec{Query: tc.q, Privacy: priv, Chance: chance.Spec{Approximation: chance.Approximation{Method: chance.Vertex, Eta: 0.05, Beta: 0.1}, Rand: rand.New(rand.NewPCG(2, 2))}}
		s1, err := Solve(ctx, build(60), spec)
		if err != nil {
			t.Fatalf("%v: %v", tc.q, err)
		}
		spec.Chance.Rand = rand.New(rand.NewPCG(2, 2))
		s2, err := Solve(ctx, build(60+alpha), spec)
		if err != nil {
			t.Fatalf("%v: %v", tc.q, err)
		}
		k := tc.q.K()
		for _, s := range []*Solution{s1, s2} {
			for r, row := range tc.q.Rows {
				for j := 0; j < k; j++ {
					v := 0.0
					for t2, col := range row.Idx {
						v += row.Val[t2] * s.Rule.X.At(col, j)
					}
					if want := b2f(r == j); math.Abs(v-want) > 1e-7 {
						t.Fatalf("%v: (QX)[%d][%d] = %v, want %v", tc.q, r, j, v, want)
					}
				}
			}
		}
		if tc.q.Name == "identity" {
			for _, col := range []int{0, 1} {
				for j := 0; j < k; j++ {
					if s1.Rule.X.At(col, j) != s2.Rule.X.At(col, j) {
						t.Fatalf("identity: X rows differ between datasets")
					}
				}
			}
		}
		// Privacy loss at a grid of outputs y: |ln p_D(y) − ln p_D'(y)| ≤ ε.
		b := tc.sens / priv.Epsilon
		d1 := 0.0
		for j := range s1.QueryMean {
			d1 += math.Abs(s1.QueryMean[j] - s2.QueryMean[j])
		}
		if d1 > tc.sens*(1+1e-6) {
			t.Fatalf("%v: ‖Q x̄*(D) − Q x̄*(D')‖₁ = %v exceeds the sensitivity %v", tc.q, d1, tc.sens)
		}
		for y := -20.0; y <= 60; y += 0.37 {
			loss := 0.0
			for j := range s1.QueryMean {
				loss += (math.Abs(y-s2.QueryMean[j]) - math.Abs(y-s1.QueryMean[j])) / b
			}
			if math.Abs(loss) > priv.Epsilon*(1+1e-6) {
				t.Fatalf("%v: privacy loss %v at y = %v exceeds ε", tc.q, loss, y)
			}
		}
		t.Logf("%v: Q x̄*(D) = %.3f, Q x̄*(D') = %.3f, theorem %q", tc.q, s1.QueryMean, s2.QueryMean, s1.Record().Theorem)
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func TestSensitivitySampleSize(t *testing.T) {
	for _, c := range []struct {
		gamma, beta float64
		want        int
	}{{0.1, 0.1, 99}, {0.05, 0.1, 199}, {0.5, 0.1, 19}} {
		if got, err := SensitivitySampleSize(c.gamma, c.beta); err != nil || got != c.want {
			t.Errorf("S(%v, %v) = %d, %v; want %d", c.gamma, c.beta, got, err, c.want)
		}
	}
}

// TestEstimateSensitivity runs Algorithm 1 on Example 2.7 with α-adjacent lower
// limits ℓ' = ℓ + U(−α, α), measured on the released x̄*: with vertex noise
// x̄*(ℓ) = ℓ − ζ_lo, so every change is |U| < α and the largest of 99 draws lies
// in (0.9α, α) except with probability 0.9⁹⁹ ≈ 3e-5. Started at Δ₀ = α the
// estimate keeps Δ₀; started at α/2 it recalibrates once to 1.1·max|U|.
func TestEstimateSensitivity(t *testing.T) {
	const alpha = 0.8
	pair := func(ctx context.Context, rng *rand.Rand, s int) (*solver.Problem, *solver.Problem, error) {
		l := 1 + rng.Float64()
		return example27(1, l, 10), example27(1, l+alpha*(2*rng.Float64()-1), 10), nil
	}
	var calls int
	prog := Spec{Query: Identity(0), Privacy: Privacy{PrivacySpec: PrivacySpec{Mechanism: Laplace, Epsilon: 1}, Sensitivity: Sensitivity{Value: alpha, Norm: 1}},
		Chance: chance.Spec{Approximation: chance.Approximation{Method: chance.Vertex, Eta: 0.05, Beta: 0.1}}}
	spec := SensitivitySpec{Program: prog, Norm: 1, Gamma: 0.1, Beta: 0.1, Pair: pair, Seed: 42, ChanceSeed: 5, Workers: 1, Progress: func(done, total int) { calls++ }}
	s1, err := EstimateSensitivity(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if s1.Samples != 99 || s1.Source != Sampled || s1.Value != alpha || calls != 99 {
		t.Fatalf("estimate %+v (progress calls %d)", s1, calls)
	}
	spec.Workers = 4
	spec.Progress = nil
	spec.Program.Privacy.Sensitivity.Value = alpha / 2
	s2, err := EstimateSensitivity(context.Background(), spec)
	if err != nil || !(s2.Value > 1.1*0.9*alpha && s2.Value < 1.1*alpha) {
		t.Fatalf("recalibrated estimate %v (%v), want 1.1·max|U| in (%v, %v)", s2.Value, err, 0.99*alpha, 1.1*alpha)
	}
	// The release built on it states probabilistic DP.
	sol, err := Solve(context.Background(), example27(1, 1, 30), Spec{Query: Identity(0),
		Privacy: Privacy{PrivacySpec: PrivacySpec{Mechanism: Laplace, Epsilon: 1}, Sensitivity: s1},
		Chance:  chance.Spec{Approximation: chance.Approximation{Method: chance.Vertex, Eta: 0.05, Beta: 0.1}}})
	if err != nil {
		t.Fatal(err)
	}
	if r := sol.Record(); r.Gamma != 0.1 || r.SensitivityBeta != 0.1 || r.SensitivitySource != Sampled {
		t.Fatalf("record %+v", r)
	}
}

func TestReleaseRefusedByLedger(t *testing.T) {
	sol, err := Solve(context.Background(), example27(1, 1, 30), Spec{Query: Identity(0), Privacy: laplacePrivacy(0.6, 1),
		Chance: chance.Spec{Approximation: chance.Approximation{Method: chance.Vertex, Eta: 0.05, Beta: 0.1}}})
	if err != nil {
		t.Fatal(err)
	}
	l := ledger.New(ledger.NewMemoryStore())
	if err := l.Init(context.Background(), "d", accounting.Budget{Epsilon: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := sol.Release(ReleaseOptions{Ledger: l}); err == nil {
		t.Fatal("a ledger release without a dataset name was accepted")
	}
	rel, err := sol.Release(ReleaseOptions{Ledger: l, Dataset: "d"})
	if err != nil {
		t.Fatal(err)
	}
	// The recorded cost is the record's ε, snapping term included.
	st, err := l.Status(context.Background(), "d")
	if err != nil {
		t.Fatal(err)
	}
	if st.Spent.Epsilon != rel.Record.Epsilon || !(rel.Record.Epsilon > 0.6) || len(st.Releases) != 1 {
		t.Fatalf("ledger status %+v after a release recording ε = %v", st, rel.Record.Epsilon)
	}
	if _, err := sol.Release(ReleaseOptions{Ledger: l, Dataset: "d"}); !errors.Is(err, ledger.ErrBudgetExceeded) {
		t.Fatalf("second release: want ledger.ErrBudgetExceeded, got %v", err)
	}
}

func TestPrivacyInfeasible(t *testing.T) {
	// The feasible interval [1, 2] is far narrower than the Laplace(1) mass at
	// η = 1%: Section 3.4's case (b).
	_, err := Solve(context.Background(), example27(1, 1, 2), Spec{Query: Identity(0), Privacy: laplacePrivacy(1, 1),
		Chance: chance.Spec{Approximation: chance.Approximation{Method: chance.Bonferroni, Eta: 0.01}}})
	if !errors.Is(err, ErrPrivacyInfeasible) {
		t.Fatalf("want ErrPrivacyInfeasible, got %v", err)
	}
	// Structural: x0 + x1 = 3 with x0 released and x1's recourse fixed to zero:
	// no decision can absorb the noise in the equality (Remark 3.5).
	a := sparse.NewTriplets(1, 2, 2)
	a.Append(0, 0, 1)
	a.Append(0, 1, 1)
	p := &solver.Problem{Q: []float64{1, 1}, A: a.ToCSC(), B: []float64{3}, Cones: []cone.Cone{cone.NewZero(1)}}
	_, err = Solve(context.Background(), p, Spec{Query: Identity(0), Privacy: laplacePrivacy(1, 1), Recourse: lindecision.Recourse{Zero: []int{1}},
		Chance: chance.Spec{Approximation: chance.Approximation{Method: chance.Bonferroni, Eta: 0.01}}})
	var inf *chance.InfeasibleError
	if !errors.Is(err, ErrPrivacyInfeasible) || !errors.As(err, &inf) || !errors.Is(err, lindecision.ErrInfeasible) {
		t.Fatalf("structural: want ErrPrivacyInfeasible wrapping lindecision.ErrInfeasible, got %v", err)
	}
}

func TestGaussianCalibration(t *testing.T) {
	sol, err := Solve(context.Background(), example27(1, 1, 200), Spec{Query: Identity(0),
		Privacy: Privacy{PrivacySpec: PrivacySpec{Mechanism: Gaussian, Epsilon: 0.5, Delta: 1e-5}, Sensitivity: Sensitivity{Value: 2, Norm: 2}},
		Chance:  chance.Spec{Approximation: chance.Approximation{Method: chance.Bonferroni, Eta: 0.02}}})
	if err != nil {
		t.Fatal(err)
	}
	sigma := math.Sqrt(2*math.Log(1.25/1e-5)) * 2 / 0.5
	if v := sol.Lifted.Noise().Components[0].Variance(); math.Abs(v-sigma*sigma) > 1e-9*v {
		t.Fatalf("variance %v, want σ² = %v", v, sigma*sigma)
	}
	// Two rows at η/2 each with the Gaussian quantile: x̄* = ℓ + σ·Φ⁻¹(0.99).
	if want := 1 + sigma*2.3263478740408408; math.Abs(sol.Rule.XBar[0]-want) > 1e-6 {
		t.Fatalf("x̄* = %v, want %v", sol.Rule.XBar[0], want)
	}
	if r := sol.Record(); r.Delta != 1e-5 || r.Theorem[:12] != "Theorem 3.11" {
		t.Fatalf("record %+v", r)
	}
	// Gaussian releases go through the exact discrete Gaussian sampler: safe,
	// and the released value lies on its grid.
	rel, err := sol.Release(ReleaseOptions{Source: noise.NewSeededSource(3)})
	if err != nil || !rel.Record.FloatingPointSafe {
		t.Fatalf("gaussian release: %v, record %+v", err, rel)
	}
	if u := rel.Value[0] * 1024; u != math.Round(u) {
		t.Errorf("released %v is not on the 2⁻¹⁰ grid", rel.Value[0])
	}
	_, err = Solve(context.Background(), example27(1, 1, 200), Spec{Query: Identity(0),
		Privacy: Privacy{PrivacySpec: PrivacySpec{Mechanism: Gaussian, Epsilon: 0.5, Delta: 1e-5}, Sensitivity: Sensitivity{Value: 2, Norm: 1}}})
	if !errors.Is(err, ErrInvalid) {
		t.Fatalf("ℓ1 sensitivity with the Gaussian mechanism: want ErrInvalid, got %v", err)
	}
}

var _ lindecision.Distribution = (*noise.Laplace)(nil)

// TestModelGroups builds the diet LP with the model DSL and gives its protein
// constraint (rows can.Rows(c)) its own Bonferroni group while the bound rows
// use the vertex method: the guarantee is the union bound of the two.
func TestModelGroups(t *testing.T) {
	m := model.New("diet")
	x := m.Vector("x", 2)
	m.Bound(x, 0, 12)
	protein := m.GreaterEq("protein", x.Expr().Dot([]float64{3, 1}), model.Const(6))
	m.Minimize(x.Expr().Dot([]float64{2, 1}))
	can, err := m.Canonicalize()
	if err != nil {
		t.Fatal(err)
	}
	cols := Columns(x)
	sol, err := Solve(context.Background(), can.Problem, Spec{
		Query:   Identity(cols...),
		Privacy: laplacePrivacy(2, 1),
		Chance: chance.Spec{
			Approximation: chance.Approximation{Method: chance.Vertex, Eta: 0.02, Beta: 0.1},
			Groups:        []chance.Group{{Rows: chance.RowRange(can.Rows(protein)), Approximation: chance.Approximation{Method: chance.Bonferroni, Eta: 0.01}}},
			Rand:          rand.New(rand.NewPCG(1, 2)),
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	g := sol.Counterpart.Guarantee
	if g.Method != "mixed" || math.Abs(g.Eta-0.03) > 1e-15 || g.Beta != 0.1 {
		t.Fatalf("guarantee %+v", g)
	}
	// The protein row 3x1 + x2 ≥ 6 with noise 3ζ1 + ζ2 (two components, constant
	// coefficients, Cantelli factor): 3x̄1 + x̄2 ≥ 6 + z(0.01)·σ·√10 + m·(3 + 1),
	// σ = b√2, with the snapping margin m = Λ/2 = 0.25 (b = 0.5 = Λ).
	// x1 gives more protein per unit cost, so at the optimum x̄2 sits at its
	// lower vertex margin −lo₂ (the box includes m) and the protein row binds.
	z, _ := chance.Cantelli.Factor(0.01)
	lhs := 3*sol.Rule.XBar[cols[0]] + sol.Rule.XBar[cols[1]]
	if want := 6 + z*math.Sqrt(2)*0.5*math.Sqrt(10) + 0.25*4; math.Abs(lhs-want) > 1e-6 {
		t.Fatalf("protein row %v, want %v (binding)", lhs, want)
	}
	if lo := sol.Counterpart.Guarantee.Groups[0].Box[1].Lo; math.Abs(sol.Rule.XBar[cols[1]]+lo) > 1e-6 {
		t.Fatalf("x̄2 = %v, want −lo₂ = %v", sol.Rule.XBar[cols[1]], -lo)
	}
	ev, err := sol.Evaluate(context.Background(), EvalOptions{N: 100000, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	if ev.InfeasibleRate > 0.03 {
		t.Fatalf("infeasible %v > η = 0.03", ev.InfeasibleRate)
	}
	t.Logf("model groups: x̄ = %.3f, infeasible %.4f (η = 0.03)", sol.Rule.XBar, ev.InfeasibleRate)
}

// TestAuditSensitivity: in Example 2.7 with vertex noise the released x̄*(ℓ) =
// ℓ − lo shifts with ℓ, so the audit over α-adjacent pairs sees changes up to
// α and never above: Δ₁ = α is the right calibration. With an assumed
// sensitivity of α/2 the audit reports the excess.
func TestAuditSensitivity(t *testing.T) {
	const alpha = 0.5
	pair := func(ctx context.Context, rng *rand.Rand, s int) (*solver.Problem, *solver.Problem, error) {
		l := 1 + rng.Float64()
		return example27(1, l, 40), example27(1, l+alpha*(2*rng.Float64()-1), 40), nil
	}
	spec := Spec{Query: Identity(0), Privacy: laplacePrivacy(1, alpha),
		Chance: chance.Spec{Approximation: chance.Approximation{Method: chance.Vertex, Eta: 0.01, Beta: 0.1}}}
	au, err := AuditSensitivity(context.Background(), spec, pair, 50, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	if au.Exceeded != 0 || au.Max > alpha || au.Max < 0.8*alpha {
		t.Fatalf("audit %+v", au)
	}
	spec.Privacy = laplacePrivacy(1, alpha/2)
	au2, err := AuditSensitivity(context.Background(), spec, pair, 50, 1, 2)
	if err != nil || au2.Exceeded == 0 || math.Abs(au2.Max-au.Max) > 1e-9 {
		t.Fatalf("audit with half the sensitivity %+v, %v", au2, err)
	}
}

// Custom noise is certified exactly before use: an optimal density certified
// at (1, 0.2) is accepted at its own parameters, refused when claimed at
// (0.5, 0.2) or (1, 0.01), and with k = 2 rows the record states the composed
// (2ε, 2δ).
func TestCustomNoiseIsCertified(t *testing.T) {
	r, err := noise.Optimize(context.Background(), noise.Params{Epsilon: 1, Delta: 0.2, Sensitivity: 1}, noise.OptimalOptions{Intervals: 40, Symmetric: true, SkipLowerBound: true})
	if err != nil {
		t.Fatal(err)
	}
	p := example27(1, 2, 30)
	spec := func(eps, delta float64, q Query) Spec {
		return Spec{Query: q, Privacy: Privacy{PrivacySpec: PrivacySpec{Mechanism: Custom, Epsilon: eps, Delta: delta}, Noise: r.Dist, Sensitivity: Sensitivity{Value: 1, Norm: 1}},
			Chance: chance.Spec{Approximation: chance.Approximation{Method: chance.Robust}}}
	}
	if _, err := Solve(context.Background(), p, spec(1, 0.2, Identity(0))); err != nil {
		t.Fatalf("certified density refused at its own parameters: %v", err)
	}
	for _, c := range [][2]float64{{0.5, 0.2}, {1, 0.01}} {
		if _, err := Solve(context.Background(), p, spec(c[0], c[1], Identity(0))); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "not (") {
			t.Errorf("claim %v accepted or wrong error: %v", c, err)
		}
	}
	g, _ := noise.NewGaussian(1)
	bad := spec(1, 0.2, Identity(0))
	bad.Privacy.Noise = g
	if _, err := Solve(context.Background(), p, bad); !errors.Is(err, ErrInvalid) {
		t.Errorf("a Gaussian as custom noise was accepted: %v", err)
	}
	p2 := example27two()
	sol, err := Solve(context.Background(), p2, spec(1, 0.2, Identity(0, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if rec := sol.Record(); rec.Epsilon != 2 || math.Abs(rec.Delta-0.4) > 1e-15 || !strings.Contains(rec.Guarantee, "(2, 0.4)") {
		t.Errorf("k = 2 custom record: ε %v δ %v guarantee %q, want (2, 0.4)", rec.Epsilon, rec.Delta, rec.Guarantee)
	}
}

// example27two is two independent copies of Example 2.7 (ℓ = 2, u = 30).
func example27two() *solver.Problem {
	a := sparse.NewTriplets(4, 2, 4)
	a.Append(0, 0, -1)
	a.Append(1, 0, 1)
	a.Append(2, 1, -1)
	a.Append(3, 1, 1)
	return &solver.Problem{Q: []float64{1, 1}, A: a.ToCSC(), B: []float64{-2, 30, -2, 30}, Cones: []cone.Cone{cone.NewNonnegative(4)}}
}
