package ldl

import (
	"math/rand/v2"
	"testing"

	"github.com/privopt/privopt/sparse"
)

// lpKKT is the upper triangle pattern of an LP's KKT matrix [εI Aᵀ; A −H]
// with m = 2n rows of three random entries (bench/smallconic's lp family).
func lpKKT(rng *rand.Rand, n int) *sparse.CSC {
	m := 2 * n
	t := sparse.NewTriplets(n+m, n+m, n+4*m)
	for j := 0; j < n; j++ {
		t.Append(j, j, 1)
	}
	for r := 0; r < m; r++ {
		for _, j := range rng.Perm(n)[:3] {
			t.Append(j, n+r, 1)
		}
		t.Append(n+r, n+r, -1)
	}
	return t.ToCSC()
}

func BenchmarkAMDSmallLP(b *testing.B) {
	a := lpKKT(rand.New(rand.NewPCG(5, 5)), 50)
	b.Run("amd", func(b *testing.B) {
		for b.Loop() {
			amdOrder(a.Cols, a.ColPtr, a.RowIdx, defaultDenseFactor, nil)
		}
	})
	b.Run("analyze", func(b *testing.B) {
		for b.Loop() {
			Analyze(a, Options{Method: Simplicial})
		}
	})
	s, _ := Analyze(a, Options{Method: Simplicial})
	sg := make([]int8, a.Cols)
	for i := range sg {
		sg[i] = 1
		if i >= 50 {
			sg[i] = -1
		}
	}
	f, _ := s.Factor(a, sg, DefaultRegularization)
	b.Run("refactor", func(b *testing.B) {
		for b.Loop() {
			f.Refactor(a)
		}
	})
	b.Logf("n = %d, nnz = %d, nnz(L) = %d", a.Cols, a.Nnz(), s.NnzL())
}
