package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/ipm"
)

// BenchmarkExpFamilies solves the first instance of the exp (logistic
// regression) and entropy (maximum entropy) families of this benchmark at
// n = 20, 50 and 200 with the IPM backend, generated as the command does
// (seed 1, the family and size's first draw). It is the unit of the
// instruction counts of BENCHMARKS.md "Small exp-cone solves, round 11"
// (callgrind, the 4-solve run less the 1-solve run, divided by 3); it
// reports the iterations per solve.
func BenchmarkExpFamilies(b *testing.B) {
	for _, f := range []string{"exp", "entropy"} {
		for _, n := range []int{20, 50, 200} {
			rng := rand.New(rand.NewPCG(1, 26))
			p, err := generate(rng, f, n)
			if err != nil {
				b.Fatal(err)
			}
			sv, err := ipm.NewWithSettings(ipm.Settings{})
			if err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("%s/n=%d", f, n), func(b *testing.B) {
				its := 0
				for i := 0; i < b.N; i++ {
					sol, err := sv.Solve(context.Background(), p, solver.Settings{})
					if err != nil {
						b.Fatal(err)
					}
					if sol.Status != solver.Optimal {
						b.Fatalf("status %v, planted optimal", sol.Status)
					}
					its += sol.Iterations
				}
				b.ReportMetric(float64(its)/float64(b.N), "iters/op")
			})
		}
	}
}
