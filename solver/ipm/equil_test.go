package ipm

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privopt/privopt/sparse"
)

// TestEquilibrationSettles checks the early end of the Ruiz passes against
// the norms it promises: on random LP matrices with entries spanning 10⁻²…10²
// every row and column ∞-norm of the scaled matrix is within 5% of 1 when
// the passes stop at a settled pass, as with all the passes, and the scaled
// data equal e·A·d computed from the returned factors.
func TestEquilibrationSettles(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 26))
	set := DefaultSettings()
	set.EquilibrationIterations = 40
	for trial := 0; trial < 20; trial++ {
		m, n := 5+rng.IntN(30), 5+rng.IntN(30)
		tr := sparse.NewTriplets(m, n, 0)
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				if rng.Float64() < 0.3 || j == i%n || i == j%m {
					tr.Append(i, j, (2*rng.Float64()-1)*math.Pow(10, 4*rng.Float64()-2))
				}
			}
		}
		orig := tr.ToCSC()
		for _, settle := range []bool{false, true} {
			a := orig.Clone()
			q, b := make([]float64, n), make([]float64, m)
			sc := equilibrate(nil, a, q, b, nil, &set, settle, nil)
			row, col := make([]float64, m), make([]float64, n)
			for j := 0; j < n; j++ {
				for k := a.ColPtr[j]; k < a.ColPtr[j+1]; k++ {
					i, v := a.RowIdx[k], a.Val[k]
					if want := sc.e[i] * orig.Val[k] * sc.d[j]; math.Abs(v-want) > 1e-12*math.Abs(want) {
						t.Fatalf("trial %d settle %v: scaled entry (%d,%d) = %g, e·a·d = %g", trial, settle, i, j, v, want)
					}
					row[i] = math.Max(row[i], math.Abs(v))
					col[j] = math.Max(col[j], math.Abs(v))
				}
			}
			for i, r := range row {
				if math.Abs(r-1) > 0.05 {
					t.Errorf("trial %d settle %v: row %d ∞-norm %g, not within 5%% of 1", trial, settle, i, r)
				}
			}
			for j, c := range col {
				if math.Abs(c-1) > 0.05 {
					t.Errorf("trial %d settle %v: column %d ∞-norm %g, not within 5%% of 1", trial, settle, j, c)
				}
			}
		}
	}
}
