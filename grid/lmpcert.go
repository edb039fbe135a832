package grid

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"time"

	"github.com/privopt/privopt/lpdual"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/highs"
	"github.com/privopt/privopt/sparse"
)

// Checkable "lmp-bound" certificates.
//
// With LMPBoundOptions.Checkable, CertifyLMPBound records an LMPProof: for
// every bound it derives from an LP, the LP's dual vector (sparse), and for
// the cost at the domain's centre, the dispatch. CheckLMPProof verifies the
// proof with no LP or MIP solver: it rebuilds each program from the network,
// the public domain, the rules and the bounds proven so far (replaying the
// chain in order) and evaluates the safe bound of Neumaier and Shcherbina
// (package lpdual: cᵀx ≤ Σ max(yᵢ RowLoᵢ, yᵢ RowHiᵢ) + Σ max(rⱼ Loⱼ, rⱼ Hiⱼ),
// r = c − Aᵀy, in float64 with outward rounding) from the recorded dual; the
// claimed bound must be at least that value. Its time is linear in the
// proof's size (the rows each dual touches).
//
// The chain, in the order CheckLMPProof replays it:
//
//  1. VMin ≤ min over D of V: the market LP over (x, d ∈ D), dual.
//  2. LocalCostMax (x₀'s cost, closed form) and G = LocalCostMax − VMin, the
//     congestion dual bounds G/(u − Pfinj), recomputed; the twin pairs
//     (Twins, lmptwin.go) re-derived from the network, the later branch's
//     duals fixed at 0; then each decision
//     rule (DecisionRules, lmpldr.go) checked robustly feasible in
//     outward-rounded arithmetic, its cost bound, gap and slacks recomputed,
//     the bounds lowered to G_rule/slack and its row added to the KKT
//     programs rebuilt below.
//  3. VMid ≥ V(centre): the centre's dispatch x̂ and, for the residuals of
//     its floating-point balance, boxes containing an optimal dual:
//     π ∈ [F − S, C + S] with S = Σ_l max(μ̄⁺_l, μ̄⁻_l) (the price difference
//     of two buses is Σ_l (PTDF_lk − PTDF_lj)(μ⁺_l − μ⁻_l) and
//     |PTDF_lk − PTDF_lj| ≤ 1 in a network of positive susceptances; a bus
//     with both backstops has π ∈ [F, C]) (lpdual.MinUpperBound). Where a
//     branch has b ≤ 0 (|PTDF| may exceed 1) the proof instead proves a box:
//     LPs over the dual polyhedron clipped to [−P, P] whose bounds all lie
//     strictly inside, so the polyhedron lies in the box (checkPriceBox).
//  4. The backstop bounds from VMid (recomputed); the three subgradient cuts
//     V(d) ≥ v + πᵀ(d − d_k), each proven over all d ∈ D from its dual.
//  5. The price boxes: LPs over the dual polyhedron, duals.
//  6. Radial limits slack at an optimum (leafSlack, re-derived from the
//     network, the domain and ShedMax, CurtMax), then bound tightening: the
//     first pass's flow bounds come from LPs over the primal part of its
//     relaxation, whose duals are duals over the whole relaxation (zero on
//     the other rows, whose columns enter no primal row); each pass's
//     relaxation rebuilt from the proven
//     bounds; each tightened flow, congestion-dual or price bound proven by
//     its dual over the live relaxation (with the bounds and the big-M rows
//     imposed before it, in the producer's order); limits pruned by
//     complementary slackness when a proven flow range excludes them.
//
// Columns the programs leave unbounded get boxes valid at every point that
// matters, so that a reduced cost of 10⁻¹⁵ does not make the bound infinite:
// angles |θ_k| ≤ the shortest path to the reference bus (thetaBoxes),
// prices the box of step 3, the McCormick products π_j d_j the products of
// their boxes, ν̄_s ≤ max(0, π̄ − c_s).
//
// The producer claims only what its duals prove: before bound tightening it
// checks the chain recorded so far with this code (liveCheck), and then
// replays every tightening step as it records it; a step whose LP optimum
// its dual does not prove (HiGHS's simplex on these badly scaled
// relaxations ends "optimal" with dual infeasibilities up to 10⁻³ in the
// unscaled program) is recorded with the dual's bound instead, and the
// chain goes on from that bound.
//
// The certified value the proof covers is the largest tightened price bound
// of a varying bus (LMPProof.PerMW). The KKT mixed-integer program that may
// lower it further is not part of the proof: when its proven bound is lower,
// the certificate's PerMW rests on HiGHS's MIP (labelled; see
// CostCertificate.Checked).

// LMPProof is the checkable part of an "lmp-bound" certificate (see above).
type LMPProof struct {
	VMin      float64       `json:"v_min"`
	VMinDual  lpdual.Sparse `json:"v_min_dual"`
	VMid      float64       `json:"v_mid"`
	VMidPoint lpdual.Sparse `json:"v_mid_point"`
	// Cuts at the centre, Lo and Hi of the domain (in that order).
	Cuts []LMPCutProof `json:"cuts"`
	// PiBox and PiBoxSteps prove a box on every optimal price where a
	// branch has b ≤ 0 (see checkPriceBox; absent otherwise).
	PiBox      float64   `json:"pi_box,omitempty"`
	PiBoxSteps []LMPStep `json:"pi_box_steps,omitempty"`
	// Twins lists the twin branch pairs [l, l′] whose later branch's
	// congestion duals are fixed at 0 (lmptwin.go; each re-derived by
	// checkTwins from the network).
	Twins [][2]int `json:"twins,omitempty"`
	// DecisionRules are robust linear decision rules whose costs and slacks
	// lower the congestion dual bounds of step 2 (see lmpldr.go; each
	// checked by evalLDR: primal, no dual needed).
	DecisionRules []*LMPDecisionRule `json:"decision_rules,omitempty"`
	Boxes         []LMPStep          `json:"price_boxes"`
	Steps         []LMPStep          `json:"steps"`
	// Trees are branch-and-bound certificates of the KKT program, one per
	// sign whose buses were not all settled by their price bounds.
	Trees []LMPTree `json:"trees,omitempty"`
	// PatternSplits are checkable congestion-pattern splits of the buses
	// with the largest bounds (lmppatternproof.go), checked after Steps and
	// before Trees.
	PatternSplits []LMPPatternProof `json:"pattern_splits,omitempty"`
	// TreesClosed reports that every branch and bound ended with its best
	// open node integral (the trees' value is the program's maximum; not
	// part of what is checked).
	TreesClosed bool `json:"trees_closed,omitempty"`
	// PerMW is the bound on max |π_i| over the varying buses the proof
	// establishes (the largest tightened price bound).
	PerMW float64 `json:"per_mw"`
	// Split, when not nil, makes this the proof over a split domain
	// (lmpsplit.go): the bisection tree with one proof per leaf, each
	// checked against its own box; the other fields are then empty.
	Split *LMPSplit `json:"split,omitempty"`
}

// LMPCutProof is a subgradient cut V(d) ≥ V + πᵀ(d − d_k), π the balance
// rows' part of Dual (the multipliers of the market LP, maximization sign).
type LMPCutProof struct {
	V    float64       `json:"v"`
	Dual lpdual.Sparse `json:"y"`
}

// LMPStep is one step of the chain: Op is "pass" (rebuild the relaxation),
// "prune", "flush_flows", "flush_duals", "flush_prices" (the producer's
// bookkeeping, replayed), or a bound: "flow_hi", "flow_lo" (branch K's flow
// ≤ / ≥ X), "mu_up", "mu_lo" (branch K's congestion dual ≤ X), "pi_hi",
// "pi_lo" (bus K's price ≤ / ≥ X), with the dual Y of the LP maximizing the
// bounded quantity (negated for a lower bound), or "leaf_up", "leaf_lo"
// (branch K's upper / lower limit is slack at an optimum by the leaf
// argument of leafSlack: its dual is fixed at 0; no dual, re-derived).
type LMPStep struct {
	Op string         `json:"op"`
	K  int            `json:"k,omitempty"`
	X  float64        `json:"x,omitempty"`
	Y  *lpdual.Sparse `json:"y,omitempty"`
}

