package grid

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/privopt/privopt/model"
	"github.com/privopt/privopt/noise"
	"github.com/privopt/privopt/solver"
)

// QueryKind selects the released statistic of the dispatch.
type QueryKind int

const (
	// QueryCost releases the dispatch cost cᵀp + c0 (linear costs; Dvorkin et al.
	// eq. 15, recourse constraint cᵀX = 1). Sensitivity c_max·α.
	QueryCost QueryKind = iota
	// QueryGenSubset releases the aggregate output Σ_{g∈G} p_g of a subset G of
	// generators (recourse Σ_{g∈G} X_g = 1). Sensitivity α, the paper's
	// assumption that one load changing by α moves the aggregate by at most α.
	QueryGenSubset
)

// Query is the released statistic. Gens holds the 0-based rows of mpc.gen for
// QueryGenSubset (they must be in service).
type Query struct {
	Kind QueryKind
	Gens []int
}

// ParseQuery parses "cost" or "gen-subset:LIST" with LIST comma-separated 1-based
// generator rows of mpc.gen, ranges allowed ("gen-subset:1,3,5-8").
func ParseQuery(s string) (Query, error) {
	if s == "cost" {
		return Query{Kind: QueryCost}, nil
	}
	list, ok := strings.CutPrefix(s, "gen-subset:")
	if !ok {
		return Query{}, fmt.Errorf("grid: query %q: must be \"cost\" or \"gen-subset:LIST\"", s)
	}
	var gens []int
	for _, part := range strings.Split(list, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 1 {
			return Query{}, fmt.Errorf("grid: query %q: generator %q is not a positive row number", s, part)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return Query{}, fmt.Errorf("grid: query %q: bad range %q", s, part)
			}
		}
		if b-a >= MaxQueryGenerators-len(gens) {
			return Query{}, fmt.Errorf("grid: query %q: range %q lists more than MaxQueryGenerators = %d generators", s, part, MaxQueryGenerators)
		}
		for g := a; g <= b; g++ {
			gens = append(gens, g-1)
		}
	}
	return Query{Kind: QueryGenSubset, Gens: gens}, nil
}

// MaxQueryGenerators caps the generators a gen-subset query may list (ranges
// expanded), so that "gen-subset:1-99999999999" is an error instead of an
// expansion in memory; it is far above the generator count of any case
// (PGLib's largest have about 10⁴).
const MaxQueryGenerators = 1 << 20

// String returns the query in ParseQuery's syntax.
func (q Query) String() string {
	if q.Kind == QueryCost {
		return "cost"
	}
	parts := make([]string, len(q.Gens))
	for i, g := range q.Gens {
		parts[i] = strconv.Itoa(g + 1)
	}
	return "gen-subset:" + strings.Join(parts, ",")
}

// ChanceMethod selects how the joint chance constraint on the perturbed
// dispatch p̄ + Xζ is made tractable. With a scalar noise ζ every method reduces
// to enforcing each (affine in ζ) constraint row at both ends of an interval
// [ζ_lo, ζ_hi] — the robust counterpart of a row f0 + f1ζ ≤ 0 over an interval is
// f0 + max(ζ_lo f1, ζ_hi f1) ≤ 0, i.e. two linear rows, no enumeration.
type ChanceMethod int

const (
	// Vertex: [ζ_lo, ζ_hi] is the range of S i.i.d. noise samples with
	// S = ⌈(1/η)(e/(e−1))(2k − 1 + ln(1/β))⌉, k = 1 (Dvorkin et al.,
	// Proposition 3.3; S = 523 for η = 1%, β = 10%): the joint constraint holds
	// with probability ≥ 1 − η, with confidence 1 − β over the samples.
	Vertex ChanceMethod = iota
	// Bonferroni splits η over the N one-sided constraint rows and enforces each
	// individual chance constraint exactly: for symmetric scalar noise,
	// P(f0 + f1ζ > 0) ≤ η/N ⇔ f0 + |f1|·Q(1 − η/N) ≤ 0, Q the noise quantile —
	// the interval ±Q(1 − η/N) (Remark 3.4 with the exact quantile in place of
	// the distribution-free z).
	Bonferroni
	// Robust uses the support of a bounded noise (truncated Laplace, optimal):
	// every constraint holds with probability one.
	Robust
)

// String returns "vertex", "bonferroni" or "robust".
func (m ChanceMethod) String() string {
	switch m {
	case Vertex:
		return "vertex"
	case Bonferroni:
		return "bonferroni"
	case Robust:
		return "robust"
	}
	return fmt.Sprintf("ChanceMethod(%d)", int(m))
}

// ParseChanceMethod parses "vertex", "bonferroni" or "robust".
func ParseChanceMethod(s string) (ChanceMethod, error) {
	for _, m := range []ChanceMethod{Vertex, Bonferroni, Robust} {
		if m.String() == s {
			return m, nil
		}
	}
	return 0, fmt.Errorf("grid: method %q: must be vertex, bonferroni or robust", s)
}

