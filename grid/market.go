package grid

import (
	"fmt"
	"math"
)

// MarketRules are the two price rules every electricity market has and the
// private cost release relies on: a price cap at which load is shed (the value
// of lost load) and a price floor at which generation is curtailed. Modelled as
// backstop units (Case.WithBackstops at Network.BackstopBuses) — supply at
// PriceCap $/MWh and absorption at −PriceFloor $/MWh of curtailed power — they
// make every load vector feasible and bound the locational price of every bus
// with a varying load to [PriceFloor, PriceCap]. Both are public constants.
type MarketRules struct {
	// PriceCap > 0 is the offer cap / value of lost load, $/MWh.
	PriceCap float64
	// PriceFloor ≤ 0 is the lowest price, $/MWh; curtailing one MW costs
	// −PriceFloor.
	PriceFloor float64
}

// DefaultMarketRules returns a cap of 1,000 $/MWh (a common energy offer cap,
// e.g. PJM's pre-2023 cap) and a floor of 0 $/MWh.
func DefaultMarketRules() MarketRules { return MarketRules{PriceCap: 1000, PriceFloor: 0} }

// Validate checks 0 < PriceCap < ∞ and −∞ < PriceFloor ≤ 0.
func (r MarketRules) Validate() error {
	if !(r.PriceCap > 0) || math.IsInf(r.PriceCap, 0) {
		return fmt.Errorf("grid: PriceCap is %v $/MWh, must be > 0 and finite", r.PriceCap)
	}
	if !(r.PriceFloor <= 0) || math.IsInf(r.PriceFloor, 0) {
		return fmt.Errorf("grid: PriceFloor is %v $/MWh, must be ≤ 0 and finite", r.PriceFloor)
	}
	return nil
}

// MaxPrice returns max(PriceCap, −PriceFloor), the largest |price| the rules allow.
func (r MarketRules) MaxPrice() float64 { return math.Max(r.PriceCap, -r.PriceFloor) }

// WithBackstops returns a copy of c with backstop generators appended after
// the case's own: a shedding unit (0 ≤ p ≤ capacity, linear cost
// PriceCap·p) at every bus ID in shed, then a curtailment unit
// (−capacity ≤ p ≤ 0, linear cost PriceFloor·p ≥ 0) at every bus ID in
// curtail. capacity must cover any load and generation the model can see (the
// caller derives it from public bounds). It returns the index of the first
// backstop in Gens.
func (c *Case) WithBackstops(r MarketRules, capacity float64, shed, curtail []int) (*Case, int, error) {
	if err := r.Validate(); err != nil {
		return nil, 0, err
	}
	if !(capacity > 0) || math.IsInf(capacity, 0) {
		return nil, 0, fmt.Errorf("grid: backstop capacity is %v MW, must be > 0 and finite", capacity)
	}
	idx := c.BusIndex()
	out := *c
	first := len(c.Gens)
	out.Gens = append([]Gen(nil), c.Gens...)
	out.Costs = append([]GenCost(nil), c.Costs...)
	for pass, buses := range [][]int{shed, curtail} {
		price := r.PriceCap
		if pass == 1 {
			price = r.PriceFloor
		}
		for _, id := range buses {
			if _, ok := idx[id]; !ok {
				return nil, 0, fmt.Errorf("grid: backstop at bus %d: no such bus", id)
			}
			g := Gen{Bus: id, InService: true, Pmax: capacity, Vg: 1, MBase: c.BaseMVA}
			if pass == 1 { // curtailment: −capacity ≤ p ≤ 0
				g.Pmin, g.Pmax = -capacity, 0
			}
			out.Gens = append(out.Gens, g)
			out.Costs = append(out.Costs, GenCost{Model: Polynomial, Coeffs: []float64{price, 0}})
		}
	}
	return &out, first, nil
}

// BackstopBuses returns the bus IDs that need backstop units for the private
// cost release over dom: shedding where a load can be positive or varies,
// curtailment where a load can be negative or varies or a unit has
// Pmin > 0. Then every load vector in dom is feasible (each bus balances
// locally, zero flows), a one-bus load change can be absorbed at its bus
// (the price-cap bound), and one bus has both units (so any cost can be added:
// the program perturbation's query row).
func (n *Network) BackstopBuses(dom LoadDomain) (shed, curtail []int) {
	pminAt := make([]bool, n.NumBuses())
	for g, bi := range n.GenBus {
		if n.Pmin[g] > 0 {
			pminAt[bi] = true
		}
	}
	both := false
	for i, id := range n.BusID {
		varies := dom.Hi[i] > dom.Lo[i]
		s, c := varies || dom.Hi[i] > 0, varies || dom.Lo[i] < 0 || pminAt[i]
		if s {
			shed = append(shed, id)
		}
		if c {
			curtail = append(curtail, id)
		}
		both = both || (s && c)
	}
	if !both && n.NumBuses() > 0 {
		shed = append(shed, n.BusID[0])
		curtail = append(curtail, n.BusID[0])
	}
	return shed, curtail
}

