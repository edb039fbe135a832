package learn_test

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/privopt/privopt/learn"
)

// A ridge path on four points of y = x: the model is built once and
// re-solved per λ; for one feature without intercept the closed form is
// w = (Σxy/n)/(Σx²/n + λ) = 0.625/(0.625 + λ).
func ExampleFitPath() {
	data := learn.Data{X: mat.NewDense(4, 1, []float64{-1, -0.5, 0.5, 1}), Y: []float64{-1, -0.5, 0.5, 1}}
	path, err := learn.FitPath(context.Background(), data, learn.Spec{Loss: learn.Squared}, []float64{1, 0.1, 0.01})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range path {
		fmt.Printf("λ = %-4v w = %.4f (closed form %.4f)\n", p.Lambda, p.W[0], 0.625/(0.625+p.Lambda))
	}
	// Output:
	// λ = 1    w = 0.3846 (closed form 0.3846)
	// λ = 0.1  w = 0.8621 (closed form 0.8621)
	// λ = 0.01 w = 0.9843 (closed form 0.9843)
}
