package chance_test

import (
	"context"
	"fmt"

	"github.com/privopt/privopt/chance"
	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/lindecision"
	"github.com/privopt/privopt/noise"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/sparse"
)

// Keep x ≥ 1 with probability 95% when x̃ = x̄ + ζ, ζ ~ Laplace(2): the
// single-component Bonferroni row is exact, x̄* = 1 + 2·ln(1/(2·0.05)).
func ExampleReformulate() {
	a := sparse.NewTriplets(1, 1, 1)
	a.Append(0, 0, -1) // −x + s = −1, s ≥ 0  ⇔  x ≥ 1
	p := &solver.Problem{Q: []float64{1}, A: a.ToCSC(), B: []float64{-1}, Cones: []cone.Cone{cone.NewNonnegative(1)}}
	lap, _ := noise.NewLaplace(2)
	l, err := lindecision.Lift(p, lindecision.Spec{
		Noise: lindecision.Perturbation{Components: []lindecision.Distribution{lap}},
		Query: []lindecision.SparseVector{{Idx: []int{0}, Val: []float64{1}}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	cp, err := chance.Reformulate(l, chance.Spec{Approximation: chance.Approximation{Method: chance.Bonferroni, Eta: 0.05}})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := chance.Solve(context.Background(), cp, nil, solver.Settings{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("x̄* = %.4f\n", res.Rule.XBar[0])
	fmt.Println(cp.Guarantee)
	// Output:
	// x̄* = 5.6052
	// bonferroni: Pr[violation] ≤ 0.05 (exact)
}

func ExampleVertexSampleSize() {
	s, _ := chance.VertexSampleSize(0.01, 0.1, 1)
	n, _ := chance.ScenarioSampleSize(0.01, 0.1, 1)
	fmt.Println(s, n)
	// Output: 523 230
}