// lmpRecorder collects a proof while CertifyLMPBound runs (nil: none).
type lmpRecorder struct {
	p            *LMPProof
	y            lpdual.Sparse
	treesOpen    bool
	ptdfOK       bool
	boxLo, boxHi []float64 // the proven price box (without ptdfOK)
	// live is the checker's replay of the tightening steps as they are
	// recorded (liveCheck; nil before it starts or after it failed, then
	// liveErr says why).
	live    *replayer
	liveErr error
	x       []float64 // the last solve's primal point (diagnostics)
}

func (r *lmpRecorder) mark(op string) {
	if r != nil {
		r.p.Steps = append(r.p.Steps, LMPStep{Op: op})
		if r.live != nil {
			q := len(r.p.Steps) - 1
			if err := r.live.step(q, &r.p.Steps[q]); err != nil {
				r.live, r.liveErr = nil, err
			}
		}
	}
}

// solved keeps the dual of a maximization just solved.
func (r *lmpRecorder) solved(res *highs.LPResult) {
	if r != nil {
		r.y, r.x = lpdual.FromDense(res.RowDual), res.X
	}
}

// step records a bound x with the dual of the last solve and returns the
// bound the step claims: with the live check, what the dual proves over the
// checker's copy of the relaxation when x claims more (ok false: the step
// improves nothing then, and is not recorded); else x.
func (r *lmpRecorder) step(op string, k int, x float64) (float64, bool) {
	if r == nil {
		return x, true
	}
	y := r.y
	r.p.Steps = append(r.p.Steps, LMPStep{Op: op, K: k, X: x, Y: &y})
	if r.live == nil {
		return x, true
	}
	q := len(r.p.Steps) - 1
	err := r.live.step(q, &r.p.Steps[q])
	switch {
	case errors.Is(err, errNoGain):
		r.p.Steps = r.p.Steps[:q]
		return x, false
	case err != nil:
		r.live, r.liveErr = nil, err
		return x, true
	}
	return r.p.Steps[q].X, true
}

// liveCheck starts the recorder's own replay of the proof before bound
// tightening: the chain recorded so far is checked as CheckLMPProof checks
// it (with repair), the producer's bounds are set to the ones the checker
// proved (returned: how many differed), and from then on every tightening
// step is checked as it is recorded (clamp): its claim is lowered to what
// its dual proves over the checker's copy of the relaxation (where a
// reduced cost of the solver's dual that is infeasible within the solver's
// scaled tolerance counts, times the column's distance to its bound, and
// the columns the producer's LP leaves free get the checker's boxes), and
// the producer continues from the lowered bound. A proof recorded so claims only what
// its duals prove, up to the rounding of repeated replays.
func (n *Network) liveCheck(dom LoadDomain, rules MarketRules, ev *LMPEvidence, piLo, piHi []float64) (int, error) {
	rec := ev.rec
	c, cuts, err := n.checkPrelude(rec.p, dom, rules, true)
	if err != nil {
		return 0, err
	}
	r := c.newReplayer(cuts, c.m.vars)
	for q := range rec.p.Steps {
		if err := r.step(q, &rec.p.Steps[q]); err != nil {
			return 0, err
		}
	}
	c.clamp, r.rec = true, rec
	diff := 0
	for _, s := range [][2][]float64{{piLo, c.piLo}, {piHi, c.piHi}, {ev.MuUp, c.ev.MuUp}, {ev.MuLo, c.ev.MuLo},
		{ev.FlowLo, c.ev.FlowLo}, {ev.FlowHi, c.ev.FlowHi}} {
		for i, v := range s[1] {
			if s[0][i] != v {
				s[0][i] = v
				diff++
			}
		}
	}
	rec.live = r
	return diff, nil
}

// boxStep records a price box found by minimizing ∓π (the dual negated).
func (r *lmpRecorder) boxStep(res *highs.LPResult, op string, k int, x float64) {
	if r != nil {
		y := negatedDual(res)
		r.p.Boxes = append(r.p.Boxes, LMPStep{Op: op, K: k, X: x, Y: &y})
	}
}

// negatedDual returns −λ of a minimization: the multipliers of the
// equivalent maximization of −cᵀx.
func negatedDual(res *highs.LPResult) lpdual.Sparse {
	s := lpdual.FromDense(res.RowDual)
	for k := range s.Val {
		s.Val[k] = -s.Val[k]
	}
	return s
}

// rowAdder appends rows given as the columns of a CSC matrix (HiGHS's LP,
// or the checker's copy).
type rowAdder interface {
	AddRows(lower, upper []float64, rows *sparse.CSC) error
}

// relUp returns x plus a 10⁻⁹ relative margin: the derived constants are
// computed in floating point; the margin covers their rounding.
func relUp(x float64) float64 { return x + 1e-9*(1+math.Abs(x)) }

// localCostBounds are the closed-form quantities of the local-balance
// dispatch x₀ (see lmpBound).
type localCostBounds struct {
	max            float64 // max over D of x₀'s cost (with a margin)
	sumLo          float64
	segMin, segW   float64
	capacity, C, F float64
}

// localCost computes the largest cost of the local-balance dispatch x₀ over
// the domain: at each bus, the net load above the units' Pmin, y_j = d_j +
// Pbusinj_j − Σ Pmin, is served by the bus's own segments in merit order up
// to their width W_j, the rest (y_j > W_j, or y_j < 0) by the bus's
// backstops; θ = 0 and the flows are Pfinj. Its cost h_j(y_j) is piecewise
// linear, so its maximum over [lo_j, hi_j] is at an end or a breakpoint (0,
// W_j, the segment ends). It also checks that no backstop can be at its
// capacity in an optimal solution (such a dispatch costs more than x₀).
func (n *Network) localCost(m *marketLP, dom LoadDomain, rules MarketRules) (*localCostBounds, error) {
	C, F := rules.PriceCap, rules.PriceFloor
	nb := n.NumBuses()
	pminAt := make([]float64, nb)
	for g, bi := range n.GenBus {
		pminAt[bi] += n.Pmin[g]
	}
	local := make([][]MeritSegment, nb) // by price (m.segs is sorted)
	for s, sg := range m.segs {
		local[m.segBus[s]] = append(local[m.segBus[s]], sg)
	}
	bcost := func(x float64) float64 { return C*math.Max(0, x) + (-F)*math.Max(0, -x) }
	lc := &localCostBounds{capacity: m.capacity, C: C, F: F}
	for j := 0; j < nb; j++ {
		lo := dom.Lo[j] + n.Pbusinj[j] - pminAt[j]
		hi := dom.Hi[j] + n.Pbusinj[j] - pminAt[j]
		var w float64
		knots := []float64{lo, hi, 0}
		for _, sg := range local[j] {
			w += sg.Width
			knots = append(knots, w)
		}
		if (hi > w && !m.shedAt[j]) || (lo < 0 && !m.curtAt[j]) {
			return nil, fmt.Errorf("bus %d cannot balance locally with its units and backstops (net load above Pmin in [%.6g, %.6g] MW, units' range [0, %.6g] MW)", n.BusID[j], lo, hi, w)
		}
		if math.Max(math.Abs(lo), math.Abs(hi)) > m.capacity {
			return nil, fmt.Errorf("bus %d's net load exceeds the backstop capacity", n.BusID[j])
		}
		h := func(y float64) float64 {
			u := math.Min(math.Max(y, 0), w)
			c := bcost(y - u)
			for _, sg := range local[j] {
				f := math.Min(u, sg.Width)
				c += sg.Price * f
				u -= f
			}
			return c
		}
		worst := math.Inf(-1)
		for _, y := range knots {
			if y >= lo && y <= hi {
				worst = math.Max(worst, h(y))
			}
		}
		lc.max += worst
		lc.sumLo += lo
	}
	lc.max = relUp(lc.max)
	for _, s := range m.segs {
		lc.segMin += math.Min(0, s.Price) * s.Width
		lc.segW += s.Width
	}
	if !(C*m.capacity+lc.segMin > lc.max) || !(C*(m.capacity+lc.sumLo-lc.segW)+(-F)*m.capacity+lc.segMin > lc.max) {
		return nil, errors.New("the backstop capacity does not rule out a backstop at capacity (prices above the cap possible)")
	}
	return lc, nil
}

