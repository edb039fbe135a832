package grid

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/privopt/privopt/lpdual"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/highs"
	"github.com/privopt/privopt/sparse"
)

// Certified bound on the largest locational marginal price over a load domain.
//
// V(d), the optimal value of the DC-OPF with market rules (marketLP), is
// convex and piecewise linear in the bus loads d; for loads d, d′ = d + t·e_i
// both in the box D (and so the segment between them),
//
//	|V(d′) − V(d)| ≤ |t| · sup_{d ∈ D} max_{π ∈ ∂V(d)} |π_i|,
//
// and ∂V(d) is the set of optimal balance duals (the LMPs) at d (LP
// sensitivity; Schweppe et al. 1988). The supremum is a bilevel problem: the
// largest |π_i| over all primal–dual optimal pairs of the LP at some d ∈ D.
// CertifyLMPBound writes the LP's KKT conditions (primal feasibility, dual
// feasibility in the bus-angle form Bbus π + Bfᵀ(μ⁺ − μ⁻) = 0 on the
// non-reference buses, and complementary slackness with one binary per bound)
// as a mixed-integer program with d free in D and maximizes π_i over the
// buses whose load varies (one selection binary per bus); HiGHS's branch and
// cut returns a proven dual bound, which is what is certified (never the
// incumbent, which is only a point found).
//
// Every big-M is derived, never tuned (tuned big-Ms cut off KKT points and give
// wrong bilevel answers: Pineda and Morales, "Solving linear bilevel problems
// using big-Ms: not all that glitters is gold", IEEE Trans. Power Syst. 34(3),
// 2019):
//
//   - Primal: segment widths w_s, the backstop capacity, and the flow range
//     FlowMax − FlowMin of each branch.
//   - Congestion duals: let x₀(d) be the local-balance dispatch (each bus
//     balanced by its own units, in merit order from Pmin, and its backstops;
//     θ = 0, flows Pfinj), which is feasible for every d ∈ D (checked). For an optimal dual at d and a
//     branch's upper limit u, weak duality at the tightened limit u − δ and
//     the feasible convex combination (1 − ϑ)x*(d) + ϑx₀(d), ϑ = δ/(u − Pfinj),
//     give μ⁺ ≤ (cost(x₀(d)) − V(d)) / (u − Pfinj) ≤ G / (u − Pfinj) with
//     G = max_D cost(x₀) − min_D V (the latter one LP over (x, d)); the same
//     for μ⁻. This holds for EVERY optimal dual, so no KKT point is cut off.
//     Robust linear decision rules x(d) = x̄ + X(d − mid), feasible at every
//     d ∈ D (one LP, lmpldr.go), give the same bound with their much
//     smaller gap max_D cost(x(d)) − min_D V over their smallest slack, and
//     a row Σ_l μ_l s_l + cᵀx ≤ cost(x(d)) coupling the duals in the KKT
//     program (the Lagrangian at the rule's point).
//   - Prices: π_j ≤ PriceCap at shedding buses and π_j ≥ PriceFloor at
//     curtailment buses, because no backstop is at its capacity in any
//     optimal solution (checked: such a dispatch costs more than x₀); other
//     price bounds by LPs over {Bbus π + Bfᵀμ = 0, μ within its bounds, the
//     backstop price bounds}.
//   - Backstops: the system-wide ShedMax, CurtMax, and per bus the largest
//     backstop over the primal part of the relaxation (backstopRanges; not
//     in a checkable proof).
//
// Valid rows that cut no KKT point that sets the maximum (each proven where
// it is built): a KKT MIP for sign·π_i fixes d_i at the end of its interval
// (price monotonicity along a bus's own load, fixOwnLoads); twin branches
// carry one congestion dual (mergeTwinLimits; the proof lists the pairs); a
// bridge whose limit only a backstop on its side can reach gets
// z ≤ Σ (that side's backstop binaries) (bridgeCuts).
//
// Bound tightening (optimization-based bound tightening, as in the spatial
// branch-and-bound literature, e.g. Gleixner et al., "Three enhancements for
// optimization-based bound tightening", J. Glob. Optim. 67, 2017; Pineda and
// Morales recommend exactly such derived bounds for the big-Ms): the linear
// relaxation of the KKT program (binaries in [0, 1]) contains every KKT point
// at every d ∈ D, so the maximum of a branch's flow, a congestion dual or a
// price over it bounds that quantity at every KKT point. Each pass maximizes
// and minimizes every limited branch's flow, maximizes every congestion dual
// and bounds every price both ways (each bound imposed on the live
// relaxation at once, with the complementarity and McCormick rows it
// tightens appended), then rebuilds the relaxation with the tighter big-Ms,
// flow ranges and McCormick boxes. A limit the flow cannot
// reach at any KKT point has a zero dual there (complementary slackness):
// its dual is fixed at 0 and its binaries are dropped (the pruning to the
// branches that can congest over D). Finally, a bus whose price bound is at
// most a price seen at a point of the domain (LMPBoundOptions.KnownPrice, the
// reference solves' prices) is left out of the MIP's objective and enters the
// certified value with its bound, so the MIP maximizes over the few buses
// whose bound is still loose (often one: no selection binaries).
//
// Quadratic costs must first be replaced by their secant piecewise-linear
// epigraph (Case.PiecewiseCosts), the program the release solves.

// LMPBoundOptions configure CertifyLMPBound.
type LMPBoundOptions struct {
	// TimeLimit is the nominal budget of a certification (0: 60 s), turned
	// into deterministic work budgets so that the certified bound — a
	// published number — does not depend on the machine's speed or load:
	// bound tightening gets TighteningWork (default 2.4·10⁷ work units per
	// second, about three quarters of TimeLimit on one core) and the KKT MIP
	// MIPWork (default 8·10⁶ units per second) plus a third of what the
	// tightening left unused (the ratio of the two rates; split evenly
	// between the two MIPs when the price floor is negative). A work unit is one simplex iteration times the rows plus
	// columns of the program it runs on (the MIP's LP-iteration limit is its
	// work divided by the KKT program's rows plus columns). Wall time enters
	// only through MIPTimeLimit, a safety net.
	TimeLimit time.Duration
	// MIPWork is the KKT MIP's work budget in work units (see TimeLimit;
	// 0: 8·10⁶ per second of TimeLimit).
	MIPWork float64
	// MIPTimeLimit is the wall-clock safety net of each MIP solve (0: four
	// times TimeLimit). When it stops a MIP before its work budget, the proven
	// bound at that moment is certified (sound, but looser than the budget
	// would give and not reproducible): LMPEvidence.Reproducible is false,
	// MIPStops says "time", and Progress gets a line saying so.
	MIPTimeLimit time.Duration
	// RelGap is the MIP's relative gap at which the search stops (0: 1e-3).
	RelGap float64
	// Progress, when not nil, receives one line per step.
	Progress io.Writer
	// RandomSeed is passed to HiGHS (recorded in the evidence; verification
	// re-solves with the same one to reproduce the search).
	RandomSeed int
	// TighteningPasses bounds the passes of bound tightening over the
	// relaxation of the KKT program before the MIP (0: 40; −1: none); they
	// stop earlier when a pass tightens no bound by more than 1% or the
	// work budget is spent (on 118_ieee ±10% the largest price bound still
	// falls by 1–2% per pass after 20 passes).
	TighteningPasses int
	// TighteningWork bounds the work of all tightening LPs together, in
	// simplex iterations times the relaxation's rows plus columns (0:
	// 2.4·10⁷ per second of TimeLimit, about three quarters of TimeLimit on
	// one core: 3.2–3.4·10⁷ units per CPU second measured on 118_ieee). A
	// work limit instead of a wall-clock one makes the tightening
	// reproducible: the same network and domain give the same bounds
	// whatever the machine's load.
	TighteningWork float64
	// Checkable records a proof that CheckLMPProof verifies without a
	// solver (LMPEvidence.Proof): a dual vector for every LP-derived bound,
	// the centre's dispatch for its cost. The congestion dual bounds then do
	// not use the centre's dispatch as a repair point (that argument needs
	// the dispatch exactly feasible), which may leave the bounds looser.
	Checkable bool
	// TreeNodes bounds the LPs of the checkable branch and bound over the
	// KKT program (0: 400); a work bound, so the proof does not depend on
	// the machine's load.
	TreeNodes int
	// DecisionRules computes robust linear decision rules (lmpldr.go) as
	// repair points of the congestion dual bounds and adds their rows to the
	// KKT program (networks up to ldrMaxSize). Off by default: measured on
	// 118_ieee, their bounds gain 1–5% per tightening pass, but their dense
	// rows make each pass's LPs dearer, so the same work budget runs fewer
	// passes (±10%, checkable: 7 instead of 12, proof 71.8 instead of 46.1
	// $/MWh; the bounds without the rows: 46.6).
	DecisionRules bool
	// KnownPrice is a |price| known to occur at a varying bus somewhere in
	// the domain (e.g. LMPSearchResult.LMP); buses whose derived price bound
	// is at most this value are left out of the MIP's objective and enter the
	// certified value with their bound. It only selects buses: the
	// certificate stays sound whatever its value.
	KnownPrice float64
	// Split, when above 1, splits the domain into at most this many boxes
	// by the spatial branch and bound of lmpsplit.go when the unsplit bound
	// is above (1 + SplitTol) times the largest price known to occur in the
	// domain; the 2·Split − 1 boxes it may bound share TimeLimit (and
	// TighteningWork, MIPWork) equally. 0 or 1: no splitting.
	Split int
	// SplitTol is the relative gap at which splitting stops (0: 0.1).
	SplitTol float64
	// parent is the evidence of the box this one was cut from (lmpSplit):
	// its flow, congestion dual and price bounds hold here too (every KKT
	// point over a sub-box is one over the box), so tightening starts from
	// them. Not with Checkable (a proof would have to carry the parent's).
	parent *LMPEvidence
	// splitAll makes lmpSplit split until Split leaves whatever the bounds
	// (tests: a tree on a case whose unsplit bound is already tight).
	splitAll bool
	// restrict, when set, restricts the KKT program to one congestion
	// pattern before bound tightening (flow ranges or congestion dual
	// bounds of ev), so that every bound found holds only at the KKT points
	// of that pattern: a measurement (TestLMPPatternMIP), never a
	// certificate's route; ignored with Checkable.
	restrict func(m *marketLP, ev *LMPEvidence)
	// n1fastStallFrom, when above 0, stops the tightening at a stall of
	// the largest price bound from that pass on (n1fastStall).
	n1fastStallFrom int
	// PerBusMIP replaces the KKT MIP over all selected buses by one MIP per
	// bus i (needs KnownPrice > 0 or a reference price above 0), with the row
	// sign·π_i ≥ c, c the largest price seen (KnownPrice or a reference
	// solve's, plus a 1e-6 relative margin), as a cutoff: a MIP proven
	// infeasible shows sign·π_i < c at every KKT point, one stopped by its
	// budget bounds sign·π_i by max(c, its proven bound). Buses run in the
	// order of their bound, largest first: a short first round for all,
	// then each bus in turn gets all the work left, until a bus stays at or
	// above the bound of the next (perBusMIPs); a bus the work does not
	// reach keeps its tightened bound. Not with Checkable (the proof's
	// branch and bound covers the joint program).
	PerBusMIP bool
	// MIPCutoff, when above 0 and below the tightened bound of a bus the
	// joint KKT MIP would select, restricts that MIP to the buses whose
	// bound exceeds it (the others enter with their bound) and adds the row
	// t ≥ MIPCutoff (t its objective, the largest selected sign·π_i): a MIP
	// proven infeasible shows sign·π_i < MIPCutoff at every KKT point, one
	// stopped by its budget bounds them by max(MIPCutoff, its proven
	// bound). When every selected bound is at most MIPCutoff the MIP runs
	// without it (to its gap, for the tight value). Sound whatever its
	// value (a stop at a target, N1BoundOptions.TargetRatio). Ignored with
	// Checkable and by PerBusMIP (which has its own cutoffs).
	MIPCutoff float64
	// PatternSplitWork, when above 0, runs the congestion-pattern split
	// (patternSplitStep, lmppatternsplit.go) after the bound tightening on the
	// buses holding the largest price bounds, within this many work units
	// (as TighteningWork; deterministic). Off by default (0). With
	// Checkable, any value above 0 runs the checkable split instead
	// (patternSplitCheckable, lmppatternproof.go: one tree per split bus in
	// the proof). Not on the N-1 route, not in a box of Split.
	PatternSplitWork float64
	// PatternSplitTarget τ, when above 1 (with PatternSplitWork and
	// KnownPrice above 0, not with Checkable), replaces the split's doubling
	// levels by one level at the cutoff τ·p (patternTargetLevel): p is the
	// larger of KnownPrice and the largest price a search from the load
	// vectors the bound has seen finds (a price the market LP takes in the
	// domain), and every varying bus whose bound is above τ·p is split
	// against it. When that level ends with every bus at most the cutoff,
	// the certified maximum price is τ·p. All of it is computed from public
	// inputs. With the default tightening work, the tightening then gets
	// 1/32 of PatternSplitWork on top (splitTighteningShare). 0: the
	// doubling levels until the budget.
	PatternSplitTarget float64
	// splitBuses, when above 0, replaces patternSplitMaxBuses as the number
	// of buses of the split step's first level (tests: levels on a small
	// network).
	splitBuses int
}

