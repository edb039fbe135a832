package auto_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/grid"
	"github.com/privopt/privopt/internal/shareddata"
	"github.com/privopt/privopt/internal/solvertest"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/auto"
	"github.com/privopt/privopt/solver/highs"
	"github.com/privopt/privopt/solver/ipm"
	"github.com/privopt/privopt/sparse"
)

// randomMidLP is min qᵀx s.t. Ax ≤ b, A 2n × n with 3 N(0, 1) entries per
// row (and one more in a column left empty), b = Ax₀ + s₀, q = −Aᵀy₀ with
// s₀, y₀ > 0: feasible and bounded (y₀ is dual feasible), every cost
// distinct, nnz(A) ≈ 7n.
func randomMidLP(seed uint64, n int) *solver.Problem {
	rng := rand.New(rand.NewPCG(seed, uint64(n)))
	m := 2 * n
	t := sparse.NewTriplets(m, n, 3*m+n)
	used := make([]bool, n)
	for i := 0; i < m; i++ {
		for _, j := range rng.Perm(n)[:3] {
			t.Append(i, j, rng.NormFloat64())
			used[j] = true
		}
	}
	for j := range used {
		if !used[j] {
			t.Append(rng.IntN(m), j, rng.NormFloat64())
		}
	}
	return solvertest.PlantedLP(rng, t.ToCSC())
}

// transportLP is the transportation LP of s sources and d sinks with
// integer costs on 1–20 (d(q) ≤ 20 distinct costs over s·d columns):
// Σⱼ xᵢⱼ ≤ supplyᵢ, Σᵢ xᵢⱼ ≥ demandⱼ, x ≥ 0, nnz(A) = 3sd, total supply
// 1.2 × total demand spread evenly (feasible).
func transportLP(seed uint64, s, d int) *solver.Problem {
	rng := rand.New(rand.NewPCG(seed, uint64(s*1000+d)))
	n, m := s*d, s+d+s*d
	t := sparse.NewTriplets(m, n, 3*n)
	q, b := make([]float64, n), make([]float64, m)
	total := 0.0
	for j := 0; j < d; j++ {
		dj := float64(1 + rng.IntN(50))
		b[s+j] = -dj
		total += dj
	}
	for i := 0; i < s; i++ {
		b[i] = 1.2 * total / float64(s)
		for j := 0; j < d; j++ {
			k := i*d + j
			q[k] = float64(1 + rng.IntN(20))
			t.Append(i, k, 1)
			t.Append(s+j, k, -1)
			t.Append(s+d+k, k, -1)
		}
	}
	return &solver.Problem{Q: q, A: t.ToCSC(), B: b, Cones: []cone.Cone{cone.NewNonnegative(m)}}
}

// columnLP is the covering LP min qᵀx s.t. Σ_{j covers i} xⱼ ≥ 1 (n rows),
// x ≥ 0, column j covering rows j, j+7, …, j+7(k−1) mod n: nnz(A) =
// (k+1)·n, costs qⱼ = 1 + (j mod distinct), so d(q) = distinct.
func columnLP(n, k, distinct int) *solver.Problem {
	m := n // constraint rows
	t := sparse.NewTriplets(m+n, n, (k+1)*n)
	q := make([]float64, n)
	b := make([]float64, m+n)
	for j := 0; j < n; j++ {
		for r := 0; r < k; r++ {
			t.Append((j+r*7)%m, j, -1)
		}
		t.Append(m+j, j, -1)
		q[j] = float64(1 + j%distinct)
	}
	for i := 0; i < m; i++ {
		b[i] = -1
	}
	return &solver.Problem{Q: q, A: t.ToCSC(), B: b, Cones: []cone.Cone{cone.NewNonnegative(m + n)}}
}

// TestMidLPRule checks MidLPFavoursIPM at its thresholds: with n = 200
// columns of k constraint nonzeros and a bound each (nnz = (k+1)·200 >
// 2,000), the IPM goes first exactly when d(q)/n ≥ 0.5 and nnz/n ≤ 20.
func TestMidLPRule(t *testing.T) {
	for _, c := range []struct {
		k, distinct int
		want        bool
	}{
		{14, 100, true},  // nnz/n = 15, d(q)/n = 0.5
		{14, 99, false},  // d(q)/n = 0.495
		{19, 200, true},  // nnz/n = 20
		{20, 200, false}, // nnz/n = 21
	} {
		p := columnLP(200, c.k, c.distinct)
		if p.A.Nnz() <= auto.DefaultSmallLPNnz {
			t.Fatalf("k = %d: nnz %d not above DefaultSmallLPNnz", c.k, p.A.Nnz())
		}
		if got := auto.MidLPFavoursIPM(p); got != c.want {
			t.Errorf("k = %d, %d distinct costs (nnz %d): MidLPFavoursIPM = %v, want %v", c.k, c.distinct, p.A.Nnz(), got, c.want)
		}
	}
	// outside the size range the rule does not apply
	if auto.MidLPFavoursIPM(columnLP(100, 5, 100)) { // nnz 600
		t.Error("an LP of 600 nonzeros: MidLPFavoursIPM true, want false (SmallLP's size rule decides)")
	}
	if big := randomMidLP(1, 3500); big.A.Nnz() < auto.DefaultConcurrentNnz || auto.MidLPFavoursIPM(big) { // nnz ≈ 21,000
		t.Errorf("an LP of %d nonzeros (≥ DefaultConcurrentNnz): MidLPFavoursIPM true, want false", big.A.Nnz())
	}
}

