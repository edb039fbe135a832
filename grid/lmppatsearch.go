package grid

import (
	"context"
	"math"
	"slices"
	"sort"

	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/highs"
)

// Congestion-pattern step of SearchLMPChange (LMPSearchOptions.Patterns).
//
// At an optimum of the market LP with the limits L binding (|L| = k) and
// k + 1 merit segments marginal, stationarity gives the prices
// π_j = λ − Σ_{l ∈ L} η_l PTDF_{l,j} (λ the reference price, η_l the signed
// congestion dual of l) with π = c_s at each marginal segment's bus: k + 1
// linear equations in (λ, η). The pattern (L, the marginal segments) fixes
// every price, hence every other segment's state (full below its bus's
// price, empty above) and every backstop's (0 strictly inside the floor and
// the cap; a pattern that prices a backstop's bus outside [floor, cap] is not
// dual feasible and is dropped). The load vectors of the domain at which the
// pattern is primal feasible, each binding limit at the side of the sign of
// its η and the other limits within theirs, form a polyhedron: one LP. At a
// point of it the pattern's prices are a dual optimal solution of the market
// LP (the KKT conditions are sufficient), so the pattern's price at bus i is
// one of the prices an optimal dual takes there, whichever one the solver
// returns.
//
// The step uses only public inputs (network, domain, rules): the bus and
// the candidate limits come from the search's own evaluations (the bus of
// the largest change found, the buses of the largest |π| seen, and the
// limits at their bound in the market LP's primal solution at those
// buses' load vectors), never from private loads.
//
// Degenerate market LPs. V (the market LP's cost) is convex in d, so the
// realized change over a step up, (V(d + α e_i) − V(d))/α, is at least the
// right derivative V′(d; e_i) = max{π_i : π an optimal dual at d}: the
// largest price any optimal dual solution takes at bus i, not only the one
// the solver returns. The pattern LP therefore minimizes d_i (leaving the
// most room for the step up within the domain), and the step measures the
// realized change there; no second LP over the dual optimal face is
// needed. What the step reports is, like every result of SearchLMPChange, a
// realized change |V(d′) − V(d)| of an α-adjacent pair in the domain: a
// valid lower bound on the sensitivity of the released cost, whichever
// dual the solver returns. The certified price bounds (CertifyLMPBound's
// KKT program) are over every KKT point, that is over all optimal duals, so
// they cover the largest valid price the step reaches.
//
// Work: at most patsearchMaxSystems (k+1)×(k+1) solves per enumeration and
// opt.Patterns pattern LPs per bus, for at most patsearchBuses buses, with at most
// patsearchMaxLimits candidate limits and at most patsearchDepth binding
// limits per pattern (deterministic: no time limits).
const (
	patsearchBuses      = 3
	patsearchMaxLimits  = 12
	patsearchDepth      = 4
	patsearchMaxSystems = 4_000_000
)

// patsearchSeg is a merit segment's (bus, price): a marginal segment fixes
// its bus's price; two segments at one bus and one price are one equation.
type patsearchSeg struct {
	bus   int
	price float64
}

// patsearchSegments lists the market LP's distinct (bus, price) merit
// segments of positive width, in the LP's segment order.
func patsearchSegments(m *marketLP) []patsearchSeg {
	var segs []patsearchSeg
	seen := map[patsearchSeg]bool{}
	for s, sg := range m.segs {
		if sg.Width <= 0 {
			continue
		}
		k := patsearchSeg{m.segBus[s], sg.Price}
		if !seen[k] {
			seen[k] = true
			segs = append(segs, k)
		}
	}
	return segs
}

// patsearchPattern is a congestion pattern whose price at the target bus
// beats the search's best change.
type patsearchPattern struct {
	lims  []int
	up    []bool // each binding limit at its upper (η > 0) or lower bound
	price float64
	pi    []float64
	tier  int // limits not at their bound, segments not marginal at the search's points
}

