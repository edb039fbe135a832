package grid

import (
	"context"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/privopt/privopt/lpdual"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/highs"
)

// A robust repair point from a linear decision rule.
//
// The congestion dual bounds of lmpBound rest on a dispatch x(d) that is
// feasible at every load vector d of the domain: for an optimal dual (π, μ)
// of the market LP at d and any x within the LP's column bounds, the
// Lagrangian gives
//
//	cᵀx ≥ V(d) + πᵀ(Ax − b(d)) + Σ_l μ⁺_l (u_l − f_l(x)) + μ⁻_l (f_l(x) − w_l),
//
// so with every flow slack of x nonnegative, μ⁺_l ≤ (cᵀx − V(d) + |πᵀe|) /
// (u_l − f_l(x)), e = Ax − b(d) the balance residual. The local-balance
// dispatch x₀ (each bus served by its own units and backstops) gives
// G/(u − Pfinj) with G of order PriceCap × the domain's width. A linear
// decision rule (the program-perturbation paper's tool: Fioretto and Van
// Hentenryck's program perturbation builds on affinely adjustable robust
// optimization, Ben-Tal et al., "Adjustable robust solutions of uncertain
// linear programs", Math. Program. 99, 2004)
//
//	x(d) = x̄ + Σ_k X_k (d_k − mid_k)
//
// over the segments, the backstops (each bus's own backstops respond only
// to its own load) and the angles, feasible for every d ∈ D, is computed by
// one LP: the box's robust counterpart (each inequality row: value at the
// centre plus Σ_k |row·X_k| h_k within its side) minimizing the largest cost
// over the box, cᵀx̄ + Σ_k |cᵀX_k| h_k. Then V(d) ≤ cᵀx(d) at every d, the
// gap G_LDR = max_D cᵀx(d) − min_D V is of the order of the marginal cost
// times the width, and μ_l ≤ G_LDR / min_D slack_l(x(d)) on every branch
// with a positive robust slack (the old bound elsewhere). The same upper
// bound on V(d) bounds each shedding and curtailment backstop at an optimum
// (backstopBounds).
//
// The rule is a primal object: evalLDR checks its robust feasibility and
// computes its cost bound and robust slacks in outward-rounded
// floating-point arithmetic, with no solver; the balance residual of the
// floating-point rule enters through a box on the optimal prices (the
// proof's price box), as in lpdual.MinUpperBound. CheckLMPProof runs the same
// evaluation on the recorded rule (LMPProof.DecisionRule).

// LMPDecisionRule is an affine dispatch x(d) = Point + Σ_k Slopes[k]·(d_k −
// mid_k) over the columns of the market LP (the load columns are d itself;
// entries there are ignored), k running over the varying buses in
// increasing index order, mid the domain's centre.
type LMPDecisionRule struct {
	Point  lpdual.Sparse   `json:"x0"`
	Slopes []lpdual.Sparse `json:"slopes"`
}

// ldrBounds are the quantities a decision rule proves (see evalLDR).
type ldrBounds struct {
	costMax          float64   // ≥ V(d) for every d ∈ D (rule's cost plus the residual term)
	slackUp, slackLo []float64 // ≤ the rule's slack to each branch's upper / lower limit over D (0 where unlimited)
	residual         float64   // the residual term Σ_j |π_j|max·|e_j|max
	row              ldrRow    // the rule's row of the KKT relaxation
}

// ldrRow is the row Σ_l (μ⁺_l s⁺_l + μ⁻_l s⁻_l) + cᵀx − Σ_k g_k d_k ≤ rhs that
// a decision rule adds to the KKT program (buildKKT): at a KKT point x is
// optimal at d, so cᵀx = V(d), and the Lagrangian inequality at the rule's
// point gives V(d) + Σ_l μ_l s_l ≤ cᵀx_rule(d) + residual ≤ rhs + Σ_k g_k
// d_k, with s the rule's smallest slacks over D and cᵀx_rule(d) = cᵀx̄ +
// Σ_k g_k (d_k − mid_k) (g rounded to floats, the rounding error times the
// half-widths added to rhs). It couples the congestion duals: they cannot
// all reach their separate bounds G/s_l at once.
type ldrRow struct {
	slackUp, slackLo []float64
	g                []float64 // per varying bus (m.vars order)
	rhs              float64
}

