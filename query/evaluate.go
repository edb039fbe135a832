package query

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/lindecision"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/auto"
)

// EvalOptions configures the Monte Carlo evaluations.
type EvalOptions struct {
	// N is the number of noise realizations (default 10,000).
	N int
	// Seed makes the evaluation reproducible (simulation only: these draws are
	// never released).
	Seed uint64
	// CVaRLevel α ∈ (0, 1): CVaR_α of the loss is the mean of the worst
	// (1 − α) fraction of losses (Rockafellar and Uryasev 2000; eq. 12b). Default 0.95.
	CVaRLevel float64
	// Tol is the feasibility tolerance, relative to 1 + |b_i| per row
	// (nonnegative and zero rows) or 1 + ‖b_block‖ (other cones). Default 1e-7.
	Tol float64
	// Reference is the deterministic optimum ℓ(x*) the loss is measured
	// against; nil solves the base problem.
	Reference *float64
	// Solver for the reference (and input perturbation) solves; nil = HiGHS for
	// LP/QP, the interior-point solver otherwise.
	Solver   solver.Solver
	Settings solver.Settings
	// Progress, if set, is called with (done, N) from time to time.
	Progress func(done, total int)
}

func (o *EvalOptions) defaults() error {
	if o.N == 0 {
		o.N = 10000
	}
	if o.N < 0 {
		return invalidf("N is %d, must be > 0", o.N)
	}
	if o.CVaRLevel == 0 {
		o.CVaRLevel = 0.95
	}
	if !(o.CVaRLevel > 0 && o.CVaRLevel < 1) {
		return invalidf("CVaRLevel is %v, must be in (0, 1)", o.CVaRLevel)
	}
	if o.Tol == 0 {
		o.Tol = 1e-7
	}
	if !(o.Tol > 0) {
		return invalidf("Tol is %v, must be > 0", o.Tol)
	}
	return nil
}

// Evaluation summarizes N perturbed solutions of one strategy.
type Evaluation struct {
	Strategy string
	N        int
	// InfeasibleRate is the fraction of releases that are infeasible: for
	// program perturbation, the decision rule's solution behind the release
	// violates a constraint of the base problem; for output and input
	// perturbation of a one-row query, no feasible solution attains the
	// released value (it lies outside QueryRange) or, for input perturbation,
	// the perturbed problem had no solution; for k-row output perturbation,
	// x* + X₀ζ violates a constraint (a conservative check).
	InfeasibleRate float64
	// Reference is the deterministic optimum ℓ(x*).
	Reference float64
	// MeanObjective is the average objective ℓ(x̃) over the realizations.
	MeanObjective float64
	// MeanLossPct and CVaRLossPct are the mean and CVaR_α of the optimality loss
	// 100·(ℓ(x̃) − ℓ(x*))/|ℓ(x*)| in percent (absolute loss when ℓ(x*) = 0).
	MeanLossPct, CVaRLossPct float64
	// QueryStd is the empirical standard deviation of each released query
	// component around Q x̄*.
	QueryStd []float64
	// NotApplicable, when not empty, is "not applicable: <reason>": the
	// strategy cannot be run with this release's mechanism (a baseline that
	// needs a vector of noise with a scalar-only mechanism such as truncated
	// Laplace), so nothing was simulated and the numbers above are zero. A
	// comparison reports it and goes on with the other strategies.
	NotApplicable string
}

// notApplicable returns the Evaluation of a strategy that does not apply
// when err says the mechanism is scalar-only, and nil otherwise.
func notApplicable(strategy string, err error) *Evaluation {
	var so scalarOnlyError
	if !errors.As(err, &so) {
		return nil
	}
	return &Evaluation{Strategy: strategy, NotApplicable: "not applicable: " + strings.TrimPrefix(so.Error(), ErrInvalid.Error()+": ")}
}

func reference(ctx context.Context, p *solver.Problem, o *EvalOptions) (float64, error) {
	if o.Reference != nil {
		return *o.Reference, nil
	}
	sol, err := solveBase(ctx, p, o.Solver, o.Settings)
	if err != nil {
		return 0, err
	}
	return sol.Objective, nil
}

func solveBase(ctx context.Context, p *solver.Problem, s solver.Solver, set solver.Settings) (*solver.Solution, error) {
	if s == nil {
		s = defaultSolver()
	}
	sol, err := s.Solve(ctx, p, set)
	if err != nil {
		return nil, fmt.Errorf("query: solving the deterministic problem: %w", err)
	}
	if !sol.Status.OK() {
		return sol, fmt.Errorf("query: deterministic problem: %w", sol.Status.Err())
	}
	return sol, nil
}