// Mechanisms maps the noise names accepted by PrivateOptions.Noise to their
// calibrations in package noise. "optimal" is the certified piecewise-constant
// (ε,δ)-DP noise of Selvi, Liu & Wiesemann minimizing E|X| (noise.Optimize,
// symmetric, 200 cells, upper bound only; about 0.3 s), bounded like the
// truncated Laplace noise.
var Mechanisms = map[string]func(noise.Params) (*noise.Mechanism, error){
	"laplace":           noise.LaplaceMechanism,
	"gaussian":          noise.GaussianMechanism,
	"analytic-gaussian": noise.AnalyticGaussianMechanism,
	"truncated-laplace": noise.TruncatedLaplaceMechanism,
	"optimal":           optimalMechanism,
}

func optimalMechanism(p noise.Params) (*noise.Mechanism, error) {
	r, err := noise.Optimize(context.Background(), p, noise.OptimalOptions{Intervals: 200, Symmetric: true, SkipLowerBound: true})
	if err != nil {
		return nil, err
	}
	return r.Mechanism, nil
}

// PrivateOptions configure PrivateRelease. Zero values of Eta, Beta,
// CVaRSamples mean the paper's defaults.
type PrivateOptions struct {
	Query   Query
	Alpha   float64 // adjacency: one load differs by at most Alpha MW
	Epsilon float64
	Delta   float64
	Noise   string // a key of Mechanisms
	Method  ChanceMethod
	Eta     float64 // joint violation probability, default 0.01
	Beta    float64 // confidence of the vertex sampling, default 0.1
	// CVaRQ in (0, 1) replaces the expected cost by the sample CVaR of the cost
	// over the worst fraction CVaRQ of CVaRSamples noise scenarios (Dvorkin et
	// al. eq. 13, Rockafellar–Uryasev); 0 means the expected cost (eq. 15a).
	CVaRQ       float64
	CVaRSamples int // default 1000 (the paper's S)
	// Formulation of the network constraints in the private program and the
	// reference OPFs (Auto: PTDF up to 100 buses, B-θ above).
	Formulation Formulation
	// Source drives every random draw (vertex and CVaR samples, the released
	// noise). Nil means crypto randomness; a seeded source is for experiments.
	Source noise.Source
	Solve  model.SolveOptions
}

func (o *PrivateOptions) defaults() {
	if o.Eta == 0 {
		o.Eta = 0.01
	}
	if o.Beta == 0 {
		o.Beta = 0.1
	}
	if o.CVaRSamples == 0 {
		o.CVaRSamples = 1000
	}
	if o.Noise == "" {
		o.Noise = "laplace"
	}
}

// Validate checks the options (after defaults are applied).
func (o *PrivateOptions) Validate() error {
	o.defaults()
	if !(o.Alpha > 0) || math.IsInf(o.Alpha, 0) {
		return fmt.Errorf("grid: Alpha is %v, must be > 0 and finite", o.Alpha)
	}
	if _, ok := Mechanisms[o.Noise]; !ok {
		names := make([]string, 0, len(Mechanisms))
		for k := range Mechanisms {
			names = append(names, k)
		}
		sort.Strings(names)
		return fmt.Errorf("grid: Noise is %q, must be one of %s", o.Noise, strings.Join(names, ", "))
	}
	if !(o.Eta > 0 && o.Eta < 1) {
		return fmt.Errorf("grid: Eta is %v, must be in (0, 1)", o.Eta)
	}
	if !(o.Beta > 0 && o.Beta < 1) {
		return fmt.Errorf("grid: Beta is %v, must be in (0, 1)", o.Beta)
	}
	if !(o.CVaRQ >= 0 && o.CVaRQ < 1) {
		return fmt.Errorf("grid: CVaRQ is %v, must be in [0, 1) (0: expected cost)", o.CVaRQ)
	}
	if o.CVaRSamples < 1 {
		return fmt.Errorf("grid: CVaRSamples is %d, must be ≥ 1", o.CVaRSamples)
	}
	if o.Method != Vertex && o.Method != Bonferroni && o.Method != Robust {
		return fmt.Errorf("grid: Method is %d, must be Vertex, Bonferroni or Robust", int(o.Method))
	}
	if o.Formulation != Auto && o.Formulation != PTDF && o.Formulation != BTheta {
		return fmt.Errorf("grid: Formulation is %d, must be Auto, PTDF or BTheta", int(o.Formulation))
	}
	return nil
}

// VertexSampleSize returns S = ⌈(1/η)·(e/(e−1))·(2k − 1 + ln(1/β))⌉ (Dvorkin et
// al., Proposition 3.3), the number of noise samples whose bounding box makes a
// joint chance constraint hold with probability ≥ 1 − η at confidence 1 − β.
func VertexSampleSize(eta, beta float64, k int) int {
	e := math.E
	return int(math.Ceil((1 / eta) * (e / (e - 1)) * (float64(2*k-1) + math.Log(1/beta))))
}

