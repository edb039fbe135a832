package grid

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"sync"

	"github.com/privopt/privopt/internal/ldl"
	"github.com/privopt/privopt/sparse"
)

// Susceptance selects how a branch's series susceptance is computed from its
// impedance r + jx for the DC model.
type Susceptance int

const (
	// SusceptanceX is b = 1/x, MATPOWER's makeBdc and the classical DC power flow.
	SusceptanceX Susceptance = iota
	// SusceptanceRX is b = x/(r² + x²) = −Im(1/(r + jx)), the imaginary part of the
	// series admittance (the "r-aware" DC model).
	SusceptanceRX
)

// String returns "1/x" or "x/(r²+x²)".
func (s Susceptance) String() string {
	switch s {
	case SusceptanceX:
		return "1/x"
	case SusceptanceRX:
		return "x/(r²+x²)"
	}
	return fmt.Sprintf("Susceptance(%d)", int(s))
}

// DCOptions are the modelling choices of the DC approximation. The zero value is
// MATPOWER's makeBdc model: b = 1/x, taps and phase shifts included, shunt
// conductance as load, angle-difference limits enforced. PowerModelsDC returns
// the choices that reproduce the PGLib-OPF DC baselines.
type DCOptions struct {
	Susceptance Susceptance
	// IgnoreTaps treats every off-nominal tap ratio as 1. By default a branch's
	// susceptance is divided by its tap ratio τ (makeBdc: b = 1/(x τ)).
	IgnoreTaps bool
	// IgnorePhaseShifts drops phase shifters. By default a shift φ (degrees in the
	// file) enters the flow f = b(θ_f − θ_t − φ), i.e. as the injections
	// −bφ at the from bus and +bφ at the to bus (makeBdc's Pbusinj, Pfinj).
	IgnorePhaseShifts bool
	// IgnoreShunts drops bus shunt conductances. By default Gs (MW consumed at
	// 1 p.u. voltage) is added to the bus load, as the DC model fixes |V| = 1.
	IgnoreShunts bool
	// IgnoreAngleLimits drops the branch limits angmin ≤ θ_f − θ_t ≤ angmax. By
	// default they are enforced as the flow bounds b·(angmin − φ) ≤ f ≤ b·(angmax − φ)
	// (PowerModels' DC OPF includes them); limits with angmin ≤ −360° and
	// angmax ≥ 360°, or both 0, mean none (MATPOWER convention).
	IgnoreAngleLimits bool
}

// PowerModelsDC returns the DC model of PowerModels.jl (v0.19, the DCPPowerModel
// used for the PGLib-OPF DC baselines): b = x/(r² + x²) = −Im(1/(r + jx)), tap
// ratios and phase shifts ignored, shunt conductance Gs as load, angle-difference
// limits enforced. With it, BuildOPF reproduces the published baselines of every
// bundled case within 0.01% (see the package tests); the MATPOWER model (the zero
// DCOptions) differs by up to 0.4% (2383wp_k) because taps change flows.
func PowerModelsDC() DCOptions {
	return DCOptions{Susceptance: SusceptanceRX, IgnoreTaps: true, IgnorePhaseShifts: true}
}

// Validate reports an unknown susceptance model.
func (o *DCOptions) Validate() error {
	if o.Susceptance != SusceptanceX && o.Susceptance != SusceptanceRX {
		return fmt.Errorf("grid: DCOptions.Susceptance is %d, must be SusceptanceX or SusceptanceRX", int(o.Susceptance))
	}
	return nil
}

