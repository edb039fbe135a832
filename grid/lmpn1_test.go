package grid

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// n1Domain is ±band around the nominal loads of n.
func n1Domain(n *Network, band float64) LoadDomain {
	dom := LoadDomain{Lo: make([]float64, n.NumBuses()), Hi: make([]float64, n.NumBuses())}
	for i, l := range n.Load {
		dom.Lo[i], dom.Hi[i] = l-band*math.Abs(l), l+band*math.Abs(l)
	}
	return dom
}

// TestN1LMPBoundPJM5: on 5_pjm over ±10% at post-factor 1.5 the N-1 bound
// must cover the largest realized change the search finds on the full N-1
// program (every row, by cut generation at the pair), be tight to it, and
// the screening must never have dropped a row that binds: at the search's
// pair and at random loads of the domain, the optimum of the program with
// the kept rows satisfies every post-contingency row (cut generation adds
// nothing). A certificate missing one of its kept pairs must fail
// verification.
func TestN1LMPBoundPJM5(t *testing.T) {
	n := pglibNet(t, "5_pjm")
	ctx := context.Background()
	rules := DefaultMarketRules()
	dom := n1Domain(n, 0.1)
	c, ev, err := n.CertifyN1LMPBound(ctx, dom, 1, rules, N1BoundOptions{PostFactor: 1.5, Bound: LMPBoundOptions{TimeLimit: 5e9}})
	if err != nil {
		t.Fatal(err)
	}
	if c.Method != "lmp-bound-n1" || !ev.Screened {
		t.Fatalf("method %s (screened %v): %s", c.Method, ev.Screened, c.Reason)
	}
	// 6 branches, none a bridge: 6 outages × 5 monitored × 2 directions.
	if ev.Outages != 6 || ev.Islanding != 0 || ev.Rows != 60 {
		t.Errorf("outages %d, islanding %d, rows %d; want 6, 0, 60", ev.Outages, ev.Islanding, ev.Rows)
	}
	found, dropped, err := n.SearchN1LMPChange(ctx, dom, 1, rules, ev, LMPSearchOptions{Seed: 1, Steps: 60, Climbs: 5, Congestion: true})
	if err != nil {
		t.Fatal(err)
	}
	if dropped != 0 {
		t.Errorf("%d dropped rows bind at the search's pair", dropped)
	}
	if !(c.PerMW >= found.PerMW*(1-1e-9)) {
		t.Errorf("certified %v below the realized change %v of the N-1 program", c.PerMW, found.PerMW)
	}
	if c.PerMW > 1.01*found.PerMW {
		t.Errorf("certified %v more than 1%% above the realized change %v", c.PerMW, found.PerMW)
	}
	t.Logf("5_pjm ±10%% pf 1.5: certified %.6g, found %.6g; rows %d, after interval %d, kept %d", c.PerMW, found.PerMW, ev.Rows, ev.Rows-ev.ZeroLODF-ev.IntervalDropped, len(ev.Kept))

	// Random loads: the kept program's optimum is N-1 feasible.
	rows := n.n1Rows(&N1Evidence{})
	rng := rand.New(rand.NewPCG(7, 7))
	var pts [][]float64
	for range 30 {
		d := make([]float64, n.NumBuses())
		for j := range d {
			d[j] = dom.Lo[j] + rng.Float64()*(dom.Hi[j]-dom.Lo[j])
		}
		pts = append(pts, d)
	}
	kept := map[[2]int]bool{}
	for _, g := range ev.Kept {
		kept[[2]int{g.Monitored, g.Outage}] = true
	}
	all, err := n.n1Seed(ctx, dom, rules, rows, 1.5, kept, append([]ContingencyCut(nil), ev.Kept...), pts)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != len(ev.Kept) {
		t.Errorf("a dropped row binds at a random load vector: %d pairs added", len(all)-len(ev.Kept))
	}

	if err := n.VerifyCostCertificateContext(ctx, c, dom); err != nil {
		t.Fatalf("verification: %v", err)
	}
	bad := *c
	n1 := *c.N1
	n1.Kept = n1.Kept[1:]
	bad.N1 = &n1
	if err := n.VerifyCostCertificateContext(ctx, &bad, dom); !errors.Is(err, ErrNotCertified) {
		t.Errorf("a certificate without kept pair %+v verified: %v", c.N1.Kept[0], err)
	}
}