// Objective returns ½xᵀPx + qᵀx + r of p at x.
func Objective(p *solver.Problem, x []float64) float64 {
	s := p.R
	for i, q := range p.Q {
		s += q * x[i]
	}
	if p.P != nil {
		for j := 0; j < p.P.Cols; j++ {
			for t := p.P.ColPtr[j]; t < p.P.ColPtr[j+1]; t++ {
				i := p.P.RowIdx[t]
				v := p.P.Val[t] * x[i] * x[j]
				if i == j {
					s += 0.5 * v
				} else {
					s += v
				}
			}
		}
	}
	return s
}

// Feasible reports whether b − Ax ∈ K within tolerance tol (relative to
// 1 + |b_i| for zero and nonnegative rows, 1 + ‖b_block‖ for other blocks). ax
// is scratch space of length m (allocated if nil).
func Feasible(p *solver.Problem, x []float64, tol float64, ax []float64) bool {
	ax = p.A.MulVecTo(ax, -1, x, 0)
	for i := range ax {
		ax[i] += p.B[i]
	}
	return feasibleSlack(p, ax, tol)
}

// feasibleSlack reports whether the slack s = b − Ax lies in K (tolerances as
// in Feasible).
func feasibleSlack(p *solver.Problem, s []float64, tol float64) bool {
	row := 0
	for _, c := range p.Cones {
		switch c.Kind {
		case cone.Zero:
			for i := row; i < row+c.Dim; i++ {
				if math.Abs(s[i]) > tol*(1+math.Abs(p.B[i])) {
					return false
				}
			}
		case cone.Nonnegative:
			for i := row; i < row+c.Dim; i++ {
				if s[i] < -tol*(1+math.Abs(p.B[i])) {
					return false
				}
			}
		default:
			nb := 0.0
			for t := 0; t < c.Dim; t++ {
				nb += p.B[row+t] * p.B[row+t]
			}
			if !c.Contains(s[row:row+c.Dim], tol*(1+math.Sqrt(nb))) {
				return false
			}
		}
		row += c.Dim
	}
	return true
}

type accumulator struct {
	ref    float64
	losses []float64
	bad    int
	objSum float64
	qSum   []float64
	qSq    []float64
}

func (a *accumulator) add(obj float64, feasible bool, qdev []float64) {
	if !feasible {
		a.bad++
	}
	a.objSum += obj
	a.losses = append(a.losses, obj-a.ref)
	for j, d := range qdev {
		a.qSum[j] += d
		a.qSq[j] += d * d
	}
}

func (a *accumulator) result(name string, n int, alpha float64) *Evaluation {
	e := &Evaluation{Strategy: name, N: n, Reference: a.ref, InfeasibleRate: float64(a.bad) / float64(n)}
	if len(a.losses) > 0 {
		e.MeanObjective = a.objSum / float64(len(a.losses))
		scale := math.Abs(a.ref)
		if scale == 0 {
			scale = 100 // absolute loss: 100·loss/100
		}
		mean := 0.0
		for _, l := range a.losses {
			mean += l
		}
		e.MeanLossPct = 100 * mean / float64(len(a.losses)) / scale
		sort.Float64s(a.losses)
		from := int(math.Floor(alpha * float64(len(a.losses))))
		if from >= len(a.losses) {
			from = len(a.losses) - 1
		}
		tail := 0.0
		for _, l := range a.losses[from:] {
			tail += l
		}
		e.CVaRLossPct = 100 * tail / float64(len(a.losses)-from) / scale
	}
	e.QueryStd = make([]float64, len(a.qSum))
	for j := range a.qSum {
		m := a.qSum[j] / float64(n)
		e.QueryStd[j] = math.Sqrt(math.Max(a.qSq[j]/float64(n)-m*m, 0))
	}
	return e
}

// Evaluate simulates N releases of the program perturbation: x̃ = x̄* + X*ζ for
// fresh ζ, with no re-solve. It reports the probability of an infeasible x̃,
// the expected optimality loss and its CVaR.
func (s *Solution) Evaluate(ctx context.Context, opts EvalOptions) (*Evaluation, error) {
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	ref, err := reference(ctx, s.Base, &opts)
	if err != nil {
		return nil, err
	}
	return simulate(ctx, "program", s.Base, s.Query, s.Lifted.Noise(), s.Rule, ref, &opts, nil)
}

