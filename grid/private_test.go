package grid

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/privopt/privopt/internal/shareddata"
	"github.com/privopt/privopt/noise"
)

func TestVertexSampleSize(t *testing.T) {
	// Dvorkin et al., Section 4.1: η = 1%, β = 10%, k = 1 gives S = 523.
	if s := VertexSampleSize(0.01, 0.1, 1); s != 523 {
		t.Errorf("S = %d, want 523", s)
	}
}

func TestParseQuery(t *testing.T) {
	q, err := ParseQuery("gen-subset:1,3,5-7")
	if err != nil || q.Kind != QueryGenSubset || len(q.Gens) != 5 || q.Gens[0] != 0 || q.Gens[4] != 6 {
		t.Errorf("%+v %v", q, err)
	}
	if q.String() != "gen-subset:1,3,5,6,7" {
		t.Errorf("String = %q", q.String())
	}
	for _, bad := range []string{"costs", "gen-subset:", "gen-subset:0", "gen-subset:3-1", "gen-subset:a"} {
		if _, err := ParseQuery(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if m, err := ParseChanceMethod("robust"); err != nil || m != Robust {
		t.Errorf("%v %v", m, err)
	}
}

func loadNet(t *testing.T, path string, dc DCOptions) *Network {
	t.Helper()
	c, err := ReadCase(path)
	if err != nil {
		t.Fatal(err)
	}
	n, err := NewNetwork(c, dc)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestPrivateMeritOrderClosedForm checks testdata/case2_merit.m: with bounded noise
// on [−A, A] the expected cost is C* + A and the recourse is X = (−1/20, 1/20).
func TestPrivateMeritOrderClosedForm(t *testing.T) {
	n := loadNet(t, "testdata/case2_merit.m", DCOptions{})
	for _, f := range []Formulation{PTDF, BTheta} {
		pr, err := n.PrivateRelease(context.Background(), PrivateOptions{
			Alpha: 1, Epsilon: 1, Delta: 0.01, Noise: "truncated-laplace", Method: Robust,
			Formulation: f, Source: noise.NewSeededSource(3)})
		if err != nil {
			t.Fatal(err)
		}
		// Δ = c_max·α = 30; A = (Δ/ε) ln(1 + (e^ε − 1)/(2δ)).
		A := 30 * math.Log(1+(math.E-1)/0.02)
		if !near(pr.Sensitivity, 30, 1e-15) || !near(pr.ZetaHi, A, 1e-12) || !near(pr.ZetaLo, -A, 1e-12) {
			t.Fatalf("Δ = %v, interval [%v, %v], want 30, ±%v", pr.Sensitivity, pr.ZetaLo, pr.ZetaHi, A)
		}
		if !near(pr.NominalCost, 1400, 1e-9) || !near(pr.MeanCost, 1400+A, 1e-7) {
			t.Errorf("%v: C* = %v, E cost = %v, want 1400, %v", f, pr.NominalCost, pr.MeanCost, 1400+A)
		}
		if !near(pr.X[0], -1.0/20, 1e-7) || !near(pr.X[1], 1.0/20, 1e-7) {
			t.Errorf("%v: X = %v", f, pr.X)
		}
		// The released value is the cost of the dispatch behind it.
		var cost float64
		for g, p := range pr.Dispatch {
			cost += n.Case.Costs[g].Eval(p)
		}
		if !near(cost, pr.Released, 1e-9) || !pr.Feasible {
			t.Errorf("released %v, cost of dispatch %v, feasible %v", pr.Released, cost, pr.Feasible)
		}
		// Query range: cheapest 1400, dearest 100 MW all from gen 2 → 3000.
		if _, _, err := pr.QueryRange(context.Background()); err != nil {
			t.Fatal(err)
		}
		if !near(pr.QueryMin, 1400, 1e-9) || !near(pr.QueryMax, 3000, 1e-9) {
			t.Errorf("query range [%v, %v], want [1400, 3000]", pr.QueryMin, pr.QueryMax)
		}
	}
}

// TestPrivateRobustInvariants checks, on 5_pjm and 57_ieee with Laplace noise
// and vertex sampling, the recourse constraints (cᵀX = 1, Σ X = 0) and, with an
// independent DC power flow, that the dispatch is feasible at both ends of the
// noise interval; the PTDF and B-θ programs must agree on the expected cost.
func TestPrivateRobustInvariants(t *testing.T) {
	for _, name := range []string{"pglib_opf_case5_pjm", "pglib_opf_case57_ieee"} {
		n := loadNet(t, shareddata.Path(t, "pglib/"+name+".m"), PowerModelsDC())
		var costs []float64
		for _, f := range []Formulation{PTDF, BTheta} {
			pr, err := n.PrivateRelease(context.Background(), PrivateOptions{Alpha: 1, Epsilon: 1, Formulation: f, Source: noise.NewSeededSource(11)})
			if err != nil {
				t.Fatal(err)
			}
			costs = append(costs, pr.MeanCost)
			var cx, sx float64
			for g, x := range pr.X {
				cx += pr.Cost[g] * x
				sx += x
			}
			if !near(cx, 1, 1e-7) || math.Abs(sx) > 1e-7 {
				t.Errorf("%s: cᵀX = %v, ΣX = %v", name, cx, sx)
			}
			if pr.MeanCost < pr.NominalCost-1e-6 {
				t.Errorf("%s: expected private cost %v below C* %v", name, pr.MeanCost, pr.NominalCost)
			}
			for _, z := range []float64{pr.ZetaLo, pr.ZetaHi} {
				p := make([]float64, len(pr.PBar))
				for g := range p {
					p[g] = pr.PBar[g] + pr.X[g]*z
				}
				_, flow := n.PowerFlow(p)
				checkDispatchFeasible(t, name, n, &OPFSolution{Dispatch: p, Flow: flow}, nil)
			}
			if !(pr.FeasibleLo <= pr.ZetaLo && pr.FeasibleHi >= pr.ZetaHi) {
				t.Errorf("%s: feasible interval [%v, %v] does not contain [%v, %v]", name, pr.FeasibleLo, pr.FeasibleHi, pr.ZetaLo, pr.ZetaHi)
			}
		}
		if !near(costs[0], costs[1], 1e-6) {
			t.Errorf("%s: PTDF %v vs B-θ %v", name, costs[0], costs[1])
		}
	}
}

// TestPrivateEvaluate runs the Monte Carlo comparison on 5_pjm. With a fixed seed
// the outcome is deterministic; the bounds below hold for all but a negligible
// fraction of seeds: program infeasibility P(ζ ∉ [ζ_lo, ζ_hi]) is ≤ 1% with
// probability ≥ 90% over the 523 vertex samples (Prop. 3.3) and we allow 3%;
// output infeasibility is P(noise < 0) = 50%, and 45%–55% with N = 4000 is
// a ±6.3σ band (false failure < 1e-9).
func TestPrivateEvaluate(t *testing.T) {
	n := loadNet(t, shareddata.Path(t, "pglib/pglib_opf_case5_pjm.m"), PowerModelsDC())
	pr, err := n.PrivateRelease(context.Background(), PrivateOptions{Alpha: 3, Epsilon: 1, Source: noise.NewSeededSource(5)})
	if err != nil {
		t.Fatal(err)
	}
	ev, err := pr.Evaluate(context.Background(), EvaluateOptions{N: 4000, InputN: 200, Source: noise.NewSeededSource(6)})
	if err != nil {
		t.Fatal(err)
	}
	if ev.Program.InfeasiblePct > 3 {
		t.Errorf("program infeasible %.2f%%", ev.Program.InfeasiblePct)
	}
	if ev.Output.InfeasiblePct < 45 || ev.Output.InfeasiblePct > 55 {
		t.Errorf("output infeasible %.2f%%", ev.Output.InfeasiblePct)
	}
	if ev.Input.InfeasiblePct < 30 || ev.Input.InfeasiblePct > 70 || ev.Input.N != 200 {
		t.Errorf("input infeasible %.2f%% of %d", ev.Input.InfeasiblePct, ev.Input.N)
	}
	// Program loss: E[cost] − C* is exact (cᵀX = 1, E ζ = 0); the sample mean of
	// 4000 Laplace draws with scale 120 has std 120·√2/√4000 ≈ 2.7 $/h.
	want := 100 * (pr.MeanCost - pr.NominalCost) / pr.NominalCost
	if math.Abs(ev.Program.LossPct-want) > 100*5*2.7/pr.NominalCost {
		t.Errorf("program loss %.4f%%, want %.4f%%", ev.Program.LossPct, want)
	}
	if ev.Program.CVaRPct <= ev.Program.LossPct {
		t.Errorf("CVaR %.3f ≤ mean %.3f", ev.Program.CVaRPct, ev.Program.LossPct)
	}
}

// TestPrivateBoundedNoiseNeverInfeasible: truncated Laplace noise with the robust
// method gives 0 infeasible releases in 10⁴ realizations (a guarantee, not a
// statistical statement), and the expected loss is compared with the analytic
// Gaussian at the same (ε, δ).
func TestPrivateBoundedNoiseNeverInfeasible(t *testing.T) {
	n := loadNet(t, shareddata.Path(t, "pglib/pglib_opf_case24_ieee_rts.m"), PowerModelsDC())
	var pr *Private
	for _, nz := range []string{"optimal", "truncated-laplace"} {
		var err error
		pr, err = n.PrivateRelease(context.Background(), PrivateOptions{Alpha: 1, Epsilon: 1, Delta: 1e-4, Noise: nz, Method: Robust, Source: noise.NewSeededSource(8)})
		if err != nil {
			t.Fatal(err)
		}
		ev, err := pr.Evaluate(context.Background(), EvaluateOptions{N: 10000, ProgramOnly: true, Source: noise.NewSeededSource(9)})
		if err != nil {
			t.Fatal(err)
		}
		if ev.Program.InfeasiblePct != 0 {
			t.Errorf("%s: robust program infeasible %.3f%%", nz, ev.Program.InfeasiblePct)
		}
		lo, hi := pr.Mechanism.Dist.Support()
		if pr.ZetaLo != lo || pr.ZetaHi != hi {
			t.Errorf("%s: interval [%v, %v], support [%v, %v]", nz, pr.ZetaLo, pr.ZetaHi, lo, hi)
		}
	}
	g, err := n.PrivateRelease(context.Background(), PrivateOptions{Alpha: 1, Epsilon: 1, Delta: 1e-4, Noise: "analytic-gaussian", Method: Bonferroni, Source: noise.NewSeededSource(8)})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("24_ieee_rts α=1 (1, 1e-4): truncated Laplace robust loss %.3f%%, analytic Gaussian Bonferroni loss %.3f%%",
		100*(pr.MeanCost-pr.NominalCost)/pr.NominalCost, 100*(g.MeanCost-g.NominalCost)/g.NominalCost)
}

func TestPrivateErrors(t *testing.T) {
	n := loadNet(t, "testdata/case2_merit.m", DCOptions{})
	ctx := context.Background()
	if _, err := n.PrivateRelease(ctx, PrivateOptions{Alpha: 0, Epsilon: 1}); err == nil {
		t.Error("alpha 0 accepted")
	}
	if _, err := n.PrivateRelease(ctx, PrivateOptions{Alpha: 1, Epsilon: 1, Noise: "cauchy"}); err == nil {
		t.Error("unknown noise accepted")
	}
	if _, err := n.PrivateRelease(ctx, PrivateOptions{Alpha: 1, Epsilon: 1, Method: Robust}); err == nil {
		t.Error("robust with unbounded Laplace accepted")
	}
	if _, err := n.PrivateRelease(ctx, PrivateOptions{Alpha: 1, Epsilon: 1, Query: Query{Kind: QueryGenSubset, Gens: []int{5}}}); err == nil {
		t.Error("unknown generator accepted")
	}
	// α so large that gen 1 cannot absorb the noise: support ±A with A/20 > 80.
	_, err := n.PrivateRelease(ctx, PrivateOptions{Alpha: 20, Epsilon: 1, Delta: 0.01, Noise: "truncated-laplace", Method: Robust})
	if !errors.Is(err, ErrPrivateInfeasible) {
		t.Errorf("err = %v, want ErrPrivateInfeasible", err)
	}
}

// TestPrivateGenSubsetCVaR: a generator-subset query on 24_ieee_rts (the
// setting of the paper's CVaR table). The recourse satisfies Σ_{g∈G} X_g = 1 and
// Δ = α; with the same seed (hence the same vertex box) both programs share the
// feasible set, so the CVaR program's solution is feasible for the
// expected-cost program, whose expected cost can only be lower (up to
// tolerances).
func TestPrivateGenSubsetCVaR(t *testing.T) {
	n := loadNet(t, shareddata.Path(t, "pglib/pglib_opf_case24_ieee_rts.m"), PowerModelsDC())
	q, err := ParseQuery("gen-subset:1,2,8,9,12,14,17,19,20,22,23,24,25,27,30,32")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var mean [2]float64
	for k, cq := range []float64{0, 0.05} {
		pr, err := n.PrivateRelease(ctx, PrivateOptions{Query: q, Alpha: 15, Epsilon: 1, CVaRQ: cq, CVaRSamples: 300, Source: noise.NewSeededSource(21)})
		if err != nil {
			t.Fatal(err)
		}
		if pr.Sensitivity != 15 {
			t.Errorf("sensitivity %v, want α = 15", pr.Sensitivity)
		}
		var sx float64
		for _, gi := range q.Gens {
			for g, cg := range n.Gen {
				if cg == gi {
					sx += pr.X[g]
				}
			}
		}
		if !near(sx, 1, 1e-7) {
			t.Errorf("Σ_G X = %v, want 1", sx)
		}
		if !near(pr.Released-pr.MeanQuery, pr.Zeta, 1e-9) {
			t.Errorf("released %v ≠ %v + %v", pr.Released, pr.MeanQuery, pr.Zeta)
		}
		mean[k] = pr.MeanCost
	}
	if mean[0] > mean[1]+1e-6*mean[1] {
		t.Errorf("expected-cost program %v above the CVaR program's expected cost %v", mean[0], mean[1])
	}
}

// TestPrivateLaplaceSnapping: with Laplace noise the release goes through the
// snapping mechanism of package noise: the released cost is a multiple of
// Λ = 64, the smallest power of two above the scale Δ/ε = 50 $/h (demo6, α = 1),
// and the dispatch behind it costs exactly the released value.
func TestPrivateLaplaceSnapping(t *testing.T) {
	n, err := NewNetwork(DemoCase(), DCOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pr, err := n.PrivateRelease(context.Background(), PrivateOptions{Alpha: 1, Epsilon: 1, Source: noise.NewSeededSource(31)})
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; k < 20; k++ {
		if err := pr.Draw(noise.NewSeededSource(uint64(100 + k))); err != nil {
			t.Fatal(err)
		}
		if !pr.FloatSafe || math.Mod(pr.Released, 64) != 0 {
			t.Fatalf("release %v (float-safe %v) is not a multiple of 64", pr.Released, pr.FloatSafe)
		}
		var cost float64
		for g, p := range pr.Dispatch {
			cost += n.Case.Costs[n.Gen[g]].Eval(p)
		}
		if !near(cost, pr.Released, 1e-9) {
			t.Fatalf("dispatch cost %v, released %v", cost, pr.Released)
		}
	}
}
