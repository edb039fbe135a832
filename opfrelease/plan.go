package opfrelease

import (
	"context"
	crand "crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/privopt/privopt/accounting"
	"github.com/privopt/privopt/chance"
	"github.com/privopt/privopt/grid"
	"github.com/privopt/privopt/ledger"
	"github.com/privopt/privopt/model"
	"github.com/privopt/privopt/noise"
	"github.com/privopt/privopt/query"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/auto"
	"github.com/privopt/privopt/solver/highs"
	"github.com/privopt/privopt/solver/ipm"
)

// Public plan, private release.
//
// A private DC-OPF release has two halves with a type boundary between them:
//
//   - The Plan (NewPlan) is computed from public inputs only: the network
//     without its loads (PublicNetwork), the public load domain, α, the
//     market rules, the mechanism and (ε, δ), the chance-constraint method
//     and its seed, and the public solver-accuracy target τ. It holds
//     everything a release ever prints, returns or stores: certificate and
//     sensitivity, calibrated noise, output grid, backstop buses, the
//     data-independent offset, the notes. NewPlan receives no private value:
//     PublicNetwork has no loads (Split removes them) and Loads can only be
//     handed to Plan.Release and Plan.Solve.
//   - The release (Plan.Release) takes the plan and the private loads,
//     spends the budget first, clamps the loads into the public domain (a
//     fixed public map), solves the private program — re-solving with other
//     backends on numerical trouble, never refusing — and adds exactly one
//     thing to the output: the noisy statistic.
//
// Adjacent load vectors therefore produce byte-identical output except the
// released values (cmd/privopt's invariance tests check it through the CLI).

// PublicNetwork is a network whose bus demands (Pd) have been removed: its
// Load holds only the public shunt withdrawals (Gs), which are part of the
// network. It is the only network type NewPlan accepts.
type PublicNetwork struct {
	net *grid.Network
}

// Network returns the public network (no demands): safe to publish.
func (p *PublicNetwork) Network() *grid.Network { return p.net }

// Loads are private bus demands (MW of Pd per internal bus of the public
// network, in its order). They enter a release only through Plan.Release
// and Plan.Solve.
type Loads struct {
	d []float64
}

// WithdrawalDomain returns the domain of the bus withdrawals that the
// market program of a release sees for loads in the demand domain dom: dom
// shifted by the network's public shunt withdrawals (Gs, in Load), bus by
// bus: [min_i + s_i, max_i + s_i]. A cost certificate for a plan is over
// this domain (equal to dom on a network without shunts): `privopt certify`
// computes it so, and a plan checks a certificate file's domain digest
// against it.
func (p *PublicNetwork) WithdrawalDomain(dom grid.LoadDomain) grid.LoadDomain {
	w := grid.LoadDomain{Lo: make([]float64, len(dom.Lo)), Hi: make([]float64, len(dom.Hi))}
	for i := range dom.Lo {
		w.Lo[i], w.Hi[i] = dom.Lo[i]+p.net.Load[i], dom.Hi[i]+p.net.Load[i]
	}
	return w
}

// NewLoads wraps demands (MW per internal bus of pub, copied) as private loads.
// Only the length is checked: values are private, and values outside the
// public domain are clamped by the release, never refused.
func NewLoads(pub *PublicNetwork, mw []float64) (Loads, error) {
	if len(mw) != pub.net.NumBuses() {
		return Loads{}, fmt.Errorf("opfrelease: %d loads for a network of %d buses", len(mw), pub.net.NumBuses())
	}
	return Loads{d: append([]float64(nil), mw...)}, nil
}

// Values returns a copy of the private demands (MW per internal bus): for
// private diagnostics and tests only.
func (l Loads) Values() []float64 { return append([]float64(nil), l.d...) }

// Split separates a network read from a case file into its public part (the
// network without bus demands) and its private part (the demands Pd, which
// become Loads). Nothing the public part computes can depend on the demands.
func Split(net *grid.Network) (*PublicNetwork, Loads, error) {
	c := *net.Case
	c.Buses = append([]grid.Bus(nil), net.Case.Buses...)
	for i := range c.Buses {
		c.Buses[i].Pd = 0
	}
	pn, err := grid.NewNetwork(&c, net.Options)
	if err != nil {
		return nil, Loads{}, fmt.Errorf("opfrelease: the network without its loads: %w", err)
	}
	d := make([]float64, pn.NumBuses())
	for _, b := range net.Case.Buses {
		if i, ok := pn.BusIndex[b.ID]; ok {
			d[i] = b.Pd
		}
	}
	return &PublicNetwork{net: pn}, Loads{d: d}, nil
}

