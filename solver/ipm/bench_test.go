package ipm

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/sparse"
)

// BenchmarkSOCP solves random strictly feasible SOCPs (see randomSOCP) with
// n variables, n/4 second-order cones of dimension 8 plus an orthant, and
// about 4 nonzeros per row of A. Random sparsity patterns are the worst case
// for fill-in; see bench/svm for a structured problem at scale.
func BenchmarkSOCP(b *testing.B) {
	for _, n := range []int{100, 300, 1000} {
		rng := rand.New(rand.NewPCG(11, uint64(n)))
		socs := make([]int, n/4)
		for i := range socs {
			socs[i] = 8
		}
		p := randomSOCPDensity(rng, n, socs, 4/float64(n))
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			benchSolve(b, p)
		})
	}
}

// BenchmarkSDP solves min tr(CX) s.t. tr X = 1, X ⪰ 0, Xᵢᵢ ≤ 2/n (one PSD block of
// order n plus n orthant rows).
func BenchmarkSDP(b *testing.B) {
	for _, n := range []int{10, 25, 50} {
		rng := rand.New(rand.NewPCG(12, uint64(n)))
		d := n * (n + 1) / 2
		q := make([]float64, d)
		tri := sparse.NewTriplets(1+n+d, d, 2*d+n)
		bb := make([]float64, 1+n+d)
		bb[0] = 1
		for j := 0; j < n; j++ {
			for i := j; i < n; i++ {
				k := svecIdx(i, j, n)
				v := rng.NormFloat64()
				if i == j {
					q[k] = v
					tri.Append(0, k, 1)
					tri.Append(1+i, k, 1)
					bb[1+i] = 2 / float64(n)
				} else {
					q[k] = math.Sqrt2 * v
				}
				tri.Append(1+n+k, k, -1)
			}
		}
		p := &solver.Problem{Q: q, A: tri.ToCSC(), B: bb, Cones: []cone.Cone{cone.NewZero(1), nn(n), cone.NewPSD(n)}}
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			benchSolve(b, p)
		})
	}
}

func benchSolve(b *testing.B, p *solver.Problem) {
	b.ReportAllocs()
	sv := New()
	var it int
	for i := 0; i < b.N; i++ {
		sol, err := sv.Solve(context.Background(), p, solver.Settings{})
		if err != nil {
			b.Fatal(err)
		}
		if sol.Status != solver.Optimal {
			b.Fatalf("status %v", sol.Status)
		}
		it = sol.Iterations
	}
	b.ReportMetric(float64(it), "iterations")
}

// BenchmarkSDPDense solves min qᵀx s.t. Σ xⱼFⱼ ⪯ nI, ‖x‖∞ ≤ 1 with one 50×50
// block and dense random Fⱼ for nv variables (the PSD block is eliminated).
func BenchmarkSDPDense(b *testing.B) {
	for _, nv := range []int{50, 200} {
		rng := rand.New(rand.NewPCG(13, uint64(nv)))
		n := 50
		d := n * (n + 1) / 2
		tri := sparse.NewTriplets(d+2*nv, nv, d*nv+2*nv)
		bb := make([]float64, d+2*nv)
		for v := 0; v < nv; v++ {
			for k := 0; k < d; k++ {
				tri.Append(k, v, rng.NormFloat64())
			}
			tri.Append(d+2*v, v, 1)
			tri.Append(d+2*v+1, v, -1)
			bb[d+2*v], bb[d+2*v+1] = 1, 1
		}
		for j := 0; j < n; j++ {
			bb[svecIdx(j, j, n)] = float64(n)
		}
		q := make([]float64, nv)
		for v := range q {
			q[v] = rng.NormFloat64()
		}
		p := &solver.Problem{Q: q, A: tri.ToCSC(), B: bb, Cones: []cone.Cone{cone.NewPSD(n), nn(2 * nv)}}
		b.Run(fmt.Sprintf("block=50,vars=%d", nv), func(b *testing.B) {
			benchSolve(b, p)
		})
	}
}
