package grid

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/privopt/privopt/model"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/ipm"
	"github.com/privopt/privopt/sparse"
)

// Formulation selects how the network constraints of a DC-OPF are written.
type Formulation int

const (
	// Auto (the zero value) picks PTDF for networks of at most
	// AutoPTDFMaxBuses buses and BTheta above.
	Auto Formulation = iota
	// PTDF writes branch flows as f = PTDF·(Cg p − Load − Pbusinj) + Pfinj with one
	// power balance row per island: variables are the dispatch only; the constraint
	// matrix has (limited branches) × (generators) dense-ish rows. Best for small
	// networks.
	PTDF
	// BTheta keeps the bus angles θ as variables with one balance row per bus
	// (Cg p − Bbus θ = Load + Pbusinj), θ_ref = 0 and flow rows Bf θ + Pfinj:
	// larger but very sparse. Best for large networks (2383wp_k: 50 ms against
	// 0.5 s for PTDF; see BenchmarkOPF).
	BTheta
)

// AutoPTDFMaxBuses is the largest network for which Auto chooses PTDF.
const AutoPTDFMaxBuses = 100

// resolve maps Auto to a concrete formulation for n.
func (f Formulation) resolve(n *Network) Formulation {
	if f != Auto {
		return f
	}
	if n.NumBuses() <= AutoPTDFMaxBuses {
		return PTDF
	}
	return BTheta
}

// String returns "auto", "ptdf" or "b-theta" (the names ParseFormulation accepts).
func (f Formulation) String() string {
	switch f {
	case Auto:
		return "auto"
	case PTDF:
		return "ptdf"
	case BTheta:
		return "b-theta"
	}
	return fmt.Sprintf("Formulation(%d)", int(f))
}

// ParseFormulation parses "auto", "ptdf" or "b-theta".
func ParseFormulation(s string) (Formulation, error) {
	for _, f := range []Formulation{Auto, PTDF, BTheta} {
		if f.String() == s {
			return f, nil
		}
	}
	return 0, fmt.Errorf("grid: formulation %q: must be auto, ptdf or b-theta", s)
}

// OPFOptions configure BuildOPF.
type OPFOptions struct {
	Formulation Formulation
	// Load overrides the network's bus loads (MW per internal bus, length
	// NumBuses); nil uses Network.Load.
	Load []float64
	// LinearCost drops the quadratic cost coefficients c2 (keeping c1 p + c0).
	LinearCost bool
	// OmitFlowLimits builds the model without any branch flow-limit row (the
	// relaxation that constraint generation starts from); the caller adds the
	// limits it needs with OPF.AddFlowLimit, as SolveDCOPF does with LimitsLazy
	// and the private release with its lazily monitored branches. An optimum
	// of the relaxation whose flows respect every limit is optimal for the full
	// model, whose feasible set the relaxation contains.
	OmitFlowLimits bool
	// Solve is passed to model.Solve.
	Solve model.SolveOptions
}

// Validate checks the formulation and the load override.
func (o *OPFOptions) Validate(n *Network) error {
	if o.Formulation != Auto && o.Formulation != PTDF && o.Formulation != BTheta {
		return fmt.Errorf("grid: OPFOptions.Formulation is %d, must be Auto, PTDF or BTheta", int(o.Formulation))
	}
	if o.Load != nil {
		if len(o.Load) != n.NumBuses() {
			return fmt.Errorf("grid: OPFOptions.Load has length %d, want NumBuses = %d", len(o.Load), n.NumBuses())
		}
		for i, v := range o.Load {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("grid: OPFOptions.Load[%d] is %v, must be finite", i, v)
			}
		}
	}
	return nil
}

// OPF is a built DC-OPF model:
//
//	minimize    Σ_g cost_g(p_g)
//	subject to  Pmin ≤ p ≤ Pmax
//	            power balance (per island, or per bus for BTheta)
//	            FlowMin ≤ f(p) ≤ FlowMax   for branches with a finite limit
//
// with cost_g = c2 p² + c1 p + c0 (constants included) or a convex piecewise-linear
// epigraph. The model may be extended before Solve (it is exported), which the
// private release does not do: it builds its own chance-constrained program.
type OPF struct {
	Network *Network
	Options OPFOptions
	Model   *model.Model
	P       *model.Var // dispatch, MW, one per Network generator
	Theta   *model.Var // bus angles (radians), BTheta only
	T       *model.Var // epigraph of piecewise-linear costs, nil if none

	load      []float64
	net       netCons
	cuts      []flowCut // rows added after BuildOPF (lazy limits, contingencies)
	buildTime time.Duration
}