// ldrMaxSize bounds the rule's LP: the varying buses times (the segments
// plus twice the limited branches). Measured: 118_ieee (38,700) solves in
// 8–12 s with HiGHS's interior point method; 300_ieee (about 178,000) did
// not finish in 400 s, so it and larger networks get no rule.
const ldrMaxSize = 60000

// ldrMargin is the relative margin the rule keeps inside each bound and
// limit, so that its floating-point solution is robustly feasible.
const ldrMargin = 1e-6

// solveLDR computes a decision rule for the market LP m (columns and rows in
// mb), or nil with the reason when the LP is too large or has no solution.
//
// The congestion dual bound a rule gives on branch l is G/s_l, G its cost
// gap (largest cost over the domain minus vmin) and s_l its smallest slack
// over the domain. The rule minimizes G/ρ over rules with every slack s_l ≥
// ρ·r_l, r_l half the branch's flow range: a linear-fractional program,
// solved as one LP after the Charnes–Cooper substitution (x = x′/t, ρ =
// 1/t; Charnes and Cooper, "Programming with linear fractional
// functionals", Naval Res. Logist. Q. 9, 1962). Where no positive ρ exists
// it minimizes G alone (ρ = 0: bounds only on branches the rule leaves
// slack). The LP is written in the flow (PTDF) form over the generation
// columns — segments, and each varying bus's own backstops for its own
// load — with the system balance per load, and its robust flow rows are
// generated lazily: only branches whose robust row the previous solution
// violates enter the next solve (few of them bind on a network). The rule's
// angles are then solved from its injections (ldrAngles).
func (n *Network) solveLDR(ctx context.Context, hopt highs.Options, m *marketLP, mb *lpBuilder, vmin float64) ([]*LMPDecisionRule, string, error) {
	hopt.Method = "ipm" // 118_ieee ±30%: 8 s, against 53 s with the dual simplex
	if len(n.RefBus) != 1 {
		return nil, "the network has several islands", nil
	}
	dom := m.dom
	mkt := lpOf(mb)
	ncol := len(mb.cost)
	nv, nb := len(m.vars), n.NumBuses()
	kOf := ldrLoadCols(m, ncol)
	mid, h := ldrCentre(dom, m.vars)
	isTheta := make([]bool, ncol)
	for _, c := range m.theta {
		isTheta[c] = true
	}
	// Generation columns: their bus and balance coefficient; the balance
	// rows' constants at the centre (injection = Σ a_c x_c + konst_j).
	busOf, coef := make([]int, ncol), make([]float64, ncol)
	for c := range busOf {
		busOf[c] = -1
	}
	konst := make([]float64, nb)
	for j, i := range m.balance {
		konst[j] = -mkt.RowLo[i]
		for t := mkt.RowPtr[i]; t < mkt.RowPtr[i+1]; t++ {
			c := mkt.Col[t]
			switch {
			case isTheta[c]:
			case kOf[c] >= 0:
				konst[j] += mkt.Val[t] * mid[kOf[c]]
			default:
				busOf[c], coef[c] = j, mkt.Val[t]
			}
		}
	}
	var gens []int
	for c := range busOf {
		if busOf[c] >= 0 {
			gens = append(gens, c)
		}
	}
	var limited []int
	for _, i := range m.flow {
		if i >= 0 {
			limited = append(limited, i)
		}
	}
	if size := nv * (len(m.segs) + 2*len(limited)); size > ldrMaxSize {
		return nil, fmt.Sprintf("its LP would have %d slope entries (limit %d)", size, ldrMaxSize), nil
	}
	all := make([]int, nb)
	for j := range all {
		all[j] = j
	}
	ptdf := n.PTDFColumns(all) // ptdf[j][l]
	// moves reports whether generation column c responds to load k.
	moves := func(c, k int) bool {
		if mb.lo[c] == mb.hi[c] {
			return false
		}
		if j := m.vars[k]; c == m.sigma[j] || c == m.kappa[j] {
			return true
		}
		return !isBackstop(m, c)
	}
	margin := func(v float64) float64 { return ldrMargin * (1 + math.Abs(v)) }
	flowShift := make([]float64, len(m.flow))
	for l, i := range m.flow {
		if i >= 0 {
			for j := range konst {
				flowShift[l] += ptdf[j][l] * konst[j]
			}
		}
	}
	branchOf := make(map[int]int, len(limited))
	for l, i := range m.flow {
		if i >= 0 {
			branchOf[i] = l
		}
	}
	active := map[int]bool{}
	var rules []*LMPDecisionRule
	for _, ratio := range []bool{false, true} {
		for iter := 0; iter < 30; iter++ {
			x0v, Xv, t, status, err := n.ldrLP(ctx, hopt, m, mb, gens, busOf, coef, konst, ptdf, moves, margin, flowShift, active, h, ratio, vmin)
			if err != nil {
				return nil, "", err
			}
			if status != solver.Optimal {
				if ratio {
					break // no positive uniform reserve: the cheapest rule
				}
				return nil, fmt.Sprintf("its robust LP is %v", status), nil
			}
			// Check every limited branch's robust row at the solution.
			added := 0
			for _, i := range limited {
				l := branchOf[i]
				if active[l] {
					continue
				}
				f := flowShift[l]
				for _, c := range gens {
					f += ptdf[busOf[c]][l] * coef[c] * x0v[c]
				}
				spread := 0.0
				for k, j := range m.vars {
					e := -ptdf[j][l]
					for _, c := range gens {
						e += ptdf[busOf[c]][l] * coef[c] * Xv[k][c]
					}
					spread += h[k] * math.Abs(e)
				}
				reserve := 0.0
				if ratio {
					reserve = (mkt.RowHi[i] - mkt.RowLo[i]) / 2 / t
				}
				if f+spread > mkt.RowHi[i]-margin(mkt.RowHi[i])-reserve || f-spread < mkt.RowLo[i]+margin(mkt.RowLo[i])+reserve {
					active[l] = true
					added++
				}
			}
			if added == 0 {
				pt := make([]float64, ncol)
				for _, c := range gens {
					pt[c] = x0v[c]
				}
				out := &LMPDecisionRule{Slopes: make([]lpdual.Sparse, nv)}
				out.Point = n.ldrAngles(m, mkt, pt, -1)
				for k := range m.vars {
					s := make([]float64, ncol)
					for _, c := range gens {
						if math.Abs(Xv[k][c]) > 1e-12 {
							s[c] = Xv[k][c]
						}
					}
					out.Slopes[k] = n.ldrAngles(m, mkt, s, k)
				}
				rules = append(rules, out)
				break
			}
		}
		if len(rules) == 0 {
			return nil, "the lazy generation of its robust flow rows did not end", nil
		}
	}
	return rules, "", nil
}

