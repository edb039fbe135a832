package grid

import (
	"context"
	"math"
	"testing"

	"github.com/privopt/privopt/internal/shareddata"
)

// pglibDCBaseline holds the PGLib-OPF DC objectives ($/h, 5 significant digits)
// published in the pglib-opf BASELINE.md (PowerModels.jl v0.19.1 DC model, PGLib
// v21.07).
var pglibDCBaseline = map[string]float64{
	"pglib_opf_case5_pjm": 1.7480e+04, "pglib_opf_case14_ieee": 2.0515e+03,
	"pglib_opf_case24_ieee_rts": 6.1001e+04, "pglib_opf_case30_ieee": 7.4728e+03,
	"pglib_opf_case57_ieee": 3.4773e+04, "pglib_opf_case89_pegase": 1.0504e+05,
	"pglib_opf_case118_ieee": 9.3101e+04, "pglib_opf_case300_ieee": 5.1785e+05,
	"pglib_opf_case1354_pegase": 1.2182e+06, "pglib_opf_case2383wp_k": 1.8041e+06,
}

// baselineTol is max(0.05%, half a unit in the 5th significant digit).
func baselineTol(b float64) float64 {
	unit := math.Pow(10, math.Floor(math.Log10(math.Abs(b)))-4)
	return math.Max(5e-4*math.Abs(b), unit/2)
}

func solveCase(t testing.TB, path string, dc DCOptions, f Formulation) (*Network, *OPFSolution) {
	t.Helper()
	n := loadNet(t, path, dc)
	o, err := n.BuildOPF(OPFOptions{Formulation: f})
	if err != nil {
		t.Fatal(err)
	}
	s, err := o.Solve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !s.Status.OK() {
		t.Fatalf("%s: status %v", n.Case.Name, s.Status)
	}
	return n, s
}

// TestOPFBaselines reproduces the PGLib DC baselines for the cases up to 300
// buses in both formulations (the two larger cases run in bench/opf).
func TestOPFBaselines(t *testing.T) {
	for _, name := range []string{"pglib_opf_case5_pjm", "pglib_opf_case14_ieee", "pglib_opf_case24_ieee_rts",
		"pglib_opf_case30_ieee", "pglib_opf_case57_ieee", "pglib_opf_case89_pegase", "pglib_opf_case118_ieee", "pglib_opf_case300_ieee"} {
		path := shareddata.Path(t, "pglib/"+name+".m")
		for _, f := range []Formulation{PTDF, BTheta} {
			n, s := solveCase(t, path, PowerModelsDC(), f)
			b := pglibDCBaseline[name]
			if d := math.Abs(s.Cost - b); d > baselineTol(b) {
				t.Errorf("%s (%v): cost %.6g, baseline %.5g (rel. diff %.3g%%)", name, f, s.Cost, b, 100*d/b)
			}
			// The reported cost is the cost of the reported dispatch.
			var cost float64
			for g, p := range s.Dispatch {
				cost += n.Case.Costs[n.Gen[g]].Eval(p)
			}
			if math.Abs(cost-s.Cost) > 1e-6*b {
				t.Errorf("%s: objective %v, cost of dispatch %v", name, s.Cost, cost)
			}
			checkDispatchFeasible(t, name, n, s, nil)
		}
	}
}

// checkDispatchFeasible re-derives the flows with an independent DC power flow and
// checks balance, generator limits and flow limits.
func checkDispatchFeasible(t *testing.T, name string, n *Network, s *OPFSolution, load []float64) {
	t.Helper()
	if load == nil {
		load = n.Load
	}
	var sum float64
	for g, p := range s.Dispatch {
		sum += p
		if p < n.Pmin[g]-1e-6 || p > n.Pmax[g]+1e-6 {
			t.Errorf("%s: gen %d at %v outside [%v, %v]", name, g, p, n.Pmin[g], n.Pmax[g])
		}
	}
	for _, d := range load {
		sum -= d
	}
	if math.Abs(sum) > 1e-6*math.Max(1, math.Abs(sum)) {
		t.Errorf("%s: dispatch unbalanced by %v MW", name, sum)
	}
	for l, f := range s.Flow {
		if f > n.FlowMax[l]+1e-5*math.Max(1, n.FlowMax[l]) || f < n.FlowMin[l]-1e-5*math.Max(1, -n.FlowMin[l]) {
			t.Errorf("%s: branch %d flow %v outside [%v, %v]", name, l, f, n.FlowMin[l], n.FlowMax[l])
		}
	}
}

