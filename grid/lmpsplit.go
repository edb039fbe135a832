package grid

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"
)

// Spatial branch and bound over the public load box (domain splitting).
//
// The certified quantity max_{d ∈ D, i varying, π ∈ ∂V(d)} |π_i| is, for any
// partition of D into boxes D_1 … D_k, the largest of the same maxima over
// the D_q. Every relaxation lmpBound builds (the cost gap G, the flow
// ranges, the congestion dual bounds G/slack, the price bounds, the big-Ms
// and McCormick boxes of the KKT program) is tighter over a smaller box, so
// the largest of the per-box bounds can be far below the bound over D
// (the spatial branch and bound of global optimization: Horst and Tuy,
// "Global Optimization", 1996, ch. IV; for bilevel programs with
// complementarity big-Ms, the derived bounds of Pineda and Morales, 2019,
// are what shrinks). lmpSplit bounds D, then repeatedly bisects the box
// whose bound decides the current maximum (best first), until the maximum
// is at most (1 + tol) times the largest price known to occur in D (the
// caller's KnownPrice and the KKT incumbents of the boxes: a box whose
// bound is at most that cannot decide the maximum), or the number of leaves
// reaches its budget.
//
// Split coordinate (a rule in measured quantities of the box's evidence,
// splitCoordinate): at the bounding bus i (the largest price bound), the
// branch l* maximizing μ̄_l·|PTDF_{l,i}|, μ̄_l = max(MuUp_l, MuLo_l) the
// box's certified bound on the limit's congestion dual (0 for a limit
// pruned by bound tightening); then the varying load j maximizing
// (hi_j − lo_j)·|PTDF_{l*,j}|. It is cut at the midpoint. When no limit can
// bind the widest load is cut.
//
// A split whose halves do not prove less than their parent (they run on
// smaller budgets: a lower largest bound, or at an equal one, e.g. the price
// cap, a smaller excess in each half) is undone: the parent stays a leaf, and splitting
// stops when that leaf decides the maximum.
//
// Budget: the unsplit box gets splitRootShare of the nominal budget
// LMPBoundOptions.TimeLimit, the 2·(Split − 1) boxes the splits may bound
// share the rest equally, each turned into deterministic work budgets as
// for one certification, so the tree and every bound in it are
// reproducible.

// LMPSplit is a node of the bisection tree of a split load domain. An inner
// node cuts the load of bus Bus (internal index) at Cut: Lo covers the
// node's box with d_Bus ≤ Cut, Hi the box with d_Bus ≥ Cut, so the leaves
// cover the root box exactly (a checker verifies that every cut lies
// strictly inside its node's interval). In a certificate without a proof
// every node carries the evidence of its box (Evidence; a box starts from
// its parent's bounds, so verification re-derives the tree from the root
// down); in a proof (LMPProof.Split) every leaf carries its checkable proof
// (Proof, checked by CheckLMPProof against the leaf's own box; the boxes of
// a checkable split start from scratch). PerMW is the bound the node
// claims over its box: at least the largest of its leaves'.
type LMPSplit struct {
	Bus      int          `json:"bus,omitempty"`
	Cut      float64      `json:"cut,omitempty"`
	Lo       *LMPSplit    `json:"lo,omitempty"`
	Hi       *LMPSplit    `json:"hi,omitempty"`
	Evidence *LMPEvidence `json:"evidence,omitempty"`
	Proof    *LMPProof    `json:"proof,omitempty"`
	PerMW    float64      `json:"per_mw"`
}

// maxSplitDepth bounds the depth of a bisection tree a checker walks.
const maxSplitDepth = 200