// PiecewiseCosts returns a copy of c whose quadratic costs c2 p² + c1 p + c0
// (c2 > 0) are replaced by their secant interpolation at segments + 1 equally
// spaced points of [Pmin, Pmax] (MATPOWER model 1), so that the cost of a
// dispatch is an LP value. The secant overestimates the quadratic by at most
// c2·h²/4 per unit, h = (Pmax − Pmin)/segments; maxError returns the sum of
// these bounds over in-service units ($/h). Linear and piecewise-linear costs
// are kept.
func (c *Case) PiecewiseCosts(segments int) (out *Case, maxError float64, err error) {
	if segments < 1 || segments > 10000 {
		return nil, 0, fmt.Errorf("grid: cost segments is %d, must be in [1, 10000]", segments)
	}
	cp := *c
	cp.Costs = append([]GenCost(nil), c.Costs...)
	for gi, gc := range c.Costs {
		c2, c1, c0, ok := gc.Quadratic()
		if !ok || c2 == 0 {
			continue
		}
		g := c.Gens[gi]
		lo, hi := g.Pmin, g.Pmax
		if !(hi > lo) {
			// A fixed unit: its cost is a constant; keep one linear piece.
			cp.Costs[gi] = GenCost{Model: Polynomial, Coeffs: []float64{c1 + 2*c2*lo, c0 - c2*lo*lo}, Line: gc.Line}
			continue
		}
		h := (hi - lo) / float64(segments)
		pw := GenCost{Model: PiecewiseLinear, Startup: gc.Startup, Shutdown: gc.Shutdown, Line: gc.Line}
		for k := 0; k <= segments; k++ {
			x := lo + float64(k)*h
			if k == segments {
				x = hi
			}
			pw.X = append(pw.X, x)
			pw.Y = append(pw.Y, c2*x*x+c1*x+c0)
		}
		cp.Costs[gi] = pw
		if g.InService {
			maxError += c2 * h * h / 4
		}
	}
	return &cp, maxError, nil
}

// LoadDomain is a declared (public) box of bus loads: every dataset the
// release protects has Lo[i] ≤ load_i ≤ Hi[i] for each internal bus i. Adjacent
// datasets differ in one bus load by at most α, both inside the box.
type LoadDomain struct {
	Lo, Hi []float64 // MW per internal bus (Network order)
}

// LoadBand returns the domain load_i ∈ [L_i − frac·|L_i|, L_i + frac·|L_i|]
// around the network's loads L (buses without load stay at 0). frac must be in
// [0, 10].
func (n *Network) LoadBand(frac float64) (LoadDomain, error) {
	if !(frac >= 0 && frac <= 10) {
		return LoadDomain{}, fmt.Errorf("grid: load band is %v, must be in [0, 10] (a fraction of each load)", frac)
	}
	d := LoadDomain{Lo: make([]float64, n.NumBuses()), Hi: make([]float64, n.NumBuses())}
	for i, l := range n.Load {
		d.Lo[i], d.Hi[i] = l-frac*math.Abs(l), l+frac*math.Abs(l)
	}
	return d, nil
}

// Validate checks the domain's shape and that Lo ≤ Hi, finite.
func (d LoadDomain) Validate(n *Network) error {
	if len(d.Lo) != n.NumBuses() || len(d.Hi) != n.NumBuses() {
		return fmt.Errorf("grid: load domain has %d/%d bounds, want NumBuses = %d", len(d.Lo), len(d.Hi), n.NumBuses())
	}
	for i := range d.Lo {
		if !(d.Lo[i] <= d.Hi[i]) || math.IsInf(d.Lo[i], 0) || math.IsInf(d.Hi[i], 0) {
			return fmt.Errorf("grid: load domain at bus %d is [%v, %v], must be finite with Lo ≤ Hi", n.BusID[i], d.Lo[i], d.Hi[i])
		}
	}
	return nil
}

// Contains reports whether load (per internal bus) lies in the domain.
func (d LoadDomain) Contains(load []float64) bool {
	for i, v := range load {
		if v < d.Lo[i] || v > d.Hi[i] {
			return false
		}
	}
	return true
}

// Variable returns the internal buses whose load may vary (Lo < Hi).
func (d LoadDomain) Variable() []int {
	var out []int
	for i := range d.Lo {
		if d.Hi[i] > d.Lo[i] {
			out = append(out, i)
		}
	}
	return out
}