// DomainSummary describes the public load domain of a plan.
type DomainSummary struct {
	// Source says where the domain comes from: "domain file", "reference
	// profile ± band", or "default" (every |d_i| ≤ the total generating
	// capacity, with the price-cap certificate and backstops at every bus).
	Source string `json:"source"`
	// VaryingBuses counts the buses whose load may vary (min < max).
	VaryingBuses int `json:"varying_buses"`
	// TotalMin and TotalMax are Σ min and Σ max over the buses (MW of demand).
	TotalMin float64 `json:"total_min"`
	TotalMax float64 `json:"total_max"`
	// Clamping states the public map applied to loads outside the domain.
	Clamping string `json:"clamping"`
}

// Plan is the public half of a private DC-OPF release (see the package
// comment "Public plan, private release"). Every exported field is public
// and may be published; it is computed without any private value. Release
// it with Plan.Release, once per load vector.
type Plan struct {
	Case   string        `json:"case"`
	Query  string        `json:"query"`
	Unit   string        `json:"unit"`
	Alpha  float64       `json:"alpha"`
	Domain DomainSummary `json:"domain"`
	// Noise names the mechanism; Epsilon and Delta are the guarantee of one
	// release (with the floating-point snapping term for Laplace).
	Noise     string  `json:"noise"`
	Epsilon   float64 `json:"epsilon"`
	Delta     float64 `json:"delta"`
	Guarantee string  `json:"guarantee"`
	// Sensitivity is certified (with Certificate) or declared ("assumed").
	Sensitivity float64            `json:"sensitivity"`
	Provenance  string             `json:"sensitivity_provenance"`
	Certificate *query.Certificate `json:"certificate,omitempty"`
	// NoiseStd is the standard deviation of the continuous noise law;
	// ReleaseGrid the grid every released value lies on (0: none) and
	// ReleasedNoiseRMS a bound on the root mean square of the noise actually
	// added (the law plus the rounding to the grid).
	NoiseStd          float64 `json:"noise_std"`
	ReleaseGrid       float64 `json:"release_grid"`
	ReleasedNoiseRMS  float64 `json:"released_noise_rms_bound"`
	FloatingPointSafe bool    `json:"floating_point_safe"`
	// Offset is the data-independent part of the statistic: for the cost
	// query the released value is V(d) + Offset + noise, V the optimal cost
	// with market rules (Offset = −ζ_lo, the lower end of the noise interval
	// the decision rule is feasible on). Estimate = released − Offset is an
	// unbiased estimate of V(d) (post-processing).
	Offset        float64    `json:"offset"`
	NoiseInterval [2]float64 `json:"noise_interval"`
	// Method, Eta, Beta and Feasibility state the chance constraint.
	Method      string  `json:"method"`
	Eta         float64 `json:"eta"`
	Beta        float64 `json:"beta"`
	CVaRQ       float64 `json:"cvar_q"`
	Feasibility string  `json:"feasibility_guarantee"`
	// AccuracyTarget is τ ($/h): every solve of the private program must
	// close its primal–dual gap to τ (re-solved otherwise); the certificate
	// includes 2τ.
	AccuracyTarget float64  `json:"accuracy_target"`
	PriceCap       float64  `json:"price_cap"`
	PriceFloor     float64  `json:"price_floor"`
	ShedBuses      int      `json:"shedding_buses"`
	CurtailBuses   int      `json:"curtailment_buses"`
	ChanceSeed     uint64   `json:"chance_seed"`
	Notes          []string `json:"notes"`
	// Memory is the estimated peak memory of an N-1 plan and its releases
	// (Options.Security; nil otherwise): public sizes only.
	Memory *MemoryEstimate `json:"n1_memory,omitempty"`

	opt       Options
	pub       *PublicNetwork
	dom       grid.LoadDomain // demand domain (public)
	certDom   grid.LoadDomain // withdrawal domain: dom + shunts
	base      *grid.Network   // piecewise-linear costs, no backstops, no demand
	priv      *grid.Network   // with backstops, no demand
	costCert  *grid.CostCertificate
	sens      query.Sensitivity
	privacy   query.Privacy
	mech      *noise.Mechanism
	backstops []int
	shift     *shiftPair
	sec       *securityState
	lazy      bool
	solver    solver.Solver
	// formulation is the network formulation of the private program
	// (Options.Formulation, or B-θ for N-1 plans when it is Auto).
	formulation grid.Formulation
	tau         float64
	midStat     float64 // the statistic at the domain's midpoint (public)
	// seedMon and seedCuts are the monitored limits and contingency cuts of
	// the midpoint's program (public), the starting set of every release.
	seedMon    []int
	seedCuts   []cut
	seedActive map[int]bool // the backstops the midpoint's program freed
	// seedWarm is the solver state (HiGHS's final basis) of the midpoint's
	// program (public): every release's first solve restarts from it.
	seedWarm *solver.WarmStart
	planTime time.Duration
	// progress receives the cut rounds of the midpoint solve (public): set
	// during NewPlan's midpoint solve only (Security.Progress).
	progress io.Writer
}