// patsearchStep runs the congestion-pattern step of SearchLMPChange (see
// the comment above patsearchMaxSystems): for the bus of the largest change
// found and the buses of the largest |π| seen (at most patsearchBuses), the
// limits at their bound at those buses' load vectors are the candidates;
// every pattern of at most patsearchDepth of them and as many marginal
// segments plus one that prices the bus above the best change so far is
// tried, nearest the search's points first (patsearchEnumerate), at most
// maxLP LPs per bus; at each feasible one the realized change at the bus is
// measured (change records it in out). A pattern that raises the best
// change at the bus restarts the step from the new point (a climb over
// patterns), within the same maxLP.
func (n *Network) patsearchStep(ctx context.Context, m *marketLP, b *lpBuilder, lp *highs.LP, dom LoadDomain, rules MarketRules, maxLP int,
	out *LMPSearchResult, busLoad [][]float64, eval func([]float64) (float64, []float64, error), change func([]float64, float64, int) (float64, error)) error {
	buses := []int{}
	if i, ok := n.BusIndex[out.Bus]; ok && out.PerMW > 0 {
		buses = append(buses, i)
	}
	order := append([]int(nil), m.vars...)
	sort.SliceStable(order, func(a, c int) bool { return out.BusLMP[order[a]] > out.BusLMP[order[c]] })
	for _, j := range order {
		if len(buses) >= patsearchBuses {
			break
		}
		if busLoad[j] != nil && !slices.Contains(buses, j) {
			buses = append(buses, j)
		}
	}
	if len(buses) == 0 {
		return nil
	}
	nb := n.NumBuses()
	all := make([]int, nb)
	for j := range all {
		all[j] = j
	}
	cols := n.PTDFColumns(all) // cols[j][l]
	segs := patsearchSegments(m)
	// The pattern LP: the market LP's rows, cost d_i only.
	pb := newLPBuilder()
	pm, err := n.newMarketLP(pb, dom, rules)
	if err != nil {
		return err
	}
	for j := range pb.cost {
		pb.cost[j] = 0
	}
	hopt := highs.Options{}
	hopt.Threads = 1
	plp, err := pb.build(hopt)
	if err != nil {
		return err
	}
	defer plp.Close()
	for _, i := range buses {
		// A climb: after a pattern improves the change at bus i, the
		// candidates are taken again at the improving point.
		for budget := maxLP; budget > 0; {
			lims, nbind, margAt, err := n.patsearchLimits(ctx, m, b, lp, i, out, busLoad)
			if err != nil {
				return err
			}
			if len(lims) == 0 {
				break
			}
			pats := n.patsearchEnumerate(pm, cols, segs, margAt, lims, nbind, i, out.PerMW, rules, budget)
			used, improved, err := n.patsearchTry(ctx, pm, pb, plp, dom, rules, i, pats, budget, out, eval, change)
			if err != nil {
				return err
			}
			if !improved {
				break
			}
			budget -= used
		}
	}
	return nil
}

// patsearchLimits returns the candidate limits for bus i: the limited
// branches whose flow is at a bound in the market LP's solution at the load
// vector of bus i's largest |π| seen and (when i is the bus of the largest
// change) at the found pair's first load; of twin circuits (lmptwin.go) the
// first only, at most patsearchMaxLimits (the first found).
func (n *Network) patsearchLimits(ctx context.Context, m *marketLP, b *lpBuilder, lp *highs.LP, i int, out *LMPSearchResult, busLoad [][]float64) ([]int, int, map[patsearchSeg]bool, error) {
	var points [][]float64
	if busLoad[i] != nil {
		points = append(points, busLoad[i])
	}
	if out.Load != nil && n.BusIndex[out.Bus] == i {
		points = append(points, out.Load)
	}
	var lims []int
	margAt := map[patsearchSeg]bool{}
	for _, d := range points {
		for _, j := range m.vars {
			if err := lp.SetColumnBounds(m.d[j], d[j], d[j]); err != nil {
				return nil, 0, nil, err
			}
		}
		r, err := lp.Solve(ctx)
		if err != nil {
			return nil, 0, nil, err
		}
		if r.Status != solver.Optimal || r.RowValue == nil {
			continue
		}
		for s, sg := range m.segs {
			x, pb := r.X[m.p[s]], r.RowDual[m.balance[m.segBus[s]]]
			if (x > 1e-7 && x < sg.Width-1e-7) || math.Abs(pb-sg.Price) <= 1e-6*math.Max(1, math.Abs(sg.Price)) {
				margAt[patsearchSeg{m.segBus[s], sg.Price}] = true
			}
		}
		for l, row := range m.flow {
			if row < 0 || slices.Contains(lims, l) {
				continue
			}
			v, lo, hi := r.RowValue[row], b.rlo[row], b.rhi[row]
			if math.Abs(v-hi) > 1e-6*math.Max(1, math.Abs(hi)) && math.Abs(v-lo) > 1e-6*math.Max(1, math.Abs(lo)) {
				continue
			}
			lims = n.patsearchAdd(m, lims, l)
		}
	}
	nbind := len(lims)
	// The limited branches at bus i and at its neighbours.
	near := map[int]bool{i: true}
	for l := range n.From {
		if n.From[l] == i {
			near[n.To[l]] = true
		}
		if n.To[l] == i {
			near[n.From[l]] = true
		}
	}
	for l, row := range m.flow {
		if row < 0 || slices.Contains(lims, l) || !(near[n.From[l]] || near[n.To[l]]) {
			continue
		}
		lims = n.patsearchAdd(m, lims, l)
	}
	return lims, nbind, margAt, nil
}