// LMPEvidence is the data of an "lmp-bound" certificate: the derived
// constants of the mixed-integer program and its proven bounds.
type LMPEvidence struct {
	Capacity     float64 `json:"capacity_mw"`    // backstop capacity (BackstopCapacity)
	VMin         float64 `json:"v_min"`          // min over D of V minus Σ cost_g(Pmin_g), LP (minus a 1e-6 relative margin)
	LocalCostMax float64 `json:"local_cost_max"` // max over D of the backstop cost of x₀(d)
	CostGap      float64 `json:"cost_gap"`       // G = LocalCostMax − VMin
	VMid         float64 `json:"v_mid"`          // V at the domain's centre (plus a 1e-6 relative margin)
	RefCostMax   float64 `json:"ref_cost_max"`   // max over D of the centre's dispatch repaired by local backstops
	// LDRCostMax bounds V(d) over D by the cost of a robust linear decision
	// rule (see lmpldr.go; plus its balance-residual term), LDRCostGap =
	// LDRCostMax − VMin is the gap of the congestion dual bounds it gives;
	// both 0 without a rule, LDRNote then says why.
	LDRCostMax float64 `json:"ldr_cost_max,omitempty"`
	LDRCostGap float64 `json:"ldr_cost_gap,omitempty"`
	LDRNote    string  `json:"ldr_note,omitempty"`
	// DecisionRules is the option the certificate was computed with
	// (verification by re-derivation uses it again).
	DecisionRules bool `json:"decision_rules,omitempty"`
	// PerBusMIP is the option the certificate was computed with (per-bus
	// KKT MIPs with the known price as a cutoff; re-derivation uses it).
	PerBusMIP bool    `json:"per_bus_mip,omitempty"`
	ShedMax   float64 `json:"shed_max_mw"` // bound on each shedding backstop at an optimum
	CurtMax   float64 `json:"curt_max_mw"` // bound on each curtailment backstop at an optimum
	// ShedHi, CurtHi bound each bus's shedding and curtailment backstop at
	// every KKT point, per bus (backstopRanges: the largest over the primal
	// part of the KKT relaxation; nil: ShedMax, CurtMax everywhere, as in a
	// checkable proof).
	ShedHi []float64 `json:"-"`
	CurtHi []float64 `json:"-"`
	// MuUp, MuLo bound the congestion duals of each branch's upper and lower
	// limit (Network branch order; 0 for an absent limit).
	MuUp []float64 `json:"mu_up"`
	MuLo []float64 `json:"mu_lo"`
	// FlowLo, FlowHi bound each limited branch's flow at every KKT point
	// (bound tightening; nil without it). A limit outside this range cannot
	// bind, so its congestion dual is 0 (MuUp or MuLo is 0). MuUp and MuLo
	// are 0 also at the later of two twin branches (mergeTwinLimits), whose
	// limits may bind.
	FlowLo []float64 `json:"-"`
	FlowHi []float64 `json:"-"`
	// PriceLo, PriceHi bound each bus's price at every KKT point (derived
	// bounds after tightening; ±PriceCap-scale values where not needed).
	PriceLo []float64 `json:"-"`
	PriceHi []float64 `json:"-"`
	// TighteningPasses counts the bound-tightening passes (LPs over the
	// relaxation of the KKT program); PrunedLimits the branch limits whose
	// congestion dual is fixed at 0; Excluded the varying buses left out of
	// the MIP's objective because their price bound PriceHi (or −PriceLo) is
	// already at most the certified value.
	TighteningPasses int `json:"tightening_passes,omitempty"`
	// TighteningWork and KnownPrice are the options the tightening and the
	// bus selection ran with (public: the work budget and a price found by
	// a search over the public domain); verification re-derives with them.
	TighteningWork float64 `json:"tightening_work,omitempty"`
	KnownPrice     float64 `json:"known_price,omitempty"`
	PrunedLimits   int     `json:"pruned_limits,omitempty"`
	Excluded       int     `json:"excluded_buses,omitempty"`
	// PocketBounds counts the price bounds a price pocket's head bounds
	// (pocketBounds, lmppocket.go; without a checkable proof only).
	PocketBounds int `json:"pocket_bounds,omitempty"`
	// PatternSplitWork and PatternSplits: the work budget of the
	// congestion-pattern split step (LMPBoundOptions.PatternSplitWork) and
	// what it did (patternSplitStep); verification re-runs it with the same
	// budget.
	PatternSplitWork float64           `json:"pattern_split_work,omitempty"`
	PatternSplits    []LMPPatternSplit `json:"pattern_splits,omitempty"`
	// PatternSplitTarget is the option the split ran with
	// (LMPBoundOptions.PatternSplitTarget; re-derivation uses it).
	PatternSplitTarget float64 `json:"pattern_split_target,omitempty"`
	// MaxPrice bounds max π_i, MinPrice bounds max −π_i over the varying buses
	// (proven MIP dual bounds; MinPrice is −PriceFloor without a solve when
	// PriceFloor = 0 makes π ≥ 0 hold there).
	MaxPrice float64 `json:"max_price_bound"`
	MinPrice float64 `json:"neg_price_bound"`
	// Incumbent is the largest |π_i| at a KKT point found (a lower bound on the
	// true supremum), at bus IncumbentBus (ID), with loads IncumbentLoad.
	Incumbent     float64   `json:"incumbent"`
	IncumbentBus  int       `json:"incumbent_bus"`
	IncumbentLoad []float64 `json:"-"`
	// Candidates are the load parts of the bound-tightening LPs' maximizers
	// of a price (points of the relaxation, not KKT points: starts for an
	// adversarial search, SearchLMPChange's Extra), largest price first,
	// followed by those of the per-bus MIPs' incumbents (KKT points, in the
	// order solved; LMPBoundOptions.PerBusMIP).
	Candidates [][]float64 `json:"-"`
	// Proof, with LMPBoundOptions.Checkable, is the chain CheckLMPProof
	// verifies without a solver; it covers Proof.PerMW, which may exceed the
	// MIP's proven bound (then MaxPrice/MinPrice rest on HiGHS's MIP).
	Proof *LMPProof `json:"proof,omitempty"`
	// Split is the bisection tree of a split domain (LMPBoundOptions.Split)
	// whose leaves carry their boxes' evidence, when the certificate has no
	// proof (with one, the tree is Proof.Split); SplitLeaves counts its
	// leaves (0: the domain was not split).
	Split       *LMPSplit `json:"split,omitempty"`
	SplitLeaves int       `json:"split_leaves,omitempty"`
	// ProofPerMW is Proof.PerMW where the proof itself is not carried (a
	// release plan publishes the value; the proof stays in the certificate
	// file).
	ProofPerMW float64 `json:"proof_per_mw,omitempty"`
	// ProofNote says why a certificate asked to be checkable has no proof
	// (it is then verified by re-derivation only).
	ProofNote string `json:"proof_note,omitempty"`
	rec       *lmpRecorder
	Closed    bool `json:"closed"` // both MIPs reached their gap
	Binaries  int  `json:"binaries"`
	Nodes     int  `json:"nodes"`
	// MIPWork and RandomSeed are the MIP's work budget option (work units,
	// see LMPBoundOptions.TimeLimit) and HiGHS's random seed; MIPIterations
	// the simplex iterations the MIP(s) used and MIPStops the rule that ended
	// each MIP ("gap", "work", "nodes", "infeasible", "skipped" — budget
	// below mipRootFactor times the program's size: reproducible; "time":
	// the wall-clock safety net, "cancelled", "other": not). Reproducible is
	// true when every MIP ended by a reproducible rule: the same network,
	// domain and options then give the same certificate, byte for byte,
	// whatever the machine's load.
	MIPWork       float64  `json:"mip_work,omitempty"`
	RandomSeed    int      `json:"random_seed,omitempty"`
	MIPIterations int64    `json:"mip_lp_iterations,omitempty"`
	MIPStops      []string `json:"mip_stops,omitempty"`
	Reproducible  bool     `json:"reproducible"`
	// Seconds is the wall time (not part of the JSON: it depends on the
	// machine).
	Seconds float64 `json:"-"`
	// LegacySeconds reads the wall time that certificate files written
	// before it left the JSON carry; it is never set, so never written.
	LegacySeconds float64 `json:"seconds,omitempty"`

	// MIPCutoff is the option the joint MIP ran with (re-derivation uses
	// it); mipCut the cutoff applied to the current MIP (0: none).
	MIPCutoff float64 `json:"mip_cutoff,omitempty"`
	mipCut    float64
	// splitStopped records that a part MIP of the pattern split stopped by
	// its wall-clock net (not reproducible).
	splitStopped bool
	// ldrRows are the decision rules' rows of the KKT program (addLDRRows).
	ldrRows []ldrRow
	// workLeft is the tightening work left unused (it goes to the MIP);
	// mipSize the rows plus columns of the last KKT MIP built.
	workLeft float64
	mipSize  int
	// part restricts every KKT program built with this evidence to one
	// congestion-pattern part (lmppattern.go; nil: none).
	part *kktPart
	// n1fastStall is the tightening's stall stop (lmpn1fast.go).
	n1fastStall n1fastStall
}

// CertifyLMPBound returns a certified bound on |V(d′) − V(d)| over α-adjacent
// loads in dom: Method "lmp-bound" with PerMW the proven bound on
// max_{d ∈ D, i varying, π ∈ ∂V(d)} |π_i| (see above) when it is below the
// price cap, and the price-cap certificate with the reason otherwise. The
// network is WITHOUT backstops and with linear or piecewise-linear costs.
// Cancelling ctx stops the search (an error).
func (n *Network) CertifyLMPBound(ctx context.Context, dom LoadDomain, alpha float64, rules MarketRules, opt LMPBoundOptions) (*CostCertificate, error) {
	capCert, err := n.priceCapCertificate(dom, alpha, rules)
	if err != nil {
		return nil, err
	}
	bound := n.lmpBound
	if opt.Split > 1 {
		bound = n.lmpSplit
	}
	ev, reason, err := bound(ctx, dom, rules, opt)
	if err != nil {
		return nil, err
	}
	if ev == nil {
		capCert.Reason = reason
		return capCert, nil
	}
	per := math.Max(ev.MaxPrice, ev.MinPrice)
	note := ev.ProofNote
	if ev.Proof != nil {
		// The checkable value is what is certified; HiGHS's bound is kept in
		// the evidence for comparison.
		if ev.Proof.PerMW > per*(1+1e-6)+1e-6 {
			note = fmt.Sprintf("the checkable proof covers %.6g $/MWh; HiGHS's MIP proves %.6g, which no proof backs", ev.Proof.PerMW, per)
		}
		per = ev.Proof.PerMW
	}
	if per >= capCert.PerMW {
		capCert.Reason = fmt.Sprintf("the LMP bound %.6g $/MWh is not below the price cap", per)
		return capCert, nil
	}
	return &CostCertificate{Method: "lmp-bound", Alpha: alpha, PerMW: per, Bound: alpha * per, Rules: rules, LMP: ev, Reason: note}, nil
}

func progress(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, format+"\n", args...)
	}
}

