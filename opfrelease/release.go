package opfrelease

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"time"

	"github.com/privopt/privopt/chance"
	"github.com/privopt/privopt/grid"
	"github.com/privopt/privopt/model"
	"github.com/privopt/privopt/noise"
	"github.com/privopt/privopt/query"
	"github.com/privopt/privopt/solver"
)

// Options configure Prepare. Start from DefaultOptions: Validate rejects zero
// risk parameters instead of replacing them.
type Options struct {
	Query Query
	// Alpha: adjacent datasets differ in one bus load by at most Alpha MW.
	Alpha float64
	// Domain is the public box of bus demands (MW of Pd per internal bus; a
	// bus's shunt is part of the public network); nil means DefaultDomain
	// (the price-cap certificate with backstops at every bus). It must be
	// public: a band around the private loads is not a public domain.
	Domain *grid.LoadDomain
	// DomainSource says where Domain comes from (printed with the plan).
	DomainSource string
	// CostCertificate, when set, is a certificate of the cost's sensitivity
	// over Domain computed ahead ("certify once, release often":
	// grid.Network.CertifyCostBound, saved by `privopt certify` and loaded
	// with grid.LoadCostCertificate, which checks the network's and the
	// domain's digests); the plan uses it instead of certifying. Its α and
	// market rules must be the plan's. Nil: the plan certifies with
	// grid.Network.CertifyCostSensitivity (merit order or price cap).
	CostCertificate *grid.CostCertificate
	// LMPBound, when set (and CostCertificate is not), certifies the cost's
	// sensitivity with grid.Network.CertifyCostBound — merit order, a search
	// that shows a tight price cap, or the KKT MILP's proven bound on the
	// largest |LMP| over the domain — instead of the merit-order/price-cap
	// rule; it may take up to its time limit per MILP solve.
	// With Security it certifies the N-1 program with
	// grid.Network.CertifyN1LMPBound (screened post-contingency rows, then
	// the KKT bound; the price cap when that is not below it).
	LMPBound *grid.LMPBoundOptions
	// Rules are the price cap and floor of the market (backstops at every bus).
	Rules grid.MarketRules
	// PrivacySpec sets the noise: mechanism, ε and δ (query's one
	// privacy-spec type; query.ParseSpec parses the CLI's names).
	query.PrivacySpec
	// Method, Eta and Beta set the chance constraint (vertex, robust or
	// bonferroni; Eta and Beta in (0, 1), Beta used by vertex only).
	Method    chance.Method
	Eta, Beta float64
	// CVaRQ in (0, 1) minimizes the sample CVaR of the cost over the worst
	// fraction CVaRQ of CVaRSamples scenarios instead of the expected cost; the
	// released cost is then not the program's optimal value, so the cost query
	// needs a declared sensitivity.
	CVaRQ       float64
	CVaRSamples int
	// CostSegments replaces quadratic costs by a secant piecewise-linear cost
	// with that many segments per unit (the release is an LP value); the
	// overestimate bound is reported in Program.Substitutions.
	CostSegments int
	// DeclaredSensitivity > 0 replaces the certified sensitivity by the
	// caller's assumption (required for GenSubset and CVaR), labelled declared.
	DeclaredSensitivity float64
	// Formulation of the network in the program (Auto: PTDF with lazily
	// monitored limits, grid's rule otherwise).
	Formulation grid.Formulation
	// Limits selects how branch flow limits enter the private program:
	// LimitsAll writes every finite limit into it; LimitsLazy starts without
	// them and adds, solve by solve, the limits that either end of the noise
	// interval violates (see Program.solve); LimitsAuto (the zero value) is
	// lazy above grid.AutoPTDFMaxBuses buses. Both give the same optimal value
	// (the released statistic): the lazy program's optimum satisfies every
	// limit, so it is feasible, hence optimal, for the full program, whose
	// feasible set the lazy one contains.
	Limits grid.Limits
	// ChanceSeed seeds the samples of the uncertainty set (vertex) and CVaR;
	// 0 draws one from crypto/rand. The samples are data-independent and not
	// secret; Program.ChanceSeed reports the seed so adjacent datasets can be
	// solved on the same uncertainty set.
	ChanceSeed uint64
	// Security, when set, makes the program N-1 secure (see Security); the
	// sensitivity is then the price-cap bound.
	Security *Security
	// Solver solves the private program (nil: the automatic route, with
	// HiGHS's presolve off when limits are lazy).
	Solver   solver.Solver
	Settings solver.Settings

	// CertificateFile, when set, is a CERT.json written by `privopt certify`
	// (or the certificate of a saved plan, PlanFile.Open) for this network
	// and the plan's withdrawal domain (PublicNetwork.WithdrawalDomain: the
	// demand domain plus the public shunt withdrawals): checked by
	// grid.LoadCostCertificate against the plan's network (its piecewise-
	// linear costs) and that domain, its cost segments, N-1 flag, α and
	// market rules against the plan's, then used instead of certifying.
	CertificateFile *grid.CertificateFile
}