// Network is the DC power-flow model of a case: the in-service part of the grid
// with internal indices. Isolated buses (type 4) are dropped together with their
// branches and generators; out-of-service branches and generators are dropped.
// Powers are in MW and angles in radians; with B = BaseMVA·b (MW/rad):
//
//	flow   f_l = B_l (θ_from − θ_to − φ_l)                    (Bf θ + Pfinj)
//	bus i  Σ_{g at i} p_g − Load_i = Σ_{l out of i} f_l − Σ_{l into i} f_l
//	                               = (Bbus θ + Pbusinj)_i
//
// with Bbus = Aᵀ diag(B) A for the branch–bus incidence A, Pfinj = −B∘φ and
// Pbusinj = Aᵀ Pfinj — MATPOWER's makeBdc. Each island (connected component) has
// one reference bus with θ = 0: the type-3 bus if it has one, otherwise the bus of
// its largest generator.
type Network struct {
	Case    *Case
	Options DCOptions

	BusID    []int       // bus ID per internal bus index
	BusIndex map[int]int // bus ID → internal index
	Load     []float64   // MW per bus: Pd (+ Gs unless IgnoreShunts)
	Island   []int       // island index per bus
	RefBus   []int       // reference bus per island (internal index)

	Gen        []int     // Case.Gens index per in-service generator
	GenBus     []int     // internal bus per generator
	Pmin, Pmax []float64 // MW per generator

	Branch           []int     // Case.Branches index per in-service branch
	From, To         []int     // internal buses per branch
	B                []float64 // BaseMVA·b_l, MW/rad
	Shift            []float64 // φ_l, radians
	FlowMin, FlowMax []float64 // MW; ±rateA intersected with the angle limits, ±Inf if none

	Bbus    *sparse.CSC // n×n
	Bf      *sparse.CSC // m×n
	Pbusinj []float64   // MW per bus
	Pfinj   []float64   // MW per branch

	fact    *reducedFactor // LDLᵀ of the reduced Bbus (non-reference buses)
	reduced []int          // internal bus → position in the reduced system, −1 for references
	// n1Program marks a copy made by withFlowgates (the N-1 route's
	// program, with or without flowgate rows).
	n1Program bool
}

// NumBuses returns the number of in-service buses.
func (n *Network) NumBuses() int { return len(n.BusID) }

// NumGens returns the number of in-service generators.
func (n *Network) NumGens() int { return len(n.Gen) }

// NumBranches returns the number of in-service branches.
func (n *Network) NumBranches() int { return len(n.Branch) }

// NewNetwork builds the DC network of c (validated first). It fails when an
// island carrying load has no in-service generator, or when the reduced
// susceptance matrix is singular.
func NewNetwork(c *Case, opt DCOptions) (*Network, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	n := &Network{Case: c, Options: opt, BusIndex: map[int]int{}}
	for _, b := range c.Buses {
		if b.Type == Isolated {
			continue
		}
		n.BusIndex[b.ID] = len(n.BusID)
		n.BusID = append(n.BusID, b.ID)
		load := b.Pd
		if !opt.IgnoreShunts {
			load += b.Gs
		}
		n.Load = append(n.Load, load)
	}
	nb := len(n.BusID)
	if nb == 0 {
		return nil, formatErr("bus", 0, 0, "every bus is isolated (type 4)")
	}
	for gi, g := range c.Gens {
		bi, ok := n.BusIndex[g.Bus]
		if !g.InService || !ok {
			continue
		}
		n.Gen = append(n.Gen, gi)
		n.GenBus = append(n.GenBus, bi)
		n.Pmin = append(n.Pmin, g.Pmin)
		n.Pmax = append(n.Pmax, g.Pmax)
	}
	base := c.BaseMVA
	for li, br := range c.Branches {
		f, okf := n.BusIndex[br.From]
		t, okt := n.BusIndex[br.To]
		if !br.InService || !okf || !okt {
			continue
		}
		var b float64
		switch opt.Susceptance {
		case SusceptanceX:
			b = 1 / br.X
		case SusceptanceRX:
			b = br.X / (br.R*br.R + br.X*br.X)
		}
		if !opt.IgnoreTaps {
			b /= br.Tap()
		}
		B := base * b
		phi := 0.0
		if !opt.IgnorePhaseShifts {
			phi = br.Angle * math.Pi / 180
		}
		lo, hi := math.Inf(-1), math.Inf(1)
		if br.RateA > 0 {
			lo, hi = -br.RateA, br.RateA
		}
		if !opt.IgnoreAngleLimits && hasAngleLimits(br.AngMin, br.AngMax) {
			a1 := B * (br.AngMin*math.Pi/180 - phi)
			a2 := B * (br.AngMax*math.Pi/180 - phi)
			if a1 > a2 {
				a1, a2 = a2, a1
			}
			if br.AngMin > -360 {
				if B > 0 {
					lo = math.Max(lo, a1)
				} else {
					hi = math.Min(hi, a2)
				}
			}
			if br.AngMax < 360 {
				if B > 0 {
					hi = math.Min(hi, a2)
				} else {
					lo = math.Max(lo, a1)
				}
			}
		}
		n.Branch = append(n.Branch, li)
		n.From = append(n.From, f)
		n.To = append(n.To, t)
		n.B = append(n.B, B)
		n.Shift = append(n.Shift, phi)
		n.FlowMin = append(n.FlowMin, lo)
		n.FlowMax = append(n.FlowMax, hi)
	}
	m := len(n.Branch)
	// Matrices.
	bf := sparse.NewTriplets(m, nb, 2*m)
	bb := sparse.NewTriplets(nb, nb, 4*m)
	n.Pfinj = make([]float64, m)
	n.Pbusinj = make([]float64, nb)
	for l := 0; l < m; l++ {
		f, t, B := n.From[l], n.To[l], n.B[l]
		bf.Append(l, f, B)
		bf.Append(l, t, -B)
		bb.Append(f, f, B)
		bb.Append(t, t, B)
		bb.Append(f, t, -B)
		bb.Append(t, f, -B)
		n.Pfinj[l] = -B * n.Shift[l]
		n.Pbusinj[f] += n.Pfinj[l]
		n.Pbusinj[t] -= n.Pfinj[l]
	}
	n.Bf, n.Bbus = bf.ToCSC(), bb.ToCSC()
	if err := n.findIslands(); err != nil {
		return nil, err
	}
	if err := n.factor(); err != nil {
		return nil, err
	}
	return n, nil
}