// PlanTime returns how long NewPlan took (wall clock; it depends on public
// inputs only, but is not part of the published plan).
func (p *Plan) PlanTime() time.Duration { return p.planTime }

// ReferencePlan is NewPlan for public test cases whose loads are a published
// reference profile (PGLib's nominal loads): the public domain is
// ±band·|load| around the case's loads, and the case's loads are returned as
// the private data of a first release. Real private loads must not serve as
// their own reference: use NewPlan with a domain from public information.
func ReferencePlan(ctx context.Context, net *grid.Network, opt Options, band float64) (*Plan, Loads, error) {
	pub, loads, err := Split(net)
	if err != nil {
		return nil, Loads{}, err
	}
	dom, err := grid.ReferenceBand(loads.Values(), band)
	if err != nil {
		return nil, Loads{}, err
	}
	opt.Domain, opt.DomainSource = &dom, fmt.Sprintf("published reference profile (the case's loads) ± %g·|load|", band)
	p, err := NewPlan(ctx, pub, opt)
	return p, loads, err
}

// DefaultDomain returns the domain a plan uses without a declared one:
// |d_i| ≤ C at every bus, C the total capacity Σ Pmax of the in-service
// units (a public bound no real load reaches).
func DefaultDomain(pub *PublicNetwork) grid.LoadDomain {
	var c float64
	for _, p := range pub.net.Pmax {
		c += math.Abs(p)
	}
	c = math.Max(c, 1)
	d := grid.LoadDomain{Lo: make([]float64, pub.net.NumBuses()), Hi: make([]float64, pub.net.NumBuses())}
	for i := range d.Lo {
		d.Lo[i], d.Hi[i] = -c, c
	}
	return d
}