// ldrLP builds and solves the rule's LP (see solveLDR) with the robust flow
// rows of the active branches; with ratio, in the Charnes–Cooper form (every
// right-hand side times the column t, reserve r_l on each active flow row,
// objective cost − vmin·t). It returns the point and slopes (divided by t)
// and t (1 without ratio).
func (n *Network) ldrLP(ctx context.Context, hopt highs.Options, m *marketLP, mb *lpBuilder, gens, busOf []int, coef, konst []float64, ptdf [][]float64,
	moves func(c, k int) bool, margin func(float64) float64, flowShift []float64, active map[int]bool, h []float64, ratio bool, vmin float64) ([]float64, [][]float64, float64, solver.Status, error) {
	ncol, nv := len(mb.cost), len(m.vars)
	b := newLPBuilder()
	tc := -1
	if ratio {
		tc = b.col(-vmin, 0, math.Inf(1))
	}
	// hrow appends lo ≤ a·x ≤ hi, homogenized with t (minus the constant
	// c on the upper side and plus it on the lower: the reserve).
	hrow := func(lo, hi float64, idx []int, val []float64, c float64) {
		if tc < 0 {
			b.row(lo+c, hi-c, idx, val)
			return
		}
		idx = append(idx, tc)
		if lo == hi {
			b.row(0, 0, idx, append(val, -lo))
			return
		}
		if !math.IsInf(hi, 1) {
			b.row(math.Inf(-1), -c, idx, append(append([]float64(nil), val...), -hi))
		}
		if !math.IsInf(lo, -1) {
			b.row(c, math.Inf(1), idx, append(append([]float64(nil), val...), -lo))
		}
	}
	x0 := make([]int, ncol)
	for _, c := range gens {
		x0[c] = b.col(mb.cost[c], math.Inf(-1), math.Inf(1))
	}
	X := make([][]int, nv)
	for k := range m.vars {
		X[k] = make([]int, ncol)
		for _, c := range gens {
			X[k][c] = -1
			if moves(c, k) {
				X[k][c] = b.col(0, math.Inf(-1), math.Inf(1))
			}
		}
	}
	// System balance at the centre and per load.
	{
		var idx []int
		var val []float64
		rhs := 0.0
		for _, c := range gens {
			idx, val = append(idx, x0[c]), append(val, coef[c])
		}
		for j := range konst {
			rhs -= konst[j]
		}
		hrow(rhs, rhs, idx, val, 0)
	}
	for k := range m.vars {
		var idx []int
		var val []float64
		for _, c := range gens {
			if X[k][c] >= 0 {
				idx, val = append(idx, X[k][c]), append(val, coef[c])
			}
		}
		hrow(1, 1, idx, val, 0) // the load column's coefficient is −1
	}
	for l, i := range m.flow {
		if i < 0 || !active[l] {
			continue
		}
		var up []int
		var upv []float64
		for _, c := range gens {
			if v := ptdf[busOf[c]][l] * coef[c]; v != 0 {
				up, upv = append(up, x0[c]), append(upv, v)
			}
		}
		for k, j := range m.vars {
			var xi []int
			var xv []float64
			for _, c := range gens {
				if x := X[k][c]; x >= 0 {
					if v := ptdf[busOf[c]][l] * coef[c]; v != 0 {
						xi, xv = append(xi, x), append(xv, v)
					}
				}
			}
			v := b.col(0, 0, math.Inf(1))
			// v ≥ |Σ PTDF a X − PTDF_lk·t| (the load's own injection −1).
			neg := make([]float64, len(xv))
			for q := range xv {
				neg[q] = -xv[q]
			}
			hrow(-ptdf[j][l], math.Inf(1), append([]int{v}, xi...), append([]float64{1}, neg...), 0)
			hrow(ptdf[j][l], math.Inf(1), append([]int{v}, xi...), append([]float64{1}, xv...), 0)
			up, upv = append(up, v), append(upv, h[k])
		}
		lo, hi := mb.rlo[i], mb.rhi[i]
		reserve := 0.0
		if ratio {
			reserve = (hi - lo) / 2
		}
		dnv := make([]float64, len(upv))
		copy(dnv, upv)
		for q := len(upv) - nv; q < len(upv); q++ {
			if q >= 0 {
				dnv[q] = -upv[q]
			}
		}
		// The last entries are the v columns (one per load).
		hrow(math.Inf(-1), hi-flowShift[l]-margin(hi), up, upv, reserve)
		hrow(lo-flowShift[l]+margin(lo), math.Inf(1), up, dnv, reserve)
	}
	// Column bounds robustly.
	for _, c := range gens {
		up, upv := []int{x0[c]}, []float64{1}
		for k := range m.vars {
			if x := X[k][c]; x >= 0 {
				v := b.col(0, 0, math.Inf(1))
				absRows(b, v, []int{x}, []float64{1})
				up, upv = append(up, v), append(upv, h[k])
			}
		}
		dnv := append([]float64(nil), upv...)
		for q := 1; q < len(dnv); q++ {
			dnv[q] = -dnv[q]
		}
		if !math.IsInf(mb.hi[c], 1) {
			hrow(math.Inf(-1), mb.hi[c]-margin(mb.hi[c]), up, upv, 0)
		}
		if !math.IsInf(mb.lo[c], -1) {
			hrow(mb.lo[c]+margin(mb.lo[c]), math.Inf(1), up, dnv, 0)
		}
	}
	// The cost's spread over the box: Σ_k h_k |cᵀX_k|.
	for k := range m.vars {
		var xi []int
		var xv []float64
		for _, c := range gens {
			if cost := mb.cost[c]; cost != 0 && X[k][c] >= 0 {
				xi, xv = append(xi, X[k][c]), append(xv, cost)
			}
		}
		if len(xi) > 0 {
			z := b.col(h[k], 0, math.Inf(1))
			absRows(b, z, xi, xv)
		}
	}
	lp, err := b.build(hopt)
	if err != nil {
		return nil, nil, 0, 0, err
	}
	defer lp.Close()
	r, err := lp.Solve(ctx)
	if err != nil {
		return nil, nil, 0, 0, err
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, 0, 0, err
	}
	if r.Status != solver.Optimal {
		return nil, nil, 0, r.Status, nil
	}
	t := 1.0
	if tc >= 0 {
		t = r.X[tc]
		if !(t > 0) {
			return nil, nil, 0, solver.NumericalError, nil
		}
	}
	x0v := make([]float64, ncol)
	Xv := make([][]float64, nv)
	for _, c := range gens {
		x0v[c] = r.X[x0[c]] / t
	}
	for k := range m.vars {
		Xv[k] = make([]float64, ncol)
		for _, c := range gens {
			if x := X[k][c]; x >= 0 {
				Xv[k][c] = r.X[x] / t
			}
		}
	}
	return x0v, Xv, t, r.Status, nil
}

