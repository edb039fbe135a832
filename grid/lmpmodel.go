package grid

import (
	"fmt"
	"math"

	"github.com/privopt/privopt/solver/highs"
	"github.com/privopt/privopt/sparse"
)

// lpBuilder accumulates the columns and rows of a (mixed-integer) linear
// program and hands it to HiGHS in one piece.
type lpBuilder struct {
	cost, lo, hi []float64
	integer      []int
	rlo, rhi     []float64
	ri, rj       []int // entries: row, column
	rv           []float64
}

func newLPBuilder() *lpBuilder { return &lpBuilder{} }

// col appends a column and returns its index.
func (b *lpBuilder) col(cost, lo, hi float64) int {
	b.cost = append(b.cost, cost)
	b.lo = append(b.lo, lo)
	b.hi = append(b.hi, hi)
	return len(b.cost) - 1
}

// binary appends a 0/1 integer column.
func (b *lpBuilder) binary() int {
	j := b.col(0, 0, 1)
	b.integer = append(b.integer, j)
	return j
}

// row appends lo ≤ Σ val_k x_{idx_k} ≤ hi.
func (b *lpBuilder) row(lo, hi float64, idx []int, val []float64) int {
	r := len(b.rlo)
	b.rlo = append(b.rlo, lo)
	b.rhi = append(b.rhi, hi)
	for k, j := range idx {
		if val[k] != 0 {
			b.ri, b.rj, b.rv = append(b.ri, r), append(b.rj, j), append(b.rv, val[k])
		}
	}
	return r
}

// prefix returns the program of b's first rows rows and cols columns
// (objective zero, integrality dropped): a relaxation of b when no entry of
// those rows lies in a later column (checked: an error names the entry).
func (b *lpBuilder) prefix(rows, cols int) (*lpBuilder, error) {
	p := &lpBuilder{cost: make([]float64, cols), lo: append([]float64(nil), b.lo[:cols]...), hi: append([]float64(nil), b.hi[:cols]...)}
	p.rlo, p.rhi = append([]float64(nil), b.rlo[:rows]...), append([]float64(nil), b.rhi[:rows]...)
	for k, r := range b.ri {
		if r >= rows {
			continue
		}
		if b.rj[k] >= cols {
			return nil, fmt.Errorf("grid: row %d of the prefix has an entry in column %d (of %d)", r, b.rj[k], cols)
		}
		p.ri, p.rj, p.rv = append(p.ri, r), append(p.rj, b.rj[k]), append(p.rv, b.rv[k])
	}
	return p, nil
}

// build creates the HiGHS LP (integrality set when integer columns exist).
func (b *lpBuilder) build(o highs.Options) (*highs.LP, error) {
	lp := highs.NewLP(o)
	if err := lp.AddColumns(b.cost, b.lo, b.hi); err != nil {
		lp.Close()
		return nil, err
	}
	t := sparse.NewTriplets(len(b.cost), len(b.rlo), len(b.rv))
	for k, v := range b.rv {
		t.Append(b.rj[k], b.ri[k], v) // transposed: column r is row r
	}
	if err := lp.AddRows(b.rlo, b.rhi, t.ToCSC()); err != nil {
		lp.Close()
		return nil, err
	}
	if len(b.integer) > 0 {
		if err := lp.SetIntegral(b.integer); err != nil {
			lp.Close()
			return nil, err
		}
	}
	return lp, nil
}

// marketLP holds the column layout of the DC-OPF with market rules over a
// load domain, in the bus-angle form (sparse: one balance row per bus, one
// row per limited branch):
//
//	minimize   Σ_s c_s p_s + PriceCap Σ_j σ_j + (−PriceFloor) Σ_j κ_j
//	subject to Σ_{s at j} p_s + σ_j − κ_j − d_j − (Bbus θ)_j = Pbusinj_j − Σ_{g at j} Pmin_g   (π_j)
//	           FlowMin_l − Pfinj_l ≤ (Bf θ)_l ≤ FlowMax_l − Pfinj_l                          (μ⁻_l, μ⁺_l)
//	           0 ≤ p_s ≤ w_s,  0 ≤ σ_j, κ_j ≤ capacity,  Lo_j ≤ d_j ≤ Hi_j,  θ_ref = 0
//
// with p_s the merit segments above each unit's Pmin (the unit's cost at
// Pmin is a constant, dropped), σ the shedding and κ the curtailment
// backstops at the buses of Network.BackstopBuses, d_j a column for every bus
// whose load varies (fixed loads are constants). Its optimal value is the
// release's V(d) minus the constant Σ_g cost_g(Pmin_g).
type marketLP struct {
	n        *Network
	dom      LoadDomain
	rules    MarketRules
	capacity float64
	segs     []MeritSegment
	segBus   []int // internal bus per segment

	shedAt, curtAt []bool // backstops per bus
	vars           []int  // variable buses

	// Column indices (−1 when absent).
	d, sigma, kappa []int // per bus
	p               []int // per segment
	theta           []int // per bus
	balance         []int // row per bus
	flow            []int // row per branch (−1 if unlimited)
	bfBus           [][]int
	bfVal           [][]float64
}

// segmentsConvex returns the merit segments (see meritSegments) after
// checking that every unit's piecewise-linear cost is convex (slopes
// nondecreasing), which the LP epigraph assumes.
func (n *Network) segmentsConvex() ([]MeritSegment, error) {
	for _, gi := range n.Gen {
		c := &n.Case.Costs[gi]
		if _, _, _, ok := c.Quadratic(); ok {
			continue
		}
		for k := 0; k+2 < len(c.X); k++ {
			s0 := (c.Y[k+1] - c.Y[k]) / (c.X[k+1] - c.X[k])
			s1 := (c.Y[k+2] - c.Y[k+1]) / (c.X[k+2] - c.X[k+1])
			if s1 < s0-1e-9*math.Max(1, math.Abs(s0)) {
				return nil, fmt.Errorf("grid: generator %d has a non-convex piecewise-linear cost (slope %v then %v)", gi+1, s0, s1)
			}
		}
	}
	segs, _, why := n.meritSegments()
	if why != "" {
		return nil, fmt.Errorf("grid: %s", why)
	}
	return segs, nil
}