// lmpBound computes the evidence, or a reason why the bound does not apply.
func (n *Network) lmpBound(ctx context.Context, dom LoadDomain, rules MarketRules, opt LMPBoundOptions) (*LMPEvidence, string, error) {
	t0 := time.Now()
	if opt.TimeLimit <= 0 {
		opt.TimeLimit = 60 * time.Second
	}
	if opt.RelGap <= 0 {
		opt.RelGap = 1e-3
	}
	hopt := highs.Options{RandomSeed: opt.RandomSeed}
	hopt.Threads = 1
	C, F := rules.PriceCap, rules.PriceFloor
	nb := n.NumBuses()
	if len(dom.Variable()) == 0 {
		return nil, "no bus load varies over the domain", nil
	}

	// A. min over D of V (one LP over loads and dispatch).
	b := newLPBuilder()
	m, err := n.newMarketLP(b, dom, rules)
	if err != nil {
		return nil, err.Error(), nil
	}
	lp, err := b.build(hopt)
	if err != nil {
		return nil, "", err
	}
	defer lp.Close()
	res, err := lp.Solve(ctx)
	if err != nil {
		return nil, "", err
	}
	if err := ctx.Err(); err != nil {
		return nil, "", err
	}
	if res.Status != solver.Optimal {
		return nil, fmt.Sprintf("the market LP over the domain is %v", res.Status), nil
	}
	ev := &LMPEvidence{Capacity: m.capacity}
	ev.VMin = res.Objective - 1e-6*(1+math.Abs(res.Objective))
	if opt.Checkable {
		pc := &proofChecker{n: n, dom: dom, rules: rules}
		if err := pc.checkStructure(m); err != nil {
			ev.ProofNote = "no checkable proof: " + err.Error()
			progress(opt.Progress, "lmp-bound: %s", ev.ProofNote)
		} else {
			ev.rec = &lmpRecorder{p: &LMPProof{VMin: ev.VMin, VMinDual: negatedDual(res)}, ptdfOK: pc.ptdfOK}
		}
	}
	progress(opt.Progress, "lmp-bound: min over the domain of the dispatch cost %.6g $/h (%d buses, %d segments)", res.Objective, nb, len(m.segs))
	// Reference solves at the centre and the two corners of the domain: the
	// centre's dispatch x̂ (plus local backstops for d − centre) is feasible
	// for every d; each solve gives a subgradient cut V(d) ≥ V_k + π_kᵀ(d − d_k).
	mid := make([]float64, nb)
	var width float64
	for j := range mid {
		mid[j] = (dom.Lo[j] + dom.Hi[j]) / 2
		width += dom.Hi[j] - dom.Lo[j]
	}
	var flowMid []float64
	var cuts []subgradientCut
	for k, d := range [][]float64{mid, dom.Lo, dom.Hi} {
		for _, j := range m.vars {
			if err := lp.SetColumnBounds(m.d[j], d[j], d[j]); err != nil {
				return nil, "", err
			}
		}
		r, err := lp.Solve(ctx)
		if err != nil {
			return nil, "", err
		}
		if err := ctx.Err(); err != nil {
			return nil, "", err
		}
		if r.Status != solver.Optimal {
			return nil, fmt.Sprintf("the market LP at a reference point of the domain is %v", r.Status), nil
		}
		c := subgradientCut{load: d, v: r.Objective - 1e-6*(1+math.Abs(r.Objective)+width), pi: make([]float64, nb)}
		for j, row := range m.balance {
			c.pi[j] = r.RowDual[row]
		}
		cuts = append(cuts, c)
		if ev.rec != nil {
			ev.rec.p.Cuts = append(ev.rec.p.Cuts, LMPCutProof{V: c.v, Dual: negatedDual(r)})
		}
		if k == 0 {
			ev.VMid = r.Objective + 1e-6*(1+math.Abs(r.Objective))
			if ev.rec != nil {
				ev.rec.p.VMid, ev.rec.p.VMidPoint = ev.VMid, lpdual.FromDense(r.X)
			}
			flowMid = make([]float64, n.NumBranches())
			for l := range flowMid {
				f := n.Pfinj[l]
				for t, j := range m.bfBus[l] {
					f += m.bfVal[l][t] * r.X[m.theta[j]]
				}
				flowMid[l] = f
			}
		}
	}

	// B. The local-balance dispatch x₀ and G: at each bus, the net load above
	// the units' Pmin, y_j = d_j + Pbusinj_j − Σ Pmin, is served by the bus's
	// own segments in merit order up to their width W_j, the rest (y_j > W_j,
	// or y_j < 0) by the bus's backstops; θ = 0 and the flows are Pfinj. Its
	// cost h_j(y_j) is piecewise linear, so its maximum over [lo_j, hi_j] is at
	// an end or a breakpoint (0, W_j, the segment ends).
	lc, err := n.localCost(m, dom, rules)
	if err != nil {
		return nil, err.Error(), nil
	}
	ev.LocalCostMax, ev.CostGap = lc.max, lc.gap(ev.VMin)
	ev.RefCostMax = refCostMax(ev.VMid, dom, m.vars, rules)

	// C. Congestion dual bounds.
	nl := n.NumBranches()
	if why := n.muBounds0(m, ev); why != "" {
		return nil, why, nil
	}
	if ev.rec != nil && !ev.rec.ptdfOK {
		ok, err := n.provePriceBox(ctx, hopt, m, ev, rules)
		if err != nil {
			return nil, "", err
		}
		if !ok {
			ev.rec, ev.ProofNote = nil, "no checkable proof: a branch has b ≤ 0 and no price box could be proven"
			progress(opt.Progress, "lmp-bound: %s", ev.ProofNote)
		} else {
			progress(opt.Progress, "lmp-bound: a branch has b ≤ 0: price box proven by %d LPs (|π| < %.6g)", len(ev.rec.p.PiBoxSteps), ev.rec.p.PiBox)
		}
	}
	if c := n.mergeTwinLimits(m, ev); c > 0 {
		progress(opt.Progress, "lmp-bound: %d limits of twin branches (identical flow rows) carry their twins' congestion duals (fixed at 0)", c)
	}
	if opt.DecisionRules {
		ev.DecisionRules = true
		if err := n.ldrStep(ctx, hopt, m, b, ev, opt.Progress); err != nil {
			return nil, "", err
		}
	}
	lc.backstopBounds(ev, m, rules)
	for l := 0; l < nl && !opt.Checkable; l++ {
		if m.flow[l] < 0 {
			continue
		}
		// The centre's dispatch as the repair point, where it has slack
		// (not in a checkable proof: the argument needs the centre's
		// dispatch exactly feasible, which a checker cannot confirm from a
		// floating-point solution).
		gMid := math.Max(0, ev.RefCostMax-ev.VMin)
		if s := n.FlowMax[l] - flowMid[l]; s > 1e-6*math.Max(1, math.Abs(n.FlowMax[l])) {
			ev.MuUp[l] = math.Min(ev.MuUp[l], gMid/s)
		}
		if s := flowMid[l] - n.FlowMin[l]; s > 1e-6*math.Max(1, math.Abs(n.FlowMin[l])) {
			ev.MuLo[l] = math.Min(ev.MuLo[l], gMid/s)
		}
	}

	// D. Price bounds per bus.
	piLo, piHi := make([]float64, nb), make([]float64, nb)
	for j := range piLo {
		piLo[j], piHi[j] = math.Inf(-1), math.Inf(1)
		if m.shedAt[j] {
			piHi[j] = C
		}
		if m.curtAt[j] {
			piLo[j] = F
		}
	}
	need := priceNeed(m)
	if err := n.priceBounds(ctx, hopt, ev, piLo, piHi, need); err != nil {
		return nil, "", err
	}
	for j := 0; j < nb; j++ {
		if need[j] && (math.IsInf(piLo[j], 0) || math.IsInf(piHi[j], 0)) {
			return nil, fmt.Sprintf("the price at bus %d is not bounded by the derived bounds", n.BusID[j]), nil
		}
	}
	progress(opt.Progress, "lmp-bound: derived big-Ms: cost gap G = %.6g $/h, backstop capacity %.6g MW", ev.CostGap, m.capacity)

	if opt.parent != nil && !opt.Checkable {
		inheritBounds(ev, piLo, piHi, opt.parent)
	}
	n.pocketStep(m, ev, piLo, piHi, rules, opt.Progress)

	if opt.restrict != nil && !opt.Checkable {
		opt.restrict(m, ev)
	}

	// E. Bound tightening over the relaxation of the KKT program.
	if opt.TighteningPasses >= 0 {
		passes := opt.TighteningPasses
		if passes == 0 {
			passes = 40
		}
		work, split := opt.TighteningWork, opt.PatternSplitWork
		if work <= 0 {
			work = 2.4e7 * opt.TimeLimit.Seconds()
			if x := n.splitTighteningShare(opt, ev, m); x > 0 { // lmppatternsplit.go
				work, split = work+x, split-x
			}
		}
		ev.TighteningWork = work
		ev.workLeft = work
		ev.n1fastStall = n1fastStall{from: opt.n1fastStallFrom}
		if err := n.tightenKKT(ctx, dom, rules, hopt, ev, piLo, piHi, cuts, need, m, passes, work, opt.Progress); err != nil {
			return nil, "", err
		}
		n.pocketStep(m, ev, piLo, piHi, rules, opt.Progress)
		if err := n.patternSplitStep(ctx, dom, rules, hopt, ev, piLo, piHi, need, m, opt.KnownPrice, split, opt); err != nil { // lmppatternsplit.go
			return nil, "", err
		}
	}
	ev.PriceLo, ev.PriceHi = piLo, piHi

	// F. The KKT MIP, once for max π and (if PriceFloor < 0) once for max −π,
	// over the varying buses whose price bound exceeds a price seen at a
	// point of the domain (the others enter the certified value with their
	// bound).
	var nodes int
	closed := true
	ev.KnownPrice = opt.KnownPrice
	ev.RandomSeed = opt.RandomSeed
	ev.Reproducible = !ev.splitStopped // the pattern split's MIPs (patternPartBound)
	ev.MIPWork = opt.MIPWork
	if ev.MIPWork <= 0 {
		ev.MIPWork = 8e6 * opt.TimeLimit.Seconds()
	}
	// Deterministic: plus the tightening's unused work, converted at the two
	// default rates (a MIP's work unit costs about three times a tightening
	// LP's: 8·10⁶ against 2.4·10⁷ units per second).
	mipWork := ev.MIPWork + ev.workLeft/3
	if F < 0 {
		mipWork /= 2
	}
	safety := opt.MIPTimeLimit
	if safety <= 0 {
		safety = 4 * opt.TimeLimit
	}
	for _, sign := range []float64{1, -1} {
		if sign < 0 && F == 0 {
			ev.MinPrice = 0 // π_i ≥ PriceFloor = 0 at every varying bus
			continue
		}
		seen := opt.KnownPrice
		for _, c := range cuts {
			for _, i := range m.vars {
				seen = math.Max(seen, sign*c.pi[i])
			}
		}
		boundOf := func(i int) float64 {
			if sign > 0 {
				return piHi[i]
			}
			return -piLo[i]
		}
		var sel []int
		excluded := math.Inf(-1)
		for _, i := range m.vars {
			if boundOf(i) <= seen {
				excluded = math.Max(excluded, boundOf(i))
				ev.Excluded++
			} else {
				sel = append(sel, i)
			}
		}
		bound := excluded
		ev.PerBusMIP = opt.PerBusMIP && ev.rec == nil
		if ev.PerBusMIP && len(sel) > 0 && seen > 0 {
			b, err := n.perBusMIPs(ctx, dom, rules, hopt, ev, piLo, piHi, sign, seen, mipWork, safety, sel, opt.Progress)
			if err != nil {
				return nil, "", err
			}
			bound = math.Max(bound, b)
			closed = false
			if sign > 0 {
				ev.MaxPrice = bound
			} else {
				ev.MinPrice = bound
			}
			continue
		}
		// MIPCutoff: only when a selected bound exceeds it, over the buses
		// whose bound does (the others enter with their bound).
		ev.MIPCutoff, ev.mipCut = opt.MIPCutoff, 0
		if c := opt.MIPCutoff; c > 0 && ev.rec == nil && slices.ContainsFunc(sel, func(i int) bool { return boundOf(i) > c }) {
			ev.mipCut = c
			for _, i := range sel {
				if boundOf(i) <= c {
					bound = math.Max(bound, boundOf(i))
				}
			}
			sel = slices.DeleteFunc(sel, func(i int) bool { return boundOf(i) <= c })
		}
		if len(sel) > 0 {
			lim := highs.MIPLimits{RelGap: opt.RelGap, TimeLimit: safety}
			r, iterLimit, err := n.kktMIP(ctx, dom, rules, hopt, ev, piLo, piHi, sign, lim, mipWork, cuts, sel)
			if err != nil {
				return nil, "", err
			}
			if r != nil && ev.mipCut > 0 {
				if r.Status == solver.PrimalInfeasible {
					r.DualBound, r.Status = ev.mipCut, solver.Optimal
				}
				r.DualBound = math.Max(r.DualBound, ev.mipCut)
			}
			if r == nil { // budget too small for the MIP's root: the bounds
				for _, i := range sel {
					bound = math.Max(bound, boundOf(i))
				}
				ev.MIPStops = append(ev.MIPStops, mipSkipped)
				closed = false
				progress(opt.Progress, "lmp-bound: max %sπ over %d bus(es): MIP skipped (its budget of %d LP iterations is below %d times the program's %d rows and columns); certified with the tightened price bounds, %.6g $/MWh",
					map[bool]string{true: "", false: "−"}[sign > 0], len(sel), iterLimit, mipRootFactor, ev.mipSize, bound)
				if sign > 0 {
					ev.MaxPrice = bound
				} else {
					ev.MinPrice = bound
				}
				continue
			}
			if r.Status == solver.PrimalInfeasible {
				return nil, "the KKT program is infeasible (the derived bounds contradict the LP; numerical trouble)", nil
			}
			bound = math.Max(bound, r.DualBound+1e-6*(1+math.Abs(r.DualBound)))
			if ev.rec != nil {
				budget := opt.TreeNodes
				if budget <= 0 {
					budget = 400
				}
				trees, tclosed, err := n.kktTrees(ctx, dom, rules, hopt, ev, piLo, piHi, sign, cuts, sel, budget, opt.Progress)
				if err != nil {
					return nil, "", err
				}
				ev.rec.p.Trees = append(ev.rec.p.Trees, trees...)
				ev.rec.treesOpen = ev.rec.treesOpen || !tclosed
			}
			closed = closed && r.Status == solver.Optimal
			nodes += r.Nodes
			ev.MIPIterations += r.LPIterations
			ev.MIPStops = append(ev.MIPStops, string(r.Stop))
			ev.Reproducible = ev.Reproducible && r.Stop.Reproducible()
			progress(opt.Progress, "lmp-bound: max %sπ over %d bus(es) (%d excluded by their bounds): proven bound %.6g $/MWh, incumbent %.6g (stopped by %s, %d nodes, %d of %d LP iterations, %.1f s)",
				map[bool]string{true: "", false: "−"}[sign > 0], len(sel), len(m.vars)-len(sel), r.DualBound, r.Objective, r.Stop, r.Nodes, r.LPIterations, iterLimit, r.Time.Seconds())
			if !r.Stop.Reproducible() {
				progress(opt.Progress, "lmp-bound: WARNING: the MIP stopped by %q before its work budget; the certified bound is the proven bound at that moment (sound, not reproducible)", r.Stop)
			}
		} else {
			progress(opt.Progress, "lmp-bound: max %sπ: every bus's price bound is at most %.6g $/MWh, a price seen in the domain; no MIP",
				map[bool]string{true: "", false: "−"}[sign > 0], seen)
		}
		if sign > 0 {
			ev.MaxPrice = bound
		} else {
			ev.MinPrice = bound
		}
	}
	ev.Closed, ev.Nodes = closed, nodes
	if ev.rec != nil {
		ev.Proof = ev.rec.p
		ev.Proof.TreesClosed = len(ev.Proof.Trees) > 0 && !ev.rec.treesOpen
		ev.Proof.PerMW = proofValue(m.vars, piLo, piHi, ev.Proof.Trees)
		ev.rec = nil
		// Replay the proof as the checker will, raising claims its duals'
		// residuals leave uncovered by the margins (tiny; counted).
		chk, err := n.checkLMPProof(ctx, dom, rules, ev.Proof, true)
		if err != nil {
			if ctx.Err() != nil {
				return nil, "", ctx.Err()
			}
			// Not silently: the certificate says why it has no proof.
			ev.Proof, ev.ProofNote = nil, "no checkable proof: the recorded proof does not check: "+err.Error()
			progress(opt.Progress, "lmp-bound: %s", ev.ProofNote)
		} else {
			progress(opt.Progress, "lmp-bound: proof: %d LP bounds, %d claims raised to their duals' bounds, value %.6g $/MWh (check %.2f s)", chk.Steps, chk.Repaired, chk.PerMW, chk.Seconds)
		}
	}
	ev.Seconds = time.Since(t0).Seconds()
	return ev, "", nil
}

// subgradientCut is V(d) ≥ v + piᵀ(d − load), from an LP solve at load.
type subgradientCut struct {
	load, pi []float64
	v        float64
}