// CostCoefficients returns c2, c1 (per generator, $/MW²h and $/MWh) and the sum
// of the constant terms c0 of the polynomial costs; pwl lists the generators with
// piecewise-linear costs (their entries in c1, c2 are 0).
func (n *Network) CostCoefficients() (c2, c1 []float64, c0 float64, pwl []int) {
	c2 = make([]float64, n.NumGens())
	c1 = make([]float64, n.NumGens())
	for g, gi := range n.Gen {
		a2, a1, a0, ok := n.Case.Costs[gi].Quadratic()
		if !ok {
			pwl = append(pwl, g)
			continue
		}
		c2[g], c1[g] = a2, a1
		c0 += a0
	}
	return c2, c1, c0, pwl
}

// BuildOPF builds the DC-OPF model of the network (see OPF).
func (n *Network) BuildOPF(opt OPFOptions) (*OPF, error) {
	t0 := time.Now()
	if err := opt.Validate(n); err != nil {
		return nil, err
	}
	if opt.OmitFlowLimits {
		return n.buildUnlimited(opt)
	}
	opt.Formulation = opt.Formulation.resolve(n)
	o := &OPF{Network: n, Options: opt, load: opt.Load}
	if o.load == nil {
		o.load = n.Load
	}
	ng := n.NumGens()
	m := model.New("dcopf")
	o.Model = m
	o.P = m.Vector("p", ng)
	o.P.SetBounds(n.Pmin, n.Pmax)
	p := o.P.Expr()

	// Objective.
	c2, c1, c0, pwl := n.CostCoefficients()
	obj := p.Dot(c1).Add(model.Const(c0))
	if len(pwl) > 0 {
		o.T = m.Vector("pwl_cost", len(pwl))
		obj = obj.Add(o.T.Expr().Sum())
		// t_g ≥ min over [Pmin, Pmax] of the cost: a valid bound (t_g ≥ cost(p_g))
		// that keeps the epigraph variables from being free, which HiGHS's QP
		// solver does not handle well when other generators have quadratic costs.
		tlo, thi := make([]float64, len(pwl)), make([]float64, len(pwl))
		for k, g := range pwl {
			gc := &n.Case.Costs[n.Gen[g]]
			tlo[k] = math.Min(gc.Eval(n.Pmin[g]), gc.Eval(n.Pmax[g]))
			for _, x := range gc.X {
				if x > n.Pmin[g] && x < n.Pmax[g] {
					tlo[k] = math.Min(tlo[k], gc.Eval(x))
				}
			}
			thi[k] = math.Inf(1)
		}
		o.T.SetBounds(tlo, thi)
		for k, g := range pwl {
			gc := &n.Case.Costs[n.Gen[g]]
			for s := 0; s+1 < len(gc.X); s++ {
				slope := (gc.Y[s+1] - gc.Y[s]) / (gc.X[s+1] - gc.X[s])
				// t ≥ y_s + slope (p − x_s)
				m.GreaterEq(fmt.Sprintf("pwl_%d_%d", g, s), o.T.At(k), p.At(g).Scale(slope).Add(model.Const(gc.Y[s]-slope*gc.X[s])))
			}
		}
	}
	var quad []model.Quadratic
	if !opt.LinearCost {
		var idx []int
		var w []float64
		for g, a := range c2 {
			if a > 0 {
				idx = append(idx, g)
				w = append(w, math.Sqrt(a))
			}
		}
		if len(idx) > 0 {
			quad = append(quad, model.SumSquares(p.Pick(idx).MulElem(w)))
		}
	}
	m.Minimize(obj, quad...)

	o.net = n.addNetwork(m, p, o.load, opt.Formulation, "", &genPTDFCache{})
	o.Theta = o.net.theta
	if err := m.Err(); err != nil {
		return nil, fmt.Errorf("grid: building DC-OPF: %w", err)
	}
	o.buildTime = time.Since(t0)
	return o, nil
}

// islandRows returns the island-by-generator incidence (one row per island).
func (n *Network) islandRows() *sparse.CSC {
	t := sparse.NewTriplets(len(n.RefBus), n.NumGens(), n.NumGens())
	for g, bi := range n.GenBus {
		t.Append(n.Island[bi], g, 1)
	}
	return t.ToCSC()
}

// genPTDFCache computes the PTDF columns of the generator buses once.
type genPTDFCache struct{ cols [][]float64 }