// gap returns G = max(0, LocalCostMax − vmin) (with a margin).
func (lc *localCostBounds) gap(vmin float64) float64 { return relUp(math.Max(0, lc.max-vmin)) }

// refCostMax returns VMid plus the largest cost of local backstops for
// d − centre over the domain: every d's optimal cost is at most this (the
// centre's optimal dispatch repaired by backstops at the varying buses).
func refCostMax(vmid float64, dom LoadDomain, vars []int, rules MarketRules) float64 {
	r := vmid
	for _, j := range vars {
		mid := (dom.Lo[j] + dom.Hi[j]) / 2
		r += math.Max(rules.PriceCap*(dom.Hi[j]-mid), (-rules.PriceFloor)*(mid-dom.Lo[j]))
	}
	return relUp(r)
}

// backstopBounds sets ShedMax and CurtMax: every optimal dispatch costs at
// most RefCostMax (and LDRCostMax when a decision rule gave one), so σ_j ≤ (RefCostMax − Σ min(0, c_s) w_s)/PriceCap, and κ_j
// likewise (or by the balance).
func (lc *localCostBounds) backstopBounds(ev *LMPEvidence, m *marketLP, rules MarketRules) {
	C, F := rules.PriceCap, rules.PriceFloor
	vmax := ev.RefCostMax
	if ev.LDRCostMax > 0 {
		vmax = math.Min(vmax, ev.LDRCostMax) // the decision rule's bound on V(d)
	}
	ev.ShedMax = math.Min(m.capacity, relUp((vmax-lc.segMin)/C))
	ev.CurtMax = math.Min(m.capacity, relUp(lc.segW+(vmax-lc.segMin)/C-lc.sumLo))
	if F < 0 {
		ev.CurtMax = math.Min(ev.CurtMax, relUp((vmax-lc.segMin)/(-F)))
	}
}

// muBounds0 sets the congestion dual bounds G/(u − Pfinj), G/(Pfinj − w)
// (the local-balance dispatch as the repair point), or returns why they do
// not apply.
func (n *Network) muBounds0(m *marketLP, ev *LMPEvidence) string {
	nl := n.NumBranches()
	ev.MuUp, ev.MuLo = make([]float64, nl), make([]float64, nl)
	for l := 0; l < nl; l++ {
		if m.flow[l] < 0 {
			continue
		}
		if math.IsInf(n.FlowMax[l], 1) || math.IsInf(n.FlowMin[l], -1) {
			return fmt.Sprintf("branch %d has a one-sided flow limit", n.Branch[l]+1)
		}
		up, lo := n.FlowMax[l]-n.Pfinj[l], n.Pfinj[l]-n.FlowMin[l]
		if !(up > 0 && lo > 0) {
			return fmt.Sprintf("branch %d: the zero-injection flow is not strictly inside its limits", n.Branch[l]+1)
		}
		ev.MuUp[l], ev.MuLo[l] = relUp(ev.CostGap/up), relUp(ev.CostGap/lo)
	}
	return ""
}

// LMPCheck is the result of CheckLMPProof.
type LMPCheck struct {
	PerMW float64 // the bound on max |π_i| over the varying buses the proof establishes
	Steps int     // LP bounds checked (the duals evaluated)
	// Repaired counts the claims the producer's repair pass raised to their
	// duals' bounds (0 from CheckLMPProof).
	Repaired int
	Seconds  float64
}

// lpOf converts the columns and rows of b (its triplets) to the checker's
// row-major form.
func lpOf(b *lpBuilder) *lpdual.LP {
	nr := len(b.rlo)
	lp := &lpdual.LP{Lo: append([]float64(nil), b.lo...), Hi: append([]float64(nil), b.hi...),
		RowLo: append([]float64(nil), b.rlo...), RowHi: append([]float64(nil), b.rhi...), RowPtr: make([]int, nr+1)}
	for _, r := range b.ri {
		lp.RowPtr[r+1]++
	}
	for i := 0; i < nr; i++ {
		lp.RowPtr[i+1] += lp.RowPtr[i]
	}
	lp.Col, lp.Val = make([]int, len(b.ri)), make([]float64, len(b.ri))
	next := append([]int(nil), lp.RowPtr[:nr]...)
	for q, r := range b.ri {
		lp.Col[next[r]], lp.Val[next[r]] = b.rj[q], b.rv[q]
		next[r]++
	}
	return lp
}

// lpRows appends rows to a checker's program (the bookkeeping rows of
// bound tightening).
type lpRows struct{ lp *lpdual.LP }

func (a lpRows) AddRows(lo, hi []float64, rows *sparse.CSC) error {
	for r := 0; r < rows.Cols; r++ {
		a.lp.AddRow(lo[r], hi[r], rows.RowIdx[rows.ColPtr[r]:rows.ColPtr[r+1]], rows.Val[rows.ColPtr[r]:rows.ColPtr[r+1]])
	}
	return nil
}

func nextUp(x float64) float64 { return math.Nextafter(x, math.Inf(1)) }
func nextDn(x float64) float64 { return math.Nextafter(x, math.Inf(-1)) }

// proofChecker holds the proven bounds while CheckLMPProof replays a proof.
type proofChecker struct {
	n          *Network
	dom        LoadDomain
	rules      MarketRules
	ws         lpdual.Workspace
	theta      []float64 // |θ_k| bound per bus (Inf: none)
	ptdfOK     bool      // positive susceptances: the price box [F − S, C + S]
	boxLo      []float64 // else the proven price box (LMPProof.PiBox)
	boxHi      []float64
	steps      int
	ev         *LMPEvidence
	piLo, piHi []float64
	// repair (producer only): a claim that misses its dual's bound by at
	// most 10⁻⁴ relative (the dual's residuals times the boxes) is raised
	// to the bound instead of rejected; repaired counts them.
	repair   bool
	repaired int
	// clamp (the producer's own replay while it records, liveCheck): a
	// tightening step's claim beyond its dual's bound is lowered to that
	// bound, whatever the shortfall, and a step that then improves nothing
	// is refused (errNoGain) and not applied; lowered and worst count them.
	clamp   bool
	lowered int
	worst   loweredClaim
	m       *marketLP // the market LP's layout (the leaf steps read it)
	bridge  []bool    // bridgeSlack's limits (computed at the first leaf step)
}

// repairTol is the largest relative shortfall repair mends.
const repairTol = 1e-4

// loweredClaim is a claim clamp lowered: the step, the claim, the bound its
// dual proves and the shortfall relative to 1 + |bound|.
type loweredClaim struct {
	what          string
	claim, proven float64
	rel           float64
}

// clampHook, when set (diagnostics), sees every claim clamp lowers, with
// the replay's relaxation (r.k, r.lp), the objective and dual of its bound.
var clampHook func(r *replayer, what string, obj, y lpdual.Sparse, claim, proven float64)

