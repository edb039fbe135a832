package grid

import (
	"errors"
	"math"
	"testing"

	"github.com/privopt/privopt/internal/shareddata"
)

func loadNet(t testing.TB, path string, dc DCOptions) *Network {
	t.Helper()
	c, err := ReadCase(path)
	if err != nil {
		t.Fatal(err)
	}
	n, err := NewNetwork(c, dc)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// case2_merit: 100 MW at bus 2 served by 80 MW at 10 $/MWh and up to 100 MW
// at 30 $/MWh through an unlimited line. Over a ±10% domain the total load
// stays in [90, 110] MW, so the 30 $/MWh unit is marginal throughout: the
// certified bound is exactly 30·α, and verifies. Over ±50% the total can
// drop to 50 MW < 80, where the 10 $/MWh unit is marginal: the bound is
// still max(|λ(T_lo)|, |λ(T_hi)|) = 30. With a cap below 30 the merit order
// does not apply and the price-cap bound is returned.
func TestCertifyMeritOrderClosedForm(t *testing.T) {
	n := loadNet(t, "testdata/case2_merit.m", DCOptions{})
	rules := MarketRules{PriceCap: 1000}
	for _, band := range []float64{0.1, 0.5} {
		dom, err := n.LoadBand(band)
		if err != nil {
			t.Fatal(err)
		}
		c, err := n.CertifyCostSensitivity(dom, 2, rules)
		if err != nil {
			t.Fatal(err)
		}
		if c.Method != "uncongested-merit-order" || c.PerMW != 30 || c.Bound != 60 {
			t.Errorf("band %v: %+v, want merit order, 30 $/MWh, bound 60", band, c)
		}
		if err := n.VerifyCostCertificate(c, dom); err != nil {
			t.Error(err)
		}
	}
	dom, _ := n.LoadBand(0.1)
	c, err := n.CertifyCostSensitivity(dom, 2, MarketRules{PriceCap: 25})
	if err != nil {
		t.Fatal(err)
	}
	if c.Method != "price-cap" || c.Bound != 50 || c.Reason == "" {
		t.Errorf("cap below a unit's price: %+v", c)
	}
	// Total load above capacity (200 MW): backstops can be marginal.
	big := LoadDomain{Lo: []float64{0, 190}, Hi: []float64{0, 210}}
	if c, _ := n.CertifyCostSensitivity(big, 1, rules); c.Method != "price-cap" {
		t.Errorf("load beyond capacity: %+v", c)
	}
}

// case3_congested has a line that binds at nominal load: the merit-order
// bound must refuse (and the price-cap bound is returned).
func TestCertifyCongestedFallsBack(t *testing.T) {
	n := loadNet(t, "testdata/case3_congested.m", DCOptions{})
	dom, _ := n.LoadBand(0.1)
	c, err := n.CertifyCostSensitivity(dom, 1, DefaultMarketRules())
	if err != nil {
		t.Fatal(err)
	}
	if c.Method != "price-cap" || c.Bound != 1000 {
		t.Errorf("%+v", c)
	}
	// A forged merit-order certificate is rejected by the dense re-check.
	forged := &CostCertificate{Method: "uncongested-merit-order", Alpha: 1, PerMW: 100, Bound: 100, Rules: DefaultMarketRules()}
	if err := n.VerifyCostCertificate(forged, dom); !errors.Is(err, ErrNotCertified) {
		t.Errorf("forged certificate: %v", err)
	}
}

// The secant piecewise-linear cost overestimates the quadratic by at most
// c2·h²/4 and matches it at the breakpoints.
func TestPiecewiseCosts(t *testing.T) {
	c, err := ReadCase(shareddata.Path(t, "pglib/pglib_opf_case24_ieee_rts.m"))
	if err != nil {
		t.Fatal(err)
	}
	pw, maxErr, err := c.PiecewiseCosts(10)
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for gi, gc := range c.Costs {
		c2, _, _, ok := gc.Quadratic()
		if !ok || c2 == 0 {
			continue
		}
		g := c.Gens[gi]
		h := (g.Pmax - g.Pmin) / 10
		worst := 0.0
		for k := 0; k <= 1000; k++ {
			x := g.Pmin + (g.Pmax-g.Pmin)*float64(k)/1000
			d := pw.Costs[gi].Eval(x) - gc.Eval(x)
			if d < -1e-9*math.Max(1, math.Abs(gc.Eval(x))) {
				t.Fatalf("gen %d: secant below the quadratic at %v by %v", gi+1, x, d)
			}
			worst = math.Max(worst, d)
		}
		if worst > c2*h*h/4*(1+1e-9)+1e-9 {
			t.Errorf("gen %d: overestimate %v > c2 h²/4 = %v", gi+1, worst, c2*h*h/4)
		}
		sum += c2 * h * h / 4
	}
	if sum == 0 || math.Abs(sum-maxErr) > 1e-9*sum {
		t.Errorf("reported max error %v, sum of bounds %v", maxErr, sum)
	}
	if _, _, err := c.PiecewiseCosts(0); err == nil {
		t.Error("0 segments accepted")
	}
}

// The merit-order price lookup is exact: ten segments of 0.1 MW sum to
// 0.9999999999999999 in floating point but to 1.0000000000000000555 exactly,
// so a total load of 1 MW lies in the tenth segment (price 10), which a
// floating-point cumulative sum misses (it finds no segment at all).
func TestMarginalPriceExactSegments(t *testing.T) {
	var segs []MeritSegment
	float := 0.0
	for k := 1; k <= 10; k++ {
		segs = append(segs, MeritSegment{Gen: k, Price: float64(k), Width: 0.1})
		float += 0.1
	}
	if float >= 1 {
		t.Fatalf("the floating-point premise fails: Σ = %v", float)
	}
	if got := marginalPrice(segs, 0, 1); got != 10 {
		t.Errorf("price at T = 1: %v, want 10", got)
	}
	lo, hi := domainTotals(LoadDomain{Lo: []float64{0.1, 0.2}, Hi: []float64{0.1, 0.2}}, nil)
	if !(lo < hi) || lo > 0.3 || hi < 0.30000000000000004 {
		t.Errorf("outward totals of 0.1 + 0.2: [%v, %v]", lo, hi)
	}
}
