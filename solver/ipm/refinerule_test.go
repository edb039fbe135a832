package ipm

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/privopt/privopt/internal/solvertest"
	"github.com/privopt/privopt/sparse"
)

// TestEarlyRefineRuleClassesMixedScale pins the classification behind
// earlyRefineSpread: every mixed-scale instance of the acceptance benchmark
// (solvertest.MixedSuite: row blocks scaled by 10^U(−6, 6); OneSmallRow: one
// row of terms 10⁻³…10⁻⁸ among rows of 10³…10⁶) is badly scaled by the row
// spread of its equilibration and keeps its solves refined to round-off,
// while well-scaled random SOCPs (N(0, 1) entries, randomSOCP) are not.
func TestEarlyRefineRuleClassesMixedScale(t *testing.T) {
	set := DefaultSettings()
	var insts []solvertest.MixedInstance
	insts = append(insts, solvertest.MixedSuite(120)...)
	for seed := 0; seed < 40; seed++ {
		rng := rand.New(rand.NewPCG(uint64(seed), 26))
		insts = append(insts, solvertest.OneSmallRow(rng, []float64{1e-5, 1e-7, 1e-8, 1e-3}[seed%4], float64(seed%3)*1.5))
	}
	for _, in := range insts {
		w, err := newWorkspace(in.Problem, &set, nil)
		if err != nil {
			t.Fatalf("%s: %v", in.Name, err)
		}
		if sp := w.sc.rowSpread(); !(sp > earlyRefineSpread) || !w.noEarlyRefine {
			t.Errorf("%s: row spread %.3g, noEarlyRefine %v: a mixed-scale problem must be refined to round-off", in.Name, sp, w.noEarlyRefine)
		}
	}
	rng := rand.New(rand.NewPCG(3, 26))
	for trial := 0; trial < 20; trial++ {
		p := randomSOCP(rng, 30, []int{6, 6, 6, 6})
		w, err := newWorkspace(p, &set, nil)
		if err != nil {
			t.Fatal(err)
		}
		if sp := w.sc.rowSpread(); sp > earlyRefineSpread || w.noEarlyRefine {
			t.Errorf("trial %d: well-scaled SOCP has row spread %.3g (noEarlyRefine %v)", trial, sp, w.noEarlyRefine)
		}
	}
}

// TestCheckConvexSparse: the sparse path of checkConvex (orders above 64,
// ordered by minimum degree up to kktMinimumDegreeOrder, by AMD above)
// accepts P = D + BBᵀ (positive semidefinite by construction) and rejects
// P = I − 2uuᵀ/‖u‖² (the eigenvalue −1 along u).
func TestCheckConvexSparse(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 26))
	for _, n := range []int{80, 200, 300} {
		b := make([][]float64, n)
		u := make([]float64, n)
		var uu float64
		for i := range b {
			b[i] = []float64{rng.NormFloat64(), rng.NormFloat64()}
			u[i] = rng.NormFloat64()
			uu += u[i] * u[i]
		}
		convex := sparse.NewTriplets(n, n, n*(n+1)/2)
		reflect := sparse.NewTriplets(n, n, n*(n+1)/2)
		for j := 0; j < n; j++ {
			for i := 0; i <= j; i++ {
				v := b[i][0]*b[j][0] + b[i][1]*b[j][1]
				w := -2 * u[i] * u[j] / uu
				if i == j {
					v += 0.1 + rng.Float64()
					w++
				}
				convex.Append(i, j, v)
				reflect.Append(i, j, w)
			}
		}
		if err := checkConvex(convex.ToCSC(), false, nil); err != nil {
			t.Errorf("n = %d: D + BBᵀ rejected: %v", n, err)
		}
		if err := checkConvex(reflect.ToCSC(), false, nil); !errors.Is(err, ErrNotConvex) {
			t.Errorf("n = %d: I − 2uuᵀ/‖u‖²: err = %v, want ErrNotConvex", n, err)
		}
	}
}