// walk visits the nodes of the tree rooted at s over the box dom, parents
// first, checking that each cut lies strictly inside its node's interval
// and that each node's claimed PerMW is at least the largest of its leaves'
// values. visit gets each node's box and its parent's state (nil at the
// root) and returns the node's state (handed to its children) and, at a
// leaf, the leaf's value. walk returns the root's claimed value and the
// number of leaves.
func (s *LMPSplit) walk(n *Network, dom LoadDomain, depth int, parent any, visit func(sub LoadDomain, s *LMPSplit, parent any) (any, float64, error)) (float64, int, error) {
	if s == nil {
		return 0, 0, fmt.Errorf("%w: a split node is missing", ErrNotCertified)
	}
	if depth > maxSplitDepth {
		return 0, 0, fmt.Errorf("%w: split tree deeper than %d", ErrNotCertified, maxSplitDepth)
	}
	state, v, err := visit(dom, s, parent)
	if err != nil {
		return 0, 0, err
	}
	count := 1
	if s.Lo != nil || s.Hi != nil {
		if s.Lo == nil || s.Hi == nil || s.Proof != nil {
			return 0, 0, fmt.Errorf("%w: a split node must have both halves and no proof", ErrNotCertified)
		}
		if s.Bus < 0 || s.Bus >= n.NumBuses() {
			return 0, 0, fmt.Errorf("%w: split bus index %d out of range", ErrNotCertified, s.Bus)
		}
		if !(dom.Lo[s.Bus] < s.Cut && s.Cut < dom.Hi[s.Bus]) {
			return 0, 0, fmt.Errorf("%w: cut %v of bus %d is not inside its box's interval [%v, %v]", ErrNotCertified, s.Cut, n.BusID[s.Bus], dom.Lo[s.Bus], dom.Hi[s.Bus])
		}
		lo, hi := dom.halves(s.Bus, s.Cut)
		a, ca, err := s.Lo.walk(n, lo, depth+1, state, visit)
		if err != nil {
			return 0, 0, err
		}
		b, cb, err := s.Hi.walk(n, hi, depth+1, state, visit)
		if err != nil {
			return 0, 0, err
		}
		v, count = math.Max(a, b), ca+cb
	}
	if !(v <= s.PerMW) {
		return 0, 0, fmt.Errorf("%w: a split node claims %v $/MWh, its leaves prove %v", ErrNotCertified, s.PerMW, v)
	}
	return s.PerMW, count, nil
}

// halves returns the boxes d_bus ≤ cut and d_bus ≥ cut of d.
func (d LoadDomain) halves(bus int, cut float64) (lo, hi LoadDomain) {
	lo = LoadDomain{Lo: d.Lo, Hi: append([]float64(nil), d.Hi...)}
	hi = LoadDomain{Lo: append([]float64(nil), d.Lo...), Hi: d.Hi}
	lo.Hi[bus], hi.Lo[bus] = cut, cut
	return lo, hi
}

// checkSplitProof checks a proof over a split domain: the tree's cuts and
// every leaf's proof against its own box.
func (n *Network) checkSplitProof(ctx context.Context, dom LoadDomain, rules MarketRules, p *LMPProof) (*LMPCheck, error) {
	t0 := time.Now()
	out := &LMPCheck{}
	v, _, err := p.Split.walk(n, dom, 0, nil, func(sub LoadDomain, s *LMPSplit, _ any) (any, float64, error) {
		if s.Lo != nil || s.Hi != nil {
			return nil, 0, nil
		}
		if s.Proof == nil || s.Proof.Split != nil {
			return nil, 0, fmt.Errorf("%w: a leaf of a split proof must carry one unsplit proof", ErrNotCertified)
		}
		chk, err := n.checkLMPProof(ctx, sub, rules, s.Proof, false)
		if err != nil {
			return nil, 0, err
		}
		out.Steps += chk.Steps
		return nil, chk.PerMW, nil
	})
	if err != nil {
		return nil, err
	}
	if !(v <= p.PerMW) {
		return nil, fmt.Errorf("%w: the proof claims %v $/MWh, its split tree proves %v", ErrNotCertified, p.PerMW, v)
	}
	out.PerMW, out.Seconds = p.PerMW, time.Since(t0).Seconds()
	return out, nil
}

