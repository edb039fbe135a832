// Package randlp generates the random sparse LP of the parameter re-solve
// benchmarks (BENCHMARKS.md, "Parameters and re-solves"):
//
//	minimize cᵀx  subject to  Ax ≤ b,  Σx = n/2,  0 ≤ x ≤ 1,
//
// with A ∈ ℝ^{m×n} of k uniform(0,1) entries per row at random columns, b
// chosen so that x = ½·1 is strictly feasible, and c standard normal. The
// right-hand side b is either a constant or a model parameter.
package randlp

import (
	"math/rand/v2"

	"github.com/privopt/privopt/model"
	"github.com/privopt/privopt/sparse"
)

// LP is one instance.
type LP struct {
	A *sparse.CSC
	B []float64
	C []float64
}

// New returns an instance with m rows, n columns and k entries per row.
func New(seed uint64, m, n, k int) *LP {
	rng := rand.New(rand.NewPCG(seed, 2025))
	t := sparse.NewTriplets(m, n, m*k)
	lp := &LP{B: make([]float64, m), C: make([]float64, n)}
	for i := 0; i < m; i++ {
		row := 0.0
		seen := map[int]bool{}
		for len(seen) < min(k, n) {
			j := rng.IntN(n)
			if seen[j] {
				continue
			}
			seen[j] = true
			v := rng.Float64()
			t.Append(i, j, v)
			row += v
		}
		lp.B[i] = 0.5*row + 0.1 + 0.2*rng.Float64()
	}
	for j := range lp.C {
		lp.C[j] = rng.NormFloat64()
	}
	lp.A = t.ToCSC()
	return lp
}

// Perturb returns a copy of b with `rows` entries at random positions (all
// of them if rows ≥ len(b)) scaled by 1 + u, u uniform in [−f, f].
func (lp *LP) Perturb(rng *rand.Rand, rows int, f float64) []float64 {
	b := append([]float64(nil), lp.B...)
	idx := rng.Perm(len(b))
	for _, i := range idx[:min(rows, len(b))] {
		b[i] *= 1 + f*(2*rng.Float64()-1)
	}
	return b
}

// Build returns the model with right-hand side b, as a parameter named "b"
// (returned) when param is set, else as constants.
func (lp *LP) Build(b []float64, param bool) (*model.Model, *model.Param) {
	m := model.New("randlp")
	x := m.Vector("x", len(lp.C))
	m.Bound(x, 0, 1)
	var rhs model.Expr
	var p *model.Param
	if param {
		p = m.Parameter("b", b...)
		rhs = p.Expr()
	} else {
		rhs = model.Const(b...)
	}
	m.LessEq("cap", model.MulSparse(lp.A, x.Expr()), rhs)
	m.Equal("total", x.Expr().Sum(), model.Const(float64(len(lp.C))/2))
	m.Minimize(x.Expr().Dot(lp.C))
	return m, p
}