// DefaultOptions returns the paper's setting: cost query, α = 1 MW, no
// declared domain (DefaultDomain), default market rules, ε = 1 Laplace noise, vertex method with η = 1%,
// β = 10%, quadratic costs as 20 secant segments.
func DefaultOptions() Options {
	return Options{Alpha: 1, Rules: grid.DefaultMarketRules(),
		PrivacySpec: query.PrivacySpec{Mechanism: query.Laplace, Epsilon: 1},
		Method:      chance.Vertex, Eta: 0.01, Beta: 0.1, CVaRSamples: 1000, CostSegments: 20}
}

// Validate checks every option; it never substitutes a default.
func (o *Options) Validate() error {
	bad := func(name string, v any, must string) error {
		return fmt.Errorf("opfrelease: %s is %v, must be %s", name, v, must)
	}
	if !(o.Alpha > 0) || math.IsInf(o.Alpha, 0) {
		return bad("Alpha", o.Alpha, "> 0 and finite (MW)")
	}
	if err := o.Rules.Validate(); err != nil {
		return err
	}
	if err := o.PrivacySpec.Validate(); err != nil {
		return err
	}
	switch o.Method {
	case chance.Vertex, chance.Robust, chance.Bonferroni:
	default:
		return bad("Method", o.Method, "vertex, robust or bonferroni")
	}
	if o.Method != chance.Robust && !(o.Eta > 0 && o.Eta < 1) {
		return bad("Eta", o.Eta, "in (0, 1)")
	}
	if o.Method == chance.Vertex && !(o.Beta > 0 && o.Beta < 1) {
		return bad("Beta", o.Beta, "in (0, 1)")
	}
	if !(o.CVaRQ >= 0 && o.CVaRQ < 1) {
		return bad("CVaRQ", o.CVaRQ, "in [0, 1) (0: expected cost)")
	}
	if o.CVaRQ > 0 && o.CVaRSamples < 1 {
		return bad("CVaRSamples", o.CVaRSamples, "≥ 1")
	}
	if o.CostSegments < 1 || o.CostSegments > 10000 {
		return bad("CostSegments", o.CostSegments, "in [1, 10000]")
	}
	if sc := o.Security; sc != nil && (!(sc.PostFactor >= 0) || math.IsInf(sc.PostFactor, 0)) {
		return fmt.Errorf("opfrelease: Security has PostFactor %v; want PostFactor ≥ 0 and finite (0: 1)", sc.PostFactor)
	}
	if sc := o.Security; sc != nil && sc.MaxMemoryBytes < 0 {
		return fmt.Errorf("opfrelease: Security has MaxMemoryBytes %d; want ≥ 0 (0: no guard)", sc.MaxMemoryBytes)
	}
	if o.Limits < grid.LimitsAuto || o.Limits > grid.LimitsLazy {
		return bad("Limits", int(o.Limits), "grid.LimitsAuto, grid.LimitsAll or grid.LimitsLazy")
	}
	if o.Limits == grid.LimitsLazy && o.Method == chance.Bonferroni {
		return errors.New("opfrelease: Limits is lazy but Method is bonferroni, which splits η over the rows (adding a limit changes the others' quantiles, so the lazy program is not a relaxation); use vertex or robust, or grid.LimitsAll")
	}
	if !(o.DeclaredSensitivity >= 0) || math.IsInf(o.DeclaredSensitivity, 0) {
		return bad("DeclaredSensitivity", o.DeclaredSensitivity, "≥ 0 and finite (0: certified)")
	}
	if o.Query.Kind == GenSubset && o.DeclaredSensitivity == 0 {
		return errors.New("opfrelease: a gen-subset release has no certified sensitivity (LP dispatches are not unique: ties between equal-cost units swap output); declare one with DeclaredSensitivity, which every output labels assumed")
	}
	if o.Query.Kind == Cost && o.CVaRQ > 0 && o.DeclaredSensitivity == 0 {
		return errors.New("opfrelease: with a CVaR objective the released cost is not the program's optimal value, so the certified cost sensitivity does not apply; declare a sensitivity or use the expected cost (CVaRQ = 0)")
	}
	return nil
}

