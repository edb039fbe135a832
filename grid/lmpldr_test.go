package grid

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/highs"
)

// marketLPSolver lays out the market LP over dom and builds it in HiGHS
// (one thread); the caller closes the LP.
func marketLPSolver(t *testing.T, n *Network, dom LoadDomain, rules MarketRules) (*marketLP, *lpBuilder, *highs.LP) {
	t.Helper()
	b := newLPBuilder()
	m, err := n.newMarketLP(b, dom, rules)
	if err != nil {
		t.Fatal(err)
	}
	hopt := highs.Options{}
	hopt.Threads = 1
	lp, err := b.build(hopt)
	if err != nil {
		t.Fatal(err)
	}
	return m, b, lp
}

// marketAt solves the market LP lp of m at the load vector d (the varying
// buses' loads fixed at d) and returns its result; it fails the test
// unless the LP is solved to optimality.
func marketAt(t *testing.T, m *marketLP, lp *highs.LP, d []float64) *highs.LPResult {
	t.Helper()
	for _, j := range m.vars {
		if err := lp.SetColumnBounds(m.d[j], d[j], d[j]); err != nil {
			t.Fatal(err)
		}
	}
	r, err := lp.Solve(context.Background())
	if err != nil || r.Status != solver.Optimal {
		t.Fatalf("market LP: %v %v", err, r.Status)
	}
	return r
}

// ldrRules solves the decision rules of a network and domain with the
// producer's code (solveLDR), and returns them with min over D of V.
func ldrRules(t *testing.T, n *Network, dom LoadDomain, rules MarketRules) (*marketLP, *lpBuilder, float64, []*LMPDecisionRule) {
	t.Helper()
	m, b, lp := marketLPSolver(t, n, dom, rules)
	defer lp.Close()
	r, err := lp.Solve(context.Background())
	if err != nil || r.Status != solver.Optimal {
		t.Fatalf("min over the domain: %v %v", err, r.Status)
	}
	hopt := highs.Options{}
	hopt.Threads = 1
	rs, why, err := n.solveLDR(context.Background(), hopt, m, b, r.Objective)
	if err != nil || len(rs) == 0 {
		t.Fatalf("no decision rule: %q %v", why, err)
	}
	return m, b, r.Objective, rs
}

// The rules checked by their definition at vertices of the domain, with a
// solver for V(d) and the optimal congestion duals: x(d) = x̄ + Σ X_k (d_k −
// mid_k) lies in the column bounds and the flow limits and balances the
// buses, its cost is at most the evaluated bound and at least V(d), and
// every optimal congestion dual at d obeys G_rule/slack_l.
func TestLDRAtVertices(t *testing.T) {
	for _, name := range []string{"5_pjm", "30_ieee"} {
		n := pglibNet(t, name)
		dom, _ := n.LoadBand(0.3)
		rules := MarketRules{PriceCap: 1000}
		m, mb, vmin, rs := ldrRules(t, n, dom, rules)
		mkt := lpOf(mb)
		mid, _ := ldrCentre(dom, m.vars)
		nb := n.NumBuses()
		wide := make([]float64, nb)
		for j := range wide {
			wide[j] = 1e4
		}
		rng := rand.New(rand.NewPCG(1, 2))
		_, _, vlp := marketLPSolver(t, n, dom, rules)
		defer vlp.Close()
		for q, rule := range rs {
			lb, err := n.evalLDR(m, mb, rule, negated(wide), wide)
			if err != nil {
				t.Fatalf("%s rule %d: %v", name, q, err)
			}
			if !(lb.costMax > vmin) {
				t.Errorf("%s rule %d: cost bound %v not above min V %v", name, q, lb.costMax, vmin)
			}
			x0 := make([]float64, len(mb.cost))
			for k, c := range rule.Point.Idx {
				x0[c] = rule.Point.Val[k]
			}
			for trial := 0; trial < 8; trial++ {
				d := append([]float64(nil), dom.Lo...)
				x := append([]float64(nil), x0...)
				for k, j := range m.vars {
					if rng.IntN(2) == 1 {
						d[j] = dom.Hi[j]
					}
					x[m.d[j]] = d[j]
					for e, c := range rule.Slopes[k].Idx {
						x[c] += rule.Slopes[k].Val[e] * (d[j] - mid[k])
					}
				}
				cost := 0.0
				for c, v := range mb.cost {
					cost += v * x[c]
					if x[c] < mb.lo[c]-1e-9 || x[c] > mb.hi[c]+1e-9 {
						t.Fatalf("%s rule %d: column %d = %v outside [%v, %v]", name, q, c, x[c], mb.lo[c], mb.hi[c])
					}
				}
				for i := 0; i < mkt.NumRows(); i++ {
					a := 0.0
					for p := mkt.RowPtr[i]; p < mkt.RowPtr[i+1]; p++ {
						a += mkt.Val[p] * x[mkt.Col[p]]
					}
					if a < mkt.RowLo[i]-1e-6 || a > mkt.RowHi[i]+1e-6 {
						t.Fatalf("%s rule %d: row %d = %v outside [%v, %v]", name, q, i, a, mkt.RowLo[i], mkt.RowHi[i])
					}
				}
				if cost > lb.costMax*(1+1e-12) {
					t.Errorf("%s rule %d: cost %v at a vertex above the bound %v", name, q, cost, lb.costMax)
				}
				// V(d) and its duals.
				r := marketAt(t, m, vlp, d)
				if r.Objective > cost+1e-6*(1+cost) {
					t.Errorf("%s rule %d: V(d) %v above the rule's cost %v", name, q, r.Objective, cost)
				}
				g := lb.costMax - vmin
				for l, row := range m.flow {
					if row < 0 {
						continue
					}
					mu := math.Abs(r.RowDual[row])
					if s := math.Min(lb.slackUp[l], lb.slackLo[l]); s > 1e-3 && mu > g/s*(1+1e-6)+1e-6 {
						t.Errorf("%s rule %d: branch %d's dual %v above G/s = %v", name, q, l, mu, g/s)
					}
				}
			}
			t.Logf("%s rule %d: cost bound %.6g, gap %.6g (local-balance dispatch: see lmpBound)", name, q, lb.costMax, lb.costMax-vmin)
		}
	}
}

