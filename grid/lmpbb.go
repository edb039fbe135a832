package grid

import (
	"context"
	"fmt"
	"io"
	"math"
	"sort"

	"github.com/privopt/privopt/lpdual"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/highs"
)

// A checkable bound on the KKT mixed-integer program: a deterministic
// branch and bound over its complementarity binaries, one tree per bus of
// the objective (max sign·π_i), whose every leaf carries the dual of its LP
// relaxation (the binaries fixed along its path). A node's children fix one
// binary at 0 and at 1, so the leaves partition the binary space; the
// largest leaf bound bounds max sign·π_i. One best-first search runs over
// all buses (a bus not expanded keeps its proven price bound; the open node
// with the largest bound is branched on its most fractional binary, the
// congestion rules' first) and stops when the LP budget is spent or the best
// open node's solution is integral (then the value is the program's maximum
// up to the margins: closed). The open nodes at the stop are leaves too, so
// the trees are a certificate whatever the budget. Node bounds are the
// checker's own safe bounds (package lpdual on the checker's copy of the
// relaxation), so the checker recomputes exactly the recorded values. Node
// LPs reuse one HiGHS program (its basis kept between nodes).

// LMPTree is a branch-and-bound certificate for max Sign·π_Bus over the
// KKT program built with the bounds proven by the chain before it and the
// bus selection Sel (internal indices; the selection's rows are part of the
// program, its objective is not used).
type LMPTree struct {
	Sign  float64   `json:"sign"`
	Bus   int       `json:"bus"`
	Sel   []int     `json:"sel"`
	Nodes []LMPNode `json:"nodes"` // Nodes[0] is the root
	// Value is the largest leaf bound.
	Value float64 `json:"value"`
}

// LMPNode is a node of an LMPTree: a leaf (Y set: the objective is at most X
// over the node's relaxation, by the dual Y) or a branching on the binary
// column Var, its children Kids[0] (Var = 0) and Kids[1] (Var = 1).
type LMPNode struct {
	Var  int            `json:"v,omitempty"`
	Kids []int          `json:"c,omitempty"`
	X    float64        `json:"x,omitempty"`
	Y    *lpdual.Sparse `json:"y,omitempty"`
}

type bbNode struct {
	bus    int
	tree   int // index in the trees (−1: the bus's root is not solved yet)
	id     int
	fix    map[int]float64
	bound  float64
	y      lpdual.Sparse
	x      []float64
	frac   int // most fractional binary (−1: integral)
	parent *bbNode
}