// ErrPrivateInfeasible is wrapped when the chance-constrained program has no
// solution: the requested privacy cannot be provided at the requested
// feasibility level.
var ErrPrivateInfeasible = errors.New("grid: private program infeasible (lower alpha or allow a larger violation probability eta)")

// Private is a solved private release: the linear decision rule p̃ = p̄ + Xζ of the
// chance-constrained DC-OPF (Dvorkin et al. eq. 15) and one released value.
type Private struct {
	Network   *Network
	Options   PrivateOptions
	Mechanism *noise.Mechanism
	Status    solver.Status // of the chance-constrained program

	Sensitivity    float64   // Δ of the query
	Weights        []float64 // w: query = wᵀp (+ c0 for the cost query)
	Cost           []float64 // c: linear cost per generator ($/MWh)
	CostConst      float64   // c0, $/h
	ZetaLo, ZetaHi float64   // the interval on which every constraint is enforced

	NominalCost  float64 // C*: optimal cost of the (linear-cost) DC-OPF
	NominalQuery float64 // query at the nominal optimum
	// QueryMin and QueryMax are the range of the query over feasible dispatches,
	// set by QueryRange (called by Evaluate).
	QueryMin, QueryMax float64
	rangeDone          bool

	PBar, X     []float64 // decision rule, MW and MW per unit of ζ
	FlowBar, FX []float64 // branch flows f̄ and ∂f/∂ζ, MW
	MeanCost    float64   // E[cost(p̃)] = cᵀp̄ + c0
	MeanQuery   float64   // E[query] = wᵀp̄ (+ c0)

	Zeta     float64   // the drawn noise ζ̂
	Released float64   // released value MeanQuery + ζ̂
	Dispatch []float64 // p̄ + Xζ̂
	Feasible bool      // the realized dispatch satisfies every constraint
	// FloatSafe reports that the released value came from the
	// floating-point-safe Mechanism.Release (see Draw).
	FloatSafe bool

	// FeasibleLo, FeasibleHi bound the ζ for which p̄ + Xζ is feasible (to
	// tolerance 1e-6 relative): the Monte Carlo evaluation needs no solve.
	FeasibleLo, FeasibleHi float64

	Time Timing
}

// queryWeights returns w for the query.
func (n *Network) queryWeights(q Query, c []float64) ([]float64, error) {
	if q.Kind == QueryCost {
		return append([]float64(nil), c...), nil
	}
	if q.Kind != QueryGenSubset {
		return nil, fmt.Errorf("grid: query kind %d unknown", int(q.Kind))
	}
	if len(q.Gens) == 0 {
		return nil, fmt.Errorf("grid: gen-subset query has no generators")
	}
	pos := make(map[int]int, len(n.Gen))
	for g, gi := range n.Gen {
		pos[gi] = g
	}
	w := make([]float64, n.NumGens())
	for _, gi := range q.Gens {
		g, ok := pos[gi]
		if !ok {
			return nil, fmt.Errorf("grid: gen-subset query: generator %d is not an in-service generator (mpc.gen has %d rows)", gi+1, len(n.Case.Gens))
		}
		w[g] = 1
	}
	return w, nil
}

// linearCosts returns the linear costs used by the private program: c1 per
// generator and Σc0. Quadratic terms are dropped (the released cost must be
// affine in the dispatch); piecewise-linear costs are rejected.
func (n *Network) linearCosts() (c []float64, c0 float64, err error) {
	_, c1, c0, pwl := n.CostCoefficients()
	if len(pwl) > 0 {
		return nil, 0, fmt.Errorf("grid: generator %d has a piecewise-linear cost; the private release needs polynomial costs", n.Gen[pwl[0]]+1)
	}
	return c1, c0, nil
}