// patsearchAdd appends limit l to lims unless a twin of it (lmptwin.go) is
// there already or lims has patsearchMaxLimits.
func (n *Network) patsearchAdd(m *marketLP, lims []int, l int) []int {
	if len(lims) >= patsearchMaxLimits {
		return lims
	}
	for _, e := range lims {
		if n.isTwin(m, e, l) {
			return lims
		}
	}
	return append(lims, l)
}

// isTwin reports whether limited branches l and e are twin circuits: the
// same ends and identical flow rows and limits (lmptwin.go).
func (n *Network) isTwin(m *marketLP, l, e int) bool {
	return n.From[e] == n.From[l] && n.To[e] == n.To[l] && n.twins(m, l, e) == ""
}

// patsearchFix sets, in the column bounds lo, hi of the market LP m, the
// state the prices pi give every merit segment (full below its bus's price,
// empty above, free at it) and every backstop (0 unless its bus is priced
// at the cap, for shedding, or at the floor, for curtailment), within
// tolerance 1e-9.
func patsearchFix(m *marketLP, pi []float64, rules MarketRules, lo, hi []float64) {
	const tol = 1e-9
	for s, sg := range m.segs {
		c := m.p[s]
		switch pb := pi[m.segBus[s]]; {
		case sg.Price < pb-tol:
			lo[c] = hi[c]
		case sg.Price > pb+tol:
			hi[c] = lo[c]
		}
	}
	for j := range m.sigma {
		if c := m.sigma[j]; c >= 0 && pi[j] < rules.PriceCap-tol {
			hi[c] = 0
		}
		if c := m.kappa[j]; c >= 0 && pi[j] > rules.PriceFloor+tol {
			hi[c] = 0
		}
	}
}

// patsearchEnumerate returns the congestion patterns over the candidate
// limits lims (every nonempty subset of at most patsearchDepth, and every
// choice of one more marginal segment than limits) that price bus i above
// `above` and below the cap and are dual feasible at the backstops. A
// pattern's tier is the number of its limits beyond the first nbind of lims
// (those at their bound at the search's points) plus the number of its
// segments not in margAt (not marginal there): the patterns nearest the
// search's points come first. It enumerates tier 0, 1, … until it has at
// least want patterns (a pass prunes every partial pattern above its
// tier), and returns them by tier, then by price, smallest first (the
// smallest improvements are the likeliest to be feasible near the points);
// it stops after patsearchMaxSystems linear solves.
func (n *Network) patsearchEnumerate(m *marketLP, cols [][]float64, segs []patsearchSeg, margAt map[patsearchSeg]bool, lims []int, nbind, i int, above float64, rules MarketRules, want int) []patsearchPattern {
	var pats []patsearchPattern
	systems := 0
	far := make([]bool, len(segs))
	for q, sg := range segs {
		far[q] = !margAt[sg]
	}
	maxTier := 0
	a := make([][]float64, patsearchDepth+1)
	for r := range a {
		a[r] = make([]float64, patsearchDepth+2)
	}
	sol := make([]float64, patsearchDepth+1)
	var L []int
	// tier counts the limits of L not at their bound and the segments of
	// marg not marginal at the search's points.
	tier := 0
	var marg []patsearchSeg
	consider := func() {
		systems++
		k := len(L)
		for r, ms := range marg {
			row := a[r][:k+2]
			row[0] = 1
			for q, l := range L {
				row[1+q] = -cols[ms.bus][l]
			}
			row[k+1] = ms.price
		}
		if !patsearchGauss(a[:k+1], sol[:k+1]) {
			return
		}
		p := sol[0]
		for q, l := range L {
			if sol[1+q] == 0 {
				return
			}
			p -= sol[1+q] * cols[i][l]
		}
		if !(p > above*(1+1e-9)) || p >= rules.PriceCap {
			return
		}
		pi := make([]float64, len(cols))
		for j := range pi {
			pi[j] = sol[0]
			for q, l := range L {
				pi[j] -= sol[1+q] * cols[j][l]
			}
			// Dual feasibility of the backstops (shedding at the cap,
			// curtailment at the floor).
			if (m.shedAt[j] && pi[j] > rules.PriceCap) || (m.curtAt[j] && pi[j] < rules.PriceFloor) {
				return
			}
		}
		up := make([]bool, k)
		for q := range up {
			up[q] = sol[1+q] > 0
		}
		if tier == maxTier {
			pats = append(pats, patsearchPattern{append([]int(nil), L...), up, p, pi, tier})
		}
	}
	var pick func(from, need int)
	pick = func(from, need int) {
		if need == 0 {
			consider()
			return
		}
		for q := from; q <= len(segs)-need && systems < patsearchMaxSystems; q++ {
			if far[q] {
				if tier == maxTier {
					continue
				}
				tier++
			}
			marg = append(marg, segs[q])
			pick(q+1, need-1)
			marg = marg[:len(marg)-1]
			if far[q] {
				tier--
			}
		}
	}
	var subsets func(from, size int)
	subsets = func(from, size int) {
		if len(L) == size {
			pick(0, size+1)
			return
		}
		for q := from; q < len(lims) && systems < patsearchMaxSystems; q++ {
			if q >= nbind {
				if tier == maxTier {
					continue
				}
				tier++
			}
			L = append(L, lims[q])
			subsets(q+1, size)
			L = L[:len(L)-1]
			if q >= nbind {
				tier--
			}
		}
	}
	for ; maxTier <= 2*patsearchDepth+1 && len(pats) < want && systems < patsearchMaxSystems; maxTier++ {
		for size := 1; size <= patsearchDepth && size <= len(lims); size++ {
			subsets(0, size)
		}
	}
	sort.SliceStable(pats, func(x, y int) bool {
		if pats[x].tier != pats[y].tier {
			return pats[x].tier < pats[y].tier
		}
		return pats[x].price < pats[y].price
	})
	return pats
}

