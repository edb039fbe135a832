package main

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/privopt/privopt/internal/shareddata"
	"github.com/privopt/privopt/learn"
)

// The diabetes comparison (acceptance table of BENCHMARKS.md): 200 releases
// per row at ε ∈ {0.5, 1, 2, 5}. Checks the non-private reference against the
// normal equations solved independently, that every strategy runs where its
// mechanism applies, and the measured utility (the acceptance target): the
// best private release at ε = 1 is within 1.5× of the non-private MSE, and
// SSP beats AdaSSP, the baseline from the literature, at every ε with the
// same noise.
func TestDiabetesTable(t *testing.T) {
	path := shareddata.Path(t, "regression/diabetes.csv")
	res, err := run(context.Background(), path, 200, 1, 0.5, []float64{0.5, 1, 2, 5})
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + res.text)
	// Independent OLS: (AᵀA)w = Aᵀy on the training rows with a 1 column.
	n, d := res.train.X.Dims()
	a := mat.NewDense(n, d+1, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			a.Set(i, j, res.train.X.At(i, j))
		}
		a.Set(i, d, 1)
	}
	var w mat.VecDense
	if err := w.SolveVec(a, mat.NewVecDense(n, res.train.Y)); err != nil {
		t.Fatal(err)
	}
	ols := learn.Score(learn.MSE, w.RawVector().Data, res.test, true, 0) * res.scaleY
	if math.Abs(ols-res.nonPrivate) > 1e-3*ols {
		t.Fatalf("non-private MSE %v, normal equations %v", res.nonPrivate, ols)
	}
	if !(res.nonPrivate < res.constant) {
		t.Fatalf("non-private %v ≥ constant %v", res.nonPrivate, res.constant)
	}
	for _, r := range res.rows {
		applies := !(r.Strategy == learn.Objective && r.Noise == learn.Optimal) && !((r.Strategy == learn.AdaSSP || r.Strategy == learn.SSP) && r.Noise == learn.Optimal) &&
			!(r.Noise == learn.Gaussian && r.Epsilon >= 1 && r.Strategy != learn.Objective) && !(r.Noise == learn.Gaussian && r.Epsilon >= 2)
		if applies && r.Err != nil {
			t.Errorf("%s/%s at ε = %v: %v", r.Strategy, r.Noise, r.Epsilon, r.Err)
		}
	}
	b5, _ := learn.Best(res.rows, 5, learn.MSE)
	b1, _ := learn.Best(res.rows, 1, learn.MSE)
	t.Logf("best at ε = 1: %s/%s %.0f (%.2f× non-private); at ε = 5: %s/%s %.0f (%.2f×)",
		b1.Strategy, b1.Noise, b1.Mean*res.scaleY, b1.Mean*res.scaleY/res.nonPrivate, b5.Strategy, b5.Noise, b5.Mean*res.scaleY, b5.Mean*res.scaleY/res.nonPrivate)
	if b1.Mean*res.scaleY > 1.5*res.nonPrivate {
		t.Fatalf("best at ε = 1 is %v > 1.5 × %v", b1.Mean*res.scaleY, res.nonPrivate)
	}
	if b5.Mean*res.scaleY > b1.Mean*res.scaleY {
		t.Fatalf("best at ε = 5 (%v) is worse than at ε = 1 (%v)", b5.Mean*res.scaleY, b1.Mean*res.scaleY)
	}
	for _, a := range res.rows {
		if a.Strategy != learn.AdaSSP || a.Err != nil {
			continue
		}
		for _, s := range res.rows {
			if s.Strategy == learn.SSP && s.Err == nil && s.Noise == a.Noise && s.Epsilon == a.Epsilon && s.Noise != learn.Laplace && s.Mean > a.Mean {
				t.Errorf("%s noise at ε = %v: SSP %.0f worse than AdaSSP %.0f", s.Noise, s.Epsilon, s.Mean*res.scaleY, a.Mean*res.scaleY)
			}
		}
	}
}