// lowerClaim records that clamp lowered a claim of the step what.
func (r *replayer) lowerClaim(what string, obj lpdual.Sparse, y *lpdual.Sparse, claim, proven float64) {
	c := r.c
	c.lowered++
	if rel := math.Abs(claim-proven) / (1 + math.Abs(proven)); rel > c.worst.rel {
		c.worst = loweredClaim{what: what, claim: claim, proven: proven, rel: rel}
	}
	if clampHook != nil {
		clampHook(r, what, obj, *y, claim, proven)
	}
}

// upper checks the claim x ≥ u (x an upper bound).
func (c *proofChecker) upper(x *float64, u float64, what string) error {
	if *x >= u {
		return nil
	}
	if c.clamp {
		*x = u
		return nil
	}
	if c.repair && u-*x <= repairTol*(1+math.Abs(u)) {
		*x = u
		c.repaired++
		return nil
	}
	return fmt.Errorf("%w: %s: bound %v below the dual's %v", ErrNotCertified, what, *x, u)
}

// lower checks the claim x ≤ l (x a lower bound).
func (c *proofChecker) lower(x *float64, l float64, what string) error {
	if *x <= l {
		return nil
	}
	if c.clamp {
		*x = l
		return nil
	}
	if c.repair && *x-l <= repairTol*(1+math.Abs(l)) {
		*x = l
		c.repaired++
		return nil
	}
	return fmt.Errorf("%w: %s: bound %v above the dual's %v", ErrNotCertified, what, *x, l)
}

func (c *proofChecker) bound(lp *lpdual.LP, obj lpdual.Sparse, y *lpdual.Sparse, what string) (float64, error) {
	if y == nil {
		return 0, fmt.Errorf("%w: %s has no dual", ErrNotCertified, what)
	}
	u, err := lpdual.MaxBound(lp, obj, *y, &c.ws)
	if err != nil {
		return 0, fmt.Errorf("%w: %s: %v", ErrNotCertified, what, err)
	}
	c.steps++
	return u, nil
}

// thetaBoxes returns, per bus, a bound on |θ_k − θ_ref| at every point of
// the market LP (m, its rows in lp): the shortest path to the reference bus
// with branch lengths Δ_l/b_l, Δ_l a bound on |b_l(θ_f − θ_t)|: for a
// limited branch max(|FlowMax − Pfinj|, |FlowMin − Pfinj|); for any branch
// Σ_j Q_j, where Q_j bounds the bus's net injection Bbus θ from its balance
// row's other columns' boxes (the flows are PTDF times the injections and
// |PTDF| ≤ 1 with positive susceptances). Lengths and sums rounded up.
func (n *Network) thetaBoxes(m *marketLP, lp *lpdual.LP, ptdfOK bool) []float64 {
	bfBus, bfVal := m.bfBus, m.bfVal
	isTheta := make(map[int]bool, len(m.theta))
	for _, col := range m.theta {
		isTheta[col] = true
	}
	qtot := 0.0
	for _, r := range m.balance {
		q := math.Max(math.Abs(lp.RowLo[r]), math.Abs(lp.RowHi[r]))
		for t := lp.RowPtr[r]; t < lp.RowPtr[r+1]; t++ {
			if j := lp.Col[t]; !isTheta[j] {
				q = nextUp(q + nextUp(math.Abs(lp.Val[t])*math.Max(math.Abs(lp.Lo[j]), math.Abs(lp.Hi[j]))))
			}
		}
		qtot = nextUp(qtot + q)
	}
	if !ptdfOK {
		qtot = math.Inf(1) // the injection argument needs |PTDF| ≤ 1: limited branches only
	}
	nb := n.NumBuses()
	dist := make([]float64, nb)
	for i := range dist {
		dist[i] = math.Inf(1)
	}
	for _, r := range n.RefBus {
		dist[r] = 0
	}
	type edge struct {
		to int
		w  float64
	}
	adj := make([][]edge, nb)
	for l := range bfBus {
		if len(bfBus[l]) != 2 {
			continue
		}
		b := math.Abs(bfVal[l][0])
		if !(b > 0) || bfVal[l][1] != -bfVal[l][0] {
			continue
		}
		w := qtot
		if !math.IsInf(n.FlowMax[l], 1) && !math.IsInf(n.FlowMin[l], -1) {
			w = math.Min(w, nextUp(math.Max(math.Abs(n.FlowMax[l]-n.Pfinj[l]), math.Abs(n.FlowMin[l]-n.Pfinj[l]))))
		}
		w = nextUp(nextUp(w) / b)
		i, j := bfBus[l][0], bfBus[l][1]
		adj[i] = append(adj[i], edge{j, w})
		adj[j] = append(adj[j], edge{i, w})
	}
	// Dijkstra (dense selection: the networks checked are small).
	done := make([]bool, nb)
	for {
		u := -1
		for i := 0; i < nb; i++ {
			if !done[i] && !math.IsInf(dist[i], 1) && (u < 0 || dist[i] < dist[u]) {
				u = i
			}
		}
		if u < 0 {
			break
		}
		done[u] = true
		for _, e := range adj[u] {
			if d := nextUp(dist[u] + e.w); d < dist[e.to] {
				dist[e.to] = d
			}
		}
	}
	return dist
}

// piBoxes returns, per bus, a box containing the price of every optimal
// dual (every KKT point) given the current congestion dual bounds: [F − S,
// C + S] with positive susceptances, else the proven box.
func (c *proofChecker) piBoxes() (lo, hi []float64) {
	if !c.ptdfOK {
		return c.boxLo, c.boxHi
	}
	S := priceSpread(c.ev)
	nb := c.n.NumBuses()
	lo, hi = make([]float64, nb), make([]float64, nb)
	for j := range lo {
		lo[j], hi[j] = nextDn(c.rules.PriceFloor-S), nextUp(c.rules.PriceCap+S)
	}
	return lo, hi
}

// backstopPriceBounds returns the price bounds every optimal dual obeys by
// the backstops alone: π ≤ PriceCap at shedding buses, π ≥ PriceFloor at
// curtailment buses (±Inf elsewhere).
func backstopPriceBounds(m *marketLP, rules MarketRules) (lo, hi []float64) {
	lo, hi = make([]float64, len(m.shedAt)), make([]float64, len(m.shedAt))
	for j := range lo {
		lo[j], hi[j] = math.Inf(-1), math.Inf(1)
		if m.shedAt[j] {
			hi[j] = rules.PriceCap
		}
		if m.curtAt[j] {
			lo[j] = rules.PriceFloor
		}
	}
	return lo, hi
}

// priceBoxLP returns the dual polyhedron {stationarity, μ within ev's bounds,
// backstop price bounds} with every price also in [−P, P], and its price
// columns.
func (n *Network) priceBoxLP(m *marketLP, ev *LMPEvidence, rules MarketRules, P float64) (*lpBuilder, []int) {
	lo, hi := backstopPriceBounds(m, rules)
	for j := range lo {
		lo[j], hi[j] = math.Max(lo[j], -P), math.Min(hi[j], P)
	}
	b := newLPBuilder()
	pi, _, _ := n.addDual(b, ev, lo, hi)
	return b, pi
}