// isBackstop reports whether market column c is a shedding or curtailment
// backstop.
func isBackstop(m *marketLP, c int) bool {
	for j := range m.sigma {
		if c == m.sigma[j] || c == m.kappa[j] {
			return true
		}
	}
	return false
}

// absRows appends v ≥ ±Σ val·x (v ≥ |Σ val·x|).
func absRows(b *lpBuilder, v int, idx []int, val []float64) {
	neg := make([]float64, len(val))
	for q, x := range val {
		neg[q] = -x
	}
	b.row(0, math.Inf(1), append([]int{v}, idx...), append([]float64{1}, neg...))
	b.row(0, math.Inf(1), append([]int{v}, idx...), append([]float64{1}, val...))
}

// ldrAngles re-solves the angles of a rule's point (k < 0: the balance rows'
// right-hand sides at the centre) or slope (load column k) from its
// generation part with the network's factored susceptance matrix, so that
// the balance residual is that of one sparse solve (the LP's is of the
// order of its tolerance), and returns the column vector as sparse.
func (n *Network) ldrAngles(m *marketLP, mkt *lpdual.LP, x []float64, k int) lpdual.Sparse {
	mid, _ := ldrCentre(m.dom, m.vars)
	nb := n.NumBuses()
	isTheta := make(map[int]bool, nb)
	for _, c := range m.theta {
		isTheta[c] = true
	}
	kOf := ldrLoadCols(m, len(x))
	// Bbus θ = Σ (other columns) − rhs: the balance row reads
	// (other columns) − Bbus θ = rhs.
	inj := make([]float64, nb)
	for j, i := range m.balance {
		v := 0.0
		if k < 0 {
			v = -mkt.RowLo[i]
		}
		for t := mkt.RowPtr[i]; t < mkt.RowPtr[i+1]; t++ {
			c := mkt.Col[t]
			if isTheta[c] {
				continue
			}
			if q := kOf[c]; q >= 0 {
				if k < 0 {
					v += mkt.Val[t] * mid[q]
				} else if q == k {
					v += mkt.Val[t]
				}
				continue
			}
			v += mkt.Val[t] * x[c]
		}
		inj[j] = v
	}
	th := n.SolveAngles(inj)
	for j, c := range m.theta {
		x[c] = th[j]
	}
	for _, j := range m.vars {
		x[m.d[j]] = 0
	}
	return lpdual.FromDense(x)
}

