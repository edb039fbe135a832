package ldl

import "math/bits"

// MaxMinimumDegreeOrder is the largest order the MinimumDegree ordering
// accepts: its elimination graph is held as n bitsets of n bits, and every
// pivot selection scans the n degrees, so its cost grows as n²·⌈n/64⌉/64
// word operations — below AMD's on small matrices, above it on large ones.
const MaxMinimumDegreeOrder = 1024

// mdOrder returns the exact minimum degree ordering (Tinney and Walker's
// scheme 2, Proc. IEEE 55(11), 1967; George and Liu, SIAM Review 31(1),
// 1989) of the symmetric matrix whose upper triangle pattern is (colPtr,
// rowIdx), n ≤ MaxMinimumDegreeOrder: the node of smallest degree in the
// elimination graph is eliminated next (ties: the smallest index) and its
// neighbours become a clique. The elimination graph is stored explicitly
// as one bitset per node, so the degrees are exact (AMD, Amestoy, Davis and
// Duff 1996, bounds them on a quotient graph instead, which pays off only
// when the graph is too large to store).
func mdOrder(n int, colPtr, rowIdx []int) []int {
	words := (n + 63) / 64
	adj := make([]uint64, n*words)
	for j := 0; j < n; j++ {
		for p := colPtr[j]; p < colPtr[j+1]; p++ {
			if i := rowIdx[p]; i != j {
				adj[i*words+j>>6] |= 1 << (j & 63)
				adj[j*words+i>>6] |= 1 << (i & 63)
			}
		}
	}
	deg := make([]int, n)
	for i := range deg {
		d := 0
		for _, v := range adj[i*words : (i+1)*words] {
			d += bits.OnesCount64(v)
		}
		deg[i] = d
	}
	perm := make([]int, 0, n)
	const eliminated = 1 << 62 // a degree no live node reaches
	for range n {
		piv := 0
		for i, d := range deg {
			if d < deg[piv] {
				piv = i
			}
		}
		perm = append(perm, piv)
		deg[piv] = eliminated
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
				deg[j] = d
			}
		}
	}
	return perm
}