// TestN1RowsInterval checks the base-limit interval stage against its
// closed form on 5_pjm: a row f_l + c f_k ≤ F·u_l is dropped exactly when
// u_l + |c|·max(u_k, −w_k) < F·u_l (symmetric limits), i.e. |c|·u_k <
// (F − 1)·u_l.
func TestN1RowsInterval(t *testing.T) {
	n := pglibNet(t, "5_pjm")
	rows := n.n1Rows(&N1Evidence{})
	for _, r := range rows {
		if n.FlowMin[r.l] != -n.FlowMax[r.l] || n.FlowMin[r.k] != -n.FlowMax[r.k] {
			t.Skip("5_pjm's limits are not symmetric")
		}
		want := math.Abs(r.c)*n.FlowMax[r.k] < 0.5*n.FlowMax[r.l]-1e-6*math.Max(1, 1.5*n.FlowMax[r.l])
		got := n1Slack(n1Interval(r, n.FlowMin, n.FlowMax), n.n1Limit(r, 1.5), r.upper)
		if got != want {
			t.Errorf("row (l %d, k %d, upper %v, LODF %v): dropped %v, closed form %v", r.l, r.k, r.upper, r.c, got, want)
		}
	}
}

// TestN1LMPBoundClosedForm: case3_congested (see TestLMPBoundClosedForm)
// with d₃ ∈ [81, 99], d₂ ∈ [0, 10]. Only branch 1–3 is limited (50 MW), so
// the N-1 rows are its flow after the outage of 1–2 or of 2–3. Whatever binds,
// the 50 $/MWh unit at bus 3 (100 MW ≥ 99) can serve bus 3's load alone with
// zero flows, so no price exceeds 50 and shedding never pays; the base case
// already reaches 50 at bus 3 (branch 1–3 binds). So the N-1 bound is
// exactly 50 at every post factor, and the search realizes it.
func TestN1LMPBoundClosedForm(t *testing.T) {
	n := loadNet(t, "testdata/case3_congested.m", DCOptions{})
	ctx := context.Background()
	rules := MarketRules{PriceCap: 1000}
	dom := LoadDomain{Lo: []float64{0, 0, 81}, Hi: []float64{0, 10, 99}}
	for _, pf := range []float64{1, 2} {
		c, ev, err := n.CertifyN1LMPBound(ctx, dom, 1, rules, N1BoundOptions{PostFactor: pf, TargetRatio: -1})
		if err != nil {
			t.Fatal(err)
		}
		// With the default target (1.5) the work may stop at any proven
		// bound up to 1.5 times the search's price, 50: [50, 75].
		ct, evt, err := n.CertifyN1LMPBound(ctx, dom, 1, rules, N1BoundOptions{PostFactor: pf})
		if err != nil {
			t.Fatal(err)
		}
		if ct.Method != "lmp-bound-n1" || ct.PerMW < 50-1e-6 || ct.PerMW > 75*(1+1e-6) || evt.TargetRatio != 1.5 || math.Abs(evt.SearchPrice-50) > 1e-6 {
			t.Errorf("pf %v, target 1.5: %s %v (target %v, search price %v), want lmp-bound-n1 in [50, 75] after a search price of 50 (%s)", pf, ct.Method, ct.PerMW, evt.TargetRatio, evt.SearchPrice, ct.Reason)
		}
		if err := n.VerifyCostCertificateContext(ctx, ct, dom); err != nil {
			t.Errorf("pf %v, target 1.5: verification: %v", pf, err)
		}
		if ev.Rows != 4 || ev.Outages != 3 {
			t.Errorf("pf %v: %d rows over %d outages, want 4 over 3", pf, ev.Rows, ev.Outages)
		}
		if c.Method != "lmp-bound-n1" || math.Abs(c.PerMW-50) > 1e-3 {
			t.Errorf("pf %v: %s %v, want lmp-bound-n1 50 (%s)", pf, c.Method, c.PerMW, c.Reason)
		}
		f, dropped, err := n.SearchN1LMPChange(ctx, dom, 1, rules, ev, LMPSearchOptions{Seed: 1, Congestion: true})
		if err != nil {
			t.Fatal(err)
		}
		if dropped != 0 || math.Abs(f.PerMW-50) > 1e-6 {
			t.Errorf("pf %v: search realizes %v (dropped rows binding: %d), want 50", pf, f.PerMW, dropped)
		}
	}
}

