package opfrelease

import (
	"context"
	crand "crypto/rand"
	"encoding/binary"
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
	"github.com/privopt/privopt/solver/auto"
	"github.com/privopt/privopt/solver/highs"
	"github.com/privopt/privopt/solver/ipm"
)

// Options configure Prepare. Start from DefaultOptions: Validate rejects zero
// risk parameters instead of replacing them.
type Options struct {
	Query Query
	// Alpha: adjacent datasets differ in one bus load by at most Alpha MW.
	Alpha float64
	// Domain is the declared (public) box of bus loads; nil means the band
	// ±Band·|load| around the case's loads (grid.Network.LoadBand).
	Domain *grid.LoadDomain
	Band   float64
	// Rules are the price cap and floor of the market (backstops at every bus).
	Rules grid.MarketRules
	// Epsilon, Delta and Noise (a query.ParseMechanism name) set the noise.
	Epsilon, Delta float64
	Noise          string
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
}

// DefaultOptions returns the paper's setting: cost query, α = 1 MW, ±10% load
// band, default market rules, ε = 1 Laplace noise, vertex method with η = 1%,
// β = 10%, quadratic costs as 20 secant segments.
func DefaultOptions() Options {
	return Options{Alpha: 1, Band: 0.1, Rules: grid.DefaultMarketRules(), Epsilon: 1, Noise: "laplace",
		Method: chance.Vertex, Eta: 0.01, Beta: 0.1, CVaRSamples: 1000, CostSegments: 20}
}