// PrivateRelease solves the chance-constrained DC-OPF of Dvorkin et al. (eq. 15)
// for the query and releases MeanQuery + ζ̂. Linear costs c = c1 are used (the
// quadratic terms are dropped: the released cost must be affine in the
// dispatch); the nominal cost it is compared with is that of the same
// linear-cost OPF.
//
//	minimize    cᵀp̄ + c0                    (or the CVaR of cᵀ(p̄ + Xζ) + c0)
//	subject to  balance(p̄) = Load,  1ᵀX = 0 per island   (Remark 3.5)
//	            wᵀX = 1                                     (eq. 15d)
//	            Pmin ≤ p̄ + Xζ ≤ Pmax,  FlowMin ≤ f(p̄) + F(X)ζ ≤ FlowMax
//	                                      for ζ ∈ {ζ_lo, ζ_hi}
//
// ζ ~ the chosen mechanism with sensitivity Δ (c_max·α for the cost query,
// c_max the largest linear cost of a generator with Pmax > 0; α for a
// generator subset). An infeasible program returns a Private with that Status
// and an error wrapping ErrPrivateInfeasible.
func (n *Network) PrivateRelease(ctx context.Context, opt PrivateOptions) (*Private, error) {
	t0 := time.Now()
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	opt.Formulation = opt.Formulation.resolve(n)
	c, c0, err := n.linearCosts()
	if err != nil {
		return nil, err
	}
	w, err := n.queryWeights(opt.Query, c)
	if err != nil {
		return nil, err
	}
	pr := &Private{Network: n, Options: opt, Weights: w, Cost: c, CostConst: c0}
	if opt.Query.Kind == QueryCost {
		cmax := math.Inf(-1)
		for g := range c {
			if n.Pmax[g] > 0 {
				cmax = math.Max(cmax, c[g])
			}
		}
		if !(cmax > 0) {
			return nil, fmt.Errorf("grid: largest generator cost is %v; the cost query needs a positive cost", cmax)
		}
		pr.Sensitivity = cmax * opt.Alpha
	} else {
		pr.Sensitivity = opt.Alpha
	}
	mech, err := Mechanisms[opt.Noise](noise.Params{Epsilon: opt.Epsilon, Delta: opt.Delta, Sensitivity: pr.Sensitivity})
	if err != nil {
		return nil, fmt.Errorf("grid: calibrating %s: %w", opt.Noise, err)
	}
	pr.Mechanism = mech
	if pr.ZetaLo, pr.ZetaHi, err = noiseInterval(mech.Dist, &opt, n); err != nil {
		return nil, err
	}

	// Nominal references: C* and the query range over the feasible set.
	var solveTime time.Duration
	nominal, err := n.BuildOPF(OPFOptions{Formulation: opt.Formulation, LinearCost: true, Solve: opt.Solve})
	if err != nil {
		return nil, err
	}
	ns, err := nominal.Solve(ctx)
	if err != nil {
		return nil, err
	}
	solveTime += ns.Time.Solve
	if !ns.Status.OK() {
		pr.Status = ns.Status
		return pr, fmt.Errorf("grid: nominal DC-OPF is %v (check generator limits against the load and the line ratings)", ns.Status)
	}
	pr.NominalCost = ns.Cost
	pr.NominalQuery = dot(w, ns.Dispatch)
	if opt.Query.Kind == QueryCost {
		pr.NominalQuery += c0
	}
	tb := time.Now()
	cc, err := n.buildChance(&opt, mech.Dist, c, c0, w, n.Load, pr.ZetaLo, pr.ZetaHi)
	if err != nil {
		return nil, err
	}
	build := time.Since(tb)
	res, err := cc.m.Solve(ctx, opt.Solve)
	if err != nil {
		return nil, fmt.Errorf("grid: solving the private program: %w", err)
	}
	if res.Solution != nil {
		solveTime += res.Solution.SolveTime
	}
	pr.Status = res.Status
	pr.Time = Timing{Build: build + nominal.buildTime, Solve: solveTime}
	if !res.Status.OK() {
		pr.Time.Total = time.Since(t0)
		if res.Status == solver.PrimalInfeasible {
			return pr, fmt.Errorf("%w: %s query at alpha = %v MW, %s noise, %s method on [%.4g, %.4g]", ErrPrivateInfeasible, opt.Query, opt.Alpha, opt.Noise, opt.Method, pr.ZetaLo, pr.ZetaHi)
		}
		return pr, fmt.Errorf("grid: private program: %v", res.Status)
	}
	pr.PBar, pr.X = cc.decisionRule(res)
	pr.finish()
	if err := pr.Draw(opt.Source); err != nil {
		return nil, err
	}
	pr.Time.Total = time.Since(t0)
	return pr, nil
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// noiseInterval returns [ζ_lo, ζ_hi] for the chance method.
func noiseInterval(d noise.Distribution, opt *PrivateOptions, n *Network) (lo, hi float64, err error) {
	switch opt.Method {
	case Robust:
		lo, hi = d.Support()
		if math.IsInf(lo, 0) || math.IsInf(hi, 0) {
			return 0, 0, fmt.Errorf("grid: method robust needs bounded noise; %s has support [%v, %v] (use truncated-laplace or optimal)", opt.Noise, lo, hi)
		}
	case Vertex:
		S := VertexSampleSize(opt.Eta, opt.Beta, 1)
		src := opt.Source
		if src == nil {
			src = noise.CryptoSource()
		}
		lo, hi = math.Inf(1), math.Inf(-1)
		for s := 0; s < S; s++ {
			z := d.Sample(src)
			lo, hi = math.Min(lo, z), math.Max(hi, z)
		}
	case Bonferroni:
		up, low := limitedRows(n)
		rows := 2*n.NumGens() + len(up) + len(low)
		q := d.Quantile(1 - opt.Eta/float64(rows))
		lo, hi = -q, q
	}
	return lo, hi, nil
}

// chanceModel is the built chance-constrained program in vertex-split form.
type chanceModel struct {
	m        *model.Model
	plo, phi *model.Var // dispatch at ζ_lo and at ζ_hi
	zlo, zhi float64
}

// decisionRule maps the vertex dispatches back to p̄ and X:
// X = (p_hi − p_lo)/(ζ_hi − ζ_lo), p̄ = p_lo − ζ_lo X.
func (cc *chanceModel) decisionRule(res *model.Result) (pbar, x []float64) {
	lo, hi := res.Value(cc.plo), res.Value(cc.phi)
	pbar, x = make([]float64, len(lo)), make([]float64, len(lo))
	for g := range lo {
		x[g] = (hi[g] - lo[g]) / (cc.zhi - cc.zlo)
		pbar[g] = lo[g] - cc.zlo*x[g]
	}
	return pbar, x
}

// buildChance builds program (15) with every constraint enforced at both ends of
// [zlo, zhi] (zlo < 0 < zhi). The decision rule is written through its values
// at the two ends, p_lo = p̄ + ζ_lo X and p_hi = p̄ + ζ_hi X — an invertible
// change of variables — which turns the program into two copies of the nominal
// DC-OPF (generator limits become variable bounds, each copy has its own angles
// or PTDF flows) coupled only by the query row and the objective:
//
//	wᵀ(p_hi − p_lo) = ζ_hi − ζ_lo                      (wᵀX = 1)
//	E cost = cᵀ(ζ_hi p_lo − ζ_lo p_hi)/(ζ_hi − ζ_lo) + c0  (cᵀp̄ + c0)
//
// and the island balances of p_lo and p_hi imply 1ᵀX = 0 (Remark 3.5). For the
// CVaR objective, cᵀ(p̄ + Xζ_s) = cᵀ(p_lo (ζ_hi − ζ_s) + p_hi (ζ_s − ζ_lo))/(ζ_hi − ζ_lo).
func (n *Network) buildChance(opt *PrivateOptions, dist noise.Distribution, c []float64, c0 float64, w, load []float64, zlo, zhi float64) (*chanceModel, error) {
	if !(zlo < 0 && zhi > 0) {
		return nil, fmt.Errorf("grid: noise interval [%v, %v] must contain 0 in its interior", zlo, zhi)
	}
	ng := n.NumGens()
	m := model.New("private-dcopf")
	cc := &chanceModel{m: m, zlo: zlo, zhi: zhi}
	cc.plo = m.Vector("p_lo", ng)
	cc.phi = m.Vector("p_hi", ng)
	cc.plo.SetBounds(n.Pmin, n.Pmax)
	cc.phi.SetBounds(n.Pmin, n.Pmax)
	lo, hi := cc.plo.Expr(), cc.phi.Expr()
	cache := &genPTDFCache{}
	n.addNetwork(m, lo, load, opt.Formulation, "_lo", cache)
	n.addNetwork(m, hi, load, opt.Formulation, "_hi", cache)
	width := zhi - zlo
	m.Equal("query", hi.Sub(lo).Dot(w), model.Const(width))
	// cᵀ(p̄ + Xζ) as an expression in (p_lo, p_hi).
	costAt := func(z float64) model.Expr {
		return lo.Dot(c).Scale((zhi - z) / width).Add(hi.Dot(c).Scale((z - zlo) / width))
	}
	// Objective: expected cost, or its sample CVaR over the worst fraction q of
	// S scenarios: γ + (1/(qS)) Σ_s z_s, z_s ≥ cᵀ(p̄ + Xζ_s) − γ, z_s ≥ 0.
	if opt.CVaRQ == 0 {
		m.Minimize(costAt(0).Add(model.Const(c0)))
	} else {
		S := opt.CVaRSamples
		src := opt.Source
		if src == nil {
			src = noise.CryptoSource()
		}
		gamma := m.Scalar("gamma")
		z := m.Vector("z", S)
		zl, zh := make([]float64, S), make([]float64, S)
		for s := range zh {
			zh[s] = math.Inf(1)
		}
		z.SetBounds(zl, zh)
		for s := 0; s < S; s++ {
			m.GreaterEq(fmt.Sprintf("cvar_%d", s), z.At(s), costAt(dist.Sample(src)).Sub(gamma.Expr()))
		}
		m.Minimize(gamma.Expr().Add(z.Expr().Sum().Scale(1 / (opt.CVaRQ * float64(S)))).Add(model.Const(c0)))
	}
	if err := m.Err(); err != nil {
		return nil, fmt.Errorf("grid: building the private program: %w", err)
	}
	return cc, nil
}

// QueryRange computes (once) QueryMin and QueryMax, the range of the query over
// the feasible dispatches of the true data: a released value outside it is
// attained by no feasible dispatch.
func (pr *Private) QueryRange(ctx context.Context) (lo, hi float64, err error) {
	if pr.rangeDone {
		return pr.QueryMin, pr.QueryMax, nil
	}
	isCost := pr.Options.Query.Kind == QueryCost
	nominal := pr.NominalQuery
	if isCost {
		nominal -= pr.CostConst
	}
	lo, hi, _, err = pr.Network.queryRange(ctx, pr.Weights, &pr.Options, nominal)
	if err != nil {
		return 0, 0, err
	}
	if isCost {
		lo += pr.CostConst
		hi += pr.CostConst
	}
	pr.QueryMin, pr.QueryMax, pr.rangeDone = lo, hi, true
	return lo, hi, nil
}

// queryRange returns the minimum and maximum of wᵀp over the feasible dispatches
// (two LPs; the minimum is taken from the nominal value for the cost query).
func (n *Network) queryRange(ctx context.Context, w []float64, opt *PrivateOptions, nominal float64) (lo, hi float64, t time.Duration, err error) {
	solve := func(maximize bool) (float64, error) {
		o, err := n.BuildOPF(OPFOptions{Formulation: opt.Formulation, LinearCost: true, Solve: opt.Solve})
		if err != nil {
			return 0, err
		}
		if maximize {
			o.Model.Maximize(o.P.Expr().Dot(w))
		} else {
			o.Model.Minimize(o.P.Expr().Dot(w))
		}
		res, err := o.Model.Solve(ctx, opt.Solve)
		if err != nil {
			return 0, err
		}
		if res.Solution != nil {
			t += res.Solution.SolveTime
		}
		if !res.Status.OK() {
			return 0, fmt.Errorf("grid: query range: %v", res.Status)
		}
		return res.Objective, nil
	}
	if opt.Query.Kind == QueryCost {
		lo = nominal
	} else if lo, err = solve(false); err != nil {
		return
	}
	hi, err = solve(true)
	return
}

// finish computes flows of the decision rule and the feasible interval of ζ.
func (pr *Private) finish() {
	n := pr.Network
	_, pr.FlowBar = n.PowerFlow(pr.PBar)
	inj := make([]float64, n.NumBuses())
	for g, bi := range n.GenBus {
		inj[bi] += pr.X[g]
	}
	th := n.SolveAngles(inj)
	pr.FX = n.Bf.MulVecTo(nil, 1, th, 0)
	pr.MeanCost = dot(pr.Cost, pr.PBar) + pr.CostConst
	pr.MeanQuery = dot(pr.Weights, pr.PBar)
	if pr.Options.Query.Kind == QueryCost {
		pr.MeanQuery += pr.CostConst
	}
	lo, hi := math.Inf(-1), math.Inf(1)
	// r0 + r1 ζ ≤ u
	row := func(r0, r1, u float64) {
		u += 1e-6 * math.Max(1, math.Abs(u))
		switch {
		case r1 > 0:
			hi = math.Min(hi, (u-r0)/r1)
		case r1 < 0:
			lo = math.Max(lo, (u-r0)/r1)
		case r0 > u:
			lo, hi = math.Inf(1), math.Inf(-1)
		}
	}
	for g := range pr.PBar {
		row(pr.PBar[g], pr.X[g], n.Pmax[g])
		row(-pr.PBar[g], -pr.X[g], -n.Pmin[g])
	}
	for l := range pr.FlowBar {
		if !math.IsInf(n.FlowMax[l], 1) {
			row(pr.FlowBar[l], pr.FX[l], n.FlowMax[l])
		}
		if !math.IsInf(n.FlowMin[l], -1) {
			row(-pr.FlowBar[l], -pr.FX[l], -n.FlowMin[l])
		}
	}
	pr.FeasibleLo, pr.FeasibleHi = lo, hi
}

// Draw makes a fresh release and sets Zeta, Released, Dispatch, Feasible and
// FloatSafe. Each call is a new release (and spends privacy).
//
// Where package noise has a floating-point-safe release (Mironov 2012) and the
// method does not rely on the exact support, the released value comes from
// Mechanism.Release — the snapping mechanism for Laplace noise (output a
// multiple of the power of two Λ ≥ scale) — and ζ̂ is the released value minus
// MeanQuery, so the dispatch behind the release still costs exactly the
// released value. Otherwise (Gaussian and truncated Laplace noise, and the
// robust method, whose guarantee needs ζ̂ inside the support) ζ̂ is drawn with
// Dist.Sample.
func (pr *Private) Draw(src noise.Source) error {
	if pr.PBar == nil {
		return fmt.Errorf("grid: no decision rule to release (status %v)", pr.Status)
	}
	if src == nil {
		src = noise.CryptoSource()
	}
	pr.FloatSafe = false
	var z float64
	if pr.Options.Method != Robust {
		if r, err := pr.Mechanism.Release(pr.MeanQuery, src, noise.ReleaseOptions{}); err == nil {
			z, pr.FloatSafe = r-pr.MeanQuery, true
		} else if !errors.Is(err, noise.ErrUnsafeRelease) {
			return fmt.Errorf("grid: release: %w", err)
		}
	}
	if !pr.FloatSafe {
		z = pr.Mechanism.Dist.Sample(src)
	}
	pr.Zeta = z
	pr.Released = pr.MeanQuery + z
	pr.Dispatch = make([]float64, len(pr.PBar))
	for g := range pr.PBar {
		pr.Dispatch[g] = pr.PBar[g] + pr.X[g]*z
	}
	pr.Feasible = z >= pr.FeasibleLo && z <= pr.FeasibleHi
	return nil
}

// StrategyStats summarizes N simulated releases of one strategy. Losses are
// relative to the nominal cost C* in percent: cost of the dispatch behind the
// release minus C* (for the cost query, the released value minus C*).
type StrategyStats struct {
	N             int     `json:"n"`
	LossPct       float64 `json:"loss_pct"`       // mean loss
	InfeasiblePct float64 `json:"infeasible_pct"` // share of infeasible releases
	CVaRPct       float64 `json:"cvar_pct"`       // mean of the worst 5% of losses
}

// Evaluation compares program perturbation with the input and output
// perturbation baselines (Dvorkin et al., Table in Section 4.1).
type Evaluation struct {
	Program StrategyStats `json:"program"` // N = 0 when the private program is infeasible
	Input   StrategyStats `json:"input"`
	Output  StrategyStats `json:"output"`
	Time    time.Duration `json:"-"` // total
	// ProgramTime is the time of the program-perturbation evaluation alone (no
	// solves: ζ̂ is compared with the precomputed feasible interval).
	ProgramTime time.Duration `json:"-"`
}

// EvaluateOptions configure Evaluate.
type EvaluateOptions struct {
	N int // realizations per strategy
	// InputN caps the input-perturbation realizations (each is one OPF solve);
	// 0 means N.
	InputN int
	// ProgramOnly skips the input and output baselines.
	ProgramOnly bool
	// Workers solve the input-perturbation OPFs in parallel (0: GOMAXPROCS).
	Workers  int
	Source   noise.Source
	Progress func(done, total int) // optional
}

// Evaluate simulates N releases per strategy with the release's noise. It also
// runs on a Private whose program was infeasible (Program then has N = 0):
//
//   - program: ζ̂ ~ noise; the release is infeasible when p̄ + Xζ̂ violates a
//     constraint (ζ̂ outside [FeasibleLo, FeasibleHi]); loss = cᵀ(p̄ + Xζ̂) + c0 − C*.
//   - output: the nominal query plus noise of the same mechanism; infeasible when
//     the value lies outside [QueryMin, QueryMax], the range of the query over
//     feasible dispatches (no feasible dispatch attains it); loss: released − C*
//     for the cost query, 0 otherwise (the dispatch is the nominal one).
//   - input: every load bus (Pd ≠ 0) perturbed by noise calibrated to
//     sensitivity α, then the OPF is re-solved; infeasible when that OPF is
//     infeasible or its query value lies outside [QueryMin, QueryMax]; loss =
//     C*(d̃) − C*.
func (pr *Private) Evaluate(ctx context.Context, eo EvaluateOptions) (*Evaluation, error) {
	t0 := time.Now()
	if eo.N < 1 {
		return nil, fmt.Errorf("grid: EvaluateOptions.N is %d, must be ≥ 1", eo.N)
	}
	if pr.Mechanism == nil || pr.Weights == nil || !(pr.NominalCost != 0 || pr.Status.OK()) {
		return nil, fmt.Errorf("grid: nothing to evaluate (status %v)", pr.Status)
	}
	src := eo.Source
	if src == nil {
		src = noise.CryptoSource()
	}
	n := pr.Network
	opt := pr.Options
	ev := &Evaluation{}
	tp := time.Now()
	cstar := pr.NominalCost
	isCost := opt.Query.Kind == QueryCost

	loss := make([]float64, eo.N)
	infeasible := 0
	if pr.PBar != nil {
		cx := dot(pr.Cost, pr.X)
		for s := range loss {
			z := pr.Mechanism.Dist.Sample(src)
			if z < pr.FeasibleLo || z > pr.FeasibleHi {
				infeasible++
			}
			loss[s] = pr.MeanCost + cx*z - cstar
		}
		ev.Program = summarize(loss, infeasible, eo.N, cstar)
	}
	ev.ProgramTime = time.Since(tp)
	if eo.ProgramOnly {
		ev.Time = time.Since(t0)
		return ev, nil
	}
	if _, _, err := pr.QueryRange(ctx); err != nil {
		return nil, err
	}

	infeasible = 0
	for s := range loss {
		z := pr.Mechanism.Dist.Sample(src)
		r := pr.NominalQuery + z
		if r < pr.QueryMin || r > pr.QueryMax {
			infeasible++
		}
		loss[s] = 0
		if isCost {
			loss[s] = r - cstar
		}
	}
	ev.Output = summarize(loss, infeasible, eo.N, cstar)

	// Input perturbation.
	ni := eo.InputN
	if ni <= 0 || ni > eo.N {
		ni = eo.N
	}
	inMech, err := Mechanisms[opt.Noise](noise.Params{Epsilon: opt.Epsilon, Delta: opt.Delta, Sensitivity: opt.Alpha})
	if err != nil {
		return nil, fmt.Errorf("grid: input perturbation noise: %w", err)
	}
	var loadBus []int
	caseIdx := n.Case.BusIndex()
	for i, b := range n.BusID {
		if n.Case.Buses[caseIdx[b]].Pd != 0 {
			loadBus = append(loadBus, i)
		}
	}
	// The perturbed loads are drawn sequentially (reproducible with a seeded
	// source); the OPFs are solved by Workers goroutines.
	loads := make([][]float64, ni)
	for s := range loads {
		loads[s] = append([]float64(nil), n.Load...)
		for _, i := range loadBus {
			loads[s][i] += inMech.Dist.Sample(src)
		}
	}
	type outcome struct {
		ok   bool
		cost float64
		q    float64
	}
	results := make([]outcome, ni)
	workers := eo.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var (
		mu       sync.Mutex
		done     int
		firstErr error
		wg       sync.WaitGroup
	)
	next := make(chan int)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := range next {
				sol, err := n.solveLinear(ctx, opt, loads[s])
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
				}
				if err == nil && sol.Status.OK() {
					results[s] = outcome{ok: true, cost: sol.Cost, q: dot(pr.Weights, sol.Dispatch)}
				}
				done++
				if eo.Progress != nil {
					eo.Progress(done, ni)
				}
				mu.Unlock()
			}
		}()
	}
	for s := 0; s < ni; s++ {
		if ctx.Err() != nil {
			break
		}
		next <- s
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if firstErr != nil {
		return nil, firstErr
	}
	loss = loss[:0]
	infeasible = 0
	for _, r := range results {
		if !r.ok {
			infeasible++
			continue
		}
		q := r.q
		if isCost {
			q += pr.CostConst
		}
		if q < pr.QueryMin || q > pr.QueryMax {
			infeasible++
		}
		loss = append(loss, r.cost-cstar)
	}
	ev.Input = summarize(loss, infeasible, ni, cstar)
	ev.Time = time.Since(t0)
	return ev, nil
}

