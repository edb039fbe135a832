package opfrelease

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/privopt/privopt/grid"
	"github.com/privopt/privopt/noise"
)

// The N-1 secure private cost release on 118_ieee at normal post-contingency
// ratings: the dispatch behind every release in the noise interval (its two
// ends) survives every non-islanding outage — checked independently by
// rebuilding the network without the outaged branch and re-solving its power
// flow (no LODF) — and its certified sensitivity is the price-cap bound.
func TestSecureReleaseIsSecure(t *testing.T) {
	n := loadNet(t, "118_ieee")
	pr := prepare(t, n, func(o *Options) { o.Security = &Security{PostFactor: 1} })
	if pr.costCert.Method != "price-cap" || len(pr.cuts) == 0 {
		t.Fatalf("certificate %s, %d cuts", pr.costCert.Method, len(pr.cuts))
	}
	if _, err := pr.releaseOnce(noise.NewSeededSource(1)); err != nil {
		t.Fatal(err)
	}
	sol := pr.Solution()
	box := sol.Counterpart.Guarantee.Box[0]
	skip := map[int]bool{}
	for _, k := range pr.SkippedOutages() {
		skip[k] = true
	}
	pn := pr.priv
	checked, worst := 0, 0.0
	for _, z := range []float64{box.Lo, box.Hi} {
		x := sol.Rule.Apply(nil, []float64{z})
		// Dispatch per case generator row (backstops included) to rebuild
		// the network without one branch.
		pg := map[int]float64{}
		for g, gi := range pn.Gen {
			pg[gi] = x[pr.opf.P.Col(g)]
		}
		for k := 0; k < pn.NumBranches(); k++ {
			if skip[k] {
				continue
			}
			c := *pn.Case
			c.Branches = append([]grid.Branch(nil), pn.Case.Branches...)
			c.Branches[pn.Branch[k]].InService = false
			m, err := grid.NewNetwork(&c, pn.Options)
			if err != nil {
				t.Fatal(err)
			}
			p := make([]float64, m.NumGens())
			for g, gi := range m.Gen {
				p[g] = pg[gi]
			}
			for l, fl := range m.FlowsAt(p, pr.load) {
				v := math.Max(fl-m.FlowMax[l], m.FlowMin[l]-fl)
				worst = math.Max(worst, v)
				if v > 1e-5*math.Max(1, m.FlowMax[l]) {
					t.Fatalf("ζ = %.4g, outage of branch %d: branch %d carries %.4f MW outside [%.4f, %.4f]", z, pn.Branch[k]+1, m.Branch[l]+1, fl, m.FlowMin[l], m.FlowMax[l])
				}
			}
			checked++
		}
	}
	t.Logf("118_ieee N-1: %d cuts, %d islanding outages skipped, %d outage×end checks, worst excess %.2e MW; sensitivity %.4g; %v", len(pr.cuts), len(pr.SkippedOutages()), checked, worst, pr.Sensitivity, pr.Notes)
}