// Program is the private program of one release solved at one load vector
// (Plan.Solve, Plan.Release): PRIVATE. Its methods give diagnostics and
// evaluations that use the unperturbed data; none of them may be published.
type Program struct {
	*Plan
	// Timing is private: how long the solve takes depends on the loads.
	Timing Timing

	load   []float64 // withdrawals per bus (clamped demand + shunts)
	costC0 float64   // the cost's constant terms (public)
	opf    *grid.OPF
	can    *model.Canonical
	spec   query.Spec
	sol    *query.Solution
	// active marks the backstops the last solve left free (the others were
	// fixed at 0 and proven unnecessary by their reduced costs).
	active map[int]bool
	// cuts are the contingency cuts of the last solve.
	cuts []cut
	// lazy: flow limits are monitored lazily; monitored lists the branches
	// whose limits the last solve's program holds, and solves counts the
	// programs solved.
	lazy      bool
	solver    solver.Solver
	monitored []int
	solves    int
	warm      *solver.WarmStart // the solver state at the end of the last solve
	// route names the solver route (Plan.solveRobust); fallback is set when
	// every route failed and fixed holds the statistic it produced.
	route    string
	fallback string
	fixed    float64
}

// shiftPair names the shedding and curtailment units (priv generator
// indices) of one bus.
type shiftPair struct{ shed, curtail int }

// SkippedOutages returns the branches (Network indices) whose outage splits
// an island and which the N-1 constraints therefore skip (public: topology).
func (p *Plan) SkippedOutages() []int {
	if p.sec == nil {
		return nil
	}
	return append([]int(nil), p.sec.islanding...)
}

// Timing records how long a solve took (private: see Program.Timing).
type Timing struct {
	Solve time.Duration
}

// Construction (one pipeline: grid builds the model, query/chance perturb it).
// The network gets backstop units (Options.Rules) at the buses the public
// domain needs and, if it has quadratic costs, secant piecewise-linear costs;
// its DC-OPF is canonicalized and handed to query.Solve with the query (the
// cost: linear weights on dispatch and cost-epigraph columns, or a generator
// subset), the noise and the chance method. For one noise component on
// linear rows chance solves two copies of the OPF at the ends of the noise
// interval (chance's interval fast path).
//
// No data-dependent abort. The backstops (grid.Network.BackstopBuses) make the
// private program feasible for every load vector in the domain: serve every
// load from its bus's shedding unit and absorb every negative load and unit's
// minimum output at its own bus (zero flows), and raise the cost of the upper
// copy by any amount W with simultaneous shedding and absorption at one bus
// (the query row needs cost(x_hi) − cost(x_lo) = W). Loads outside the domain
// are clamped into it. (Phase shifters make constant flows; a case whose
// shifter flows alone exceed a rating fails the plan — it is public data.)
//
// Sensitivity. For the cost query with the expected-cost objective the
// program's optimal value is V(d) + θ·W with V the OPF cost with market rules
// and θ = −ζ_lo/W a data-independent constant (the lower copy is an optimal
// dispatch and the upper one adds waste), so the released statistic moves
// exactly as V does: grid.CertifyCostSensitivity bounds it over the public
// domain, plus twice the solver accuracy τ checked on every solve (primal–dual
// gap ≤ τ, re-solved along other routes otherwise).

// solverMargin is τ: a data-independent bound on the solver's error in the
// optimal value, 1e-8 times a bound on |V| over the domain (every load served
// at the largest allowed price plus every unit's cost range). Each solve's
// primal–dual gap is checked against it.
func (pr *Plan) solverMargin() float64 {
	var vb float64
	for i := range pr.certDom.Lo {
		vb += pr.opt.Rules.MaxPrice() * math.Max(math.Abs(pr.certDom.Lo[i]), math.Abs(pr.certDom.Hi[i]))
	}
	for g, gi := range pr.base.Gen {
		cst := &pr.base.Case.Costs[gi]
		vb += math.Abs(cst.Eval(pr.base.Pmin[g])) + math.Abs(cst.Eval(pr.base.Pmax[g]))
	}
	return 1e-8 * (1 + vb)
}