// NewPlan computes the public plan of a private release on pub with opt
// (Options.Domain: the public demand domain; nil: DefaultDomain). It reads
// no private value. It certifies the sensitivity over the domain, calibrates
// the noise, places the backstops, and solves the private program once at
// the domain's midpoint (a public load vector) to fix the noise interval and
// the offset.
func NewPlan(ctx context.Context, pub *PublicNetwork, opt Options) (*Plan, error) {
	if pub == nil || pub.net == nil {
		return nil, errors.New("opfrelease: NewPlan needs a PublicNetwork (see Split)")
	}
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	t0 := time.Now()
	net := pub.net
	p := &Plan{opt: opt, pub: pub, Case: net.Case.Name, Query: opt.Query.String(), Alpha: opt.Alpha,
		Noise: string(opt.Mechanism), Method: opt.Method.String(), Eta: opt.Eta, Beta: opt.Beta, CVaRQ: opt.CVaRQ,
		PriceCap: opt.Rules.PriceCap, PriceFloor: opt.Rules.PriceFloor}
	if opt.Method == chance.Robust {
		p.Eta, p.Beta = 0, 0
	} else if opt.Method != chance.Vertex {
		p.Beta = 0
	}
	p.Domain.Source = "default: every |load| ≤ the total generating capacity (price-cap certificate, backstops at every bus)"
	if opt.Domain != nil {
		if err := opt.Domain.Validate(net); err != nil {
			return nil, err
		}
		p.dom = grid.LoadDomain{Lo: append([]float64(nil), opt.Domain.Lo...), Hi: append([]float64(nil), opt.Domain.Hi...)}
		p.Domain.Source = opt.DomainSource
		if p.Domain.Source == "" {
			p.Domain.Source = "declared"
		}
	} else {
		p.dom = DefaultDomain(pub)
	}
	wide := false
	for i := range p.dom.Lo {
		p.Domain.TotalMin += p.dom.Lo[i]
		p.Domain.TotalMax += p.dom.Hi[i]
		if p.dom.Hi[i] > p.dom.Lo[i] {
			p.Domain.VaryingBuses++
		}
		wide = wide || p.dom.Hi[i]-p.dom.Lo[i] >= opt.Alpha
	}
	if !wide {
		return nil, fmt.Errorf("opfrelease: the load domain is narrower than α = %g MW at every bus: no bus load can change by α inside it, so the release would protect no α-change (widen the domain or lower α)", opt.Alpha)
	}
	p.Domain.Clamping = "loads outside the domain are clamped into it bus by bus before the solve (min(max(d_i, min_i), max_i)); a load that is not a number (NaN, or a cell of the loads file that does not parse) becomes min_i; how many were clamped is a private diagnostic"
	p.certDom = pub.WithdrawalDomain(p.dom)
	// Costs: piecewise linear for the LP.
	pw, maxErr, err := net.Case.PiecewiseCosts(opt.CostSegments)
	if err != nil {
		return nil, err
	}
	if maxErr > 0 {
		p.Notes = append(p.Notes, fmt.Sprintf("quadratic costs replaced by %d-segment secant piecewise-linear costs (overestimate ≤ %.4g $/h in total)", opt.CostSegments, maxErr))
	}
	if p.base, err = grid.NewNetwork(pw, net.Options); err != nil {
		return nil, err
	}
	capacity := 1000.0
	for i := range p.certDom.Lo {
		capacity += 2 * math.Max(math.Abs(p.certDom.Lo[i]), math.Abs(p.certDom.Hi[i]))
	}
	for g := range net.Pmin {
		capacity += 2 * (math.Abs(net.Pmin[g]) + math.Abs(net.Pmax[g]))
	}
	shed, curtail := p.base.BackstopBuses(p.certDom)
	bc, first, err := pw.WithBackstops(opt.Rules, capacity, shed, curtail)
	if err != nil {
		return nil, err
	}
	if p.priv, err = grid.NewNetwork(bc, net.Options); err != nil {
		return nil, err
	}
	for g, gi := range p.priv.Gen {
		if gi >= first {
			p.backstops = append(p.backstops, g)
		}
	}
	p.ShedBuses, p.CurtailBuses = len(shed), len(curtail)
	p.Notes = append(p.Notes, fmt.Sprintf("market rules: load shedding at %g $/MWh at %d buses and curtailment at %g $/MWh at %d buses (placed from the public domain)", opt.Rules.PriceCap, len(shed), opt.Rules.PriceFloor, len(curtail)))
	if opt.Security != nil {
		if err := p.initSecurity(); err != nil {
			return nil, err
		}
		p.Notes = append(p.Notes, fmt.Sprintf("N-1 security: contingency cuts generated lazily; %d islanding outages skipped", len(p.sec.islanding)))
	}
	p.shift = p.shiftUnits()
	p.formulation = opt.Formulation
	if opt.Security != nil && opt.Formulation == grid.Auto {
		// A contingency cut f_l + LODF_lk·f_k is four nonzeros over the
		// angles in B-θ and two dense PTDF rows otherwise: measured on
		// 300_ieee (post-factor 1) B-θ takes 2.6 s and 48 MB against 16.7 s
		// and 504 MB, on 1354_pegase (post-factor 1.5) 105 s and 116 MB
		// against more than 300 s and 1.1 GB (BENCHMARKS.md, "N-1 releases
		// at scale").
		p.formulation = grid.BTheta
		p.Notes = append(p.Notes, "N-1 security: the B-θ formulation (sparse contingency cuts)")
	}
	switch opt.Limits {
	case grid.LimitsLazy:
		p.lazy = true
	case grid.LimitsAuto:
		p.lazy = p.priv.NumBuses() > grid.AutoPTDFMaxBuses && opt.Method != chance.Bonferroni
	}
	if p.solver = opt.Solver; p.solver == nil && p.lazy && (p.formulation == grid.Auto || p.formulation == grid.PTDF) {
		// Lazy PTDF programs (B-θ ones keep the default route: with
		// presolve, 1354_pegase N-1 takes 38 s against 94 s without):
		// HiGHS with presolve off, as grid.AutoStrategy
		// picks for lazy PTDF LPs (BENCHMARKS.md "Market-scale certified
		// releases (round 2)"), with the automatic route's fallback to the
		// interior-point backend.
		h, err := highs.NewWithOptions(highs.Options{Presolve: "off"})
		if err != nil {
			return nil, fmt.Errorf("opfrelease: %w", err)
		}
		a, err := auto.NewWith(h, ipm.New())
		if err != nil {
			return nil, fmt.Errorf("opfrelease: %w", err)
		}
		a.ConcurrentNnz = -1
		a.SmallLPNnz = -1 // HiGHS first for every LP, as the plan was measured with
		p.solver = a
	}
	if p.solver == nil {
		// The automatic route without its concurrent race: which backend
		// wins a race depends on timing, and the release must be a
		// deterministic function of the loads (the adjacency relation).
		// Every LP starts with HiGHS whatever its size (SmallLPNnz = −1):
		// the plan's solver margin and the released solves are those of
		// the simplex route, not of the small-LP interior-point route.
		a := auto.NewSimplexFirst()
		a.ConcurrentNnz = -1
		p.solver = a
	}
	p.tau = p.solverMargin()
	p.AccuracyTarget = p.tau
	if err := p.sensitivity(ctx); err != nil {
		return nil, err
	}
	mech := opt.Mechanism
	if mech == query.Gaussian || mech == query.AnalyticGaussian {
		// The released statistic is a scalar: its ℓ1 and ℓ2 sensitivities coincide.
		p.sens.Norm = 2
	}
	p.privacy = query.Privacy{PrivacySpec: opt.PrivacySpec, Sensitivity: p.sens}
	if p.mech, err = p.privacy.NoiseMechanismContext(ctx); err != nil {
		return nil, err
	}
	p.Sensitivity, p.Provenance, p.Certificate = p.sens.Value, string(p.sens.Source), p.sens.Certificate
	p.NoiseStd = noise.Std(p.mech.Dist)
	p.Epsilon, p.Delta = opt.Epsilon, p.mech.Params.Delta
	p.Guarantee = query.GuaranteeString(p.Epsilon, p.Delta, p.sens)
	if rg, err := p.mech.ReleaseGrid(noise.ReleaseOptions{}); err == nil {
		p.FloatingPointSafe = true
		p.ReleaseGrid, p.ReleasedNoiseRMS = rg.Step, rg.RMS
		if lap, ok := p.mech.Dist.(*noise.Laplace); ok {
			// Snapping adds 2⁻⁴⁹·B/λ to ε (Mironov 2012, Thm 1).
			p.Epsilon += noise.SnappingExcess(lap.Scale, 0, p.mech.Params.Sensitivity, 1)
			p.Guarantee = query.GuaranteeString(p.Epsilon, p.Delta, p.sens) + " (ε includes the floating-point snapping term)"
		}
		p.Notes = append(p.Notes, fmt.Sprintf("released values are multiples of %g (the floating-point-safe release's grid)", rg.Step))
	} else if errors.Is(err, noise.ErrUnsafeRelease) {
		p.ReleasedNoiseRMS = p.NoiseStd
		p.Notes = append(p.Notes, "the mechanism has no floating-point-safe release: the noise is added in floating point (Mironov 2012's attacks apply)")
	} else {
		return nil, err
	}
	if p.ChanceSeed = opt.ChanceSeed; p.ChanceSeed == 0 {
		var b [8]byte
		if _, err := crand.Read(b[:]); err != nil {
			return nil, fmt.Errorf("opfrelease: seeding the uncertainty set: %w", err)
		}
		p.ChanceSeed = binary.LittleEndian.Uint64(b[:]) | 1
	}
	// One public solve at the domain's midpoint: fixes the noise interval
	// (data-independent: the noise law, the seed and the method) and checks
	// the pipeline before any private value is read.
	mid := make([]float64, len(p.certDom.Lo))
	for i := range mid {
		mid[i] = p.certDom.Lo[i] + (p.certDom.Hi[i]-p.certDom.Lo[i])/2
	}
	if opt.Security != nil {
		p.progress = opt.Security.Progress
	}
	prog, err := p.solveRobust(ctx, mid)
	p.progress = nil // releases print no rounds (their counts are private)
	if err != nil {
		return nil, fmt.Errorf("opfrelease: the plan's public solve at the domain's midpoint: %w", err)
	}
	if prog.fallback != "" {
		return nil, fmt.Errorf("opfrelease: the plan's public solve at the domain's midpoint failed on every backend (%s)", prog.fallback)
	}
	p.midStat = prog.statistic()
	if opt.Security != nil && opt.Security.Progress != nil {
		fmt.Fprintf(opt.Security.Progress, "N-1 plan (public midpoint solve): done: %d cuts, %d solves, %s LODF storage\n", len(prog.cuts), prog.solves, p.LODFStorage())
	}
	// The limits and contingency cuts the midpoint's program needed are
	// public (the midpoint is): every release starts from them. They are
	// constraints of the full program, so the optimum — the statistic — is
	// the same; only the number of rounds to reach it shrinks.
	p.seedMon = append([]int(nil), prog.monitored...)
	p.seedCuts = append([]cut(nil), prog.cuts...)
	p.seedWarm = prog.warm
	p.seedActive = map[int]bool{}
	for g, on := range prog.active {
		if on {
			p.seedActive[g] = true
		}
	}
	g := prog.sol.Counterpart.Guarantee
	p.Feasibility = g.String()
	if len(g.Box) == 1 {
		p.NoiseInterval = [2]float64{g.Box[0].Lo, g.Box[0].Hi}
	}
	switch {
	case opt.Query.Kind == Cost && opt.CVaRQ == 0 && len(g.Box) == 1:
		p.Offset = -g.Box[0].Lo
		p.Notes = append(p.Notes, fmt.Sprintf("the released cost is V(d) + %.6g + noise: the offset −ζ_lo (the decision rule stays feasible down to the noise interval's lower end) is data-independent and published; estimate = released − offset", p.Offset))
	default:
		p.Notes = append(p.Notes, "no data-independent offset is removed (estimate = released value)")
	}
	p.Unit = "MW"
	if opt.Query.Kind == Cost {
		p.Unit = "$/h"
	}
	if p.Notes == nil {
		p.Notes = []string{}
	}
	p.planTime = time.Since(t0)
	return p, nil
}

