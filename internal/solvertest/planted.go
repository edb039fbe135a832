package solvertest

import (
	"math/rand/v2"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/sparse"
)

// PlantedLP returns the LP
//
//	minimize qᵀx  s.t.  b − A x ≥ 0   (Ax + s = b, s ∈ ℝᵐ₊),
//
// over the given m×n matrix A, with a planted primal point and a planted
// dual: x₀ ~ N(0, 1)ⁿ, b = A x₀ + s₀ and q = −Aᵀy₀ with s₀, y₀ uniform on
// [0.5, 2]ᵐ. x₀ is strictly feasible and y₀ ≥ 0 satisfies the dual
// constraints Aᵀy + q = 0 strictly, so the optimum is attained (weak duality
// bounds qᵀx below by −bᵀy₀): the planted status is optimal. It draws from
// rng the n entries of x₀ and then, row by row, s₀ᵢ and y₀ᵢ; a caller that
// wants a QP over the same rows sets P and Q afterwards.
func PlantedLP(rng *rand.Rand, A *sparse.CSC) *solver.Problem {
	m, n := A.Rows, A.Cols
	x0 := make([]float64, n)
	for j := range x0 {
		x0[j] = rng.NormFloat64()
	}
	b := A.MulVecTo(nil, 1, x0, 0)
	y0 := make([]float64, m)
	for i := range b {
		b[i] += 0.5 + 1.5*rng.Float64()
		y0[i] = 0.5 + 1.5*rng.Float64()
	}
	return &solver.Problem{Q: A.MulTransVecTo(nil, -1, y0, 0), A: A, B: b, Cones: []cone.Cone{cone.NewNonnegative(m)}}
}
