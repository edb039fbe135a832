package learn

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// ridgeNormal solves the normal equations (X̃ᵀX̃/n + λI) w = X̃ᵀy/n.
func ridgeNormal(t *testing.T, s Spec, data Data, lambda float64) []float64 {
	t.Helper()
	a := s.design(data.X)
	n, k := a.Dims()
	var g mat.Dense
	g.Mul(a.T(), a)
	g.Scale(1/float64(n), &g)
	for j := 0; j < k; j++ {
		g.Set(j, j, g.At(j, j)+lambda)
	}
	var h, w mat.VecDense
	h.MulVec(a.T(), mat.NewVecDense(n, data.Y))
	h.ScaleVec(1/float64(n), &h)
	if err := w.SolveVec(&g, &h); err != nil {
		t.Fatal(err)
	}
	return w.RawVector().Data
}

// TestFitPathMatchesFit checks the prepared λ path against independent
// references: the ridge normal equations for the squared loss, and Fit
// (a model rebuilt with Spec.Lambda = λ, solved as a QP) for the hinge loss
// with a free intercept and for the nonnegative, ordered squared loss.
func TestFitPathMatchesFit(t *testing.T) {
	ctx := context.Background()
	lambdas := []float64{1, 0.3, 0.1, 0.03, 0.01}
	rng := rand.New(rand.NewPCG(7, 7))

	s := Spec{Loss: Squared, Intercept: true}
	data := randomData(rng, 60, 3, s)
	path, err := FitPath(ctx, data, s, lambdas)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range path {
		if p.Lambda != lambdas[i] || p.Rebuilt {
			t.Fatalf("point %d: λ = %v, rebuilt %v", i, p.Lambda, p.Rebuilt)
		}
		want := ridgeNormal(t, s, data, p.Lambda)
		// The objective is λ-strongly convex, so an objective within ε of
		// the optimum puts w within √(2ε/λ): with the IPM's relative
		// accuracy 1e-8 (objective ≈ 0.05), 1e-4 in w at λ = 0.01.
		sl := s
		sl.Lambda = p.Lambda
		jp, jw := ermObjective(sl, data, p.W), ermObjective(sl, data, want)
		if jp-jw > 1e-8 {
			t.Fatalf("λ = %v: objective %v, optimum %v", p.Lambda, jp, jw)
		}
		for j := range want {
			if math.Abs(p.W[j]-want[j]) > math.Sqrt(2e-9/p.Lambda) {
				t.Fatalf("λ = %v: w[%d] = %v, normal equations give %v", p.Lambda, j, p.W[j], want[j])
			}
		}
	}

	// Against Fit: objectives agree to 1e-7, and the weights the objective
	// is strongly convex in (all but a free intercept, whose minimizer need
	// not be unique under the hinge loss) to √(2ε/λ) with ε = 1e-8.
	for _, s := range []Spec{
		{Loss: Hinge, Intercept: true, FreeIntercept: true},
		{Loss: Logistic, Intercept: true},
		{Loss: Squared, Nonnegative: true, Ordered: true},
	} {
		data := randomData(rng, 50, 3, s)
		path, err := FitPath(ctx, data, s, lambdas)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range path {
			sl := s
			sl.Lambda = p.Lambda
			want, err := Fit(ctx, data, sl)
			if err != nil {
				t.Fatal(err)
			}
			jp, jw := ermObjective(sl, data, p.W), ermObjective(sl, data, want)
			if math.Abs(jp-jw) > 1e-7 {
				t.Fatalf("%s λ = %v: path objective %v, Fit's %v", s.Loss, p.Lambda, jp, jw)
			}
			if v := Violation(p.W, 3, s); v > 1e-7 {
				t.Fatalf("%s λ = %v: path point violates C by %v", s.Loss, p.Lambda, v)
			}
			for j := 0; j < 3; j++ {
				if math.Abs(p.W[j]-want[j]) > math.Sqrt(2e-8/p.Lambda) {
					t.Fatalf("%s λ = %v: path w[%d] = %v, Fit gives %v", s.Loss, p.Lambda, j, p.W[j], want[j])
				}
			}
		}
	}
}

// ermObjective is (1/n)Σℓ(x̃ᵢᵀw; yᵢ) + (λ/2)‖w‖² (feature weights only with
// FreeIntercept) for the squared, hinge and logistic losses.
func ermObjective(s Spec, data Data, w []float64) float64 {
	a := s.design(data.X)
	n, _ := a.Dims()
	var r mat.VecDense
	r.MulVec(a, mat.NewVecDense(len(w), w))
	j := 0.0
	for i := 0; i < n; i++ {
		switch s.Loss {
		case Hinge:
			j += math.Max(0, 1-data.Y[i]*r.AtVec(i)) / float64(n)
		case Logistic:
			j += math.Log1p(math.Exp(-data.Y[i]*r.AtVec(i))) / float64(n)
		default:
			d := data.Y[i] - r.AtVec(i)
			j += d * d / (2 * float64(n))
		}
	}
	reg := w
	if s.FreeIntercept {
		reg = w[:len(w)-1]
	}
	for _, v := range reg {
		j += s.Lambda / 2 * v * v
	}
	return j
}

// λ ≤ 0 and non-finite λ are rejected with errors naming the value.
func TestFitPathErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	s := Spec{Loss: Squared}
	data := randomData(rng, 10, 2, s)
	for _, l := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		_, err := FitPath(context.Background(), data, s, []float64{1, l})
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), fmt.Sprint(l)) {
			t.Errorf("λ = %v: error %v", l, err)
		}
	}
}