// TestOPFCongestedHand checks testdata/case3_congested.m against its hand
// solution (see the file): cost 1500 $/h, p = (75, 15), LMP = (10, 30, 50).
func TestOPFCongestedHand(t *testing.T) {
	for _, f := range []Formulation{PTDF, BTheta} {
		_, s := solveCase(t, "testdata/case3_congested.m", DCOptions{}, f)
		if !near(s.Cost, 1500, 1e-7) || !near(s.Dispatch[0], 75, 1e-7) || !near(s.Dispatch[1], 15, 1e-7) {
			t.Errorf("%v: cost %v dispatch %v", f, s.Cost, s.Dispatch)
		}
		for i, want := range []float64{10, 30, 50} {
			if !near(s.LMP[i], want, 1e-6) {
				t.Errorf("%v: LMP %v, want 10, 30, 50", f, s.LMP)
				break
			}
		}
		if !near(s.Flow[1], 50, 1e-7) {
			t.Errorf("%v: flow 1-3 = %v, want 50", f, s.Flow[1])
		}
	}
}

// TestLMPFiniteDifference checks LMP_i = ∂cost/∂Load_i by re-solving with the load
// at bus i raised by 10⁻³ MW, on congested PGLib cases, for both formulations.
func TestLMPFiniteDifference(t *testing.T) {
	for _, name := range []string{"pglib_opf_case5_pjm", "pglib_opf_case24_ieee_rts", "pglib_opf_case57_ieee"} {
		path := shareddata.Path(t, "pglib/"+name+".m")
		for _, f := range []Formulation{PTDF, BTheta} {
			n, s := solveCase(t, path, PowerModelsDC(), f)
			const h = 1e-3
			spread := 0.0
			for i := 0; i < n.NumBuses(); i += max(1, n.NumBuses()/8) {
				load := append([]float64(nil), n.Load...)
				load[i] += h
				o, err := n.BuildOPF(OPFOptions{Formulation: f, Load: load})
				if err != nil {
					t.Fatal(err)
				}
				s2, err := o.Solve(context.Background())
				if err != nil || !s2.Status.OK() {
					t.Fatalf("%v %v", err, s2.Status)
				}
				fd := (s2.Cost - s.Cost) / h
				// A quadratic cost adds O(h) curvature: allow 1e-3 $/MWh + 1e-4 rel.
				if math.Abs(fd-s.LMP[i]) > 1e-3+1e-4*math.Abs(fd) {
					t.Errorf("%s %v bus %d: LMP %v, finite difference %v", name, f, n.BusID[i], s.LMP[i], fd)
				}
				spread = math.Max(spread, math.Abs(s.LMP[i]-s.LMP[0]))
			}
			if name == "pglib_opf_case5_pjm" && spread < 1 {
				t.Errorf("%s: LMPs do not differ (spread %v), the case should be congested", name, spread)
			}
		}
	}
}

