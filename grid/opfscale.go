package grid

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/privopt/privopt/model"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/highs"
	"github.com/privopt/privopt/solver/ipm"
)

// Limits selects how SolveDCOPF writes branch flow limits.
type Limits int

const (
	// LimitsAuto (the zero value) applies the measured rule of AutoStrategy.
	LimitsAuto Limits = iota
	// LimitsAll writes every finite flow limit into the model up front (BuildOPF).
	LimitsAll
	// LimitsLazy starts without flow limits and adds, round by round, the limits
	// that the last solution violates (constraint generation): at an optimum of
	// the relaxation whose flows respect every limit, that optimum is optimal for
	// the full problem, since the relaxation's feasible set contains the full one.
	// On transmission networks only a few percent of the limits bind, so the
	// model stays small (see BENCHMARKS.md, "Market-scale DC-OPF").
	LimitsLazy
)

// String returns "auto", "all" or "lazy".
func (l Limits) String() string {
	switch l {
	case LimitsAuto:
		return "auto"
	case LimitsAll:
		return "all"
	case LimitsLazy:
		return "lazy"
	}
	return fmt.Sprintf("Limits(%d)", int(l))
}

// Method selects the optimization backend of SolveDCOPF.
type Method int

const (
	// MethodAuto (the zero value) applies the measured rule of AutoStrategy.
	MethodAuto Method = iota
	// MethodHiGHS is HiGHS with its own choice: dual simplex for an LP, the
	// active-set QP solver when the costs are quadratic.
	MethodHiGHS
	// MethodHiGHSIPM is HiGHS's interior-point method with crossover (LPs only:
	// HiGHS solves every QP with its active-set solver whatever the method).
	MethodHiGHSIPM
	// MethodIPM is privopt's interior-point backend (package solver/ipm).
	MethodIPM
)

