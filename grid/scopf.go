package grid

import (
	"context"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/privopt/privopt/solver"
)

// SCOPFOptions configure SolveSCOPF.
type SCOPFOptions struct {
	// Base configures the base-case DC-OPF (formulation, limits, method, load),
	// as for SolveDCOPF; its ViolationTol also applies to post-contingency flows.
	Base DCOPFOptions
	// Contingencies lists the outaged branches (Network branch indices); nil
	// means every in-service branch. Bridges (branches whose outage splits an
	// island) are skipped and reported in SCOPFResult.Islanding.
	Contingencies []int
	// PostFactor scales the flow limits after an outage: the post-contingency
	// limits of branch l are PostFactor·[FlowMin_l, FlowMax_l] (0: 1, the normal
	// rating; e.g. 1.2 for a short-term emergency rating 20% above it).
	PostFactor float64
	// MaxRounds bounds the cut-generation rounds (0: 50).
	MaxRounds int
	// CutsPerContingency is the number of most violated monitored branches per
	// outage added in one round (0: 1, the usual choice: one cut per outage and
	// round keeps the model small; the others are often relieved by it).
	CutsPerContingency int
	// Progress, when set, is called after every round with the round (from 1),
	// the number of cuts to be added and the round's wall time.
	Progress func(round, cuts int, took time.Duration)
}

// Validate checks the options against n.
func (o *SCOPFOptions) Validate(n *Network) error {
	if err := o.Base.Validate(n); err != nil {
		return err
	}
	for i, k := range o.Contingencies {
		if k < 0 || k >= n.NumBranches() {
			return fmt.Errorf("grid: SCOPFOptions.Contingencies[%d] is %d, must be a branch index in [0, %d)", i, k, n.NumBranches())
		}
	}
	if o.PostFactor < 0 || math.IsNaN(o.PostFactor) || math.IsInf(o.PostFactor, 0) {
		return fmt.Errorf("grid: SCOPFOptions.PostFactor is %v, must be ≥ 0 and finite (0 means 1)", o.PostFactor)
	}
	if o.MaxRounds < 0 {
		return fmt.Errorf("grid: SCOPFOptions.MaxRounds is %d, must be ≥ 0", o.MaxRounds)
	}
	if o.CutsPerContingency < 0 {
		return fmt.Errorf("grid: SCOPFOptions.CutsPerContingency is %d, must be ≥ 0", o.CutsPerContingency)
	}
	return nil
}

// ContingencyCut is one post-contingency limit in the model: the flow of
// branch Monitored after the outage of branch Outage,
//
//	f_l + LODF_{l,k} f_k ∈ PostFactor·[FlowMin_l, FlowMax_l],
//
// with l = Monitored, k = Outage (Network branch indices).
type ContingencyCut struct {
	Monitored, Outage int
	LODF              float64
	// Active reports whether the cut binds at the final solution (its
	// post-contingency flow within 1e-6 relative of a limit).
	Active bool
}

// SCOPFResult is the outcome of SolveSCOPF. OPF is the final model: the base
// DC-OPF plus every generated cut as an ordinary row (AddFlowLimit), so it can be
// re-solved, extended or handed to a release pipeline like BuildOPF's model. Its
// cuts were generated for the load it was solved with: for another load the
// post-contingency flows must be checked again (SolveSCOPF does that).
type SCOPFResult struct {
	*OPFSolution
	OPF      *OPF
	Strategy Strategy
	Cuts     []ContingencyCut
	// Islanding lists the contingencies skipped because the outage splits an
	// island (bridges of the network graph).
	Islanding []int
	// Unsecurable lists the contingencies skipped because no dispatch meets the
	// base limits and that outage's post-contingency limits together (each was
	// found infeasible on its own, see SolveSCOPF): a load pocket behind two
	// branches that cannot carry it after losing one of them, for example. A
	// market would shed load or use corrective actions there; a preventive
	// SCOPF without them cannot secure the outage.
	Unsecurable []int
	// Rounds counts the solves; MaxPostViolation is the largest post-contingency
	// flow beyond its limit (MW) at the final solution over every checked outage
	// (≤ the tolerance when Status is OK).
	Rounds           int
	MaxPostViolation float64
	Time             Timing
}

