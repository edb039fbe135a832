package opfrelease

import (
	"context"
	"math"
	"sort"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/privopt/privopt/chance"
	"github.com/privopt/privopt/grid"
	"github.com/privopt/privopt/noise"
)

// clopperPearson returns the two-sided Clopper–Pearson interval of a binomial
// proportion k/n at level 1 − a (each tail a/2).
func clopperPearson(k, n int, a float64) (lo, hi float64) {
	if k > 0 {
		lo = distuv.Beta{Alpha: float64(k), Beta: float64(n - k + 1)}.Quantile(a / 2)
	}
	hi = 1
	if k < n {
		hi = distuv.Beta{Alpha: float64(k + 1), Beta: float64(n - k)}.Quantile(1 - a/2)
	}
	return lo, hi
}

// excess returns the largest certified lower bound on P[X ∈ A] − e^ε·P[Y ∈ A]
// over threshold events A = {x > t} and {x < t} (t at the pooled sample's
// 1%, 2%, …, 99% quantiles): with δ = 0 a positive value refutes ε-DP. Every
// probability is bounded by Clopper–Pearson at level 1 − 1e-7 per bound; the
// 2·99·2 events give a false-failure probability below 4e-5 (union bound).
func excess(x, y []float64, eps float64) (worst float64, logRatio float64) {
	pool := append(append([]float64(nil), x...), y...)
	sort.Float64s(pool)
	worst, logRatio = math.Inf(-1), math.Inf(-1)
	count := func(s []float64, t float64, above bool) int {
		c := 0
		for _, v := range s {
			if (above && v > t) || (!above && v < t) {
				c++
			}
		}
		return c
	}
	for q := 1; q < 100; q++ {
		t := pool[q*len(pool)/100]
		for _, above := range []bool{true, false} {
			for _, pair := range [][2][]float64{{x, y}, {y, x}} {
				a, b := pair[0], pair[1]
				pa, _ := clopperPearson(count(a, t, above), len(a), 1e-7)
				_, pb := clopperPearson(count(b, t, above), len(b), 1e-7)
				worst = math.Max(worst, pa-math.Exp(eps)*pb)
				if pa > 0 {
					logRatio = math.Max(logRatio, math.Log(pa/pb))
				}
			}
		}
	}
	return worst, logRatio
}

// releases draws n releases of the program prepared on net.
func releases(t *testing.T, net *grid.Network, opt Options, n int, seed uint64) []float64 {
	t.Helper()
	pr, err := prepareCase(context.Background(), net, opt)
	if err != nil {
		t.Fatal(err)
	}
	src := noise.NewSeededSource(seed)
	out := make([]float64, n)
	for i := range out {
		r, err := pr.releaseOnce(src)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = r.ReleasedValue
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
		return excess(x, y, opt.Epsilon)
	}
	lapEx, lapLR := run(func(o *Options) {})
	optEx, _ := run(func(o *Options) { o.Noise, o.Delta, o.Method = "optimal", 0.1, chance.Robust })
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
