package chance

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/lindecision"
	"github.com/privopt/privopt/noise"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/sparse"
)

// bandedCoveringLP: minimize cᵀx s.t. A x ≥ d, x ≥ 0 with m rows and n = m
// columns, row i covering columns i..i+4 (mod n). Same family as bench/lift.
func bandedCoveringLP(m int) *solver.Problem {
	n := m
	rng := rand.New(rand.NewPCG(1, 1))
	tr := sparse.NewTriplets(m+n, n, 5*m+n)
	b := make([]float64, m+n)
	for i := 0; i < m; i++ {
		for t := 0; t < 5; t++ {
			tr.Append(i, (i+t)%n, -(0.5 + rng.Float64()))
		}
		b[i] = -(1 + rng.Float64())
	}
	for j := 0; j < n; j++ {
		tr.Append(m+j, j, -1)
	}
	c := make([]float64, n)
	for j := range c {
		c[j] = 1 + rng.Float64()
	}
	return &solver.Problem{Q: c, A: tr.ToCSC(), B: b, Cones: []cone.Cone{cone.NewNonnegative(m + n)}}
}

// BenchmarkLiftReformulate times lindecision.Lift + Reformulate (vertex, η = 1%,
// β = 10%) of a weighted-sum query (k = 1) on covering LPs. Compare with the LP
// solve time printed by bench/lift.
func BenchmarkLiftReformulate(b *testing.B) {
	lap, _ := noise.NewLaplace(1)
	for _, m := range []int{1000, 10000, 100000} {
		p := bandedCoveringLP(m)
		cols := make([]int, p.NumVars())
		for j := range cols {
			cols[j] = j
		}
		b.Run(fmt.Sprintf("rows=%d", m), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				l, err := lindecision.Lift(p, lindecision.Spec{
					Noise: lindecision.Perturbation{Components: []lindecision.Distribution{lap}},
					Query: []lindecision.SparseVector{{Idx: cols, Val: p.Q}},
				})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := Reformulate(l, Spec{Approximation: Approximation{Method: Vertex, Eta: 0.01, Beta: 0.1}, Rand: rand.New(rand.NewPCG(2, 2))}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
