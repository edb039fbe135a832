package grid

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/highs"
)

// LMPSearchOptions configure SearchLMPChange.
type LMPSearchOptions struct {
	// Starts is the number of random vertices of the domain tried (0: 20).
	Starts int
	// Steps bounds the coordinate flips of the local search (0: 200).
	Steps int
	// Seed seeds the random vertices.
	Seed uint64
	// Extra are further load vectors to start from (e.g. the KKT program's
	// incumbent, LMPEvidence.IncumbentLoad), clamped into the domain.
	Extra [][]float64
	// Climbs is the number of best starts the local search follows (0: 3).
	Climbs int
	// Congestion adds, for every limited branch and both directions, the
	// vertex of the domain that pushes the branch's flow furthest that way
	// (each load at the bound its PTDF entry favours: one PTDF row and one
	// LP per vertex), and a second climb from each start that keeps a flip
	// when the realized change |V(d ± α e_i) − V(d)| at the bus i of the
	// largest |π| grows (the bus may change; one to two more LPs per flip).
	Congestion bool
	// PerBus, when positive, adds a climb per varying bus i of at most
	// PerBus coordinate flips that keeps a flip when |π_i| grows, started
	// from the point of the largest |π_i| seen by any evaluation so far (all
	// evaluations record, per bus, their largest |π_i| and its load vector);
	// then the realized change is measured at every bus whose largest |π_i|
	// exceeds the largest realized change found. It targets the buses whose
	// certified price bound stays high: a price reachable at one bus only
	// from a load pattern that raises no other bus's price is missed by the
	// climbs that follow the bus of the largest |π|.
	PerBus int
	// FlowStarts adds, for every limited branch and both directions, the
	// load part of a maximizer of the branch's flow that way over the loads
	// in the domain and the dispatches within the units' boxes and every
	// branch limit, without backstops (one LP each): the load pattern that
	// needs the most transfer across the branch, as the market could route
	// it. Unlike the congestion vertices it accounts for where the units
	// are and what the other limits allow.
	FlowStarts bool
	// Patterns, when positive, adds the congestion-pattern step
	// (lmppatsearch.go) after the climbs: for the bus of the largest change
	// found and the buses of the largest |π| seen, the prices every pattern
	// of binding limits (among those at their bound at the bus's best load
	// vectors) and marginal segments sets, and, for at most Patterns of the
	// patterns that price the bus above the best change, largest first, a
	// load vector of the domain at which the pattern is optimal (one LP
	// each) and the realized change there. It reaches prices that only a
	// degenerate optimum takes (the solver may return another dual there).
	Patterns int
}

// LMPSearchResult is the largest adjacent change SearchLMPChange found.
type LMPSearchResult struct {
	// PerMW = |V(d′) − V(d)| / α for the pair found (d, d′ = d ± α e_Bus, both
	// in the domain): a lower bound on any sound sensitivity per MW.
	PerMW float64
	Bus   int       // bus ID
	Load  []float64 // d (internal bus order)
	// Other is d′ (d with bus Bus moved by at most α, within the domain):
	// |V(d′) − V(d)| = α·PerMW.
	Other []float64
	// LMP is the largest |π_i| seen at a varying bus (solver duals, not a
	// realized change).
	LMP         float64
	Evaluations int
	// BusLMP is, per bus (internal order), the largest |π_i| seen at it by
	// any evaluation (0 at a bus whose load does not vary).
	BusLMP []float64
}