// ReleaseOptions configure Plan.Release.
type ReleaseOptions struct {
	// Label names the release (e.g. the hour); it is recorded in the ledger
	// entry and the output. Public.
	Label string
	// Source of the noise; nil means crypto/rand (the only choice that
	// protects anything). Seeded sources are for tests and audits.
	Source noise.Source
	// Ledger, when set, records the release's cost against Dataset before
	// anything data-dependent is computed; a refusal (over budget) draws
	// nothing and reads no load.
	Ledger  *ledger.Ledger
	Dataset string
	// Diagnostics computes the private diagnostics of the release
	// (Release.Diagnostics): values computed from the unperturbed data that
	// must never be published.
	Diagnostics bool
}

// Release is one published value. Everything but Diagnostics may be
// published.
type Release struct {
	Label string `json:"label"`
	// ReleasedValue is the statistic plus noise, on the plan's grid.
	ReleasedValue float64 `json:"released_value"`
	// Estimate is ReleasedValue − Plan.Offset (post-processing).
	Estimate float64 `json:"estimate"`
	// Time of the release (UTC).
	Time time.Time `json:"-"`
	// Diagnostics is set only with ReleaseOptions.Diagnostics: PRIVATE.
	Diagnostics *ReleaseDiagnostics `json:"private_diagnostics,omitempty"`
}

