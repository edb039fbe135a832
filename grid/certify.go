package grid

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"sort"

	"gonum.org/v1/gonum/mat"
)

// Certified sensitivity of the optimal dispatch cost.
//
// Let V(d) be the optimal cost of the DC-OPF with market rules (MarketRules:
// backstop supply at the price cap and absorption at the price floor at every
// bus) at bus loads d. Two facts bound |V(d′) − V(d)| for loads d, d′ that
// differ at one bus i by t = d′_i − d_i, |t| ≤ α, both in a declared domain D:
//
//  1. Price-cap bound (always valid). From an optimal dispatch for d, adding
//     t MW of backstop supply at bus i (t > 0) or −t MW of absorption (t < 0)
//     gives a feasible dispatch for d′: V(d′) ≤ V(d) + t·PriceCap (t > 0) or
//     V(d) + |t|·(−PriceFloor). Exchanging d and d′,
//
//     |V(d′) − V(d)| ≤ α·max(PriceCap, −PriceFloor).
//
//     This is a primal repair argument; it needs no duality and holds for any
//     convex cost.
//  2. Merit-order bound (tight where the network cannot congest). Let the
//     network be one island, every unit's cost linear or piecewise linear
//     (segments of a merit order), the backstop prices outside the segment
//     prices, and every total load T = Σ d_i, d ∈ D, within [Σ Pmin, Σ Pmax].
//     The economic dispatch that ignores line limits fills the segments by
//     price; call it p(T). If for every branch the flow of p(T) at every d ∈ D
//     is strictly inside its limits, then p(T) is optimal for the OPF too (it
//     is feasible and optimal for a relaxation), so V(d) = ED(Σ d), a convex
//     function of T whose slope is the price λ(T) of the marginal segment. Then
//
//     |V(d′) − V(d)| ≤ α·max(|λ(T_lo)|, |λ(T_hi)|),  T_lo, T_hi the extremes of Σ d over D,
//
//     because λ is nondecreasing. (This is the paper's c_max·α with c_max the
//     marginal price that can actually be reached.) The flow check is exact:
//     for a branch l, flow(T, d) = Σ_g PTDF_{l,b(g)} p_g(T) − Σ_i PTDF_{l,i}(d_i + Pbusinj_i) + Pfinj_l,
//     p(T) is piecewise linear in T (breakpoints at the cumulative segment
//     widths) and max_{d ∈ D, Σd = T} −Σ PTDF_{l,i} d_i is a fractional
//     knapsack, concave piecewise linear in T (breakpoints where a bus fills);
//     their sum attains its maximum over T at one of the breakpoints.
//
// The slope of V in a load is that bus's locational price (a dual multiplier
// of its balance row: Schweppe, Caramanis, Tabors and Bohn, "Spot Pricing of
// Electricity", 1988; for convex programs with right-hand-side data, the
// optimal value's subgradient is the dual, e.g. Boyd and Vandenberghe 2004,
// §5.6). Dvorkin et al. use c_max·α, which is valid only without congestion.
// Under congestion, prices exceed c_max (e.g. pglib 118 at 1.336× load: 369
// vs 124.6 $/MWh) and only the price-cap bound applies. The merit-order
// dispatch is the textbook economic dispatch (Wood and Wollenberg, "Power
// Generation, Operation and Control", ch. 3); flows by PTDF as in grid's
// PTDFColumns.

// MeritSegment is one piece of a unit's marginal-cost curve.
type MeritSegment struct {
	Gen   int     `json:"gen"`   // Network generator index
	Price float64 `json:"price"` // $/MWh
	Width float64 `json:"width"` // MW
}

// CostCertificate is the result of CertifyCostSensitivity.
type CostCertificate struct {
	// Method is "price-cap", "uncongested-merit-order", "lmp-bound" or
	// "lmp-bound-n1" (the N-1 program's bound, CertifyN1LMPBound).
	Method string  `json:"method"`
	Alpha  float64 `json:"alpha"`
	// PerMW bounds |∂V/∂d_i| over the domain; Bound = Alpha·PerMW.
	PerMW float64     `json:"per_mw"`
	Bound float64     `json:"bound"`
	Rules MarketRules `json:"rules"`
	// Reason says why the merit-order bound did not apply (price-cap only).
	Reason string `json:"reason,omitempty"`
	// Merit-order evidence.
	TotalLo   float64        `json:"total_lo,omitempty"`
	TotalHi   float64        `json:"total_hi,omitempty"`
	PminTotal float64        `json:"pmin_total,omitempty"`
	Segments  []MeritSegment `json:"segments,omitempty"`
	// Margin is the least relative slack of a branch limit over the domain.
	Margin float64 `json:"margin,omitempty"`
	// LMP is the evidence of the "lmp-bound" method (CertifyLMPBound).
	LMP *LMPEvidence `json:"lmp,omitempty"`
	// N1 is the screening record of the "lmp-bound-n1" method
	// (CertifyN1LMPBound): LMP is then the KKT evidence of the N-1 program
	// with N1.Kept as its post-contingency rows.
	N1 *N1Evidence `json:"n1,omitempty"`
}