// hasAngleLimits applies MATPOWER's convention: both zero, or both beyond ±360°,
// means unconstrained.
func hasAngleLimits(lo, hi float64) bool {
	if lo == 0 && hi == 0 {
		return false
	}
	return lo > -360 || hi < 360
}

// findIslands labels connected components, picks their reference buses and
// rejects islands with load but no generator.
func (n *Network) findIslands() error {
	nb := len(n.BusID)
	adj := make([][]int, nb)
	for l := range n.Branch {
		f, t := n.From[l], n.To[l]
		adj[f] = append(adj[f], t)
		adj[t] = append(adj[t], f)
	}
	n.Island = make([]int, nb)
	for i := range n.Island {
		n.Island[i] = -1
	}
	var comps [][]int
	for s := 0; s < nb; s++ {
		if n.Island[s] >= 0 {
			continue
		}
		k := len(comps)
		comp := []int{s}
		n.Island[s] = k
		for q := 0; q < len(comp); q++ {
			for _, v := range adj[comp[q]] {
				if n.Island[v] < 0 {
					n.Island[v] = k
					comp = append(comp, v)
				}
			}
		}
		comps = append(comps, comp)
	}
	bestGen := make([]int, len(comps))
	for k := range bestGen {
		bestGen[k] = -1
	}
	for g, bi := range n.GenBus {
		k := n.Island[bi]
		if bestGen[k] < 0 || n.Pmax[g] > n.Pmax[bestGen[k]] {
			bestGen[k] = g
		}
	}
	caseIdx := n.Case.BusIndex()
	n.RefBus = make([]int, len(comps))
	for k, comp := range comps {
		ref := -1
		var load float64
		for _, i := range comp {
			load += n.Load[i]
			if ref < 0 && n.Case.Buses[caseIdx[n.BusID[i]]].Type == Ref {
				ref = i
			}
		}
		if bestGen[k] < 0 {
			if load != 0 {
				ids := make([]int, 0, len(comp))
				for _, i := range comp {
					ids = append(ids, n.BusID[i])
				}
				sort.Ints(ids)
				if len(ids) > 8 {
					ids = ids[:8]
				}
				return formatErr("bus", 0, 0, "island of %d bus(es) (IDs %v…) has %.6g MW of load but no in-service generator", len(comp), ids, load)
			}
		}
		if ref < 0 {
			if bestGen[k] >= 0 {
				ref = n.GenBus[bestGen[k]]
			} else {
				ref = comp[0]
			}
		}
		n.RefBus[k] = ref
	}
	return nil
}

