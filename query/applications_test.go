package query

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/privopt/privopt/chance"
	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/noise"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/ipm"
	"github.com/privopt/privopt/sparse"
)

// monotoneData draws the synthetic data of Dvorkin et al. Section 4.3.1:
// y = 1ᵀφ(x) + z, φ(x) = (x, ½(x−5)³), x ~ U(0, 10), z ~ N(0, 15) (variance 15).
func monotoneData(rng *rand.Rand, n int) (xs, ys []float64) {
	for i := 0; i < n; i++ {
		x := 10 * rng.Float64()
		xs = append(xs, x)
		ys = append(ys, x+0.5*math.Pow(x-5, 3)+math.Sqrt(15)*rng.NormFloat64())
	}
	return xs, ys
}

// monotoneQP is program (27),
//
//	minimize Σ_i (y_i − wᵀφ(x_i))² + λ‖w‖²  subject to  C w ≥ 0,
//
// with rows C_r = φ'(u_r) = (1, 1.5(u_r − 5)²). The paper uses u = 1, 9 and
// prints C = [[1, 36.75], [1, 48]], which is not φ' of its φ: φ'(1) = φ'(9) =
// (1, 24), a single constraint. We take u = 1, 5, which gives two distinct rows,
// (1, 24) and (1, 0) (monotone at the cubic's flat point needs w₁ ≥ 0).
func monotoneQP(xs, ys []float64, lambda float64) *solver.Problem {
	var g [2][2]float64
	var h [2]float64
	r := 0.0
	for i, x := range xs {
		phi := [2]float64{x, 0.5 * math.Pow(x-5, 3)}
		for a := 0; a < 2; a++ {
			for b := 0; b < 2; b++ {
				g[a][b] += phi[a] * phi[b]
			}
			h[a] += phi[a] * ys[i]
		}
		r += ys[i] * ys[i]
	}
	pt := sparse.NewTriplets(2, 2, 3)
	pt.Append(0, 0, 2*(g[0][0]+lambda))
	pt.Append(0, 1, 2*g[0][1])
	pt.Append(1, 1, 2*(g[1][1]+lambda))
	a := sparse.NewTriplets(2, 2, 4)
	for row, u := range []float64{1, 5} {
		a.Append(row, 0, -1) // −C w + s = 0
		a.Append(row, 1, -1.5*(u-5)*(u-5))
	}
	return &solver.Problem{P: pt.ToCSC(), Q: []float64{-2 * h[0], -2 * h[1]}, R: r, A: a.ToCSC(), B: []float64{0, 0}, Cones: []cone.Cone{cone.NewNonnegative(2)}}
}

