package learn

import (
	"context"
	"fmt"
	"math"
	"sort"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/privopt/privopt/noise"
)

// Metric scores weights w (features, then intercept) on test data: lower is
// better for "mse" and "loss", higher for "accuracy".
type Metric string

// Metrics.
const (
	MSE      Metric = "mse"      // (1/m)Σ(y − wᵀx̃)² on the raw (unclipped) test data
	Accuracy Metric = "accuracy" // fraction with sign(wᵀx̃) = y
)

// Score returns the metric of the predictor x ↦ wᵀx̃ on test data. With
// clip > 0 each test row is first scaled to ‖x‖₂ ≤ clip, the public
// preprocessing the weights were fitted under (0: no clipping).
func Score(metric Metric, w []float64, test Data, intercept bool, clip float64) float64 {
	m, d := test.X.Dims()
	s := 0.0
	for i := 0; i < m; i++ {
		t, nr := 0.0, 0.0
		for j := 0; j < d; j++ {
			v := test.X.At(i, j)
			t += w[j] * v
			nr += v * v
		}
		if nr = math.Sqrt(nr); clip > 0 && nr > clip {
			t *= clip / nr
		}
		if intercept {
			t += w[d]
		}
		switch metric {
		case Accuracy:
			if t*test.Y[i] > 0 {
				s++
			}
		default:
			r := test.Y[i] - t
			s += r * r
		}
	}
	return s / float64(m)
}

// Row is one line of a comparison: a strategy and noise over Releases draws.
type Row struct {
	Strategy  Strategy
	Noise     NoiseKind
	Epsilon   float64
	Delta     float64 // guaranteed
	Source    string
	Releases  int
	Mean, Std float64 // of the metric over releases
	// Violation: fraction of releases outside C (tolerance 1e-7) and the mean
	// largest violation.
	ViolationRate, MeanViolation float64
	Err                          error // the strategy does not apply, or failed
}

// CompareOptions configure Compare.
type CompareOptions struct {
	Strategies []Strategy  // default Strategies
	Noises     []NoiseKind // default NoiseKinds
	Epsilons   []float64
	Delta      float64
	Releases   int // Monte Carlo releases per row (default 200)
	Seed       uint64
	Metric     Metric
	Options    Options
	Workers    int // parallel draws (default 2)
}

// Compare prepares every strategy × noise × ε on train and scores Releases
// simulated releases (seeded noise: simulation only) on test. Rows whose
// strategy does not apply carry Err.
func Compare(ctx context.Context, train, test Data, s Spec, o CompareOptions) ([]Row, error) {
	if o.Releases == 0 {
		o.Releases = 200
	}
	if o.Strategies == nil {
		o.Strategies = Strategies
	}
	if o.Noises == nil {
		o.Noises = NoiseKinds
	}
	if o.Metric == "" {
		o.Metric = MSE
	}
	if o.Workers <= 0 {
		o.Workers = 2
	}
	_, d := train.X.Dims()
	var rows []Row
	for _, eps := range o.Epsilons {
		for _, st := range o.Strategies {
			for _, nk := range o.Noises {
				row := Row{Strategy: st, Noise: nk, Epsilon: eps, Releases: o.Releases}
				r, err := Prepare(ctx, train, s, st, Privacy{Epsilon: eps, Delta: o.Delta, Mechanism: nk}, o.Options)
				if err != nil {
					row.Err = err
					rows = append(rows, row)
					continue
				}
				g := r.Guarantee()
				row.Delta, row.Source = g.Delta, g.Source
				scores := make([]float64, o.Releases)
				viol := make([]float64, o.Releases)
				var mu sync.Mutex
				var firstErr error
				var wg sync.WaitGroup
				next := 0
				for wk := 0; wk < o.Workers; wk++ {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for {
							mu.Lock()
							i := next
							next++
							mu.Unlock()
							if i >= o.Releases || ctx.Err() != nil {
								return
							}
							src := noise.NewSeededSource(o.Seed*1_000_003 + uint64(i)*7919 + uint64(math.Float64bits(eps)>>20))
							w, err := r.Draw(ctx, src)
							if err != nil {
								mu.Lock()
								if firstErr == nil {
									firstErr = fmt.Errorf("release %d: %w", i, err)
								}
								mu.Unlock()
								return
							}
							scores[i] = Score(o.Metric, w, test, s.Intercept, s.bounds().X)
							viol[i] = Violation(w, d, s)
						}
					}()
				}
				wg.Wait()
				if firstErr != nil {
					row.Err = firstErr
					rows = append(rows, row)
					continue
				}
				row.Mean, row.Std = meanStd(scores)
				for _, v := range viol {
					if v > 1e-7 {
						row.ViolationRate++
					}
					row.MeanViolation += v
				}
				row.ViolationRate /= float64(o.Releases)
				row.MeanViolation /= float64(o.Releases)
				rows = append(rows, row)
			}
		}
	}
	return rows, ctx.Err()
}

func meanStd(x []float64) (float64, float64) {
	m := 0.0
	for _, v := range x {
		m += v
	}
	m /= float64(len(x))
	s := 0.0
	for _, v := range x {
		s += (v - m) * (v - m)
	}
	if len(x) > 1 {
		s /= float64(len(x) - 1)
	}
	return m, math.Sqrt(s)
}

// Best returns the row with the lowest mean (highest for accuracy) at ε
// among rows without error.
func Best(rows []Row, eps float64, metric Metric) (Row, bool) {
	var c []Row
	for _, r := range rows {
		if r.Err == nil && r.Epsilon == eps {
			c = append(c, r)
		}
	}
	if len(c) == 0 {
		return Row{}, false
	}
	sort.Slice(c, func(i, j int) bool {
		if metric == Accuracy {
			return c[i].Mean > c[j].Mean
		}
		return c[i].Mean < c[j].Mean
	})
	return c[0], true
}

// Split returns the rows of d in idx.
func Split(d Data, idx []int) Data {
	_, p := d.X.Dims()
	x := mat.NewDense(len(idx), p, nil)
	y := make([]float64, len(idx))
	for r, i := range idx {
		x.SetRow(r, d.X.RawRowView(i))
		y[r] = d.Y[i]
	}
	return Data{X: x, Y: y}
}