// sensitivity sets pr.sens: declared, or certified for the cost query over
// the public domain.
func (pr *Plan) sensitivity(ctx context.Context) error {
	opt := pr.opt
	if opt.DeclaredSensitivity > 0 {
		pr.sens = query.Sensitivity{Value: opt.DeclaredSensitivity, Norm: 1, Source: query.Declared}
		return nil
	}
	var cert *grid.CostCertificate
	if opt.CertificateFile != nil {
		var err error
		if cert, err = pr.checkCertificateFile(ctx, opt.CertificateFile); err != nil {
			return err
		}
	} else if c := opt.CostCertificate; c != nil {
		if c.Alpha != opt.Alpha || c.Rules != opt.Rules {
			return fmt.Errorf("opfrelease: the given certificate is for α = %g and rules %+v; the plan has α = %g and rules %+v", c.Alpha, c.Rules, opt.Alpha, opt.Rules)
		}
		if err := checkN1Certificate(c, opt.Security); err != nil {
			return err
		}
		for i, l := range pr.pub.net.Load {
			if l != 0 {
				return fmt.Errorf("opfrelease: bus %d has a shunt withdrawal of %g MW: a certificate computed over the demand domain does not cover it (certify in the plan instead)", pr.pub.net.BusID[i], l)
			}
		}
		cert = c
	} else if opt.LMPBound != nil && opt.Security == nil {
		var err error
		if cert, err = pr.base.CertifyCostBound(ctx, pr.certDom, opt.Alpha, opt.Rules, *opt.LMPBound); err != nil {
			return err
		}
	} else if opt.LMPBound != nil && opt.Security != nil {
		// The N-1 program's KKT bound over the screened post-contingency
		// rows (the price cap when it is not below it).
		var err error
		if cert, _, err = pr.base.CertifyN1LMPBound(ctx, pr.certDom, opt.Alpha, opt.Rules, grid.N1BoundOptions{PostFactor: opt.Security.PostFactor, Bound: *opt.LMPBound}); err != nil {
			return err
		}
	} else if opt.Security != nil {
		// Contingency limits: only the price-cap repair bound applies.
		cert = &grid.CostCertificate{Method: "price-cap", Alpha: opt.Alpha, PerMW: opt.Rules.MaxPrice(), Rules: opt.Rules,
			Reason: "N-1 security constraints (the merit-order bound ignores contingencies)"}
		cert.Bound = opt.Alpha * cert.PerMW
	} else {
		var err error
		if cert, err = pr.base.CertifyCostSensitivity(pr.certDom, opt.Alpha, opt.Rules); err != nil {
			return err
		}
	}
	pr.costCert = cert
	qc, err := queryCertificate(cert, pr.dom, pr.pub.net, 2*pr.tau)
	if err != nil {
		return err
	}
	pr.sens = query.Sensitivity{Value: qc.Bound, Norm: 1, Source: query.Certified, Certificate: qc}
	return nil
}