// solveLinear solves the linear-cost DC-OPF for the given loads.
func (n *Network) solveLinear(ctx context.Context, opt PrivateOptions, load []float64) (*OPFSolution, error) {
	o, err := n.BuildOPF(OPFOptions{Formulation: opt.Formulation, Load: load, LinearCost: true, Solve: opt.Solve})
	if err != nil {
		return nil, err
	}
	return o.Solve(ctx)
}

// summarize turns absolute losses into percentages of cstar; infeasible counts
// out of total realizations (loss may hold fewer entries when a realization has
// no dispatch at all).
func summarize(loss []float64, infeasible, total int, cstar float64) StrategyStats {
	st := StrategyStats{N: total, InfeasiblePct: 100 * float64(infeasible) / float64(total)}
	if len(loss) == 0 {
		return st
	}
	var sum float64
	for _, l := range loss {
		sum += l
	}
	st.LossPct = 100 * sum / float64(len(loss)) / math.Abs(cstar)
	sorted := append([]float64(nil), loss...)
	sort.Float64s(sorted)
	k := max(1, int(math.Ceil(0.05*float64(len(sorted)))))
	var tail float64
	for _, l := range sorted[len(sorted)-k:] {
		tail += l
	}
	st.CVaRPct = 100 * tail / float64(k) / math.Abs(cstar)
	return st
}