// checkPriceBox checks the proof's price box: with Q the dual polyhedron
// and B = [−P, P]ⁿ, every side of every price the backstops leave open is
// bounded over Q ∩ B strictly inside (−P, P); then Q ⊆ B (a point of Q
// outside B would put a point of Q ∩ B on B's boundary, on the segment to a
// point of Q ∩ B), so the bounds hold over Q: for every optimal dual.
func (c *proofChecker) checkPriceBox(m *marketLP, p *LMPProof) error {
	P := p.PiBox
	if !(P > 0) || math.IsInf(P, 0) {
		return fmt.Errorf("%w: a branch has b ≤ 0 and the proof has no price box (pi_box %v)", ErrNotCertified, P)
	}
	db, pi := c.n.priceBoxLP(m, c.ev, c.rules, P)
	q := lpOf(db)
	lo0, hi0 := backstopPriceBounds(m, c.rules)
	c.boxLo, c.boxHi = append([]float64(nil), lo0...), append([]float64(nil), hi0...)
	nb := len(lo0)
	for i := range p.PiBoxSteps {
		st := &p.PiBoxSteps[i]
		if st.K < 0 || st.K >= nb || (st.Op != "box_hi" && st.Op != "box_lo") {
			return fmt.Errorf("%w: price box step %d: op %q bus %d", ErrNotCertified, i, st.Op, st.K)
		}
		sign := 1.0
		if st.Op == "box_lo" {
			sign = -1
		}
		what := fmt.Sprintf("price box step %d", i)
		u, err := c.bound(q, lpdual.Sparse{Idx: []int{pi[st.K]}, Val: []float64{sign}}, st.Y, what)
		if err != nil {
			return err
		}
		if sign > 0 {
			if err := c.upper(&st.X, u, what); err != nil {
				return err
			}
			if !(st.X < P) {
				return fmt.Errorf("%w: %s: bound %v not inside the box %v", ErrNotCertified, what, st.X, P)
			}
			c.boxHi[st.K] = math.Min(c.boxHi[st.K], st.X)
		} else {
			if err := c.lower(&st.X, -u, what); err != nil {
				return err
			}
			if !(st.X > -P) {
				return fmt.Errorf("%w: %s: bound %v not inside the box %v", ErrNotCertified, what, st.X, -P)
			}
			c.boxLo[st.K] = math.Max(c.boxLo[st.K], st.X)
		}
	}
	for j := 0; j < nb; j++ {
		if math.IsInf(c.boxLo[j], 0) || math.IsInf(c.boxHi[j], 0) {
			return fmt.Errorf("%w: the price box leaves bus %d's price unbounded", ErrNotCertified, c.n.BusID[j])
		}
	}
	return nil
}

// provePriceBox records the price box of a network with a branch of b ≤ 0
// (checkPriceBox): P = 4·(max(cap, −floor) + S), then 100 and 10⁴ times
// that while a bound reaches P. It reports false when none works.
func (n *Network) provePriceBox(ctx context.Context, hopt highs.Options, m *marketLP, ev *LMPEvidence, rules MarketRules) (bool, error) {
	rec := ev.rec
	lo0, hi0 := backstopPriceBounds(m, rules)
	P := 4 * (rules.MaxPrice() + priceSpread(ev))
	for attempt := 0; attempt < 3; attempt, P = attempt+1, 100*P {
		b, pi := n.priceBoxLP(m, ev, rules, P)
		lp, err := b.build(hopt)
		if err != nil {
			return false, err
		}
		lo, hi := append([]float64(nil), lo0...), append([]float64(nil), hi0...)
		var steps []LMPStep
		cost := make([]float64, len(b.cost))
		ok := true
		for j := range pi {
			for _, sign := range []float64{1, -1} {
				if !ok || (sign > 0 && !math.IsInf(hi0[j], 0)) || (sign < 0 && !math.IsInf(lo0[j], 0)) {
					continue
				}
				cost[pi[j]] = -sign
				err := lp.SetCosts(cost)
				cost[pi[j]] = 0
				if err != nil {
					lp.Close()
					return false, err
				}
				r, err := lp.Solve(ctx)
				if err == nil {
					err = ctx.Err()
				}
				if err != nil {
					lp.Close()
					return false, err
				}
				if r.Status != solver.Optimal {
					ok = false
					continue
				}
				v := -r.Objective // max sign·π
				x := v + 1e-6*(1+math.Abs(v))
				y := negatedDual(r)
				if sign > 0 {
					hi[j] = x
					steps = append(steps, LMPStep{Op: "box_hi", K: j, X: x, Y: &y})
				} else {
					lo[j] = -x
					steps = append(steps, LMPStep{Op: "box_lo", K: j, X: -x, Y: &y})
				}
				ok = ok && x < P*(1-1e-6)
			}
		}
		lp.Close()
		if ok {
			rec.p.PiBox, rec.p.PiBoxSteps, rec.boxLo, rec.boxHi = P, steps, lo, hi
			return true, nil
		}
	}
	return false, nil
}

// priceSpread returns S = Σ_l max(μ̄⁺_l, μ̄⁻_l) rounded up: every optimal
// price lies in [PriceFloor − S, PriceCap + S] (see the chain above).
func priceSpread(ev *LMPEvidence) float64 {
	s := 0.0
	for l := range ev.MuUp {
		s = nextUp(s + math.Max(ev.MuUp[l], ev.MuLo[l]))
	}
	return s
}

// checkStructure checks what the proof needs: one island, a bus with both
// backstops, every branch's Bf row +b at one end and −b at the other; and
// sets ptdfOK when every b > 0 and Bbus is their sum (so that |PTDF|
// differences are at most 1 and the price box [F − S, C + S] holds; else the
// proof must prove a price box, LMPProof.PiBox).
func (c *proofChecker) checkStructure(m *marketLP) error {
	n := c.n
	if len(n.RefBus) != 1 {
		return fmt.Errorf("%w: the network has %d islands (the proof's price box needs one)", ErrNotCertified, len(n.RefBus))
	}
	both := false
	for j := range m.shedAt {
		both = both || (m.shedAt[j] && m.curtAt[j])
	}
	if !both {
		return fmt.Errorf("%w: no bus has both backstops", ErrNotCertified)
	}
	nb := n.NumBuses()
	diag := make([]float64, nb)
	for l := range m.bfBus {
		if len(m.bfBus[l]) == 0 {
			continue
		}
		if len(m.bfBus[l]) != 2 || m.bfVal[l][0] != -m.bfVal[l][1] {
			return fmt.Errorf("%w: branch %d's flow row is not +b/−b", ErrNotCertified, n.Branch[l]+1)
		}
		if !(n.B[l] > 0) {
			c.ptdfOK = false
			return nil
		}
		b := math.Abs(m.bfVal[l][0])
		diag[m.bfBus[l][0]] += b
		diag[m.bfBus[l][1]] += b
	}
	for k := 0; k < n.Bbus.Cols; k++ {
		for t := n.Bbus.ColPtr[k]; t < n.Bbus.ColPtr[k+1]; t++ {
			if j := n.Bbus.RowIdx[t]; (j == k && math.Abs(n.Bbus.Val[t]-diag[k]) > 1e-9*math.Max(1, diag[k])) || (j != k && !(n.Bbus.Val[t] <= 0)) {
				c.ptdfOK = false
				return nil
			}
		}
	}
	c.ptdfOK = true
	return nil
}

// cutHolds reports v − Σ_{j ∈ vars} pi_j load_j ≤ rhs, evaluated exactly.
func cutHolds(v float64, pi, load []float64, vars []int, rhs float64) bool {
	a := new(big.Rat).SetFloat64(v)
	for _, j := range vars {
		t := new(big.Rat).SetFloat64(pi[j])
		a.Sub(a, t.Mul(t, new(big.Rat).SetFloat64(load[j])))
	}
	return a.Cmp(new(big.Rat).SetFloat64(rhs)) <= 0
}