// ErrNotCertified is wrapped when a certificate fails re-verification.
var ErrNotCertified = errors.New("grid: cost sensitivity certificate does not hold")

// MaxDensePTDF caps NumBuses·NumBranches for the merit-order check (which
// needs the PTDF row of every limited branch); larger networks get the
// price-cap bound.
const MaxDensePTDF = 60_000_000

// CertifyCostSensitivity returns a certified bound on |V(d′) − V(d)| over
// α-adjacent loads in dom, for the network n WITHOUT backstops (its own units;
// the rules are those the release's program adds). It returns the merit-order
// bound when its conditions hold (see above) and the price-cap bound
// otherwise, with the reason.
func (n *Network) CertifyCostSensitivity(dom LoadDomain, alpha float64, rules MarketRules) (*CostCertificate, error) {
	capCert, err := n.priceCapCertificate(dom, alpha, rules)
	if err != nil {
		return nil, err
	}
	mc, reason := n.meritOrder(dom, rules)
	if mc == nil {
		capCert.Reason = reason
		return capCert, nil
	}
	mc.Alpha, mc.Rules = alpha, rules
	mc.Bound = alpha * mc.PerMW
	if mc.Bound >= capCert.Bound {
		capCert.Reason = "the merit-order bound is not tighter"
		return capCert, nil
	}
	return mc, nil
}

// priceCapCertificate validates the inputs of a certification and returns
// the always-valid price-cap certificate α·max(PriceCap, −PriceFloor).
func (n *Network) priceCapCertificate(dom LoadDomain, alpha float64, rules MarketRules) (*CostCertificate, error) {
	if err := rules.Validate(); err != nil {
		return nil, err
	}
	if !(alpha > 0) || math.IsInf(alpha, 0) {
		return nil, fmt.Errorf("grid: alpha is %v MW, must be > 0 and finite", alpha)
	}
	if err := dom.Validate(n); err != nil {
		return nil, err
	}
	c := &CostCertificate{Method: "price-cap", Alpha: alpha, PerMW: rules.MaxPrice(), Rules: rules}
	c.Bound = alpha * c.PerMW
	return c, nil
}

// meritSegments returns the merit order of the network's units (sorted by
// price, ties by unit) and Σ Pmin, or a reason why the costs do not qualify.
func (n *Network) meritSegments() ([]MeritSegment, float64, string) {
	var segs []MeritSegment
	var pmin float64
	for g, gi := range n.Gen {
		lo, hi := n.Pmin[g], n.Pmax[g]
		pmin += lo
		c := &n.Case.Costs[gi]
		if c2, c1, _, ok := c.Quadratic(); ok {
			if c2 != 0 {
				return nil, 0, fmt.Sprintf("generator %d has a quadratic cost (convert with Case.PiecewiseCosts)", gi+1)
			}
			if hi > lo {
				segs = append(segs, MeritSegment{Gen: g, Price: c1, Width: hi - lo})
			}
			continue
		}
		for k := 0; k+1 < len(c.X); k++ {
			a, b := math.Max(c.X[k], lo), math.Min(c.X[k+1], hi)
			if k == 0 {
				a = lo // extrapolation below the first breakpoint
			}
			if k+2 == len(c.X) {
				b = hi
			}
			if b > a {
				segs = append(segs, MeritSegment{Gen: g, Price: (c.Y[k+1] - c.Y[k]) / (c.X[k+1] - c.X[k]), Width: b - a})
			}
		}
	}
	sort.SliceStable(segs, func(i, j int) bool { return segs[i].Price < segs[j].Price })
	return segs, pmin, ""
}