// patsearchTry solves the pattern LP of each pattern (at most maxLP, in
// order): the loads in the domain, every segment and backstop in the state
// the pattern's prices give it, each binding limit (and its twins) at its
// side, minimizing d_i; at each feasible point it measures the realized
// change at bus i.
func (n *Network) patsearchTry(ctx context.Context, m *marketLP, b *lpBuilder, lp *highs.LP, dom LoadDomain, rules MarketRules, i int, pats []patsearchPattern, maxLP int,
	out *LMPSearchResult, eval func([]float64) (float64, []float64, error), change func([]float64, float64, int) (float64, error)) (used int, improved bool, err error) {
	if m.d[i] < 0 {
		return 0, false, nil
	}
	cost := make([]float64, len(b.cost))
	cost[m.d[i]] = 1
	if err := lp.SetCosts(cost); err != nil {
		return used, false, err
	}
	lo0, hi0 := b.lo, b.hi
	rlo0, rhi0 := b.rlo, b.rhi
	lo, hi := append([]float64(nil), lo0...), append([]float64(nil), hi0...)
	rlo, rhi := append([]float64(nil), rlo0...), append([]float64(nil), rhi0...)
	for q, p := range pats {
		if q >= maxLP {
			break
		}
		used++
		if err := ctx.Err(); err != nil {
			return used, false, err
		}
		copy(lo, lo0)
		copy(hi, hi0)
		patsearchFix(m, p.pi, rules, lo, hi)
		for j := range lo {
			if err := lp.SetColumnBounds(j, lo[j], hi[j]); err != nil {
				return used, false, err
			}
		}
		copy(rlo, rlo0)
		copy(rhi, rhi0)
		for q, l := range p.lims {
			for e, r := range m.flow {
				if r < 0 || (e != l && !n.isTwin(m, l, e)) {
					continue
				}
				if p.up[q] {
					rlo[r] = rhi0[r]
				} else {
					rhi[r] = rlo0[r]
				}
			}
		}
		for r := range rlo {
			if err := lp.SetRowBounds(r, rlo[r], rhi[r]); err != nil {
				return used, false, err
			}
		}
		res, err := lp.Solve(ctx)
		if err != nil {
			return used, false, err
		}
		if res.Status != solver.Optimal {
			continue
		}
		d := append([]float64(nil), dom.Lo...)
		for _, j := range m.vars {
			d[j] = math.Min(dom.Hi[j], math.Max(dom.Lo[j], res.X[m.d[j]]))
		}
		v0, _, err := eval(d)
		if err != nil {
			return used, false, err
		}
		best := out.PerMW
		if _, err := change(d, v0, i); err != nil {
			return used, false, err
		}
		if out.PerMW > best*(1+1e-9) && n.BusIndex[out.Bus] == i {
			return used, true, nil
		}
	}
	return used, false, nil
}

// patsearchGauss solves the square system [A | b] (rows of length k+1, A
// overwritten) into x by Gaussian elimination with partial pivoting; false
// when it is singular.
func patsearchGauss(a [][]float64, x []float64) bool {
	k := len(a)
	for c := 0; c < k; c++ {
		p := c
		for r := c + 1; r < k; r++ {
			if math.Abs(a[r][c]) > math.Abs(a[p][c]) {
				p = r
			}
		}
		if math.Abs(a[p][c]) < 1e-9 {
			return false
		}
		a[c], a[p] = a[p], a[c]
		for r := c + 1; r < k; r++ {
			f := a[r][c] / a[c][c]
			for q := c; q <= k; q++ {
				a[r][q] -= f * a[c][q]
			}
		}
	}
	for r := k - 1; r >= 0; r-- {
		s := a[r][k]
		for q := r + 1; q < k; q++ {
			s -= a[r][q] * x[q]
		}
		x[r] = s / a[r][r]
	}
	return true
}