// kktTrees runs one best-first branch and bound over the buses sel (a node
// per bus and fixing; a bus's open bound is its proven price bound until
// its root is solved) with at most budget LP solves, and returns a tree per
// bus it expanded and whether it closed (the best open node integral).
func (n *Network) kktTrees(ctx context.Context, dom LoadDomain, rules MarketRules, hopt highs.Options, ev *LMPEvidence,
	piLo, piHi []float64, sign float64, cuts []subgradientCut, sel []int, budget int, w io.Writer) ([]LMPTree, bool, error) {
	k, err := n.buildKKT(dom, rules, ev, piLo, piHi, sign, cuts, sel)
	if err != nil {
		return nil, false, err
	}
	isY := map[int]bool{}
	for _, y := range k.ys {
		isY[y] = true
	}
	var bins []int
	for _, j := range k.b.integer {
		if !isY[j] {
			bins = append(bins, j)
		}
	}
	var zbins []int
	for l := range k.zUp {
		for _, z := range []int{k.zUp[l], k.zLo[l]} {
			if z >= 0 {
				zbins = append(zbins, z)
			}
		}
	}
	k.b.integer = nil
	topt := hopt
	topt.Presolve = "off"
	lp, err := buildMax(k.b, topt)
	if err != nil {
		return nil, false, err
	}
	defer lp.Close()
	// The checker's copy of the relaxation (its boxes): node bounds are
	// the safe bounds the checker will compute from the nodes' duals.
	b0 := newLPBuilder()
	m0, err := n.newMarketLP(b0, dom, rules)
	if err != nil {
		return nil, false, err
	}
	pc := &proofChecker{n: n, dom: dom, rules: rules, ev: ev, piLo: piLo, piHi: piHi}
	if err := pc.checkStructure(m0); err != nil {
		return nil, false, err
	}
	pc.theta = n.thetaBoxes(m0, lpOf(b0), pc.ptdfOK)
	pc.boxLo, pc.boxHi = ev.rec.boxLo, ev.rec.boxHi
	clp := lpOf(k.b)
	pc.boxKKT(k, clp)
	safe := func(nd *bbNode) (float64, error) {
		for j, v := range nd.fix {
			clp.Lo[j], clp.Hi[j] = v, v
		}
		u, err := lpdual.MaxBound(clp, lpdual.Sparse{Idx: []int{k.pi[nd.bus]}, Val: []float64{sign}}, nd.y, &pc.ws)
		for j := range nd.fix {
			clp.Lo[j], clp.Hi[j] = 0, 1
		}
		return u, err
	}
	cost := make([]float64, len(k.b.cost))
	var applied map[int]float64
	curBus := -1
	solve := func(bus int, fix map[int]float64) (*highs.LPResult, error) {
		if bus != curBus {
			if curBus >= 0 {
				cost[k.pi[curBus]] = 0
			}
			cost[k.pi[bus]] = sign
			curBus = bus
			if err := lp.SetCosts(cost); err != nil {
				return nil, err
			}
		}
		for j := range applied {
			if _, ok := fix[j]; !ok {
				if err := lp.SetColumnBounds(j, 0, 1); err != nil {
					return nil, err
				}
			}
		}
		for j, v := range fix {
			if err := lp.SetColumnBounds(j, v, v); err != nil {
				return nil, err
			}
		}
		applied = fix
		r, err := lp.Solve(ctx)
		if err != nil {
			return nil, err
		}
		return r, ctx.Err()
	}
	eval := func(nd *bbNode) error {
		r, err := solve(nd.bus, nd.fix)
		if err != nil {
			return err
		}
		nd.frac = -1
		parent := nd.parent
		if r.Status != solver.Optimal {
			// Infeasible (or unsolved) with the new fixing z = v: solve
			// the parent's relaxation with the fixing as a penalty,
			// max sign·π − P·|z − v|; its dual bounds the objective over
			// the child's relaxation (where the penalty vanishes), and the
			// bound falls with P when z = v is infeasible.
			if parent == nil {
				nd.bound = math.Inf(1)
				return nil // the root's proven price bound stands
			}
			z, v := -1, 0.0
			for j, x := range nd.fix {
				if _, ok := parent.fix[j]; !ok {
					z, v = j, x
				}
			}
			nd.bound, nd.y = parent.bound, parent.y
			for _, scale := range []float64{1e4, 1e6, 1e8} {
				cost[z] = -scale * math.Max(1, math.Abs(parent.bound))
				if v == 1 {
					cost[z] = -cost[z]
				}
				if err := lp.SetCosts(cost); err != nil {
					return err
				}
				r, err = solve(nd.bus, parent.fix)
				cost[z] = 0
				if err2 := lp.SetCosts(cost); err2 != nil {
					return err2
				}
				if err != nil {
					return err
				}
				if r.Status != solver.Optimal {
					continue
				}
				y := lpdual.FromDense(r.RowDual)
				u, err := safe(&bbNode{bus: nd.bus, fix: nd.fix, y: y})
				if err != nil {
					return err
				}
				if u < nd.bound {
					nd.bound, nd.y = u, y
				}
				if nd.bound < 0 {
					break
				}
			}
			return nil
		}
		nd.y = lpdual.FromDense(r.RowDual)
		u, err := safe(nd)
		if err != nil {
			return err
		}
		nd.bound, nd.x = u, r.X
		if parent != nil && !(u <= parent.bound) {
			// The parent's dual bounds the child too (never worse, and
			// finite for the file).
			nd.bound, nd.y = parent.bound, parent.y
		}
		if p := ev.part; p != nil && p.branchFirst { // the checkable pattern split (lmppatternproof.go)
			for _, z := range []int{k.zUp[p.l], k.zLo[p.l]} {
				if _, ok := nd.fix[z]; z >= 0 && !ok {
					nd.frac = z
					return nil
				}
			}
		}
		// Most fractional binary, the congestion rules' first (the
		// congestion pattern sets the prices).
		for _, set := range [][]int{zbins, bins} {
			best := 1e-6
			for _, j := range set {
				if _, ok := nd.fix[j]; ok {
					continue
				}
				if f := math.Min(r.X[j], 1-r.X[j]); f > best {
					best, nd.frac = f, j
				}
			}
			if nd.frac >= 0 {
				break
			}
		}
		return nil
	}
	var trees []LMPTree
	var open []*bbNode
	for _, i := range sel {
		b := piHi[i]
		if sign < 0 {
			b = -piLo[i]
		}
		open = append(open, &bbNode{bus: i, tree: -1, bound: b})
	}
	lps, closed := 0, false
	for len(open) > 0 {
		sort.SliceStable(open, func(a, b int) bool { return open[a].bound > open[b].bound })
		nd := open[0]
		if nd.tree >= 0 && nd.frac < 0 {
			// Integral (closed), or an infeasible child bounded by its
			// penalty dual (nothing left to branch on): stop.
			closed = nd.x != nil
			break
		}
		if lps+2 > budget || math.IsInf(nd.bound, 1) {
			break
		}
		if nd.tree < 0 {
			// Solve the bus's root; keep the proven bound if the root's
			// safe bound is not lower.
			root := &bbNode{bus: nd.bus, tree: len(trees), id: 0, fix: map[int]float64{}}
			if err := eval(root); err != nil {
				return nil, false, err
			}
			lps++
			if !(root.bound < nd.bound) {
				nd.bound = math.Inf(1) // no progress possible on this bus: stop here
				continue
			}
			trees = append(trees, LMPTree{Sign: sign, Bus: nd.bus, Sel: append([]int(nil), sel...), Nodes: []LMPNode{{}}})
			open[0] = root
			continue
		}
		open = open[1:]
		t := &trees[nd.tree]
		t.Nodes[nd.id] = LMPNode{Var: nd.frac, Kids: make([]int, 2)}
		for v := 0; v < 2; v++ {
			ch := &bbNode{bus: nd.bus, tree: nd.tree, id: len(t.Nodes), fix: make(map[int]float64, len(nd.fix)+1), parent: nd}
			for j, x := range nd.fix {
				ch.fix[j] = x
			}
			ch.fix[nd.frac] = float64(v)
			t.Nodes = append(t.Nodes, LMPNode{})
			t.Nodes[nd.id].Kids[v] = ch.id
			if err := eval(ch); err != nil {
				return nil, false, err
			}
			lps++
			open = append(open, ch)
		}
	}
	for q := range trees {
		trees[q].Value = math.Inf(-1)
	}
	value := math.Inf(-1)
	for _, nd := range open {
		if nd.tree < 0 {
			b := piHi[nd.bus]
			if sign < 0 {
				b = -piLo[nd.bus]
			}
			value = math.Max(value, b)
			continue
		}
		y := nd.y
		t := &trees[nd.tree]
		t.Nodes[nd.id] = LMPNode{X: nd.bound, Y: &y}
		t.Value = math.Max(t.Value, nd.bound)
		value = math.Max(value, nd.bound)
	}
	progress(w, "lmp-bound: checkable branch and bound, max %sπ over %d bus(es): %.6g $/MWh (%d LPs, %d trees, %d open, closed %v)",
		map[bool]string{true: "", false: "−"}[sign > 0], len(sel), value, lps, len(trees), len(open), closed)
	return trees, closed, nil
}

