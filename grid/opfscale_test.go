package grid

import (
	"context"
	"math"
	"testing"

	"github.com/privopt/privopt/internal/shareddata"
)

// TestSolveDCOPFConfigs solves 118_ieee, 300_ieee and 2383wp_k with every
// configuration of SolveDCOPF: each reproduces the PGLib DC baseline, the
// dispatch passes an independent power-flow check, and the LMPs of the lazy
// models (whose congestion prices come from AddFlowLimit rows) equal those of
// BuildOPF's full B-θ model.
func TestSolveDCOPFConfigs(t *testing.T) {
	for _, name := range []string{"pglib_opf_case118_ieee", "pglib_opf_case300_ieee", "pglib_opf_case2383wp_k"} {
		c, err := ReadCase(shareddata.Path(t, "pglib/"+name+".m"))
		if err != nil {
			t.Fatal(err)
		}
		n, err := NewNetwork(c, PowerModelsDC())
		if err != nil {
			t.Fatal(err)
		}
		ref, err := n.SolveDCOPF(context.Background(), DCOPFOptions{OPF: OPFOptions{Formulation: BTheta}, Limits: LimitsAll, Method: MethodIPM})
		if err != nil || !ref.Status.OK() {
			t.Fatalf("%s: reference: %v %v", name, err, ref)
		}
		b := pglibDCBaseline[name]
		for _, f := range []Formulation{PTDF, BTheta} {
			for _, l := range []Limits{LimitsAll, LimitsLazy} {
				for _, m := range []Method{MethodHiGHS, MethodIPM, MethodAuto} {
					if f == PTDF && l == LimitsAll && n.NumBuses() > 1000 {
						continue // a PTDF column per generator: covered by BuildOPF's tests
					}
					opt := DCOPFOptions{OPF: OPFOptions{Formulation: f}, Limits: l, Method: m}
					s, err := n.SolveDCOPF(context.Background(), opt)
					if err != nil {
						t.Fatal(err)
					}
					cfg := s.Strategy.String()
					if !s.Status.OK() {
						t.Errorf("%s %s: status %v", name, cfg, s.Status)
						continue
					}
					if d := math.Abs(s.Cost - b); d > baselineTol(b) {
						t.Errorf("%s %s: cost %.6g, baseline %.5g", name, cfg, s.Cost, b)
					}
					if d := math.Abs(s.Cost - ref.Cost); d > 1e-6*ref.Cost {
						t.Errorf("%s %s: cost %.10g, B-θ/all/IPM %.10g", name, cfg, s.Cost, ref.Cost)
					}
					checkDispatchScaled(t, name+" "+cfg, n, s.OPFSolution)
					var worst float64
					for i := range s.LMP {
						worst = math.Max(worst, math.Abs(s.LMP[i]-ref.LMP[i])/math.Max(1, math.Abs(ref.LMP[i])))
					}
					if worst > 1e-4 {
						t.Errorf("%s %s: LMPs differ from B-θ/all/IPM by %.3g (relative)", name, cfg, worst)
					}
					if l == LimitsLazy && len(s.Monitored) == 0 && name != "pglib_opf_case300_ieee" {
						t.Errorf("%s %s: no limit added lazily", name, cfg)
					}
				}
			}
		}
	}
}

// TestSolveDCOPFMarketScale: the automatic choice on 10000_goc reproduces the
// PGLib DC baseline (1,346,113 $/h with quadratic costs) to 0.01%, and on
// 6468_rte (no published DC baseline in the case file) agrees with the full
// B-θ model solved by privopt's IPM, another formulation and limit handling.
func TestSolveDCOPFMarketScale(t *testing.T) {
	for _, tc := range []struct {
		name     string
		baseline float64
	}{{"pglib_opf_case10000_goc", 1346113}, {"pglib_opf_case6468_rte", 0}} {
		c, err := ReadCase(shareddata.Path(t, "pglib/"+tc.name+".m"))
		if err != nil {
			t.Fatal(err)
		}
		n, err := NewNetwork(c, PowerModelsDC())
		if err != nil {
			t.Fatal(err)
		}
		s, err := n.SolveDCOPF(context.Background(), DCOPFOptions{})
		if err != nil || !s.Status.OK() {
			t.Fatalf("%s: %v %v", tc.name, err, s)
		}
		want := tc.baseline
		if want == 0 {
			r, err := n.SolveDCOPF(context.Background(), DCOPFOptions{OPF: OPFOptions{Formulation: BTheta}, Limits: LimitsAll, Method: MethodIPM})
			if err != nil || !r.Status.OK() {
				t.Fatalf("%s: reference: %v %v", tc.name, err, r)
			}
			want = r.Cost
		}
		if d := math.Abs(s.Cost-want) / want; d > 1e-4 {
			t.Errorf("%s (%v): cost %.2f, want %.2f (rel. diff %.3g)", tc.name, s.Strategy, s.Cost, want, d)
		}
		checkDispatchScaled(t, tc.name, n, s.OPFSolution)
		t.Logf("%s: %v, cost %.2f, %d rounds, %d limits added", tc.name, s.Strategy, s.Cost, s.Rounds, len(s.Monitored))
	}
}