// ldrLoadCols returns, per column of the market LP (ncol columns), the
// index in m.vars of its load, or −1 for the other columns.
func ldrLoadCols(m *marketLP, ncol int) []int {
	kOf := make([]int, ncol)
	for c := range kOf {
		kOf[c] = -1
	}
	for k, j := range m.vars {
		kOf[m.d[j]] = k
	}
	return kOf
}

// ldrCentre returns the domain's centre mid_k and half-widths h_k (rounded
// up: every d ∈ D has |d_k − mid_k| ≤ h_k) over the varying buses.
func ldrCentre(dom LoadDomain, vars []int) (mid, h []float64) {
	mid, h = make([]float64, len(vars)), make([]float64, len(vars))
	for k, j := range vars {
		mid[k] = (dom.Lo[j] + dom.Hi[j]) / 2
		h[k] = math.Max(nextUp(dom.Hi[j]-mid[k]), nextUp(mid[k]-dom.Lo[j]))
	}
	return mid, h
}

// ival is a closed interval [lo, hi] in outward-rounded arithmetic.
type ival struct{ lo, hi float64 }

func (a ival) add(b ival) ival { return ival{lpdual.AddDn(a.lo, b.lo), lpdual.AddUp(a.hi, b.hi)} }

// scaled returns an interval containing a·x.
func scaled(a, x float64) ival { return ival{lpdual.MulDn(a, x), lpdual.MulUp(a, x)} }