// BackstopCapacity returns the capacity of each backstop unit of the cost
// release over dom: 1,000 MW plus twice the largest |load| of every bus plus
// twice |Pmin| + |Pmax| of every unit, a public function of the domain and the
// network that covers any load and generation (the same rule as the release's
// program).
func (n *Network) BackstopCapacity(dom LoadDomain) float64 {
	c := 1000.0
	for i := range dom.Lo {
		c += 2 * math.Max(math.Abs(dom.Lo[i]), math.Abs(dom.Hi[i]))
	}
	for g := range n.Gen {
		c += 2 * (math.Abs(n.Pmin[g]) + math.Abs(n.Pmax[g]))
	}
	return c
}

// newMarketLP lays out the primal columns and rows in b.
func (n *Network) newMarketLP(b *lpBuilder, dom LoadDomain, rules MarketRules) (*marketLP, error) {
	segs, err := n.segmentsConvex()
	if err != nil {
		return nil, err
	}
	nb := n.NumBuses()
	m := &marketLP{n: n, dom: dom, rules: rules, capacity: n.BackstopCapacity(dom), segs: segs}
	m.shedAt, m.curtAt = make([]bool, nb), make([]bool, nb)
	shed, curt := n.BackstopBuses(dom)
	for _, id := range shed {
		m.shedAt[n.BusIndex[id]] = true
	}
	for _, id := range curt {
		m.curtAt[n.BusIndex[id]] = true
	}
	m.vars = dom.Variable()
	fill := func() []int {
		v := make([]int, nb)
		for i := range v {
			v[i] = -1
		}
		return v
	}
	m.d, m.sigma, m.kappa, m.theta = fill(), fill(), fill(), fill()
	for _, j := range m.vars {
		m.d[j] = b.col(0, dom.Lo[j], dom.Hi[j])
	}
	m.p = make([]int, len(segs))
	m.segBus = make([]int, len(segs))
	for s, sg := range segs {
		m.p[s] = b.col(sg.Price, 0, sg.Width)
		m.segBus[s] = n.GenBus[sg.Gen]
	}
	for j := 0; j < nb; j++ {
		if m.shedAt[j] {
			m.sigma[j] = b.col(rules.PriceCap, 0, m.capacity)
		}
		if m.curtAt[j] {
			m.kappa[j] = b.col(-rules.PriceFloor, 0, m.capacity)
		}
	}
	isRef := make([]bool, nb)
	for _, r := range n.RefBus {
		isRef[r] = true
	}
	for j := 0; j < nb; j++ {
		lo, hi := math.Inf(-1), math.Inf(1)
		if isRef[j] {
			lo, hi = 0, 0
		}
		m.theta[j] = b.col(0, lo, hi)
	}
	// Balance rows.
	rhs := make([]float64, nb)
	for j := 0; j < nb; j++ {
		rhs[j] = n.Pbusinj[j]
		if m.d[j] < 0 {
			rhs[j] += dom.Lo[j]
		}
	}
	for g, bi := range n.GenBus {
		rhs[bi] -= n.Pmin[g]
	}
	idx := make([][]int, nb)
	val := make([][]float64, nb)
	add := func(j, c int, v float64) {
		if c >= 0 {
			idx[j] = append(idx[j], c)
			val[j] = append(val[j], v)
		}
	}
	for s := range segs {
		add(m.segBus[s], m.p[s], 1)
	}
	for j := 0; j < nb; j++ {
		add(j, m.sigma[j], 1)
		add(j, m.kappa[j], -1)
		add(j, m.d[j], -1)
	}
	for k := 0; k < n.Bbus.Cols; k++ {
		for t := n.Bbus.ColPtr[k]; t < n.Bbus.ColPtr[k+1]; t++ {
			add(n.Bbus.RowIdx[t], m.theta[k], -n.Bbus.Val[t])
		}
	}
	m.balance = make([]int, nb)
	for j := 0; j < nb; j++ {
		m.balance[j] = b.row(rhs[j], rhs[j], idx[j], val[j])
	}
	// Flow rows.
	m.bfBus, m.bfVal = n.bfRows()
	m.flow = make([]int, n.NumBranches())
	for l := range m.flow {
		m.flow[l] = -1
		if math.IsInf(n.FlowMax[l], 1) && math.IsInf(n.FlowMin[l], -1) {
			continue
		}
		cols := make([]int, len(m.bfBus[l]))
		for k, j := range m.bfBus[l] {
			cols[k] = m.theta[j]
		}
		m.flow[l] = b.row(n.FlowMin[l]-n.Pfinj[l], n.FlowMax[l]-n.Pfinj[l], cols, m.bfVal[l])
	}
	return m, nil
}

// bfRows returns the rows of Bf (flow = Bf θ + Pfinj) as bus and value lists.
func (n *Network) bfRows() ([][]int, [][]float64) {
	bus := make([][]int, n.NumBranches())
	val := make([][]float64, n.NumBranches())
	for j := 0; j < n.Bf.Cols; j++ {
		for t := n.Bf.ColPtr[j]; t < n.Bf.ColPtr[j+1]; t++ {
			l := n.Bf.RowIdx[t]
			bus[l] = append(bus[l], j)
			val[l] = append(val[l], n.Bf.Val[t])
		}
	}
	return bus, val
}