// priceBounds tightens [piLo, piHi] at the buses in need by LPs over the
// dual polyhedron {Bbus π + Bfᵀ(μ⁺ − μ⁻) = 0 at non-reference buses, μ within
// the evidence's bounds, π within the backstop bounds}, which contains every
// optimal dual of the market LP at every d ∈ D.
func (n *Network) priceBounds(ctx context.Context, hopt highs.Options, ev *LMPEvidence, piLo, piHi []float64, need []bool) error {
	nb := n.NumBuses()
	todo := false
	for j := 0; j < nb; j++ {
		if need[j] && (math.IsInf(piLo[j], 0) || math.IsInf(piHi[j], 0)) {
			todo = true
		}
	}
	if !todo {
		return nil
	}
	b := newLPBuilder()
	pi, _, _ := n.addDual(b, ev, piLo, piHi)
	lp, err := b.build(hopt)
	if err != nil {
		return err
	}
	defer lp.Close()
	cost := make([]float64, len(b.cost))
	for j := 0; j < nb; j++ {
		for _, sign := range []float64{1, -1} {
			if !need[j] || (sign > 0 && !math.IsInf(piHi[j], 0)) || (sign < 0 && !math.IsInf(piLo[j], 0)) {
				continue
			}
			cost[pi[j]] = -sign // minimize −π (max π) or π (min π)
			if err := lp.SetCosts(cost); err != nil {
				return err
			}
			cost[pi[j]] = 0
			r, err := lp.Solve(ctx)
			if err != nil {
				return err
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			if r.Status != solver.Optimal {
				continue // unbounded: stays infinite
			}
			v := -r.Objective * sign // max π or min π
			if sign > 0 {
				piHi[j] = v + 1e-6*(1+math.Abs(v))
				ev.rec.boxStep(r, "pi_hi", j, piHi[j])
			} else {
				piLo[j] = v - 1e-6*(1+math.Abs(v))
				ev.rec.boxStep(r, "pi_lo", j, piLo[j])
			}
		}
	}
	return nil
}

// addDual appends the dual columns π (per bus, bounds [piLo, piHi]) and μ⁺, μ⁻
// (per limited branch; −1 otherwise) and the stationarity rows of the angles.
func (n *Network) addDual(b *lpBuilder, ev *LMPEvidence, piLo, piHi []float64) (pi, muUp, muLo []int) {
	nb, nl := n.NumBuses(), n.NumBranches()
	pi = make([]int, nb)
	for j := range pi {
		pi[j] = b.col(0, piLo[j], piHi[j])
	}
	muUp, muLo = make([]int, nl), make([]int, nl)
	bfBus, bfVal := n.bfRows()
	idx := make([][]int, nb)
	val := make([][]float64, nb)
	for l := 0; l < nl; l++ {
		muUp[l], muLo[l] = -1, -1
		if ev.MuUp[l] == 0 && ev.MuLo[l] == 0 {
			continue
		}
		muUp[l] = b.col(0, 0, ev.MuUp[l])
		muLo[l] = b.col(0, 0, ev.MuLo[l])
		for k, j := range bfBus[l] {
			idx[j] = append(idx[j], muUp[l], muLo[l])
			val[j] = append(val[j], bfVal[l][k], -bfVal[l][k])
		}
	}
	isRef := make([]bool, nb)
	for _, r := range n.RefBus {
		isRef[r] = true
	}
	for k := 0; k < nb; k++ {
		if isRef[k] {
			continue
		}
		for t := n.Bbus.ColPtr[k]; t < n.Bbus.ColPtr[k+1]; t++ {
			// Σ_j Bbus_jk π_j (Bbus symmetric: row k).
			idx[k] = append(idx[k], pi[n.Bbus.RowIdx[t]])
			val[k] = append(val[k], n.Bbus.Val[t])
		}
		b.row(0, 0, idx[k], val[k])
	}
	return pi, muUp, muLo
}

// kktModel is the KKT mixed-integer program of the market LP over a domain,
// laid out in an lpBuilder, with the columns bound tightening and the
// objective refer to.
type kktModel struct {
	b              *lpBuilder
	m              *marketLP
	pi, muUp, muLo []int  // per bus; per branch (−1: no limit or pruned)
	sel            []int  // selected buses (internal index) of the objective
	ys             []int  // selection binary per selected bus
	t              int    // objective column
	nbin           int    // binaries of the complementarity rules and the selection
	prunedBranches int    // branch limits whose congestion dual is fixed by the bounds
	cutRows        [2]int // the row range [from, to) of bridgeCuts
	flowLo, flowHi []float64
	// Binaries and McCormick columns (−1: absent), for the rows bound
	// tightening appends with tighter big-Ms: per segment, per bus, per
	// branch.
	segA, segZ   []int
	shedE, curtE []int
	zUp, zLo     []int
	mcW          []int
	nu           []int // per segment: the strong-duality row's ν̄_s
	// primalRows, primalCols: the market LP's rows and columns with the
	// cost row and the subgradient cuts come first; those rows touch only
	// those columns (the primal part of the program, a relaxation of it).
	primalRows, primalCols int
}

// buildKKT lays out the KKT program maximizing sign·π_i over the buses sel
// (objective column t; one selection binary per bus when there are several).
// A branch limit whose dual bound (ev.MuUp, ev.MuLo) is 0 gets no
// complementarity rule (μ = 0 there; dropping a rule only relaxes the
// program).
func (n *Network) buildKKT(dom LoadDomain, rules MarketRules, ev *LMPEvidence, piLo, piHi []float64, sign float64, cuts []subgradientCut, sel []int) (*kktModel, error) {
	C, F := rules.PriceCap, rules.PriceFloor
	b := newLPBuilder()
	m, err := n.newMarketLP(b, dom, rules)
	if err != nil {
		return nil, err
	}
	cost := append([]float64(nil), b.cost...)
	for j := range b.cost {
		b.cost[j] = 0
	}
	for j := range m.sigma {
		if m.sigma[j] >= 0 {
			b.hi[m.sigma[j]] = ev.shedMax(j)
		}
		if m.kappa[j] >= 0 {
			b.hi[m.kappa[j]] = ev.curtMax(j)
		}
	}
	if !n.n1Program { // not in the N-1 route: see twin42Backstops
		twin42Backstops(m, b, piLo, piHi, rules)
	}
	// Valid for optimal dispatches: cost ≤ V(centre) + chord of the local
	// repair cost, and cost ≥ each subgradient cut.
	var cidx []int
	var cval []float64
	for j, c := range cost {
		if c != 0 {
			cidx, cval = append(cidx, j), append(cval, c)
		}
	}
	{
		idx, val := append([]int(nil), cidx...), append([]float64(nil), cval...)
		rhs := ev.VMid
		for _, j := range m.vars {
			mid := (dom.Lo[j] + dom.Hi[j]) / 2
			gLo, gHi := (-F)*(mid-dom.Lo[j]), C*(dom.Hi[j]-mid)
			slope := (gHi - gLo) / (dom.Hi[j] - dom.Lo[j])
			// cost − slope·d_j ≤ V(centre) + gLo − slope·Lo_j
			idx, val = append(idx, m.d[j]), append(val, -slope)
			rhs += gLo - slope*dom.Lo[j]
		}
		b.row(math.Inf(-1), rhs+1e-6*(1+math.Abs(rhs)), idx, val)
	}
	for _, c := range cuts {
		idx, val := append([]int(nil), cidx...), append([]float64(nil), cval...)
		rhs := c.v
		for j := range c.pi {
			if m.d[j] >= 0 {
				idx, val = append(idx, m.d[j]), append(val, -c.pi[j])
				rhs -= c.pi[j] * c.load[j]
			}
		}
		b.row(rhs, math.Inf(1), idx, val)
	}
	primalRows, primalCols := len(b.rlo), len(b.cost)
	pi, muUp, muLo := n.addDual(b, ev, piLo, piHi)
	addLDRRows(b, m, ev.ldrRows, cidx, cval, muUp, muLo)
	// Strong duality, implied at integer points and stated for the
	// relaxation: cost(x) ≤ Σ_j π_j (r_j + d_j) − Σ_l (μ⁺_l u_l − μ⁻_l w_l) −
	// Σ_s w_s ν̄_s with ν̄_s ≥ max(0, π_b − c_s) and each product π_j d_j of a
	// varying bus over-estimated by its McCormick envelope on
	// [piLo_j, piHi_j] × [Lo_j, Hi_j] (McCormick 1976): the right side is at
	// least the dual objective at every KKT point, where the two are equal.
	mcW := make([]int, len(m.balance))
	var nus []int
	{
		idx, val := append([]int(nil), cidx...), append([]float64(nil), cval...)
		for j := range m.balance {
			mcW[j] = -1
			r := b.rlo[m.balance[j]]
			if m.d[j] < 0 {
				idx, val = append(idx, pi[j]), append(val, -r)
				continue
			}
			if r != 0 {
				idx, val = append(idx, pi[j]), append(val, -r)
			}
			w := b.col(0, math.Inf(-1), math.Inf(1))
			mcW[j] = w
			lo, hi := dom.Lo[j], dom.Hi[j]
			// w ≤ Hi·π + pLo·d − Hi·pLo ; w ≤ Lo·π + pHi·d − Lo·pHi
			b.row(math.Inf(-1), -hi*piLo[j], []int{w, pi[j], m.d[j]}, []float64{1, -hi, -piLo[j]})
			b.row(math.Inf(-1), -lo*piHi[j], []int{w, pi[j], m.d[j]}, []float64{1, -lo, -piHi[j]})
			idx, val = append(idx, w), append(val, -1)
		}
		for l := range muUp {
			if muUp[l] >= 0 {
				idx, val = append(idx, muUp[l], muLo[l]), append(val, n.FlowMax[l]-n.Pfinj[l], -(n.FlowMin[l]-n.Pfinj[l]))
			}
		}
		nus = make([]int, len(m.segs))
		for s, sg := range m.segs {
			nu := b.col(0, 0, math.Inf(1))
			nus[s] = nu
			b.row(-sg.Price, math.Inf(1), []int{nu, pi[m.segBus[s]]}, []float64{1, -1})
			idx, val = append(idx, nu), append(val, sg.Width)
		}
		b.row(math.Inf(-1), 1e-6*(1+math.Abs(ev.RefCostMax)), idx, val)
	}
	nbin0 := len(b.integer)
	// Segments: p_s > 0 ⇒ π ≥ c_s; p_s < w_s ⇒ π ≤ c_s. Of two segments of
	// one unit at prices c < c′, the dearer may carry power only when the
	// cheaper is full (a′ + z ≤ 1; implied by the two rules, stated for the
	// relaxation).
	segA, segZ := make([]int, len(m.segs)), make([]int, len(m.segs))
	lastOf := map[int]int{}
	for s, sg := range m.segs {
		j := m.segBus[s]
		a, z := b.binary(), b.binary() // a: may be > 0; z: may be < w
		segA[s], segZ[s] = a, z
		if prev, ok := lastOf[sg.Gen]; ok && m.segs[prev].Price < sg.Price {
			b.row(math.Inf(-1), 1, []int{a, segZ[prev]}, []float64{1, 1})
		}
		lastOf[sg.Gen] = s
		b.row(math.Inf(-1), 0, []int{m.p[s], a}, []float64{1, -sg.Width})
		b.row(sg.Width, math.Inf(1), []int{m.p[s], z}, []float64{1, sg.Width})
		if sg.Price > piLo[j] {
			b.row(piLo[j], math.Inf(1), []int{pi[j], a}, []float64{1, -(sg.Price - piLo[j])})
		}
		if piHi[j] > sg.Price {
			b.row(math.Inf(-1), piHi[j], []int{pi[j], z}, []float64{1, piHi[j] - sg.Price})
		}
	}
	// Backstops: σ_j > 0 ⇒ π_j = C; κ_j > 0 ⇒ π_j = F.
	shedE, curtE := make([]int, len(m.sigma)), make([]int, len(m.sigma))
	for j := range m.sigma {
		shedE[j], curtE[j] = -1, -1
		if c := m.sigma[j]; c >= 0 {
			e := b.binary()
			shedE[j] = e
			b.row(math.Inf(-1), 0, []int{c, e}, []float64{1, -ev.shedMax(j)})
			b.row(piLo[j], math.Inf(1), []int{pi[j], e}, []float64{1, -(C - piLo[j])})
		}
		if c := m.kappa[j]; c >= 0 {
			e := b.binary()
			curtE[j] = e
			b.row(math.Inf(-1), 0, []int{c, e}, []float64{1, -ev.curtMax(j)})
			b.row(math.Inf(-1), piHi[j], []int{pi[j], e}, []float64{1, piHi[j] - F})
		}
	}
	// Branches: μ⁺ > 0 ⇒ flow = FlowMax; μ⁻ > 0 ⇒ flow = FlowMin.
	// The flow range of each limited branch over the program, FlowMin..FlowMax
	// or tighter (ev.FlowLo/FlowHi from bound tightening).
	k := &kktModel{b: b, m: m, pi: pi, muUp: muUp, muLo: muLo, sel: sel, segA: segA, segZ: segZ, shedE: shedE, curtE: curtE, mcW: mcW, nu: nus,
		primalRows: primalRows, primalCols: primalCols}
	k.zUp, k.zLo = make([]int, len(m.flow)), make([]int, len(m.flow))
	for l := range k.zUp {
		k.zUp[l], k.zLo[l] = -1, -1
	}
	k.flowLo, k.flowHi = append([]float64(nil), n.FlowMin...), append([]float64(nil), n.FlowMax...)
	if ev.FlowLo != nil {
		for l := range k.flowLo {
			k.flowLo[l] = math.Max(k.flowLo[l], ev.FlowLo[l])
			k.flowHi[l] = math.Min(k.flowHi[l], ev.FlowHi[l])
		}
	}
	for l := range m.flow {
		if m.flow[l] < 0 || muUp[l] < 0 {
			continue
		}
		cols := make([]int, 0, len(m.bfBus[l])+1)
		for _, j := range m.bfBus[l] {
			cols = append(cols, m.theta[j])
		}
		// The flow (Bf θ) ranges over [flowLo, flowHi] − Pfinj at every
		// point of the program; the big-M of "μ > 0 ⇒ at the limit" is the
		// distance from the limit to the far end of that range.
		if ev.MuUp[l] > 0 {
			zu := b.binary()
			k.zUp[l] = zu
			b.row(math.Inf(-1), 0, []int{muUp[l], zu}, []float64{1, -ev.MuUp[l]})
			span := n.FlowMax[l] - k.flowLo[l]
			b.row(n.FlowMax[l]-n.Pfinj[l]-span, math.Inf(1), append(cols, zu), append(append([]float64(nil), m.bfVal[l]...), -span))
		} else {
			k.prunedBranches++
		}
		if ev.MuLo[l] > 0 {
			zl := b.binary()
			k.zLo[l] = zl
			b.row(math.Inf(-1), 0, []int{muLo[l], zl}, []float64{1, -ev.MuLo[l]})
			span := k.flowHi[l] - n.FlowMin[l]
			b.row(math.Inf(-1), n.FlowMin[l]-n.Pfinj[l]+span, append(cols[:len(cols):len(cols)], zl), append(append([]float64(nil), m.bfVal[l]...), span))
		} else {
			k.prunedBranches++
		}
		if ev.MuUp[l] > 0 && ev.MuLo[l] > 0 && n.FlowMax[l] > n.FlowMin[l] {
			nb := len(b.integer)
			b.row(math.Inf(-1), 1, []int{b.integer[nb-2], b.integer[nb-1]}, []float64{1, 1})
		}
		r := m.flow[l]
		b.rlo[r] = math.Max(b.rlo[r], k.flowLo[l]-n.Pfinj[l])
		b.rhi[r] = math.Min(b.rhi[r], k.flowHi[l]-n.Pfinj[l])
	}
	k.cutRows[0] = len(b.rlo)
	n.bridgeCuts(k, piLo, piHi, rules)
	k.cutRows[1] = len(b.rlo)
	// Objective: t ≤ sign·π_i + (U − L_i)(1 − y_i), Σ y_i = 1, with U the
	// largest bound of sign·π over the selected buses (the price bounds
	// after tightening; a looser U only weakens the relaxation).
	U := math.Inf(-1)
	for _, i := range sel {
		if sign > 0 {
			U = math.Max(U, piHi[i])
		} else {
			U = math.Max(U, -piLo[i])
		}
	}
	if math.IsInf(U, 0) { // unbounded prices (not at a unit's or backstop's bus)
		U = C
		if sign < 0 {
			U = -F
		}
	}
	k.t = b.col(1, math.Inf(-1), U)
	if len(sel) == 1 {
		b.row(math.Inf(-1), 0, []int{k.t, pi[sel[0]]}, []float64{1, -sign})
	} else {
		for _, i := range sel {
			y := b.binary()
			k.ys = append(k.ys, y)
			li := sign * piLo[i]
			if sign < 0 {
				li = -piHi[i]
			}
			// t − sign·π_i + (U − li) y_i ≤ U − li
			b.row(math.Inf(-1), U-li, []int{k.t, pi[i], y}, []float64{1, -sign, U - li})
		}
		ones := make([]float64, len(k.ys))
		for q := range ones {
			ones[q] = 1
		}
		b.row(1, 1, k.ys, ones)
	}
	k.nbin = len(b.integer) - nbin0
	ev.part.apply(k) // a congestion-pattern part (lmppattern.go), if any
	return k, nil
}

// tightenKKT is optimization-based bound tightening of the KKT program: over
// its linear relaxation (binaries in [0, 1]), which contains every KKT point
// of the market LP at every d ∈ D, it maximizes and minimizes each limited
// branch's flow, maximizes each congestion dual and each needed bus's price
// (both ways), and keeps the tighter bounds (LP optimum plus a 1e-6 relative
// margin). A branch whose flow cannot reach a limit has that limit's dual
// fixed at 0 (complementary slackness at every KKT point). A bound found
// during a pass is imposed at once on the live relaxation (flow row bounds,
// dual and price column bounds: each holds at every KKT point), so the next
// LPs of the same pass see it; the end of a flow range whose limit is pruned
// is not tightened further (it has no complementarity rule left). Each pass
// rebuilds the relaxation with the bounds of the previous one (the big-M
// coefficients too); it stops after
// passes passes, when a pass tightens nothing by more than 1%, or when the
// work (simplex iterations × (rows + columns)) is spent (bounds found until
// then are kept: each is valid on its own).
//
// With a proof (ev.rec), every bound is the one the step's dual proves over
// the checker's copy of the relaxation (liveCheck, lmpcert.go): at most the
// LP's optimum plus the margin, less where the solver's dual falls short.
//
// Before the first pass, the limits of radial branches that are slack at an
// optimum (leafSlack) get their duals fixed at 0 without an LP. The first
// pass bounds the flows first over the primal part of the relaxation (the
// market LP with the cost row and the cuts, a quarter of its rows and
// columns; its duals are duals over the whole relaxation), then over the
// whole. Every LP runs the primal simplex from the previous basis (only the
// objective changes): on 300_ieee ±10% the first pass took 54,475 simplex
// iterations where the dual simplex took 277,131, for the same bounds.
func (n *Network) tightenKKT(ctx context.Context, dom LoadDomain, rules MarketRules, hopt highs.Options, ev *LMPEvidence,
	piLo, piHi []float64, cuts []subgradientCut, need []bool, m *marketLP, passes int, work float64, w io.Writer) error {
	nl, vars := n.NumBranches(), m.vars
	if ev.FlowLo == nil {
		ev.FlowLo, ev.FlowHi = append([]float64(nil), n.FlowMin...), append([]float64(nil), n.FlowMax...)
	}
	margin := func(v float64) float64 { return 1e-6 * (1 + math.Abs(v)) }
	vary := make([]bool, n.NumBuses())
	for _, j := range vars {
		vary[j] = true
	}
	if c := n.pruneLeaves(m, ev); c > 0 {
		progress(w, "lmp-bound: %d limits of radial branches are slack at an optimum (duals fixed at 0, no LP)", c)
	}
	cand := &loadCandidates{keep: 32}
	defer func() { ev.Candidates, ev.workLeft = cand.loads(), math.Max(0, work) }()
	if ev.rec == nil && passes > 0 {
		used, c, err := n.backstopRanges(ctx, dom, rules, hopt, ev, piLo, piHi, cuts, vars)
		if err != nil {
			return err
		}
		work -= used
		nbs := 0
		for j := range m.sigma {
			if m.sigma[j] >= 0 {
				nbs++
			}
			if m.kappa[j] >= 0 {
				nbs++
			}
		}
		progress(w, "lmp-bound: per-bus backstop bounds: %d of %d below half the system-wide ones (%.3g work units)", c, nbs, used)
	}
	if ev.rec != nil && passes > 0 && work > 0 {
		diff, err := n.liveCheck(dom, rules, ev, piLo, piHi)
		if err != nil {
			progress(w, "lmp-bound: the proof recorded before tightening does not check (%v): tightening steps unchecked until the final replay", err)
		} else if diff > 0 {
			progress(w, "lmp-bound: %d bounds set to the proof's before tightening", diff)
		}
		defer func() {
			rec := ev.rec
			if rec.live != nil {
				c := rec.live.c
				if c.lowered > 0 {
					progress(w, "lmp-bound: %d tightening claims lowered to what their duals prove over the checker's boxes (largest: %s, %.10g → %.10g, %.3g relative)",
						c.lowered, c.worst.what, c.worst.claim, c.worst.proven, c.worst.rel)
				}
			} else if rec.liveErr != nil {
				progress(w, "lmp-bound: the live check of the tightening stopped: %v", rec.liveErr)
			}
			rec.live = nil
		}()
	}
	for pass := 0; pass < passes && work > 0; pass++ {
		if pass > 0 {
			n.pocketStep(m, ev, piLo, piHi, rules, nil) // lmppocket.go
		}
		ev.rec.mark("pass")
		k, err := n.buildKKT(dom, rules, ev, piLo, piHi, 1, cuts, vars)
		if err != nil {
			return err
		}
		k.b.integer = nil // the linear relaxation
		// Without presolve every solve starts from the previous basis; only
		// the objective changes between solves, so the basis stays primal
		// feasible and the primal simplex continues from it.
		topt := hopt
		topt.Presolve = "off"
		topt.Simplex = "primal"
		lp, err := buildMax(k.b, topt)
		if err != nil {
			return err
		}
		cost := make([]float64, len(k.b.cost))
		size := float64(len(k.b.cost) + len(k.b.rlo))
		bigM := newBigMRows(n, lp, k, ev, piLo, piHi, rules)
		stop := false
		// The largest and smallest values seen in the solutions so far: an
		// LP whose optimum cannot improve its bound by more than 1% of the
		// range is skipped (every bound stays valid; only the order of work
		// depends on them).
		obsHi, obsLo := make([]float64, len(cost)), make([]float64, len(cost))
		fHi, fLo := make([]float64, nl), make([]float64, nl)
		for j := range obsHi {
			obsHi[j], obsLo[j] = math.Inf(-1), math.Inf(1)
		}
		for l := range fHi {
			fHi[l], fLo[l] = math.Inf(-1), math.Inf(1)
		}
		observe := func(r *highs.LPResult) {
			for j, x := range r.X {
				obsHi[j], obsLo[j] = math.Max(obsHi[j], x), math.Min(obsLo[j], x)
			}
			for l, row := range k.m.flow {
				if row >= 0 {
					f := r.RowValue[row] + n.Pfinj[l]
					fHi[l], fLo[l] = math.Max(fHi[l], f), math.Min(fLo[l], f)
				}
			}
		}
		solved, skipped, iters, screened := 0, 0, 0, 0
		// Per kind of bound (flows, congestion duals, upper prices, lower
		// prices): LPs, simplex iterations, bounds improved by more than 1%.
		var kind int
		var kindLPs, kindIters, kindGains [4]int
		var last []float64 // the last maximizer
		t1 := time.Now()
		// maximize Σ val·x_idx; ok false when the relaxation is not solved
		// to optimality (bound unchanged).
		// on is the program the LPs run on: the relaxation, or (screening)
		// its primal part.
		on, onCost, onSize := lp, cost, size
		max := func(idx []int, val []float64) (float64, bool, error) {
			if stop || work <= 0 {
				stop = true
				return 0, false, nil
			}
			for q, j := range idx {
				onCost[j] = val[q]
			}
			err := on.SetCosts(onCost)
			for _, j := range idx {
				onCost[j] = 0
			}
			if err != nil {
				return 0, false, err
			}
			if ev.part != nil {
				// A pattern part's LPs stop at the work left (one
				// LP of 300_ieee ×0.8 ±10% ran minutes past it):
				// an LP stopped there leaves its bound unchanged.
				if err := on.SetIterationLimit(int(math.Min(math.Ceil(work/onSize), math.MaxInt32))); err != nil {
					return 0, false, err
				}
			}
			r, err := on.Solve(ctx)
			if err != nil {
				return 0, false, err
			}
			if err := ctx.Err(); err != nil {
				return 0, false, err
			}
			if r.Status != solver.Optimal {
				if ev.part != nil {
					work -= float64(r.Iterations) * onSize
				}
				return 0, false, nil
			}
			solved++
			iters += r.Iterations
			kindLPs[kind]++
			kindIters[kind] += r.Iterations
			work -= float64(r.Iterations) * onSize
			observe(r)
			ev.rec.solved(r)
			last = r.X
			return r.Objective, true, nil
		}
		// useless reports that a seen value is within 1% of the range of the
		// bound it would tighten.
		useless := func(seen, bound, width float64) bool {
			if !(seen >= bound-0.01*width) {
				return false
			}
			skipped++
			return true
		}
		gain := 0.0 // largest relative improvement of a bound
		improve := func(old, nw, scale float64) {
			d := (old - nw) / math.Max(1, scale)
			if d > gain {
				gain = d
			}
			if d > 0.01 {
				kindGains[kind]++
			}
		}
		// All upper flows, then all lower flows (consecutive objectives
		// alike: fewer simplex iterations from the previous basis).
		flows := func(screen *highs.LP) error {
			kind = 0
			for _, dir := range []float64{1, -1} {
				for l := 0; l < nl; l++ {
					if k.m.flow[l] < 0 {
						continue
					}
					cols := make([]int, len(k.m.bfBus[l]))
					val := make([]float64, len(cols))
					for q, j := range k.m.bfBus[l] {
						cols[q], val[q] = k.m.theta[j], dir*k.m.bfVal[l][q]
					}
					span := n.FlowMax[l] - n.FlowMin[l]
					// A limit already known not to bind needs no further
					// tightening of that end of the range (its dual is 0 and it
					// has no complementarity rule; only the row bound would
					// tighten).
					if (dir > 0 && ev.MuUp[l] == 0) || (dir < 0 && ev.MuLo[l] == 0) {
						continue
					}
					if dir > 0 {
						if useless(fHi[l], ev.FlowHi[l], span) {
							continue
						}
					} else if useless(-fLo[l], -ev.FlowLo[l], span) {
						continue
					}
					v, ok, err := max(cols, val)
					if err != nil {
						return err
					}
					if !ok {
						continue
					}
					f := dir*v + n.Pfinj[l]
					if hi := f + margin(f); dir > 0 && hi < ev.FlowHi[l] {
						if hi, ok := ev.rec.step("flow_hi", l, hi); ok {
							improve(ev.FlowHi[l], hi, span)
							ev.FlowHi[l] = hi
						}
					}
					if lo := f - margin(f); dir < 0 && lo > ev.FlowLo[l] {
						if lo, ok := ev.rec.step("flow_lo", l, lo); ok {
							improve(lo, ev.FlowLo[l], span)
							ev.FlowLo[l] = lo
						}
					}
					// The new range holds at every KKT point: impose it on the
					// live relaxation at once (the next LPs of the pass see it).
					rlo, rhi := math.Max(n.FlowMin[l], ev.FlowLo[l])-n.Pfinj[l], math.Min(n.FlowMax[l], ev.FlowHi[l])-n.Pfinj[l]
					if err := lp.SetRowBounds(k.m.flow[l], rlo, rhi); err != nil {
						return err
					}
					if screen != nil {
						if err := screen.SetRowBounds(k.m.flow[l], rlo, rhi); err != nil {
							return err
						}
					}
				}
			}
			return nil
		}
		if pass == 0 {
			// Screening: the flow ranges over the primal part of the
			// relaxation (market LP, cost row, cuts), a relaxation of it
			// with a quarter of its size; each LP's dual, zero on the
			// other rows, is a dual of the same LP over the whole
			// relaxation (the other columns enter no primal row), so the
			// proof checks it there unchanged.
			pb, err := k.b.prefix(k.primalRows, k.primalCols)
			if err != nil {
				lp.Close()
				return err
			}
			screen, err := pb.build(topt)
			if err == nil {
				err = screen.SetObjectiveSense(true)
			}
			if err == nil {
				on, onCost, onSize = screen, make([]float64, len(pb.cost)), float64(len(pb.cost)+len(pb.rlo))
				err = flows(screen)
				screen.Close()
				on, onCost, onSize = lp, cost, size
			}
			if err != nil {
				lp.Close()
				return err
			}
			screened = solved
			for l := range fHi {
				fHi[l], fLo[l] = math.Inf(-1), math.Inf(1)
			}
			for j := range obsHi {
				obsHi[j], obsLo[j] = math.Inf(-1), math.Inf(1)
			}
		}
		if err := flows(nil); err != nil {
			lp.Close()
			return err
		}
		pruned0 := 0
		ev.rec.mark("prune")
		fixZero := func(col int) error {
			if col < 0 {
				return nil
			}
			if err := lp.SetColumnBounds(col, 0, 0); err != nil {
				lp.Close()
				return err
			}
			return nil
		}
		for l := 0; l < nl; l++ {
			if k.m.flow[l] < 0 {
				continue
			}
			if ev.FlowHi[l] < n.FlowMax[l] && ev.MuUp[l] > 0 {
				ev.MuUp[l] = 0
				gain = 1
				if err := fixZero(k.muUp[l]); err != nil {
					return err
				}
			}
			if ev.FlowLo[l] > n.FlowMin[l] && ev.MuLo[l] > 0 {
				ev.MuLo[l] = 0
				gain = 1
				if err := fixZero(k.muLo[l]); err != nil {
					return err
				}
			}
			if ev.MuUp[l] == 0 {
				pruned0++
			}
			if ev.MuLo[l] == 0 {
				pruned0++
			}
		}
		ev.rec.mark("flush_flows")
		if err := bigM.flows(k, ev); err != nil {
			lp.Close()
			return err
		}
		kind = 1
		for l := 0; l < nl; l++ {
			for _, up := range []bool{true, false} {
				col, bound := k.muUp[l], &ev.MuUp[l]
				if !up {
					col, bound = k.muLo[l], &ev.MuLo[l]
				}
				if col < 0 || *bound == 0 || useless(obsHi[col], *bound, *bound) {
					continue
				}
				v, ok, err := max([]int{col}, []float64{1})
				if err != nil {
					lp.Close()
					return err
				}
				if ok && v+margin(v) < *bound {
					mu, ok := ev.rec.step(map[bool]string{true: "mu_up", false: "mu_lo"}[up], l, v+margin(v))
					if !ok {
						continue
					}
					improve(*bound, mu, *bound)
					*bound = mu
					if err := lp.SetColumnBounds(col, 0, *bound); err != nil {
						lp.Close()
						return err
					}
				}
			}
		}
		ev.rec.mark("flush_duals")
		if err := bigM.duals(k, ev); err != nil {
			lp.Close()
			return err
		}
		// All upper price bounds, then all lower ones (alternating the two
		// per bus costs about four times the simplex iterations: each LP
		// then starts from the opposite extreme).
		for _, up := range []bool{true, false} {
			kind = 2
			sign := 1.0
			if !up {
				kind, sign = 3, -1
			}
			for j := range piLo {
				if !need[j] {
					continue
				}
				width := piHi[j] - piLo[j]
				if up && useless(obsHi[k.pi[j]], piHi[j], width) {
					continue
				}
				if !up && useless(-obsLo[k.pi[j]], -piLo[j], width) {
					continue
				}
				v, ok, err := max([]int{k.pi[j]}, []float64{sign})
				if err != nil {
					lp.Close()
					return err
				}
				if !ok {
					continue
				}
				if vary[j] {
					cand.add(v, k.m, last)
				}
				if b := v + margin(v); up && b < piHi[j] {
					if b, ok = ev.rec.step("pi_hi", j, b); !ok {
						continue
					}
					improve(piHi[j], b, rules.MaxPrice())
					piHi[j] = b
				} else if !up && -b > piLo[j] {
					lo, ok := ev.rec.step("pi_lo", j, -b)
					if !ok {
						continue
					}
					improve(lo, piLo[j], rules.MaxPrice())
					piLo[j] = lo
				} else {
					continue
				}
				if err := lp.SetColumnBounds(k.pi[j], piLo[j], piHi[j]); err != nil {
					lp.Close()
					return err
				}
			}
		}
		ev.rec.mark("flush_prices")
		if err := bigM.prices(k, piLo, piHi); err != nil {
			lp.Close()
			return err
		}
		lp.Close()
		ev.TighteningPasses++
		ev.PrunedLimits = pruned0
		var hi float64
		below := 0
		for _, i := range vars {
			hi = math.Max(hi, math.Max(piHi[i], -piLo[i]))
			if math.Max(piHi[i], -piLo[i]) < 0.99*rules.MaxPrice() {
				below++
			}
		}
		progress(w, "lmp-bound: tightening pass %d: %d of %d branch limits cannot bind, largest price bound %.6g $/MWh (%d of %d varying buses below the cap; %d LPs (%d screening), %d simplex iterations, %d skipped, %.1f s, work left %.3g; largest relative gain %.3g; LPs/iterations/bounds improved >1%% for flows %d/%d/%d, duals %d/%d/%d, upper prices %d/%d/%d, lower prices %d/%d/%d)",
			pass+1, pruned0, 2*nl, hi, below, len(vars), solved, screened, iters, skipped, time.Since(t1).Seconds(), work, gain,
			kindLPs[0], kindIters[0], kindGains[0], kindLPs[1], kindIters[1], kindGains[1], kindLPs[2], kindIters[2], kindGains[2], kindLPs[3], kindIters[3], kindGains[3])
		if ev.n1fastStall.stalled(w, pass, hi) {
			break
		}
		if stop || gain < 0.01 {
			break
		}
	}
	if w != nil {
		var capped []string
		for _, i := range vars {
			if math.Max(piHi[i], -piLo[i]) >= 0.99*rules.MaxPrice() {
				capped = append(capped, strconv.Itoa(n.BusID[i]))
			}
		}
		if len(capped) > 0 {
			progress(w, "lmp-bound: after tightening, %d varying buses keep a price bound at the cap: %s", len(capped), strings.Join(capped, " "))
		}
	}
	return nil
}

// bigMRows appends to a live relaxation of the KKT program the rows of its
// complementarity rules and McCormick envelopes rebuilt with the bounds
// tightened since the relaxation was built (the old rows stay: they are
// implied), so the rest of a pass works with the tighter big-Ms without
// losing the simplex basis. Every appended row holds at every KKT point
// (the same derivation as buildKKT's, with tighter valid bounds).
type bigMRows struct {
	n              *Network
	lp             rowAdder
	rules          MarketRules
	ncol           int
	flowLo, flowHi []float64 // bounds the current rows use
	muUp, muLo     []float64
	piLo, piHi     []float64
	segsAt         [][]int
	add            lpBuilder
}

func newBigMRows(n *Network, lp rowAdder, k *kktModel, ev *LMPEvidence, piLo, piHi []float64, rules MarketRules) *bigMRows {
	r := &bigMRows{n: n, lp: lp, rules: rules, ncol: len(k.b.cost)}
	r.flowLo, r.flowHi = append([]float64(nil), k.flowLo...), append([]float64(nil), k.flowHi...)
	r.muUp, r.muLo = append([]float64(nil), ev.MuUp...), append([]float64(nil), ev.MuLo...)
	r.piLo, r.piHi = append([]float64(nil), piLo...), append([]float64(nil), piHi...)
	r.segsAt = make([][]int, len(piLo))
	for s := range k.m.segs {
		j := k.m.segBus[s]
		r.segsAt[j] = append(r.segsAt[j], s)
	}
	return r
}

// flush appends the collected rows to the LP.
func (r *bigMRows) flush() error {
	if len(r.add.rlo) == 0 {
		return nil
	}
	t := sparse.NewTriplets(r.ncol, len(r.add.rlo), len(r.add.rv))
	for q, v := range r.add.rv {
		t.Append(r.add.rj[q], r.add.ri[q], v)
	}
	err := r.lp.AddRows(r.add.rlo, r.add.rhi, t.ToCSC())
	r.add = lpBuilder{}
	return err
}

// flows appends "μ > 0 ⇒ at the limit" with the tightened flow ranges.
func (r *bigMRows) flows(k *kktModel, ev *LMPEvidence) error {
	n, m := r.n, k.m
	for l, row := range m.flow {
		if row < 0 {
			continue
		}
		cols := make([]int, 0, len(m.bfBus[l])+1)
		for _, j := range m.bfBus[l] {
			cols = append(cols, m.theta[j])
		}
		val := func(last float64) []float64 { return append(append([]float64(nil), m.bfVal[l]...), last) }
		if lo := math.Max(n.FlowMin[l], ev.FlowLo[l]); k.zUp[l] >= 0 && ev.MuUp[l] > 0 && lo > r.flowLo[l] {
			r.flowLo[l] = lo
			span := n.FlowMax[l] - lo
			r.add.row(n.FlowMax[l]-n.Pfinj[l]-span, math.Inf(1), append(cols, k.zUp[l]), val(-span))
		}
		if hi := math.Min(n.FlowMax[l], ev.FlowHi[l]); k.zLo[l] >= 0 && ev.MuLo[l] > 0 && hi < r.flowHi[l] {
			r.flowHi[l] = hi
			span := hi - n.FlowMin[l]
			r.add.row(math.Inf(-1), n.FlowMin[l]-n.Pfinj[l]+span, append(cols[:len(cols):len(cols)], k.zLo[l]), val(span))
		}
	}
	return r.flush()
}

// duals appends μ ≤ M·z with the tightened dual bounds M.
func (r *bigMRows) duals(k *kktModel, ev *LMPEvidence) error {
	for l := range ev.MuUp {
		if z := k.zUp[l]; z >= 0 && ev.MuUp[l] > 0 && ev.MuUp[l] < r.muUp[l] {
			r.muUp[l] = ev.MuUp[l]
			r.add.row(math.Inf(-1), 0, []int{k.muUp[l], z}, []float64{1, -ev.MuUp[l]})
		}
		if z := k.zLo[l]; z >= 0 && ev.MuLo[l] > 0 && ev.MuLo[l] < r.muLo[l] {
			r.muLo[l] = ev.MuLo[l]
			r.add.row(math.Inf(-1), 0, []int{k.muLo[l], z}, []float64{1, -ev.MuLo[l]})
		}
	}
	return r.flush()
}

// prices appends the segments' and backstops' price rules and the McCormick
// envelopes of π_j·d_j with the tightened price bounds.
func (r *bigMRows) prices(k *kktModel, piLo, piHi []float64) error {
	m, C, F := k.m, r.rules.PriceCap, r.rules.PriceFloor
	for j := range piLo {
		lo, hi := piLo[j], piHi[j]
		if !(lo > r.piLo[j] || hi < r.piHi[j]) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
			continue
		}
		r.piLo[j], r.piHi[j] = lo, hi
		pi := k.pi[j]
		for _, s := range r.segsAt[j] {
			c := m.segs[s].Price
			if c > lo {
				r.add.row(lo, math.Inf(1), []int{pi, k.segA[s]}, []float64{1, -(c - lo)})
			}
			if hi > c {
				r.add.row(math.Inf(-1), hi, []int{pi, k.segZ[s]}, []float64{1, hi - c})
			}
		}
		if e := k.shedE[j]; e >= 0 {
			r.add.row(lo, math.Inf(1), []int{pi, e}, []float64{1, -(C - lo)})
		}
		if e := k.curtE[j]; e >= 0 {
			r.add.row(math.Inf(-1), hi, []int{pi, e}, []float64{1, hi - F})
		}
		if w := k.mcW[j]; w >= 0 {
			dl, dh := m.dom.Lo[j], m.dom.Hi[j]
			r.add.row(math.Inf(-1), -dh*lo, []int{w, pi, m.d[j]}, []float64{1, -dh, -lo})
			r.add.row(math.Inf(-1), -dl*hi, []int{w, pi, m.d[j]}, []float64{1, -dl, -hi})
		}
	}
	return r.flush()
}