// AdjacentCenters re-solves the private program on the two α-adjacent load
// vectors of the paper's Figure (Section 4.1) — the largest load decreased by α
// (D″) and increased by α (D′) — with the same noise interval (it is data
// independent) and returns the centres MeanQuery of the released-value
// distributions for D″, D and D′. The released density for each is the noise
// density shifted to its centre.
func (pr *Private) AdjacentCenters(ctx context.Context) ([3]float64, error) {
	var out [3]float64
	n := pr.Network
	imax := 0
	for i, d := range n.Load {
		if d > n.Load[imax] {
			imax = i
		}
	}
	opt := pr.Options
	for k, sgn := range []float64{-1, 0, 1} {
		if sgn == 0 {
			out[k] = pr.MeanQuery
			continue
		}
		load := append([]float64(nil), n.Load...)
		load[imax] += sgn * opt.Alpha
		cc, err := n.buildChance(&opt, pr.Mechanism.Dist, pr.Cost, pr.CostConst, pr.Weights, load, pr.ZetaLo, pr.ZetaHi)
		if err != nil {
			return out, err
		}
		res, err := cc.m.Solve(ctx, opt.Solve)
		if err != nil {
			return out, err
		}
		if !res.Status.OK() {
			return out, fmt.Errorf("grid: adjacent dataset (load at bus %d %+g MW): private program %v", n.BusID[imax], sgn*opt.Alpha, res.Status)
		}
		pbar, _ := cc.decisionRule(res)
		out[k] = dot(pr.Weights, pbar)
		if opt.Query.Kind == QueryCost {
			out[k] += pr.CostConst
		}
	}
	return out, nil
}