// TestLMPMIPCutoff: on case3_congested (see TestLMPBoundClosedForm, whose
// closed form is 50 $/MWh) the joint KKT MIP with the cutoff row t ≥ c
// (LMPBoundOptions.MIPCutoff, the stop at a target of CertifyN1LMPBound)
// must certify exactly c when c lies above the true maximum but below the
// tightened bound (the MIP is infeasible), and the closed form 50 when c is
// below it or above the tightened bound (then no cutoff: the MIP closes);
// each re-derives.
func TestLMPMIPCutoff(t *testing.T) {
	n := loadNet(t, "testdata/case3_congested.m", DCOptions{})
	ctx := context.Background()
	rules := MarketRules{PriceCap: 1000}
	dom := LoadDomain{Lo: []float64{0, 0, 81}, Hi: []float64{0, 10, 99}}
	free, err := n.CertifyLMPBound(ctx, dom, 1, rules, LMPBoundOptions{})
	if err != nil {
		t.Fatal(err)
	}
	hi := 0.0
	for _, i := range dom.Variable() {
		hi = math.Max(hi, free.LMP.PriceHi[i])
	}
	if !(hi > 50.01) {
		t.Skipf("the tightened bound %v is already at the closed form 50: no room for a cutoff", hi)
	}
	for _, tc := range []struct{ cutoff, want float64 }{{(50 + hi) / 2, (50 + hi) / 2}, {40, 50}, {hi + 1, 50}} {
		c, err := n.CertifyLMPBound(ctx, dom, 1, rules, LMPBoundOptions{MIPCutoff: tc.cutoff})
		if err != nil {
			t.Fatal(err)
		}
		if c.Method != "lmp-bound" || math.Abs(c.PerMW-tc.want) > 1e-3*tc.want || c.LMP.MIPCutoff != tc.cutoff {
			t.Errorf("cutoff %v: %s %v (recorded cutoff %v), want lmp-bound %v", tc.cutoff, c.Method, c.PerMW, c.LMP.MIPCutoff, tc.want)
		}
		if err := n.VerifyCostCertificateContext(ctx, c, dom); err != nil {
			t.Errorf("cutoff %v: verification: %v", tc.cutoff, err)
		}
	}
}