// build builds the OPF of the private network at the given loads (nil: the
// network's) and the query spec; with lazy limits only the limits of the
// monitored branches mon are written (PTDF rows unless a formulation is set).
func (pr *Program) build(ctx context.Context, load []float64, active map[int]bool, mon []int, cuts []cut) error {
	opt := pr.opt
	if load == nil {
		load = pr.load
	}
	oo := grid.OPFOptions{Formulation: pr.formulation, Load: load, Solve: model.SolveOptions{Settings: opt.Settings}}
	if pr.lazy {
		oo.OmitFlowLimits = true
		if oo.Formulation == grid.Auto {
			oo.Formulation = grid.PTDF
		}
	}
	o, err := pr.priv.BuildOPF(oo)
	if err != nil {
		return err
	}
	for _, l := range mon {
		if err := o.AddFlowLimit([]int{l}, []float64{1}, pr.priv.FlowMin[l], pr.priv.FlowMax[l], fmt.Sprintf("lazy_flow_%d", l)); err != nil {
			return fmt.Errorf("opfrelease: monitored limit: %w", err)
		}
	}
	if active != nil { // fix the inactive backstops at 0
		lo, hi := append([]float64(nil), pr.priv.Pmin...), append([]float64(nil), pr.priv.Pmax...)
		for _, g := range pr.backstops {
			if !active[g] {
				lo[g], hi[g] = 0, 0
			}
		}
		o.P.SetBounds(lo, hi)
	}
	if err := pr.addCuts(o, cuts); err != nil {
		return err
	}
	can, err := o.Model.Canonicalize()
	if err != nil {
		return fmt.Errorf("opfrelease: %w", err)
	}
	pr.opf, pr.can = o, can
	_, c1, c0, _ := pr.priv.CostCoefficients()
	pr.costC0 = c0
	var cols []int
	var w []float64
	switch opt.Query.Kind {
	case Cost:
		for g := range c1 {
			if c1[g] != 0 {
				cols, w = append(cols, o.P.Col(g)), append(w, c1[g])
			}
		}
		if o.T != nil {
			for k := 0; k < o.T.Len(); k++ {
				cols, w = append(cols, o.T.Col(k)), append(w, 1)
			}
		}
	case GenSubset:
		pos := map[int]int{}
		for g, gi := range pr.priv.Gen {
			pos[gi] = g
		}
		for _, gi := range opt.Query.Gens {
			g, ok := pos[gi]
			if !ok || gi >= len(pr.pub.net.Case.Gens) {
				return fmt.Errorf("opfrelease: gen-subset query: generator %d is not an in-service generator (mpc.gen has %d rows)", gi+1, len(pr.pub.net.Case.Gens))
			}
			cols, w = append(cols, o.P.Col(g)), append(w, 1)
		}
	}
	spec := query.Spec{
		Query:    query.WeightedSum(cols, w),
		Privacy:  pr.privacy,
		Chance:   chance.Spec{Approximation: chance.Approximation{Method: opt.Method, Eta: opt.Eta, Beta: opt.Beta}},
		Settings: opt.Settings,
		Solver:   pr.solver,
	}
	if opt.Method == chance.Robust {
		spec.Chance.Eta, spec.Chance.Beta = 0, 0
	}
	if opt.CVaRQ > 0 {
		spec.Chance.CVaR = &chance.CVaR{Alpha: 1 - opt.CVaRQ, Samples: opt.CVaRSamples, Weight: 1}
	}
	if opt.Query.Kind == Cost && pr.shift != nil {
		spec.Chance.Upper = pr.upperCopy(o, c1)
	}
	pr.spec = spec
	return ctx.Err()
}