func (a ival) abs() float64 { return math.Max(math.Abs(a.lo), math.Abs(a.hi)) }

// evalLDR checks the rule's robust feasibility for the market LP m (columns
// and rows in mb, the original bounds) over the domain and returns its
// bounds, in outward-rounded arithmetic (no solver): every column within
// its bounds at every d ∈ D, every flow row within its limits (the slacks
// returned), and the cost bound max_D cᵀx(d) + Σ_j P_j |e_j|max with P_j a
// bound on |π_j| at every optimal dual (piLo, piHi) and e the balance
// residual. It returns an error naming the first violated bound.
func (n *Network) evalLDR(m *marketLP, mb *lpBuilder, rule *LMPDecisionRule, piLo, piHi []float64) (*ldrBounds, error) {
	mkt := lpOf(mb)
	ncol, nv := len(mb.cost), len(m.vars)
	if len(rule.Slopes) != nv {
		return nil, fmt.Errorf("the decision rule has %d slopes for %d varying buses", len(rule.Slopes), nv)
	}
	dense := func(s lpdual.Sparse, what string) ([]float64, error) {
		if err := validSparse(s, ncol); err != nil {
			return nil, fmt.Errorf("the decision rule's %s: %v", what, err)
		}
		x := make([]float64, ncol)
		for q, c := range s.Idx {
			if math.IsNaN(s.Val[q]) || math.IsInf(s.Val[q], 0) {
				return nil, fmt.Errorf("the decision rule's %s has a non-finite entry at column %d", what, c)
			}
			x[c] = s.Val[q]
		}
		return x, nil
	}
	mid, h := ldrCentre(m.dom, m.vars)
	kOf := ldrLoadCols(m, ncol)
	x0, err := dense(rule.Point, "point")
	if err != nil {
		return nil, err
	}
	X := make([][]float64, nv)
	for k, j := range m.vars {
		if X[k], err = dense(rule.Slopes[k], fmt.Sprintf("slope %d", k)); err != nil {
			return nil, err
		}
		x0[m.d[j]] = mid[k] // the load columns are d itself
		for _, jj := range m.vars {
			X[k][m.d[jj]] = 0
		}
		X[k][m.d[j]] = 1
	}
	// spread returns Σ_k h_k |a·X_k|max and the centre value a·x0 for a
	// sparse row a (cols, vals).
	spread := func(cols []int, vals []float64) (ival, float64) {
		var c ival
		for t, col := range cols {
			c = c.add(scaled(vals[t], x0[col]))
		}
		s := 0.0
		for k := range X {
			var a ival
			for t, col := range cols {
				if x := X[k][col]; x != 0 {
					a = a.add(scaled(vals[t], x))
				}
			}
			if v := a.abs(); v != 0 {
				s = lpdual.AddUp(s, lpdual.MulUp(v, h[k]))
			}
		}
		return c, s
	}
	for c := 0; c < ncol; c++ {
		if kOf[c] >= 0 {
			continue
		}
		ctr, s := spread([]int{c}, []float64{1})
		if hi := lpdual.AddUp(ctr.hi, s); hi > mb.hi[c] {
			return nil, fmt.Errorf("the decision rule exceeds column %d's upper bound %v (up to %v)", c, mb.hi[c], hi)
		}
		if lo := lpdual.AddDn(ctr.lo, -s); lo < mb.lo[c] {
			return nil, fmt.Errorf("the decision rule is below column %d's lower bound %v (down to %v)", c, mb.lo[c], lo)
		}
	}
	out := &ldrBounds{slackUp: make([]float64, len(m.flow)), slackLo: make([]float64, len(m.flow))}
	row := func(i int) ([]int, []float64) {
		return mkt.Col[mkt.RowPtr[i]:mkt.RowPtr[i+1]], mkt.Val[mkt.RowPtr[i]:mkt.RowPtr[i+1]]
	}
	for l, i := range m.flow {
		if i < 0 {
			continue
		}
		ctr, s := spread(row(i))
		su, sl := lpdual.AddDn(mkt.RowHi[i], -lpdual.AddUp(ctr.hi, s)), lpdual.AddDn(lpdual.AddDn(ctr.lo, -s), -mkt.RowLo[i])
		if !(su >= 0 && sl >= 0) {
			return nil, fmt.Errorf("the decision rule leaves branch %d's limits over the domain (slacks %v, %v MW)", n.Branch[l]+1, su, sl)
		}
		out.slackUp[l], out.slackLo[l] = su, sl
	}
	for j, i := range m.balance {
		ctr, s := spread(row(i))
		e := math.Max(math.Max(lpdual.AddUp(lpdual.AddUp(ctr.hi, s), -mkt.RowLo[i]), lpdual.AddUp(mkt.RowHi[i], -lpdual.AddDn(ctr.lo, -s))), 0)
		if e == 0 {
			continue
		}
		P := math.Max(math.Abs(piLo[j]), math.Abs(piHi[j]))
		if math.IsInf(P, 0) || math.IsNaN(P) {
			return nil, fmt.Errorf("the decision rule leaves a balance residual at bus %d and its price is unbounded", n.BusID[j])
		}
		out.residual = lpdual.AddUp(out.residual, lpdual.MulUp(P, e))
	}
	var cols []int
	var vals []float64
	for c, v := range mb.cost {
		if v != 0 {
			cols, vals = append(cols, c), append(vals, v)
		}
	}
	ctr, s := spread(cols, vals)
	out.costMax = lpdual.AddUp(lpdual.AddUp(ctr.hi, s), out.residual)
	// The KKT row: g_k = cᵀX_k (its enclosure's midpoint), rhs = cᵀx̄ +
	// residual + Σ_k |g_k error|·h_k − Σ_k g_k mid_k, rounded up.
	out.row = ldrRow{slackUp: out.slackUp, slackLo: out.slackLo, g: make([]float64, nv)}
	rhs := lpdual.AddUp(ctr.hi, out.residual)
	for k := range X {
		var a ival
		for t, col := range cols {
			if x := X[k][col]; x != 0 {
				a = a.add(scaled(vals[t], x))
			}
		}
		g := a.lo + (a.hi-a.lo)/2
		eps := math.Max(lpdual.AddUp(a.hi, -g), lpdual.AddUp(g, -a.lo))
		out.row.g[k] = g
		rhs = lpdual.AddUp(rhs, lpdual.MulUp(eps, h[k]))
		rhs = lpdual.AddUp(rhs, -lpdual.MulDn(g, mid[k]))
	}
	out.row.rhs = rhs
	return out, nil
}