// checkTree verifies a tree over the KKT program of the checker's proven
// bounds and returns its value.
func (c *proofChecker) checkTree(t *LMPTree, cuts []subgradientCut, vars []int) (float64, error) {
	n := c.n
	if t.Sign != 1 && t.Sign != -1 {
		return 0, fmt.Errorf("%w: tree sign %v", ErrNotCertified, t.Sign)
	}
	isVar := make(map[int]bool, len(vars))
	for _, i := range vars {
		isVar[i] = true
	}
	seen := map[int]bool{}
	for _, i := range t.Sel {
		if !isVar[i] || seen[i] {
			return 0, fmt.Errorf("%w: tree selects bus index %d (not a varying bus, or twice)", ErrNotCertified, i)
		}
		seen[i] = true
	}
	if len(t.Sel) == 0 || len(t.Nodes) == 0 || !isVar[t.Bus] {
		return 0, fmt.Errorf("%w: empty tree, or its bus %d does not vary", ErrNotCertified, t.Bus)
	}
	k, err := n.buildKKT(c.dom, c.rules, c.ev, c.piLo, c.piHi, t.Sign, cuts, t.Sel)
	if err != nil {
		return 0, fmt.Errorf("%w: %v", ErrNotCertified, err)
	}
	isBin := make(map[int]bool, len(k.b.integer))
	for _, j := range k.b.integer {
		isBin[j] = true
	}
	lp := lpOf(k.b)
	c.boxKKT(k, lp)
	obj := lpdual.Sparse{Idx: []int{k.pi[t.Bus]}, Val: []float64{t.Sign}}
	visited := make([]bool, len(t.Nodes))
	value := math.Inf(-1)
	var walk func(id int, depth int) error
	walk = func(id, depth int) error {
		if id < 0 || id >= len(t.Nodes) || visited[id] {
			return fmt.Errorf("%w: tree node %d missing or shared", ErrNotCertified, id)
		}
		visited[id] = true
		nd := t.Nodes[id]
		if nd.Y != nil {
			u, err := c.bound(lp, obj, nd.Y, fmt.Sprintf("tree leaf %d", id))
			if err != nil {
				return err
			}
			if err := c.upper(&t.Nodes[id].X, u, fmt.Sprintf("tree leaf %d", id)); err != nil {
				return err
			}
			value = math.Max(value, t.Nodes[id].X)
			return nil
		}
		j := nd.Var
		if len(nd.Kids) != 2 {
			return fmt.Errorf("%w: tree node %d has %d children", ErrNotCertified, id, len(nd.Kids))
		}
		if !isBin[j] || lp.Lo[j] != 0 || lp.Hi[j] != 1 {
			return fmt.Errorf("%w: tree node %d branches on column %d, not a free binary", ErrNotCertified, id, j)
		}
		for v := 0; v < 2; v++ {
			lp.Lo[j], lp.Hi[j] = float64(v), float64(v)
			if err := walk(nd.Kids[v], depth+1); err != nil {
				return err
			}
		}
		lp.Lo[j], lp.Hi[j] = 0, 1
		return nil
	}
	if err := walk(0, 0); err != nil {
		return 0, err
	}
	for id, v := range visited {
		if !v {
			return 0, fmt.Errorf("%w: tree node %d is not reachable from the root", ErrNotCertified, id)
		}
	}
	return value, nil
}