// evalChunk is the number of realizations drawn from one seeded stream; the
// streams are indexed by chunk, so results do not depend on the worker count.
const evalChunk = 4096

// simulate evaluates x̃ = XBar + Xζ for N realizations. The slack
// b − A x̃ = (b − A·XBar) + (−A X)ζ and the linear objective are precomputed, so
// each realization costs O(m·k) (plus O(nnz(P) + n·k) with a quadratic
// objective) instead of a product with A. Chunks of evalChunk realizations run
// in parallel, each with its own stream seeded by (Seed, chunk).
func simulate(ctx context.Context, name string, p *solver.Problem, q Query, pert *lindecision.Perturbation, rule *lindecision.Rule, ref float64, o *EvalOptions, attain *[2]float64) (*Evaluation, error) {
	f, err := pert.Factor()
	if err != nil {
		return nil, err
	}
	n, k := rule.X.Dims()
	m := p.NumRows()
	// s0 = b − A·XBar, g = −A X (row-major m×k), cq = Xᵀq, qx = Q X (K×k).
	s0 := p.A.MulVecTo(nil, -1, rule.XBar, 0)
	for i := range s0 {
		s0[i] += p.B[i]
	}
	g := make([]float64, m*k)
	col := make([]float64, n)
	for j := 0; j < k; j++ {
		for i := 0; i < n; i++ {
			col[i] = rule.X.At(i, j)
		}
		aj := p.A.MulVecTo(nil, -1, col, 0)
		for i, v := range aj {
			g[i*k+j] = v
		}
	}
	quad := p.P != nil && p.P.Nnz() > 0
	cq := make([]float64, k)
	for j := 0; j < k; j++ {
		for i := 0; i < n; i++ {
			cq[j] += p.Q[i] * rule.X.At(i, j)
		}
	}
	lin0 := p.R
	for i, v := range p.Q {
		lin0 += v * rule.XBar[i]
	}
	qx := make([][]float64, q.K())
	for r, row := range q.Rows {
		qx[r] = make([]float64, k)
		for t, c := range row.Idx {
			for j := 0; j < k; j++ {
				qx[r][j] += row.Val[t] * rule.X.At(c, j)
			}
		}
	}

	type chunkResult struct {
		obj      []float64
		feasible []bool
		qdev     []float64 // cnt × K, row-major
	}
	chunks := (o.N + evalChunk - 1) / evalChunk
	results := make([]chunkResult, chunks)
	var next, done atomic.Int64
	var mu sync.Mutex
	workers := min(runtime.GOMAXPROCS(0), chunks)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			z := make([]float64, k)
			x := make([]float64, n)
			sl := make([]float64, m)
			for {
				c := int(next.Add(1) - 1)
				if c >= chunks || ctx.Err() != nil {
					return
				}
				rng := rand.New(rand.NewPCG(o.Seed, uint64(c)))
				cnt := min(evalChunk, o.N-c*evalChunk)
				res := chunkResult{obj: make([]float64, cnt), feasible: make([]bool, cnt), qdev: make([]float64, cnt*len(qx))}
				for t := 0; t < cnt; t++ {
					pert.Sample(z, rng.Uint64, f)
					for i := 0; i < m; i++ {
						v := s0[i]
						for j, zj := range z {
							v += g[i*k+j] * zj
						}
						sl[i] = v
					}
					if attain != nil { // k = 1 query value within the attainable range
						v := q.Apply(rule.XBar)[0]
						for j, zj := range z {
							v += qx[0][j] * zj
						}
						res.feasible[t] = v >= attain[0] && v <= attain[1]
					} else {
						res.feasible[t] = feasibleSlack(p, sl, o.Tol)
					}
					if quad {
						rule.Apply(x, z)
						res.obj[t] = Objective(p, x)
					} else {
						v := lin0
						for j, zj := range z {
							v += cq[j] * zj
						}
						res.obj[t] = v
					}
					d := res.qdev[t*len(qx) : (t+1)*len(qx)]
					for r := range qx {
						for j, zj := range z {
							d[r] += qx[r][j] * zj
						}
					}
				}
				results[c] = res
				dn := int(done.Add(int64(cnt)))
				if o.Progress != nil {
					mu.Lock()
					o.Progress(dn, o.N)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	acc := &accumulator{ref: ref, qSum: make([]float64, q.K()), qSq: make([]float64, q.K())}
	for _, res := range results {
		kq := q.K()
		for t := range res.obj {
			acc.add(res.obj[t], res.feasible[t], res.qdev[t*kq:(t+1)*kq])
		}
	}
	return acc.result(name, o.N, o.CVaRLevel), nil
}

// OutputPerturbation simulates the output perturbation baseline (Def. 2.4):
// the deterministic solution x* is released through the query with the same
// noise, x̃ = x* + X₀ζ with X₀ = Qᵀ(QQᵀ)⁻¹ (X₀ = I on the queried columns for an
// identity query), so that Q x̃ = Q x* + ζ. It reports how often the release is
// infeasible (Evaluation.InfeasibleRate: for one-row queries, the released
// value lies outside QueryRange) and the optimality loss of x̃. With a
// scalar-only mechanism and a query of k > 1 rows it returns an Evaluation
// whose NotApplicable says so, and no error.
func OutputPerturbation(ctx context.Context, p *solver.Problem, q Query, priv Privacy, opts EvalOptions) (*Evaluation, error) {
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	if err := q.Validate(p.NumVars()); err != nil {
		return nil, err
	}
	comps, _, err := priv.components(ctx, q.K())
	if na := notApplicable("output", err); na != nil {
		return na, nil
	}
	if err != nil {
		return nil, err
	}
	sol, err := solveBase(ctx, p, opts.Solver, opts.Settings)
	if err != nil {
		return nil, err
	}
	ref := sol.Objective
	if opts.Reference != nil {
		ref = *opts.Reference
	}
	x0, err := q.rightInverse(p.NumVars())
	if err != nil {
		return nil, err
	}
	rule := &lindecision.Rule{XBar: sol.X, X: x0}
	pert := &lindecision.Perturbation{Components: comps}
	var attain *[2]float64
	if q.K() == 1 {
		lo, hi, err := QueryRange(ctx, p, q, opts.Solver, opts.Settings)
		if err != nil {
			return nil, err
		}
		attain = &[2]float64{lo, hi}
	}
	return simulate(ctx, "output", p, q, pert, rule, ref, &opts, attain)
}

// QueryRange returns the range [min Q x, max Q x] of a one-row query over the
// feasible set of p (two solves; ±Inf where unbounded). A released value
// outside it is attained by no feasible solution.
func QueryRange(ctx context.Context, p *solver.Problem, q Query, s solver.Solver, set solver.Settings) (lo, hi float64, err error) {
	if q.K() != 1 {
		return 0, 0, invalidf("QueryRange needs a one-row query, got k = %d", q.K())
	}
	if err := q.Validate(p.NumVars()); err != nil {
		return 0, 0, err
	}
	bound := func(sign float64) (float64, error) {
		c := *p
		c.P, c.R = nil, 0
		c.Q = make([]float64, p.NumVars())
		for t, j := range q.Rows[0].Idx {
			c.Q[j] = sign * q.Rows[0].Val[t]
		}
		sv := s
		if sv == nil {
			sv = defaultSolver()
		}
		sol, err := sv.Solve(ctx, &c, set)
		if err != nil {
			return 0, fmt.Errorf("query: query range: %w", err)
		}
		switch {
		case sol.Status.OK():
			return sign * sol.Objective, nil
		case sol.Status == solver.DualInfeasible: // min of sign·Qx is −∞
			return sign * math.Inf(-1), nil
		}
		return 0, fmt.Errorf("query: query range: %w", sol.Status.Err())
	}
	if lo, err = bound(1); err != nil {
		return 0, 0, err
	}
	hi, err = bound(-1)
	return lo, hi, err
}

// PerturbedProblem builds the problem on perturbed data D + ζ̃ for input
// perturbation (Def. 2.5): draw is the noise realization (one value per noise
// component of the privacy spec, k = len(draw)). It is called from several
// goroutines and must be safe for concurrent use.
type PerturbedProblem func(draw []float64) (*solver.Problem, error)

// InputPerturbation simulates the input perturbation baseline (Def. 2.5): for
// each of N realizations, build the problem on perturbed data, solve it, and
// check the solution against the original problem p (in parallel over
// GOMAXPROCS, draw t seeded by (Seed, t)). A perturbed problem
// without a solution counts as an infeasible release. k is the number of
// perturbed data entries. This costs N solves. With a scalar-only mechanism
// and k > 1 it returns an Evaluation whose NotApplicable says so, and no
// error.
func InputPerturbation(ctx context.Context, p *solver.Problem, k int, priv Privacy, build PerturbedProblem, opts EvalOptions) (*Evaluation, error) {
	return inputPerturbation(ctx, p, k, priv, build, opts, nil)
}

// InputPerturbationQuery is InputPerturbation for a released query q with one
// row: a realization is infeasible when the perturbed problem has no solution
// or its query value Q x*(D̃) lies outside the range of Q x over the true
// feasible set (no feasible solution attains the release), the definition
// OutputPerturbation uses for one-row queries.
func InputPerturbationQuery(ctx context.Context, p *solver.Problem, q Query, k int, priv Privacy, build PerturbedProblem, opts EvalOptions) (*Evaluation, error) {
	if q.K() != 1 {
		return nil, invalidf("InputPerturbationQuery needs a one-row query, got k = %d", q.K())
	}
	return inputPerturbation(ctx, p, k, priv, build, opts, &q)
}

func inputPerturbation(ctx context.Context, p *solver.Problem, k int, priv Privacy, build PerturbedProblem, opts EvalOptions, q *Query) (*Evaluation, error) {
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	if k < 1 || build == nil {
		return nil, invalidf("input perturbation needs k ≥ 1 (got %d) and a problem builder", k)
	}
	comps, _, err := priv.components(ctx, k)
	if na := notApplicable("input", err); na != nil {
		return na, nil
	}
	if err != nil {
		return nil, err
	}
	ref, err := reference(ctx, p, &opts)
	if err != nil {
		return nil, err
	}
	pert := &lindecision.Perturbation{Components: comps}
	f, _ := pert.Factor()
	s := opts.Solver
	if s == nil {
		s = defaultSolver()
	}
	var lo, hi float64
	if q != nil {
		if lo, hi, err = QueryRange(ctx, p, *q, opts.Solver, opts.Settings); err != nil {
			return nil, err
		}
	}
	type draw struct {
		solved, feasible bool
		obj              float64
		err              error
	}
	draws := make([]draw, opts.N)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var next, done atomic.Int64
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := 0; w < min(runtime.GOMAXPROCS(0), opts.N); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ax := make([]float64, p.NumRows())
			for {
				t := int(next.Add(1) - 1)
				if t >= opts.N || ctx.Err() != nil {
					return
				}
				// Draw t has its own stream: results do not depend on scheduling.
				rng := rand.New(rand.NewPCG(opts.Seed, uint64(t)))
				z := pert.Sample(nil, rng.Uint64, f)
				d := &draws[t]
				pp, err := build(z)
				if err != nil {
					d.err = fmt.Errorf("query: input perturbation draw %d: %w", t, err)
					cancel()
					return
				}
				sol, err := s.Solve(ctx, pp, opts.Settings)
				if err != nil {
					d.err = fmt.Errorf("query: input perturbation draw %d: %w", t, err)
					cancel()
					return
				}
				if sol.Status.OK() {
					d.solved, d.obj = true, Objective(p, sol.X)
					if q != nil {
						v := q.Apply(sol.X)[0]
						d.feasible = v >= lo && v <= hi
					} else {
						d.feasible = Feasible(p, sol.X, opts.Tol, ax)
					}
				}
				if n := int(done.Add(1)); opts.Progress != nil {
					mu.Lock()
					opts.Progress(n, opts.N)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	acc := &accumulator{ref: ref}
	for _, d := range draws {
		if d.err != nil {
			return nil, d.err
		}
	}
	if err := ctx.Err(); err != nil && int(done.Load()) < opts.N {
		return nil, err
	}
	for _, d := range draws {
		if !d.solved {
			acc.bad++ // the perturbed problem had no solution: no release
			continue
		}
		acc.add(d.obj, d.feasible, nil)
	}
	return acc.result("input", opts.N, opts.CVaRLevel), nil
}

// defaultSolver is the default route (solver/auto) with every LP starting
// at HiGHS whatever its size (auto.Solver.SmallLPNnz = −1): the evaluations
// read the solution x (decision rules, query values), and an LP whose
// optimum is not unique would get the interior point of its optimal face
// from the IPM instead of HiGHS's vertex.
func defaultSolver() solver.Solver { return auto.NewSimplexFirst() }
