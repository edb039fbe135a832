package ldl

import (
	"math/rand/v2"

	"github.com/privopt/privopt/sparse"
)

// socKKT returns the upper triangle of a KKT matrix shaped like the one an
// interior-point method builds for a chance-constrained SVM: primal variables
// w ∈ R^features, a bias b and one slack ξᵢ per point; per point and side one
// second-order cone of dimension features+1 whose first row couples
// (ξᵢ, b, w) and whose other rows hold a dense features×features block in w;
// the cone's scaling W² = D + uuᵀ − vvᵀ is expanded sparsely with two extra
// rows per cone (u and v), as in ECOS/Clarabel, so there are no dense cone
// blocks. Pivot signs: +1 for primal variables and the u rows, −1 for the cone
// rows and the v rows.
func socKKT(rng *rand.Rand, points, features int) (*sparse.CSC, []int8) {
	dim := features + 1
	cones := 2 * points
	nPrimal := features + 1 + points
	n := nPrimal + cones*(dim+2)
	t := sparse.NewTriplets(n, n, 0)
	signs := make([]int8, n)
	for j := 0; j < nPrimal; j++ {
		t.Append(j, j, 1e-8) // static regularization of the (1,1) block
		signs[j] = 1
	}
	for i := 0; i < features; i++ {
		t.Append(i, i, 1) // ½‖w‖² term
	}
	row := nPrimal
	for c := 0; c < cones; c++ {
		point := c / 2
		base := row
		// First cone row: couples ξ_point, b and w.
		t.Append(features+1+point, base, -1)
		t.Append(features, base, rng.NormFloat64())
		for k := 0; k < features; k++ {
			t.Append(k, base, rng.NormFloat64())
		}
		// Remaining rows: a dense block Σ^{1/2} in w.
		for r := 1; r < dim; r++ {
			for k := 0; k < features; k++ {
				t.Append(k, base+r, rng.NormFloat64()/float64(features))
			}
		}
		// −W² = −D − uuᵀ + vvᵀ is the Schur complement of the expansion
		// [−D u v; uᵀ 1 0; vᵀ 0 −1] onto the cone rows; with ‖v‖² < min D the
		// expanded matrix is quasi-definite in the order (cone rows, u, v).
		u, v := base+dim, base+dim+1
		scale := 0.5 / float64(dim)
		for r := 0; r < dim; r++ {
			t.Append(base+r, base+r, -(1 + rng.Float64()))
			signs[base+r] = -1
			t.Append(base+r, u, rng.NormFloat64())
			t.Append(base+r, v, scale*rng.Float64())
		}
		t.Append(u, u, 1)
		t.Append(v, v, -1)
		signs[u], signs[v] = 1, -1
		row += dim + 2
	}
	return t.ToCSC(), signs
}