// inheritBounds intersects the bounds of a box's evidence (congestion
// duals, flow ranges, prices) with those of its parent box's, which hold at
// every KKT point over the box.
func inheritBounds(ev *LMPEvidence, piLo, piHi []float64, p *LMPEvidence) {
	for l := range ev.MuUp {
		ev.MuUp[l], ev.MuLo[l] = math.Min(ev.MuUp[l], p.MuUp[l]), math.Min(ev.MuLo[l], p.MuLo[l])
	}
	if p.FlowLo != nil {
		ev.FlowLo, ev.FlowHi = append([]float64(nil), p.FlowLo...), append([]float64(nil), p.FlowHi...)
	}
	for j := range piLo {
		if p.PriceLo != nil {
			piLo[j], piHi[j] = math.Max(piLo[j], p.PriceLo[j]), math.Min(piHi[j], p.PriceHi[j])
		}
	}
}

// splitBox is a leaf of the producer's tree.
type splitBox struct {
	dom   LoadDomain
	ev    *LMPEvidence
	node  *LMPSplit
	bound float64
	// stuck: splitting this box did not lower its bound or its excess (the
	// halves, on their smaller budgets, proved no less); it stays a leaf.
	stuck bool
}

// evidenceBound is the value a box's evidence certifies: its proof's when
// it has one and a proof was asked for, else the MIPs' proven bounds.
func evidenceBound(ev *LMPEvidence, checkable bool) float64 {
	if checkable && ev.Proof != nil {
		return ev.Proof.PerMW
	}
	return math.Max(ev.MaxPrice, ev.MinPrice)
}

// excess is Σ over the box's varying buses of how far their price bounds
// exceed target (the tie-break between boxes whose bounds are equal, e.g.
// both at the price cap: the box with more loose buses is split first).
// Lower price bounds count only with a negative price floor (with floor 0,
// π ≥ 0 at every varying bus).
func (b *splitBox) excess(target float64, rules MarketRules) float64 {
	var x float64
	for _, i := range b.dom.Variable() {
		if b.ev.PriceHi != nil {
			x += math.Max(0, b.ev.PriceHi[i]-target)
			if rules.PriceFloor < 0 {
				x += math.Max(0, -b.ev.PriceLo[i]-target)
			}
		}
	}
	return x
}

// splitCoordinate returns the load coordinate to bisect in box b and its
// score (see the rule above): the bounding bus i is the varying bus with
// the largest price bound (upper, or lower with a negative price floor),
// the bounding branch l* the one maximizing μ̄_l·|PTDF_{l,i}| (the most
// its congestion dual can move π_i), and j the varying load maximizing
// (hi_j − lo_j)·|PTDF_{l*,j}| (the most its half-width moves the flow of
// l*, whose limit may then become unreachable in a half, its dual fixed at
// 0). j is −1 when no load can be cut; best is 0 when no limit can bind
// (then the caller cuts the widest load); via is l*.
func splitCoordinate(b *splitBox, vars []int, cols map[int][]float64, rules MarketRules) (j int, best float64, via int) {
	ev := b.ev
	i, bi := -1, math.Inf(-1)
	for _, v := range vars {
		if ev.PriceHi == nil {
			break
		}
		p := ev.PriceHi[v]
		if rules.PriceFloor < 0 {
			p = math.Max(p, -ev.PriceLo[v])
		}
		if p > bi {
			i, bi = v, p
		}
	}
	via = -1
	if i >= 0 {
		var bl float64
		for l, p := range cols[i] {
			mu := math.Max(ev.MuUp[l], ev.MuLo[l])
			if s := mu * math.Abs(p); mu > 0 && !math.IsInf(mu, 0) && s > bl {
				via, bl = l, s
			}
		}
	}
	j = -1
	for _, v := range vars {
		width := b.dom.Hi[v] - b.dom.Lo[v]
		if !(width > 1e-9*(1+math.Abs(b.dom.Hi[v]))) {
			continue
		}
		s := 0.0
		if via >= 0 {
			s = width * math.Abs(cols[v][via])
		}
		if j < 0 || s > best {
			j, best = v, s
		}
	}
	return j, best, via
}

// splitRootShare is the share of the budget the unsplit box gets (the rest
// is shared equally by the 2·(Split − 1) boxes the splits may create, which
// start from their parent's bounds).
const splitRootShare = 0.5

