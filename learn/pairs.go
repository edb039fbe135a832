package learn

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/privopt/privopt/query"
	"github.com/privopt/privopt/solver"
)

// standardForm returns the standard form of the (non-private) problem on
// clipped data and the columns of the weights.
func (s Spec) standardForm(data Data) (*solver.Problem, []int, error) {
	m, w, err := s.build(data, nil)
	if err != nil {
		return nil, nil, &SolveError{What: "build", Err: err}
	}
	can, err := m.Canonicalize()
	if err != nil {
		return nil, nil, &SolveError{What: "canonicalize", Err: err}
	}
	return can.Problem, query.Columns(w), nil
}

// RandomRow draws a row inside the bounds: x uniform in the ball ‖x‖ ≤ X
// (direction Gaussian, radius X·U^{1/d}), y uniform in [−Y, Y], or ±1 for
// classification losses.
func (s Spec) RandomRow(rng *rand.Rand, d int) ([]float64, float64) {
	b := s.bounds()
	x := make([]float64, d)
	nr := 0.0
	for j := range x {
		x[j] = rng.NormFloat64()
		nr += x[j] * x[j]
	}
	r := b.X * math.Pow(rng.Float64(), 1/float64(d)) / math.Sqrt(nr)
	for j := range x {
		x[j] *= r
	}
	y := b.Y * (2*rng.Float64() - 1)
	if s.Loss == Logistic || s.Loss == Hinge {
		y = 1
		if rng.IntN(2) == 0 {
			y = -1
		}
	}
	return x, y
}

// Replace returns a copy of data with row i replaced by (x, y): an adjacent
// dataset.
func Replace(data Data, i int, x []float64, y float64) Data {
	xc := mat.DenseCopyOf(data.X)
	xc.SetRow(i, x)
	yc := append([]float64(nil), data.Y...)
	yc[i] = y
	return Data{X: xc, Y: yc}
}

// adjacentPairs samples adjacent pairs (D, D′) of clipped data: D′ replaces a
// uniformly chosen row of D by RandomRow.
func (s Spec) adjacentPairs(data Data) query.AdjacentPair {
	base, _, baseErr := s.standardForm(data)
	_, d := data.X.Dims()
	return func(ctx context.Context, rng *rand.Rand, sample int) (*solver.Problem, *solver.Problem, error) {
		if baseErr != nil {
			return nil, nil, baseErr
		}
		i := rng.IntN(data.N())
		x, y := s.RandomRow(rng, d)
		p2, _, err := s.standardForm(Replace(data, i, x, y))
		if err != nil {
			return nil, nil, fmt.Errorf("learn: adjacent pair %d (row %d replaced): %w", sample, i, err)
		}
		return base, p2, nil
	}
}

// SampledSensitivity measures the ℓ₂ sensitivity of the minimizer w* (the
// statistic output perturbation releases) on S adjacent pairs, S from
// query.SensitivitySampleSize(γ, β) (Dvorkin et al. Prop. 3.8): the largest
// ‖w*(D) − w*(D′)‖₂ over pairs D′ = D with a uniformly chosen row replaced by
// RandomRow. Calibrating to it gives (ε, δ, γ)-probabilistic DP with
// confidence 1 − β, never plain DP. Errors name the failing sample.
func SampledSensitivity(ctx context.Context, data Data, s Spec, gamma, beta float64, seed uint64) (*Sampled, error) {
	if err := data.Validate(); err != nil {
		return nil, err
	}
	_, d := data.X.Dims()
	if err := s.Validate(d); err != nil {
		return nil, err
	}
	n, err := query.SensitivitySampleSize(gamma, beta)
	if err != nil {
		return nil, err
	}
	clipped, _ := s.bounds().Clip(data)
	w0, err := fitClipped(ctx, clipped, s, nil)
	if err != nil {
		return nil, err
	}
	worst := 0.0
	for k := 0; k < n; k++ {
		rng := rand.New(rand.NewPCG(seed, uint64(k)))
		i := rng.IntN(clipped.N())
		x, y := s.RandomRow(rng, d)
		w1, err := fitClipped(ctx, Replace(clipped, i, x, y), s, nil)
		if err != nil {
			return nil, fmt.Errorf("learn: sensitivity sample %d (row %d replaced): %w", k, i, err)
		}
		worst = math.Max(worst, dist2(w0, w1))
	}
	if !(worst > 0) {
		return nil, fmt.Errorf("learn: sampled sensitivity is 0 on %d pairs: the fit does not depend on the sampled rows", n)
	}
	return &Sampled{Value: worst, Gamma: gamma, Beta: beta, Samples: n}, nil
}

func dist2(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += (a[i] - b[i]) * (a[i] - b[i])
	}
	return math.Sqrt(s)
}