// SolveSCOPF solves the N-1 security-constrained DC-OPF (preventive): the
// DC-OPF of SolveDCOPF plus, for every non-islanding outage k and monitored
// branch l, the post-contingency limit on f_l + LODF_{l,k} f_k, where
//
//	LODF_{l,k} = PTDF_{l,(a→b)} / (1 − PTDF_{k,(a→b)})
//
// for branch k from a to b, and PTDF_{·,(a→b)} = PTDF_{·,a} − PTDF_{·,b} is one
// sparse solve with the factored reduced susceptance matrix (Wood &
// Wollenberg, "Power Generation, Operation and Control", 3rd ed., §7.3; Güler,
// Gross and Liu, "Generalized line outage distribution factors", IEEE Trans.
// Power Syst. 22(2), 2007). Cuts are generated lazily: solve, evaluate every
// outage with its LODF column, add the most violated cuts, re-solve (the
// model's previous rows stay), until no post-contingency flow exceeds its
// limit by more than the tolerance. The solution is then optimal for the full
// N-1 problem, whose feasible set the relaxations contain.
//
// Outages that island part of the network (1 − PTDF_{k,(a→b)} = 0, detected
// exactly as the bridges of the graph) are skipped and listed in Islanding.
// When a round's model is infeasible, each outage that has cuts is solved
// alone (base limits plus that outage's post-contingency limits, by the same
// cut generation); those infeasible alone are listed in Unsecurable and the
// SCOPF restarts without them. If no single outage is infeasible alone (only a
// combination is), the result has Status PrimalInfeasible.
func (n *Network) SolveSCOPF(ctx context.Context, opt SCOPFOptions) (*SCOPFResult, error) {
	start := time.Now()
	if err := opt.Validate(n); err != nil {
		return nil, err
	}
	cont := opt.Contingencies
	if cont == nil {
		cont = make([]int, n.NumBranches())
		for k := range cont {
			cont[k] = k
		}
	}
	bridge := n.Bridges()
	var islanding, outages []int
	for _, k := range cont {
		if bridge[k] {
			islanding = append(islanding, k)
		} else {
			outages = append(outages, k)
		}
	}
	var unsecurable []int
	for {
		res, err := n.solveSCOPF(ctx, opt, outages)
		if err != nil {
			return nil, err
		}
		res.Islanding = islanding
		if res.Status != solver.PrimalInfeasible || len(outages) <= 1 {
			res.Unsecurable = unsecurable
			res.Time.Total = time.Since(start)
			res.OPFSolution.Time.Total = res.Time.Total
			return res, nil
		}
		seen := map[int]bool{}
		var bad []int
		for _, c := range res.Cuts {
			if seen[c.Outage] {
				continue
			}
			seen[c.Outage] = true
			r, err := n.solveSCOPF(ctx, opt, []int{c.Outage})
			if err != nil {
				return nil, err
			}
			if r.Status == solver.PrimalInfeasible {
				bad = append(bad, c.Outage)
			}
		}
		if len(bad) == 0 {
			res.Unsecurable = unsecurable
			res.Time.Total = time.Since(start)
			return res, nil
		}
		unsecurable = append(unsecurable, bad...)
		sort.Ints(unsecurable)
		drop := map[int]bool{}
		for _, k := range bad {
			drop[k] = true
		}
		kept := outages[:0:0]
		for _, k := range outages {
			if !drop[k] {
				kept = append(kept, k)
			}
		}
		outages = kept
	}
}