// validSparse checks a sparse vector's indices against a length.
func validSparse(s lpdual.Sparse, n int) error {
	if len(s.Idx) != len(s.Val) {
		return fmt.Errorf("%d indices and %d values", len(s.Idx), len(s.Val))
	}
	for _, c := range s.Idx {
		if c < 0 || c >= n {
			return fmt.Errorf("index %d out of range [0, %d)", c, n)
		}
	}
	return nil
}

// apply lowers the congestion dual bounds to G_LDR / slack where the rule
// has a positive slack, and records the smallest cost bound and gap of the
// rules applied.
func (lb *ldrBounds) apply(ev *LMPEvidence) {
	g := relUp(math.Max(0, lb.costMax-ev.VMin))
	if ev.LDRCostMax == 0 || lb.costMax < ev.LDRCostMax {
		ev.LDRCostMax, ev.LDRCostGap = lb.costMax, g
	}
	ev.ldrRows = append(ev.ldrRows, lb.row)
	for l := range ev.MuUp {
		if s := lb.slackUp[l]; s > 0 && ev.MuUp[l] > 0 {
			ev.MuUp[l] = math.Min(ev.MuUp[l], relUp(g/s))
		}
		if s := lb.slackLo[l]; s > 0 && ev.MuLo[l] > 0 {
			ev.MuLo[l] = math.Min(ev.MuLo[l], relUp(g/s))
		}
	}
}