// TestMonotoneRegression reproduces the qualitative result of Section 4.3.1:
// releasing regression weights with Gaussian noise, output perturbation breaks
// the monotonicity constraints in a sizeable fraction of releases while program
// perturbation keeps violations below η = 3%. The sensitivity is estimated with
// Algorithm 1 on the paper's dataset universe (each point moves within the
// ellipse (0.35 r cos t, 8 r sin t)).
func TestMonotoneRegression(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(2023, 1))
	xs, ys := monotoneData(rng, 100)
	const lambda = 1.0
	p := monotoneQP(xs, ys, lambda)

	pair := func(ctx context.Context, rng *rand.Rand, s int) (*solver.Problem, *solver.Problem, error) {
		x2, y2 := make([]float64, len(xs)), make([]float64, len(ys))
		for i := range xs {
			r, th := rng.Float64(), 2*math.Pi*rng.Float64()
			x2[i], y2[i] = xs[i]+0.35*r*math.Cos(th), ys[i]+8*r*math.Sin(th)
		}
		return p, monotoneQP(x2, y2, lambda), nil
	}
	// The sensitivity is sampled on the released w̄* (Gaussian noise at
	// (1, 0.01) calibrated exactly by the analytic Gaussian mechanism; the
	// paper's classical σ needs ε < 1).
	const eta = 0.03
	start := Privacy{PrivacySpec: PrivacySpec{Mechanism: AnalyticGaussian, Epsilon: 1, Delta: 0.01}, Sensitivity: Sensitivity{Value: 1, Norm: 2}}
	sens, err := EstimateSensitivity(ctx, SensitivitySpec{Program: Spec{Query: Identity(0, 1), Privacy: start,
		Chance: chance.Spec{Approximation: chance.Approximation{Method: chance.Bonferroni, Eta: eta, Safety: chance.Gaussian}}},
		Norm: 2, Gamma: 0.05, Beta: 0.1, Pair: pair, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	if sens.Samples != 199 || !(sens.Value > 0) {
		t.Fatalf("sensitivity %+v", sens)
	}
	priv := Privacy{PrivacySpec: PrivacySpec{Mechanism: AnalyticGaussian, Epsilon: 1, Delta: 0.01}, Sensitivity: sens}
	m, err := noise.AnalyticGaussianMechanism(noise.Params{Epsilon: 1, Delta: 0.01, Sensitivity: sens.Value})
	if err != nil {
		t.Fatal(err)
	}
	sigma := noise.Std(m.Dist)

	sol, err := Solve(ctx, p, Spec{Query: Identity(0, 1), Privacy: priv,
		Chance: chance.Spec{Approximation: chance.Approximation{Method: chance.Bonferroni, Eta: eta, Safety: chance.Gaussian}}})
	if err != nil {
		t.Fatal(err)
	}
	const n = 100000
	prog, err := sol.Evaluate(ctx, EvalOptions{N: n, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	out, err := OutputPerturbation(ctx, p, Identity(0, 1), priv, EvalOptions{N: n, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	// Program perturbation: Bonferroni with exact Gaussian rows, joint violation
	// ≤ η (5 s.e. slack: false failure < 1e-6).
	if prog.InfeasibleRate > eta+5*math.Sqrt(eta*(1-eta)/n) {
		t.Fatalf("program perturbation violates monotonicity in %.4f of releases, want ≤ %v", prog.InfeasibleRate, eta)
	}
	if out.InfeasibleRate < 2*prog.InfeasibleRate || out.InfeasibleRate < eta {
		t.Fatalf("output perturbation violates in %.4f, program in %.4f: expected output ≫ program", out.InfeasibleRate, prog.InfeasibleRate)
	}
	// Audit the released statistic w̄* (not w*) on fresh pairs: with a sampled
	// sensitivity at γ = 5%, a few exceedances are expected, not many. (On this
	// data both tightened monotonicity rows bind, so w̄* is the vertex they
	// define and does not move at all.)
	au, err := AuditSensitivity(ctx, Spec{Query: Identity(0, 1), Privacy: priv,
		Chance: chance.Spec{Approximation: chance.Approximation{Method: chance.Bonferroni, Eta: eta, Safety: chance.Gaussian}}}, pair, 100, 11, 0)
	if err != nil {
		t.Fatal(err)
	}
	if au.Exceeded > 20 {
		t.Fatalf("audit: %d of %d pairs move w̄* by more than Δ₂ = %v (max %v)", au.Exceeded, au.Samples, au.Assumed, au.Max)
	}
	t.Logf("audit of w̄*: max change %.3f vs Δ₂ %.3f, %d of %d pairs above", au.Max, au.Assumed, au.Exceeded, au.Samples)
	t.Logf("monotone regression: Δ₂ = %.3f (S = %d), σ = %.3f; w* = %.3f, w̄* = %.3f; violations: output %.2f%%, program %.2f%% (η = 3%%); expected loss: output %+.1f%%, program %+.1f%%",
		sens.Value, sens.Samples, sigma, mustSolve(t, p).X, sol.Rule.XBar, 100*out.InfeasibleRate, 100*prog.InfeasibleRate, out.MeanLossPct, prog.MeanLossPct)
}

func mustSolve(t *testing.T, p *solver.Problem) *solver.Solution {
	t.Helper()
	s, err := solveBase(context.Background(), p, nil, solver.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// svmData draws Section 4.2.1's data: class +1 from N((1,1), 0.5·I), class −1
// from N((3,3), 0.5·I), equal proportions.
func svmData(rng *rand.Rand, n int) (x [][2]float64, y []float64) {
	for i := 0; i < n; i++ {
		c, lab := 1.0, 1.0
		if i%2 == 1 {
			c, lab = 3, -1
		}
		s := math.Sqrt(0.5)
		x = append(x, [2]float64{c + s*rng.NormFloat64(), c + s*rng.NormFloat64()})
		y = append(y, lab)
	}
	return x, y
}

// svmQP is program (16): minimize λ‖w‖² + (1/m)1ᵀz subject to
// y_i(wᵀx_i − b) ≥ 1 − z_i, z ≥ 0; variables (w1, w2, b, z1..zm).
func svmQP(x [][2]float64, y []float64, lambda float64) *solver.Problem {
	m := len(x)
	n := 3 + m
	q := make([]float64, n)
	for i := 0; i < m; i++ {
		q[3+i] = 1 / float64(m)
	}
	pt := sparse.NewTriplets(n, n, 2)
	pt.Append(0, 0, 2*lambda)
	pt.Append(1, 1, 2*lambda)
	a := sparse.NewTriplets(2*m, n, 5*m)
	b := make([]float64, 2*m)
	for i := 0; i < m; i++ {
		a.Append(i, 0, -y[i]*x[i][0])
		a.Append(i, 1, -y[i]*x[i][1])
		a.Append(i, 2, y[i])
		a.Append(i, 3+i, -1)
		b[i] = -1
		a.Append(m+i, 3+i, -1)
	}
	return &solver.Problem{P: pt.ToCSC(), Q: q, A: a.ToCSC(), B: b, Cones: []cone.Cone{cone.NewNonnegative(2 * m)}}
}

func minmax(train, test [][2]float64) {
	for f := 0; f < 2; f++ {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, p := range train {
			lo, hi = math.Min(lo, p[f]), math.Max(hi, p[f])
		}
		for _, set := range [][][2]float64{train, test} {
			for i := range set {
				set[i][f] = (set[i][f] - lo) / (hi - lo)
			}
		}
	}
}

// TestSVM reproduces the qualitative result of Section 4.2.1: with the same
// Laplace noise on (w, b), output perturbation's hyperplanes classify poorly
// while program perturbation (vertex method, η = 5%, so a QP for HiGHS instead of
// the paper's Bonferroni cones) grows the nominal hyperplane so that the noise
// barely moves it and keeps the accuracy near the non-private one.
func TestSVM(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(42, 1))
	xtr, ytr := svmData(rng, 100)
	xte, yte := svmData(rng, 1000)
	minmax(xtr, xte)
	// λ = 1e-5 as in the paper. HiGHS's QP solver reports numerical trouble on
	// these instances (and stalls on some perturbed ones), so every QP here is
	// solved by the interior-point solver.
	const lambda = 1e-5
	p := svmQP(xtr, ytr, lambda)
	q := Identity(0, 1, 2)

	pair := func(ctx context.Context, rng *rand.Rand, s int) (*solver.Problem, *solver.Problem, error) {
		x2 := make([][2]float64, len(xtr))
		for i := range xtr {
			r, th := 0.05*rng.Float64(), 2*math.Pi*rng.Float64()
			x2[i] = [2]float64{xtr[i][0] + r*math.Sin(th), xtr[i][1] + r*math.Cos(th)}
		}
		return p, svmQP(x2, ytr, lambda), nil
	}
	limit := solver.Settings{TimeLimit: 20 * time.Second} // fail rather than stall
	qp := ipm.New()
	// The sensitivity is sampled on the released (w̄, b̄), under the release's
	// own calibration (a fixed point: x̄* grows with the noise). The paper
	// sampled the deterministic w*, which the released w̄* outmoves about 6×.
	vertex := chance.Spec{Approximation: chance.Approximation{Method: chance.Vertex, Eta: 0.05, Beta: 0.1}}
	start := Privacy{PrivacySpec: PrivacySpec{Mechanism: Laplace, Epsilon: 1}, Sensitivity: Sensitivity{Value: 1, Norm: 1}}
	sens, err := EstimateSensitivity(ctx, SensitivitySpec{Program: Spec{Query: q, Privacy: start, Settings: limit, Solver: qp, Chance: vertex},
		Norm: 1, Gamma: 0.2, Beta: 0.2, Pair: pair, Seed: 3, ChanceSeed: 5})
	if err != nil {
		t.Fatal(err)
	}
	priv := Privacy{PrivacySpec: PrivacySpec{Mechanism: Laplace, Epsilon: 1}, Sensitivity: sens}
	chanceSpec := vertex
	chanceSpec.Rand = rand.New(rand.NewPCG(5, 0))
	sol, err := Solve(ctx, p, Spec{Query: q, Privacy: priv, Settings: limit, Solver: qp, Chance: chanceSpec})
	if err != nil {
		t.Fatal(err)
	}
	det, err := solveBase(ctx, p, qp, limit)
	if err != nil {
		t.Fatal(err)
	}
	accuracy := func(w1, w2, b float64) float64 {
		ok := 0
		for i, x := range xte {
			if (w1*x[0]+w2*x[1]-b)*yte[i] > 0 {
				ok++
			}
		}
		return float64(ok) / float64(len(xte))
	}
	lap, _ := noise.NewLaplace(sens.Value / priv.Epsilon)
	src := noise.NewSeededSource(9)
	const draws = 500
	stats := func(w [3]float64) (mean, std float64) {
		var s, s2 float64
		for d := 0; d < draws; d++ {
			a := accuracy(w[0]+lap.Sample(src), w[1]+lap.Sample(src), w[2]+lap.Sample(src))
			s += a
			s2 += a * a
		}
		mean = s / draws
		return mean, math.Sqrt(math.Max(s2/draws-mean*mean, 0))
	}
	base := accuracy(det.X[0], det.X[1], det.X[2])
	outMean, outStd := stats([3]float64{det.X[0], det.X[1], det.X[2]})
	progMean, progStd := stats([3]float64{sol.Rule.XBar[0], sol.Rule.XBar[1], sol.Rule.XBar[2]})
	// Feasibility of the SVM constraints under perturbation (z follows its
	// recourse for program perturbation; output perturbation keeps z*).
	// Tolerance 1e-4 relative: w̄* is in the thousands and the interior-point
	// solution meets the rows to about 1e-8 of that scale.
	prog, err := sol.Evaluate(ctx, EvalOptions{N: 20000, Seed: 2, Solver: qp, Tol: 1e-4})
	if err != nil {
		t.Fatal(err)
	}
	out, err := OutputPerturbation(ctx, p, q, priv, EvalOptions{N: 20000, Seed: 2, Solver: qp})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("SVM: Δ₁ = %.2f (S = %d); w* = %.2f, w̄* = %.1f; accuracy non-private %.1f%%, output %.1f%% (sd %.1f), program %.1f%% (sd %.1f); constraint violation: output %.1f%%, program %.2f%% (η = 5%%)",
		sens.Value, sens.Samples, det.X[:3], sol.Rule.XBar[:3], 100*base, 100*outMean, 100*outStd, 100*progMean, 100*progStd, 100*out.InfeasibleRate, 100*prog.InfeasibleRate)
	// Audit on 10 fresh pairs: a sampled sensitivity at γ = 0.2 may be exceeded
	// by a fraction γ of pairs; more than 6 of 10 happens with probability
	// < 1e-3 when the estimate is right (binomial tail), so that fails.
	au, err := AuditSensitivity(ctx, Spec{Query: q, Privacy: priv, Settings: limit, Solver: qp, Chance: vertex}, pair, 10, 1003, 5)
	if err != nil {
		t.Fatal(err)
	}
	if au.Exceeded > 6 {
		t.Fatalf("audit %+v: the sampled sensitivity of w̄* is exceeded far more often than γ", au)
	}
	t.Logf("audit of w̄*: max ℓ1 change %.1f vs Δ₁ %.2f (%d of %d pairs above)", au.Max, au.Assumed, au.Exceeded, au.Samples)
	// With the sensitivity of the released w̄* (about 40× the paper's w*-based
	// estimate here) program perturbation keeps about 90% accuracy (the paper
	// reports 97.6% with the w*-based calibration, which does not cover w̄*);
	// output perturbation at the same noise is a coin flip.
	if base < 0.9 || progMean < 0.85 || outMean > progMean-0.2 {
		t.Fatalf("accuracy: non-private %v, output %v, program %v", base, outMean, progMean)
	}
	if prog.InfeasibleRate > 0.05 || out.InfeasibleRate < 0.2 {
		t.Fatalf("violation: program %v (want ≤ 5%%), output %v", prog.InfeasibleRate, out.InfeasibleRate)
	}
}
