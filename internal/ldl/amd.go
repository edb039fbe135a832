package ldl

import (
	"sort"
	"sync"
)

// This file implements the approximate minimum degree ordering of Amestoy,
// Davis and Duff, "An approximate minimum degree ordering algorithm", SIAM J.
// Matrix Anal. Appl. 17(4):886–905, 1996, written from the paper's description:
//
//   - The graph of the partially eliminated matrix is kept as a quotient graph:
//     every node is a (super)variable or an element (an eliminated pivot that
//     stands for the clique of its uneliminated neighbours). Variable i has the
//     list Eᵢ of elements it belongs to followed by the list Aᵢ of variables it
//     is still adjacent to by an original edge; element e has its variable list
//     Lₑ. Eliminating a pivot p creates the element Lₚ = (Aₚ ∪ ⋃_{e∈Eₚ} Lₑ) \ {p}
//     and absorbs every e ∈ Eₚ (element absorption), so storage never exceeds
//     that of the original graph (plus the elbow room in which new elements are
//     built).
//   - Degrees are not exact: for i ∈ Lₚ the approximate external degree is
//
//       d̄ᵢ = min( n−k,  d̄ᵢ_old + |Lₚ \ i|,  |Aᵢ \ i| + |Lₚ \ i| + Σ_{e∈Eᵢ\{p}} |Lₑ \ Lₚ| ),
//
//     where |Lₑ \ Lₚ| for all elements e that touch Lₚ is computed in one pass
//     over Lₚ (the "w" array: w(e) = |Lₑ| minus the weights of e's members in
//     Lₚ), so a degree update costs O(|Eᵢ| + |Aᵢ|), not a set union.
//   - Supervariables: variables of Lₚ with identical lists (found through a
//     hash of the list and a pairwise check within a bucket) are merged into
//     one node of weight nv, and variables whose only neighbour is the new
//     element are eliminated together with p (mass elimination).
//   - Aggressive absorption: an element e with Lₑ ⊆ Lₚ (|Lₑ \ Lₚ| = 0) found
//     during the degree update is absorbed into p as well.
//   - Dense rows: as AMD does, rows with degree above max(16, α·√n) (α = 10 by
//     default) are removed before the ordering and placed last, which keeps a
//     few dense columns (an arrow matrix, the coupling columns of a KKT system)
//     from destroying both the ordering's run time and its quality.
//
// The elimination order is the order in which pivots are selected, each
// followed by the variables merged into it or mass-eliminated with it.

const (
	amdVariable = iota // principal variable
	amdElement         // live element
	amdDead            // absorbed element, non-principal or eliminated variable
)

// amdOrder returns the AMD permutation (perm[k] = original index of pivot k)
// of the symmetric matrix whose upper triangle pattern is (colPtr, rowIdx),
// and the number of dense rows ordered last. A non-nil interrupt is polled
// every amdPollPivots pivots; when it returns true amdOrder stops and returns
// a nil permutation.
func amdOrder(n int, colPtr, rowIdx []int, denseFactor float64, interrupt func() bool) ([]int, int) {
	perm := make([]int, 0, n)
	if n == 0 {
		return perm, 0
	}
	// Degrees in the graph of A + Aᵀ without the diagonal.
	deg := make([]int, n)
	for j := 0; j < n; j++ {
		for p := colPtr[j]; p < colPtr[j+1]; p++ {
			if i := rowIdx[p]; i != j {
				deg[i]++
				deg[j]++
			}
		}
	}
	dense := make([]bool, n)
	thr := denseThreshold(n, denseFactor)
	var denseNodes []int
	for i, d := range deg {
		if d > thr {
			dense[i] = true
			denseNodes = append(denseNodes, i)
		}
	}
	fullDeg := append([]int(nil), deg...)
	// Graph without the dense nodes.
	nnz := 0
	for i := range deg {
		deg[i] = 0
	}
	for j := 0; j < n; j++ {
		if dense[j] {
			continue
		}
		for p := colPtr[j]; p < colPtr[j+1]; p++ {
			if i := rowIdx[p]; i != j && !dense[i] {
				deg[i]++
				deg[j]++
				nnz += 2
			}
		}
	}
	g := newAMDGraph(n, deg, nnz)
	for j := 0; j < n; j++ {
		if dense[j] {
			continue
		}
		for p := colPtr[j]; p < colPtr[j+1]; p++ {
			if i := rowIdx[p]; i != j && !dense[i] {
				g.iw[g.pe[i]+g.length[i]] = j
				g.length[i]++
				g.iw[g.pe[j]+g.length[j]] = i
				g.length[j]++
			}
		}
	}
	perm = g.order(perm, dense, interrupt)
	amdGraphs.Put(g)
	if perm == nil {
		return nil, 0
	}
	// Dense rows last, sparsest first (ties by index), as AMD does.
	sort.SliceStable(denseNodes, func(a, b int) bool {
		return fullDeg[denseNodes[a]] < fullDeg[denseNodes[b]]
	})
	perm = append(perm, denseNodes...)
	return perm, len(denseNodes)
}

