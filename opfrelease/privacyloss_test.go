package opfrelease

import (
	"context"
	"math"
	"testing"

	"github.com/privopt/privopt/chance"
	"github.com/privopt/privopt/grid"
	"github.com/privopt/privopt/internal/invariance"
	"github.com/privopt/privopt/noise"
	"github.com/privopt/privopt/query"
)

// releases draws n releases of the program prepared on net.
func releases(t *testing.T, net *grid.Network, opt Options, n int, seed uint64) []float64 {
	t.Helper()
	pr, err := prepareCase(context.Background(), net, opt)
	if err != nil {
		t.Fatal(err)
	}
	// Plan.Release solves the program, then adds the noise to its statistic;
	// the statistic is deterministic, so n releases are one solve and n
	// draws of the same procedure (one full release checks the equivalence).
	src := noise.NewSeededSource(seed)
	r0, err := pr.releaseOnce(noise.NewSeededSource(seed))
	if err != nil {
		t.Fatal(err)
	}
	stat := pr.statistic()
	out := make([]float64, n)
	for i := range out {
		v, err := pr.mech.Release(stat, src, noise.ReleaseOptions{})
		if err != nil {
			t.Fatal(err)
		}
		out[i] = v
	}
	if out[0] != r0.ReleasedValue {
		t.Fatalf("a draw of the statistic %v differs from the release %v", out[0], r0.ReleasedValue)
	}
	return out
}

// Empirical privacy loss on the congested configuration (118_ieee at 1.336×
// load, one more MW at bus 42, which moves the released cost by 2.98·c_max):
// 20,000 releases per side with Laplace (ε = 1) and with optimal noise
// ((1, 0.1), robust method) calibrated to the certified sensitivity pass the
// threshold-event test, while Laplace calibrated to the old c_max·α fails it —
// the test has teeth.
func TestEmpiricalPrivacyLossCongested(t *testing.T) {
	if testing.Short() {
		t.Skip("40,000 releases per mechanism; run without -short")
	}
	n := scaled(t, loadNet(t, "118_ieee"), 1.336)
	c2 := *n.Case
	c2.Buses = append([]grid.Bus(nil), n.Case.Buses...)
	c2.Buses[n.Case.BusIndex()[42]].Pd += 1
	n2, err := grid.NewNetwork(&c2, n.Options)
	if err != nil {
		t.Fatal(err)
	}
	dom, _ := n.LoadBand(0.1)
	const draws = 20000
	run := func(mod func(*Options)) (float64, float64) {
		opt := DefaultOptions()
		opt.Domain, opt.ChanceSeed = &dom, 3
		mod(&opt)
		x := releases(t, n, opt, draws, 1)
		y := releases(t, n2, opt, draws, 2)
		return invariance.ThresholdExcess(x, y, opt.Epsilon)
	}
	lapEx, lapLR := run(func(o *Options) {})
	optEx, _ := run(func(o *Options) { o.Mechanism, o.Delta, o.Method = query.Optimal, 0.1, chance.Robust })
	_, c1, _, _ := n.CostCoefficients()
	cmax := 0.0
	for g, c := range c1 {
		if n.Pmax[g] > 0 {
			cmax = math.Max(cmax, c)
		}
	}
	oldEx, oldLR := run(func(o *Options) { o.DeclaredSensitivity = cmax * o.Alpha })
	t.Logf("certified Laplace: excess %.4f, log-ratio lower bound %.3f; optimal (1, 0.1): excess over δ %.4f; c_max·α Laplace: excess %.4f, log-ratio %.3f", lapEx, lapLR, optEx-0.1, oldEx, oldLR)
	if lapEx > 0 {
		t.Errorf("Laplace with the certified sensitivity: P[A] − e^ε P'[A] ≥ %v > 0 (log-ratio ≥ %v)", lapEx, lapLR)
	}
	if optEx > 0.1 {
		t.Errorf("optimal noise: P[A] − e^ε P'[A] ≥ %v > δ = 0.1", optEx)
	}
	if !(oldEx > 0) {
		t.Errorf("the test did not detect the c_max·α calibration (excess %v, log-ratio %v)", oldEx, oldLR)
	}
}
