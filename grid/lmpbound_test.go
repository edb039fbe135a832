package grid

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/privopt/privopt/internal/shareddata"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/highs"
)

// pglibNet reads a PGLib case with its quadratic costs as 20 secant
// segments (the release's default), in the MATPOWER DC model.
func pglibNet(t testing.TB, name string) *Network {
	t.Helper()
	dir, err := shareddata.Dir()
	if err != nil {
		t.Skipf("shared data absent (%v): the PGLib cases are needed", err)
	}
	c, err := ReadCase(filepath.Join(dir, "pglib", "pglib_opf_case"+name+".m"))
	if err != nil {
		t.Fatal(err)
	}
	if c, _, err = c.PiecewiseCosts(20); err != nil {
		t.Fatal(err)
	}
	n, err := NewNetwork(c, DCOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// case3_congested (solved by hand in the file): branch 1–3 carries 2/3 of the
// cheap unit's output and binds once that output reaches 75 MW, i.e. for a
// load at bus 3 of 75 MW or more; then the 50 $/MWh unit at bus 3 is marginal
// and the LMP at bus 3 is exactly 50 (at bus 2: 30). Below 75 MW nothing
// congests and the price is 10 everywhere. So over d₃ ∈ [81, 99] MW the
// largest |LMP| is 50 (the KKT bound must prove exactly that), over [30, 60]
// it is 10 (the merit-order bound applies), and with a cap of 40 the shedding
// backstop at bus 3 undercuts the 50 $/MWh unit: the bound is the cap.
func TestLMPBoundClosedForm(t *testing.T) {
	n := loadNet(t, "testdata/case3_congested.m", DCOptions{})
	ctx := context.Background()
	rules := MarketRules{PriceCap: 1000}
	dom := LoadDomain{Lo: []float64{0, 0, 81}, Hi: []float64{0, 10, 99}}
	c, err := n.CertifyLMPBound(ctx, dom, 2, rules, LMPBoundOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Method != "lmp-bound" || math.Abs(c.PerMW-50) > 1e-3 || math.Abs(c.Bound-100) > 2e-3 || !c.LMP.Closed {
		t.Fatalf("congested domain: %s per_mw %v bound %v, want lmp-bound 50 and 100", c.Method, c.PerMW, c.Bound)
	}
	if err := n.VerifyCostCertificate(c, dom); err != nil {
		t.Error(err)
	}
	s, err := n.SearchLMPChange(ctx, dom, 2, rules, LMPSearchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(s.PerMW-50) > 1e-6 || s.Bus != 3 {
		t.Errorf("search found %v at bus %d, want 50 at bus 3", s.PerMW, s.Bus)
	}
	// The certificate depends on the network and the domain only: the
	// network's own loads (private data) do not change a byte of it.
	c1, err := n.CertifyCostBound(ctx, dom, 2, rules, LMPBoundOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n.Load[2] = 97
	c2, err := n.CertifyCostBound(ctx, dom, 2, rules, LMPBoundOptions{})
	if err != nil {
		t.Fatal(err)
	}
	j1, _ := json.Marshal(c1)
	j2, _ := json.Marshal(c2)
	if !bytes.Equal(j1, j2) {
		t.Errorf("certificate changed with the network's loads:\n%s\n%s", j1, j2)
	}
	low := LoadDomain{Lo: []float64{0, 0, 30}, Hi: []float64{0, 0, 60}}
	if c, err := n.CertifyCostBound(ctx, low, 1, rules, LMPBoundOptions{}); err != nil || c.Method != "uncongested-merit-order" || c.PerMW != 10 {
		t.Errorf("uncongested domain: %+v, %v; want merit order 10", c, err)
	}
	if c, err := n.CertifyLMPBound(ctx, low, 1, rules, LMPBoundOptions{}); err != nil || c.Method != "lmp-bound" || math.Abs(c.PerMW-10) > 1e-3 {
		t.Errorf("uncongested domain, KKT bound: %+v, %v; want 10", c, err)
	}
	if c, err := n.CertifyLMPBound(ctx, dom, 1, MarketRules{PriceCap: 40}, LMPBoundOptions{}); err != nil || c.Method != "price-cap" || c.PerMW != 40 {
		t.Errorf("cap 40: %+v, %v; want the price cap", c, err)
	}
	// A tampered certificate fails re-verification.
	bad := *c
	bad.PerMW, bad.Bound = 45, 90
	if err := n.VerifyCostCertificate(&bad, dom); !errors.Is(err, ErrNotCertified) {
		t.Errorf("tampered bound 45 < 50 verified: %v", err)
	}
}

// The certified bound is never below the largest change the adversarial
// search (with its congestion vertices) finds, and within 1.5× of it, on the
// PGLib cases up to 57 buses with ±10% and ±30% domains around the nominal
// loads (where the search reaches the price cap, the cap is the certificate;
// 118 and 300 buses take minutes: bench/lmpbound). Each pair the search
// reports is re-solved by an independent path.
func TestLMPBoundCoversSearch(t *testing.T) {
	ctx := context.Background()
	rules := DefaultMarketRules()
	for _, tc := range []struct {
		name string
		band float64
	}{{"5_pjm", 0.1}, {"5_pjm", 0.3}, {"14_ieee", 0.1}, {"14_ieee", 0.3}, {"24_ieee_rts", 0.1}, {"24_ieee_rts", 0.3},
		{"30_ieee", 0.1}, {"30_ieee", 0.3}, {"57_ieee", 0.1}, {"57_ieee", 0.3}} {
		n := pglibNet(t, tc.name)
		dom, _ := n.LoadBand(tc.band)
		c, err := n.CertifyCostBound(ctx, dom, 1, rules, LMPBoundOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var extra [][]float64
		if c.LMP != nil {
			extra = append(extra, c.LMP.IncumbentLoad)
		}
		if c.LMP != nil {
			extra = append(extra, c.LMP.Candidates...)
		}
		s, err := n.SearchLMPChange(ctx, dom, 1, rules, LMPSearchOptions{Extra: extra, Seed: 3, Congestion: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s ±%v: %s %.6g, found %.6g at bus %d", tc.name, tc.band, c.Method, c.PerMW, s.PerMW, s.Bus)
		recheckChange(t, n, dom, 1, rules, s)
		if c.PerMW < s.PerMW*(1-1e-9) {
			t.Errorf("%s ±%v: certified %v below the change found %v (bus %d)", tc.name, tc.band, c.PerMW, s.PerMW, s.Bus)
		}
		if c.PerMW > 1.5*s.PerMW {
			t.Errorf("%s ±%v: certified %v more than 1.5× the change found %v", tc.name, tc.band, c.PerMW, s.PerMW)
		}
		if c.Method == "price-cap" && s.PerMW < rules.MaxPrice()*(1-1e-9) {
			t.Errorf("%s ±%v: no bound below the cap (%s)", tc.name, tc.band, c.Reason)
		}
	}
}

// The domain CSV round-trips, unlisted buses carry no load, and bad rows are
// refused with their row number.
func TestReadLoadDomainCSV(t *testing.T) {
	n := loadNet(t, "testdata/case3_congested.m", DCOptions{})
	dom, err := ReadLoadDomainCSV(strings.NewReader("bus,min,max\n3, 81, 99\n2,0,10\n"), n)
	if err != nil {
		t.Fatal(err)
	}
	want := LoadDomain{Lo: []float64{0, 0, 81}, Hi: []float64{0, 10, 99}}
	for i := range want.Lo {
		if dom.Lo[i] != want.Lo[i] || dom.Hi[i] != want.Hi[i] {
			t.Fatalf("got %+v, want %+v", dom, want)
		}
	}
	var buf bytes.Buffer
	if err := dom.WriteCSV(&buf, n); err != nil {
		t.Fatal(err)
	}
	back, err := ReadLoadDomainCSV(&buf, n)
	if err != nil || back.Digest(n) != dom.Digest(n) {
		t.Errorf("round trip: %v, digests %s vs %s", err, back.Digest(n), dom.Digest(n))
	}
	for in, frag := range map[string]string{
		"bus,lo,hi\n":                 "header",
		"bus,min,max\n9,0,1\n":        "bus 9",
		"bus,min,max\n3,5,1\n":        "min 5 > max 1",
		"bus,min,max\n3,0,1\n3,0,2\n": "already given on line 2",
		"bus,min,max\n3,0,NaN\n":      "line 2",
		"bus,min,max\nx,0,1\n":        "not an integer",
		"bus,min,max\n2,0,1,7\n":      "line 2",
		"bus,min,max\n2,0,+Inf\n":     "finite",
	} {
		if _, err := ReadLoadDomainCSV(strings.NewReader(in), n); err == nil || !strings.Contains(err.Error(), frag) {
			t.Errorf("%q: error %v, want one naming %q", in, err, frag)
		}
	}
}

// A certificate file loads only against its network and domain, and a
// changed number is caught.
func TestCertificateFile(t *testing.T) {
	n := loadNet(t, "testdata/case3_congested.m", DCOptions{})
	ctx := context.Background()
	dom := LoadDomain{Lo: []float64{0, 0, 81}, Hi: []float64{0, 10, 99}}
	c, err := n.CertifyCostBound(ctx, dom, 1, DefaultMarketRules(), LMPBoundOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := n.NewCertificateFile(c, dom, false, 20).Write(&buf); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	f, err := LoadCostCertificate(ctx, strings.NewReader(text), n, dom, true)
	if err != nil {
		t.Fatal(err)
	}
	if f.Method != "lmp-bound" || f.PerMW != c.PerMW {
		t.Errorf("loaded %+v", f)
	}
	if strings.Contains(text, `"seconds"`) || !strings.Contains(text, `"reproducible": true`) {
		t.Errorf("the file carries a wall time or is not marked reproducible:\n%s", text)
	}
	// Files written before the wall time left the JSON still load.
	legacy := strings.Replace(text, `"reproducible": true`, `"reproducible": true, "seconds": 0.2`, 1)
	if _, err := LoadCostCertificate(ctx, strings.NewReader(legacy), n, dom, false); err != nil {
		t.Errorf("file with the old wall-time field: %v", err)
	}
	other := LoadDomain{Lo: []float64{0, 0, 80}, Hi: []float64{0, 10, 99}}
	if _, err := LoadCostCertificate(ctx, strings.NewReader(text), n, other, false); !errors.Is(err, ErrNotCertified) || !strings.Contains(err.Error(), "domain digest") {
		t.Errorf("other domain: %v", err)
	}
	n2 := loadNet(t, "testdata/case3_loop.m", DCOptions{})
	if _, err := LoadCostCertificate(ctx, strings.NewReader(text), n2, LoadDomain{Lo: make([]float64, n2.NumBuses()), Hi: make([]float64, n2.NumBuses())}, false); !errors.Is(err, ErrNotCertified) {
		t.Errorf("other network: %v", err)
	}
	// A per-MW value below the proven bound, consistent otherwise.
	low := *c
	low.PerMW, low.Bound = c.LMP.MaxPrice/2, c.LMP.MaxPrice/2
	buf.Reset()
	if err := n.NewCertificateFile(&low, dom, false, 20).Write(&buf); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadCostCertificate(ctx, &buf, n, dom, false); !errors.Is(err, ErrNotCertified) || !strings.Contains(err.Error(), "below the recorded price bounds") {
		t.Errorf("per_mw below the proven bound: %v", err)
	}
}

// Bound tightening is sound: at vertices and interior points of the domain,
// the market LP's optimal flows lie within the tightened flow ranges, a limit
// whose congestion dual was fixed at 0 does not bind, and the optimal prices
// lie within the tightened price bounds and below the certified value, and
// every backstop lies within its per-bus bound (backstopRanges). 57_ieee ±10% is a case where tightening prunes most limits (at the last
// round of work 158 of 160) and the MIP then closes at the largest price the
// search finds (38.46 $/MWh; before tightening it needed 77 s).
func TestLMPTighteningContainsOptima(t *testing.T) {
	n := pglibNet(t, "57_ieee")
	dom, _ := n.LoadBand(0.1)
	rules := DefaultMarketRules()
	ctx := context.Background()
	ev, reason, err := n.lmpBound(ctx, dom, rules, LMPBoundOptions{TimeLimit: 120 * time.Second})
	if err != nil || ev == nil {
		t.Fatalf("lmpBound: %v %s", err, reason)
	}
	if ev.TighteningPasses == 0 || ev.PrunedLimits == 0 {
		t.Errorf("no tightening: %d passes, %d pruned limits", ev.TighteningPasses, ev.PrunedLimits)
	}
	// Per-bus backstop bounds (backstopRanges): the smallest is far below
	// the system-wide one.
	small := math.Inf(1)
	for j := range ev.ShedHi {
		small = math.Min(small, math.Min(ev.ShedHi[j]/ev.ShedMax, ev.CurtHi[j]/ev.CurtMax))
	}
	if !(small < 0.5) {
		t.Errorf("per-bus backstop bounds: smallest ratio to the system-wide bound %v, want < 0.5", small)
	}
	m, _, lp := marketLPSolver(t, n, dom, rules)
	defer lp.Close()
	rng := rand.New(rand.NewPCG(5, 9))
	var found float64
	for trial := 0; trial < 30; trial++ {
		r := solveAtSample(t, lp, m, dom, rng, trial%2 == 0)
		for l, row := range m.flow {
			if row < 0 {
				continue
			}
			f := r.RowValue[row] + n.Pfinj[l]
			tol := 1e-6 * math.Max(1, math.Abs(f))
			if f > ev.FlowHi[l]+tol || f < ev.FlowLo[l]-tol {
				t.Errorf("trial %d: branch %d flow %v outside the tightened [%v, %v]", trial, l, f, ev.FlowLo[l], ev.FlowHi[l])
			}
			if (ev.MuUp[l] == 0 && f >= n.FlowMax[l]-tol) || (ev.MuLo[l] == 0 && f <= n.FlowMin[l]+tol) {
				t.Errorf("trial %d: branch %d binds (flow %v, limits [%v, %v]) although its dual was fixed at 0", trial, l, f, n.FlowMin[l], n.FlowMax[l])
			}
		}
		for j := range m.sigma {
			for _, c := range []struct {
				col   int
				bound float64
				what  string
			}{{m.sigma[j], ev.shedMax(j), "shedding"}, {m.kappa[j], ev.curtMax(j), "curtailment"}} {
				if c.col >= 0 && r.X[c.col] > c.bound+1e-6*(1+c.bound) {
					t.Errorf("trial %d: bus %d %s %v above its bound %v", trial, n.BusID[j], c.what, r.X[c.col], c.bound)
				}
			}
		}
		for _, j := range m.vars {
			pi := r.RowDual[m.balance[j]]
			tol := 1e-6 * math.Max(1, math.Abs(pi))
			if pi > ev.PriceHi[j]+tol || pi < ev.PriceLo[j]-tol {
				t.Errorf("trial %d: bus %d price %v outside the tightened [%v, %v]", trial, n.BusID[j], pi, ev.PriceLo[j], ev.PriceHi[j])
			}
			found = math.Max(found, math.Abs(pi))
		}
	}
	per := math.Max(ev.MaxPrice, ev.MinPrice)
	t.Logf("certified %.6g $/MWh (closed %v, %d passes, %d of %d limits pruned, %d buses excluded), largest sampled price %.6g",
		per, ev.Closed, ev.TighteningPasses, ev.PrunedLimits, 2*n.NumBranches(), ev.Excluded, found)
	if per < found*(1-1e-6) {
		t.Errorf("certified %v below a sampled price %v", per, found)
	}
	if !ev.Closed || per > 1.5*found {
		t.Errorf("certified %v (closed %v): not within 1.5× the sampled price %v", per, ev.Closed, found)
	}
}

// solveAtSample solves the market LP lp (layout m) at a random load of the
// domain: a vertex, or a uniform interior point.
func solveAtSample(t *testing.T, lp *highs.LP, m *marketLP, dom LoadDomain, rng *rand.Rand, vertex bool) *highs.LPResult {
	t.Helper()
	for _, j := range m.vars {
		x := dom.Lo[j] + rng.Float64()*(dom.Hi[j]-dom.Lo[j])
		if vertex {
			x = dom.Lo[j]
			if rng.IntN(2) == 1 {
				x = dom.Hi[j]
			}
		}
		if err := lp.SetColumnBounds(m.d[j], x, x); err != nil {
			t.Fatal(err)
		}
	}
	r, err := lp.Solve(context.Background())
	if err != nil || r.Status != solver.Optimal {
		t.Fatalf("market LP: %v %v", err, r.Status)
	}
	return r
}

// recheckChange solves the two DC-OPFs of the pair a search reports, with
// the release's backstops as ordinary units (Case.WithBackstops), through
// BuildOPF and the model layer's default solver — a path that shares only
// the network data with the search's market LP — and checks that both loads
// lie in the domain, differ at one bus by at most α, and that their cost
// difference is α times the reported change.
func recheckChange(t *testing.T, n *Network, dom LoadDomain, alpha float64, rules MarketRules, s *LMPSearchResult) {
	t.Helper()
	if !dom.Contains(s.Load) || !dom.Contains(s.Other) {
		t.Fatalf("search pair outside the domain")
	}
	i := n.BusIndex[s.Bus]
	for j := range s.Load {
		if d := math.Abs(s.Load[j] - s.Other[j]); (j == i && d > alpha*(1+1e-12)) || (j != i && d != 0) {
			t.Fatalf("search pair not adjacent at bus %d: loads differ by %v at bus %d", s.Bus, d, n.BusID[j])
		}
	}
	shed, curt := n.BackstopBuses(dom)
	c, _, err := n.Case.WithBackstops(rules, n.BackstopCapacity(dom), shed, curt)
	if err != nil {
		t.Fatal(err)
	}
	nb, err := NewNetwork(c, n.Options)
	if err != nil {
		t.Fatal(err)
	}
	cost := func(d []float64) float64 {
		o, err := nb.BuildOPF(OPFOptions{Load: d})
		if err != nil {
			t.Fatal(err)
		}
		sol, err := o.Solve(context.Background())
		if err != nil || sol.Status != solver.Optimal {
			t.Fatalf("OPF at a search point: %v %v", err, sol.Status)
		}
		return sol.Cost
	}
	got := math.Abs(cost(s.Other)-cost(s.Load)) / alpha
	if math.Abs(got-s.PerMW) > 1e-5*(1+s.PerMW) {
		t.Errorf("re-solved change %v $/MWh per α at bus %d, the search reported %v", got, s.Bus, s.PerMW)
	}
}

// The adversarial search's congestion vertices and realized-change climbs
// find, on 118_ieee ±30% around the nominal loads, an adjacent pair whose
// cost changes by more than the 415.7 $/h per MW the search of the previous
// release found (457.2 in this DC model), and the pair re-solves to the same
// change by an independent path.
func TestSearchCongestion118(t *testing.T) {
	n := pglibNet(t, "118_ieee")
	dom, _ := n.LoadBand(0.3)
	rules := DefaultMarketRules()
	s, err := n.SearchLMPChange(context.Background(), dom, 1, rules, LMPSearchOptions{Seed: 1, Steps: 3000, Climbs: 5, Congestion: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("found %.6g $/MWh at bus %d (largest |π| %.6g, %d LP solves)", s.PerMW, s.Bus, s.LMP, s.Evaluations)
	if s.PerMW < 450 {
		t.Errorf("found %v, want ≥ 450 (the congestion vertices reach 457.2)", s.PerMW)
	}
	recheckChange(t, n, dom, 1, rules, s)
}

// The certificate is a function of the network, the domain and the options
// only, not of the machine's load: 57_ieee ±30% with small work budgets
// (three tightening passes; the MIP stops on its deterministic work budget,
// not its gap), certified
// once on an idle process and once with GOMAXPROCS = 1 and two goroutines
// spinning beside it, gives byte-identical certificate files, and the
// re-derivation reproduces the bound.
func TestLMPBoundReproducibleUnderLoad(t *testing.T) {
	n := pglibNet(t, "57_ieee")
	dom, _ := n.LoadBand(0.3)
	rules := DefaultMarketRules()
	ctx := context.Background()
	opt := LMPBoundOptions{TighteningPasses: 1, TighteningWork: 3e7, MIPWork: 1.5e7}
	certify := func() ([]byte, *CostCertificate) {
		c, err := n.CertifyCostBound(ctx, dom, 1, rules, opt)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := n.NewCertificateFile(c, dom, false, 20).Write(&buf); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes(), c
	}
	j1, c := certify()
	if c.LMP == nil {
		t.Fatalf("%s certificate (%s), want lmp-bound", c.Method, c.Reason)
	}
	if c.Method != "lmp-bound" || !c.LMP.Reproducible || len(c.LMP.MIPStops) != 1 || c.LMP.MIPStops[0] != "work" {
		t.Fatalf("%s certificate, MIP stops %v (reproducible %v): want an lmp-bound whose MIP stopped on its work budget", c.Method, c.LMP.MIPStops, c.LMP.Reproducible)
	}
	t.Logf("certified %.6g $/MWh, %d MIP LP iterations, %d nodes", c.PerMW, c.LMP.MIPIterations, c.LMP.Nodes)
	prev := runtime.GOMAXPROCS(1)
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := 1.0
			for !stop.Load() {
				for k := 0; k < 1000; k++ {
					x = math.Sqrt(x + 1)
				}
				runtime.Gosched()
			}
		}()
	}
	j2, _ := certify()
	stop.Store(true)
	wg.Wait()
	runtime.GOMAXPROCS(prev)
	if !bytes.Equal(j1, j2) {
		t.Errorf("certificates differ under load:\n%s\n%s", j1, j2)
	}
	if err := n.VerifyCostCertificateContext(ctx, c, dom); err != nil {
		t.Error(err)
	}
	// A certificate claiming 1% less than its budget proves is refused.
	bad, ev := *c, *c.LMP
	ev.MaxPrice *= 0.99
	bad.LMP, bad.PerMW, bad.Bound = &ev, ev.MaxPrice, ev.MaxPrice
	if err := n.VerifyCostCertificateContext(ctx, &bad, dom); !errors.Is(err, ErrNotCertified) {
		t.Errorf("bound %v (1%% below the reproduced %v) verified: %v", bad.PerMW, c.PerMW, err)
	}
}

// The per-bus climbs (LMPSearchOptions.PerBus) are sound and add to the
// search: on 30_ieee ±10% every price the search sees at a varying bus lies
// within that bus's tightened price bound (an independent check of the
// per-bus bounds: the search's prices are market-LP duals at points of the
// domain), the largest of them is the result's LMP, the per-bus climbs and
// the flow starts (LMPSearchOptions.FlowStarts, all inside the domain) find
// no smaller change than the search without them, and the reported pair
// realizes its change.
func TestSearchPerBus(t *testing.T) {
	n := pglibNet(t, "30_ieee")
	dom, _ := n.LoadBand(0.1)
	rules := DefaultMarketRules()
	ctx := context.Background()
	ev, reason, err := n.lmpBound(ctx, dom, rules, LMPBoundOptions{})
	if err != nil || ev == nil {
		t.Fatalf("lmpBound: %v %s", err, reason)
	}
	base, err := n.SearchLMPChange(ctx, dom, 1, rules, LMPSearchOptions{Seed: 1, Steps: 100})
	if err != nil {
		t.Fatal(err)
	}
	s, err := n.SearchLMPChange(ctx, dom, 1, rules, LMPSearchOptions{Seed: 1, Steps: 100, PerBus: 60, FlowStarts: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("found %.6g $/MWh (without per-bus climbs %.6g), %d LP solves (%d)", s.PerMW, base.PerMW, s.Evaluations, base.Evaluations)
	if s.PerMW < base.PerMW-1e-9 {
		t.Errorf("per-bus climbs lost the change: %v < %v", s.PerMW, base.PerMW)
	}
	if s.Evaluations <= base.Evaluations {
		t.Errorf("per-bus climbs ran no LP: %d ≤ %d", s.Evaluations, base.Evaluations)
	}
	top := 0.0
	for _, i := range dom.Variable() {
		top = math.Max(top, s.BusLMP[i])
		if b := math.Max(ev.PriceHi[i], -ev.PriceLo[i]); s.BusLMP[i] > b+1e-6*(1+b) {
			t.Errorf("bus %d: price %v seen, bounds [%v, %v]", n.BusID[i], s.BusLMP[i], ev.PriceLo[i], ev.PriceHi[i])
		}
	}
	if top != s.LMP || top == 0 {
		t.Errorf("largest per-bus price %v, result's LMP %v", top, s.LMP)
	}
	recheckChange(t, n, dom, 1, rules, s)
	// The flow starts are points of the domain, one per branch direction
	// at most, and some exist (30_ieee has limited branches).
	fs, err := n.flowStarts(ctx, dom, rules, highs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) == 0 || len(fs) > 2*n.NumBranches() {
		t.Errorf("%d flow starts for %d branches", len(fs), n.NumBranches())
	}
	for _, d := range fs {
		for j := range d {
			if d[j] < dom.Lo[j] || d[j] > dom.Hi[j] {
				t.Fatalf("flow start outside the domain at bus %d: %v not in [%v, %v]", n.BusID[j], d[j], dom.Lo[j], dom.Hi[j])
			}
		}
	}
}

// Per-bus KKT MIPs with a cutoff (LMPBoundOptions.PerBusMIP) are sound and
// re-derivable: on 30_ieee ±10% (largest price 52.18 $/MWh, found by the
// search) with a known price below it (40; the reference solves' prices,
// which also serve as the cutoff, reach the maximum there) and one just above it (the MIPs are then infeasible
// and the cutoff is the bound), the certified value is never below the
// search's change, at most the cutoff or the joint MIP's value where the
// cutoff is above the maximum, and VerifyCostCertificateContext re-derives
// it.
func TestLMPPerBusMIP30(t *testing.T) {
	n := pglibNet(t, "30_ieee")
	dom, _ := n.LoadBand(0.1)
	rules := DefaultMarketRules()
	ctx := context.Background()
	s, err := n.SearchLMPChange(ctx, dom, 1, rules, LMPSearchOptions{Seed: 1, Steps: 200, Congestion: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, known := range []float64{40, s.LMP * 1.01} {
		c, err := n.CertifyLMPBound(ctx, dom, 1, rules, LMPBoundOptions{KnownPrice: known, PerBusMIP: true})
		if err != nil {
			t.Fatal(err)
		}
		if c.Method != "lmp-bound" || !c.LMP.PerBusMIP {
			t.Fatalf("known %v: method %s (%s), per-bus %v", known, c.Method, c.Reason, c.LMP != nil && c.LMP.PerBusMIP)
		}
		t.Logf("known %.6g: certified %.6g $/MWh, search %.6g, %d MIP iterations, stops %v", known, c.PerMW, s.PerMW, c.LMP.MIPIterations, c.LMP.MIPStops)
		if c.PerMW < s.PerMW-1e-9 {
			t.Errorf("known %v: certified %v below the search's %v", known, c.PerMW, s.PerMW)
		}
		if known > s.LMP && c.PerMW > known*(1+1e-5) {
			t.Errorf("known %v above the largest price: certified %v, want at most the cutoff", known, c.PerMW)
		}
		if err := n.VerifyCostCertificateContext(ctx, c, dom); err != nil {
			t.Errorf("known %v: %v", known, err)
		}
		if known > s.LMP {
			continue
		}
		// Below the largest price, the candidate starts (the tightening
		// LPs' maximizers and the per-bus MIPs' incumbents) lie in the
		// domain, and the market LP at one of them prices some varying bus
		// at the known price or above.
		best := 0.0
		for _, d := range c.LMP.Candidates {
			if !dom.Contains(d) {
				t.Fatalf("known %v: a candidate load vector is outside the domain", known)
			}
			for _, j := range dom.Variable() {
				best = math.Max(best, math.Abs(marketPrices(t, n, dom, rules, d)[j]))
			}
		}
		t.Logf("known %.6g: %d candidates, largest price at one %.6g", known, len(c.LMP.Candidates), best)
		if best < known*(1-1e-6) {
			t.Errorf("known %v: the candidates' largest price is %v", known, best)
		}
	}
}

// marketPrices solves the market LP at the load vector d and returns the
// balance rows' duals, the LMPs, per bus.
func marketPrices(t *testing.T, n *Network, dom LoadDomain, rules MarketRules, d []float64) []float64 {
	t.Helper()
	b := newLPBuilder()
	m, err := n.newMarketLP(b, dom, rules)
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range m.vars {
		b.lo[m.d[j]], b.hi[m.d[j]] = d[j], d[j]
	}
	o := highs.Options{}
	o.Threads = 1
	lp, err := b.build(o)
	if err != nil {
		t.Fatal(err)
	}
	defer lp.Close()
	r, err := lp.Solve(context.Background())
	if err != nil || r.Status != solver.Optimal {
		t.Fatalf("market LP: %v %v", err, r.Status)
	}
	pi := make([]float64, len(m.balance))
	for j, row := range m.balance {
		pi[j] = r.RowDual[row]
	}
	return pi
}

// Price monotonicity along a bus's own load (ownLoadEnd): at random loads of
// a congested domain (30_ieee ±30%, where branches congest and prices
// differ between buses), the market LP's price at bus i with its load
// moved to Hi_i is at least the price at the sampled load, and with its
// load moved to Lo_i at most it — for whatever optimal dual the solver
// returns at either point. The test also requires that some moves change
// the price (the property is exercised, not vacuous).
func TestOwnLoadMonotone(t *testing.T) {
	n := pglibNet(t, "30_ieee")
	dom, _ := n.LoadBand(0.3)
	m, _, lp := marketLPSolver(t, n, dom, DefaultMarketRules())
	defer lp.Close()
	rng := rand.New(rand.NewPCG(3, 11))
	priceAt := func(d []float64, i int) float64 {
		r := marketAt(t, m, lp, d)
		return r.RowDual[m.balance[i]]
	}
	moved := 0
	for trial := 0; trial < 12; trial++ {
		d := append([]float64(nil), dom.Lo...)
		for _, j := range m.vars {
			d[j] = dom.Lo[j] + rng.Float64()*(dom.Hi[j]-dom.Lo[j])
			if trial%2 == 0 && rng.IntN(2) == 0 {
				d[j] = dom.Hi[j]
			}
		}
		for _, i := range m.vars {
			p := priceAt(d, i)
			for _, sign := range []float64{1, -1} {
				e := append([]float64(nil), d...)
				e[i] = ownLoadEnd(dom, i, sign)
				q := priceAt(e, i)
				if sign*(q-p) < -1e-6*(1+math.Abs(p)) {
					t.Errorf("trial %d, bus %d: price %v at load %v, %v with the load at %v (sign %v)", trial, n.BusID[i], p, d[i], q, e[i], sign)
				}
				if math.Abs(q-p) > 1e-3 {
					moved++
				}
			}
		}
	}
	if moved == 0 {
		t.Errorf("no price changed when a bus's load moved to an end: the test does not exercise congestion")
	}
	t.Logf("%d of %d moves changed the price", moved, 12*2*len(m.vars))
}

// Twin branches (mergeTwinLimits): case3_twins is case3_congested with its
// limited branch split into two identical circuits, so the hand solution is
// the same (largest LMP 50 $/MWh over d₃ ∈ [81, 99] MW, at bus 3). The twin's
// two limits are fixed (their duals carried by the first circuit), the
// certified bound is still exactly 50, it re-verifies, and at sampled loads
// both circuits carry equal flows (the twins' rows are identical).
func TestLMPTwinBranches(t *testing.T) {
	n := loadNet(t, "testdata/case3_twins.m", DCOptions{})
	rules := MarketRules{PriceCap: 1000}
	dom := LoadDomain{Lo: []float64{0, 0, 81}, Hi: []float64{0, 10, 99}}
	b := newLPBuilder()
	m, err := n.newMarketLP(b, dom, rules)
	if err != nil {
		t.Fatal(err)
	}
	ev := &LMPEvidence{CostGap: 1}
	if why := n.muBounds0(m, ev); why != "" {
		t.Fatal(why)
	}
	if got := n.mergeTwinLimits(m, ev); got != 2 || ev.MuUp[2] != 0 || ev.MuLo[2] != 0 || ev.MuUp[1] == 0 || ev.MuLo[1] == 0 {
		t.Fatalf("twins: %d limits fixed, mu up %v lo %v; want the second circuit's two", got, ev.MuUp, ev.MuLo)
	}
	c, err := n.CertifyLMPBound(context.Background(), dom, 2, rules, LMPBoundOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Method != "lmp-bound" || math.Abs(c.PerMW-50) > 1e-3 || !c.LMP.Closed {
		t.Fatalf("twin circuits: %s per_mw %v (closed %v), want lmp-bound 50", c.Method, c.PerMW, c.LMP != nil && c.LMP.Closed)
	}
	if err := n.VerifyCostCertificate(c, dom); err != nil {
		t.Error(err)
	}
	_, _, lp := marketLPSolver(t, n, dom, rules)
	defer lp.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 6; trial++ {
		r := solveAtSample(t, lp, m, dom, rng, trial%2 == 0)
		if f1, f2 := r.RowValue[m.flow[1]], r.RowValue[m.flow[2]]; math.Abs(f1-f2) > 1e-6 {
			t.Errorf("trial %d: twin flows %v and %v differ", trial, f1, f2)
		}
	}
}

// Bridge cuts (bridgeCuts): case4_leaf has a load pocket (buses 4 and 5)
// behind a bus without backstops; each of its two bridges can reach its
// limit only through a backstop on its side. The KKT program carries the
// cut rows and the pocket rows, and the certified bound
// (the MIP closed) equals the largest change the adversarial search finds:
// the cuts remove no KKT point that sets the maximum.
func TestLMPBridgeCuts(t *testing.T) {
	n := loadNet(t, "testdata/case4_leaf.m", DCOptions{})
	rules := MarketRules{PriceCap: 1000}
	dom := LoadDomain{Lo: []float64{0, 0, 70, 4, 2}, Hi: []float64{0, 0, 99, 10, 5}}
	ev, reason, err := n.lmpBound(context.Background(), dom, rules, LMPBoundOptions{TighteningPasses: -1})
	if err != nil || ev == nil {
		t.Fatalf("lmpBound: %v %s", err, reason)
	}
	k, err := n.buildKKT(dom, rules, ev, ev.PriceLo, ev.PriceHi, 1, nil, []int{2, 3, 4})
	if err != nil {
		t.Fatal(err)
	}
	// Per bridge: into and out of its side, plus a pocket row per bus of
	// the side and direction (pocketInternals: 4–5 is an internal bridge of
	// 2–4's side): 2 + 4 for 2–4, 2 + 2 for 4–5.
	if c := k.cutRows[1] - k.cutRows[0]; c != 10 {
		t.Errorf("%d bridge cut rows, want 10", c)
	}
	c, err := n.CertifyLMPBound(context.Background(), dom, 1, rules, LMPBoundOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := n.SearchLMPChange(context.Background(), dom, 1, rules, LMPSearchOptions{Congestion: true, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if c.Method != "lmp-bound" || !c.LMP.Closed || math.Abs(c.PerMW-s.PerMW) > 1e-3*(1+s.PerMW) {
		t.Errorf("leaf case: %s %v (closed %v), search %v at bus %d; want equal", c.Method, c.PerMW, c.LMP != nil && c.LMP.Closed, s.PerMW, s.Bus)
	}
	t.Logf("certified %v, found %v at bus %d", c.PerMW, s.PerMW, s.Bus)
}

// The search survives a warm start that HiGHS ends in its numerical-error
// status: on 118_ieee ×1.336 ±30% (PowerModels DC model), the options of
// bench/lmpbound used to stop the search with an error; with the re-solve
// from a fresh basis it finishes and reaches the price cap, which a load
// vector of this domain realizes (the certification's short search finds it
// too), and the reported pair realizes its change.
func TestSearchNumericalRetry(t *testing.T) {
	n, err := NewNetwork(pglibNet(t, "118_ieee").Case, PowerModelsDC())
	if err != nil {
		t.Fatal(err)
	}
	for i := range n.Load {
		n.Load[i] *= 1.336
	}
	dom, _ := n.LoadBand(0.3)
	rules := DefaultMarketRules()
	s, err := n.SearchLMPChange(context.Background(), dom, 1, rules, LMPSearchOptions{Seed: 1, Steps: 3000, Climbs: 5, Congestion: true, PerBus: 200, FlowStarts: true})
	if err != nil {
		t.Fatal(err)
	}
	if s.LMP < rules.MaxPrice()*(1-1e-9) {
		t.Errorf("largest |π| %v, want the cap %v", s.LMP, rules.MaxPrice())
	}
	recheckChange(t, n, dom, 1, rules, s)
}

// The bridge cuts and pocket rows (bridgeCuts) hold at KKT points: at loads
// sampled from 118_ieee ±30% (vertices and interior points), the market
// LP's solution with the admissible binaries of the proof (a branch binary
// is 1 exactly at its limit, a backstop binary exactly when the bus's price
// is at the floor or the cap) satisfies every row bridgeCuts appended.
func TestLMPBridgeCutsHoldAtOptima(t *testing.T) {
	n := pglibNet(t, "118_ieee")
	dom, _ := n.LoadBand(0.3)
	rules := DefaultMarketRules()
	ev, reason, err := n.lmpBound(context.Background(), dom, rules, LMPBoundOptions{TighteningPasses: -1, MIPWork: 1})
	if err != nil || ev == nil {
		t.Fatalf("lmpBound: %v %s", err, reason)
	}
	k, err := n.buildKKT(dom, rules, ev, ev.PriceLo, ev.PriceHi, 1, nil, dom.Variable())
	if err != nil {
		t.Fatal(err)
	}
	r0, r1 := k.cutRows[0], k.cutRows[1]
	if r1-r0 < 10 {
		t.Fatalf("only %d bridge rows on 118_ieee ±30%%", r1-r0)
	}
	m, _, lp := marketLPSolver(t, n, dom, rules)
	defer lp.Close()
	rng := rand.New(rand.NewPCG(7, 3))
	x := make([]float64, len(k.b.cost))
	atLimit := 0
	for trial := 0; trial < 20; trial++ {
		r := solveAtSample(t, lp, m, dom, rng, trial%2 == 0)
		clear(x)
		for j, row := range m.balance {
			pi := r.RowDual[row]
			x[k.pi[j]] = pi
			tol := 1e-6 * (1 + math.Abs(pi))
			if k.shedE[j] >= 0 && pi >= rules.PriceCap-tol {
				x[k.shedE[j]] = 1
			}
			if k.curtE[j] >= 0 && pi <= rules.PriceFloor+tol {
				x[k.curtE[j]] = 1
			}
		}
		for l, row := range m.flow {
			if row < 0 {
				continue
			}
			f := r.RowValue[row] + n.Pfinj[l]
			tol := 1e-6 * math.Max(1, math.Abs(f))
			if k.zUp[l] >= 0 && f >= n.FlowMax[l]-tol {
				x[k.zUp[l]] = 1
				atLimit++
			}
			if k.zLo[l] >= 0 && f <= n.FlowMin[l]+tol {
				x[k.zLo[l]] = 1
				atLimit++
			}
		}
		val := make([]float64, r1-r0)
		for q, ri := range k.b.ri {
			if ri >= r0 && ri < r1 {
				val[ri-r0] += k.b.rv[q] * x[k.b.rj[q]]
			}
		}
		for q, v := range val {
			lo, hi := k.b.rlo[r0+q], k.b.rhi[r0+q]
			tol := 1e-6 * (1 + math.Abs(v))
			if v < lo-tol || v > hi+tol {
				t.Errorf("trial %d: bridge row %d: %v outside [%v, %v]", trial, q, v, lo, hi)
			}
		}
	}
	t.Logf("%d bridge rows, %d limits at their limit over 20 samples", r1-r0, atLimit)
}