// factor builds and factors the reduced Bbus (reference rows/columns removed).
// The reduced matrix is positive definite when every branch susceptance is
// positive and each island keeps its reference bus, so the LDLᵀ factorization
// without pivoting has positive pivots; with a few negative (series-compensated)
// branches it succeeds as long as no pivot is exactly zero.
func (n *Network) factor() error {
	nb := len(n.BusID)
	n.reduced = make([]int, nb)
	isRef := make([]bool, nb)
	for _, r := range n.RefBus {
		isRef[r] = true
	}
	var busOf []int // position in the reduced system → internal bus
	for i := 0; i < nb; i++ {
		if isRef[i] {
			n.reduced[i] = -1
			continue
		}
		n.reduced[i] = len(busOf)
		busOf = append(busOf, i)
	}
	// Upper triangle with the diagonal, the input of package ldl. Bbus has sorted
	// rows and reduced is increasing, so the rows of each column stay sorted and
	// the diagonal comes last; it is stored even when the susceptances at a bus
	// cancel (ToCSC dropped the exact zero), so that such a bus reports a zero
	// pivot instead of a malformed pattern.
	k := len(busOf)
	upper := &sparse.CSC{Rows: k, Cols: k, ColPtr: make([]int, k+1)}
	for rj, j := range busOf {
		diag := false
		for p := n.Bbus.ColPtr[j]; p < n.Bbus.ColPtr[j+1]; p++ {
			i := n.Bbus.RowIdx[p]
			if i > j {
				break
			}
			if ri := n.reduced[i]; ri >= 0 {
				upper.RowIdx = append(upper.RowIdx, ri)
				upper.Val = append(upper.Val, n.Bbus.Val[p])
				diag = i == j
			}
		}
		if !diag {
			upper.RowIdx = append(upper.RowIdx, rj)
			upper.Val = append(upper.Val, 0)
		}
		upper.ColPtr[rj+1] = len(upper.RowIdx)
	}
	sym, err := ldl.Analyze(upper, ldl.Options{})
	if err != nil {
		return fmt.Errorf("grid: reduced susceptance matrix: %w", err)
	}
	f, err := sym.Factor(upper, nil, ldl.Regularization{})
	if err != nil {
		var pe *ldl.PivotError
		if !errors.As(err, &pe) {
			return fmt.Errorf("grid: reduced susceptance matrix: %w", err)
		}
		id := n.BusID[busOf[pe.Index]]
		row, line := 0, 0
		if ci, ok := n.Case.BusIndex()[id]; ok {
			row, line = ci+1, n.Case.Buses[ci].Line
		}
		return formatErr("bus", row, line, "reduced DC susceptance matrix has a zero pivot at bus %d (elimination step %d of %d): it is singular (e.g. branch susceptances that cancel cut part of the island off from its reference bus %d) or, with negative-reactance branches, not factorizable without pivoting",
			id, pe.Step+1, k, n.BusID[n.RefBus[n.Island[busOf[pe.Index]]]])
	}
	n.fact = &reducedFactor{upper: upper, sym: sym, main: f}
	return nil
}

// reducedFactor holds P B_red Pᵀ = L D Lᵀ (approximate minimum degree ordering P)
// and makes solves safe for concurrent use: an ldl.Factor owns its workspace, so
// a caller that finds the main factor busy takes a spare one from a pool, made by
// repeating the numeric factorization with the same symbolic analysis and
// values — a deterministic computation, hence bitwise the same factor and the
// same results whichever factor a solve uses.
type reducedFactor struct {
	upper *sparse.CSC // upper triangle of B_red, diagonal included
	sym   *ldl.Symbolic
	mu    sync.Mutex // guards main
	main  *ldl.Factor
	spare sync.Pool // of *ldl.Factor
}

// n returns the order of B_red.
func (r *reducedFactor) n() int { return r.upper.Cols }

// solve overwrites x (length n()) with B_red⁻¹ x.
func (r *reducedFactor) solve(x []float64) {
	if r.mu.TryLock() {
		r.main.Solve(x, x)
		r.mu.Unlock()
		return
	}
	f, _ := r.spare.Get().(*ldl.Factor)
	if f == nil {
		var err error
		if f, err = r.sym.Factor(r.upper, nil, ldl.Regularization{}); err != nil {
			// Not reached (the same factorization succeeded in NewNetwork);
			// wait for the main factor rather than fail.
			r.mu.Lock()
			r.main.Solve(x, x)
			r.mu.Unlock()
			return
		}
	}
	f.Solve(x, x)
	r.spare.Put(f)
}