// loadCandidates keeps the load vectors of the keep largest values seen.
type loadCandidates struct {
	keep int
	val  []float64
	load [][]float64
}

// add records the loads of the solution x of a program laid out by m, with
// objective value v.
func (c *loadCandidates) add(v float64, m *marketLP, x []float64) {
	if x == nil {
		return
	}
	if len(c.val) >= c.keep && v <= c.val[len(c.val)-1] {
		return
	}
	d := m.loads(x)
	q := sort.SearchFloat64s(negated(c.val), -v)
	c.val = append(c.val[:q], append([]float64{v}, c.val[q:]...)...)
	c.load = append(c.load[:q], append([][]float64{d}, c.load[q:]...)...)
	if len(c.val) > c.keep {
		c.val, c.load = c.val[:c.keep], c.load[:c.keep]
	}
}

func (c *loadCandidates) loads() [][]float64 { return c.load }

// loads returns the load vector of the solution x of a program laid out by
// m: the varying buses' load columns clipped to m's domain, the others at
// its lower end.
func (m *marketLP) loads(x []float64) []float64 {
	d := append([]float64(nil), m.dom.Lo...)
	for _, j := range m.vars {
		d[j] = math.Min(m.dom.Hi[j], math.Max(m.dom.Lo[j], x[m.d[j]]))
	}
	return d
}

