package opfrelease

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"sort"

	"github.com/privopt/privopt/grid"
	"github.com/privopt/privopt/query"
)

// Certificate methods registered with query.RegisterVerifier.
const (
	// MethodPriceCap: |ΔV| ≤ α·max(PriceCap, −PriceFloor) + 2τ (a primal
	// repair by the backstop units; see grid.CertifyCostSensitivity).
	MethodPriceCap = "opf-price-cap"
	// MethodMeritOrder: |ΔV| ≤ α·max(|λ(T_lo)|, |λ(T_hi)|) + 2τ where λ is the
	// merit-order price and no branch can congest over the domain.
	MethodMeritOrder = "opf-uncongested-merit-order"
	// MethodLMPBound: |ΔV| ≤ α·P + 2τ where P is the proven bound on the largest
	// |LMP| over the domain (grid.CertifyLMPBound: KKT mixed-integer program
	// with derived big-Ms; evidence grid.LMPEvidence).
	MethodLMPBound = "opf-lmp-bound"
)

// meritEvidence is the Evidence of MethodMeritOrder.
type meritEvidence struct {
	Segments []grid.MeritSegment `json:"segments"`
	// BranchMargin is the least relative slack of a branch limit found by the
	// exact flow check over the domain (> 0).
	BranchMargin float64 `json:"branch_margin"`
}

func init() {
	query.RegisterVerifier(MethodPriceCap, verifyPriceCap)
	query.RegisterVerifier(MethodMeritOrder, verifyMeritOrder)
	query.RegisterVerifier(MethodLMPBound, verifyLMPBound)
}

// queryCertificate turns grid's certificate into the record's, adding the
// solver margin 2τ.
func queryCertificate(c *grid.CostCertificate, dom grid.LoadDomain, net *grid.Network, margin float64) (*query.Certificate, error) {
	var lo, hi float64
	vary := 0
	for i := range dom.Lo {
		lo += dom.Lo[i]
		hi += dom.Hi[i]
		if dom.Hi[i] > dom.Lo[i] {
			vary++
		}
	}
	qc := &query.Certificate{
		Bound:     c.Bound + margin,
		Norm:      1,
		Adjacency: fmt.Sprintf("one bus load differs by at most %g MW", c.Alpha),
		Domain:    fmt.Sprintf("declared load box: %d buses vary, total load in [%.6g, %.6g] MW", vary, lo, hi),
		Assumptions: []string{
			fmt.Sprintf("market rules: shedding at %g $/MWh and curtailment at %g $/MWh at every bus whose load may vary", c.Rules.PriceCap, c.Rules.PriceFloor),
			fmt.Sprintf("solver accuracy τ = %.3g $/h checked on every solve (primal–dual gap)", margin/2),
			"released statistic: the private program's optimal value, V(d) plus a data-independent offset",
		},
		Params: map[string]float64{"alpha": c.Alpha, "per_mw": c.PerMW, "price_cap": c.Rules.PriceCap,
			"price_floor": c.Rules.PriceFloor, "solver_margin": margin},
	}
	switch c.Method {
	case "price-cap":
		qc.Method = MethodPriceCap
		if c.Reason != "" {
			qc.Assumptions = append(qc.Assumptions, "tighter merit-order bound not applicable: "+c.Reason)
		}
	case "uncongested-merit-order":
		qc.Method = MethodMeritOrder
		qc.Params["total_lo"], qc.Params["total_hi"], qc.Params["pmin_total"] = c.TotalLo, c.TotalHi, c.PminTotal
		ev, err := json.Marshal(meritEvidence{Segments: c.Segments, BranchMargin: c.Margin})
		if err != nil {
			return nil, err
		}
		qc.Evidence = ev
		qc.Assumptions = append(qc.Assumptions, "no branch can reach its limit over the domain under the merit-order dispatch (re-check against the network: grid.Network.VerifyCostCertificate)")
	case "lmp-bound", "lmp-bound-n1":
		qc.Method = MethodLMPBound
		pub := *c.LMP
		pub.Seconds = 0 // wall time: not part of what a plan publishes
		if pub.Proof != nil {
			// The proof (megabytes) stays in the certificate file; the plan
			// publishes the value it covers.
			pub.ProofPerMW, pub.Proof = pub.Proof.PerMW, nil
		}
		ev, err := json.Marshal(pub)
		if err != nil {
			return nil, err
		}
		qc.Evidence = ev
		if c.N1 != nil {
			qc.Params["n1_post_factor"] = c.N1.PostFactor
			qc.Params["n1_kept_pairs"] = float64(len(c.N1.Kept))
			qc.Assumptions = append(qc.Assumptions, fmt.Sprintf("N-1 program at post factor %g: every post-contingency row outside the %d kept pairs proven unable to bind at an optimum over the domain (screening LPs; re-derive: grid.Network.VerifyCostCertificateContext on the certificate)", c.N1.PostFactor, len(c.N1.Kept)))
		}
		if pub.ProofPerMW > 0 {
			qc.Assumptions = append(qc.Assumptions, "every LMP over the domain is bounded by the value of a proof checked without a solver (LP duals and a branch-and-bound tree: grid.Network.CheckLMPProof on the certificate file)")
		} else {
			qc.Assumptions = append(qc.Assumptions, "every LMP over the domain is bounded by the proven bound of the KKT program (re-derive: grid.Network.VerifyCostCertificate)")
		}
	default:
		return nil, fmt.Errorf("opfrelease: unknown grid certificate method %q", c.Method)
	}
	return qc, nil
}

