package ldl

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privopt/privopt/sparse"
)

// quasiDefinite returns the upper triangle of a random sparse quasi-definite
// matrix K = [H Aᵀ; A −G] with n1 primal and n2 dual rows, and the pivot signs.
// H and G are strictly diagonally dominant with positive diagonals (hence
// positive definite); each off-diagonal entry is present with probability
// about density.
func quasiDefinite(rng *rand.Rand, n1, n2 int, density float64) (*sparse.CSC, []int8) {
	n := n1 + n2
	t := sparse.NewTriplets(n, n, 0)
	rowSum := make([]float64, n)
	add := func(i, j int, v float64) { // i < j
		t.Append(i, j, v)
		rowSum[i] += math.Abs(v)
		rowSum[j] += math.Abs(v)
	}
	// Expected number of off-diagonal entries per row ≈ density·n, drawn by
	// sampling pairs rather than scanning all of them (O(nnz), not O(n²)).
	pairs := int(density * float64(n) * float64(n) / 2)
	for range pairs {
		i, j := rng.IntN(n), rng.IntN(n)
		if i == j {
			continue
		}
		if i > j {
			i, j = j, i
		}
		add(i, j, rng.NormFloat64())
	}
	// Keep every dual row coupled to some primal row, as in a KKT matrix.
	for k := n1; k < n && n1 > 0; k++ {
		add(rng.IntN(n1), k, rng.NormFloat64())
	}
	signs := make([]int8, n)
	for i := 0; i < n; i++ {
		// Strict diagonal dominance (the full row sum bounds the sum within
		// the own block) makes H ≻ 0 and G ≻ 0.
		v := rowSum[i] + 0.5 + rng.Float64()
		if i < n1 {
			signs[i] = 1
		} else {
			v = -v
			signs[i] = -1
		}
		t.Append(i, i, v)
	}
	// ToCSC sums duplicate pairs (the row sums above account for each draw, so
	// dominance still holds).
	return t.ToCSC(), signs
}

// gridLaplacian returns the upper triangle of the 5-point Laplacian on a k×k
// grid (order k²), plus a small diagonal shift making it positive definite.
func gridLaplacian(k int) *sparse.CSC {
	n := k * k
	t := sparse.NewTriplets(n, n, 3*n)
	for r := 0; r < k; r++ {
		for c := 0; c < k; c++ {
			i := r*k + c
			t.Append(i, i, 4.01)
			if c+1 < k {
				t.Append(i, i+1, -1)
			}
			if r+1 < k {
				t.Append(i, i+k, -1)
			}
		}
	}
	return t.ToCSC()
}

// arrow returns the upper triangle of an n×n arrow matrix whose FIRST row and
// column are dense: K(0,j) = 1 for all j, diagonal n+1 (positive definite by
// diagonal dominance).
func arrow(n int) *sparse.CSC {
	t := sparse.NewTriplets(n, n, 2*n)
	for j := 0; j < n; j++ {
		t.Append(j, j, float64(n+1))
		if j > 0 {
			t.Append(0, j, 1)
		}
	}
	return t.ToCSC()
}

// symMul returns K x for the symmetric K given by its upper triangle.
func symMul(upper *sparse.CSC, x []float64) []float64 {
	r := make([]float64, upper.Rows)
	for j := 0; j < upper.Cols; j++ {
		for p := upper.ColPtr[j]; p < upper.ColPtr[j+1]; p++ {
			i := upper.RowIdx[p]
			r[i] += upper.Val[p] * x[j]
			if i != j {
				r[j] += upper.Val[p] * x[i]
			}
		}
	}
	return r
}

// symNormInf returns ‖K‖∞ (maximum absolute row sum) of the symmetric K.
func symNormInf(upper *sparse.CSC) float64 {
	s := make([]float64, upper.Rows)
	for j := 0; j < upper.Cols; j++ {
		for p := upper.ColPtr[j]; p < upper.ColPtr[j+1]; p++ {
			i := upper.RowIdx[p]
			s[i] += math.Abs(upper.Val[p])
			if i != j {
				s[j] += math.Abs(upper.Val[p])
			}
		}
	}
	return normInf(s)
}

// relResidual returns ‖b − Kx‖∞ / (‖K‖∞‖x‖∞ + ‖b‖∞), the normwise backward
// error of x.
func relResidual(upper *sparse.CSC, x, b []float64) float64 {
	kx := symMul(upper, x)
	for i := range kx {
		kx[i] = b[i] - kx[i]
	}
	return normInf(kx) / (symNormInf(upper)*normInf(x) + normInf(b))
}

func randVec(rng *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	return v
}

// withValues returns a copy of a with fresh values, keeping the pattern and
// each diagonal's sign and dominance (so quasi-definiteness is preserved).
func withValues(rng *rand.Rand, a *sparse.CSC) *sparse.CSC {
	b := a.Clone()
	n := a.Cols
	rowSum := make([]float64, n)
	for j := 0; j < n; j++ {
		for p := b.ColPtr[j]; p < b.ColPtr[j+1]; p++ {
			if i := b.RowIdx[p]; i != j {
				b.Val[p] = rng.NormFloat64()
				rowSum[i] += math.Abs(b.Val[p])
				rowSum[j] += math.Abs(b.Val[p])
			}
		}
	}
	for j := 0; j < n; j++ {
		p := b.ColPtr[j+1] - 1 // diagonal is last in its column
		v := rowSum[j] + 0.5 + rng.Float64()
		if a.Val[p] < 0 {
			v = -v
		}
		b.Val[p] = v
	}
	return b
}

func mustAnalyze(t testing.TB, a *sparse.CSC, o Options) *Symbolic {
	t.Helper()
	s, err := Analyze(a, o)
	if err != nil {
		t.Fatalf("Analyze: %v", err)
	}
	return s
}

func isPerm(p []int, n int) bool {
	if len(p) != n {
		return false
	}
	seen := make([]bool, n)
	for _, i := range p {
		if i < 0 || i >= n || seen[i] {
			return false
		}
		seen[i] = true
	}
	return true
}

// dropOffDiagonal returns k without the off-diagonal entries whose position
// p in k's arrays is a multiple of every (a subset of k's pattern), and k
// with those entries stored as explicit zeros.
func dropOffDiagonal(k *sparse.CSC, every int) (sub, zeroed *sparse.CSC) {
	sub = &sparse.CSC{Rows: k.Rows, Cols: k.Cols, ColPtr: make([]int, k.Cols+1)}
	zeroed = k.Clone()
	for j := 0; j < k.Cols; j++ {
		for p := k.ColPtr[j]; p < k.ColPtr[j+1]; p++ {
			if k.RowIdx[p] != j && p%every == 0 {
				zeroed.Val[p] = 0
				continue
			}
			sub.RowIdx = append(sub.RowIdx, k.RowIdx[p])
			sub.Val = append(sub.Val, k.Val[p])
		}
		sub.ColPtr[j+1] = len(sub.RowIdx)
	}
	return sub, zeroed
}