// String returns "auto", "highs", "highs-ipm" or "ipm".
func (m Method) String() string {
	switch m {
	case MethodAuto:
		return "auto"
	case MethodHiGHS:
		return "highs"
	case MethodHiGHSIPM:
		return "highs-ipm"
	case MethodIPM:
		return "ipm"
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

// DCOPFOptions configure SolveDCOPF. The zero value is the automatic choice.
type DCOPFOptions struct {
	// OPF carries the formulation (Auto: AutoStrategy's rule), the load override,
	// LinearCost and model.SolveOptions; OPF.Solve.Solver, when set, overrides
	// Method.
	OPF    OPFOptions
	Limits Limits
	Method Method
	// Presolve is HiGHS's presolve option: "" (HiGHS default: on), "on" or "off".
	Presolve string
	// MaxRounds bounds the lazy rounds (0: 50). When exceeded, SolveDCOPF
	// returns an error naming the violated branches left.
	MaxRounds int
	// ViolationTol is the flow violation (MW) above which a lazy round adds a
	// limit: a flow f_l is accepted when f_l ≤ FlowMax_l + tol·max(1, |FlowMax_l|)
	// and likewise for FlowMin (0: 1e-6).
	ViolationTol float64
	// Progress, when set, is called after every solve with the round (from 1),
	// the number of limits found violated (to be added next) and the solve time.
	Progress func(round, violated int, solve time.Duration)
}

// Validate checks the enumerations, the presolve string and the tolerances.
func (o *DCOPFOptions) Validate(n *Network) error {
	if err := o.OPF.Validate(n); err != nil {
		return err
	}
	if o.Limits < LimitsAuto || o.Limits > LimitsLazy {
		return fmt.Errorf("grid: DCOPFOptions.Limits is %d, must be LimitsAuto, LimitsAll or LimitsLazy", int(o.Limits))
	}
	if o.Method < MethodAuto || o.Method > MethodIPM {
		return fmt.Errorf("grid: DCOPFOptions.Method is %d, must be MethodAuto, MethodHiGHS, MethodHiGHSIPM or MethodIPM", int(o.Method))
	}
	switch o.Presolve {
	case "", "on", "off":
	default:
		return fmt.Errorf("grid: DCOPFOptions.Presolve is %q, must be \"\", \"on\" or \"off\"", o.Presolve)
	}
	if o.MaxRounds < 0 {
		return fmt.Errorf("grid: DCOPFOptions.MaxRounds is %d, must be ≥ 0", o.MaxRounds)
	}
	if o.ViolationTol < 0 || math.IsNaN(o.ViolationTol) || math.IsInf(o.ViolationTol, 0) {
		return fmt.Errorf("grid: DCOPFOptions.ViolationTol is %v, must be ≥ 0 and finite", o.ViolationTol)
	}
	return nil
}

// Strategy is a concrete configuration of SolveDCOPF.
type Strategy struct {
	Formulation Formulation
	Limits      Limits
	Method      Method
	// Presolve is HiGHS's presolve setting ("" for HiGHS's default, on).
	Presolve string
}

// String returns e.g. "ptdf/lazy/highs" (with " presolve off" when set).
func (s Strategy) String() string {
	str := s.Formulation.String() + "/" + s.Limits.String() + "/" + s.Method.String()
	if s.Presolve != "" {
		str += " presolve " + s.Presolve
	}
	return str
}

// AutoHiGHSMaxGens is the largest number of generators for which AutoStrategy
// solves a quadratic-cost DC-OPF with HiGHS. HiGHS solves QPs with an
// active-set method whose work grows with the number of generators strictly
// inside their limits (the null space of the active set): with lazy PTDF limits
// it took 4 ms on 6468_rte (399 generators) and did not finish in 60 s on
// 10000_goc (2,016 generators, 38 dense flow rows), while privopt's IPM solves
// 10000_goc in about a second (BENCHMARKS.md, "Market-scale DC-OPF"). The
// threshold lies between the two measured sizes; it is not tuned finer.
const AutoHiGHSMaxGens = 1000

// AutoStrategy returns the configuration SolveDCOPF uses for the fields left at
// Auto. The rule is measured (bench/opfscale, BENCHMARKS.md "Market-scale
// DC-OPF"):
//
//   - Networks of at most AutoPTDFMaxBuses buses keep BuildOPF's rule (PTDF,
//     all limits, HiGHS): the full model is as small as a lazy one and one solve
//     beats several rounds.
//   - Otherwise limits are added lazily (except on the IPM, below): few limits
//     bind at a DC optimum
//     (2383wp_k: 11 of 2,896 branches; 6468_rte: 7 of 9,000; 10000_goc: 38 of
//     13,193), so the model keeps its size.
//   - With at most AutoHiGHSMaxGens generators, or with linear costs (an LP,
//     where the dual simplex is fast), the PTDF formulation on HiGHS with
//     presolve off: NumGens columns, one balance row per island and a few dense
//     flow rows (one sparse solve each); HiGHS's presolve costs more than it
//     saves on such a model.
//   - With more generators and quadratic costs, the B-θ formulation with all
//     limits on privopt's IPM: HiGHS's active-set QP solver stalls (see
//     AutoHiGHSMaxGens); the IPM's sparse LDLᵀ factors the B-θ KKT system
//     (2 nonzeros per flow row) much faster than the PTDF one, whose dense flow
//     rows fill the factor (4661_sdet: 0.4 s against 28 s); and since its time
//     is dominated by the network, not by the flow rows, one solve with every
//     limit is as fast as the lazy rounds (10000_goc: 0.67 s against 0.79–0.89
//     s in one run) and does not multiply when many limits bind. (Lazy B-θ,
//     when asked for, solves its first round, which has no flow row, in PTDF
//     form and seeds the B-θ model with the limits it violates.)
func AutoStrategy(n *Network, opt DCOPFOptions) Strategy {
	s := Strategy{Formulation: opt.OPF.Formulation, Limits: opt.Limits, Method: opt.Method, Presolve: opt.Presolve}
	small := n.NumBuses() <= AutoPTDFMaxBuses
	qp := !opt.OPF.LinearCost && n.hasQuadraticCost()
	highsOK := !qp || n.NumGens() <= AutoHiGHSMaxGens
	if s.Limits == LimitsAuto {
		s.Limits = LimitsLazy
		if small || !highsOK {
			s.Limits = LimitsAll
		}
	}
	if s.Formulation == Auto {
		switch {
		case small:
			s.Formulation = PTDF
		case s.Limits == LimitsAll || !highsOK:
			s.Formulation = BTheta
		default:
			s.Formulation = PTDF
		}
	}
	if s.Method == MethodAuto {
		s.Method = MethodHiGHS
		if !highsOK {
			s.Method = MethodIPM
		}
		if s.Method == MethodHiGHS && s.Presolve == "" && s.Limits == LimitsLazy && s.Formulation == PTDF {
			s.Presolve = "off"
		}
	}
	return s
}

// hasQuadraticCost reports whether some in-service generator has c2 > 0.
func (n *Network) hasQuadraticCost() bool {
	for _, gi := range n.Gen {
		if c2, _, _, ok := n.Case.Costs[gi].Quadratic(); ok && c2 > 0 {
			return true
		}
	}
	return false
}

// DCOPFResult is the outcome of SolveDCOPF: the solution (Time sums every round:
// Build includes the rows added lazily, Solve the backend time of all rounds)
// and the final model, whose rows include the lazily added limits as ordinary
// rows (so its optimum is the full DC-OPF's).
type DCOPFResult struct {
	*OPFSolution
	OPF      *OPF
	Strategy Strategy
	// Rounds is the number of solves (1 with LimitsAll).
	Rounds int
	// Monitored lists the branches whose limits were added lazily (empty with
	// LimitsAll, where every limit is in the model).
	Monitored []int
}

// SolveDCOPF solves the nominal DC-OPF of BuildOPF with the configuration
// chosen by opt (AutoStrategy for the fields left at Auto). The optimal cost
// equals BuildOPF's up to solver tolerances whichever configuration is used
// (tests compare them on PGLib cases). An infeasible OPF is reported through
// Status.
func (n *Network) SolveDCOPF(ctx context.Context, opt DCOPFOptions) (*DCOPFResult, error) {
	start := time.Now()
	if err := opt.Validate(n); err != nil {
		return nil, err
	}
	st := AutoStrategy(n, opt)
	oo := opt.OPF
	oo.Formulation = st.Formulation
	if oo.Solve.Solver == nil {
		switch st.Method {
		case MethodHiGHS, MethodHiGHSIPM:
			h := highs.Options{Presolve: st.Presolve}
			if st.Method == MethodHiGHSIPM {
				h.Method = "ipm"
			}
			s, err := highs.NewWithOptions(h)
			if err != nil {
				return nil, fmt.Errorf("grid: %w", err)
			}
			oo.Solve.Solver = s
		case MethodIPM:
			oo.Solve.Solver = ipm.New()
		}
	}
	res := &DCOPFResult{Strategy: st}
	var o *OPF
	var err error
	if st.Limits == LimitsAll {
		o, err = n.BuildOPF(oo)
	} else {
		o, err = n.buildUnlimited(oo)
	}
	if err != nil {
		return nil, err
	}
	res.OPF = o
	res.Monitored = []int{}
	maxRounds := opt.MaxRounds
	if maxRounds == 0 {
		maxRounds = 50
	}
	tol := opt.ViolationTol
	if tol == 0 {
		tol = 1e-6
	}
	added := make(map[int]bool)
	var total Timing
	if st.Limits == LimitsLazy && st.Formulation == BTheta {
		// Screening round: the first lazy round has no flow row, and its PTDF
		// form (NumGens columns, one row per island) solves in milliseconds
		// where the B-θ form factors the whole network; its violated limits
		// seed the B-θ model (10000_goc: all 38 limits found here).
		po := oo
		po.Formulation = PTDF
		screen, err := n.buildUnlimited(po)
		if err != nil {
			return nil, err
		}
		ss, err := screen.Solve(ctx)
		if err != nil {
			return nil, err
		}
		res.Rounds++
		total.Solve += ss.Time.Solve
		if ss.Status.OK() {
			var viol []int
			for l, f := range ss.Flow {
				if violates(f, n.FlowMin[l], n.FlowMax[l], tol) {
					viol = append(viol, l)
				}
			}
			if opt.Progress != nil {
				opt.Progress(res.Rounds, len(viol), ss.Time.Solve)
			}
			for _, l := range viol {
				added[l] = true
				res.Monitored = append(res.Monitored, l)
				if err := o.AddFlowLimit([]int{l}, []float64{1}, n.FlowMin[l], n.FlowMax[l], fmt.Sprintf("lazy_flow_%d", l)); err != nil {
					return nil, err
				}
			}
		}
	}
	o.buildTime = time.Since(start) - total.Solve // option handling and the builds
	for {
		sol, err := o.Solve(ctx)
		if err != nil {
			return nil, err
		}
		if sol.Status == solver.NumericalError && opt.Method == MethodAuto && opt.OPF.Solve.Solver == nil && st.Method != MethodIPM {
			// As OPF.Solve does for its default backend: HiGHS's QP solver can
			// fail its optimality check; the interior-point backend retries.
			o.Options.Solve.Solver = ipm.New()
			st.Method = MethodIPM
			res.Strategy = st
			retry, err := o.Solve(ctx)
			if err != nil {
				return nil, err
			}
			retry.Time.Solve += sol.Time.Solve
			sol = retry
		}
		res.Rounds++
		roundSolve := sol.Time.Solve
		total.Solve += roundSolve
		sol.Time.Solve = total.Solve
		sol.Time.Build = o.buildTime
		res.OPFSolution = sol
		if !sol.Status.OK() || st.Limits == LimitsAll {
			break
		}
		var up, lo []int
		for l, f := range sol.Flow {
			if added[l] {
				continue
			}
			if hi := n.FlowMax[l]; f > hi+tol*math.Max(1, math.Abs(hi)) {
				up = append(up, l)
			} else if low := n.FlowMin[l]; f < low-tol*math.Max(1, math.Abs(low)) {
				lo = append(lo, l)
			}
		}
		if opt.Progress != nil {
			opt.Progress(res.Rounds, len(up)+len(lo), roundSolve)
		}
		if len(up)+len(lo) == 0 {
			break
		}
		if res.Rounds >= maxRounds {
			return nil, fmt.Errorf("grid: SolveDCOPF: %d flow limits still violated after %d lazy rounds (first: branch %d); raise DCOPFOptions.MaxRounds", len(up)+len(lo), res.Rounds, n.Branch[append(up, lo...)[0]]+1)
		}
		t0 := time.Now()
		// Both limits of a violated branch are added: the flow may swing to the
		// other side in the next round.
		for _, l := range append(up, lo...) {
			added[l] = true
			res.Monitored = append(res.Monitored, l)
			if err := o.AddFlowLimit([]int{l}, []float64{1}, n.FlowMin[l], n.FlowMax[l], fmt.Sprintf("lazy_flow_%d", l)); err != nil {
				return nil, err
			}
		}
		o.buildTime += time.Since(t0)
	}
	res.Time.Build = o.buildTime
	res.Time.Total = time.Since(start)
	return res, nil
}

// buildUnlimited builds BuildOPF's model without any flow-limit row
// (OPFOptions.OmitFlowLimits): the same objective, bounds and balance rows, on
// a shallow copy of n whose limits are infinite (the copy shares every matrix
// and the factorization), then points the OPF back at n.
func (n *Network) buildUnlimited(opt OPFOptions) (*OPF, error) {
	u := *n
	u.FlowMin = make([]float64, len(n.FlowMin))
	u.FlowMax = make([]float64, len(n.FlowMax))
	for l := range u.FlowMin {
		u.FlowMin[l], u.FlowMax[l] = math.Inf(-1), math.Inf(1)
	}
	opt.OmitFlowLimits = false
	o, err := u.BuildOPF(opt)
	if err != nil {
		return nil, err
	}
	o.Network = n
	o.Options.OmitFlowLimits = true
	return o, nil
}

// flowCut is a row lo ≤ Σ_k w_k f_{l_k} ≤ hi added to an OPF after BuildOPF
// (a lazily added limit or a post-contingency limit); lower and upper are its
// two one-sided constraints (nil when that side is infinite).
type flowCut struct {
	lower, upper *model.Constraint
	branches     []int
	weights      []float64
}

// AddFlowLimit adds to the model the row
//
//	lo ≤ Σ_k weights[k] · f_{branches[k]} ≤ hi
//
// on branch flows f (MW, f = Bf θ + Pfinj), written in the OPF's formulation:
// with B-θ over the angles (2 nonzeros per branch), with PTDF over the dispatch
// through the PTDF row r = PTDFᵀ w (one sparse solve):
//
//	Σ_k w_k f_{l_k} = rᵀ (Cg p − Load − Pbusinj) + wᵀ Pfinj.
//
// An infinite lo or hi drops that side. A flow limit is branches = {l}, w = {1};
// a post-contingency limit of branch l after the outage of k is {l, k} with
// w = {1, LODF_{l,k}}. The row's duals enter the LMPs like the flow limits of
// BuildOPF. Names must be unique in the model.
func (o *OPF) AddFlowLimit(branches []int, weights []float64, lo, hi float64, name string) error {
	n := o.Network
	if len(branches) != len(weights) {
		return fmt.Errorf("grid: AddFlowLimit %s: %d branches but %d weights", name, len(branches), len(weights))
	}
	for k, l := range branches {
		if l < 0 || l >= n.NumBranches() {
			return fmt.Errorf("grid: AddFlowLimit %s: branch index %d out of range [0, %d)", name, l, n.NumBranches())
		}
		if math.IsNaN(weights[k]) || math.IsInf(weights[k], 0) {
			return fmt.Errorf("grid: AddFlowLimit %s: weight %d is %v, must be finite", name, k, weights[k])
		}
	}
	if math.IsNaN(lo) || math.IsNaN(hi) || lo > hi {
		return fmt.Errorf("grid: AddFlowLimit %s: limits [%v, %v] must satisfy lo ≤ hi", name, lo, hi)
	}
	b := model.NewExprBuilder(1)
	var c float64
	for k, l := range branches {
		c += weights[k] * n.Pfinj[l]
	}
	if o.Theta != nil {
		for k, l := range branches {
			w := weights[k] * n.B[l]
			b.AddVar(0, o.Theta, n.From[l], w)
			b.AddVar(0, o.Theta, n.To[l], -w)
		}
	} else {
		mu := make([]float64, n.NumBranches())
		for k, l := range branches {
			mu[l] += weights[k]
		}
		r := n.PTDFTransMul(mu)
		for i, ri := range r {
			c -= ri * (o.load[i] + n.Pbusinj[i])
		}
		for g, bi := range n.GenBus {
			if r[bi] != 0 {
				b.AddVar(0, o.P, g, r[bi])
			}
		}
	}
	b.AddConst(0, c)
	e := b.Expr()
	cut := flowCut{branches: append([]int(nil), branches...), weights: append([]float64(nil), weights...)}
	m := o.Model
	if !math.IsInf(hi, 1) {
		cut.upper = m.LessEq(name+"_max", e, model.Const(hi))
	}
	if !math.IsInf(lo, -1) {
		cut.lower = m.GreaterEq(name+"_min", e, model.Const(lo))
	}
	if err := m.Err(); err != nil {
		return fmt.Errorf("grid: AddFlowLimit %s: %w", name, err)
	}
	o.cuts = append(o.cuts, cut)
	return nil
}

// addCutDuals adds the multipliers of the rows of AddFlowLimit to the branch
// multipliers μ that lmp turns into congestion prices: a row Σ_k w_k f_{l_k}
// with dual y contributes ±y·w_k to μ_{l_k} (+ for ≤, − for ≥, as BuildOPF's
// flow_max / flow_min).
func (o *OPF) addCutDuals(res *model.Result, mu []float64) {
	for _, c := range o.cuts {
		var y float64
		if c.upper != nil {
			y += res.Dual(c.upper)[0]
		}
		if c.lower != nil {
			y -= res.Dual(c.lower)[0]
		}
		if y == 0 {
			continue
		}
		for k, l := range c.branches {
			mu[l] += y * c.weights[k]
		}
	}
}