// Warm starts change the path of the N-1 cut loop, not its answer: on
// 300_ieee at post-factor 1 (733 cuts at the case's loads), plans and
// releases made with every solve cold (the loop before warm starts) give
// the same statistics to the accuracy target τ, at the domain's midpoint
// and at three load vectors inside the ±10% domain.
func TestSecureWarmStartSameStatistic(t *testing.T) {
	n := loadNet(t, "300_ieee")
	ctx := context.Background()
	opt := DefaultOptions()
	opt.Security = &Security{PostFactor: 1}
	opt.ChanceSeed = 1
	stats := func() (mid float64, rel []float64, cuts int) {
		plan, loads, err := ReferencePlan(ctx, n, opt, 0.1)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []float64{0.95, 1, 1.05} {
			d := loads.Values()
			for i := range d {
				d[i] *= f
			}
			pr, err := plan.Solve(ctx, Loads{d: d})
			if err != nil {
				t.Fatal(err)
			}
			rel = append(rel, pr.statistic())
			cuts = max(cuts, len(pr.cuts))
		}
		return plan.midStat, rel, cuts
	}
	wMid, wRel, wCuts := stats()
	coldSolves = true
	cMid, cRel, _ := stats()
	coldSolves = false
	plan, _, err := ReferencePlan(ctx, n, opt, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	tau := plan.tau
	if math.Abs(wMid-cMid) > 2*tau {
		t.Errorf("midpoint statistic: warm %.6f, cold %.6f (τ = %.3g)", wMid, cMid, tau)
	}
	for k := range wRel {
		if math.Abs(wRel[k]-cRel[k]) > 2*tau {
			t.Errorf("release %d: warm %.6f, cold %.6f (τ = %.3g)", k, wRel[k], cRel[k], tau)
		}
	}
	if wCuts == 0 {
		t.Fatal("no contingency cut: the test does not exercise the cut loop")
	}
	t.Logf("300_ieee N-1: midpoint %.4f (cold %.4f), releases %v (cold %v), up to %d cuts, τ = %.3g", wMid, cMid, wRel, cRel, wCuts, tau)
}

// Sparse LODF storage (used above denseLODFBytes, e.g. on 10000_goc) finds
// the cuts of the dense check: on 300_ieee at post-factor 1 and 1.5, forced
// sparse, the program holds the same cuts and gives the same statistic.
func TestSparseLODFMatchesDense(t *testing.T) {
	n := loadNet(t, "300_ieee")
	for _, pf := range []float64{1, 1.5} {
		run := func() *Program {
			pr, err := prepareCase(context.Background(), n, func() Options {
				o := DefaultOptions()
				o.Security = &Security{PostFactor: pf}
				o.ChanceSeed = 1
				return o
			}())
			if err != nil {
				t.Fatal(err)
			}
			return pr
		}
		dense := run()
		saved := denseLODFBytes
		denseLODFBytes = 0
		sp := run()
		denseLODFBytes = saved
		if sp.sec.lodf != nil || len(sp.sec.sparse) == 0 || dense.sec.lodf == nil {
			t.Fatal("the storage was not forced")
		}
		kept, all := 0, 0
		for _, c := range sp.sec.sparse {
			kept += len(c.idx)
			all += n.NumBranches()
		}
		if len(dense.cuts) == 0 || len(sp.cuts) != len(dense.cuts) {
			t.Fatalf("post-factor %g: %d cuts sparse, %d dense", pf, len(sp.cuts), len(dense.cuts))
		}
		for i := range dense.cuts {
			if sp.cuts[i] != dense.cuts[i] {
				t.Fatalf("post-factor %g: cut %d is %v sparse, %v dense", pf, i, sp.cuts[i], dense.cuts[i])
			}
		}
		if a, b := sp.statistic(), dense.statistic(); a != b {
			t.Fatalf("post-factor %g: statistic %.10g sparse, %.10g dense", pf, a, b)
		}
		t.Logf("post-factor %g: %d cuts, statistic %.4f; sparse storage keeps %d of %d entries (%.1f%%)", pf, len(sp.cuts), sp.statistic(), kept, all, 100*float64(kept)/float64(all))
	}
}

// The N-1 memory guard on 300_ieee. The estimate is a function of the public
// network only: plans over two adjacent load vectors (one bus load +α) with
// the same public domain have the same estimate, and a guard below it gives
// the same plan-time refusal (ErrMemoryGuard, identical text). Its parts
// match independent counts: the dense LODF bytes are outages × branches × 8
// and the sampled sparse fill is within 25% of the exact count over every
// column. A guard between the sparse and dense estimates switches to sparse
// storage with the same statistic; a guard above both keeps dense storage.
func TestMemoryGuard(t *testing.T) {
	ctx := context.Background()
	n := loadNet(t, "300_ieee")
	c := *n.Case
	c.Buses = append([]grid.Bus(nil), n.Case.Buses...)
	c.Buses[0].Pd += 1 // adjacent: one bus load +α (α = 1 MW)
	n2, err := grid.NewNetwork(&c, n.Options)
	if err != nil {
		t.Fatal(err)
	}
	_, loads, err := Split(n)
	if err != nil {
		t.Fatal(err)
	}
	dom, err := grid.ReferenceBand(loads.Values(), 0.1)
	if err != nil {
		t.Fatal(err)
	}
	plan := func(net *grid.Network, guard int64) (*Plan, error) {
		pub, _, err := Split(net)
		if err != nil {
			t.Fatal(err)
		}
		o := DefaultOptions()
		o.ChanceSeed = 1
		o.Domain = &dom
		o.Security = &Security{PostFactor: 1, MaxMemoryBytes: guard}
		return NewPlan(ctx, pub, o)
	}
	free, err := plan(n, 0)
	if err != nil {
		t.Fatal(err)
	}
	est := *free.Memory
	if free.LODFStorage() != "dense" {
		t.Fatalf("storage %q without a guard, want dense", free.LODFStorage())
	}
	// Independent counts.
	outages, kept := 0, 0
	for k, b := range n.Bridges() {
		if b {
			continue
		}
		outages++
		for _, v := range n.LODFColumn(k) {
			if math.Abs(v) >= sparseLODFDrop {
				kept++
			}
		}
	}
	if est.Outages != outages || est.DenseLODFBytes != int64(outages*n.NumBranches()*8) {
		t.Fatalf("estimate %+v; want %d outages and %d dense bytes", est, outages, outages*n.NumBranches()*8)
	}
	exact := int64(kept*12 + outages*64)
	if r := float64(est.SparseLODFBytes) / float64(exact); r < 0.75 || r > 1.25 {
		t.Fatalf("sparse LODF estimate %d bytes, exact %d (ratio %.3f)", est.SparseLODFBytes, exact, r)
	}
	if est.PeakSparseBytes-est.SparseLODFBytes != est.PeakDenseBytes-est.DenseLODFBytes {
		t.Fatalf("the two peaks differ by more than the storage: %+v", est)
	}
	// Refusal below the sparse estimate: identical for adjacent loads.
	guard := min(est.PeakSparseBytes, est.PeakDenseBytes) - 1
	_, e1 := plan(n, guard)
	_, e2 := plan(n2, guard)
	if !errors.Is(e1, ErrMemoryGuard) || !errors.Is(e2, ErrMemoryGuard) {
		t.Fatalf("guard %d: errors %v and %v, want ErrMemoryGuard", guard, e1, e2)
	}
	if e1.Error() != e2.Error() {
		t.Fatalf("adjacent loads give different refusals:\n%v\n%v", e1, e2)
	}
	other, err := plan(n2, 0)
	if err != nil {
		t.Fatal(err)
	}
	if *other.Memory != est {
		t.Fatalf("adjacent loads give different estimates: %+v and %+v", est, *other.Memory)
	}
	// Between the estimates: sparse storage, same statistic.
	if est.PeakSparseBytes >= est.PeakDenseBytes {
		t.Fatalf("sparse estimate %d ≥ dense %d: no guard selects sparse storage", est.PeakSparseBytes, est.PeakDenseBytes)
	}
	sp, err := plan(n, est.PeakSparseBytes)
	if err != nil {
		t.Fatal(err)
	}
	dn, err := plan(n, est.PeakDenseBytes)
	if err != nil {
		t.Fatal(err)
	}
	if sp.LODFStorage() != "sparse" || dn.LODFStorage() != "dense" {
		t.Fatalf("storage %q and %q, want sparse and dense", sp.LODFStorage(), dn.LODFStorage())
	}
	if sp.midStat != free.midStat || *sp.Memory != est {
		t.Fatalf("sparse storage: midpoint statistic %.10g (dense %.10g), estimate %+v", sp.midStat, free.midStat, *sp.Memory)
	}
	if _, err := plan(n, -1); err == nil || !strings.Contains(err.Error(), "MaxMemoryBytes -1") {
		t.Fatalf("guard -1: error %v, want one naming the value", err)
	}
	t.Logf("300_ieee: %+v; refusal: %v", est, e1)
}

// Progress lines come from the plan's public midpoint solve only: one per
// cut round and a closing line; a release adds none.
func TestSecurityProgress(t *testing.T) {
	var buf bytes.Buffer
	pr := prepare(t, loadNet(t, "118_ieee"), func(o *Options) { o.Security = &Security{PostFactor: 1, Progress: &buf} })
	out := buf.String()
	rounds := strings.Count(out, "cut round ")
	if rounds == 0 || !strings.Contains(out, fmt.Sprintf("done: %d cuts", len(pr.seedCuts))) {
		t.Fatalf("progress %q: want cut rounds and the closing line with %d cuts", out, len(pr.seedCuts))
	}
	if _, err := pr.releaseOnce(noise.NewSeededSource(1)); err != nil {
		t.Fatal(err)
	}
	if buf.String() != out {
		t.Fatalf("a release printed progress: %q", strings.TrimPrefix(buf.String(), out))
	}
	t.Logf("%d rounds:\n%s", rounds, out)
}
