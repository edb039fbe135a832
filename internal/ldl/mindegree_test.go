package ldl

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/privopt/privopt/sparse"
)

// randomUpperPattern returns the upper triangle (diagonal included) of a
// random symmetric pattern of order n with about deg off-diagonal entries
// per row.
func randomUpperPattern(rng *rand.Rand, n, deg int) *sparse.CSC {
	t := sparse.NewTriplets(n, n, n*(deg+1))
	for j := 0; j < n; j++ {
		t.Append(j, j, 1)
	}
	for k := 0; k < n*deg/2; k++ {
		i, j := rng.IntN(n), rng.IntN(n)
		if i == j {
			continue
		}
		t.Append(min(i, j), max(i, j), 1)
	}
	a := t.ToCSC()
	for k := range a.Val {
		a.Val[k] = 1 // duplicates summed: keep a plain pattern
	}
	return a
}

// TestMinimumDegreeIsMinimumDegree checks mdOrder against an independent
// simulation on a dense boolean elimination graph: every pivot has the
// smallest degree among the remaining nodes when it is eliminated, and the
// order is a permutation.
func TestMinimumDegreeIsMinimumDegree(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 8))
	for trial := 0; trial < 40; trial++ {
		n := 1 + rng.IntN(150)
		a := randomUpperPattern(rng, n, 1+rng.IntN(6))
		perm := mdOrder(n, a.ColPtr, a.RowIdx, nil, nil)
		if err := checkPerm(perm, n); err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		g := make([][]bool, n)
		for i := range g {
			g[i] = make([]bool, n)
		}
		for j := 0; j < n; j++ {
			for p := a.ColPtr[j]; p < a.ColPtr[j+1]; p++ {
				if i := a.RowIdx[p]; i != j {
					g[i][j], g[j][i] = true, true
				}
			}
		}
		gone := make([]bool, n)
		degree := func(i int) int {
			d := 0
			for j := range g[i] {
				if g[i][j] && !gone[j] {
					d++
				}
			}
			return d
		}
		for k, piv := range perm {
			dp := degree(piv)
			for i := 0; i < n; i++ {
				if gone[i] || i == piv {
					continue
				}
				if d := degree(i); d < dp {
					t.Fatalf("trial %d (n = %d): pivot %d is node %d of degree %d, but node %d has degree %d", trial, n, k, piv, dp, i, d)
				}
			}
			// eliminate: the remaining neighbours become a clique
			var nb []int
			for j := range g[piv] {
				if g[piv][j] && !gone[j] {
					nb = append(nb, j)
				}
			}
			for _, u := range nb {
				for _, v := range nb {
					if u != v {
						g[u][v] = true
					}
				}
			}
			gone[piv] = true
		}
	}
}

// TestMinimumDegreeTreeNoFill: on a tree a node of minimum degree is a leaf,
// so the ordering eliminates leaves only and the factor has no fill:
// nnz(L) = n − 1 (strictly lower entries), which Analyze must report.
func TestMinimumDegreeTreeNoFill(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 9))
	for trial := 0; trial < 20; trial++ {
		n := 2 + rng.IntN(200)
		tr := sparse.NewTriplets(n, n, 2*n)
		for j := 0; j < n; j++ {
			tr.Append(j, j, 1)
			if j > 0 {
				tr.Append(rng.IntN(j), j, 1) // parent before child: upper
			}
		}
		s, err := Analyze(tr.ToCSC(), Options{Ordering: MinimumDegree})
		if err != nil {
			t.Fatal(err)
		}
		if got := s.NnzL(); got != n-1 {
			t.Fatalf("trial %d: tree of %d nodes: nnz(L) = %d, want %d (no fill)", trial, n, got, n-1)
		}
	}
}

// TestMinimumDegreeOrderLimit: a matrix above MaxMinimumDegreeOrder is
// refused with ErrInvalidInput, naming the order.
func TestMinimumDegreeOrderLimit(t *testing.T) {
	n := MaxMinimumDegreeOrder + 1
	tr := sparse.NewTriplets(n, n, n)
	for j := 0; j < n; j++ {
		tr.Append(j, j, 1)
	}
	_, err := Analyze(tr.ToCSC(), Options{Ordering: MinimumDegree})
	if err == nil || !errors.Is(err, ErrInvalidInput) {
		t.Fatalf("order %d: err = %v, want ErrInvalidInput", n, err)
	}
}

// TestMinimumDegreeTreeAndCounts checks the elimination tree and column
// counts that mdOrder reads off its elimination graph against those the
// row-subtree pass (etreeAndCounts) computes for the same ordering, given
// to Analyze as a Given permutation.
func TestMinimumDegreeTreeAndCounts(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 9))
	for trial := 0; trial < 60; trial++ {
		n := 1 + rng.IntN(200)
		a := randomUpperPattern(rng, n, 1+rng.IntN(6))
		parent, count := make([]int, n), make([]int, n)
		perm := mdOrder(n, a.ColPtr, a.RowIdx, parent, count)
		ref, err := Analyze(a, Options{Ordering: Given, Perm: perm})
		if err != nil {
			t.Fatal(err)
		}
		for k := 0; k < n; k++ {
			if parent[k] != ref.parent[k] || count[k] != ref.lp[k+1]-ref.lp[k] {
				t.Fatalf("trial %d (n = %d), step %d: parent %d, count %d; the row-subtree pass gives %d, %d",
					trial, n, k, parent[k], count[k], ref.parent[k], ref.lp[k+1]-ref.lp[k])
			}
		}
		// and Analyze with the MinimumDegree ordering keeps the fill
		md, err := Analyze(a, Options{Ordering: MinimumDegree})
		if err != nil {
			t.Fatal(err)
		}
		if md.NnzL() != ref.NnzL() {
			t.Fatalf("trial %d: nnz(L) %d with MinimumDegree, %d with its permutation given", trial, md.NnzL(), ref.NnzL())
		}
	}
}