// CheckLMPProof verifies an LMPProof for the network (without backstops,
// piecewise-linear costs), the public domain and the rules, with no solver
// (see the chain above), and returns the bound it establishes. Every number
// it uses comes from the network, the domain, the rules or a bound it has
// proven; the proof supplies only duals, the centre's dispatch and the
// claimed values.
func (n *Network) CheckLMPProof(ctx context.Context, dom LoadDomain, rules MarketRules, p *LMPProof) (*LMPCheck, error) {
	return n.checkLMPProof(ctx, dom, rules, p, false)
}

// checkLMPProof is CheckLMPProof; with repair (the producer's last step)
// claims that miss their duals' bounds by at most repairTol are raised in
// p instead of rejected, so that the proof it returns checks.
func (n *Network) checkLMPProof(ctx context.Context, dom LoadDomain, rules MarketRules, p *LMPProof, repair bool) (*LMPCheck, error) {
	t0 := time.Now()
	if p == nil {
		return nil, fmt.Errorf("%w: no proof", ErrNotCertified)
	}
	if err := rules.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotCertified, err)
	}
	if err := dom.Validate(n); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotCertified, err)
	}
	if p.Split != nil {
		return n.checkSplitProof(ctx, dom, rules, p)
	}
	c, cuts, err := n.checkPrelude(p, dom, rules, repair)
	if err != nil {
		return nil, err
	}
	m := c.m
	// 6. Bound tightening.
	if err := c.replay(ctx, p.Steps, cuts, m.vars); err != nil {
		return nil, err
	}
	if err := c.checkPatternSplits(p.PatternSplits, m.vars); err != nil {
		return nil, err
	}
	out := &LMPCheck{}
	for q := range p.Trees {
		v, err := c.checkTree(&p.Trees[q], cuts, m.vars)
		if err != nil {
			return nil, err
		}
		if err := c.upper(&p.Trees[q].Value, v, fmt.Sprintf("tree %d", q)); err != nil {
			return nil, err
		}
		for _, t := range p.Trees[:q] {
			if t.Sign == p.Trees[q].Sign && t.Bus == p.Trees[q].Bus {
				return nil, fmt.Errorf("%w: two trees for bus index %d, sign %v", ErrNotCertified, t.Bus, t.Sign)
			}
		}
	}
	out.Steps, out.Repaired = c.steps, c.repaired
	out.PerMW = proofValue(m.vars, c.piLo, c.piHi, p.Trees)
	if err := c.upper(&p.PerMW, out.PerMW, "the proof's value"); err != nil {
		return nil, err
	}
	out.PerMW = p.PerMW
	out.Seconds = time.Since(t0).Seconds()
	return out, nil
}

// checkPrelude checks steps 1–5 of the chain (VMin to the price boxes; see
// above) and returns the checker with their proven bounds, and the cuts.
func (n *Network) checkPrelude(p *LMPProof, dom LoadDomain, rules MarketRules, repair bool) (*proofChecker, []subgradientCut, error) {
	C, F := rules.PriceCap, rules.PriceFloor
	nb := n.NumBuses()
	c := &proofChecker{n: n, dom: dom, rules: rules, ev: &LMPEvidence{}, repair: repair}
	ev := c.ev
	// 1. VMin.
	b := newLPBuilder()
	m, err := n.newMarketLP(b, dom, rules)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrNotCertified, err)
	}
	if len(m.vars) == 0 {
		return nil, nil, fmt.Errorf("%w: no bus load varies over the domain", ErrNotCertified)
	}
	if err := c.checkStructure(m); err != nil {
		return nil, nil, err
	}
	c.m = m
	market := lpOf(b)
	c.theta = n.thetaBoxes(m, market, c.ptdfOK)
	for j, col := range m.theta {
		if market.Lo[col] != 0 || market.Hi[col] != 0 {
			market.Lo[col], market.Hi[col] = -c.theta[j], c.theta[j]
		}
	}
	negCost := lpdual.FromDense(b.cost)
	for k := range negCost.Val {
		negCost.Val[k] = -negCost.Val[k]
	}
	u, err := c.bound(market, negCost, &p.VMinDual, "v_min")
	if err != nil {
		return nil, nil, err
	}
	if err := c.lower(&p.VMin, -u, "v_min"); err != nil {
		return nil, nil, err
	}
	ev.VMin = p.VMin
	// 2. Local-balance cost, cost gap, congestion dual bounds.
	lc, err := n.localCost(m, dom, rules)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrNotCertified, err)
	}
	ev.LocalCostMax, ev.CostGap = lc.max, lc.gap(ev.VMin)
	if why := n.muBounds0(m, ev); why != "" {
		return nil, nil, fmt.Errorf("%w: %s", ErrNotCertified, why)
	}
	if !c.ptdfOK {
		if err := c.checkPriceBox(m, p); err != nil {
			return nil, nil, err
		}
	}
	if err := c.checkTwins(p.Twins); err != nil {
		return nil, nil, err
	}
	// 2b. The decision rules: robust feasibility, cost bounds, slacks (the
	// price boxes of the bounds before the rules, as the producer's).
	if len(p.DecisionRules) > 0 {
		lo, hi := c.piBoxes()
		for q, rule := range p.DecisionRules {
			if rule == nil {
				return nil, nil, fmt.Errorf("%w: decision rule %d is empty", ErrNotCertified, q)
			}
			lb, err := n.evalLDR(m, b, rule, lo, hi)
			if err != nil {
				return nil, nil, fmt.Errorf("%w: decision rule %d: %v", ErrNotCertified, q, err)
			}
			lb.apply(ev)
		}
	}
	// 3. VMid from the centre's dispatch and the optimal duals' boxes.
	boxLo, boxHi := c.piBoxes()
	mid := make([]float64, nb)
	for j := range mid {
		mid[j] = (dom.Lo[j] + dom.Hi[j]) / 2
	}
	centre := *market
	centre.Lo, centre.Hi = append([]float64(nil), market.Lo...), append([]float64(nil), market.Hi...)
	for _, j := range m.vars {
		centre.Lo[m.d[j]], centre.Hi[m.d[j]] = mid[j], mid[j]
	}
	yLo, yHi := make([]float64, market.NumRows()), make([]float64, market.NumRows())
	for i := range yLo {
		yLo[i], yHi[i] = math.Inf(-1), math.Inf(1)
	}
	for j, r := range m.balance {
		yLo[r], yHi[r] = boxLo[j], boxHi[j]
	}
	for l, r := range m.flow {
		if r >= 0 {
			mu := math.Max(ev.MuUp[l], ev.MuLo[l])
			yLo[r], yHi[r] = -mu, mu
		}
	}
	vmid, err := lpdual.MinUpperBound(&centre, b.cost, p.VMidPoint, yLo, yHi)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: v_mid: %v", ErrNotCertified, err)
	}
	if err := c.upper(&p.VMid, vmid, "v_mid"); err != nil {
		return nil, nil, err
	}
	ev.VMid = p.VMid
	ev.RefCostMax = refCostMax(ev.VMid, dom, m.vars, rules)
	lc.backstopBounds(ev, m, rules)
	// 4. Subgradient cuts, each over all d ∈ D: max −(cᵀx − πᵀd) ≤ U gives
	// V(d) ≥ πᵀd − U, so the cut holds when v − πᵀd_k ≤ −U.
	if len(p.Cuts) != 3 {
		return nil, nil, fmt.Errorf("%w: %d cuts, want 3", ErrNotCertified, len(p.Cuts))
	}
	var cuts []subgradientCut
	for k, d := range [][]float64{mid, dom.Lo, dom.Hi} {
		cp := p.Cuts[k]
		pi := make([]float64, nb)
		row := make(map[int]int, nb)
		for j, r := range m.balance {
			row[r] = j
		}
		for q, r := range cp.Dual.Idx {
			if r < 0 || r >= market.NumRows() {
				return nil, nil, fmt.Errorf("%w: cut %d: dual index %d out of range", ErrNotCertified, k, r)
			}
			if j, ok := row[r]; ok {
				pi[j] -= cp.Dual.Val[q]
			}
		}
		obj := lpdual.Sparse{Idx: append([]int(nil), negCost.Idx...), Val: append([]float64(nil), negCost.Val...)}
		for _, j := range m.vars {
			obj.Idx, obj.Val = append(obj.Idx, m.d[j]), append(obj.Val, pi[j])
		}
		u, err := c.bound(market, obj, &cp.Dual, fmt.Sprintf("cut %d", k))
		if err != nil {
			return nil, nil, err
		}
		if !cutHolds(cp.V, pi, d, m.vars, -u) {
			// v ≤ −U + πᵀd_k, evaluated in floating point with a margin
			// (and checked exactly again).
			rhs := -u
			for _, j := range m.vars {
				rhs += pi[j] * d[j]
			}
			v := rhs - 1e-9*(1+math.Abs(rhs))
			if !c.repair || cp.V-v > repairTol*(1+math.Abs(v)) || !cutHolds(v, pi, d, m.vars, -u) {
				return nil, nil, fmt.Errorf("%w: cut %d: value %v not implied by its dual (bound %v)", ErrNotCertified, k, cp.V, -u)
			}
			p.Cuts[k].V, cp.V = v, v
			c.repaired++
		}
		cuts = append(cuts, subgradientCut{load: d, v: cp.V, pi: pi})
	}
	// 5. Price boxes over the dual polyhedron.
	c.piLo, c.piHi = make([]float64, nb), make([]float64, nb)
	need := make([]bool, nb)
	for j := range c.piLo {
		c.piLo[j], c.piHi[j] = math.Inf(-1), math.Inf(1)
		if m.shedAt[j] {
			c.piHi[j] = C
		}
		if m.curtAt[j] {
			c.piLo[j] = F
		}
		need[j] = m.shedAt[j] || m.curtAt[j]
	}
	for s := range m.segs {
		need[m.segBus[s]] = true
	}
	if len(p.Boxes) > 0 {
		db := newLPBuilder()
		pi, _, _ := n.addDual(db, ev, c.piLo, c.piHi)
		dual := lpOf(db)
		for j, col := range pi {
			dual.Lo[col], dual.Hi[col] = math.Max(dual.Lo[col], boxLo[j]), math.Min(dual.Hi[col], boxHi[j])
		}
		for q := range p.Boxes {
			st := &p.Boxes[q]
			if st.K < 0 || st.K >= nb || (st.Op != "pi_hi" && st.Op != "pi_lo") {
				return nil, nil, fmt.Errorf("%w: price box %d: op %q bus %d", ErrNotCertified, q, st.Op, st.K)
			}
			sign := 1.0
			if st.Op == "pi_lo" {
				sign = -1
			}
			u, err := c.bound(dual, lpdual.Sparse{Idx: []int{pi[st.K]}, Val: []float64{sign}}, st.Y, fmt.Sprintf("price box %d", q))
			if err != nil {
				return nil, nil, err
			}
			what := fmt.Sprintf("price box %d", q)
			if sign > 0 {
				if err := c.upper(&st.X, u, what); err != nil {
					return nil, nil, err
				}
				c.piHi[st.K] = math.Min(c.piHi[st.K], st.X)
			} else {
				if err := c.lower(&st.X, -u, what); err != nil {
					return nil, nil, err
				}
				c.piLo[st.K] = math.Max(c.piLo[st.K], st.X)
			}
		}
	}
	for j := 0; j < nb; j++ {
		if need[j] && (math.IsInf(c.piLo[j], 0) || math.IsInf(c.piHi[j], 0)) {
			return nil, nil, fmt.Errorf("%w: the price at bus %d is not bounded by the proof", ErrNotCertified, n.BusID[j])
		}
	}
	return c, cuts, nil
}