// amdGraph is the quotient graph. Lists live in iw: node i's list is
// iw[pe[i] : pe[i]+length[i]]; for a variable, its first elen[i] entries are
// elements.
type amdGraph struct {
	n      int
	iw     []int
	pe     []int
	length []int
	elen   []int
	nv     []int // supervariable weight; negated while the variable is in Lₚ
	degree []int // approximate external degree (variable) or |Lₑ| (element)
	w      []int // element marks: w(e) − wflg = |Lₑ \ Lₚ| during an update; 0 = dead element
	kind   []uint8
	pfree  int

	head, next, last []int // degree lists
	hhead, hnext     []int // hash buckets
	hash             []int

	chainNext, chainTail []int // nodes eliminated together with a representative
}

// amdGraphs keeps the quotient graphs of finished orderings for reuse: an
// ordering allocates fifteen arrays, which on small matrices (the KKT
// systems of models with tens of variables, solved thousands of times) cost
// as much as the ordering itself.
var amdGraphs sync.Pool

// resize returns v with length k, reusing its storage when large enough.
// The contents are unspecified: order initializes every array it reads.
func resize(v []int, k int) []int {
	if cap(v) < k {
		return make([]int, k)
	}
	return v[:k]
}

func newAMDGraph(n int, deg []int, nnz int) *amdGraph {
	g, _ := amdGraphs.Get().(*amdGraph)
	if g == nil {
		g = &amdGraph{}
	}
	g.n = n
	iwlen := nnz + nnz/5 + 2*n + 16 // elbow room for new elements
	g.iw = resize(g.iw, iwlen)
	g.head = resize(g.head, n+1)
	for _, v := range []*[]int{&g.pe, &g.length, &g.elen, &g.nv, &g.degree, &g.w, &g.next, &g.last,
		&g.hhead, &g.hnext, &g.hash, &g.chainNext, &g.chainTail} {
		*v = resize(*v, n)
	}
	if cap(g.kind) < n {
		g.kind = make([]uint8, n)
	}
	g.kind = g.kind[:n]
	clear(g.length)
	clear(g.elen)
	p := 0
	for i := 0; i < n; i++ {
		g.pe[i] = p
		p += deg[i]
		g.degree[i] = deg[i]
	}
	g.pfree = p
	return g
}

func (g *amdGraph) removeDeg(i int) {
	d := g.degree[i]
	if g.last[i] != -1 {
		g.next[g.last[i]] = g.next[i]
	} else {
		g.head[d] = g.next[i]
	}
	if g.next[i] != -1 {
		g.last[g.next[i]] = g.last[i]
	}
}

func (g *amdGraph) insertDeg(i, d int) {
	g.degree[i] = d
	g.last[i] = -1
	g.next[i] = g.head[d]
	if g.head[d] != -1 {
		g.last[g.head[d]] = i
	}
	g.head[d] = i
}

// appendChain puts the chain of j after the chain of i.
func (g *amdGraph) appendChain(i, j int) {
	g.chainNext[g.chainTail[i]] = j
	g.chainTail[i] = g.chainTail[j]
}