// ldrStep computes a decision rule for the market LP m (columns and rows in
// mb), checks it with evalLDR against the price boxes of the current
// congestion dual bounds, lowers those bounds and records the rule in the
// proof. Without a rule (too large, infeasible, or no price box) the bounds
// stay and ev.LDRNote says why.
func (n *Network) ldrStep(ctx context.Context, hopt highs.Options, m *marketLP, mb *lpBuilder, ev *LMPEvidence, w io.Writer) error {
	t0 := time.Now()
	pc := &proofChecker{n: n, dom: m.dom, rules: m.rules, ev: ev}
	if ev.rec != nil {
		pc.ptdfOK, pc.boxLo, pc.boxHi = ev.rec.ptdfOK, ev.rec.boxLo, ev.rec.boxHi
	} else if err := pc.checkStructure(m); err != nil {
		ev.LDRNote = "no decision rule: " + err.Error()
	}
	if ev.LDRNote == "" && !pc.ptdfOK && pc.boxLo == nil {
		ev.LDRNote = "no decision rule: no price box for its balance residual (a branch has b ≤ 0)"
	}
	var rules []*LMPDecisionRule
	if ev.LDRNote == "" {
		r, why, err := n.solveLDR(ctx, hopt, m, mb, ev.VMin)
		if err != nil {
			return err
		}
		if r == nil {
			ev.LDRNote = "no decision rule: " + why
		}
		rules = r
	}
	if len(rules) > 0 {
		lo, hi := pc.piBoxes()
		g0 := ev.CostGap
		for _, rule := range rules {
			lb, err := n.evalLDR(m, mb, rule, lo, hi)
			if err != nil {
				ev.LDRNote = "a decision rule found does not check: " + err.Error()
				progress(w, "lmp-bound: %s", ev.LDRNote)
				continue
			}
			lb.apply(ev)
			if ev.rec != nil {
				ev.rec.p.DecisionRules = append(ev.rec.p.DecisionRules, rule)
			}
			progress(w, "lmp-bound: decision rule: cost over the domain ≤ %.6g $/h (balance residual term %.3g), gap %.6g $/h (local-balance gap %.6g; %.1f s)",
				lb.costMax, lb.residual, relUp(math.Max(0, lb.costMax-ev.VMin)), g0, time.Since(t0).Seconds())
		}
		return nil
	}
	progress(w, "lmp-bound: %s", ev.LDRNote)
	return nil
}

// addLDRRows appends the decision rules' rows (ldrRow) to a KKT program:
// cost columns cidx/cval, the congestion dual columns muUp/muLo (−1 where
// fixed at 0), the load columns of m.
func addLDRRows(b *lpBuilder, m *marketLP, rows []ldrRow, cidx []int, cval []float64, muUp, muLo []int) {
	for _, r := range rows {
		idx, val := append([]int(nil), cidx...), append([]float64(nil), cval...)
		for k, j := range m.vars {
			idx, val = append(idx, m.d[j]), append(val, -r.g[k])
		}
		for l := range muUp {
			if muUp[l] >= 0 && r.slackUp[l] > 0 {
				idx, val = append(idx, muUp[l]), append(val, r.slackUp[l])
			}
			if muLo[l] >= 0 && r.slackLo[l] > 0 {
				idx, val = append(idx, muLo[l]), append(val, r.slackLo[l])
			}
		}
		b.row(math.Inf(-1), r.rhs+1e-6*(1+math.Abs(r.rhs)), idx, val)
	}
}