// TestMidLPRoute: a random sparse LP of about 3,500 nonzeros (distinct
// costs, 7 nonzeros per column) starts with the IPM on the default route
// and with HiGHS on NewSimplexFirst's; a transportation LP of 3,750
// nonzeros (20 distinct costs over 1,250 columns) starts with HiGHS; a
// warm start keeps HiGHS first. The answers are optimal and agree with HiGHS alone to 1e-6 relative.
func TestMidLPRoute(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name string
		p    *solver.Problem
		want string
	}{
		{"random 500", randomMidLP(1, 500), "ipm"},
		{"random 700", randomMidLP(2, 700), "ipm"},
		{"transport 25×50", transportLP(1, 25, 50), "highs"},
	} {
		nnz := c.p.A.Nnz()
		if nnz <= auto.DefaultSmallLPNnz || nnz >= auto.DefaultConcurrentNnz {
			t.Fatalf("%s: nnz %d outside the mid-size range", c.name, nnz)
		}
		s := auto.New()
		if got := s.Route(c.p)[0].Name(); got != c.want {
			t.Errorf("%s (nnz %d): first backend %s, want %s", c.name, nnz, got, c.want)
		}
		if got := auto.NewSimplexFirst().Route(c.p)[0].Name(); got != "highs" {
			t.Errorf("%s: NewSimplexFirst's first backend %s, want highs", c.name, got)
		}
		sol, err := s.Solve(ctx, c.p, solver.Settings{})
		if err != nil {
			t.Fatal(err)
		}
		ref, err := highs.New().Solve(ctx, c.p, solver.Settings{})
		if err != nil {
			t.Fatal(err)
		}
		if sol.Status != solver.Optimal || ref.Status != solver.Optimal {
			t.Fatalf("%s: auto %v by %s, highs %v; want both optimal", c.name, sol.Status, sol.Solver, ref.Status)
		}
		if sol.Solver != c.want {
			t.Errorf("%s: answered by %s, want %s (%s)", c.name, sol.Solver, c.want, sol.Diagnostic)
		}
		if d := math.Abs(sol.Objective - ref.Objective); d > 1e-6*math.Max(1, math.Abs(ref.Objective)) {
			t.Errorf("%s: objective %.12g, HiGHS %.12g (difference %.3g)", c.name, sol.Objective, ref.Objective, d)
		}
		// a warm start keeps HiGHS first
		warm, err := s.Solve(ctx, c.p, solver.Settings{Warm: &solver.WarmStart{}})
		if err != nil {
			t.Fatal(err)
		}
		if warm.Status != solver.Optimal || warm.Solver != "highs" {
			t.Errorf("%s with a warm start: %v by %s, want optimal by highs", c.name, warm.Status, warm.Solver)
		}
	}
}

// BenchmarkMidLPFavoursIPM is the rule's own cost on the largest
// transportation LP of bench/midlp (6,300 columns, 20 distinct costs) and
// a random LP of 2,600 columns (all costs distinct).
func BenchmarkMidLPFavoursIPM(b *testing.B) {
	for _, c := range []struct {
		name string
		p    *solver.Problem
	}{{"transport60x105", transportLP(1, 60, 105)}, {"random2600", randomMidLP(1, 2600)}} {
		b.Run(c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				auto.MidLPFavoursIPM(c.p)
			}
		})
	}
}

// rayClaimer claims "unbounded" without a ray on every problem with a
// nonzero cost and hands the feasibility problem (q = 0) to the IPM.
type rayClaimer struct{}

func (rayClaimer) Name() string              { return "ray-claimer" }
func (rayClaimer) Supports(k cone.Kind) bool { return k == cone.Zero || k == cone.Nonnegative }
func (rayClaimer) Solve(ctx context.Context, p *solver.Problem, set solver.Settings) (*solver.Solution, error) {
	for _, v := range p.Q {
		if v != 0 {
			return &solver.Solution{Status: solver.DualInfeasible, Solver: "ray-claimer", Diagnostic: "stub answer"}, nil
		}
	}
	return ipm.New().Solve(ctx, p, set)
}

