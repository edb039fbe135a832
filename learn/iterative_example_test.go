package learn_test

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/privopt/privopt/learn"
	"github.com/privopt/privopt/noise"
	"github.com/privopt/privopt/query"
)

// DP proximal coordinate descent for an ℓ₁-logistic classifier: 20
// iterations of 1 coordinate update on 4 rows make 20 Gaussian steps of
// sensitivity 2C/n = 0.5; the accountant's bisection picks the noise
// multiplier for (1, 1e-5) over all of them, and the certificate's
// verifier recomputes both.
func ExampleTrainIterative() {
	data := learn.Data{X: mat.NewDense(4, 1, []float64{1, 0.5, -0.5, -1}), Y: []float64{1, 1, -1, -1}}
	spec := learn.IterativeSpec{Method: learn.DPCD, Loss: learn.Logistic, L1: 0.01, Iterations: 20}
	res, err := learn.TrainIterative(context.Background(), data, spec, learn.IterativePrivacy{PrivacySpec: query.PrivacySpec{Epsilon: 1, Delta: 1e-5}}, noise.NewSeededSource(1))
	if err != nil {
		panic(err)
	}
	g := res.Guarantee
	fmt.Printf("%d steps, noise multiplier %.2f, sensitivity %.2f, (%g, %g)-DP\n", res.Steps, res.NoiseMultiplier, g.Sensitivity, g.Epsilon, g.Delta)
	fmt.Println("certificate verifies:", g.Certificate.Verify() == nil)
	// Output:
	// 20 steps, noise multiplier 16.68, sensitivity 0.50, (1, 1e-05)-DP
	// certificate verifies: true
}
