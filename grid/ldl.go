package grid

import (
	"fmt"
	"math"

	"github.com/privopt/privopt/sparse"
)

// ldlFactor is a sparse LDLᵀ factorization P A Pᵀ = L D Lᵀ of a symmetric matrix
// with a minimum-degree ordering P, computed by the up-looking algorithm of
// T. A. Davis, "Algorithm 849: A concise sparse Cholesky factorization package",
// ACM TOMS 31(4), 2005. No pivoting: it succeeds whenever every pivot is non-zero,
// which holds for the reduced DC susceptance matrix of a connected network with
// positive susceptances (it is then positive definite) and in practice with a few
// negative (series-compensated) branches; a zero pivot is reported as an error.
type ldlFactor struct {
	n      int
	perm   []int // perm[k] = original index of pivot k
	lp, li []int
	lx, d  []float64
}

// minDegreeOrder returns a minimum-degree elimination order of the symmetric
// sparsity pattern of a (both triangles or either), by explicit elimination on the
// graph with ties broken by the lowest index. O(Σ deg²) — fine for power networks
// whose fill is small.
func minDegreeOrder(a *sparse.CSC) []int {
	n := a.Cols
	adj := make([]map[int]struct{}, n)
	for j := range adj {
		adj[j] = map[int]struct{}{}
	}
	for j := 0; j < n; j++ {
		for p := a.ColPtr[j]; p < a.ColPtr[j+1]; p++ {
			if i := a.RowIdx[p]; i != j {
				adj[i][j] = struct{}{}
				adj[j][i] = struct{}{}
			}
		}
	}
	done := make([]bool, n)
	order := make([]int, 0, n)
	for len(order) < n {
		best, bd := -1, math.MaxInt
		for v := 0; v < n; v++ {
			if !done[v] && len(adj[v]) < bd {
				best, bd = v, len(adj[v])
			}
		}
		done[best] = true
		order = append(order, best)
		nb := make([]int, 0, len(adj[best]))
		for u := range adj[best] {
			nb = append(nb, u)
			delete(adj[u], best)
		}
		for x, u := range nb {
			for _, w := range nb[x+1:] {
				adj[u][w] = struct{}{}
				adj[w][u] = struct{}{}
			}
		}
		adj[best] = nil
	}
	return order
}

// factorLDL factors the symmetric matrix a (both triangles stored; only entries
// with row ≤ column after permutation are read).
func factorLDL(a *sparse.CSC) (*ldlFactor, error) {
	n := a.Cols
	perm := minDegreeOrder(a)
	pinv := make([]int, n)
	for k, i := range perm {
		pinv[i] = k
	}
	t := sparse.NewTriplets(n, n, a.Nnz())
	for j := 0; j < n; j++ {
		for p := a.ColPtr[j]; p < a.ColPtr[j+1]; p++ {
			r, c := pinv[a.RowIdx[p]], pinv[j]
			if r <= c {
				t.Append(r, c, a.Val[p])
			}
		}
	}
	c := t.ToCSC()
	// Symbolic: elimination tree and column counts.
	parent := make([]int, n)
	flag := make([]int, n)
	lnz := make([]int, n)
	for k := 0; k < n; k++ {
		parent[k], flag[k] = -1, k
		for p := c.ColPtr[k]; p < c.ColPtr[k+1]; p++ {
			for i := c.RowIdx[p]; i < k && flag[i] != k; i = parent[i] {
				if parent[i] == -1 {
					parent[i] = k
				}
				lnz[i]++
				flag[i] = k
			}
		}
	}
	lp := make([]int, n+1)
	for k := 0; k < n; k++ {
		lp[k+1] = lp[k] + lnz[k]
	}
	f := &ldlFactor{n: n, perm: perm, lp: lp, li: make([]int, lp[n]), lx: make([]float64, lp[n]), d: make([]float64, n)}
	// Numeric.
	y := make([]float64, n)
	pattern := make([]int, n)
	for k := 0; k < n; k++ {
		top := n
		flag[k] = k
		lnz[k] = 0
		for p := c.ColPtr[k]; p < c.ColPtr[k+1]; p++ {
			i := c.RowIdx[p]
			y[i] += c.Val[p]
			ln := 0
			for ; flag[i] != k; i = parent[i] {
				pattern[ln] = i
				ln++
				flag[i] = k
			}
			for ln > 0 {
				top--
				ln--
				pattern[top] = pattern[ln]
			}
		}
		f.d[k] = y[k]
		y[k] = 0
		for ; top < n; top++ {
			i := pattern[top]
			yi := y[i]
			y[i] = 0
			p2 := lp[i] + lnz[i]
			for p := lp[i]; p < p2; p++ {
				y[f.li[p]] -= f.lx[p] * yi
			}
			lki := yi / f.d[i]
			f.d[k] -= lki * yi
			f.li[p2] = k
			f.lx[p2] = lki
			lnz[i]++
		}
		if f.d[k] == 0 || math.IsNaN(f.d[k]) {
			return nil, fmt.Errorf("grid: susceptance matrix is singular (zero pivot at bus index %d)", perm[k])
		}
	}
	return f, nil
}

// solveTo overwrites x with A⁻¹x. work must have length n.
func (f *ldlFactor) solveTo(x, work []float64) {
	for k, i := range f.perm {
		work[k] = x[i]
	}
	for j := 0; j < f.n; j++ {
		wj := work[j]
		for p := f.lp[j]; p < f.lp[j+1]; p++ {
			work[f.li[p]] -= f.lx[p] * wj
		}
	}
	for j := 0; j < f.n; j++ {
		work[j] /= f.d[j]
	}
	for j := f.n - 1; j >= 0; j-- {
		s := work[j]
		for p := f.lp[j]; p < f.lp[j+1]; p++ {
			s -= f.lx[p] * work[f.li[p]]
		}
		work[j] = s
	}
	for k, i := range f.perm {
		x[i] = work[k]
	}
}

// nnzL returns the number of off-diagonal entries of L (fill measure).
func (f *ldlFactor) nnzL() int { return f.lp[f.n] }