// negated returns −v elementwise (c.val is descending; its negation ascending).
func negated(v []float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = -x
	}
	return out
}

// mipRootFactor: the KKT MIP is skipped (nil result) when its LP-iteration
// budget is below this many times the program's rows plus columns. Measured:
// the root LP of the KKT program alone took 7.9 times them on 300_ieee ±10%
// (61,987 iterations, about 60 CPU s, for 7,875 rows and columns), and a
// search cannot stop inside one LP solve, so a smaller budget buys only the
// root LP's bound, at an unbounded overrun of the budget; 118_ieee ±10%,
// which closes, had 92 times them.
const mipRootFactor = 16

// mipSkipped is the LMPEvidence.MIPStops entry of a skipped MIP.
const mipSkipped = "skipped"

// kktMIP builds and solves the KKT mixed-integer program maximizing sign·π_i
// over the buses sel, under the limits lim and a work budget of work units
// (an LP-iteration limit of work / (rows + columns of the program), at least
// one iteration per row and column), which it returns with the result; the
// result is nil (not solved) when the limit is below mipRootFactor times the
// rows plus columns.
func (n *Network) kktMIP(ctx context.Context, dom LoadDomain, rules MarketRules, hopt highs.Options, ev *LMPEvidence,
	piLo, piHi []float64, sign float64, lim highs.MIPLimits, work float64, cuts []subgradientCut, sel []int) (*highs.MIPResult, int64, error) {
	k, err := n.buildKKT(dom, rules, ev, piLo, piHi, sign, cuts, sel)
	if err != nil {
		return nil, 0, err
	}
	fixOwnLoads(k, dom, sign)
	m, ys, b := k.m, k.ys, k.b
	ev.Binaries += k.nbin
	if ev.mipCut > 0 {
		b.row(ev.mipCut, math.Inf(1), []int{k.t}, []float64{1})
		n1fastCutoffRows(k, piLo, piHi, sign, ev.mipCut, sel)
	}
	size := float64(len(b.cost) + len(b.rlo))
	lim.MaxLPIterations = int64(math.Max(size, math.Floor(work/size)))
	ev.mipSize = int(size)
	if lim.MaxLPIterations < mipRootFactor*int64(size) {
		return nil, lim.MaxLPIterations, nil
	}
	lp, err := buildMax(b, hopt)
	if err != nil {
		return nil, 0, err
	}
	defer lp.Close()
	r, err := lp.SolveMIP(ctx, lim)
	if err != nil {
		return nil, 0, err
	}
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	if r.X != nil && r.Objective > ev.Incumbent {
		ev.Incumbent = r.Objective
		best := -1
		if len(sel) == 1 {
			best = sel[0]
		}
		for q, y := range ys {
			if r.X[y] > 0.5 {
				best = sel[q]
			}
		}
		if best >= 0 {
			ev.IncumbentBus = n.BusID[best]
		}
		ev.IncumbentLoad = m.loads(r.X)
	}
	return r, lim.MaxLPIterations, nil
}