func BenchmarkOPF(b *testing.B) {
	for _, name := range []string{"pglib_opf_case300_ieee", "pglib_opf_case1354_pegase", "pglib_opf_case2383wp_k"} {
		c, err := ReadCase(shareddata.Path(b, "pglib/"+name+".m"))
		if err != nil {
			b.Fatal(err)
		}
		n, err := NewNetwork(c, PowerModelsDC())
		if err != nil {
			b.Fatal(err)
		}
		for _, f := range []Formulation{PTDF, BTheta} {
			b.Run(name+"/"+f.String(), func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					o, err := n.BuildOPF(OPFOptions{Formulation: f})
					if err != nil {
						b.Fatal(err)
					}
					if _, err := o.Solve(context.Background()); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// TestOPFIslands checks testdata/case_islands.m (two islands, hand solution in
// the file): one reference bus per island, per-island balance and prices.
func TestOPFIslands(t *testing.T) {
	for _, f := range []Formulation{PTDF, BTheta} {
		n, s := solveCase(t, "testdata/case_islands.m", DCOptions{}, f)
		if len(n.RefBus) != 2 || n.BusID[n.RefBus[1]] != 3 {
			t.Fatalf("reference buses %v (want bus 1 and bus 3, the largest generator of island 2)", n.RefBus)
		}
		if !near(s.Cost, 1900, 1e-9) {
			t.Errorf("%v: cost %v, want 1900", f, s.Cost)
		}
		for i, want := range []float64{10, 10, 20, 30} {
			if !near(s.LMP[i], want, 1e-6) {
				t.Errorf("%v: LMP %v, want 10 10 20 30", f, s.LMP)
				break
			}
		}
		checkDispatchFeasible(t, "islands", n, s, nil)
	}
}

// TestOPFPiecewiseLinear solves testdata/case_features.m, whose generator at bus
// 45 has a convex piecewise-linear cost, and checks that the objective equals the
// cost of the dispatch evaluated on the original curves.
func TestOPFPiecewiseLinear(t *testing.T) {
	for _, f := range []Formulation{PTDF, BTheta} {
		n, s := solveCase(t, "testdata/case_features.m", DCOptions{}, f)
		var cost float64
		for g, p := range s.Dispatch {
			cost += n.Case.Costs[n.Gen[g]].Eval(p)
		}
		if !near(cost, s.Cost, 1e-8) {
			t.Errorf("%v: objective %v, cost of dispatch %v", f, s.Cost, cost)
		}
		checkDispatchFeasible(t, "features", n, s, nil)
	}
}

func TestFormulationAuto(t *testing.T) {
	small := loadNet(t, "testdata/case3_congested.m", DCOptions{})
	o, err := small.BuildOPF(OPFOptions{})
	if err != nil || o.Options.Formulation != PTDF || o.Theta != nil {
		t.Errorf("3 buses: %v %v", o.Options.Formulation, err)
	}
	big := loadNet(t, shareddata.Path(t, "pglib/pglib_opf_case118_ieee.m"), PowerModelsDC())
	o, err = big.BuildOPF(OPFOptions{})
	if err != nil || o.Options.Formulation != BTheta || o.Theta == nil {
		t.Errorf("118 buses: %v %v", o.Options.Formulation, err)
	}
	for _, s := range []string{"auto", "ptdf", "b-theta"} {
		if f, err := ParseFormulation(s); err != nil || f.String() != s {
			t.Errorf("%q: %v %v", s, f, err)
		}
	}
	if _, err := ParseFormulation("dense"); err == nil {
		t.Error("unknown formulation accepted")
	}
	if _, err := small.BuildOPF(OPFOptions{Load: []float64{1}}); err == nil {
		t.Error("load of wrong length accepted")
	}
}

// OmitFlowLimits builds the relaxation without flow rows; adding the one
// limit of case3_congested back with AddFlowLimit gives the hand-solved
// congested optimum (1,500 $/h; the file's comment), and without it every MW
// comes from the cheap unit (90 MW × 10 $/MWh = 900 $/h). Both formulations.
func TestOmitFlowLimits(t *testing.T) {
	c, err := ReadCase("testdata/case3_congested.m")
	if err != nil {
		t.Fatal(err)
	}
	n, err := NewNetwork(c, DCOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []Formulation{PTDF, BTheta} {
		o, err := n.BuildOPF(OPFOptions{Formulation: f, OmitFlowLimits: true})
		if err != nil {
			t.Fatal(err)
		}
		if o.Network != n || !o.Options.OmitFlowLimits {
			t.Fatalf("%v: the relaxation does not point at the network", f)
		}
		s, err := o.Solve(context.Background())
		if err != nil || math.Abs(s.Cost-900) > 1e-6 {
			t.Errorf("%v: relaxation cost %v (%v), want 900", f, s.Cost, err)
		}
		if err := o.AddFlowLimit([]int{1}, []float64{1}, n.FlowMin[1], n.FlowMax[1], "limit_1_3"); err != nil {
			t.Fatal(err)
		}
		if s, err = o.Solve(context.Background()); err != nil || math.Abs(s.Cost-1500) > 1e-6 {
			t.Errorf("%v: with the limit added, cost %v (%v), want 1500", f, s.Cost, err)
		}
	}
}