// ReleaseDiagnostics are private values about one release: they depend on
// the unperturbed loads and must not be published.
type ReleaseDiagnostics struct {
	Warning string `json:"warning"`
	// Statistic is the pre-noise released statistic.
	Statistic float64 `json:"statistic"`
	// Clamped counts the buses whose load was clamped into the domain.
	Clamped int `json:"clamped_buses"`
	// Solves counts the programs solved; Route names the solver route that
	// produced the statistic ("" for the first), Fallback the last resort if
	// every route failed.
	Solves   int    `json:"solves"`
	Route    string `json:"route,omitempty"`
	Fallback string `json:"fallback,omitempty"`
	// Feasible reports whether the dispatch behind the release satisfies
	// every constraint of the private program.
	Feasible     bool    `json:"release_dispatch_feasible"`
	SecurityCuts int     `json:"security_cuts,omitempty"`
	Seconds      float64 `json:"seconds"`
	program      *Program
}

// Program returns the solved private program behind the release.
func (d *ReleaseDiagnostics) Program() *Program { return d.program }

// PrivateWarning heads every private diagnostic.
const PrivateWarning = "PRIVATE DIAGNOSTICS: computed from the unperturbed data; never publish"

// LedgerEntry returns the audit-log entry a release with label spends: a
// function of the plan and the label only.
func (p *Plan) LedgerEntry(label string) ledger.Entry {
	q := fmt.Sprintf("opf %s, case %s", p.Query, p.Case)
	if label != "" {
		q += ", label " + label
	}
	params := map[string]float64{"sensitivity": p.Sensitivity, "noise_std": p.NoiseStd, "alpha": p.Alpha}
	if p.Eta > 0 {
		params["eta"] = p.Eta
	}
	prov := p.Provenance
	if p.Certificate != nil {
		prov += " (" + p.Certificate.Method + ")"
	}
	return ledger.Entry{
		Query: q, Label: label, Mechanism: p.Noise, Params: params,
		Cost:        accounting.Cost{Epsilon: p.Epsilon, Delta: p.Delta},
		Sensitivity: strconv.FormatFloat(p.Sensitivity, 'g', -1, 64) + " " + prov,
		Guarantee:   p.Guarantee,
	}
}

