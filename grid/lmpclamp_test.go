package grid

import (
	"context"
	"math"
	"testing"

	"github.com/privopt/privopt/lpdual"
)

// A tightening step whose dual proves less than the LP's optimum (on
// 300_ieee ±10% a lower price bound claimed 0.152380 where its dual proves
// 0.150003: the dual's residuals times the columns' boxes) must be recorded
// with what its dual proves. On 30_ieee ±10% the test takes the first
// pi_hi, pi_lo, mu_up and flow_hi steps of a recorded proof, perturbs each
// dual along the row whose columns have the largest boxes (so that the
// safe bound Σ max(yᵢ RowLoᵢ, yᵢ RowHiᵢ) + Σ max(r_j Lo_j, r_j Hi_j) grows
// by about 10⁻³ relative: far beyond repairTol), and records the step
// through the producer's live check (lmpRecorder.step after liveCheck). It
// asserts: the claim recorded is weaker than the LP's by more than
// repairTol; CheckLMPProof accepts the proof with it; it rejects the proof
// with the LP's claim (what the producer recorded before the live check);
// for prices and duals it rejects the claim 10⁻⁹ relative tighter (the
// recorded claim is the checker's bound up to its rounding).
func TestLMPLiveClamp(t *testing.T) {
	ctx := context.Background()
	n := pglibNet(t, "30_ieee")
	dom, _ := n.LoadBand(0.1)
	rules := MarketRules{PriceCap: 1000}
	ev, reason, err := n.lmpBound(ctx, dom, rules, LMPBoundOptions{Checkable: true})
	if err != nil || ev == nil || ev.Proof == nil {
		t.Fatalf("lmpBound: %v %s %s", err, reason, ev.ProofNote)
	}
	p := ev.Proof
	for _, op := range []string{"pi_hi", "pi_lo", "mu_up", "flow_hi"} {
		q := -1
		for i, st := range p.Steps {
			if st.Op == op && st.Y != nil {
				q = i
				break
			}
		}
		if q < 0 {
			t.Fatalf("no %s step in the proof", op)
		}
		st := p.Steps[q]
		// The producer's state just before step q.
		p0 := cloneProof(t, p)
		p0.Steps, p0.Trees, p0.PatternSplits = p0.Steps[:q], nil, nil
		nb, nl := n.NumBuses(), n.NumBranches()
		pev := &LMPEvidence{MuUp: make([]float64, nl), MuLo: make([]float64, nl), FlowLo: make([]float64, nl), FlowHi: make([]float64, nl)}
		piLo, piHi := make([]float64, nb), make([]float64, nb)
		pev.rec = &lmpRecorder{p: p0}
		if _, err := n.liveCheck(dom, rules, pev, piLo, piHi); err != nil {
			t.Fatalf("%s: %v", op, err)
		}
		live := pev.rec.live
		lp := live.lp
		// The step's objective in the checker's program.
		var obj lpdual.Sparse
		switch op {
		case "pi_hi":
			obj = lpdual.Sparse{Idx: []int{live.k.pi[st.K]}, Val: []float64{1}}
		case "pi_lo":
			obj = lpdual.Sparse{Idx: []int{live.k.pi[st.K]}, Val: []float64{-1}}
		case "mu_up":
			obj = lpdual.Sparse{Idx: []int{live.k.muUp[st.K]}, Val: []float64{1}}
		case "flow_hi":
			for q, j := range live.k.m.bfBus[st.K] {
				obj.Idx, obj.Val = append(obj.Idx, live.k.m.theta[j]), append(obj.Val, live.k.m.bfVal[st.K][q])
			}
		}
		u0, err := lpdual.MaxBound(lp, obj, *st.Y, nil)
		if err != nil {
			t.Fatal(err)
		}
		// The row whose columns carry the largest finite boxes.
		row, mass := -1, 0.0
		for i := 0; i < lp.NumRows(); i++ {
			s := 0.0
			for t := lp.RowPtr[i]; t < lp.RowPtr[i+1]; t++ {
				j := lp.Col[t]
				if b := math.Max(math.Abs(lp.Lo[j]), math.Abs(lp.Hi[j])); !math.IsInf(b, 0) {
					s += math.Abs(lp.Val[t]) * b
				}
			}
			if s > mass {
				row, mass = i, s
			}
		}
		delta := 1e-3 * (1 + math.Abs(u0)) / mass
		var y lpdual.Sparse
		u := math.Inf(-1)
		for _, sgn := range []float64{1, -1} {
			yt := lpdual.Sparse{Idx: append([]int(nil), st.Y.Idx...), Val: append([]float64(nil), st.Y.Val...)}
			found := false
			for k, i := range yt.Idx {
				if i == row {
					yt.Val[k] += sgn * delta
					found = true
				}
			}
			if !found {
				yt.Idx, yt.Val = append(yt.Idx, row), append(yt.Val, sgn*delta)
			}
			if ut, err := lpdual.MaxBound(lp, obj, yt, nil); err == nil && ut > u {
				y, u = yt, ut
			}
		}
		if !(u-u0 > 2*repairTol*(1+math.Abs(u0))) {
			t.Fatalf("%s: the perturbed dual proves %v, the recorded one %v: not a test of the defect", op, u, u0)
		}
		pev.rec.y = y
		got, ok := pev.rec.step(st.Op, st.K, st.X)
		if !ok {
			t.Fatalf("%s: the step was refused", op)
		}
		weaker := got > st.X
		if op == "pi_lo" {
			weaker = got < st.X
		}
		if !weaker || math.Abs(got-st.X) <= repairTol*(1+math.Abs(got)) {
			t.Errorf("%s: recorded %v for the LP's claim %v: want weaker by more than repairTol", op, got, st.X)
		}
		check := func(x float64) error {
			p1 := cloneProof(t, p0)
			p1.Steps = append(p1.Steps, LMPStep{Op: st.Op, K: st.K, X: x, Y: &y})
			p1.PerMW = math.MaxFloat64
			_, err := n.CheckLMPProof(ctx, dom, rules, p1)
			return err
		}
		if err := check(got); err != nil {
			t.Errorf("%s: the recorded claim %v does not check: %v", op, got, err)
		}
		if err := check(st.X); err == nil {
			t.Errorf("%s: the LP's claim %v checks with the perturbed dual", op, st.X)
		}
		if op != "flow_hi" {
			tighter := got - 1e-9*(1+math.Abs(got))
			if op == "pi_lo" {
				tighter = got + 1e-9*(1+math.Abs(got))
			}
			if err := check(tighter); err == nil {
				t.Errorf("%s: a claim 10⁻⁹ relative tighter than the recorded %v checks", op, got)
			}
		}
		t.Logf("%s (step %d): the LP's claim %.10g, its dual proves %.10g; perturbed dual: %.10g recorded", op, q, st.X, u0, got)
	}
}