// perBusMIPs bounds max sign·π_i over the buses sel by one KKT MIP per bus
// with the cutoff row sign·π_i ≥ c, c = seen plus a 1e-6 relative margin
// (LMPBoundOptions.PerBusMIP): an infeasible MIP proves sign·π_i < c at
// every KKT point; otherwise sign·π_i ≤ max(c, proven bound), since every
// KKT point with sign·π_i ≥ c is a point of the MIP. Two rounds over the
// buses in the order of their bound, largest first. The first gives each
// MIP an LP-iteration limit of an eighth of the program's rows plus columns
// (enough for presolve and a few nodes: on 300_ieee most cutoff MIPs are
// infeasible within it). The second goes down the same order and gives each
// bus still above c all the work left: the certified value is the largest
// bound, so it falls only when every bus above the target falls, and a bus
// the work cannot bring down makes work on the buses below it useless. It
// stops at the first bus whose bound is at most the largest bound left by
// an earlier second-round MIP (nothing below that bound can lower the
// maximum), and raises the cutoff of the later MIPs to that bound (proving
// a bus below it is enough). A bus the work does not reach keeps its
// tightened bound. It returns the largest bound. The load vectors of the
// MIPs' incumbents (KKT points: loads of the domain with their market
// prices) join ev.Candidates, the search's extra starts.
func (n *Network) perBusMIPs(ctx context.Context, dom LoadDomain, rules MarketRules, hopt highs.Options, ev *LMPEvidence,
	piLo, piHi []float64, sign, seen, work float64, safety time.Duration, sel []int, w io.Writer) (float64, error) {
	c := seen + 1e-6*(1+math.Abs(seen))
	bnd := map[int]float64{}
	for _, i := range sel {
		bnd[i] = piHi[i]
		if sign < 0 {
			bnd[i] = -piLo[i]
		}
	}
	order := append([]int(nil), sel...)
	sort.SliceStable(order, func(a, b int) bool { return bnd[order[a]] > bnd[order[b]] })
	done := map[int]bool{}
	infeasible, solves := 0, 0
	floor := math.Inf(-1) // the largest bound a second-round MIP left
	for round := 0; round < 2; round++ {
		if round == 1 {
			sort.SliceStable(order, func(a, b int) bool { return bnd[order[a]] > bnd[order[b]] })
			for _, i := range order {
				if done[i] {
					floor = math.Max(floor, bnd[i])
				}
			}
		}
		for _, i := range order {
			if done[i] || bnd[i] <= c {
				continue
			}
			if work <= 0 || (round == 1 && bnd[i] <= floor) {
				break
			}
			ci := c
			if round == 1 {
				ci = math.Max(c, floor)
			}
			k, err := n.buildKKT(dom, rules, ev, piLo, piHi, sign, nil, []int{i})
			if err != nil {
				return 0, err
			}
			fixOwnLoads(k, dom, sign)
			k.b.row(ci, math.Inf(1), []int{k.t}, []float64{1})
			size := float64(len(k.b.cost) + len(k.b.rlo))
			ev.mipSize = int(size)
			limit := work / size // LP iterations left
			if round == 0 {
				limit = math.Min(math.Floor(size/8), limit/float64(len(order)))
			}
			lp, err := buildMax(k.b, hopt)
			if err != nil {
				return 0, err
			}
			r, err := lp.SolveMIP(ctx, highs.MIPLimits{RelGap: 1e-3, TimeLimit: safety, MaxLPIterations: int64(math.Max(1, math.Floor(limit)))})
			lp.Close()
			if err != nil {
				return 0, err
			}
			if err := ctx.Err(); err != nil {
				return 0, err
			}
			solves++
			work -= float64(r.LPIterations) * size
			ev.MIPIterations += r.LPIterations
			ev.Nodes += r.Nodes
			ev.Reproducible = ev.Reproducible && r.Stop.Reproducible()
			ev.MIPStops = append(ev.MIPStops, string(r.Stop))
			if r.X != nil {
				ev.Candidates = append(ev.Candidates, k.m.loads(r.X))
			}
			switch {
			case r.Status == solver.PrimalInfeasible:
				bnd[i], done[i] = ci, true
				infeasible++
			case r.Stop.Reproducible() || r.Stop == highs.MIPStopTime:
				if !math.IsNaN(r.DualBound) {
					bnd[i] = math.Min(bnd[i], math.Max(ci, r.DualBound+1e-6*(1+math.Abs(r.DualBound))))
				}
				done[i] = r.Status == solver.Optimal
			}
			if round == 1 {
				floor = math.Max(floor, bnd[i])
				if bnd[i] > c {
					progress(w, "lmp-bound: bus %d: max %sπ ≤ %.6g $/MWh (per-bus MIP with cutoff %.6g: %v, %d nodes, %d LP iterations)",
						n.BusID[i], map[bool]string{true: "", false: "−"}[sign > 0], bnd[i], ci, r.Status, r.Nodes, r.LPIterations)
				}
			}
		}
	}
	bound := math.Inf(-1)
	above := 0
	for _, i := range order {
		bound = math.Max(bound, bnd[i])
		if bnd[i] > math.Max(c, floor) {
			above++
		}
	}
	progress(w, "lmp-bound: per-bus MIPs with cutoff %.6g $/MWh (raised to %.6g) over %d buses: %d solves, %d buses proven below their cutoff, %d still above it; bound %.6g", c, math.Max(c, floor), len(order), solves, infeasible, above, bound)
	return bound, nil
}

// VerifyCostCertificateContext is VerifyCostCertificate with a context (the
// "lmp-bound" re-derivation solves the KKT program again).
// A certificate with a proof (LMPEvidence.Proof) is checked by CheckLMPProof
// instead: no solver, time linear in its size.
func (n *Network) VerifyCostCertificateContext(ctx context.Context, c *CostCertificate, dom LoadDomain) error {
	if c != nil && c.Method == "lmp-bound" {
		return n.verifyLMPBound(ctx, c, dom)
	}
	if c != nil && c.Method == "lmp-bound-n1" {
		return n.verifyN1LMPBound(ctx, c, dom)
	}
	return n.VerifyCostCertificate(c, dom)
}

// verifyLMPBound verifies an "lmp-bound" certificate. One with a proof is
// checked by CheckLMPProof (no solver). One without is re-derived: the
// arithmetic, then every derived constant (the LPs of the cost gap, the backstop and price
// bounds), the bound tightening (with the recorded work budget) and the
// proven bounds of the KKT program, solved again from scratch with the
// recorded HiGHS random seed and MIP work budget, over the buses the
// recorded known price selects (a wrong known price cannot make it accept a
// bound that is too low: it only moves buses between the MIP and their LP
// bounds). Every step is deterministic, so a certificate whose MIPs ended by
// a reproducible rule (LMPEvidence.Reproducible) is re-derived exactly,
// whatever the machine's load; one cut short by the producer's wall-clock
// safety net is re-derived with the full budget, whose bound is at most the
// recorded one (the same search, run further). It fails when the re-derived
// bound exceeds the certified one. The wall-clock safety net of the
// re-derivation is ten times the nominal time of the recorded budgets (at
// least ten minutes): only a machine that much slower than the calibration
// can make a sound certificate fail. It uses the same solver (HiGHS) as the
// producer: it is a re-derivation, not an independent proof.
func (n *Network) verifyLMPBound(ctx context.Context, c *CostCertificate, dom LoadDomain) error {
	if c == nil {
		return fmt.Errorf("%w: nil certificate", ErrNotCertified)
	}
	if err := c.checkArithmetic(); err != nil {
		return err
	}
	if err := dom.Validate(n); err != nil {
		return fmt.Errorf("%w: %v", ErrNotCertified, err)
	}
	if c.LMP.Proof != nil {
		_, err := n.CheckLMPProof(ctx, dom, c.Rules, c.LMP.Proof)
		return err
	}
	if e := c.LMP; e.Split != nil {
		v, _, err := e.Split.walk(n, dom, 0, nil, func(sub LoadDomain, s *LMPSplit, parent any) (any, float64, error) {
			if s.Evidence == nil || s.Evidence.Split != nil || s.Evidence.Proof != nil {
				return nil, 0, fmt.Errorf("%w: a node of a split certificate must carry one unsplit evidence", ErrNotCertified)
			}
			p, _ := parent.(*LMPEvidence)
			claim := s.PerMW // a leaf: its claim; an inner node: its own box's bound
			if s.Lo != nil {
				claim = math.Max(s.Evidence.MaxPrice, s.Evidence.MinPrice)
			}
			ev, err := n.rederiveLMP(ctx, sub, c.Rules, s.Evidence, claim, p)
			return ev, s.PerMW, err
		})
		if err != nil {
			return err
		}
		if !(v <= c.PerMW) {
			return fmt.Errorf("%w: per_mw %v below the split tree's %v", ErrNotCertified, c.PerMW, v)
		}
		return nil
	}
	_, err := n.rederiveLMP(ctx, dom, c.Rules, c.LMP, c.PerMW, nil)
	return err
}

// rederiveLMP re-derives the evidence e over dom (see verifyLMPBound),
// starting from the re-derived evidence of the box's parent in a split
// domain (nil otherwise), and fails when its bound exceeds perMW.
func (n *Network) rederiveLMP(ctx context.Context, dom LoadDomain, rules MarketRules, e *LMPEvidence, perMW float64, parent *LMPEvidence) (*LMPEvidence, error) {
	nominal := time.Duration((e.TighteningWork/2.4e7 + e.MIPWork/8e6) * float64(time.Second))
	opt := LMPBoundOptions{RandomSeed: e.RandomSeed, TighteningWork: e.TighteningWork, MIPWork: e.MIPWork, KnownPrice: e.KnownPrice, DecisionRules: e.DecisionRules, PerBusMIP: e.PerBusMIP, MIPCutoff: e.MIPCutoff, PatternSplitWork: e.PatternSplitWork, PatternSplitTarget: e.PatternSplitTarget,
		MIPTimeLimit: max(10*time.Minute, 10*nominal), parent: parent}
	// The same passes as the producer (the count it ran; none without work).
	opt.TighteningPasses = e.TighteningPasses
	if e.TighteningPasses == 0 {
		opt.TighteningPasses = -1
	}
	ev, reason, err := n.lmpBound(ctx, dom, rules, opt)
	if err != nil {
		return nil, err
	}
	if ev == nil {
		return nil, fmt.Errorf("%w: %s", ErrNotCertified, reason)
	}
	if tol := 1e-6 * (1 + math.Abs(ev.CostGap)); math.Abs(ev.CostGap-e.CostGap) > tol {
		return nil, fmt.Errorf("%w: re-derived cost gap %v differs from the recorded %v", ErrNotCertified, ev.CostGap, e.CostGap)
	}
	per := math.Max(ev.MaxPrice, ev.MinPrice)
	if per > perMW*(1+1e-6)+1e-6 {
		return nil, fmt.Errorf("%w: re-derived LMP bound %v exceeds the certified %v (closed: %v; MIPs stopped by %v)", ErrNotCertified, per, perMW, ev.Closed, ev.MIPStops)
	}
	return ev, nil
}

// CertifyCostBound returns the tightest certificate grid can give for the
// cost of the DC-OPF with market rules over dom: the uncongested merit-order
// bound when it applies (exact without congestion, no solve), otherwise the
// KKT bound of CertifyLMPBound, otherwise the price cap (with the reasons).
// It reads only the network and the public domain (not Network.Load).
func (n *Network) CertifyCostBound(ctx context.Context, dom LoadDomain, alpha float64, rules MarketRules, opt LMPBoundOptions) (*CostCertificate, error) {
	if err := dom.Validate(n); err != nil {
		return nil, err
	}
	// The merit-order check's fast path evaluates the network's own loads;
	// here they are replaced by the domain's centre, so that nothing below
	// reads a load that is not public.
	pub := *n
	pub.Load = make([]float64, n.NumBuses())
	for i := range pub.Load {
		pub.Load[i] = (dom.Lo[i] + dom.Hi[i]) / 2
	}
	mc, err := pub.CertifyCostSensitivity(dom, alpha, rules)
	if err != nil {
		return nil, err
	}
	if mc.Method != "price-cap" {
		progress(opt.Progress, "certify: no branch can congest over the domain: merit-order bound %.6g $/MWh", mc.PerMW)
		return mc, nil
	}
	// A short adversarial search first: a load vector of the domain at which
	// a varying bus's price reaches the cap makes the price-cap bound tight.
	s, err := n.SearchLMPChange(ctx, dom, alpha, rules, LMPSearchOptions{Starts: 8, Steps: 40, Seed: 1})
	if err != nil {
		return nil, err
	}
	if s.LMP >= rules.MaxPrice()*(1-1e-9) {
		mc.Reason = fmt.Sprintf("a load vector of the domain has a price of %.6g $/MWh at a varying bus: the price-cap bound is tight", s.LMP)
		progress(opt.Progress, "certify: %s", mc.Reason)
		return mc, nil
	}
	progress(opt.Progress, "certify: merit-order bound not applicable (%s); solving the KKT program", mc.Reason)
	opt.KnownPrice = math.Max(opt.KnownPrice, s.LMP)
	c, err := n.CertifyLMPBound(ctx, dom, alpha, rules, opt)
	if err != nil {
		return nil, err
	}
	if c.Method == "price-cap" {
		c.Reason = mc.Reason + "; " + c.Reason
	}
	return c, nil
}

// Price monotonicity along a bus's own load. V is convex in d and d enters
// the market LP only through the balance rows, so the largest price at bus i
// over the optimal duals at d is the right derivative
// V′(d; e_i) = max_{π ∈ ∂V(d)} π_i (Rockafellar, Convex Analysis, Thm 23.4),
// and the smallest one is −V′(d; −e_i). Along the line d + s·e_i, a convex
// function's right derivative is nondecreasing in s, and at the end
// d̂ = d + (Hi_i − d_i)·e_i every optimal dual π̂ satisfies
// V(d̂ − s·e_i) ≥ V(d̂) − s·π̂_i, so π̂_i is at least the left derivative
// there, which is at least V′(d; e_i). Hence every KKT point (d, π) with
// π_i = c has a KKT point (d̂, π̂) of the same domain (d̂ differs only in
// coordinate i, set to Hi_i) with π̂_i ≥ c: the largest π_i over the KKT
// points over D equals the largest over those with d_i = Hi_i, and the
// smallest π_i the smallest over those with d_i = Lo_i. A program that
// maximizes sign·π_i may therefore fix d_i at the end of its sign (Hi_i for
// sign > 0, Lo_i for sign < 0) without changing its optimum; its relaxation
// (and its McCormick rows on π_i·d_i, exact at a fixed d_i) only gets tighter.

// ownLoadEnd is the end of bus i's load interval at which max sign·π_i over
// the KKT points is attained (price monotonicity along the bus's own load).
func ownLoadEnd(dom LoadDomain, i int, sign float64) float64 {
	if sign > 0 {
		return dom.Hi[i]
	}
	return dom.Lo[i]
}