// solve builds and solves the private program at the given loads (nil: the
// network's) with the uncertainty set of ChanceSeed, and checks the solver's
// accuracy against the margin in the sensitivity.
//
// Lazy backstops. The backstop units are first fixed at 0 (most are never
// needed, and 2·buses extra columns triple the B-θ LP time on 2,383 buses;
// with lazy PTDF limits a fixed unit's column is as large as a free one's,
// so there they are all free from the start). The
// solution is then optimal for the program with backstops iff each fixed
// unit's reduced cost r_j = q_j + Σ A_rj y_r (over the rows other than its
// bound rows, with the solve's duals y) has the sign that keeps it at its
// bound 0: r_j ≥ 0 for shedding (0 is its lower bound), r_j ≤ 0 for
// curtailment (0 is its upper bound) — then the bound rows' duals close
// stationarity with complementary slackness. Units that fail the test are
// freed and the program is solved again (all of them after three rounds, or
// at once if the restricted program is infeasible, or when the first N-1
// contingency cuts are added), so the optimal value is that of the full
// program.
//
// Lazy limits (Options.Limits). The program starts with the limits of the
// branches the previous solve monitored (none at first) and, once the
// backstops are settled, the branch flows of both ends of the decision rule,
// x̄ + lo·X and x̄ + hi·X, are checked against every limit; the violated
// limits are added and the program solved again. Flows are affine in ζ, so
// the two ends cover the whole interval, and the final program's optimum is
// feasible for the program with every limit, hence optimal for it (it is a
// relaxation): the same optimal value, the released statistic, as with
// LimitsAll.
func (pr *Program) solve(ctx context.Context, load []float64) (*query.Solution, error) {
	if load == nil {
		load = pr.load
	}
	active := map[int]bool{}
	if f := pr.formulation; fullBackstops || (pr.lazy && (f == grid.Auto || f == grid.PTDF)) {
		// With lazy PTDF limits (rows over every unit) a fixed backstop is as
		// large a column as a free one: free them all from the start.
		pr.activateAll(active)
	}
	for g := range pr.seedActive {
		active[g] = true
	}
	cuts := append([]cut(nil), pr.seedCuts...)
	have := map[cut]bool{}
	for _, c := range cuts {
		have[c] = true
	}
	cutRounds := 0
	started := time.Now()
	mon := append([]int(nil), pr.monitored...)
	monitored := map[int]bool{}
	for _, l := range mon {
		monitored[l] = true
	}
	solves, backstopRounds := 0, 0
	if pr.shift != nil { // the upper copy's shift units stay free (data-independent)
		active[pr.shift.shed], active[pr.shift.curtail] = true, true
	}
	// One warm start for this loop: each round restarts HiGHS's simplex
	// from the previous round's basis (solver.WarmStart), the first from
	// the final basis of the plan's public midpoint program (seedWarm).
	// It is a copy, so the solve path depends on the plan and this
	// program's rounds only, never on another release.
	warm := pr.seedWarm.Clone()
	if coldSolves {
		warm = nil
	}
	for {
		all := len(active) == len(pr.backstops)
		if err := pr.build(ctx, load, active, mon, cuts); err != nil {
			return nil, err
		}
		solves++
		spec := pr.spec
		spec.Settings.Warm = warm
		spec.Chance.Rand = rand.New(rand.NewPCG(pr.ChanceSeed, 0x9e3779b97f4a7c15))
		sol, err := query.Solve(ctx, pr.can.Problem, spec)
		if err != nil && !all && ctx.Err() == nil {
			pr.activateAll(active)
			continue
		}
		if err != nil {
			if errors.Is(err, query.ErrPrivacyInfeasible) {
				return nil, fmt.Errorf("opfrelease: the private program is infeasible although the market rules make it feasible for every load (a numerical failure): %w", err)
			}
			return nil, fmt.Errorf("opfrelease: solving the private program: %w", err)
		}
		// Backstops and limits are checked on the same solution and added
		// together: both only add constraints or columns of the full program.
		again := false
		if !all {
			viol := pr.backstopViolations(sol, active)
			if viol == nil && sol.Counterpart.BaseColumns(0) == nil {
				pr.activateAll(active) // general path: no column map, solve in full
				continue
			}
			if len(viol) > 0 {
				if backstopRounds++; backstopRounds >= 3 {
					pr.activateAll(active)
				}
				for _, g := range viol {
					active[g] = true
				}
				again = true
			}
		}
		if pr.lazy {
			if more := pr.limitViolations(sol, load, monitored); len(more) > 0 {
				for _, l := range more {
					monitored[l] = true
				}
				mon = append(mon, more...)
				again = true
			}
		}
		if again {
			continue
		}
		if pr.sec != nil {
			more, _ := pr.contingencyViolations(sol, load, have)
			if len(more) > 0 {
				// Every round adds at least one new cut from a finite set
				// (monitored branch × outage × copy): the loop ends without
				// a round limit (a limit would be a data-dependent refusal).
				cutRounds++
				if !all {
					// Contingency cuts while backstops are still fixed:
					// free them all now. At post-factor 1 the restricted
					// program with cuts is infeasible (no PGLib case is N-1
					// securable at its normal ratings without shedding),
					// and proving it cost 2–7 s on 2383wp_k (HiGHS's
					// infeasibility certificate) before the same step.
					pr.activateAll(active)
				}
				for _, c := range more {
					have[c] = true
				}
				cuts = append(cuts, more...)
				if pr.progress != nil { // the plan's public midpoint solve only
					fmt.Fprintf(pr.progress, "N-1 plan (public midpoint solve): cut round %d: +%d cuts, %d in total, %.1f s\n", cutRounds, len(more), len(cuts), time.Since(started).Seconds())
				}
				continue
			}
		}
		if pr.costCert != nil {
			s := sol.Solver
			if gap := math.Abs(s.Objective - s.DualObjective); !(gap <= pr.tau) {
				// No value in the text: the gap depends on the loads.
				return nil, errors.New("opfrelease: the solver's primal–dual gap exceeds the accuracy target τ built into the certified sensitivity")
			}
		}
		pr.active, pr.cuts, pr.monitored, pr.solves, pr.warm = active, cuts, mon, solves, warm
		return sol, nil
	}
}

// shiftUnits returns the shedding and curtailment units of the first bus (by
// index: a data-independent choice) that has both, or nil.
func (pr *Plan) shiftUnits() *shiftPair {
	shed, curt := map[int]int{}, map[int]int{}
	for _, g := range pr.backstops {
		if pr.priv.Pmax[g] > 0 {
			shed[pr.priv.GenBus[g]] = g
		} else {
			curt[pr.priv.GenBus[g]] = g
		}
	}
	best := -1
	for b := range shed {
		if _, ok := curt[b]; ok && (best < 0 || b < best) {
			best = b
		}
	}
	if best < 0 {
		return nil
	}
	return &shiftPair{shed: shed[best], curtail: curt[best]}
}

