package grid

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/highs"
)

// TestLMPPartRestrict checks the restriction of a congestion-pattern part
// to π_i ≥ cutoff (partRestrict) against an independent reference on
// 30_ieee ±30% (PowerModels DC model, no bound tightening before, so the
// parts have room): for the four varying buses with the largest derived
// price bound, each split by the limited branch with the largest |PTDF|
// to the bus, the reference is each part's own KKT MIP solved to a 10⁻⁶
// gap without any restriction (the part's maximum P of π_i). For each
// cutoff c below the bus's derived bound, the
// restricted part's bound (its tightening and MIP under π_i ≥ c, enough
// iterations to close) must be at least P for every cutoff c (sound), equal
// P within the MIP's 10⁻³ gap when c < P (nothing above the cutoff is
// lost), and at most c when c > P (equal c when restricted: the restricted
// program is empty). The same for the part whose tightening is skipped when
// its relaxation is at most the cutoff (skipBelow), alone and with the
// restriction, and for the part MIP given the price cap as the bus's
// bound (looseOwn) when the bus's bound is the largest part maximum (as an
// earlier split leaves it), so the relaxation reaches it. A
// restriction placed above the cutoff it is reported against (a wrong
// cutoff) gives c < P at the cutoffs just below P and fails the first
// check.
func TestLMPPartRestrict(t *testing.T) {
	pf := newPatternFixture(t)
	n, dom, rules, ev, m, buses, hopt := pf.n, pf.dom, pf.rules, pf.ev, pf.m, pf.buses, pf.hopt
	ctx := context.Background()
	need := priceNeed(m)
	checked := 0
	for _, i := range buses[:4] {
		ptdf := n.PTDFColumns([]int{i})[0]
		l := -1
		for q := range ptdf {
			if (ev.MuUp[q] > 0 || ev.MuLo[q] > 0) && (l < 0 || math.Abs(ptdf[q]) > math.Abs(ptdf[l])) {
				l = q
			}
		}
		if l < 0 {
			continue
		}
		type ref struct {
			part *kktPart
			P    float64
		}
		var refs []ref
		V := math.Inf(-1) // a bound on the bus's price: the largest parts' proven bound
		for _, side := range []int{1, -1, 0} {
			part := &kktPart{own: i, ownLoad: dom.Hi[i], l: l, side: side}
			// The reference: the part's KKT MIP, unrestricted, closed.
			pev := partEvidence(ev, part)
			k, err := n.buildKKT(dom, rules, pev, ev.PriceLo, ev.PriceHi, 1, nil, []int{i})
			if err != nil {
				t.Fatal(err)
			}
			if !part.apply(k) {
				continue
			}
			lp, err := buildMax(k.b, hopt)
			if err != nil {
				t.Fatal(err)
			}
			r, err := lp.SolveMIP(ctx, highs.MIPLimits{RelGap: 1e-6})
			lp.Close()
			if err != nil {
				t.Fatal(err)
			}
			if r.Status == solver.PrimalInfeasible {
				continue // an empty part: nothing to compare
			}
			if r.Status != solver.Optimal {
				t.Fatalf("bus %d part %+d: reference MIP %v", n.BusID[i], side, r.Status)
			}
			refs = append(refs, ref{part, r.Objective})
			V = math.Max(V, r.DualBound)
		}
		// The bus's bound as an earlier split would leave it (at its
		// largest part's maximum): the MIP then gets the cap (looseOwn).
		split := append([]float64(nil), ev.PriceHi...)
		split[i] = math.Min(split[i], V+1e-6*(1+math.Abs(V)))
		for _, rf := range refs {
			part, P, side := rf.part, rf.P, rf.part.side
			for _, o := range []partMIPOptions{{restrict: true}, {skipBelow: true}, {restrict: true, skipBelow: true}, {skipBelow: true, looseOwn: true}} {
				hi := ev.PriceHi
				if o.looseOwn {
					hi = split
				}
				name := fmt.Sprintf("restrict %v, skipBelow %v, looseOwn %v (bus bound %.6g)", o.restrict, o.skipBelow, o.looseOwn, hi[i])
				for _, c := range []float64{0.5 * P, P - 0.01, P + 0.01} {
					if c <= 0 || c >= hi[i] {
						continue // no cutoff, or none below the bus's bound
					}
					got, _, err := n.partBound(ctx, dom, rules, hopt, ev, ev.PriceLo, hi, need, m, part, 1, 1e6, c, 1e7, 0, o, nil)
					if err != nil {
						t.Fatal(err)
					}
					t.Logf("bus %d, branch %d–%d part %+d: part maximum %.6g; %s, cutoff %.6g: bound %.6g",
						n.BusID[i], n.BusID[n.From[l]], n.BusID[n.To[l]], side, P, name, c, got)
					checked++
					if got < P-1e-6*(1+math.Abs(P)) {
						t.Errorf("bus %d part %+d, %s, cutoff %v: bound %v below the part's maximum %v (unsound)", n.BusID[i], side, name, c, got, P)
					}
					if c < P && got > P+2e-3*(1+math.Abs(P)) {
						t.Errorf("bus %d part %+d, %s, cutoff %v: bound %v, want the part's maximum %v", n.BusID[i], side, name, c, got, P)
					}
					if c > P && (got > c+1e-6*(1+c) || (o.restrict && got < c-1e-6*(1+c))) {
						t.Errorf("bus %d part %+d, %s, cutoff %v above the maximum %v: bound %v, want the cutoff (restricted) or at most it", n.BusID[i], side, name, c, P, got)
					}
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no part was checked")
	}
}