// TestUncertifiedClaimsResolved: min x s.t. x ≥ 1, −x ≥ 0 is primal
// infeasible (y = (1, 1) gives Aᵀy = 0, bᵀy = −1). When the first backend
// claims "unbounded" without a ray and the second "infeasible" without a
// certificate, the route solves the feasibility problem and answers
// PrimalInfeasible with a Farkas certificate that passes CheckCertificate.
func TestUncertifiedClaimsResolved(t *testing.T) {
	tr := sparse.NewTriplets(2, 1, 2)
	tr.Append(0, 0, -1)
	tr.Append(1, 0, 1)
	p := &solver.Problem{Q: []float64{1}, A: tr.ToCSC(), B: []float64{-1, 0}, Cones: []cone.Cone{cone.NewNonnegative(2)}}
	s, err := auto.NewWith(stub{"no-certificate", solver.PrimalInfeasible}, rayClaimer{})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Route(p)[0].Name(); got != "ray-claimer" {
		t.Fatalf("first backend %s, want ray-claimer (a small LP)", got)
	}
	sol, err := s.Solve(context.Background(), p, solver.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if sol.Status != solver.PrimalInfeasible || sol.Y == nil {
		t.Fatalf("got %v (Y %v; %s), want primal infeasible with a certificate", sol.Status, sol.Y, sol.Diagnostic)
	}
	if err := solver.CheckCertificate(p, sol, auto.CertificateTolerance); err != nil {
		t.Errorf("certificate %v fails on p: %v", sol.Y, err)
	}
	if sol.Fallback != "ray-claimer" {
		t.Errorf("fallback %q, want ray-claimer (the claim replaced)", sol.Fallback)
	}
}

// TestMidLPDCOPFKeepsHiGHS: the DC-OPF LPs of PGLib cases in the mid-size
// range keep HiGHS first — the 89-bus PTDF LP (12 generator columns, every
// cost distinct, 369 nonzeros per column) by its column density, the
// 300-bus B-θ LP (d(q)/n = 0.15) by its ties — and the default route's
// objective agrees with HiGHS alone to 1e-6 relative.
func TestMidLPDCOPFKeepsHiGHS(t *testing.T) {
	for _, c := range []struct {
		name string
		f    grid.Formulation
	}{{"89_pegase", grid.PTDF}, {"300_ieee", grid.BTheta}, {"24_ieee_rts", grid.PTDF}} {
		cs, err := grid.ReadCase(shareddata.Path(t, "pglib/pglib_opf_case"+c.name+".m"))
		if err != nil {
			t.Fatal(err)
		}
		nw, err := grid.NewNetwork(cs, grid.DCOptions{})
		if err != nil {
			t.Fatal(err)
		}
		o, err := nw.BuildOPF(grid.OPFOptions{Formulation: c.f, LinearCost: true})
		if err != nil {
			t.Fatal(err)
		}
		cn, err := o.Model.Canonicalize()
		if err != nil {
			t.Fatal(err)
		}
		p := cn.Problem
		if nnz := p.A.Nnz(); nnz <= auto.DefaultSmallLPNnz || nnz >= auto.DefaultConcurrentNnz {
			t.Fatalf("%s %v: nnz %d outside the mid-size range", c.name, c.f, nnz)
		}
		if auto.MidLPFavoursIPM(p) {
			t.Errorf("%s %v: MidLPFavoursIPM true, want false", c.name, c.f)
		}
		s := auto.New()
		if got := s.Route(p)[0].Name(); got != "highs" {
			t.Errorf("%s %v: first backend %s, want highs", c.name, c.f, got)
		}
		ctx := context.Background()
		sol, err := s.Solve(ctx, p, solver.Settings{})
		if err != nil {
			t.Fatal(err)
		}
		ref, err := highs.New().Solve(ctx, p, solver.Settings{})
		if err != nil {
			t.Fatal(err)
		}
		if sol.Status != solver.Optimal || ref.Status != solver.Optimal {
			t.Fatalf("%s %v: auto %v, highs %v; want both optimal", c.name, c.f, sol.Status, ref.Status)
		}
		if d := math.Abs(sol.Objective - ref.Objective); d > 1e-6*math.Max(1, math.Abs(ref.Objective)) {
			t.Errorf("%s %v: objective %.12g, HiGHS %.12g", c.name, c.f, sol.Objective, ref.Objective)
		}
	}
}