// TestAutoStrategy pins the measured rule of AutoStrategy.
func TestAutoStrategy(t *testing.T) {
	small, err := ReadCase("testdata/case3_congested.m")
	if err != nil {
		t.Fatal(err)
	}
	ns, err := NewNetwork(small, DCOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := AutoStrategy(ns, DCOPFOptions{}); got != (Strategy{PTDF, LimitsAll, MethodHiGHS, ""}) {
		t.Errorf("3 buses: %v", got)
	}
	big := &Network{BusID: make([]int, 5000), Gen: make([]int, 2000), Case: &Case{Costs: make([]GenCost, 2000)}}
	for g := range big.Gen {
		big.Gen[g] = g
		big.Case.Costs[g] = GenCost{Model: Polynomial, Coeffs: []float64{0.01, 10, 0}}
	}
	if got := AutoStrategy(big, DCOPFOptions{}); got != (Strategy{BTheta, LimitsAll, MethodIPM, ""}) {
		t.Errorf("5000 buses, 2000 quadratic generators: %v", got)
	}
	if got := AutoStrategy(big, DCOPFOptions{OPF: OPFOptions{LinearCost: true}}); got != (Strategy{PTDF, LimitsLazy, MethodHiGHS, "off"}) {
		t.Errorf("5000 buses, linear costs: %v", got)
	}
	big.Gen, big.Case.Costs = big.Gen[:500], big.Case.Costs[:500]
	if got := AutoStrategy(big, DCOPFOptions{}); got != (Strategy{PTDF, LimitsLazy, MethodHiGHS, "off"}) {
		t.Errorf("5000 buses, 500 generators: %v", got)
	}
}

// checkDispatchScaled is checkDispatchFeasible with the power balance checked
// relative to the total load (1e-8): an interior-point solution's residuals are
// relative to the data, which reach 10⁴–10⁵ MW on these cases.
func checkDispatchScaled(t *testing.T, name string, n *Network, s *OPFSolution) {
	t.Helper()
	var sum, total float64
	for _, p := range s.Dispatch {
		sum += p
	}
	for _, d := range n.Load {
		sum -= d
		total += math.Abs(d)
	}
	if math.Abs(sum) > 1e-8*total {
		t.Errorf("%s: dispatch unbalanced by %v MW (total load %v MW)", name, sum, total)
	}
	shifted := *s
	shifted.Dispatch = append([]float64(nil), s.Dispatch...)
	// Put the (tolerated) imbalance on the largest generator so that the
	// remaining checks of checkDispatchFeasible (limits, flows) apply unchanged.
	big := 0
	for g := range shifted.Dispatch {
		if n.Pmax[g]-shifted.Dispatch[g] > n.Pmax[big]-shifted.Dispatch[big] {
			big = g
		}
	}
	shifted.Dispatch[big] -= sum
	checkDispatchFeasible(t, name, n, &shifted, nil)
}

// TestSolveDCOPFAutoBaselines: the automatic choice reproduces every bundled
// PGLib DC baseline (5 to 2383 buses; piecewise-linear costs included).
func TestSolveDCOPFAutoBaselines(t *testing.T) {
	for name, b := range pglibDCBaseline {
		c, err := ReadCase(shareddata.Path(t, "pglib/"+name+".m"))
		if err != nil {
			t.Fatal(err)
		}
		n, err := NewNetwork(c, PowerModelsDC())
		if err != nil {
			t.Fatal(err)
		}
		s, err := n.SolveDCOPF(context.Background(), DCOPFOptions{})
		if err != nil || !s.Status.OK() {
			t.Fatalf("%s: %v %v", name, err, s)
		}
		if d := math.Abs(s.Cost - b); d > baselineTol(b) {
			t.Errorf("%s (%v): cost %.6g, baseline %.5g", name, s.Strategy, s.Cost, b)
		}
		t.Logf("%s: %v, %.2f, %d rounds", name, s.Strategy, s.Cost, s.Rounds)
		checkDispatchScaled(t, name, n, s.OPFSolution)
	}
}
