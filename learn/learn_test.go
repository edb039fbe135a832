package learn

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/privopt/privopt/noise"
	"github.com/privopt/privopt/query"
)

// randomData draws n rows inside the bounds with a linear signal.
func randomData(rng *rand.Rand, n, d int, s Spec) Data {
	x := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	wt := make([]float64, d)
	for j := range wt {
		wt[j] = float64(j+1) / float64(d)
	}
	for i := 0; i < n; i++ {
		row, _ := s.RandomRow(rng, d)
		x.SetRow(i, row)
		t := 0.0
		for j := range row {
			t += wt[j] * row[j]
		}
		switch s.Loss {
		case Logistic, Hinge:
			y[i] = 1
			if t+0.3*rng.NormFloat64() < 0 {
				y[i] = -1
			}
		default:
			y[i] = t + 0.2*rng.NormFloat64()
		}
	}
	c, _ := s.bounds().Clip(Data{X: x, Y: y})
	return c
}

// TestFitRidgeClosedForm checks the model-built ridge fit against the normal
// equations (X̃ᵀX̃/n + λI) w = X̃ᵀy/n.
func TestFitRidgeClosedForm(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	s := Spec{Loss: Squared, Lambda: 0.1, Intercept: true}
	data := randomData(rng, 40, 3, s)
	w, err := Fit(context.Background(), data, s)
	if err != nil {
		t.Fatal(err)
	}
	a := s.design(data.X)
	var g mat.Dense
	g.Mul(a.T(), a)
	g.Scale(1/40.0, &g)
	for j := 0; j < 4; j++ {
		g.Set(j, j, g.At(j, j)+0.1)
	}
	var h mat.VecDense
	h.MulVec(a.T(), mat.NewVecDense(40, data.Y))
	h.ScaleVec(1/40.0, &h)
	var want mat.VecDense
	if err := want.SolveVec(&g, &h); err != nil {
		t.Fatal(err)
	}
	for j := range w {
		if math.Abs(w[j]-want.AtVec(j)) > 1e-6 {
			t.Fatalf("w[%d] = %v, normal equations give %v", j, w[j], want.AtVec(j))
		}
	}
}

// TestFitHuberLogisticAgree checks two losses against references: Huber with
// a threshold larger than every residual equals ridge least squares, and the
// logistic fit satisfies its first-order condition (1/n)Σ −yσ(−y t)x̃ + λw = 0.
func TestFitHuberLogisticAgree(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(3, 4))
	sq := Spec{Loss: Squared, Lambda: 0.2}
	data := randomData(rng, 30, 2, sq)
	w1, err := Fit(ctx, data, sq)
	if err != nil {
		t.Fatal(err)
	}
	hu := sq
	hu.Loss, hu.HuberDelta = Huber, 100
	w2, err := Fit(ctx, data, hu)
	if err != nil {
		t.Fatal(err)
	}
	for j := range w1 {
		if math.Abs(w1[j]-w2[j]) > 1e-5 {
			t.Fatalf("Huber(h=100) w = %v, least squares %v", w2, w1)
		}
	}
	lg := Spec{Loss: Logistic, Lambda: 0.05, Intercept: true}
	cd := randomData(rng, 40, 2, lg)
	w, err := Fit(ctx, cd, lg)
	if err != nil {
		t.Fatal(err)
	}
	a := lg.design(cd.X)
	grad := make([]float64, 3)
	for i := 0; i < 40; i++ {
		tt := 0.0
		for j := 0; j < 3; j++ {
			tt += w[j] * a.At(i, j)
		}
		sg := 1 / (1 + math.Exp(cd.Y[i]*tt))
		for j := 0; j < 3; j++ {
			grad[j] -= cd.Y[i] * sg * a.At(i, j) / 40
		}
	}
	for j := range grad {
		if g := grad[j] + 0.05*w[j]; math.Abs(g) > 1e-5 {
			t.Fatalf("logistic gradient[%d] = %v at w = %v, want 0", j, g, w)
		}
	}
}

