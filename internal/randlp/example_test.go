package randlp_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/privopt/privopt/internal/randlp"
	"github.com/privopt/privopt/model"
)

// A small instance built with a parameter right-hand side and re-solved after
// changing 2 of its entries: the warm re-solve agrees with a cold rebuild.
func Example() {
	lp := randlp.New(1, 4, 8, 3)
	m, p := lp.Build(lp.B, true)
	prep, err := m.Prepare(model.SolveOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer prep.Close()
	b := lp.Perturb(rand.New(rand.NewPCG(1, 1)), 2, 0.05)
	if err := prep.SetParam(p, b...); err != nil {
		fmt.Println(err)
		return
	}
	warm, err := prep.Solve(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	cold, _ := lp.Build(b, false)
	res, err := cold.Solve(context.Background(), model.SolveOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(warm.Status, res.Status, fmt.Sprintf("%.6f", warm.Objective) == fmt.Sprintf("%.6f", res.Objective))
	// Output: optimal optimal true
}