// meritOrder checks the merit-order conditions and computes its certificate,
// or returns the reason it does not apply.
func (n *Network) meritOrder(dom LoadDomain, rules MarketRules) (*CostCertificate, string) {
	if len(n.RefBus) != 1 {
		return nil, fmt.Sprintf("the network has %d islands", len(n.RefBus))
	}
	segs, pmin, why := n.meritSegments()
	if why != "" {
		return nil, why
	}
	var tlo, thi, pmax float64
	tlo, thi = domainTotals(dom, n.Pbusinj)
	pmax = pmin
	for _, s := range segs {
		pmax += s.Width
	}
	if tlo < pmin || thi > pmax {
		return nil, fmt.Sprintf("total load over the domain [%.6g, %.6g] MW leaves the units' range [%.6g, %.6g] MW (backstops can be marginal)", tlo, thi, pmin, pmax)
	}
	if len(segs) > 0 && (segs[len(segs)-1].Price > rules.PriceCap || segs[0].Price < rules.PriceFloor) {
		return nil, "a unit's price lies outside [PriceFloor, PriceCap]"
	}
	// Fast refusal: the merit-order dispatch at the domain's midpoint (a
	// public point of the domain) already reaches a limit (one power flow
	// instead of a PTDF row per branch; before the size cap, so large
	// networks get the real reason). The network's own loads are never read:
	// they may be the private data.
	mid := make([]float64, len(dom.Lo))
	for i := range mid {
		mid[i] = dom.Lo[i] + (dom.Hi[i]-dom.Lo[i])/2
	}
	if n.meritFlowViolation(segs, pmin, mid) >= 0 {
		return nil, "a branch can reach its limit over the domain (the merit-order dispatch reaches one at the domain's midpoint)"
	}
	if float64(n.NumBuses())*float64(n.NumBranches()) > MaxDensePTDF {
		return nil, fmt.Sprintf("%d buses × %d branches exceed the PTDF size cap of the congestion check", n.NumBuses(), n.NumBranches())
	}
	c := &CostCertificate{Method: "uncongested-merit-order", TotalLo: tlo, TotalHi: thi, PminTotal: pmin, Segments: segs}
	c.PerMW = math.Max(math.Abs(marginalPrice(segs, pmin, tlo)), math.Abs(marginalPrice(segs, pmin, thi)))
	all := make([]int, n.NumBuses())
	for i := range all {
		all[i] = i
	}
	ptdf := n.PTDFColumns(all) // ptdf[i][l]
	margin, bad := branchMargins(n, dom, segs, pmin, tlo, thi, func(l, i int) float64 { return ptdf[i][l] })
	if bad >= 0 {
		return nil, fmt.Sprintf("branch %d (%d–%d) can reach its limit over the domain", n.Branch[bad]+1, n.BusID[n.From[bad]], n.BusID[n.To[bad]])
	}
	c.Margin = margin
	return c, ""
}

// meritFlowViolation returns a branch whose flow under the merit-order
// dispatch of the loads load (per bus) reaches its limit, or −1.
func (n *Network) meritFlowViolation(segs []MeritSegment, pmin float64, load []float64) int {
	total := 0.0
	for i := range load {
		total += load[i] + n.Pbusinj[i]
	}
	p := append([]float64(nil), n.Pmin...)
	rest := total - pmin
	for _, s := range segs {
		if rest <= 0 {
			break
		}
		f := math.Min(rest, s.Width)
		p[s.Gen] += f
		rest -= f
	}
	for l, f := range n.FlowsAt(p, load) {
		if f >= n.FlowMax[l] || f <= n.FlowMin[l] {
			return l
		}
	}
	return -1
}

// marginalPrice returns the largest price of a segment whose fill interval
// contains T (the right and left derivatives of the ED cost at T). The
// interval test is exact: the cumulative widths and T are compared as
// rationals (float64 values are exact rationals), so no rounding of the sum
// can move T into the wrong segment.
func marginalPrice(segs []MeritSegment, pmin, t float64) float64 {
	at := new(big.Rat).SetFloat64(pmin)
	tr := new(big.Rat).SetFloat64(t)
	best := math.Inf(-1)
	for _, s := range segs {
		end := new(big.Rat).Add(at, new(big.Rat).SetFloat64(s.Width))
		if tr.Cmp(at) >= 0 && tr.Cmp(end) <= 0 {
			best = math.Max(best, s.Price)
		}
		at = end
	}
	return best
}