// TestCertifiedSensitivitySearch searches adjacent datasets (one row replaced
// within the bounds) for the largest change of w*: 60 random replacements,
// then hill climbing on the replacement row from the best one (random steps
// projected back into the bounds, kept when ‖w*(D′) − w*(D)‖ grows). The
// change must never exceed the certified 2L/(nλ).
func TestCertifiedSensitivitySearch(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name string
		spec Spec
	}{
		{"ridge", Spec{Loss: Squared, Lambda: 0.5, Intercept: true, Bounds: Bounds{X: 1, Y: 1}}},
		{"ridge-nonnegative-l1", Spec{Loss: Squared, Lambda: 0.05, Nonnegative: true, L1Radius: 2, Bounds: Bounds{X: 1, Y: 2}}},
		{"ridge-ordered", Spec{Loss: Squared, Lambda: 0.2, Ordered: true, Bounds: Bounds{X: 2, Y: 1}}},
		{"huber", Spec{Loss: Huber, HuberDelta: 0.5, Lambda: 0.1, Intercept: true, Bounds: Bounds{X: 1, Y: 1}}},
		{"logistic", Spec{Loss: Logistic, Lambda: 0.1, Bounds: Bounds{X: 1, Y: 1}}},
		{"hinge", Spec{Loss: Hinge, Lambda: 0.1, Intercept: true, Bounds: Bounds{X: 1, Y: 1}}},
	}
	short := testing.Short()
	for ci, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(ci), 99))
			const n, d = 12, 3
			data := randomData(rng, n, d, c.spec)
			cert, err := CertifiedSensitivity(c.spec, n)
			if err != nil {
				t.Fatal(err)
			}
			if err := cert.Verify(); err != nil {
				t.Fatalf("certificate does not verify: %v", err)
			}
			w0, err := Fit(ctx, data, c.spec)
			if err != nil {
				t.Fatal(err)
			}
			change := func(i int, x []float64, y float64) float64 {
				w1, err := Fit(ctx, Replace(data, i, x, y), c.spec)
				if err != nil {
					t.Fatal(err)
				}
				return dist2(w0, w1)
			}
			random, climb := 60, 40
			if short {
				random, climb = 15, 10
			}
			best, bi, bx, by := -1.0, 0, []float64(nil), 0.0
			for k := 0; k < random; k++ {
				i := rng.IntN(n)
				x, y := c.spec.RandomRow(rng, d)
				if ch := change(i, x, y); ch > best {
					best, bi, bx, by = ch, i, x, y
				}
			}
			b := c.spec.bounds()
			step := 0.5 * b.X
			for k := 0; k < climb; k++ {
				x := append([]float64(nil), bx...)
				nr := 0.0
				for j := range x {
					x[j] += step * rng.NormFloat64()
					nr += x[j] * x[j]
				}
				if nr = math.Sqrt(nr); nr > b.X {
					for j := range x {
						x[j] *= b.X / nr
					}
				}
				y := by
				if c.spec.Loss == Squared || c.spec.Loss == Huber {
					y = math.Max(-b.Y, math.Min(b.Y, by+step*rng.NormFloat64()))
				} else if rng.IntN(4) == 0 {
					y = -by
				}
				if ch := change(bi, x, y); ch > best {
					best, bx, by = ch, x, y
				} else {
					step *= 0.9
				}
			}
			t.Logf("%s: largest change found %.4g, certified bound %.4g (ratio %.3f)", c.name, best, cert.Bound, best/cert.Bound)
			if best > cert.Bound*(1+1e-6) {
				t.Fatalf("adjacent datasets move w* by %v > certified %v", best, cert.Bound)
			}
			if !(best > 0) {
				t.Fatalf("search found no change at all")
			}
		})
	}
}

