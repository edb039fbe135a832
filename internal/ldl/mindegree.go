package ldl

import (
	"math/bits"

	"github.com/privopt/privopt/internal/arena"
)

// MaxMinimumDegreeOrder is the largest order the MinimumDegree ordering
// accepts: its elimination graph is held as n bitsets of n bits, and every
// pivot selection scans the n degrees, so its cost grows as n²·⌈n/64⌉/64
// word operations — below AMD's on small matrices, above it on large ones.
const MaxMinimumDegreeOrder = 1024

// mdOrder returns the exact minimum degree ordering (Tinney and Walker's
// scheme 2, Proc. IEEE 55(11), 1967; George and Liu, SIAM Review 31(1),
// 1989) of the symmetric matrix whose upper triangle pattern is (colPtr,
// rowIdx), n ≤ MaxMinimumDegreeOrder: a node of smallest degree in the
// elimination graph is eliminated next (among equal degrees the one whose
// degree was set last, as AMD's degree lists do) and its neighbours become
// a clique. The elimination graph is stored explicitly as one bitset per
// node, so the degrees are exact (AMD, Amestoy, Davis and Duff 1996, bounds
// them on a quotient graph instead, which pays off only when the graph is
// too large to store); the nodes wait in doubly linked lists by degree.
//
// With parent and count non-nil (n entries each) it also returns the
// elimination tree and the column counts of L for the ordering, indexed by
// elimination step k: the neighbours of the k-th pivot when it is eliminated
// are exactly the rows of column k of L (Rose's elimination graph model;
// George and Liu, section 2), so count[k] is the pivot's degree then and
// parent[k] the earliest later step among those neighbours (−1 when none).
// Its row of bitsets is never touched after its elimination, so both are
// read off at the end without a separate pass over the permuted matrix.
func mdOrder(n int, colPtr, rowIdx, parent, count []int) []int {
	words := (n + 63) / 64
	adj := arena.Words.Get(n * words) // scratch, released on return
	defer arena.Words.Release(adj)
	for j := 0; j < n; j++ {
		for p := colPtr[j]; p < colPtr[j+1]; p++ {
			if i := rowIdx[p]; i != j {
				adj[i*words+j>>6] |= 1 << (j & 63)
				adj[j*words+i>>6] |= 1 << (i & 63)
			}
		}
	}
	// deg[i]: degree of live node i; head[d]: first node of degree d;
	// next, prev: the lists (−1 ends them)
	ints := arena.Ints.Get(4 * n) // scratch, released on return
	defer arena.Ints.Release(ints)
	deg, head, next, prev := ints[:n:n], ints[n:2*n:2*n], ints[2*n:3*n:3*n], ints[3*n:]
	for d := range head {
		head[d] = -1
	}
	insert := func(i, d int) {
		deg[i] = d
		prev[i] = -1
		next[i] = head[d]
		if head[d] != -1 {
			prev[head[d]] = i
		}
		head[d] = i
	}
	remove := func(i int) {
		if prev[i] != -1 {
			next[prev[i]] = next[i]
		} else {
			head[deg[i]] = next[i]
		}
		if next[i] != -1 {
			prev[next[i]] = prev[i]
		}
	}
	for i := n - 1; i >= 0; i-- {
		d := 0
		for _, v := range adj[i*words : (i+1)*words] {
			d += bits.OnesCount64(v)
		}
		insert(i, d)
	}
	perm := make([]int, 0, n)
	mindeg := 0
	for range n {
		for head[mindeg] == -1 {
			mindeg++
		}
		piv := head[mindeg]
		remove(piv)
		perm = append(perm, piv)
		nb := adj[piv*words : (piv+1)*words]
		// the neighbours of piv become a clique; piv leaves their lists
		for w, v := range nb {
			for v != 0 {
				j := w<<6 | bits.TrailingZeros64(v)
				v &= v - 1
				row := adj[j*words : (j+1)*words]
				d := 0
				for u, x := range nb {
					x |= row[u]
					if u == j>>6 {
						x &^= 1 << (j & 63)
					}
					if u == piv>>6 {
						x &^= 1 << (piv & 63)
					}
					row[u] = x
					d += bits.OnesCount64(x)
				}
				if d != deg[j] {
					remove(j)
					insert(j, d)
					mindeg = min(mindeg, d)
				}
			}
		}
	}
	if parent != nil {
		iperm := deg // free now
		for k, i := range perm {
			iperm[i] = k
		}
		for k, i := range perm {
			c, first := 0, n
			for w, v := range adj[i*words : (i+1)*words] {
				c += bits.OnesCount64(v)
				for v != 0 {
					first = min(first, iperm[w<<6|bits.TrailingZeros64(v)])
					v &= v - 1
				}
			}
			count[k] = c
			if first == n {
				first = -1
			}
			parent[k] = first
		}
	}
	return perm
}