// solveSCOPF is the cut generation of SolveSCOPF over the given (non-bridge)
// outages.
func (n *Network) solveSCOPF(ctx context.Context, opt SCOPFOptions, outages []int) (*SCOPFResult, error) {
	start := time.Now()
	factor := opt.PostFactor
	if factor == 0 {
		factor = 1
	}
	perK := opt.CutsPerContingency
	if perK == 0 {
		perK = 1
	}
	maxRounds := opt.MaxRounds
	if maxRounds == 0 {
		maxRounds = 50
	}
	tol := opt.Base.ViolationTol
	if tol == 0 {
		tol = 1e-6
	}
	base, err := n.SolveDCOPF(ctx, opt.Base)
	if err != nil {
		return nil, err
	}
	res := &SCOPFResult{OPFSolution: base.OPFSolution, OPF: base.OPF, Strategy: base.Strategy, Rounds: base.Rounds}
	o := base.OPF
	baseAdded := make(map[int]bool)
	for _, l := range base.Monitored {
		baseAdded[l] = true
	}
	lazyBase := base.Strategy.Limits == LimitsLazy
	type pair struct{ l, k int }
	added := make(map[pair]bool)
	solveTime := base.Time.Solve
	for {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("grid: SolveSCOPF: %w", err)
		}
		t0 := time.Now()
		sol := res.OPFSolution
		if !sol.Status.OK() {
			break
		}
		ncuts := 0
		// Base-case limits not yet in the model (lazy base).
		if lazyBase {
			for l, f := range sol.Flow {
				if baseAdded[l] || !violates(f, n.FlowMin[l], n.FlowMax[l], tol) {
					continue
				}
				baseAdded[l] = true
				if err := o.AddFlowLimit([]int{l}, []float64{1}, n.FlowMin[l], n.FlowMax[l], fmt.Sprintf("lazy_flow_%d", l)); err != nil {
					return nil, err
				}
				ncuts++
			}
		}
		var maxViol float64
		for _, k := range outages {
			col := n.LODFColumn(k)
			fk := sol.Flow[k]
			type cand struct {
				l int
				v float64
			}
			var worst []cand
			for l, f := range sol.Flow {
				if l == k || col[l] == 0 {
					continue
				}
				lo, hi := factor*n.FlowMin[l], factor*n.FlowMax[l]
				post := f + col[l]*fk
				v := math.Max(post-hi, lo-post)
				if v > 0 {
					maxViol = math.Max(maxViol, v)
				}
				if !violates(post, lo, hi, tol) || added[pair{l, k}] {
					continue
				}
				worst = append(worst, cand{l, v})
			}
			sort.Slice(worst, func(i, j int) bool { return worst[i].v > worst[j].v })
			if len(worst) > perK {
				worst = worst[:perK]
			}
			for _, c := range worst {
				added[pair{c.l, k}] = true
				res.Cuts = append(res.Cuts, ContingencyCut{Monitored: c.l, Outage: k, LODF: col[c.l]})
				if err := o.AddFlowLimit([]int{c.l, k}, []float64{1, col[c.l]}, factor*n.FlowMin[c.l], factor*n.FlowMax[c.l], fmt.Sprintf("n1_%d_%d", c.l, k)); err != nil {
					return nil, err
				}
				ncuts++
			}
		}
		res.MaxPostViolation = maxViol
		o.buildTime += time.Since(t0)
		if opt.Progress != nil {
			opt.Progress(res.Rounds, ncuts, time.Since(t0))
		}
		if ncuts == 0 {
			break
		}
		if res.Rounds >= maxRounds {
			return nil, fmt.Errorf("grid: SolveSCOPF: %d cuts still violated after %d rounds; raise SCOPFOptions.MaxRounds", ncuts, res.Rounds)
		}
		s, err := o.Solve(ctx)
		if err != nil {
			return nil, err
		}
		res.Rounds++
		solveTime += s.Time.Solve
		res.OPFSolution = s
	}
	if res.Status.OK() {
		for i := range res.Cuts {
			c := &res.Cuts[i]
			post := res.Flow[c.Monitored] + c.LODF*res.Flow[c.Outage]
			lo, hi := factor*n.FlowMin[c.Monitored], factor*n.FlowMax[c.Monitored]
			c.Active = math.Abs(post-hi) <= 1e-6*math.Max(1, math.Abs(hi)) || math.Abs(post-lo) <= 1e-6*math.Max(1, math.Abs(lo))
		}
	}
	res.Time = Timing{Build: o.buildTime, Solve: solveTime, Total: time.Since(start)}
	res.OPFSolution.Time = res.Time
	return res, nil
}

