package query

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/privopt/privopt/chance"
)

// BenchmarkEvaluate times the Monte Carlo evaluation of Example 2.7's program
// perturbation (no re-solves) over the number of realizations.
func BenchmarkEvaluate(b *testing.B) {
	ctx := context.Background()
	sol, err := Solve(ctx, example27(1, 2, 30), Spec{Query: Identity(0), Privacy: laplacePrivacy(1, 1),
		Chance: chance.Spec{Approximation: chance.Approximation{Method: chance.Vertex, Eta: 0.01, Beta: 0.1}, Rand: rand.New(rand.NewPCG(1, 1))}})
	if err != nil {
		b.Fatal(err)
	}
	ref := 2.0
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := sol.Evaluate(ctx, EvalOptions{N: n, Seed: uint64(i), Reference: &ref}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