// proofValue returns the bound on max |π_i| over the varying buses: per
// sign, the tree's value over its buses and the price bounds elsewhere.
func proofValue(vars []int, piLo, piHi []float64, trees []LMPTree) float64 {
	v := 0.0
	for _, sign := range []float64{1, -1} {
		inTree := map[int]bool{}
		for _, t := range trees {
			if t.Sign == sign {
				v = math.Max(v, t.Value)
				inTree[t.Bus] = true
			}
		}
		for _, i := range vars {
			if inTree[i] {
				continue
			}
			if sign > 0 {
				v = math.Max(v, piHi[i])
			} else {
				v = math.Max(v, -piLo[i])
			}
		}
	}
	return v
}

// replay checks the tightening steps in order on a copy of each pass's
// relaxation, mirroring the producer's bookkeeping (tightenKKT).
func (c *proofChecker) replay(ctx context.Context, steps []LMPStep, cuts []subgradientCut, vars []int) error {
	r := c.newReplayer(cuts, vars)
	for q := range steps {
		if q%64 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if err := r.step(q, &steps[q]); err != nil {
			return err
		}
	}
	return nil
}

// replayer is replay's state between two steps: the current pass's
// relaxation (the checker's copy, with its boxes) and its big-M rows.
type replayer struct {
	rec  *lmpRecorder // the producer's recorder of a live check (else nil)
	c    *proofChecker
	cuts []subgradientCut
	vars []int
	k    *kktModel
	lp   *lpdual.LP
	bigM *bigMRows
}

// newReplayer starts a replay of the tightening steps: the flow ranges are
// the network's limits.
func (c *proofChecker) newReplayer(cuts []subgradientCut, vars []int) *replayer {
	c.ev.FlowLo, c.ev.FlowHi = append([]float64(nil), c.n.FlowMin...), append([]float64(nil), c.n.FlowMax...)
	return &replayer{c: c, cuts: cuts, vars: vars}
}

// errNoGain reports a step that, with its claim lowered to what its dual
// proves (proofChecker.clamp), does not improve the bound it tightens.
var errNoGain = errors.New("grid: the step's proven bound is no improvement")