// lmpSplit is lmpBound over D split by the spatial branch and bound above
// into at most opt.Split leaves. It returns the evidence of the unsplit box
// when that already meets the target or splitting is not possible; else an
// evidence whose MaxPrice, MinPrice, Incumbent, Closed, Reproducible, Nodes
// and MIPIterations summarize the leaves, whose Split (or, when every leaf
// has a checkable proof, Proof.Split) is the tree, and whose other fields
// describe the unsplit box.
func (n *Network) lmpSplit(ctx context.Context, dom LoadDomain, rules MarketRules, opt LMPBoundOptions) (*LMPEvidence, string, error) {
	t0 := time.Now()
	if opt.TimeLimit <= 0 {
		opt.TimeLimit = 60 * time.Second
	}
	tol := opt.SplitTol
	if tol <= 0 {
		tol = 0.1
	}
	share := func(f float64) LMPBoundOptions {
		b := opt
		b.Split, b.Progress = 0, nil
		b.TimeLimit = time.Duration(f * float64(opt.TimeLimit))
		b.TighteningWork, b.MIPWork = f*opt.TighteningWork, f*opt.MIPWork
		return b
	}
	rootOpt := share(splitRootShare)
	box := share((1 - splitRootShare) / float64(2*(opt.Split-1)))
	root, reason, err := n.lmpBound(ctx, dom, rules, rootOpt)
	if err != nil || root == nil {
		return root, reason, err
	}
	lower := math.Max(opt.KnownPrice, root.Incumbent)
	leaves := []*splitBox{{dom: dom, ev: root, node: &LMPSplit{}, bound: evidenceBound(root, opt.Checkable)}}
	progress(opt.Progress, "lmp-split: unsplit box: bound %.6g $/MWh, known price %.6g (%.1f s)", leaves[0].bound, lower, time.Since(t0).Seconds())
	top := leaves[0].node
	inner := map[*LMPSplit]*LMPEvidence{top: root}
	vars := dom.Variable()
	cols := map[int][]float64{}
	for q, c := range n.PTDFColumns(vars) {
		cols[vars[q]] = c
	}
	for used := 0; used+2 <= 2*(opt.Split-1); used += 2 {
		if err := ctx.Err(); err != nil {
			return nil, "", err
		}
		// Best first: the box that decides the maximum (ties: the larger
		// excess over the target).
		target := lower * (1 + tol)
		w := 0
		for q, l := range leaves {
			if l.bound > leaves[w].bound || (l.bound == leaves[w].bound && l.excess(target, rules) > leaves[w].excess(target, rules)) {
				w = q
			}
		}
		if (leaves[w].bound <= target && !opt.splitAll) || leaves[w].stuck {
			break
		}
		b := leaves[w]
		j, best, via := splitCoordinate(b, vars, cols, rules)
		if best == 0 { // no limit can bind at the bounding bus: the widest load
			for _, v := range vars {
				if width := b.dom.Hi[v] - b.dom.Lo[v]; j < 0 || width > b.dom.Hi[j]-b.dom.Lo[j] {
					j = v
				}
			}
		}
		if j < 0 {
			break
		}
		cut := (b.dom.Lo[j] + b.dom.Hi[j]) / 2
		lo, hi := b.dom.halves(j, cut)
		kids := make([]*splitBox, 0, 2)
		for _, d := range []LoadDomain{lo, hi} {
			o := box
			o.KnownPrice, o.parent = lower, b.ev
			ev, why, err := n.lmpBound(ctx, d, rules, o)
			if err != nil {
				return nil, "", err
			}
			if ev == nil {
				return nil, "a box of the split domain: " + why, nil
			}
			lower = math.Max(lower, ev.Incumbent)
			kids = append(kids, &splitBox{dom: d, ev: ev, node: &LMPSplit{}, bound: evidenceBound(ev, opt.Checkable)})
		}
		// Progress: a lower bound, or (both at the same bound, e.g. the
		// price cap) less excess in each half.
		kb := math.Max(kids[0].bound, kids[1].bound)
		ex := b.excess(target, rules)
		better := kb < b.bound*(1-1e-9) || (kb <= b.bound && kids[0].excess(target, rules) < ex && kids[1].excess(target, rules) < ex)
		if !better && !opt.splitAll {
			b.stuck = true
			progress(opt.Progress, "lmp-split: bus %d cut at %.6g MW: bounds %.6g / %.6g, not below the box's %.6g; the box stays a leaf (%.1f s)",
				n.BusID[j], cut, kids[0].bound, kids[1].bound, b.bound, time.Since(t0).Seconds())
			continue
		}
		b.node.Bus, b.node.Cut, b.node.Lo, b.node.Hi = j, cut, kids[0].node, kids[1].node
		inner[b.node] = b.ev
		leaves = append(append(leaves[:w:w], leaves[w+1:]...), kids...)
		progress(opt.Progress, "lmp-split: bus %d cut at %.6g MW (score %.4g, branch %d): bounds %.6g / %.6g (was %.6g; excess over %.4g: %.4g / %.4g); %d leaves, largest %.6g (%.1f s)",
			n.BusID[j], cut, best, via, kids[0].bound, kids[1].bound, b.bound, target, kids[0].excess(target, rules), kids[1].excess(target, rules), len(leaves), maxBound(leaves), time.Since(t0).Seconds())
	}
	if len(leaves) == 1 {
		return root, "", nil
	}
	ev := *root
	ev.Proof, ev.ProofNote, ev.rec = nil, "", nil
	ev.MaxPrice, ev.MinPrice, ev.Incumbent = 0, 0, 0
	ev.Closed, ev.Reproducible, ev.Nodes, ev.MIPIterations = true, true, 0, 0
	proofs := opt.Checkable
	for _, l := range leaves {
		e := l.ev
		ev.MaxPrice, ev.MinPrice = math.Max(ev.MaxPrice, e.MaxPrice), math.Max(ev.MinPrice, e.MinPrice)
		if e.Incumbent > ev.Incumbent {
			ev.Incumbent, ev.IncumbentBus, ev.IncumbentLoad = e.Incumbent, e.IncumbentBus, e.IncumbentLoad
		}
		ev.Closed, ev.Reproducible = ev.Closed && e.Closed, ev.Reproducible && e.Reproducible
		ev.Nodes += e.Nodes
		ev.MIPIterations += e.MIPIterations
		ev.Candidates = append(ev.Candidates, e.Candidates...)
		if e.Proof == nil {
			proofs = false
			if opt.Checkable && ev.ProofNote == "" {
				ev.ProofNote = "no checkable proof: a leaf of the split domain has none: " + e.ProofNote
			}
		}
	}
	for node, e := range inner {
		if !proofs {
			node.Evidence = e
		}
	}
	for _, l := range leaves {
		if proofs {
			l.node.Proof, l.node.PerMW = l.ev.Proof, l.ev.Proof.PerMW
		} else {
			l.node.Evidence, l.node.PerMW = l.ev, math.Max(l.ev.MaxPrice, l.ev.MinPrice)
		}
	}
	fillSplitBounds(top)
	if opt.Progress != nil {
		vals := make([]string, len(leaves))
		for q, l := range leaves {
			vals[q] = fmt.Sprintf("%.6g", l.node.PerMW)
		}
		progress(opt.Progress, "lmp-split: leaf bounds %s", strings.Join(vals, ", "))
	}
	ev.MaxPrice, ev.MinPrice = math.Min(ev.MaxPrice, top.PerMW), math.Min(ev.MinPrice, top.PerMW)
	ev.SplitLeaves = len(leaves)
	if proofs {
		ev.Proof = &LMPProof{Split: top, PerMW: top.PerMW}
	} else {
		ev.Split = top
	}
	ev.Seconds = time.Since(t0).Seconds()
	progress(opt.Progress, "lmp-split: %d leaves, bound %.6g $/MWh (%.1f s)", len(leaves), top.PerMW, ev.Seconds)
	return &ev, "", nil
}

// fillSplitBounds sets every inner node's PerMW to the largest of its
// halves'.
func fillSplitBounds(s *LMPSplit) float64 {
	if s.Lo != nil {
		s.PerMW = math.Max(fillSplitBounds(s.Lo), fillSplitBounds(s.Hi))
	}
	return s.PerMW
}

func maxBound(leaves []*splitBox) float64 {
	v := 0.0
	for _, l := range leaves {
		v = math.Max(v, l.bound)
	}
	return v
}