// Release spends the budget (with a ledger), then computes the statistic at
// the private loads (clamped into the domain) and adds the noise. After the
// spend it always returns a value: numerical trouble is resolved by
// re-solving with other routes (solveRobust); only a cancelled context
// stops it, which is the caller's act, not the data's. Error texts never
// contain private values.
func (p *Plan) Release(ctx context.Context, loads Loads, ro ReleaseOptions) (*Release, error) {
	if len(loads.d) != len(p.dom.Lo) {
		return nil, fmt.Errorf("opfrelease: %d loads for a plan over %d buses", len(loads.d), len(p.dom.Lo))
	}
	if ro.Ledger != nil {
		if ro.Dataset == "" {
			return nil, errors.New("opfrelease: a release with a ledger needs ReleaseOptions.Dataset")
		}
		if err := ro.Ledger.Spend(ctx, ro.Dataset, p.LedgerEntry(ro.Label)); err != nil {
			return nil, err
		}
	}
	t0 := time.Now()
	load, clamped := p.clamp(loads)
	prog, err := p.solveRobust(ctx, load)
	if err != nil {
		return nil, err // only a cancelled context
	}
	stat := prog.statistic()
	src := ro.Source
	if src == nil {
		src = noise.CryptoSource()
	}
	var v float64
	if p.FloatingPointSafe {
		if v, err = p.mech.Release(stat, src, noise.ReleaseOptions{}); err != nil {
			return nil, errors.New("opfrelease: the floating-point-safe release failed (the statistic is outside the mechanism's representable range)")
		}
	} else {
		v = stat + p.mech.Dist.Sample(src)
	}
	r := &Release{Label: ro.Label, ReleasedValue: v, Estimate: v - p.Offset, Time: time.Now().UTC()}
	if ro.Diagnostics {
		d := &ReleaseDiagnostics{Warning: PrivateWarning, Statistic: stat, Clamped: clamped, Solves: prog.solves,
			Route: prog.route, Fallback: prog.fallback, SecurityCuts: len(prog.cuts), program: prog}
		if prog.sol != nil {
			d.Feasible = prog.feasibleAt(v - stat)
		}
		d.Seconds = time.Since(t0).Seconds()
		r.Diagnostics = d
	}
	return r, nil
}