// fixOwnLoads restricts a KKT program maximizing sign·π over the selected
// buses k.sel to loads at the end of each selected bus's interval (price
// monotonicity, above): with one bus its load column is fixed; with
// several, selecting bus i (y_i = 1) forces d_i to its end by the row
// sign·d_i ≥ sign·end_i − (Hi_i − Lo_i)(1 − y_i). The program's optimum is
// unchanged.
func fixOwnLoads(k *kktModel, dom LoadDomain, sign float64) {
	for q, i := range k.sel {
		col := k.m.d[i]
		if col < 0 {
			continue
		}
		end, w := ownLoadEnd(dom, i, sign), dom.Hi[i]-dom.Lo[i]
		if len(k.ys) == 0 {
			k.b.lo[col], k.b.hi[col] = end, end
			continue
		}
		// sign·d_i − w·y_i ≥ sign·end_i − w
		k.b.row(sign*end-w, math.Inf(1), []int{col, k.ys[q]}, []float64{sign, -w})
	}
}

// shedMax and curtMax are the bounds on bus j's shedding and curtailment
// backstops at every KKT point (per bus when known, else system-wide).
func (ev *LMPEvidence) shedMax(j int) float64 {
	if ev.ShedHi != nil {
		return math.Min(ev.ShedMax, ev.ShedHi[j])
	}
	return ev.ShedMax
}

func (ev *LMPEvidence) curtMax(j int) float64 {
	if ev.CurtHi != nil {
		return math.Min(ev.CurtMax, ev.CurtHi[j])
	}
	return ev.CurtMax
}

// backstopRanges sets the per-bus backstop bounds ev.ShedHi, ev.CurtHi: for
// each bus with a shedding (curtailment) backstop, the largest σ_j (κ_j)
// over the primal part of the KKT relaxation (the market LP over d ∈ D with
// the tightened flow ranges, the cost row and the subgradient cuts), plus a
// 1e-6 relative margin. Every KKT point's dispatch is an optimal, hence
// feasible, point of that part, so each bound holds at every KKT point; the
// big-M of "σ_j > 0 ⇒ π_j = PriceCap" (and of the curtailment rule) then
// uses the bus's own bound instead of the system-wide ShedMax (CurtMax),
// which is sized for the whole network's load. At a leaf bus fed by one
// branch the bound is about the bus's load plus the branch's limit, often a
// hundredth of the system-wide one, and a fractional shedding or
// curtailment binary can no longer carry a large backstop in the
// relaxation. It returns the work spent (simplex iterations times the
// part's rows plus columns) and how many bounds are below half the
// system-wide one.
func (n *Network) backstopRanges(ctx context.Context, dom LoadDomain, rules MarketRules, hopt highs.Options, ev *LMPEvidence,
	piLo, piHi []float64, cuts []subgradientCut, vars []int) (float64, int, error) {
	k, err := n.buildKKT(dom, rules, ev, piLo, piHi, 1, cuts, vars)
	if err != nil {
		return 0, 0, err
	}
	pb, err := k.b.prefix(k.primalRows, k.primalCols)
	if err != nil {
		return 0, 0, err
	}
	topt := hopt
	topt.Presolve = "off"
	topt.Simplex = "primal"
	lp, err := buildMax(pb, topt)
	if err != nil {
		return 0, 0, err
	}
	defer lp.Close()
	nb := n.NumBuses()
	shed, curt := make([]float64, nb), make([]float64, nb)
	for j := range shed {
		shed[j], curt[j] = ev.ShedMax, ev.CurtMax
	}
	cost := make([]float64, len(pb.cost))
	size := float64(len(pb.cost) + len(pb.rlo))
	used, tighter := 0.0, 0
	for _, c := range []struct {
		cols []int
		out  []float64
		sys  float64
	}{{k.m.sigma, shed, ev.ShedMax}, {k.m.kappa, curt, ev.CurtMax}} {
		for j, col := range c.cols {
			if col < 0 {
				continue
			}
			cost[col] = 1
			err := lp.SetCosts(cost)
			cost[col] = 0
			if err != nil {
				return used, tighter, err
			}
			r, err := lp.Solve(ctx)
			if err != nil {
				return used, tighter, err
			}
			if err := ctx.Err(); err != nil {
				return used, tighter, err
			}
			used += float64(r.Iterations) * size
			if r.Status != solver.Optimal {
				continue
			}
			if v := math.Max(0, r.Objective); v+1e-6*(1+v) < c.out[j] {
				c.out[j] = v + 1e-6*(1+v)
				if c.out[j] < c.sys/2 {
					tighter++
				}
			}
		}
	}
	ev.ShedHi, ev.CurtHi = shed, curt
	return used, tighter, nil
}

// Bridge limits that only a backstop can reach. Let branch l be a bridge
// and S the buses of its side without the reference bus, with Σ_{j ∈ S} of
// the rows of Bbus equal to s times l's row of Bf (checked; s = +1 when l's
// end in S is its from end), so that the sum of S's balance rows fixes the
// flow out of S over l: outflow = Σ_S (P_j + σ_j − κ_j − d_j) + e_S, with
// e_S = s·Pfinj_l − Σ_S Pbusinj_j. When the limit into S exceeds the most S
// can withdraw without curtailment, u_in > Σ_S Hi_j − Σ_S ΣPmin_j − e_S, the
// inflow can be at u_in only with some κ_j > 0, j ∈ S, and at an optimum
// κ_j > 0 puts π_j at PriceFloor (complementary slackness with the
// curtailment's bounds). So every KKT point with the inflow at its limit
// admits that bus's curtailment binary e^κ_j = 1, and every KKT point admits
// binaries with z_in ≤ Σ_{j ∈ S} e^κ_j (z_in = 0 whenever the inflow is below
// its limit): the row is valid for the KKT program. The same holds out of
// S with shedding: u_out > Σ_S ΣPmax_j − Σ_S Lo_j + e_S gives
// z_out ≤ Σ_{j ∈ S} e^σ_j. With the rows, a large congestion dual on the
// bridge (which needs z near 1 in the relaxation) forces a backstop binary
// of S up, and with it that bus's price to the floor or the cap, instead of
// letting fractional binaries price S anywhere in between. A leaf bus is
// the case |S| = 1; leafSlack and bridgeSlack cover the sides whose other
// end has both backstops (the limits are then slack at an optimum), these
// rows also the sides hanging from a bus without backstops (on 300_ieee
// the transformer leaves of bus 9005 and the load pockets of bus 9001).

// bridgeSides returns, per branch, the buses of its side without the
// reference bus when it is a bridge (nil otherwise).
func (n *Network) bridgeSides(m *marketLP) [][]int {
	nb := n.NumBuses()
	adj := m.branchesAt()
	isRef := make([]bool, nb)
	for _, r := range n.RefBus {
		isRef[r] = true
	}
	isBridge := n.Bridges()
	sides := make([][]int, len(m.bfBus))
	seen := make([]int, nb)
	for j := range seen {
		seen[j] = -1
	}
	for l := range m.bfBus {
		if !isBridge[l] || len(m.bfBus[l]) != 2 {
			continue
		}
		for end := 0; end < 2; end++ {
			start := m.bfBus[l][end]
			stack, comp, hasRef := []int{start}, []int{start}, isRef[start]
			seen[start] = 2*l + end
			for len(stack) > 0 && !hasRef {
				j := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				for _, q := range adj[j] {
					if q == l {
						continue
					}
					for _, b := range m.bfBus[q] {
						if seen[b] != 2*l+end {
							seen[b] = 2*l + end
							stack, comp = append(stack, b), append(comp, b)
							hasRef = hasRef || isRef[b]
						}
					}
				}
			}
			if !hasRef {
				sides[l] = comp
				break
			}
		}
	}
	return sides
}

// bridgeCuts appends the rows z_in ≤ Σ_S e^κ_j and z_out ≤ Σ_S e^σ_j above to
// the KKT program k, with the pocket rows below.
func (n *Network) bridgeCuts(k *kktModel, piLo, piHi []float64, rules MarketRules) {
	m, b := k.m, k.b
	acc := map[int]float64{}
	adj := m.branchesAt()
	for l, side := range n.bridgeSides(m) {
		if side == nil || m.flow[l] < 0 {
			continue
		}
		in := make(map[int]bool, len(side))
		for _, j := range side {
			in[j] = true
		}
		end := 0
		if !in[m.bfBus[l][0]] {
			end = 1
		}
		s := 1.0
		if m.bfVal[l][end] < 0 {
			s = -1
		}
		// Σ_S rows of Bbus = s·(l's row of Bf)?
		clear(acc)
		var scale float64
		for _, j := range side {
			for t := n.Bbus.ColPtr[j]; t < n.Bbus.ColPtr[j+1]; t++ {
				acc[n.Bbus.RowIdx[t]] += n.Bbus.Val[t]
				scale = math.Max(scale, math.Abs(n.Bbus.Val[t]))
			}
		}
		for t, j := range m.bfBus[l] {
			acc[j] -= s * m.bfVal[l][t]
		}
		ok := true
		for _, v := range acc {
			ok = ok && math.Abs(v) <= 1e-9*math.Max(1, scale)
		}
		if !ok {
			continue
		}
		var shed, curt []int
		for _, j := range side {
			if k.shedE[j] >= 0 {
				shed = append(shed, k.shedE[j])
			}
			if k.curtE[j] >= 0 {
				curt = append(curt, k.curtE[j])
			}
		}
		pmin, pmax, lo, hi, pbus := n.pocketSideSums(m, side, in)
		e := s*n.Pfinj[l] - pbus
		// Out of S: FlowMax when S holds l's from end (s > 0).
		zOut, zIn, uOut, uIn := k.zUp[l], k.zLo[l], n.FlowMax[l], -n.FlowMin[l]
		if s < 0 {
			zOut, zIn, uOut, uIn = k.zLo[l], k.zUp[l], -n.FlowMin[l], n.FlowMax[l]
		}
		row := func(z int, es []int) {
			idx, val := []int{z}, []float64{1}
			for _, c := range es {
				idx, val = append(idx, c), append(val, -1)
			}
			b.row(math.Inf(-1), 0, idx, val)
		}
		needShed := zOut >= 0 && len(shed) > 0 && uOut > relUp(pmax-lo+e)
		needCurt := zIn >= 0 && len(curt) > 0 && uIn > relUp(hi-pmin-e)
		if needShed {
			row(zOut, shed)
		}
		if needCurt {
			row(zIn, curt)
		}
		if !needCurt && !needShed {
			continue
		}
		// Pocket rows (see above pocketInternals).
		zint, ok := n.pocketInternals(m, k, side, in, adj)
		if !ok {
			continue
		}
		C, F := rules.PriceCap, rules.PriceFloor
		for _, j := range side {
			pi := k.pi[j]
			if pi < 0 {
				continue
			}
			if w := piHi[j] - F; needCurt && w > 0 && !math.IsInf(w, 0) {
				// π_j + w·z_in − w·Σ z_int ≤ piHi_j
				idx, val := []int{pi, zIn}, []float64{1, w}
				for _, z := range zint {
					idx, val = append(idx, z), append(val, -w)
				}
				b.row(math.Inf(-1), piHi[j], idx, val)
			}
			if w := C - piLo[j]; needShed && w > 0 && !math.IsInf(w, 0) {
				// π_j − w·z_out + w·Σ z_int ≥ piLo_j
				idx, val := []int{pi, zOut}, []float64{1, -w}
				for _, z := range zint {
					idx, val = append(idx, z), append(val, w)
				}
				b.row(piLo[j], math.Inf(1), idx, val)
			}
		}
	}
}

// Pocket rows. Let S be the side of a bridge l (as for bridgeCuts) such
// that each bus's Bbus column is the sum of its branches' Bf rows (signed
// by the end; checked). Take a KKT point and set each branch binary to 1
// exactly when its flow is at that limit, each backstop binary to 1 exactly
// when the bus's price is at PriceFloor (curtailment) or PriceCap
// (shedding): an admissible assignment (a limit whose dual is fixed at 0
// has no binary and a zero dual anyway). If l is at its limit into S and no
// limit of a branch inside S is at its limit, every congestion dual inside
// S is 0, and the stationarity rows on S say that π is harmonic on S's
// internal branches at every bus but l's end in S; summing them over S
// shows that l's end is harmonic too. So π is constant on S (connected).
// The inflow at its limit needs some κ_j > 0 in S (bridgeCuts), so that
// price is PriceFloor, and so is every price in S:
//
//	π_j ≤ F + (PriceHi_j − F)·(1 − z_in + Σ_{q inside S} (z⁺_q + z⁻_q)),
//
// and out of S with shedding, π_j ≥ C − (C − PriceLo_j)·(1 − z_out + Σ …).
// In the relaxation a large dual on l (z_in near 1) then pulls every price
// of the pocket towards the floor, where the one row of bridgeCuts only
// asks the sum of the pocket's curtailment binaries to reach z_in.

// pocketInternals returns the binaries of the limits of the branches
// inside S, and false when a bus of S has a Bbus column that is not the sum
// of its branches' Bf rows.
func (n *Network) pocketInternals(m *marketLP, k *kktModel, side []int, in map[int]bool, adj [][]int) ([]int, bool) {
	var zint []int
	seen := map[int]bool{}
	acc := map[int]float64{}
	for _, j := range side {
		clear(acc)
		var scale float64
		for _, q := range adj[j] {
			for t, bj := range m.bfBus[q] {
				if bj != j {
					continue
				}
				sg := 1.0
				if m.bfVal[q][t] < 0 {
					sg = -1
				}
				for u, bu := range m.bfBus[q] {
					acc[bu] -= sg * m.bfVal[q][u]
				}
			}
			if seen[q] || len(m.bfBus[q]) != 2 || !in[m.bfBus[q][0]] || !in[m.bfBus[q][1]] {
				continue
			}
			seen[q] = true
			if m.flow[q] < 0 {
				continue
			}
			for _, z := range []int{k.zUp[q], k.zLo[q]} {
				if z >= 0 {
					zint = append(zint, z)
				}
			}
		}
		for t := n.Bbus.ColPtr[j]; t < n.Bbus.ColPtr[j+1]; t++ {
			acc[n.Bbus.RowIdx[t]] += n.Bbus.Val[t]
			scale = math.Max(scale, math.Abs(n.Bbus.Val[t]))
		}
		for _, v := range acc {
			if math.Abs(v) > 1e-9*math.Max(1, scale) {
				return nil, false
			}
		}
	}
	return zint, true
}

// branchesAt returns, per bus, the branches whose flow row has an entry at
// it (its in-service branches, but for the reference bus's θ).
func (m *marketLP) branchesAt() [][]int {
	adj := make([][]int, len(m.balance))
	for l := range m.bfBus {
		for _, j := range m.bfBus[l] {
			adj[j] = append(adj[j], l)
		}
	}
	return adj
}