// upperCopy returns chance.Spec.Upper for the cost query: the upper end of
// the noise interval needs a dispatch whose cost exceeds the lower copy's by
// d, and shedding s = d/(PriceCap − PriceFloor) MW more while absorbing s MW
// more at the same bus does exactly that with every injection, hence every
// flow, unchanged (Prepare's feasibility argument). chance checks the
// proposal and solves the upper copy instead when it fails.
func (pr *Program) upperCopy(o *grid.OPF, c1 []float64) func(xLo []float64, d float64) []float64 {
	sh, cu := pr.shift.shed, pr.shift.curtail
	cs, cc := o.P.Col(sh), o.P.Col(cu)
	slope := c1[sh] - c1[cu]
	return func(xLo []float64, d float64) []float64 {
		if !(slope > 0) || !(d > 0) || cs >= len(xLo) || cc >= len(xLo) {
			return nil
		}
		s := d / slope
		x := xLo
		x[cs] += s
		x[cc] -= s
		return x
	}
}

// limitViolations returns the unmonitored branches whose flow violates a
// limit at either end of the decision rule (tolerance 1e-6·max(1, |limit|)
// MW, SolveDCOPF's default).
func (pr *Program) limitViolations(sol *query.Solution, load []float64, monitored map[int]bool) []int {
	n := pr.priv
	box := sol.Counterpart.Guarantee.Box
	seen := map[int]bool{}
	var out []int
	for _, z := range []float64{box[0].Lo, box[0].Hi} {
		x := sol.Rule.Apply(nil, []float64{z})
		for l, f := range flows(n, pr.dispatch(x), load) {
			if monitored[l] || seen[l] {
				continue
			}
			hi, lo := n.FlowMax[l], n.FlowMin[l]
			if f > hi+1e-6*math.Max(1, math.Abs(hi)) || f < lo-1e-6*math.Max(1, math.Abs(lo)) {
				seen[l] = true
				out = append(out, l)
			}
		}
	}
	sort.Ints(out)
	return out
}

// dispatch extracts the generator outputs (priv indices) from a point x of
// the canonical program.
func (pr *Program) dispatch(x []float64) []float64 {
	p := make([]float64, pr.priv.NumGens())
	for g := range p {
		p[g] = x[pr.opf.P.Col(g)]
	}
	return p
}

// fullBackstops disables the lazy backstops (tests compare both).
var fullBackstops bool

// coldSolves disables the warm starts of the solve loop (tests compare both).
var coldSolves bool

func (pr *Plan) activateAll(active map[int]bool) {
	for _, g := range pr.backstops {
		active[g] = true
	}
}

// backstopViolations returns the fixed backstops whose reduced cost could
// improve the objective (see solve); nil with a general-path counterpart.
func (pr *Program) backstopViolations(sol *query.Solution, active map[int]bool) []int {
	cp := sol.Counterpart
	if cp.BaseColumns(0) == nil {
		return nil
	}
	a, q, y := cp.Problem.A, cp.Problem.Q, sol.Solver.Y
	rowNnz := make([]int, cp.Problem.NumRows())
	for _, r := range a.RowIdx {
		rowNnz[r]++
	}
	var viol []int
	for _, g := range pr.backstops {
		if active[g] {
			continue
		}
		shed := pr.priv.Pmax[g] > 0
		for _, c := range cp.BaseColumns(pr.opf.P.Col(g)) {
			r := q[c]
			for t := a.ColPtr[c]; t < a.ColPtr[c+1]; t++ {
				if row := a.RowIdx[t]; rowNnz[row] > 1 {
					r += a.Val[t] * y[row]
				}
			}
			tol := 1e-7 * math.Max(1, math.Abs(q[c]))
			if (shed && r < -tol) || (!shed && r > tol) {
				viol = append(viol, g)
				break
			}
		}
	}
	return viol
}

// statistic returns the pre-noise released statistic Q x̄* (+ the cost's
// constant terms), or the fallback's value.
func (pr *Program) statistic() float64 {
	if pr.sol == nil {
		return pr.fixed
	}
	v := pr.sol.QueryMean[0]
	if pr.opt.Query.Kind == Cost {
		v += pr.costC0 // a public constant
	}
	return v
}