// SearchLMPChange is an adversarial search for a large |V(d′) − V(d)| over
// α-adjacent loads in dom (V the market LP of CertifyLMPBound): it evaluates
// the domain's corners and centre, random vertices, the extra starts and
// (Congestion) the congestion vertices, follows from the best Climbs starts
// the bus with the largest |LMP| by greedy flips of the other loads between
// their bounds (keeping a flip when it raises that bus's |LMP|; with
// Congestion also when it raises the realized change), and measures the
// realized change |V(d ± α e_i) − V(d)| at the best points. Every reported
// change is realized by the pair (Load, Other) of the result, both in the
// domain and α-adjacent: a lower bound on the true sensitivity, against
// which a certified bound is tested. The search is deterministic for a
// given Seed (no time limits).
func (n *Network) SearchLMPChange(ctx context.Context, dom LoadDomain, alpha float64, rules MarketRules, opt LMPSearchOptions) (*LMPSearchResult, error) {
	if err := rules.Validate(); err != nil {
		return nil, err
	}
	if err := dom.Validate(n); err != nil {
		return nil, err
	}
	if !(alpha > 0) || math.IsInf(alpha, 0) {
		return nil, fmt.Errorf("grid: alpha is %v MW, must be > 0 and finite", alpha)
	}
	if opt.Starts <= 0 {
		opt.Starts = 20
	}
	if opt.Steps <= 0 {
		opt.Steps = 200
	}
	if opt.Climbs <= 0 {
		opt.Climbs = 3
	}
	b := newLPBuilder()
	m, err := n.newMarketLP(b, dom, rules)
	if err != nil {
		return nil, err
	}
	hopt := highs.Options{}
	hopt.Threads = 1
	lp, err := b.build(hopt)
	if err != nil {
		return nil, err
	}
	defer lp.Close()
	out := &LMPSearchResult{BusLMP: make([]float64, n.NumBuses())}
	// busLoad[j] is the load vector of the largest |π_j| seen.
	busLoad := make([][]float64, n.NumBuses())
	// eval solves at d and returns V and the LMPs.
	eval := func(d []float64) (float64, []float64, error) {
		for _, j := range m.vars {
			if err := lp.SetColumnBounds(m.d[j], d[j], d[j]); err != nil {
				return 0, nil, err
			}
		}
		r, err := lp.Solve(ctx)
		if err != nil {
			return 0, nil, err
		}
		if err := ctx.Err(); err != nil {
			return 0, nil, err
		}
		out.Evaluations++
		if r.Status != solver.Optimal {
			// A warm start can end in HiGHS's numerical-error status (seen
			// on 118_ieee ×1.336 ±30%): solve once more from a fresh basis.
			if err := lp.ResetBasis(); err != nil {
				return 0, nil, err
			}
			if r, err = lp.Solve(ctx); err != nil {
				return 0, nil, err
			}
			if r.Status != solver.Optimal {
				return 0, nil, fmt.Errorf("grid: market LP at a domain point: %v", r.Status)
			}
		}
		pi := make([]float64, len(m.balance))
		for j, row := range m.balance {
			pi[j] = r.RowDual[row]
		}
		for _, j := range m.vars {
			a := math.Abs(pi[j])
			out.LMP = math.Max(out.LMP, a)
			if a > out.BusLMP[j] {
				out.BusLMP[j] = a
				busLoad[j] = append(busLoad[j][:0], d...)
			}
		}
		return r.Objective, pi, nil
	}
	// change returns the larger realized change per MW at bus i from d
	// (V(d) = v0) to d ± α e_i (each kept within the domain), and records
	// the largest in out.
	change := func(d []float64, v0 float64, i int) (float64, error) {
		best := 0.0
		d2 := append([]float64(nil), d...)
		for _, x := range []float64{math.Min(dom.Hi[i], d[i]+alpha), math.Max(dom.Lo[i], d[i]-alpha)} {
			if x == d[i] {
				continue
			}
			d2[i] = x
			v1, _, err := eval(d2)
			if err != nil {
				return 0, err
			}
			// A step shorter than α is an adjacent pair too: |ΔV| counts
			// in full, per α.
			c := math.Abs(v1-v0) / alpha
			if c > best {
				best = c
			}
			if c > out.PerMW {
				out.PerMW, out.Bus = c, n.BusID[i]
				out.Load, out.Other = append([]float64(nil), d...), append([]float64(nil), d2...)
			}
		}
		return best, nil
	}
	// realized measures the change at bus i from d.
	realized := func(d []float64, i int) error {
		v0, _, err := eval(d)
		if err != nil {
			return err
		}
		_, err = change(d, v0, i)
		return err
	}
	rng := rand.New(rand.NewPCG(opt.Seed, 0x1a2b))
	var starts [][]float64
	mid := make([]float64, len(dom.Lo))
	for j := range mid {
		mid[j] = (dom.Lo[j] + dom.Hi[j]) / 2
	}
	starts = append(starts, append([]float64(nil), dom.Lo...), append([]float64(nil), dom.Hi...), mid)
	for _, x := range opt.Extra {
		if len(x) != len(dom.Lo) {
			continue
		}
		y := make([]float64, len(x))
		for j := range y {
			y[j] = math.Min(dom.Hi[j], math.Max(dom.Lo[j], x[j]))
		}
		starts = append(starts, y)
	}
	for k := 0; k < opt.Starts; k++ {
		v := append([]float64(nil), dom.Lo...)
		for _, j := range m.vars {
			if rng.IntN(2) == 1 {
				v[j] = dom.Hi[j]
			}
		}
		starts = append(starts, v)
	}
	if opt.Congestion {
		cs, err := n.congestionVertices(ctx, dom, m)
		if err != nil {
			return nil, err
		}
		starts = append(starts, cs...)
	}
	if opt.FlowStarts {
		fs, err := n.flowStarts(ctx, dom, rules, hopt)
		if err != nil {
			return nil, err
		}
		starts = append(starts, fs...)
	}
	type cand struct {
		d   []float64
		bus int
		lmp float64
	}
	// top returns the varying bus with the largest |π|, of several within
	// 1e-9 relative the one with the widest load range (a range narrower
	// than α realizes only that part of the price: |ΔV| ≤ |π|·range).
	top := func(pi []float64) (int, float64) {
		bi, bv := -1, -1.0
		for _, j := range m.vars {
			a := math.Abs(pi[j])
			tie := bi >= 0 && math.Abs(a-bv) <= 1e-9*math.Max(1, bv)
			if (a > bv && !tie) || (tie && dom.Hi[j]-dom.Lo[j] > dom.Hi[bi]-dom.Lo[bi]) {
				bi, bv = j, math.Max(a, bv)
			}
		}
		return bi, bv
	}
	var cands []cand
	for _, d := range starts {
		_, pi, err := eval(d)
		if err != nil {
			return nil, err
		}
		bi, bv := top(pi)
		cands = append(cands, cand{d, bi, bv})
	}
	sort.SliceStable(cands, func(a, b int) bool { return cands[a].lmp > cands[b].lmp })
	// Local search from the best few starts: flip one load between its
	// bounds at a time and keep the flip when the start's bus's |π| grows;
	// with Congestion, a second climb keeps a flip when the largest |π| over
	// the varying buses grows (the bus may change).
	steps := opt.Steps
	type climb struct {
		c      int
		global bool
	}
	var climbs []climb
	for c := 0; c < len(cands) && c < opt.Climbs; c++ {
		climbs = append(climbs, climb{c, false})
		if opt.Congestion {
			climbs = append(climbs, climb{c, true})
		}
	}
	for _, cl := range climbs {
		d, i, best := append([]float64(nil), cands[cl.c].d...), cands[cl.c].bus, cands[cl.c].lmp
		if cl.global {
			v, _, err := eval(d)
			if err != nil {
				return nil, err
			}
			if best, err = change(d, v, i); err != nil {
				return nil, err
			}
		}
		for improved := true; improved && steps > 0; {
			improved = false
			for _, j := range m.vars {
				if steps <= 0 {
					break
				}
				if j == i && !cl.global {
					continue
				}
				steps--
				old := flipVertex(d, dom, j)
				v, pi, err := eval(d)
				if err != nil {
					return nil, err
				}
				a := math.Abs(pi[i])
				bi := i
				if cl.global {
					// The realized change at the bus of the largest |π|.
					bi, _ = top(pi)
					if a, err = change(d, v, bi); err != nil {
						return nil, err
					}
				}
				if a > best+1e-9 {
					best, i, improved = a, bi, true
				} else {
					d[j] = old
				}
			}
		}
		// The realized change at the bus's upper and lower end of its range,
		// and on both sides of the point itself.
		for _, x := range []float64{dom.Hi[i], dom.Lo[i], d[i] - alpha} {
			if x < dom.Lo[i] {
				continue
			}
			e := append([]float64(nil), d...)
			e[i] = x
			if err := realized(e, i); err != nil {
				return nil, err
			}
		}
		if err := realized(d, i); err != nil {
			return nil, err
		}
	}
	if opt.PerBus > 0 {
		if err := perBusClimbs(ctx, m, dom, opt.PerBus, out, busLoad, eval, realized); err != nil {
			return nil, err
		}
	}
	if opt.Patterns > 0 {
		if err := n.patsearchStep(ctx, m, b, lp, dom, rules, opt.Patterns, out, busLoad, eval, change); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// perBusClimbs runs SearchLMPChange's per-bus climbs (LMPSearchOptions.PerBus):
// for every varying bus i, from the load vector of the largest |π_i| seen, at
// most steps flips of one load between its bounds, each kept when |π_i|
// grows; then the realized change at every bus whose largest |π_i| exceeds
// out.PerMW, at that load vector and with the bus's own load at either end
// of its range.
func perBusClimbs(ctx context.Context, m *marketLP, dom LoadDomain, steps int, out *LMPSearchResult, busLoad [][]float64,
	eval func([]float64) (float64, []float64, error), realized func([]float64, int) error) error {
	for _, i := range m.vars {
		if busLoad[i] == nil {
			continue
		}
		d := append([]float64(nil), busLoad[i]...)
		best, left := out.BusLMP[i], steps
		for improved := true; improved && left > 0; {
			improved = false
			for _, j := range m.vars {
				if left <= 0 {
					break
				}
				if err := ctx.Err(); err != nil {
					return err
				}
				left--
				old := flipVertex(d, dom, j)
				_, pi, err := eval(d)
				if err != nil {
					return err
				}
				if a := math.Abs(pi[i]); a > best+1e-9 {
					best, improved = a, true
				} else {
					d[j] = old
				}
			}
		}
	}
	for _, i := range m.vars {
		if busLoad[i] == nil || out.BusLMP[i] <= out.PerMW*(1+1e-9) {
			continue
		}
		d := append([]float64(nil), busLoad[i]...)
		for _, x := range []float64{d[i], dom.Hi[i], dom.Lo[i]} {
			e := append([]float64(nil), d...)
			e[i] = x
			if err := realized(e, i); err != nil {
				return err
			}
		}
	}
	return nil
}

// congestionVertices returns, for every limited branch l and both
// directions, the vertex of dom maximizing ∓Σ_j PTDF[l, j]·d_j, the load
// pattern that pushes the flow on l furthest in that direction (loads
// withdraw: a load at a bus with a positive PTDF entry lowers the flow).
// Duplicates are dropped.
func (n *Network) congestionVertices(ctx context.Context, dom LoadDomain, m *marketLP) ([][]float64, error) {
	var lim []int
	for l, r := range m.flow {
		if r >= 0 {
			lim = append(lim, l)
		}
	}
	rows := make([][]float64, n.NumBranches())
	err := n.PTDFRows(ctx, lim, RowsOptions{Workers: 1}, func(l int, row []float64) error {
		rows[l] = append([]float64(nil), row...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out [][]float64
	key := make([]byte, len(m.vars))
	for _, l := range lim {
		for _, dir := range []float64{1, -1} {
			v := append([]float64(nil), dom.Lo...)
			for q, j := range m.vars {
				key[q] = 0
				if dir*rows[l][j] < 0 {
					v[j] = dom.Hi[j]
					key[q] = 1
				}
			}
			if k := string(key); !seen[k] {
				seen[k] = true
				out = append(out, v)
			}
		}
	}
	return out, nil
}

// flowStarts returns LMPSearchOptions.FlowStarts' load vectors: for every
// limited branch l and both directions, the loads of a maximizer of ±flow_l
// over the market LP's rows with the loads free in dom and the backstops at
// 0 (an LP; a direction whose LP is not optimal gives none). Duplicates are
// dropped.
func (n *Network) flowStarts(ctx context.Context, dom LoadDomain, rules MarketRules, hopt highs.Options) ([][]float64, error) {
	b := newLPBuilder()
	m, err := n.newMarketLP(b, dom, rules)
	if err != nil {
		return nil, err
	}
	for j := range m.sigma {
		for _, c := range []int{m.sigma[j], m.kappa[j]} {
			if c >= 0 {
				b.hi[c] = 0
			}
		}
	}
	for j := range b.cost {
		b.cost[j] = 0
	}
	lp, err := b.build(hopt)
	if err != nil {
		return nil, err
	}
	defer lp.Close()
	cost := make([]float64, len(b.cost))
	seen := map[string]bool{}
	var out [][]float64
	key := make([]byte, 0, 8*len(m.vars))
	for l, r := range m.flow {
		if r < 0 {
			continue
		}
		for _, dir := range []float64{1, -1} {
			// minimize −dir·(Bf θ)_l
			for t, j := range m.bfBus[l] {
				cost[m.theta[j]] = -dir * m.bfVal[l][t]
			}
			if err := lp.SetCosts(cost); err != nil {
				return nil, err
			}
			for _, j := range m.bfBus[l] {
				cost[m.theta[j]] = 0
			}
			res, err := lp.Solve(ctx)
			if err != nil {
				return nil, err
			}
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if res.Status != solver.Optimal {
				continue
			}
			d := append([]float64(nil), dom.Lo...)
			key = key[:0]
			for _, j := range m.vars {
				d[j] = math.Min(dom.Hi[j], math.Max(dom.Lo[j], res.X[m.d[j]]))
				key = fmt.Appendf(key, "%.6g,", d[j])
			}
			if k := string(key); !seen[k] {
				seen[k] = true
				out = append(out, d)
			}
		}
	}
	return out, nil
}

// flipVertex moves load j of the domain vertex d to the other end of its
// interval and returns the value it had.
func flipVertex(d []float64, dom LoadDomain, j int) float64 {
	old := d[j]
	if d[j] == dom.Hi[j] {
		d[j] = dom.Lo[j]
	} else {
		d[j] = dom.Hi[j]
	}
	return old
}
