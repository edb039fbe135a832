package lindecision

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/sparse"
)

// BenchmarkLift lifts banded covering LPs (5 entries per row) with a dense
// weighted-sum query for k = 1 and an identity query on the first k columns
// for k = 8.
func BenchmarkLift(b *testing.B) {
	for _, m := range []int{1000, 10000, 100000} {
		rng := rand.New(rand.NewPCG(1, 1))
		tr := sparse.NewTriplets(m, m, 5*m)
		rhs := make([]float64, m)
		for i := 0; i < m; i++ {
			for t := 0; t < 5; t++ {
				tr.Append(i, (i+t)%m, -(0.5 + rng.Float64()))
			}
			rhs[i] = -1
		}
		q := make([]float64, m)
		cols := make([]int, m)
		for j := range q {
			q[j], cols[j] = 1+rng.Float64(), j
		}
		p := &solver.Problem{Q: q, A: tr.ToCSC(), B: rhs, Cones: []cone.Cone{cone.NewNonnegative(m)}}
		for _, k := range []int{1, 8} {
			spec := Spec{Noise: Perturbation{Components: make([]Distribution, k)}}
			for j := range spec.Noise.Components {
				spec.Noise.Components[j] = gauss{1}
			}
			if k == 1 {
				spec.Query = []SparseVector{{Idx: cols, Val: q}}
			} else {
				for j := 0; j < k; j++ {
					spec.Query = append(spec.Query, SparseVector{Idx: []int{j}, Val: []float64{1}})
				}
			}
			b.Run(fmt.Sprintf("rows=%d/k=%d", m, k), func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					if _, err := Lift(p, spec); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