// step checks step q and applies it.
func (r *replayer) step(q int, st *LMPStep) error {
	c := r.c
	n, ev, dom, rules := c.n, c.ev, c.dom, c.rules
	k, lp, bigM := r.k, r.lp, r.bigM
	nl := n.NumBranches()
	if st.Op == "leaf_up" || st.Op == "leaf_lo" {
		up := st.Op == "leaf_up"
		if c.bridge == nil {
			c.bridge = n.bridgeSlack(c.m, ev)
		}
		if st.K < 0 || st.K >= nl || !(c.bridge[st.K] || n.leafSlack(c.m, ev, st.K, up)) {
			return fmt.Errorf("%w: step %d (%s %d): not a radial limit slack at an optimum", ErrNotCertified, q, st.Op, st.K)
		}
		col := -1
		if up {
			ev.MuUp[st.K] = 0
			if k != nil {
				col = k.muUp[st.K]
			}
		} else {
			ev.MuLo[st.K] = 0
			if k != nil {
				col = k.muLo[st.K]
			}
		}
		if col >= 0 {
			lp.Lo[col], lp.Hi[col] = 0, 0
		}
		return nil
	}
	if st.Op != "pass" && k == nil {
		return fmt.Errorf("%w: step %d (%s) before the first pass", ErrNotCertified, q, st.Op)
	}
	what := fmt.Sprintf("step %d (%s %d)", q, st.Op, st.K)
	switch st.Op {
	case "flow_hi", "flow_lo", "mu_up", "mu_lo":
		if st.K < 0 || st.K >= nl || k.m.flow[st.K] < 0 {
			return fmt.Errorf("%w: %s: no such limited branch", ErrNotCertified, what)
		}
	case "pi_hi", "pi_lo":
		if st.K < 0 || st.K >= n.NumBuses() {
			return fmt.Errorf("%w: %s: no such bus", ErrNotCertified, what)
		}
	}
	switch st.Op {
	case "pass":
		var err error
		k, err = n.buildKKT(dom, rules, ev, c.piLo, c.piHi, 1, r.cuts, r.vars)
		if err != nil {
			return fmt.Errorf("%w: %v", ErrNotCertified, err)
		}
		k.b.integer = nil
		lp = lpOf(k.b)
		c.boxKKT(k, lp)
		bigM = newBigMRows(n, lpRows{lp}, k, ev, c.piLo, c.piHi, rules)
		r.k, r.lp, r.bigM = k, lp, bigM
	case "prune":
		for l := 0; l < nl; l++ {
			if k.m.flow[l] < 0 {
				continue
			}
			if ev.FlowHi[l] < n.FlowMax[l] && ev.MuUp[l] > 0 {
				ev.MuUp[l] = 0
				if col := k.muUp[l]; col >= 0 {
					lp.Lo[col], lp.Hi[col] = 0, 0
				}
			}
			if ev.FlowLo[l] > n.FlowMin[l] && ev.MuLo[l] > 0 {
				ev.MuLo[l] = 0
				if col := k.muLo[l]; col >= 0 {
					lp.Lo[col], lp.Hi[col] = 0, 0
				}
			}
		}
	case "flush_flows":
		if err := bigM.flows(k, ev); err != nil {
			return err
		}
	case "flush_duals":
		if err := bigM.duals(k, ev); err != nil {
			return err
		}
	case "flush_prices":
		if err := bigM.prices(k, c.piLo, c.piHi); err != nil {
			return err
		}
	case "flow_hi", "flow_lo":
		l := st.K
		dir := 1.0
		if st.Op == "flow_lo" {
			dir = -1
		}
		obj := lpdual.Sparse{}
		for t, j := range k.m.bfBus[l] {
			obj.Idx, obj.Val = append(obj.Idx, k.m.theta[j]), append(obj.Val, dir*k.m.bfVal[l][t])
		}
		u, err := c.bound(lp, obj, st.Y, what)
		if err != nil {
			return err
		}
		if c.clamp && math.IsInf(u, 1) {
			return errNoGain
		}
		// Bf θ ≤ u (flow_hi) or −Bf θ ≤ u (flow_lo).
		holds := func(x float64) bool {
			if dir > 0 {
				return u <= nextDn(x-n.Pfinj[l])
			}
			return nextUp(x-n.Pfinj[l]) <= -u
		}
		if !holds(st.X) {
			x := dir*u + n.Pfinj[l]
			for i := 0; i < 4 && !holds(x); i++ {
				x = math.Nextafter(x, dir*math.Inf(1))
			}
			switch {
			case c.clamp && holds(x):
				r.lowerClaim(what, obj, st.Y, st.X, x)
			case !c.repair || !holds(x) || math.Abs(x-st.X) > repairTol*(1+math.Abs(x)):
				return fmt.Errorf("%w: %s: flow bound %v not implied by the dual's %v", ErrNotCertified, what, st.X, dir*u+n.Pfinj[l])
			default:
				c.repaired++
			}
			st.X = x
		}
		if c.clamp && ((dir > 0 && st.X >= ev.FlowHi[l]) || (dir < 0 && st.X <= ev.FlowLo[l])) {
			return errNoGain
		}
		if dir > 0 {
			ev.FlowHi[l] = st.X
		} else {
			ev.FlowLo[l] = st.X
		}
		row := k.m.flow[l]
		lp.RowLo[row] = nextDn(math.Max(n.FlowMin[l], ev.FlowLo[l]) - n.Pfinj[l])
		lp.RowHi[row] = nextUp(math.Min(n.FlowMax[l], ev.FlowHi[l]) - n.Pfinj[l])
	case "mu_up", "mu_lo":
		col, bound := k.muUp[st.K], &ev.MuUp[st.K]
		if st.Op == "mu_lo" {
			col, bound = k.muLo[st.K], &ev.MuLo[st.K]
		}
		if col < 0 {
			return fmt.Errorf("%w: %s: the limit has no dual column", ErrNotCertified, what)
		}
		obj := lpdual.Sparse{Idx: []int{col}, Val: []float64{1}}
		u, err := c.bound(lp, obj, st.Y, what)
		if err != nil {
			return err
		}
		claim := st.X
		if err := c.upper(&st.X, u, what); err != nil {
			return err
		}
		if c.clamp && st.X != claim {
			r.lowerClaim(what, obj, st.Y, claim, st.X)
		}
		if c.clamp && st.X >= *bound {
			return errNoGain
		}
		*bound = st.X
		lp.Lo[col], lp.Hi[col] = 0, st.X
	case "pi_hi", "pi_lo":
		j := st.K
		sign := 1.0
		if st.Op == "pi_lo" {
			sign = -1
		}
		obj := lpdual.Sparse{Idx: []int{k.pi[j]}, Val: []float64{sign}}
		u, err := c.bound(lp, obj, st.Y, what)
		if err != nil {
			return err
		}
		claim := st.X
		if sign > 0 {
			err = c.upper(&st.X, u, what)
		} else {
			err = c.lower(&st.X, -u, what)
		}
		if err != nil {
			return err
		}
		if c.clamp && st.X != claim {
			r.lowerClaim(what, obj, st.Y, claim, st.X)
		}
		if c.clamp && ((sign > 0 && st.X >= c.piHi[j]) || (sign < 0 && st.X <= c.piLo[j])) {
			return errNoGain
		}
		if sign > 0 {
			c.piHi[j] = st.X
		} else {
			c.piLo[j] = st.X
		}
		lp.Lo[k.pi[j]], lp.Hi[k.pi[j]] = c.piLo[j], c.piHi[j]
	default:
		return fmt.Errorf("%w: step %d: unknown op %q", ErrNotCertified, q, st.Op)
	}
	return nil
}

// boxKKT gives the free columns of a KKT relaxation the boxes valid at
// every KKT point (see the chain above).
func (c *proofChecker) boxKKT(k *kktModel, lp *lpdual.LP) {
	boxLo, boxHi := c.piBoxes()
	for j, col := range k.m.theta {
		if lp.Lo[col] != 0 || lp.Hi[col] != 0 {
			lp.Lo[col], lp.Hi[col] = math.Max(lp.Lo[col], -c.theta[j]), math.Min(lp.Hi[col], c.theta[j])
		}
	}
	for j, col := range k.pi {
		lp.Lo[col], lp.Hi[col] = math.Max(lp.Lo[col], boxLo[j]), math.Min(lp.Hi[col], boxHi[j])
	}
	for j, w := range k.mcW {
		if w < 0 {
			continue
		}
		pl, ph := lp.Lo[k.pi[j]], lp.Hi[k.pi[j]]
		dl, dh := c.dom.Lo[j], c.dom.Hi[j]
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, a := range []float64{pl, ph} {
			for _, d := range []float64{dl, dh} {
				lo, hi = math.Min(lo, nextDn(a*d)), math.Max(hi, nextUp(a*d))
			}
		}
		lp.Lo[w], lp.Hi[w] = math.Max(lp.Lo[w], lo), math.Min(lp.Hi[w], hi)
	}
	for s, col := range k.nu {
		ph := lp.Hi[k.pi[k.m.segBus[s]]]
		lp.Hi[col] = math.Min(lp.Hi[col], math.Max(0, nextUp(ph-k.m.segs[s].Price)))
	}
	if k.t >= 0 {
		lo := math.Inf(1)
		for _, i := range k.sel {
			lo = math.Min(lo, lp.Lo[k.pi[i]])
		}
		lp.Lo[k.t] = math.Max(lp.Lo[k.t], lo)
	}
}