// TestN1ImpliedRows checks the implied-row rule (n1Implier) on 118_ieee
// against an independent test of proportionality: each row's value
// f_l + c f_k is evaluated from Bf θ + Pfinj at θ = 0 and three random angle
// vectors, and a row r is a multiple s·o of an indexed row o exactly when
// those four values satisfy r = s·o; with o's limits (scaled by s, sides
// swapped when s < 0) inside r's it must be reported implied, otherwise
// not. The rows are those the base-limit interval stage leaves; the indexed
// rows are the limited branches and the first 60 rows' pairs as kept
// flowgates. 118_ieee has twin branches, so the rule must
// find implied rows (the twins of kept pairs).
func TestN1ImpliedRows(t *testing.T) {
	n := pglibNet(t, "118_ieee")
	const factor = 1.5
	// The rows the base-limit interval stage leaves (as CertifyN1LMPBound).
	var rows []n1Row
	for _, r := range n.n1Rows(&N1Evidence{}) {
		if !n1Slack(n1Interval(r, n.FlowMin, n.FlowMax), n.n1Limit(r, factor), r.upper) {
			rows = append(rows, r)
		}
	}
	var kept []n1Row
	seen := map[[2]int]bool{}
	for _, r := range rows {
		if p := [2]int{r.l, r.k}; !seen[p] && len(kept) < 60 {
			seen[p] = true
			kept = append(kept, r)
		}
	}
	im := n.newN1Implier(factor, nil)
	for _, r := range kept {
		im.addGate(ContingencyCut{Monitored: r.l, Outage: r.k, LODF: r.c})
	}
	// Values at θ = 0 and three random angle vectors.
	rng := rand.New(rand.NewPCG(3, 5))
	var flows [4][]float64
	for s := range flows {
		th := make([]float64, n.NumBuses())
		if s > 0 {
			for j := range th {
				th[j] = rng.NormFloat64()
			}
		}
		f := append([]float64(nil), n.Pfinj...)
		for j := 0; j < n.Bf.Cols; j++ {
			for q := n.Bf.ColPtr[j]; q < n.Bf.ColPtr[j+1]; q++ {
				f[n.Bf.RowIdx[q]] += n.Bf.Val[q] * th[j]
			}
		}
		flows[s] = f
	}
	type lin struct {
		v      [4]float64
		lo, hi float64
	}
	val := func(l, k int, c float64) (v [4]float64) {
		for s := range v {
			v[s] = flows[s][l] + c*flows[s][k]
		}
		return v
	}
	var idx []lin
	for l := 0; l < n.NumBranches(); l++ {
		if !math.IsInf(n.FlowMax[l], 1) || !math.IsInf(n.FlowMin[l], -1) {
			idx = append(idx, lin{val(l, l, 0), n.FlowMin[l], n.FlowMax[l]})
		}
	}
	for _, r := range kept {
		idx = append(idx, lin{val(r.l, r.k, r.c), factor * n.FlowMin[r.l], factor * n.FlowMax[r.l]})
	}
	implied := 0
	for _, r := range rows {
		v := val(r.l, r.k, r.c)
		want := false
		for _, o := range idx {
			// r − r(0) = s·(o − o(0)) at the random points, r(0) = s·o(0).
			s := (v[1] - v[0]) / (o.v[1] - o.v[0])
			ok := s != 0 && !math.IsInf(s, 0) && !math.IsNaN(s) && math.Abs(v[0]-s*o.v[0]) <= 1e-9*math.Max(1, math.Abs(v[0]))
			for p := 2; p < 4 && ok; p++ {
				ok = math.Abs((v[p]-v[0])-s*(o.v[p]-o.v[0])) <= 1e-9*math.Max(1, math.Abs(v[p]-v[0]))
			}
			if !ok {
				continue
			}
			lim := n.n1Limit(r, factor)
			var b float64
			switch {
			case s > 0 == r.upper:
				b = s * o.hi
			default:
				b = s * o.lo
			}
			if !math.IsInf(b, 0) && (r.upper && b <= lim || !r.upper && b >= lim) {
				want = true
			}
		}
		if got := im.implied(r); got != want {
			t.Errorf("row (monitored %d, outage %d, LODF %v, upper %v): implied %v, independent check %v", r.l, r.k, r.c, r.upper, got, want)
		}
		if want && !seen[[2]int{r.l, r.k}] {
			implied++
		}
	}
	if implied == 0 {
		t.Errorf("no row outside the kept pairs is implied; 118_ieee has twin branches")
	}
	t.Logf("%d of %d rows outside the kept pairs implied", implied, len(rows))
}