// feasibleAt reports whether the dispatch x̄* + X*ζ behind a release with
// noise ζ satisfies every constraint (tolerance 1e-7 relative; with lazy
// limits also every branch limit, tolerance 1e-6·max(1, |limit|) MW).
func (pr *Program) feasibleAt(zeta float64) bool {
	x := pr.sol.Rule.Apply(nil, []float64{zeta})
	ok := query.Feasible(pr.can.Problem, x, 1e-7, nil)
	if pr.lazy {
		n := pr.priv
		for l, f := range flows(n, pr.dispatch(x), pr.load) {
			hi, lo := n.FlowMax[l], n.FlowMin[l]
			if f > hi+1e-6*math.Max(1, math.Abs(hi)) || f < lo-1e-6*math.Max(1, math.Abs(lo)) {
				ok = false
			}
		}
	}
	return ok
}

// Diagnostics are private values about a solved Program: the pre-noise
// statistic, the nominal cost and the noise interval. They depend on the
// data without noise and must not be published.
type Diagnostics struct {
	NominalCost   float64 // DC-OPF cost at the (clamped) loads without market rules (quadratic costs exact), $/h
	ExpectedValue float64 // the released statistic without noise
	ExpectedCost  float64 // E[cost] of the decision rule, $/h
	ZetaLo        float64 // the noise interval enforced
	ZetaHi        float64
	// Solves counts the programs solved (lazy backstops, limits and cuts);
	// MonitoredLimits the branch limits its final program holds with lazy
	// limits (0 with LimitsAll, which holds all of them).
	Solves          int
	MonitoredLimits int
	// SecurityCuts is the number of N-1 contingency cuts the final program
	// holds (0 without Options.Security): it depends on the loads.
	SecurityCuts int
	Status       string
}

// Diagnostics computes the private diagnostics (it solves the nominal OPF).
func (pr *Program) Diagnostics(ctx context.Context) (*Diagnostics, error) {
	if pr.sol == nil {
		return nil, fmt.Errorf("opfrelease: no solved program (fallback: %s)", pr.fallback)
	}
	d := &Diagnostics{ExpectedValue: pr.statistic(), Status: pr.sol.Solver.Status.String()}
	d.ExpectedCost = pr.sol.Objective
	if b := pr.sol.Counterpart.Guarantee.Box; len(b) == 1 {
		d.ZetaLo, d.ZetaHi = b[0].Lo, b[0].Hi
	}
	o, err := pr.pub.net.BuildOPF(grid.OPFOptions{Formulation: pr.opt.Formulation, Load: pr.load})
	if err != nil {
		return nil, err
	}
	ns, err := o.Solve(ctx)
	if err != nil {
		return nil, err
	}
	d.NominalCost = ns.Cost
	d.Solves, d.MonitoredLimits, d.SecurityCuts = pr.solves, len(pr.monitored), len(pr.cuts)
	return d, nil
}

// ReleasedMeanAt re-solves the private program at other loads on the same
// uncertainty set and returns the pre-noise statistic. It is a private
// diagnostic for audits and tests (adjacent-dataset searches, plots of the
// released densities); it spends no privacy and must not be published.
func (pr *Program) ReleasedMeanAt(ctx context.Context, loads Loads) (float64, error) {
	prog, err := pr.Plan.Solve(ctx, loads)
	if err != nil {
		return 0, err
	}
	return prog.statistic(), nil
}

// Noise returns the calibrated noise mechanism of the plan.
func (p *Plan) NoiseMechanism() *noise.Mechanism { return p.mech }

// Privacy returns the privacy specification of the plan.
func (p *Plan) Privacy() query.Privacy { return p.privacy }

// Options returns the options the plan was made with.
func (p *Plan) Options() Options { return p.opt }

// LoadDomain returns the public demand domain of the plan.
func (p *Plan) LoadDomain() grid.LoadDomain { return p.dom }

// Public returns the plan's public network.
func (p *Plan) Public() *PublicNetwork { return p.pub }

// Problem returns the canonical base problem (the OPF with backstops and
// piecewise-linear costs) and the query spec used: for evaluations.
func (pr *Program) Problem() (*solver.Problem, query.Spec) { return pr.can.Problem, pr.spec }

// Solution returns the solved program perturbation (private).
func (pr *Program) Solution() *query.Solution { return pr.sol }