// genPTDF returns H = PTDF[rows, GenBus] (a len(rows)×NumGens CSC with exact
// zeros dropped).
func (n *Network) genPTDF(cache *genPTDFCache, rows []int) *sparse.CSC {
	if cache.cols == nil {
		cache.cols = n.PTDFColumns(n.GenBus)
	}
	t := sparse.NewTriplets(len(rows), n.NumGens(), len(rows)*n.NumGens())
	for g := range n.GenBus {
		col := cache.cols[g]
		for r, l := range rows {
			if v := col[l]; v != 0 {
				t.Append(r, g, v)
			}
		}
	}
	return t.ToCSC()
}

// netCons are the network constraints added for one dispatch vector.
type netCons struct {
	balance        *model.Constraint // per island (PTDF) or per bus (BTheta)
	upper, lower   *model.Constraint // flow ≤ FlowMax on upRows, flow ≥ FlowMin on loRows
	upRows, loRows []int
	theta          *model.Var // BTheta only
}

// addNetwork adds to m the DC network constraints for the dispatch p (MW per
// generator) and the bus loads load: power balance and flow limits, in the
// formulation f. Names get the suffix tag.
func (n *Network) addNetwork(m *model.Model, p model.Expr, load []float64, f Formulation, tag string, cache *genPTDFCache) netCons {
	var nc netCons
	nc.upRows, nc.loRows = limitedRows(n)
	nb := n.NumBuses()
	switch f {
	case PTDF:
		// Balance per island: Σ_{g in k} p_g = Σ_{i in k} (Load_i + Pbusinj_i);
		// flows: f = H p − fc with fc = PTDF (Load + Pbusinj) − Pfinj.
		rhs, bup, blo := n.ptdfRHS(load, nc.upRows, nc.loRows)
		nc.balance = m.Equal("balance"+tag, model.MulSparse(n.islandRows(), p), model.Const(rhs...))
		if len(nc.upRows) > 0 {
			nc.upper = m.LessEq("flow_max"+tag, model.MulSparse(n.genPTDF(cache, nc.upRows), p), model.Const(bup...))
		}
		if len(nc.loRows) > 0 {
			nc.lower = m.GreaterEq("flow_min"+tag, model.MulSparse(n.genPTDF(cache, nc.loRows), p), model.Const(blo...))
		}
	case BTheta:
		nc.theta = m.Vector("theta"+tag, nb)
		lo, hi := make([]float64, nb), make([]float64, nb)
		for i := range lo {
			lo[i], hi[i] = math.Inf(-1), math.Inf(1)
		}
		for _, r := range n.RefBus {
			lo[r], hi[r] = 0, 0
		}
		nc.theta.SetBounds(lo, hi)
		th := nc.theta.Expr()
		cg := sparse.NewTriplets(nb, n.NumGens(), n.NumGens())
		for g, bi := range n.GenBus {
			cg.Append(bi, g, 1)
		}
		rhs := n.bthetaRHS(load)
		nc.balance = m.Equal("balance"+tag, model.MulSparse(cg.ToCSC(), p).Sub(model.MulSparse(n.Bbus, th)), model.Const(rhs...))
		sel := func(rows []int, bound []float64) (*sparse.CSC, []float64) {
			t := sparse.NewTriplets(len(rows), nb, 2*len(rows))
			b := make([]float64, len(rows))
			for r, l := range rows {
				t.Append(r, n.From[l], n.B[l])
				t.Append(r, n.To[l], -n.B[l])
				b[r] = bound[l] - n.Pfinj[l]
			}
			return t.ToCSC(), b
		}
		if len(nc.upRows) > 0 {
			A, b := sel(nc.upRows, n.FlowMax)
			nc.upper = m.LessEq("flow_max"+tag, model.MulSparse(A, th), model.Const(b...))
		}
		if len(nc.loRows) > 0 {
			A, b := sel(nc.loRows, n.FlowMin)
			nc.lower = m.GreaterEq("flow_min"+tag, model.MulSparse(A, th), model.Const(b...))
		}
	}
	return nc
}

// limitedRows lists the branches with a finite upper / lower flow limit.
func limitedRows(n *Network) (up, lo []int) {
	for l := range n.Branch {
		if !math.IsInf(n.FlowMax[l], 1) {
			up = append(up, l)
		}
		if !math.IsInf(n.FlowMin[l], -1) {
			lo = append(lo, l)
		}
	}
	return up, lo
}

// Timing splits the wall time of an OPF run. Solve is the time inside the solver
// backend (HiGHS); Build includes computing PTDF rows; Total is the whole call.
type Timing struct {
	Parse, Build, Solve, Total time.Duration
}

