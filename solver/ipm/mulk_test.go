package ipm

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privopt/privopt/sparse"
)

// mulKGeneral is the entry-by-entry product of mulK without the fast path
// for columns ending in their diagonal (the reference for the bit-identity
// check).
func mulKGeneral(ks *kktSystem, out, x []float64) {
	k := ks.k
	clear(out)
	nz := ks.n + ks.mr
	for j := 0; j < k.Cols; j++ {
		var s float64
		for p := k.ColPtr[j]; p < k.ColPtr[j+1]; p++ {
			i, a := k.RowIdx[p], k.Val[p]
			if i == j {
				if j < nz {
					a -= ks.eps * float64(ks.signs[j])
				}
				out[j] += a * x[j]
				continue
			}
			out[i] += a * x[j]
			s += a * x[i]
		}
		out[j] += s
	}
}

// TestMulKMatchesDense checks mulK against the dense symmetric product of the
// stored upper triangle minus ε·signs on the diagonal (to 1e-13), and against
// the general entry-by-entry loop to the last bit, on a matrix with columns
// that end in their diagonal (sparse, and dense ones taking the contiguous
// path), columns without a diagonal and one column whose diagonal is not its
// last entry.
func TestMulKMatchesDense(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 14))
	const dim, n, mr = 20, 4, 3
	dense := make([]float64, dim*dim) // symmetric, unregularized
	k := &sparse.CSC{Rows: dim, Cols: dim, ColPtr: make([]int, dim+1)}
	signs := make([]int8, dim)
	const eps = 1e-3
	for j := 0; j < dim; j++ {
		signs[j] = 1
		if j >= n {
			signs[j] = -1
		}
		for i := 0; i <= j; i++ {
			if i < j && r.Float64() < 0.4 && j < 12 {
				continue // columns 12.. are dense: mulK's contiguous path
			}
			if i == j && j == 2 {
				continue // a column without its diagonal
			}
			v := r.NormFloat64()
			k.RowIdx = append(k.RowIdx, i)
			k.Val = append(k.Val, v)
			if i == j && j < n+mr {
				v -= eps * float64(signs[j])
			}
			dense[i*dim+j] += v
			if i != j {
				dense[j*dim+i] += v
			}
		}
		if j == 5 {
			// an entry below the diagonal after it: the general loop
			k.RowIdx = append(k.RowIdx, 7)
			k.Val = append(k.Val, 0.5)
			dense[7*dim+5] += 0.5
			dense[5*dim+7] += 0.5
		}
		k.ColPtr[j+1] = len(k.Val)
	}
	ks := &kktSystem{n: n, mr: mr, k: k, signs: signs, eps: eps}
	x := make([]float64, dim)
	for i := range x {
		x[i] = r.NormFloat64()
	}
	got, ref := make([]float64, dim), make([]float64, dim)
	ks.mulK(got, x)
	mulKGeneral(ks, ref, x)
	for i := range got {
		if math.Float64bits(got[i]) != math.Float64bits(ref[i]) {
			t.Errorf("out[%d] = %v, general loop %v (not bit-identical)", i, got[i], ref[i])
		}
		var want float64
		for j := 0; j < dim; j++ {
			want += dense[i*dim+j] * x[j]
		}
		if math.Abs(got[i]-want) > 1e-13*(1+math.Abs(want)) {
			t.Errorf("out[%d] = %v, dense product %v", i, got[i], want)
		}
	}
}