// Solve solves the private program at loads (clamped into the domain)
// without releasing anything: a private diagnostic for evaluations and
// audits. It spends no privacy and its result must not be published.
func (p *Plan) Solve(ctx context.Context, loads Loads) (*Program, error) {
	if len(loads.d) != len(p.dom.Lo) {
		return nil, fmt.Errorf("opfrelease: %d loads for a plan over %d buses", len(loads.d), len(p.dom.Lo))
	}
	load, _ := p.clamp(loads)
	prog, err := p.solveRobust(ctx, load)
	if err != nil {
		return nil, err
	}
	if prog.fallback != "" {
		return nil, fmt.Errorf("opfrelease: solving the private program failed on every backend (%s)", prog.fallback)
	}
	return prog, nil
}

// clamp maps the demands into the domain and adds the public shunt
// withdrawals: the withdrawal vector the program is solved at, and how many
// buses were clamped (private).
func (p *Plan) clamp(loads Loads) ([]float64, int) {
	out := make([]float64, len(loads.d))
	n := 0
	for i, v := range loads.d {
		c := math.Min(math.Max(v, p.dom.Lo[i]), p.dom.Hi[i])
		if math.IsNaN(v) {
			c = p.dom.Lo[i]
		}
		if c != v {
			n++
		}
		out[i] = c + p.pub.net.Load[i]
	}
	return out, n
}

// route is one way of solving the private program.
type route struct {
	name   string
	solver func() (solver.Solver, error)
	all    bool // every flow limit written (no lazy limits)
}

// routes are tried in order until one returns a solution that meets the
// accuracy target: the default route, then the interior-point backend, then
// HiGHS's simplex without presolve, then every limit written with the
// automatic route.
var routes = []route{
	{name: ""},
	{name: "interior point", solver: func() (solver.Solver, error) { return ipm.New(), nil }},
	{name: "HiGHS simplex, presolve off", solver: func() (solver.Solver, error) {
		return highs.NewWithOptions(highs.Options{Presolve: "off"})
	}},
	{name: "all limits, automatic route", all: true},
}

// solveRobust solves the private program at the withdrawal vector load along
// routes; if every route fails it computes the statistic from the nominal
// market dispatch (V(d) + Offset, grid's DC-OPF with the interior-point
// backend), and as a last resort returns the plan's public midpoint
// statistic — the fallback, counted in the private diagnostics. It returns
// an error only when ctx is done.
func (p *Plan) solveRobust(ctx context.Context, load []float64) (*Program, error) {
	var errs []string
	solves := 0
	t0 := time.Now()
	for _, rt := range routes {
		if rt.all && !p.lazy {
			continue
		}
		prog := &Program{Plan: p, load: load, solver: p.solver, lazy: p.lazy, route: rt.name, monitored: p.seedMon}
		if rt.solver != nil {
			s, err := rt.solver()
			if err != nil {
				errs = append(errs, rt.name+": "+err.Error())
				continue
			}
			prog.solver = s
		}
		if rt.all {
			prog.lazy, prog.monitored = false, nil
		}
		sol, err := prog.solve(ctx, nil)
		solves += prog.solves
		if err == nil {
			prog.sol, prog.solves = sol, solves
			prog.Timing.Solve = time.Since(t0)
			return prog, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		name := rt.name
		if name == "" {
			name = "default"
		}
		errs = append(errs, name+": "+err.Error())
	}
	prog := &Program{Plan: p, load: load, solves: solves}
	if v, ok := p.nominalStatistic(ctx, load); ok {
		prog.fixed, prog.fallback = v, "nominal market dispatch"
		return prog, nil
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	prog.fixed, prog.fallback = p.midStat, "public midpoint statistic ("+fmt.Sprint(len(errs))+" routes failed)"
	return prog, nil
}

// nominalStatistic computes V(d) + Offset (+ the cost constants) from the
// market dispatch of the network with backstops (grid's DC-OPF through the
// interior-point backend); cost query without CVaR and N-1 only.
func (p *Plan) nominalStatistic(ctx context.Context, load []float64) (float64, bool) {
	if p.opt.Query.Kind != Cost || p.opt.CVaRQ != 0 || p.sec != nil {
		return 0, false
	}
	o, err := p.priv.BuildOPF(grid.OPFOptions{Load: load, Solve: model.SolveOptions{Solver: ipm.New()}})
	if err != nil {
		return 0, false
	}
	s, err := o.Solve(ctx)
	if err != nil || !s.Status.OK() {
		return 0, false
	}
	return s.Cost + p.Offset, true
}