// SolveAngles returns θ (radians, θ_ref = 0 in every island) with
// (Bbus θ)_i = inj_i for the non-reference buses: the DC power flow for net
// injections inj (MW, length NumBuses). Reference buses absorb the mismatch.
func (n *Network) SolveAngles(inj []float64) []float64 {
	return n.solveReducedBuses(inj)
}

// solveReducedBuses returns the bus vector [B_red⁻¹ v_red; 0 at reference
// buses] for a bus vector v: v restricted to the non-reference buses, solved
// with the reduced susceptance matrix, and expanded back.
func (n *Network) solveReducedBuses(v []float64) []float64 {
	x := make([]float64, n.fact.n())
	for i, r := range n.reduced {
		if r >= 0 {
			x[r] = v[i]
		}
	}
	n.fact.solve(x)
	out := make([]float64, len(n.BusID))
	for i, r := range n.reduced {
		if r >= 0 {
			out[i] = x[r]
		}
	}
	return out
}

// PowerFlow solves the DC power flow for generator outputs pg (MW, length NumGens)
// and returns the angles and branch flows (MW): θ from
// Bbus θ = Cg pg − Load − Pbusinj, f = Bf θ + Pfinj.
func (n *Network) PowerFlow(pg []float64) (theta, flow []float64) {
	inj := n.NetInjection(pg)
	for i := range inj {
		inj[i] -= n.Pbusinj[i]
	}
	theta = n.SolveAngles(inj)
	flow = n.Bf.MulVecTo(nil, 1, theta, 0)
	for l := range flow {
		flow[l] += n.Pfinj[l]
	}
	return theta, flow
}

// FlowsAt returns the branch flows (MW) of dispatch pg at the bus loads load
// (MW per internal bus, in place of Load; nil: Load): Bf θ + Pfinj with
// Bbus θ = Cg pg − load − Pbusinj, as PowerFlow.
func (n *Network) FlowsAt(pg, load []float64) []float64 {
	if load == nil {
		load = n.Load
	}
	inj := make([]float64, n.NumBuses())
	for i := range inj {
		inj[i] = -load[i] - n.Pbusinj[i]
	}
	for g, bi := range n.GenBus {
		inj[bi] += pg[g]
	}
	f := n.Bf.MulVecTo(nil, 1, n.SolveAngles(inj), 0)
	for l := range f {
		f[l] += n.Pfinj[l]
	}
	return f
}

// NetInjection returns Cg pg − Load (MW per bus).
func (n *Network) NetInjection(pg []float64) []float64 {
	inj := make([]float64, len(n.BusID))
	for i := range inj {
		inj[i] = -n.Load[i]
	}
	for g, bi := range n.GenBus {
		inj[bi] += pg[g]
	}
	return inj
}

// PTDFColumns returns, for each internal bus index in buses, the column
// PTDF[:, i] (length NumBranches): the flow change on every branch per MW injected
// at bus i and withdrawn at the reference bus of its island,
//
//	PTDF = Bf · [0; B_red⁻¹]   (columns of reference buses are zero),
//
// computed with one solve of the factored reduced Bbus per column — never a dense
// inverse.
func (n *Network) PTDFColumns(buses []int) [][]float64 {
	x := make([]float64, n.fact.n())
	theta := make([]float64, len(n.BusID))
	out := make([][]float64, len(buses))
	for c, i := range buses {
		col := make([]float64, len(n.Branch))
		out[c] = col
		r := n.reduced[i]
		if r < 0 {
			continue
		}
		clear(x)
		x[r] = 1
		n.fact.solve(x)
		for j, rj := range n.reduced {
			theta[j] = 0
			if rj >= 0 {
				theta[j] = x[rj]
			}
		}
		n.Bf.MulVecTo(col, 1, theta, 0)
	}
	return out
}

// PTDFTransMul returns PTDFᵀ μ (length NumBuses) for a vector μ over branches,
// with one solve: PTDFᵀμ = [0; B_red⁻¹ (Bfᵀ μ)_red] (Bbus is symmetric).
func (n *Network) PTDFTransMul(mu []float64) []float64 {
	return n.solveReducedBuses(n.Bf.MulTransVecTo(nil, 1, mu, 0))
}