// domainTotals returns Σ (Lo_i + inj_i) rounded down and Σ (Hi_i + inj_i)
// rounded up: the exact sums (rational arithmetic) rounded outward, so the
// float range contains the domain's total-load range.
func domainTotals(dom LoadDomain, inj []float64) (lo, hi float64) {
	l, h := new(big.Rat), new(big.Rat)
	for i := range dom.Lo {
		l.Add(l, new(big.Rat).SetFloat64(dom.Lo[i]))
		h.Add(h, new(big.Rat).SetFloat64(dom.Hi[i]))
		if inj != nil {
			l.Add(l, new(big.Rat).SetFloat64(inj[i]))
			h.Add(h, new(big.Rat).SetFloat64(inj[i]))
		}
	}
	lo, _ = new(big.Float).SetPrec(53).SetMode(big.ToNegativeInf).SetRat(l).Float64()
	hi, _ = new(big.Float).SetPrec(53).SetMode(big.ToPositiveInf).SetRat(h).Float64()
	return lo, hi
}

// branchMargins runs the exact flow check of every limited branch (see the
// package comment above) with PTDF entries ptdf(l, i) and returns the least
// relative slack, or the first branch that can reach a limit (else −1).
func branchMargins(n *Network, dom LoadDomain, segs []MeritSegment, pmin, tlo, thi float64, ptdf func(l, i int) float64) (float64, int) {
	nb := n.NumBuses()
	cum := make([]float64, len(segs)+1) // T at the start of segment k
	cum[0] = pmin
	for k, s := range segs {
		cum[k+1] = cum[k] + s.Width
	}
	vars := dom.Variable()
	margin := math.Inf(1)
	a := make([]float64, nb)
	for l := range n.Branch {
		up, lo := !math.IsInf(n.FlowMax[l], 1), !math.IsInf(n.FlowMin[l], -1)
		if !up && !lo {
			continue
		}
		// Constant part and the generator part at T = pmin (all units at Pmin).
		base := n.Pfinj[l]
		for i := 0; i < nb; i++ {
			a[i] = -ptdf(l, i)
			base += a[i] * (dom.Lo[i] + n.Pbusinj[i])
		}
		gAt := make([]float64, len(segs)+1)
		for g, bi := range n.GenBus {
			gAt[0] += ptdf(l, bi) * n.Pmin[g]
		}
		for k, s := range segs {
			gAt[k+1] = gAt[k] + ptdf(l, n.GenBus[s.Gen])*s.Width
		}
		gen := func(t float64) float64 {
			k := sort.SearchFloat64s(cum, t) // first cum ≥ t
			if k == 0 {
				return gAt[0]
			}
			if k > len(segs) {
				return gAt[len(segs)]
			}
			s := segs[k-1]
			return gAt[k-1] + ptdf(l, n.GenBus[s.Gen])*(t-cum[k-1])
		}
		for _, sign := range []float64{1, -1} {
			if (sign > 0 && !up) || (sign < 0 && !lo) {
				continue
			}
			// Knapsack: max Σ sign·a_i (d_i − Lo_i) with Σ (d_i − Lo_i) = T − T_lo.
			order := append([]int(nil), vars...)
			sort.Slice(order, func(x, y int) bool { return sign*a[order[x]] > sign*a[order[y]] })
			kc := make([]float64, len(order)+1) // cumulative width
			kv := make([]float64, len(order)+1) // knapsack value at kc
			for t, i := range order {
				w := dom.Hi[i] - dom.Lo[i]
				kc[t+1] = kc[t] + w
				kv[t+1] = kv[t] + sign*a[i]*w
			}
			knap := func(t float64) float64 {
				x := t - tlo
				k := sort.SearchFloat64s(kc, x)
				if k == 0 {
					return 0
				}
				if k >= len(kc) {
					return kv[len(kv)-1]
				}
				i := order[k-1]
				return kv[k-1] + sign*a[i]*(x-kc[k-1])
			}
			worst := math.Inf(-1)
			eval := func(t float64) {
				if t < tlo || t > thi {
					return
				}
				worst = math.Max(worst, sign*(base+gen(t))+knap(t))
			}
			eval(tlo)
			eval(thi)
			for _, t := range cum {
				eval(t)
			}
			for _, x := range kc {
				eval(tlo + x)
			}
			limit := n.FlowMax[l]
			if sign < 0 {
				limit = -n.FlowMin[l]
			}
			slack := limit - worst
			if !(slack > 1e-6*math.Max(1, math.Abs(limit))) {
				return 0, l
			}
			margin = math.Min(margin, slack/math.Max(1, math.Abs(limit)))
		}
	}
	return margin, -1
}