// compact moves all live lists to the front of a fresh iw with at least need
// free entries after them.
func (g *amdGraph) compact(need int) {
	live := 0
	for i := 0; i < g.n; i++ {
		if g.kind[i] != amdDead {
			live += g.length[i]
		}
	}
	size := max(len(g.iw), 2*(live+need))
	iw := make([]int, size)
	p := 0
	for i := 0; i < g.n; i++ {
		if g.kind[i] == amdDead {
			continue
		}
		copy(iw[p:], g.iw[g.pe[i]:g.pe[i]+g.length[i]])
		g.pe[i] = p
		p += g.length[i]
	}
	g.iw = iw
	g.pfree = p
}

// amdPollPivots is how often (in pivots) the minimum degree loop polls its
// interrupt: a pivot costs O(|Lₚ| + Σ|Eᵢ| + |Aᵢ|), so 64 of them are far
// below a millisecond on sparse KKT systems, and the poll (a context's Err)
// costs a mutex.
const amdPollPivots = 64

// order runs the minimum degree loop over the non-skipped nodes and appends
// the elimination order to perm. It returns nil when interrupt (if not nil)
// returns true.
func (g *amdGraph) order(perm []int, skip []bool, interrupt func() bool) []int {
	n := g.n
	// The lists as locals: the compiler keeps their headers in registers
	// instead of reloading them from g after every store.
	pe, length, elen, nv, degree, w, kind := g.pe, g.length, g.elen, g.nv, g.degree, g.w, g.kind
	hhead, hnext, hash := g.hhead, g.hnext, g.hash
	for d := range g.head {
		g.head[d] = -1
	}
	nel := 0 // weight of eliminated variables
	for i := 0; i < n; i++ {
		hhead[i] = -1
		hnext[i] = -1
		g.chainNext[i] = -1
		g.chainTail[i] = i
		w[i] = 1
		if skip[i] {
			kind[i] = amdDead
			length[i] = 0
			nel++
			continue
		}
		kind[i] = amdVariable
		nv[i] = 1
		g.insertDeg(i, degree[i])
	}
	wflg := 2
	mindeg := 0
	iw := g.iw
	for step := 1; nel < n; step++ {
		if interrupt != nil && step%amdPollPivots == 0 && interrupt() {
			return nil
		}
		// Select a variable of minimum approximate degree.
		for mindeg < n && g.head[mindeg] == -1 {
			mindeg++
		}
		me := g.head[mindeg]
		g.removeDeg(me)
		elenme := elen[me]
		nvpiv := nv[me]
		nel += nvpiv
		nv[me] = -nvpiv
		degme := 0

		// Construct the new element Lme.
		var pme1, pme2 int // Lme = iw[pme1:pme2]
		if elenme == 0 {
			// Only variables: build Lme in place.
			pme1 = pe[me]
			pme2 = pme1
			for p := pme1; p < pme1+length[me]; p++ {
				i := iw[p]
				if nvi := nv[i]; nvi > 0 {
					degme += nvi
					nv[i] = -nvi
					iw[pme2] = i
					pme2++
					g.removeDeg(i)
				}
			}
		} else {
			need := length[me] - elenme
			for p := pe[me]; p < pe[me]+elenme; p++ {
				need += length[iw[p]]
			}
			if g.pfree+need > len(iw) {
				g.compact(need)
				iw = g.iw
			}
			pme1 = g.pfree
			pme2 = pme1
			pme := pe[me]
			for k := 0; k <= elenme; k++ {
				var pj, ln int
				e := me
				if k < elenme {
					e = iw[pme+k]
					pj, ln = pe[e], length[e]
				} else {
					pj, ln = pme+elenme, length[me]-elenme
				}
				for p := pj; p < pj+ln; p++ {
					i := iw[p]
					if nvi := nv[i]; nvi > 0 {
						degme += nvi
						nv[i] = -nvi
						iw[pme2] = i
						pme2++
						g.removeDeg(i)
					}
				}
				if e != me {
					// Element absorption.
					kind[e] = amdDead
					w[e] = 0
				}
			}
			g.pfree = pme2
		}
		kind[me] = amdElement
		pe[me] = pme1
		length[me] = pme2 - pme1
		elen[me] = 0
		degree[me] = degme

		// Scan 1: w(e) − wflg = |Le \ Lme| for every element e touching Lme.
		for pme := pme1; pme < pme2; pme++ {
			i := iw[pme]
			eln := elen[i]
			if eln == 0 {
				continue
			}
			nvi := -nv[i]
			wnvi := wflg - nvi
			for p := pe[i]; p < pe[i]+eln; p++ {
				e := iw[p]
				we := w[e]
				if we >= wflg {
					we -= nvi
				} else if we != 0 {
					we = degree[e] + wnvi
				}
				w[e] = we
			}
		}

		// Scan 2: degree update, element pruning, mass elimination.
		for pme := pme1; pme < pme2; pme++ {
			i := iw[pme]
			p1 := pe[i]
			p2 := p1 + elen[i]
			pn := p1
			h := 0
			d := 0
			for p := p1; p < p2; p++ {
				e := iw[p]
				we := w[e]
				if we == 0 {
					continue // absorbed
				}
				if dext := we - wflg; dext > 0 {
					d += dext
					iw[pn] = e
					pn++
					h += e
				} else {
					// Aggressive absorption: Le ⊆ Lme.
					kind[e] = amdDead
					w[e] = 0
				}
			}
			elen[i] = pn - p1 + 1
			p3 := pn
			p4 := p1 + length[i]
			for p := p2; p < p4; p++ {
				j := iw[p]
				if nvj := nv[j]; nvj > 0 {
					d += nvj
					iw[pn] = j
					pn++
					h += j
				}
			}
			if elen[i] == 1 && p3 == pn {
				// Mass elimination: i is adjacent to me only.
				nvi := -nv[i]
				degme -= nvi
				nvpiv += nvi
				nel += nvi
				nv[i] = 0
				kind[i] = amdDead
				elen[i] = 0
				length[i] = 0
				g.appendChain(me, i)
				continue
			}
			degree[i] = min(degree[i], d)
			// Put me first among the elements; room for one more entry exists
			// because i's list held me or an element absorbed into me.
			iw[pn] = iw[p3]
			iw[p3] = iw[p1]
			iw[p1] = me
			length[i] = pn - p1 + 1
			h %= n
			hash[i] = h
			hnext[i] = hhead[h]
			hhead[h] = i
		}
		degree[me] = degme
		wflg += n + 1

		// Supervariable detection within the hash buckets of Lme.
		for pme := pme1; pme < pme2; pme++ {
			i := iw[pme]
			if nv[i] >= 0 {
				continue
			}
			h := hash[i]
			first := hhead[h]
			if first == -1 {
				continue
			}
			hhead[h] = -1
			for a := first; a != -1 && hnext[a] != -1; a = hnext[a] {
				ln, eln := length[a], elen[a]
				pa := pe[a]
				for p := pa + 1; p < pa+ln; p++ {
					w[iw[p]] = wflg
				}
				prev := a
				for b := hnext[a]; b != -1; {
					ok := length[b] == ln && elen[b] == eln
					if ok {
						pb := pe[b]
						for p := pb + 1; p < pb+ln; p++ {
							if w[iw[p]] != wflg {
								ok = false
								break
							}
						}
					}
					nb := hnext[b]
					if ok {
						// b is indistinguishable from a: merge.
						nv[a] += nv[b] // both negative
						nv[b] = 0
						kind[b] = amdDead
						elen[b] = 0
						length[b] = 0
						g.appendChain(a, b)
						hnext[prev] = nb
					} else {
						prev = b
					}
					b = nb
				}
				wflg++
			}
		}

		// Finalize degrees of Lme, compress Lme, restore weights.
		p := pme1
		nleft := n - nel
		for pme := pme1; pme < pme2; pme++ {
			i := iw[pme]
			nvi := -nv[i]
			if nvi <= 0 {
				continue
			}
			nv[i] = nvi
			d := min(degree[i]+degme-nvi, nleft-nvi)
			g.insertDeg(i, d)
			mindeg = min(mindeg, d)
			iw[p] = i
			p++
		}
		nv[me] = nvpiv
		length[me] = p - pme1
		if length[me] == 0 {
			kind[me] = amdDead
			w[me] = 0
		}
		if elenme != 0 {
			g.pfree = p
		}
		if wflg > 1<<60 {
			for x := range w {
				if w[x] != 0 {
					w[x] = 1
				}
			}
			wflg = 2
		}
		for x := me; x != -1; x = g.chainNext[x] {
			perm = append(perm, x)
		}
	}
	return perm
}