// TestVerifierRejects checks that the registered verifier recomputes the
// bound: a certificate with a smaller bound, a smaller L or a wrong ℓ₁
// factor is rejected, and a certified query.Sensitivity validates.
func TestVerifierRejects(t *testing.T) {
	s := Spec{Loss: Squared, Lambda: 0.25, Intercept: true, Bounds: Bounds{X: 2, Y: 3}}
	c, err := CertifiedSensitivity(s, 100)
	if err != nil {
		t.Fatal(err)
	}
	// Closed form: X̃ = √5, R = 3/0.5 = 6, L = √5(3 + 6√5), bound 2L/(100·0.25).
	xt := math.Sqrt(5)
	want := 2 * xt * (3 + 6*xt) / 25
	if math.Abs(c.Bound-want) > 1e-12*want {
		t.Fatalf("bound %v, want %v", c.Bound, want)
	}
	if err := c.Verify(); err != nil {
		t.Fatal(err)
	}
	bad := *c
	bad.Bound *= 0.99
	if err := bad.Verify(); !errors.Is(err, query.ErrCertificate) {
		t.Fatalf("a 1%% smaller bound verified: %v", err)
	}
	bad = *c
	bad.Params = map[string]float64{}
	for k, v := range c.Params {
		bad.Params[k] = v
	}
	bad.Params["Y"] = 4 // a wider target domain than the bound was computed for
	if err := bad.Verify(); err == nil {
		t.Fatal("a certificate whose Y was widened verified")
	}
	l1 := inNorm(c, 1, 3)
	if err := l1.Verify(); err != nil {
		t.Fatalf("ℓ1 certificate: %v", err)
	}
	l1.Bound = c.Bound // without the √k factor
	if err := l1.Verify(); err == nil {
		t.Fatal("an ℓ1 certificate without the √k factor verified")
	}
	qs := query.Sensitivity{Value: c.Bound, Norm: 2, Source: query.Certified, Certificate: c}
	if err := qs.Validate(); err != nil {
		t.Fatalf("certified query.Sensitivity: %v", err)
	}
}

// TestStrategiesGuarantee prepares every strategy on a monotone ridge problem
// and checks what each release states: projection is feasible in every draw
// and certified; program perturbation's weights are labelled sampled; no
// uncertified release prints plain "-DP;".
func TestStrategiesGuarantee(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(5, 6))
	s := Spec{Loss: Squared, Lambda: 0.1, Ordered: true, Bounds: Bounds{X: 1, Y: 1}}
	data := randomData(rng, 60, 3, s)
	for _, st := range Strategies {
		r, err := Prepare(ctx, data, s, st, Privacy{Epsilon: 1, Delta: 1e-5, Mechanism: AnalyticGaussian}, Options{Gamma: 0.2, Beta: 0.2})
		if err != nil {
			t.Fatalf("%s: %v", st, err)
		}
		g := r.Guarantee()
		t.Logf("%s: %s", st, g.Statement)
		switch st {
		case Program:
			if g.Source != "sampled" || g.Samples == 0 {
				t.Fatalf("program perturbation on a constrained set: source %q, want sampled", g.Source)
			}
		default:
			if g.Source != "certified" || g.Certificate == nil {
				t.Fatalf("%s: source %q", st, g.Source)
			}
			if err := g.Certificate.Verify(); err != nil {
				t.Fatalf("%s: %v", st, err)
			}
		}
		for k := 0; k < 20; k++ {
			w, err := r.Draw(ctx, noise.NewSeededSource(uint64(k)))
			if err != nil {
				t.Fatal(err)
			}
			if st != Program {
				if v := Violation(w, 3, s); v > 1e-6 {
					t.Fatalf("%s release %d violates the constraints by %v", st, k, v)
				}
			}
		}
	}
}

// TestSampledSensitivityLeastSquares: λ = 0 has no certificate; the sampled
// route labels itself and errors otherwise.
func TestSampledSensitivityLeastSquares(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(7, 8))
	s := Spec{Loss: Squared}
	data := randomData(rng, 50, 2, s)
	if _, err := Prepare(ctx, data, s, Projection, Privacy{Epsilon: 1}, Options{}); err == nil {
		t.Fatal("λ = 0 without a sampled sensitivity was accepted")
	}
	smp, err := SampledSensitivity(ctx, data, s, 0.1, 0.1, 1)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Prepare(ctx, data, s, Projection, Privacy{Epsilon: 1}, Options{Sampled: smp})
	if err != nil {
		t.Fatal(err)
	}
	g := r.Guarantee()
	if g.Source != "sampled" || g.Samples != smp.Samples {
		t.Fatalf("guarantee %+v", g)
	}
	t.Log(g.Statement)
}