// Validate checks every option; it never substitutes a default.
func (o *Options) Validate() error {
	bad := func(name string, v any, must string) error {
		return fmt.Errorf("opfrelease: %s is %v, must be %s", name, v, must)
	}
	if !(o.Alpha > 0) || math.IsInf(o.Alpha, 0) {
		return bad("Alpha", o.Alpha, "> 0 and finite (MW)")
	}
	if o.Domain == nil && !(o.Band >= 0 && o.Band <= 10) {
		return bad("Band", o.Band, "in [0, 10]")
	}
	if err := o.Rules.Validate(); err != nil {
		return err
	}
	if _, err := query.ParseMechanism(o.Noise); err != nil {
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
	if sc := o.Security; sc != nil && (!(sc.PostFactor >= 0) || math.IsInf(sc.PostFactor, 0) || sc.MaxRounds < 0) {
		return fmt.Errorf("opfrelease: Security has PostFactor %v and MaxRounds %d; want PostFactor ≥ 0 and finite (0: 1) and MaxRounds ≥ 0", sc.PostFactor, sc.MaxRounds)
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

// Program is a solved private dispatch program, ready to release. It holds
// private data: only Release's result and the public fields documented as
// such may be published.
type Program struct {
	// Public: the options, the declared domain, the sensitivity with its
	// provenance and certificate, what was substituted, and the chance seed.
	Options       Options
	Domain        grid.LoadDomain
	Sensitivity   query.Sensitivity
	CostCert      *grid.CostCertificate // cost query, certified
	Substitutions []string
	ChanceSeed    uint64
	// Timing is private: how long the solve takes depends on the loads
	// (lazy rounds, solver iterations). Report it with the diagnostics only.
	Timing Timing

	net     *grid.Network // the user's network
	base    *grid.Network // piecewise-linear costs, no backstops (certification)
	priv    *grid.Network // with backstops: the released program's network
	costC0  float64
	weights map[int]float64 // generator (priv index) → query weight on p
	tcols   bool            // the cost query also weighs the PWL epigraph
	privacy query.Privacy
	spec    query.Spec
	opf     *grid.OPF
	can     *model.Canonical
	sol     *query.Solution
	last    *Release
	// backstops are the priv generator indices of the backstop units; active
	// marks those the last solve left free (the others were fixed at 0 and
	// proven unnecessary by their reduced costs).
	backstops []int
	active    map[int]bool
	// sec holds the N-1 outages and LODFs (Options.Security); cuts the
	// contingency cuts of the last solve.
	sec  *securityState
	cuts []cut
	// lazy: flow limits are monitored lazily (Options.Limits); monitored
	// lists the branches whose limits the last solve's program holds, and
	// solves counts the programs solved by the last solve (private: which
	// limits bind depends on the loads).
	lazy      bool
	solver    solver.Solver // Options.Solver, or the lazy route's default
	monitored []int
	solves    int
	// shift is the pair of backstops at one bus that moves the lower copy's
	// dispatch to an upper copy (Prepare's feasibility argument); nil when no
	// bus has both.
	shift *shiftPair
}

// shiftPair names the shedding and curtailment units (priv generator
// indices) of one bus.
type shiftPair struct{ shed, curtail int }

// SkippedOutages returns the branches (Network indices) whose outage splits
// an island and which the N-1 constraints therefore skip (public: topology).
func (pr *Program) SkippedOutages() []int {
	if pr.sec == nil {
		return nil
	}
	return append([]int(nil), pr.sec.islanding...)
}

// Timing records where Prepare's time went (private: see Program.Timing).
type Timing struct {
	Certify, Build, Solve, Total time.Duration
}

// Release is one published value with its record. Everything in it may be
// published.
type Release struct {
	Value  float64 // the released statistic ($/h for cost, MW for gen-subset)
	Unit   string
	Record query.Record
	zeta   float64
}

// Prepare builds the private program for the network's loads, certifies the
// sensitivity over the declared domain, and solves it; it draws no noise.
//
// Construction (one pipeline: grid builds the model, query/chance perturb it).
// The network gets backstop units at every bus (Options.Rules) and, if it has
// quadratic costs, secant piecewise-linear costs; its DC-OPF is canonicalized
// and handed to query.Solve with the query (the cost: linear weights on
// dispatch and cost-epigraph columns, or a generator subset), the noise and
// the chance method. For one noise component on linear rows chance solves two
// copies of the OPF at the ends of the noise interval (chance's interval fast
// path).
//
// No data-dependent abort. The backstops (grid.Network.BackstopBuses) make the
// private program feasible for every load vector in the domain: serve every
// load from its bus's shedding unit and absorb every negative load and unit's
// minimum output at its own bus (zero flows), and raise the cost of the upper
// copy by any amount W with simultaneous shedding and absorption at one bus
// (the query row needs cost(x_hi) − cost(x_lo) = W). (Phase shifters make
// constant flows; a case whose shifter flows alone exceed a rating is refused
// before any noise is drawn — it is public data.)
// So the only data-dependent refusal left is a numerical failure of the solver.
//
// Sensitivity. For the cost query with the expected-cost objective the
// program's optimal value is V(d) + θ·W with V the OPF cost with market rules
// and θ = −ζ_lo/W a data-independent constant (the lower copy is an optimal
// dispatch and the upper one adds waste), so the released statistic moves
// exactly as V does: grid.CertifyCostSensitivity bounds it, plus twice the
// solver accuracy τ checked on every solve (primal–dual gap ≤ τ).
func Prepare(ctx context.Context, net *grid.Network, opt Options) (*Program, error) {
	t0 := time.Now()
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	pr := &Program{Options: opt, net: net}
	if opt.Domain != nil {
		if err := opt.Domain.Validate(net); err != nil {
			return nil, err
		}
		pr.Domain = *opt.Domain
	} else {
		d, err := net.LoadBand(opt.Band)
		if err != nil {
			return nil, err
		}
		pr.Domain = d
	}
	if !pr.Domain.Contains(net.Load) {
		return nil, errors.New("opfrelease: the network's loads lie outside the declared domain")
	}
	// Costs: piecewise linear for the LP.
	c := net.Case
	pw, maxErr, err := c.PiecewiseCosts(opt.CostSegments)
	if err != nil {
		return nil, err
	}
	if maxErr > 0 {
		pr.Substitutions = append(pr.Substitutions, fmt.Sprintf("quadratic costs replaced by %d-segment secant piecewise-linear costs (overestimate ≤ %.4g $/h in total)", opt.CostSegments, maxErr))
	}
	if pr.base, err = grid.NewNetwork(pw, net.Options); err != nil {
		return nil, err
	}
	capacity := 1000.0
	for i := range pr.Domain.Lo {
		capacity += 2 * math.Max(math.Abs(pr.Domain.Lo[i]), math.Abs(pr.Domain.Hi[i]))
	}
	for g := range net.Pmin {
		capacity += 2 * (math.Abs(net.Pmin[g]) + math.Abs(net.Pmax[g]))
	}
	shed, curtail := pr.base.BackstopBuses(pr.Domain)
	bc, first, err := pw.WithBackstops(opt.Rules, capacity, shed, curtail)
	if err != nil {
		return nil, err
	}
	if pr.priv, err = grid.NewNetwork(bc, net.Options); err != nil {
		return nil, err
	}
	for g, gi := range pr.priv.Gen {
		if gi >= first {
			pr.backstops = append(pr.backstops, g)
		}
	}
	pr.Substitutions = append(pr.Substitutions, fmt.Sprintf("market rules: load shedding at %g $/MWh at %d buses and curtailment at %g $/MWh at %d buses", opt.Rules.PriceCap, len(shed), opt.Rules.PriceFloor, len(curtail)))

	if opt.Security != nil {
		pr.initSecurity()
	}
	pr.shift = pr.shiftUnits()
	switch opt.Limits {
	case grid.LimitsLazy:
		pr.lazy = true
	case grid.LimitsAuto:
		pr.lazy = pr.priv.NumBuses() > grid.AutoPTDFMaxBuses && opt.Method != chance.Bonferroni
	}
	if pr.solver = opt.Solver; pr.solver == nil && pr.lazy {
		// Lazy PTDF programs: HiGHS with presolve off, as grid.AutoStrategy
		// picks for lazy PTDF LPs (its presolve costs more than it saves on
		// a model of few dense rows; 10000_goc: 0.3–0.4 s per solve against
		// 0.5–1.3 s with presolve, BENCHMARKS.md "Market-scale certified
		// releases (round 2)"), with the automatic route's fallback to the
		// interior-point backend.
		h, err := highs.NewWithOptions(highs.Options{Presolve: "off"})
		if err != nil {
			return nil, fmt.Errorf("opfrelease: %w", err)
		}
		if pr.solver, err = auto.NewWith(h, ipm.New()); err != nil {
			return nil, fmt.Errorf("opfrelease: %w", err)
		}
	}
	// Sensitivity.
	tc := time.Now()
	if err := pr.sensitivity(); err != nil {
		return nil, err
	}
	pr.Timing.Certify = time.Since(tc)
	mech, err := query.ParseMechanism(opt.Noise)
	if err != nil {
		return nil, err
	}
	if mech == query.Gaussian || mech == query.AnalyticGaussian {
		// The released statistic is a scalar: its ℓ1 and ℓ2 sensitivities coincide.
		pr.Sensitivity.Norm = 2
	}
	pr.privacy = query.Privacy{Mechanism: mech, Epsilon: opt.Epsilon, Delta: opt.Delta, Sensitivity: pr.Sensitivity}
	if pr.ChanceSeed = opt.ChanceSeed; pr.ChanceSeed == 0 {
		var b [8]byte
		if _, err := crand.Read(b[:]); err != nil {
			return nil, fmt.Errorf("opfrelease: seeding the uncertainty set: %w", err)
		}
		pr.ChanceSeed = binary.LittleEndian.Uint64(b[:]) | 1
	}
	ts := time.Now()
	sol, err := pr.solve(ctx, nil)
	if err != nil {
		return nil, err
	}
	pr.sol = sol
	pr.Timing.Solve = time.Since(ts)
	if pr.sec != nil {
		// The number of cuts depends on the loads: it is a private
		// diagnostic (Diagnostics.SecurityCuts); the islanding outages
		// depend on the topology only.
		pr.Substitutions = append(pr.Substitutions, fmt.Sprintf("N-1 security: contingency cuts generated lazily; %d islanding outages skipped", len(pr.sec.islanding)))
	}
	pr.Timing.Total = time.Since(t0)
	return pr, nil
}

// solverMargin is τ: a data-independent bound on the solver's error in the
// optimal value, 1e-8 times a bound on |V| over the domain (every load served
// at the largest allowed price plus every unit's cost range). Each solve's
// primal–dual gap is checked against it.
func (pr *Program) solverMargin() float64 {
	var vb float64
	for i := range pr.Domain.Lo {
		vb += pr.Options.Rules.MaxPrice() * math.Max(math.Abs(pr.Domain.Lo[i]), math.Abs(pr.Domain.Hi[i]))
	}
	for g, gi := range pr.base.Gen {
		cst := &pr.base.Case.Costs[gi]
		vb += math.Abs(cst.Eval(pr.base.Pmin[g])) + math.Abs(cst.Eval(pr.base.Pmax[g]))
	}
	return 1e-8 * (1 + vb)
}

// sensitivity sets pr.Sensitivity: declared, or certified for the cost query.
func (pr *Program) sensitivity() error {
	opt := pr.Options
	if opt.DeclaredSensitivity > 0 {
		pr.Sensitivity = query.Sensitivity{Value: opt.DeclaredSensitivity, Norm: 1, Source: query.Declared}
		return nil
	}
	var cert *grid.CostCertificate
	if opt.Security != nil {
		// Contingency limits: only the price-cap repair bound applies.
		cert = &grid.CostCertificate{Method: "price-cap", Alpha: opt.Alpha, PerMW: opt.Rules.MaxPrice(), Rules: opt.Rules,
			Reason: "N-1 security constraints (the merit-order bound ignores contingencies)"}
		cert.Bound = opt.Alpha * cert.PerMW
	} else {
		var err error
		if cert, err = pr.base.CertifyCostSensitivity(pr.Domain, opt.Alpha, opt.Rules); err != nil {
			return err
		}
	}
	pr.CostCert = cert
	qc, err := queryCertificate(cert, pr.Domain, pr.net, 2*pr.solverMargin())
	if err != nil {
		return err
	}
	pr.Sensitivity = query.Sensitivity{Value: qc.Bound, Norm: 1, Source: query.Certified, Certificate: qc}
	return nil
}

// build builds the OPF of the private network at the given loads (nil: the
// network's) and the query spec; with lazy limits only the limits of the
// monitored branches mon are written (PTDF rows unless a formulation is set).
func (pr *Program) build(ctx context.Context, load []float64, active map[int]bool, mon []int, cuts []cut) error {
	opt := pr.Options
	oo := grid.OPFOptions{Formulation: opt.Formulation, Load: load, Solve: model.SolveOptions{Settings: opt.Settings}}
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
			if !ok || gi >= len(pr.net.Case.Gens) {
				return fmt.Errorf("opfrelease: gen-subset query: generator %d is not an in-service generator (mpc.gen has %d rows)", gi+1, len(pr.net.Case.Gens))
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
// at once if the restricted program is infeasible), so the optimal value is
// that of the full program.
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
	active := map[int]bool{}
	if f := pr.Options.Formulation; fullBackstops || (pr.lazy && (f == grid.Auto || f == grid.PTDF)) {
		// With lazy PTDF limits (rows over every unit) a fixed backstop is as
		// large a column as a free one: free them all from the start.
		pr.activateAll(active)
	}
	var cuts []cut
	have := map[cut]bool{}
	cutRounds := 0
	mon := append([]int(nil), pr.monitored...)
	monitored := map[int]bool{}
	for _, l := range mon {
		monitored[l] = true
	}
	solves, backstopRounds := 0, 0
	if pr.shift != nil { // the upper copy's shift units stay free (data-independent)
		active[pr.shift.shed], active[pr.shift.curtail] = true, true
	}
	for {
		all := len(active) == len(pr.backstops)
		if err := pr.build(ctx, load, active, mon, cuts); err != nil {
			return nil, err
		}
		solves++
		spec := pr.spec
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
				if solves > maxLimitSolves {
					return nil, fmt.Errorf("opfrelease: %d flow limits still violated after %d solves with lazily monitored limits (first: branch %d); use Options.Limits = grid.LimitsAll", len(more), solves, pr.priv.Branch[more[0]]+1)
				}
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
			more, worst := pr.contingencyViolations(sol, load, have)
			if len(more) > 0 {
				maxRounds := pr.Options.Security.MaxRounds
				if maxRounds == 0 {
					maxRounds = 50
				}
				if cutRounds++; cutRounds > maxRounds {
					return nil, fmt.Errorf("opfrelease: %d contingency cuts still violated (up to %.3g MW) after %d rounds; raise Security.MaxRounds", len(more), worst, maxRounds)
				}
				for _, c := range more {
					have[c] = true
				}
				cuts = append(cuts, more...)
				continue
			}
		}
		if pr.CostCert != nil {
			s := sol.Solver
			tau := pr.solverMargin()
			if gap := math.Abs(s.Objective - s.DualObjective); !(gap <= tau) {
				return nil, fmt.Errorf("opfrelease: the solver's primal–dual gap %.3g exceeds the accuracy τ = %.3g $/h built into the certified sensitivity; refusing to release", gap, tau)
			}
		}
		pr.active, pr.cuts, pr.monitored, pr.solves = active, cuts, mon, solves
		return sol, nil
	}
}

// shiftUnits returns the shedding and curtailment units of the first bus (by
// index: a data-independent choice) that has both, or nil.
func (pr *Program) shiftUnits() *shiftPair {
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

// maxLimitSolves bounds the solves of one lazy-limit loop (each adds at least
// one limit; 10000_goc needs 2–3).
const maxLimitSolves = 100

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

func (pr *Program) activateAll(active map[int]bool) {
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

// Release draws the noise once and returns the released value with its
// record; with a ledger, the spend is checked and recorded before the noise is
// drawn. Each call is a new release and spends privacy.
func (pr *Program) Release(ro query.ReleaseOptions) (*Release, error) {
	r, err := pr.sol.Release(ro)
	if err != nil {
		return nil, err
	}
	out := &Release{Value: r.Value[0], Unit: "MW", Record: r.Record, zeta: r.Value[0] - pr.sol.QueryMean[0]}
	if pr.Options.Query.Kind == Cost {
		out.Value += pr.costC0 // a public constant: post-processing
		out.Unit = "$/h"
	}
	pr.last = out
	return out, nil
}

// Diagnostics are private values about a Program: the pre-noise statistic,
// the nominal cost, the noise interval and whether the dispatch behind the
// last release is feasible. They depend on the data without noise and must
// not be published.
type Diagnostics struct {
	NominalCost   float64 // DC-OPF cost of the case as given (quadratic costs exact), $/h
	ExpectedValue float64 // Q x̄* (+ constant): the released value without noise
	ExpectedCost  float64 // E[cost] of the decision rule, $/h
	ZetaLo        float64 // the noise interval enforced
	ZetaHi        float64
	// LastFeasible reports whether the dispatch x̄* + X*ζ̂ behind the last
	// release satisfies every constraint (tolerance 1e-7 relative; with lazy
	// limits also every branch limit, tolerance 1e-6·max(1, |limit|) MW).
	LastFeasible bool
	// Solves counts the programs the solve of Prepare solved (lazy backstops,
	// limits and cuts); MonitoredLimits the branch limits its final program
	// holds with lazy limits (0 with LimitsAll, which holds all of them).
	Solves          int
	MonitoredLimits int
	// SecurityCuts is the number of N-1 contingency cuts the final program
	// holds (0 without Options.Security): it depends on the loads.
	SecurityCuts int
	HasRelease   bool
	Status       string
}

// Diagnostics computes the private diagnostics (it solves the nominal OPF).
func (pr *Program) Diagnostics(ctx context.Context) (*Diagnostics, error) {
	d := &Diagnostics{ExpectedValue: pr.sol.QueryMean[0], Status: pr.sol.Solver.Status.String()}
	if pr.Options.Query.Kind == Cost {
		d.ExpectedValue += pr.costC0
	}
	d.ExpectedCost = pr.sol.Objective
	if b := pr.sol.Counterpart.Guarantee.Box; len(b) == 1 {
		d.ZetaLo, d.ZetaHi = b[0].Lo, b[0].Hi
	}
	o, err := pr.net.BuildOPF(grid.OPFOptions{Formulation: pr.Options.Formulation})
	if err != nil {
		return nil, err
	}
	ns, err := o.Solve(ctx)
	if err != nil {
		return nil, err
	}
	d.NominalCost = ns.Cost
	if pr.last != nil {
		d.HasRelease = true
		x := pr.sol.Rule.Apply(nil, []float64{pr.last.zeta})
		d.LastFeasible = query.Feasible(pr.can.Problem, x, 1e-7, nil)
		if pr.lazy {
			n := pr.priv
			for l, f := range flows(n, pr.dispatch(x), nil) {
				hi, lo := n.FlowMax[l], n.FlowMin[l]
				if f > hi+1e-6*math.Max(1, math.Abs(hi)) || f < lo-1e-6*math.Max(1, math.Abs(lo)) {
					d.LastFeasible = false
				}
			}
		}
	}
	d.Solves, d.MonitoredLimits, d.SecurityCuts = pr.solves, len(pr.monitored), len(pr.cuts)
	return d, nil
}

// ReleasedMeanAt re-solves the private program at other loads on the same
// uncertainty set and returns the pre-noise statistic Q x̄* (+ constant). It is
// a private diagnostic for audits and tests (adjacent-dataset searches,
// plots of the released densities); it spends no privacy and must not be
// published.
func (pr *Program) ReleasedMeanAt(ctx context.Context, load []float64) (float64, error) {
	cp := *pr
	sol, err := cp.solve(ctx, load)
	if err != nil {
		return 0, err
	}
	v := sol.QueryMean[0]
	if pr.Options.Query.Kind == Cost {
		v += cp.costC0
	}
	return v, nil
}

// Noise returns the calibrated noise mechanism of the release.
func (pr *Program) Noise() (*noise.Mechanism, error) { return pr.privacy.NoiseMechanism() }

// Privacy returns the privacy specification of the release.
func (pr *Program) Privacy() query.Privacy { return pr.privacy }

// Problem returns the canonical base problem (the OPF with backstops and
// piecewise-linear costs) and the query spec used: for evaluations.
func (pr *Program) Problem() (*solver.Problem, query.Spec) { return pr.can.Problem, pr.spec }

// Solution returns the solved program perturbation (private).
func (pr *Program) Solution() *query.Solution { return pr.sol }