// violates reports f outside [lo, hi] by more than tol·max(1, |limit|).
func violates(f, lo, hi, tol float64) bool {
	return f > hi+tol*math.Max(1, math.Abs(hi)) || f < lo-tol*math.Max(1, math.Abs(lo))
}

// LODFColumn returns the line outage distribution factors of branch k (length
// NumBranches): entry l is the change of the flow on l per MW that flowed on k
// before k was taken out,
//
//	LODF_{l,k} = PTDF_{l,(a→b)} / (1 − PTDF_{k,(a→b)}),  LODF_{k,k} = −1,
//
// where a → b are k's terminals and PTDF_{·,(a→b)} is the flow change for 1 MW
// injected at a and withdrawn at b (one solve with the factored reduced Bbus).
// For a bridge (1 − PTDF_{k,(a→b)} = 0 in exact arithmetic) the column is
// undefined: it is returned as NaN; Bridges identifies them exactly.
func (n *Network) LODFColumn(k int) []float64 {
	a, b := n.From[k], n.To[k]
	v := make([]float64, n.NumBuses())
	v[a], v[b] = 1, -1
	theta := n.solveReducedBuses(v)
	col := n.Bf.MulVecTo(nil, 1, theta, 0)
	den := 1 - col[k]
	if math.Abs(den) < 1e-10 {
		for l := range col {
			col[l] = math.NaN()
		}
		return col
	}
	for l := range col {
		col[l] /= den
	}
	col[k] = -1
	return col
}

// Bridges reports, per branch, whether its outage splits its island: the
// bridges of the multigraph of in-service branches (parallel branches are not
// bridges), found by Tarjan's low-link depth-first search in O(buses +
// branches) (Tarjan, "A note on finding the bridges of a graph", Inf. Process.
// Lett. 2(6), 1974).
func (n *Network) Bridges() []bool {
	nb, m := n.NumBuses(), n.NumBranches()
	adjStart := make([]int, nb+1)
	for l := 0; l < m; l++ {
		adjStart[n.From[l]+1]++
		adjStart[n.To[l]+1]++
	}
	for i := 0; i < nb; i++ {
		adjStart[i+1] += adjStart[i]
	}
	adj := make([]int, 2*m) // branch ids
	pos := append([]int(nil), adjStart[:nb]...)
	for l := 0; l < m; l++ {
		adj[pos[n.From[l]]] = l
		pos[n.From[l]]++
		adj[pos[n.To[l]]] = l
		pos[n.To[l]]++
	}
	other := func(l, v int) int {
		if n.From[l] == v {
			return n.To[l]
		}
		return n.From[l]
	}
	disc := make([]int, nb)
	low := make([]int, nb)
	for i := range disc {
		disc[i] = -1
	}
	bridge := make([]bool, m)
	type frame struct{ v, via, next int }
	time := 0
	for s := 0; s < nb; s++ {
		if disc[s] >= 0 {
			continue
		}
		stack := []frame{{s, -1, adjStart[s]}}
		disc[s], low[s] = time, time
		time++
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			if f.next < adjStart[f.v+1] {
				l := adj[f.next]
				f.next++
				if l == f.via {
					continue
				}
				w := other(l, f.v)
				if disc[w] < 0 {
					disc[w], low[w] = time, time
					time++
					stack = append(stack, frame{w, l, adjStart[w]})
				} else if disc[w] < low[f.v] {
					low[f.v] = disc[w]
				}
				continue
			}
			stack = stack[:len(stack)-1]
			if len(stack) > 0 {
				p := &stack[len(stack)-1]
				if low[f.v] < low[p.v] {
					low[p.v] = low[f.v]
				}
				if low[f.v] > disc[p.v] {
					bridge[f.via] = true
				}
			}
		}
	}
	return bridge
}