// TestNonnegativeViolation (acceptance): nonnegative ridge with one true
// weight at 0, released at ε = 1, δ = 10⁻⁵ with analytic Gaussian noise.
// Projection: no violation in 10⁵ draws. Program perturbation (η = 0.05,
// Bonferroni with exact single-component quantiles): joint violation ≤ η
// on 10⁵ fresh draws, 5 standard errors of slack (false failure < 10⁻⁶).
// Output perturbation without projection violates often.
func TestNonnegativeViolation(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(11, 12))
	const n, d, draws, eta = 2000, 3, 100000, 0.05
	x := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	s := Spec{Loss: Squared, Lambda: 0.05, Nonnegative: true, Bounds: Bounds{X: 1, Y: 1}}
	for i := 0; i < n; i++ {
		row, _ := s.RandomRow(rng, d)
		x.SetRow(i, row)
		y[i] = 0.8*row[0] + 0.4*row[1] + 0.1*rng.NormFloat64() // w₂ = 0
	}
	data := Data{X: x, Y: y}
	priv := Privacy{Epsilon: 1, Delta: 1e-5, Mechanism: AnalyticGaussian}
	count := func(r *Releaser, k int) float64 {
		bad := 0
		for i := 0; i < k; i++ {
			w, err := r.Draw(ctx, noise.NewSeededSource(uint64(i)))
			if err != nil {
				t.Fatal(err)
			}
			if Violation(w, d, s) > 1e-9 {
				bad++
			}
		}
		return float64(bad) / float64(k)
	}
	proj, err := Prepare(ctx, data, s, Projection, priv, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if v := count(proj, draws); v != 0 {
		t.Fatalf("projection violates in %v of draws", v)
	}
	prog, err := Prepare(ctx, data, s, Program, priv, Options{Eta: eta, DeclareProgram: true})
	if err != nil {
		t.Fatal(err)
	}
	v := count(prog, draws)
	if v > eta+5*math.Sqrt(eta*(1-eta)/draws) {
		t.Fatalf("program perturbation violates in %v > η = %v", v, eta)
	}
	wstar, err := Fit(ctx, data, s)
	if err != nil {
		t.Fatal(err)
	}
	raw := NewReleaser(proj.Guarantee(), func(ctx context.Context, src noise.Source) ([]float64, error) {
		g, _ := noise.NewGaussian(proj.Guarantee().NoiseStd)
		out := make([]float64, len(wstar))
		for j := range out {
			out[j] = wstar[j] + g.Sample(src)
		}
		return out, nil
	})
	vr := count(raw, 20000)
	t.Logf("nonnegative ridge: w* = %.3f, σ = %.3f; violation: output %.2f%%, projection 0, program %.3f%% (η = 5%%)", wstar, proj.Guarantee().NoiseStd, 100*vr, 100*v)
	if vr < 0.2 {
		t.Fatalf("output perturbation violates in only %v", vr)
	}
}

// TestProjectClosedForms checks the closed-form projections against the QP
// (the same set expressed with a redundant ℓ₁ ball, which forces the QP
// route) on random points.
func TestProjectClosedForms(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(21, 22))
	for _, s := range []Spec{{Nonnegative: true}, {Ordered: true}} {
		qp := s
		qp.L1Radius = 1e6
		for k := 0; k < 50; k++ {
			u := make([]float64, 5)
			for j := range u {
				u[j] = rng.NormFloat64()
			}
			a, err := Project(ctx, u, 5, s)
			if err != nil {
				t.Fatal(err)
			}
			b, err := Project(ctx, u, 5, qp)
			if err != nil {
				t.Fatal(err)
			}
			if d := dist2(a, b); d > 1e-5 { // the IPM meets its 1e-8 gap, not 1e-6 in w
				t.Fatalf("%+v: closed form %v, QP %v", s, a, b)
			}
			if Violation(a, 5, s) != 0 {
				t.Fatalf("closed form %v violates", a)
			}
		}
	}
}