func param(c *query.Certificate, name string) (float64, error) {
	v, ok := c.Params[name]
	if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("parameter %q missing or not finite", name)
	}
	return v, nil
}

// marketParams reads α, the price cap and floor and the solver margin and
// checks their ranges.
func marketParams(c *query.Certificate) (alpha, pc, pf, m float64, err error) {
	alpha, err1 := param(c, "alpha")
	pc, err2 := param(c, "price_cap")
	pf, err3 := param(c, "price_floor")
	m, err4 := param(c, "solver_margin")
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		return 0, 0, 0, 0, err
	}
	if !(alpha > 0 && pc > 0 && pf <= 0 && m >= 0) {
		return 0, 0, 0, 0, fmt.Errorf("alpha %v, cap %v, floor %v, margin %v out of range", alpha, pc, pf, m)
	}
	return alpha, pc, pf, m, nil
}

// verifyPriceCap recomputes α·max(cap, −floor) + margin.
func verifyPriceCap(c *query.Certificate) error {
	alpha, pc, pf, m, err := marketParams(c)
	if err != nil {
		return err
	}
	if want := alpha*math.Max(pc, -pf) + m; c.Bound < want*(1-1e-12) {
		return fmt.Errorf("bound %v < α·max(cap, −floor) + margin = %v", c.Bound, want)
	}
	return nil
}

// verifyMeritOrder recomputes the merit order from the evidence: the segments
// sorted by price, the total-load range inside the units' range, the marginal
// prices at its ends, the bound, and that the recorded branch margin is
// positive.
func verifyMeritOrder(c *query.Certificate) error {
	var ev meritEvidence
	if err := json.Unmarshal(c.Evidence, &ev); err != nil {
		return fmt.Errorf("evidence: %v", err)
	}
	alpha, e1 := param(c, "alpha")
	tlo, e2 := param(c, "total_lo")
	thi, e3 := param(c, "total_hi")
	pmin, e4 := param(c, "pmin_total")
	m, e5 := param(c, "solver_margin")
	if err := errors.Join(e1, e2, e3, e4, e5); err != nil {
		return err
	}
	if !(ev.BranchMargin > 0) {
		return fmt.Errorf("branch margin %v: a branch can congest", ev.BranchMargin)
	}
	segs := append([]grid.MeritSegment(nil), ev.Segments...)
	sort.SliceStable(segs, func(i, j int) bool { return segs[i].Price < segs[j].Price })
	top := pmin
	for _, s := range segs {
		if !(s.Width > 0) || math.IsInf(s.Width, 0) || math.IsNaN(s.Price) || math.IsInf(s.Price, 0) {
			return fmt.Errorf("segment %+v invalid", s)
		}
		top += s.Width
	}
	if !(tlo >= pmin && thi <= top && tlo <= thi) {
		return fmt.Errorf("total load [%v, %v] outside the units' range [%v, %v]", tlo, thi, pmin, top)
	}
	// The segment test is exact (rationals): no rounding of the cumulative
	// widths can put T into the wrong segment.
	price := func(t float64) float64 {
		at, tr := new(big.Rat).SetFloat64(pmin), new(big.Rat).SetFloat64(t)
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
	per := math.Max(math.Abs(price(tlo)), math.Abs(price(thi)))
	if want := alpha*per + m; c.Bound < want*(1-1e-12) {
		return fmt.Errorf("bound %v < α·λ + margin = %v", c.Bound, want)
	}
	return nil
}

// verifyLMPBound checks the arithmetic of an LMP-bound certificate from its
// evidence: per_mw covers the proven bounds on max π and max −π, lies below
// max(cap, −floor), and the bound covers α·per_mw + margin. (The bounds
// themselves are re-derived against the network by
// grid.Network.VerifyCostCertificate.)
func verifyLMPBound(c *query.Certificate) error {
	var ev grid.LMPEvidence
	if err := json.Unmarshal(c.Evidence, &ev); err != nil {
		return fmt.Errorf("evidence: %v", err)
	}
	alpha, pc, pf, m, err := marketParams(c)
	if err != nil {
		return err
	}
	per, err := param(c, "per_mw")
	if err != nil {
		return err
	}
	proven := math.Max(ev.MaxPrice, ev.MinPrice)
	if ev.ProofPerMW > 0 {
		proven = ev.ProofPerMW // a checkable proof's value (CheckLMPProof)
	}
	if per < proven || !(per < math.Max(pc, -pf)) {
		return fmt.Errorf("per_mw %v must cover the proven bounds %v, %v and lie below the price cap", per, ev.MaxPrice, ev.MinPrice)
	}
	if want := alpha*per + m; c.Bound < want*(1-1e-12) {
		return fmt.Errorf("bound %v < α·per_mw + margin = %v", c.Bound, want)
	}
	return nil
}