// VerifyCostCertificate re-checks c against the network and the domain: it
// recomputes the merit order from the costs, the marginal prices at the load
// extremes and the branch flow check, with PTDF rows from a dense LU
// factorization of the reduced susceptance matrix (gonum) instead of the
// sparse LDLᵀ solves CertifyCostSensitivity uses, and checks that Bound covers
// α times the price bound. (The merit-order and knapsack evaluation is shared
// with the producer; the network data, the linear algebra and the arithmetic
// of the bound are recomputed.)
// It refuses networks above 4,000 buses (dense verification).
func (n *Network) VerifyCostCertificate(c *CostCertificate, dom LoadDomain) error {
	if c == nil {
		return fmt.Errorf("%w: nil certificate", ErrNotCertified)
	}
	if err := c.Rules.Validate(); err != nil {
		return fmt.Errorf("%w: %v", ErrNotCertified, err)
	}
	switch c.Method {
	case "price-cap":
		if c.Bound < c.Alpha*c.Rules.MaxPrice()*(1-1e-12) {
			return fmt.Errorf("%w: bound %v < α·max(cap, −floor) = %v", ErrNotCertified, c.Bound, c.Alpha*c.Rules.MaxPrice())
		}
		return nil
	case "uncongested-merit-order":
	case "lmp-bound":
		return n.verifyLMPBound(context.Background(), c, dom)
	case "lmp-bound-n1":
		return n.verifyN1LMPBound(context.Background(), c, dom)
	default:
		return fmt.Errorf("%w: unknown method %q", ErrNotCertified, c.Method)
	}
	if n.NumBuses() > 4000 {
		return fmt.Errorf("%w: dense verification is limited to 4,000 buses (network has %d)", ErrNotCertified, n.NumBuses())
	}
	if len(n.RefBus) != 1 {
		return fmt.Errorf("%w: network has %d islands", ErrNotCertified, len(n.RefBus))
	}
	segs, pmin, why := n.meritSegments()
	if why != "" {
		return fmt.Errorf("%w: %s", ErrNotCertified, why)
	}
	tlo, thi := domainTotals(dom, n.Pbusinj)
	pmax := pmin
	for _, s := range segs {
		pmax += s.Width
	}
	if tlo < pmin || thi > pmax {
		return fmt.Errorf("%w: total load [%v, %v] outside the units' range [%v, %v]", ErrNotCertified, tlo, thi, pmin, pmax)
	}
	per := math.Max(math.Abs(marginalPrice(segs, pmin, tlo)), math.Abs(marginalPrice(segs, pmin, thi)))
	if c.Bound < c.Alpha*per*(1-1e-12) {
		return fmt.Errorf("%w: bound %v < α·λ = %v", ErrNotCertified, c.Bound, c.Alpha*per)
	}
	// Dense PTDF: θ_red = B_red⁻¹ e_i, flows = Bf θ.
	nb := n.NumBuses()
	ref := n.RefBus[0]
	idx := make([]int, 0, nb-1)
	for i := 0; i < nb; i++ {
		if i != ref {
			idx = append(idx, i)
		}
	}
	pos := make([]int, nb)
	for i := range pos {
		pos[i] = -1
	}
	for r, i := range idx {
		pos[i] = r
	}
	bred := mat.NewDense(nb-1, nb-1, nil)
	for j := 0; j < n.Bbus.Cols; j++ {
		for t := n.Bbus.ColPtr[j]; t < n.Bbus.ColPtr[j+1]; t++ {
			if r, c := pos[n.Bbus.RowIdx[t]], pos[j]; r >= 0 && c >= 0 {
				bred.Set(r, c, n.Bbus.Val[t])
			}
		}
	}
	bf := mat.NewDense(n.NumBranches(), nb-1, nil)
	for j := 0; j < n.Bf.Cols; j++ {
		for t := n.Bf.ColPtr[j]; t < n.Bf.ColPtr[j+1]; t++ {
			if c := pos[j]; c >= 0 {
				bf.Set(n.Bf.RowIdx[t], c, n.Bf.Val[t])
			}
		}
	}
	// PTDF_red = Bf_red · B_red⁻¹ = (B_red⁻¹ Bf_redᵀ)ᵀ (B symmetric).
	var lu mat.LU
	lu.Factorize(bred)
	var x mat.Dense
	if err := lu.SolveTo(&x, false, bf.T()); err != nil {
		return fmt.Errorf("%w: reduced susceptance matrix: %v", ErrNotCertified, err)
	}
	ptdf := func(l, i int) float64 {
		if pos[i] < 0 {
			return 0
		}
		return x.At(pos[i], l)
	}
	if _, bad := branchMargins(n, dom, segs, pmin, tlo, thi, ptdf); bad >= 0 {
		return fmt.Errorf("%w: branch %d can reach its limit over the domain", ErrNotCertified, n.Branch[bad]+1)
	}
	return nil
}