// OPFSolution is the outcome of OPF.Solve. For a status other than Optimal /
// AlmostOptimal only Status and Time are set.
type OPFSolution struct {
	Status   solver.Status
	Cost     float64   // $/h, constant terms included
	Dispatch []float64 // MW per Network generator
	Flow     []float64 // MW per Network branch
	Theta    []float64 // radians per bus (reference buses 0)
	// LMP is the locational marginal price per bus ($/MWh), ∂cost/∂Load_i: the
	// balance dual λ minus the congestion component Σ_l PTDF_{l,i} μ_l (PTDF), or
	// the nodal balance dual (BTheta).
	LMP  []float64
	Time Timing
}

// Solve solves the model (HiGHS unless Options.Solve names a backend; when HiGHS
// reports a numerical error, the interior-point backend retries). An infeasible
// or unbounded OPF is reported through Status, not as an error; errors are
// reserved for failures to run. Time.Solve sums the backends' solve times.
func (o *OPF) Solve(ctx context.Context) (*OPFSolution, error) {
	t0 := time.Now()
	res, err := o.Model.Solve(ctx, o.Options.Solve)
	if err != nil {
		return nil, fmt.Errorf("grid: solving DC-OPF: %w", err)
	}
	var solveTime time.Duration
	if res.Solution != nil {
		solveTime = res.Solution.SolveTime
	}
	if res.Status == solver.NumericalError && o.Options.Solve.Solver == nil {
		// HiGHS 1.10's QP solver can return a correct primal point with duals
		// that fail the backend's optimality check (seen with piecewise-linear
		// epigraphs next to quadratic costs); the interior-point backend then
		// solves the same standard form.
		opts := o.Options.Solve
		opts.Solver = ipm.New()
		if res, err = o.Model.Solve(ctx, opts); err != nil {
			return nil, fmt.Errorf("grid: solving DC-OPF (interior-point fallback): %w", err)
		}
		if res.Solution != nil {
			solveTime += res.Solution.SolveTime
		}
	}
	sol := o.fromResult(res, o.buildTime, solveTime)
	sol.Time.Total = o.buildTime + time.Since(t0)
	return sol, nil
}

// fromResult maps a solved model to an OPFSolution (Time.Total is left to
// the caller).
func (o *OPF) fromResult(res *model.Result, build, solveTime time.Duration) *OPFSolution {
	sol := &OPFSolution{Status: res.Status}
	sol.Time.Build = build
	sol.Time.Solve = solveTime
	if !res.Status.OK() {
		return sol
	}
	n := o.Network
	sol.Cost = res.Objective
	sol.Dispatch = res.Value(o.P)
	inj := n.NetInjection(sol.Dispatch)
	if o.Options.Load != nil {
		for i := range inj {
			inj[i] += n.Load[i] - o.load[i]
		}
	}
	if o.Theta != nil {
		sol.Theta = res.Value(o.Theta)
	} else {
		for i := range inj {
			inj[i] -= n.Pbusinj[i]
		}
		sol.Theta = n.SolveAngles(inj)
	}
	sol.Flow = n.Bf.MulVecTo(nil, 1, sol.Theta, 0)
	for l := range sol.Flow {
		sol.Flow[l] += n.Pfinj[l]
	}
	sol.LMP = o.lmp(res)
	return sol
}

// lmp computes ∂cost/∂Load. With the model's dual convention (Px + q + Aᵀy = 0
// for rows Ax + s = b), the sensitivity of the optimal value to the right-hand
// side of a row is −y.
func (o *OPF) lmp(res *model.Result) []float64 {
	n := o.Network
	bal := res.Dual(o.net.balance)
	lmp := make([]float64, n.NumBuses())
	if o.Options.Formulation == BTheta {
		for i := range lmp {
			lmp[i] = balanceSign * bal[i]
		}
		return lmp
	}
	// μ_l = ∂cost/∂(flow limit)… combined as the multiplier of f_l in the
	// Lagrangian: LMP_i = λ_k − Σ_l PTDF_{l,i} (μ⁺_l − μ⁻_l).
	mu := make([]float64, n.NumBranches())
	if o.net.upper != nil {
		y := res.Dual(o.net.upper)
		for r, l := range o.net.upRows {
			mu[l] += y[r]
		}
	}
	if o.net.lower != nil {
		y := res.Dual(o.net.lower)
		for r, l := range o.net.loRows {
			mu[l] -= y[r]
		}
	}
	o.addCutDuals(res, mu)
	cong := n.PTDFTransMul(mu)
	for i := range lmp {
		lmp[i] = balanceSign*bal[n.Island[i]] - cong[i]
	}
	return lmp
}

// balanceSign converts the Equal-constraint dual of "Cg p … = Load" into
// ∂cost/∂Load: model.Result.Dual of an equality is −∂p*/∂rhs (checked in tests
// against finite differences).
const balanceSign = -1
