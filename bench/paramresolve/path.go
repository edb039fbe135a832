package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/privopt/privopt/learn"
)

// pathData draws n rows of d features in the unit ball with a linear signal
// (±1 labels for the hinge loss).
func pathData(rng *rand.Rand, n, d int, s learn.Spec) learn.Data {
	x := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		row, _ := s.RandomRow(rng, d)
		x.SetRow(i, row)
		t := 0.0
		for j, v := range row {
			t += float64(j+1) / float64(d) * v
		}
		if s.Loss == learn.Hinge || s.Loss == learn.Logistic {
			y[i] = 1
			if t+0.3*rng.NormFloat64() < 0 {
				y[i] = -1
			}
		} else {
			y[i] = math.Max(-1, math.Min(1, t+0.2*rng.NormFloat64()))
		}
	}
	return learn.Data{X: x, Y: y}
}

// runPath compares learn.FitPath (one prepared model, λ a parameter) with
// learn.Fit per λ (the model rebuilt for every λ) on a 20-point λ grid.
func runPath(ctx context.Context) error {
	lambdas := make([]float64, 20)
	for i := range lambdas {
		lambdas[i] = math.Pow(10, -3+3*float64(i)/float64(len(lambdas)-1)) // 1e-3 … 1
	}
	fmt.Printf("\nλ path (learn.FitPath vs learn.Fit per λ), %d values of λ in [1e-3, 1]\n", len(lambdas))
	fmt.Printf("%-34s %10s %10s %9s %12s %9s\n", "problem", "rebuild", "path", "speed-up", "max |Δw|", "rebuilt")
	rng := rand.New(rand.NewPCG(9, 9))
	for _, c := range []struct {
		name string
		s    learn.Spec
		n, d int
	}{
		{"ridge, n = 20000, d = 20", learn.Spec{Loss: learn.Squared, Intercept: true}, 20000, 20},
		{"nonnegative ridge, n = 20000, d = 20", learn.Spec{Loss: learn.Squared, Nonnegative: true}, 20000, 20},
		{"hinge (SVM), n = 1000, d = 10", learn.Spec{Loss: learn.Hinge, Intercept: true}, 1000, 10},
		{"logistic, n = 500, d = 5", learn.Spec{Loss: learn.Logistic, Intercept: true}, 500, 5},
	} {
		data := pathData(rng, c.n, c.d, c.s)
		t0 := time.Now()
		ref := make([][]float64, len(lambdas))
		for i, l := range lambdas {
			s := c.s
			s.Lambda = l
			w, err := learn.Fit(ctx, data, s)
			if err != nil {
				return fmt.Errorf("%s: Fit at λ = %v: %w", c.name, l, err)
			}
			ref[i] = w
		}
		cold := time.Since(t0)
		t0 = time.Now()
		path, err := learn.FitPath(ctx, data, c.s, lambdas)
		if err != nil {
			return fmt.Errorf("%s: FitPath: %w", c.name, err)
		}
		warm := time.Since(t0)
		dw, rebuilt := 0.0, 0
		for i, p := range path {
			for j := range p.W {
				dw = math.Max(dw, math.Abs(p.W[j]-ref[i][j]))
			}
			if p.Rebuilt {
				rebuilt++
			}
		}
		fmt.Printf("%-34s %10s %10s %8.1f× %12.1e %9d\n", c.name, cold.Round(time.Millisecond), warm.Round(time.Millisecond), float64(cold)/float64(warm), dw, rebuilt)
	}
	return nil
}
