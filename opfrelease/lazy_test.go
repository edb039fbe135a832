package opfrelease

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/privopt/privopt/chance"
	"github.com/privopt/privopt/grid"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/highs"
)

// The fast route (lazily monitored limits in PTDF form, decoupled copies
// with the proposed upper copy) returns the same private-program optimum and
// released statistic as the general route (every limit in the B-θ model);
// the reference optimum is the general route's two-copy counterpart solved
// whole by HiGHS, independently of the decoupling. Same uncertainty set
// (ChanceSeed) and the same certified sensitivity on both routes. The
// congested 118 at 1.336× load makes the limits bind.
func TestFastRouteMatchesGeneral(t *testing.T) {
	for _, c := range []struct {
		name  string
		scale float64
	}{{"118_ieee", 1}, {"118_ieee", 1.336}, {"300_ieee", 1}, {"1354_pegase", 1}} {
		n := loadNet(t, c.name)
		if c.scale != 1 {
			n = scaled(t, n, c.scale)
		}
		fast := prepare(t, n, func(o *Options) { o.Limits = grid.LimitsLazy })
		gen := prepare(t, n, func(o *Options) { o.Limits = grid.LimitsAll; o.Formulation = grid.BTheta })
		if !fast.lazy || gen.lazy {
			t.Fatalf("%s: routes not as asked (lazy %v, %v)", c.name, fast.lazy, gen.lazy)
		}
		if !strings.Contains(fast.sol.Solver.Diagnostic, "upper copy proposed") {
			t.Errorf("%s: fast route did not decouple with the proposed upper copy: %q", c.name, fast.sol.Solver.Diagnostic)
		}
		whole, err := highs.New().Solve(context.Background(), gen.sol.Counterpart.Problem, solver.Settings{})
		if err != nil || whole.Status != solver.Optimal {
			t.Fatalf("%s: whole counterpart: %v %v", c.name, whole.Status, err)
		}
		tol := 1e-7 * (1 + math.Abs(whole.Objective))
		if d := math.Abs(fast.sol.Objective - whole.Objective); d > tol {
			t.Errorf("%s ×%v: fast optimum %.8f, whole general counterpart %.8f (diff %.3g)", c.name, c.scale, fast.sol.Objective, whole.Objective, d)
		}
		if d := math.Abs(gen.sol.Objective - whole.Objective); d > tol {
			t.Errorf("%s ×%v: general optimum %.8f, whole %.8f", c.name, c.scale, gen.sol.Objective, whole.Objective)
		}
		df, err1 := fast.Diagnostics(context.Background())
		dg, err2 := gen.Diagnostics(context.Background())
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if d := math.Abs(df.ExpectedValue - dg.ExpectedValue); d > tol {
			t.Errorf("%s ×%v: released statistic fast %.8f, general %.8f", c.name, c.scale, df.ExpectedValue, dg.ExpectedValue)
		}
		if fast.Sensitivity != gen.Sensitivity || fast.Certificate.Method != gen.Certificate.Method {
			t.Errorf("%s: sensitivity fast %v (%s), general %v (%s)", c.name, fast.Sensitivity, fast.Certificate.Method, gen.Sensitivity, gen.Certificate.Method)
		}
		// Every limit holds at both ends of the fast route's rule.
		box := fast.sol.Counterpart.Guarantee.Box[0]
		for _, z := range []float64{box.Lo, box.Hi} {
			x := fast.sol.Rule.Apply(nil, []float64{z})
			for l, f := range flows(fast.priv, fast.dispatch(x), fast.load) {
				if f > fast.priv.FlowMax[l]+1e-5 || f < fast.priv.FlowMin[l]-1e-5 {
					t.Errorf("%s: branch %d flow %v outside [%v, %v] at ζ = %v", c.name, l, f, fast.priv.FlowMin[l], fast.priv.FlowMax[l], z)
				}
			}
		}
		// Evaluate re-solves with every limit, so both routes evaluate the same
		// program: the same mean objective over the same draws.
		ef, err1 := fast.Evaluate(context.Background(), EvalOptions{N: 200, Seed: 3, ProgramOnly: true})
		eg, err2 := gen.Evaluate(context.Background(), EvalOptions{N: 200, Seed: 3, ProgramOnly: true})
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if d := math.Abs(ef.Program.MeanObjective - eg.Program.MeanObjective); d > 1e-6*(1+math.Abs(eg.Program.MeanObjective)) {
			t.Errorf("%s ×%v: evaluated mean objective fast %.6f, general %.6f", c.name, c.scale, ef.Program.MeanObjective, eg.Program.MeanObjective)
		}
		t.Logf("%s ×%v: optimum %.6f (whole %.6f), %d limits monitored, %d solves; evaluated infeasible %.3f / %.3f", c.name, c.scale, fast.sol.Objective, whole.Objective, df.MonitoredLimits, df.Solves, ef.Program.InfeasibleRate, eg.Program.InfeasibleRate)
	}
}

// At market scale the released program's optimum is the market dispatch's
// cost minus the lower end of the noise interval (Prepare's doc: V(d) + θ·W
// with θ = −ζ_lo/W). V(d) is computed independently by grid's nominal
// DC-OPF (SolveDCOPF's automatic route) on the same network with backstops
// and piecewise-linear costs.
func TestFastRouteMarketScale(t *testing.T) {
	for _, name := range []string{"6468_rte", "10000_goc"} {
		n := loadNet(t, name)
		pr := prepare(t, n, nil)
		if !pr.lazy {
			t.Fatalf("%s: the automatic choice is not lazy", name)
		}
		nom, err := pr.priv.SolveDCOPF(context.Background(), grid.DCOPFOptions{OPF: grid.OPFOptions{Load: pr.load}})
		if err != nil || !nom.Status.OK() {
			t.Fatalf("%s: nominal market dispatch: %v", name, err)
		}
		box := pr.sol.Counterpart.Guarantee.Box[0]
		want := nom.Cost - box.Lo
		if d := math.Abs(pr.sol.Objective - want); d > 1e-7*(1+math.Abs(want)) {
			t.Errorf("%s: program optimum %.6f, market dispatch %.6f − ζ_lo %.6f = %.6f (diff %.3g)", name, pr.sol.Objective, nom.Cost, box.Lo, want, d)
		}
		d, err := pr.Diagnostics(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: optimum %.4f, market dispatch %.4f (%s), %d limits monitored, %d solves, prepare %v", name, pr.sol.Objective, nom.Cost, nom.Strategy, d.MonitoredLimits, d.Solves, pr.Timing.Solve)
	}
}

// Options.Limits is validated: lazy limits with Bonferroni (η split over the
// rows) and unknown values are refused, naming the field.
func TestLimitsValidate(t *testing.T) {
	o := DefaultOptions()
	o.Limits = grid.LimitsLazy
	o.Method = chance.Bonferroni
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "bonferroni") {
		t.Errorf("lazy + bonferroni: %v", err)
	}
	o = DefaultOptions()
	o.Limits = grid.Limits(7)
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "Limits is 7") {
		t.Errorf("Limits 7: %v", err)
	}
}