// A checkable certificate carries its decision rules; the checker rejects a
// rule moved outside a column bound or a flow limit, a non-finite entry and
// a wrong number of slopes.
func TestLDRProofTampered(t *testing.T) {
	n := pglibNet(t, "5_pjm")
	dom, _ := n.LoadBand(0.1)
	rules := MarketRules{PriceCap: 1000}
	ctx := context.Background()
	c, err := n.CertifyLMPBound(ctx, dom, 1, rules, LMPBoundOptions{Checkable: true, DecisionRules: true, TimeLimit: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if c.Method != "lmp-bound" || c.LMP.Proof == nil {
		t.Fatalf("%s certificate without a proof (%s)", c.Method, c.Reason)
	}
	p := c.LMP.Proof
	chk, err := n.CheckLMPProof(ctx, dom, rules, cloneProof(t, p))
	if err != nil {
		t.Fatalf("the untampered proof through JSON: %v", err)
	}
	s, err := n.SearchLMPChange(ctx, dom, 1, rules, LMPSearchOptions{Starts: 4, Steps: 40, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if chk.PerMW < s.LMP*(1-1e-9) {
		t.Errorf("proof with decision rules %v below a price found, %v", chk.PerMW, s.LMP)
	}
	if len(p.DecisionRules) == 0 {
		t.Fatalf("no decision rule in the proof (%s)", c.LMP.LDRNote)
	}
	if !(c.LMP.LDRCostGap > 0 && c.LMP.LDRCostGap < c.LMP.CostGap) {
		t.Errorf("the rule's gap %v is not below the local-balance gap %v", c.LMP.LDRCostGap, c.LMP.CostGap)
	}
	b := newLPBuilder()
	m, err := n.newMarketLP(b, dom, rules)
	if err != nil {
		t.Fatal(err)
	}
	seg := m.p[0]
	cases := []struct {
		name, want string
		edit       func(p *LMPProof)
	}{
		{"segment above its width", "upper bound", func(p *LMPProof) {
			r := p.DecisionRules[0]
			r.Point.Idx, r.Point.Val = append(r.Point.Idx, seg), append(r.Point.Val, b.hi[seg]+1)
		}},
		{"angle moved past a flow limit", "branch", func(p *LMPProof) {
			r := p.DecisionRules[0]
			for q, col := range r.Point.Idx {
				for _, th := range m.theta {
					if col == th && r.Point.Val[q] != 0 {
						r.Point.Val[q] += 10
						return
					}
				}
			}
			t.Fatal("no angle in the rule")
		}},
		{"NaN slope", "non-finite", func(p *LMPProof) {
			r := p.DecisionRules[0]
			for k := range r.Slopes {
				if len(r.Slopes[k].Val) > 0 {
					r.Slopes[k].Val[0] = math.NaN()
					return
				}
			}
		}},
		{"slope dropped", "slopes", func(p *LMPProof) {
			r := p.DecisionRules[0]
			r.Slopes = r.Slopes[1:]
		}},
	}
	for _, tc := range cases {
		q := cloneProof(t, p)
		tc.edit(q)
		_, err := n.CheckLMPProof(ctx, dom, rules, q)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: checker says %v, want an error naming %q", tc.name, err, tc.want)
		}
	}
}

// A certificate with decision rules but no proof is verified by
// re-derivation (the option is recorded), and its bound is at least the
// largest price the search finds.
func TestLDRRederived(t *testing.T) {
	n := pglibNet(t, "5_pjm")
	dom, _ := n.LoadBand(0.3)
	rules := MarketRules{PriceCap: 1000}
	ctx := context.Background()
	c, err := n.CertifyLMPBound(ctx, dom, 1, rules, LMPBoundOptions{DecisionRules: true, TimeLimit: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if c.Method != "lmp-bound" || !c.LMP.DecisionRules || !(c.LMP.LDRCostGap > 0 && c.LMP.LDRCostGap < c.LMP.CostGap) {
		t.Fatalf("%s certificate, rules %v, gap %v against %v (%s)", c.Method, c.LMP.DecisionRules, c.LMP.LDRCostGap, c.LMP.CostGap, c.LMP.LDRNote)
	}
	if err := n.VerifyCostCertificateContext(ctx, c, dom); err != nil {
		t.Fatal(err)
	}
	s, err := n.SearchLMPChange(ctx, dom, 1, rules, LMPSearchOptions{Starts: 4, Steps: 40, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if c.PerMW < s.LMP*(1-1e-9) {
		t.Errorf("certified %v below a price found, %v", c.PerMW, s.LMP)
	}
	t.Logf("certified %.6g, found %.6g; gap %.6g (local-balance %.6g)", c.PerMW, s.LMP, c.LMP.LDRCostGap, c.LMP.CostGap)
}
