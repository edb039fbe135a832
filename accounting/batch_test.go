package accounting

import (
	"math"
	"strings"
	"testing"
)

// kovDelta is the exact δ(εt) of k-fold composition of ε-DP randomized
// response (Kairouz, Oh and Viswanath 2015, Thm 3.3, δ = 0):
// Σ_l C(k,l)/(1+e^ε)^k · (e^{ε(k−l)} − e^{εt} e^{εl})⁺.
func kovDelta(eps float64, k int, et float64) float64 {
	s := 0.0
	norm := float64(k) * math.Log1p(math.Exp(eps))
	for l := 0; l <= k; l++ {
		lg1, _ := math.Lgamma(float64(k + 1))
		lg2, _ := math.Lgamma(float64(l + 1))
		lg3, _ := math.Lgamma(float64(k - l + 1))
		lc := lg1 - lg2 - lg3 - norm
		a, b := lc+eps*float64(k-l), lc+et+eps*float64(l)
		if a > b {
			s += math.Exp(a) - math.Exp(b)
		}
	}
	return s
}

func TestDPPLDMatchesOptimalComposition(t *testing.T) {
	for _, c := range []struct {
		eps float64
		k   int
	}{{0.1, 24}, {0.1, 365}, {0.5, 50}} {
		one, err := DPPLD(c.eps, 0, 1e-4)
		if err != nil {
			t.Fatal(err)
		}
		p, err := one.ComposeK(c.k)
		if err != nil {
			t.Fatal(err)
		}
		const delta = 1e-6
		got := p.Epsilon(delta)
		// The exact ε at δ by bisection on the closed form.
		lo, hi := 0.0, c.eps*float64(c.k)
		for hi-lo > 1e-9 {
			m := (lo + hi) / 2
			if kovDelta(c.eps, c.k, m) > delta {
				lo = m
			} else {
				hi = m
			}
		}
		// Upper reference: the exact ε at δ less the PLD's floating-point
		// error bound Err (which Delta adds), plus the rounding k·step.
		lo2, hi2 := 0.0, c.eps*float64(c.k)
		for hi2-lo2 > 1e-9 {
			m := (lo2 + hi2) / 2
			if kovDelta(c.eps, c.k, m) > delta-p.Err {
				lo2 = m
			} else {
				hi2 = m
			}
		}
		if got < hi-1e-8 || got > hi2+float64(c.k)*1e-4+1e-6 {
			t.Errorf("ε %g, k %d: PLD ε %.6f, exact optimal composition %.6f (at δ − Err %.6f, allowed excess k·step = %g)", c.eps, c.k, got, hi, hi2, float64(c.k)*1e-4)
		}
		// On the grid ε·ℤ the composition is exact: within the bisection
		// tolerance of the closed form (at δ and at δ − Err).
		ex, err := DPPLD(c.eps, 0, c.eps)
		if err != nil {
			t.Fatal(err)
		}
		pe, err := ex.ComposeK(c.k)
		if err != nil {
			t.Fatal(err)
		}
		if g := pe.Epsilon(delta); g < hi-1e-8 || g > hi2+1e-6 {
			t.Errorf("ε %g, k %d, step ε: PLD ε %.8f, exact %.8f (at δ − Err %.8f)", c.eps, c.k, g, hi, hi2)
		}
		if d := p.Delta(hi); d < kovDelta(c.eps, c.k, hi)*(1-1e-9) {
			t.Errorf("ε %g, k %d: PLD δ %g below the exact %g: not dominating", c.eps, c.k, d, kovDelta(c.eps, c.k, hi))
		}
	}
}

func TestDPPLDWithDelta(t *testing.T) {
	// One (ε, δ) pair: δ(ε) is exactly δ, and at ε' < ε it is
	// δ + (1−δ)(e^ε − e^{ε'})/(1+e^ε).
	const eps, delta = 0.5, 1e-3
	p, err := DPPLD(eps, delta, 1e-3)
	if err != nil {
		t.Fatal(err)
	}
	if d := p.Delta(eps); math.Abs(d-delta) > 1e-12 {
		t.Errorf("δ(ε) = %g, want %g", d, delta)
	}
	want := delta + (1-delta)*(math.Exp(eps)-math.Exp(0.2))/(1+math.Exp(eps))
	if d := p.Delta(0.2); math.Abs(d-want) > 1e-12 {
		t.Errorf("δ(0.2) = %g, want %g", d, want)
	}
	if _, err := DPPLD(0, 0, 1e-3); err == nil || !strings.Contains(err.Error(), "epsilon is 0") {
		t.Errorf("ε = 0 accepted: %v", err)
	}
}

func TestPLDBatchFilter(t *testing.T) {
	f, err := FilterByName("pld-batch(delta=1e-7)")
	if err != nil {
		t.Fatal(err)
	}
	pf := f.(PLDBatchFilter)
	if pf.Name() != "pld-batch(delta=1e-07)" && pf.Name() != "pld-batch(delta=1e-7)" {
		t.Errorf("name %q", pf.Name())
	}
	if g, err := FilterByName(pf.Name()); err != nil || g != f {
		t.Errorf("FilterByName(Name()) = %v, %v", g, err)
	}
	b := Budget{Epsilon: 12, Delta: 1e-6}
	if err := pf.Check(b); err != nil {
		t.Fatal(err)
	}
	if err := pf.Check(Budget{Epsilon: 1}); err == nil {
		t.Error("a budget with δ = 0 accepted: no batch could be charged")
	}
	for _, bad := range []string{"pld-batch(delta=0)", "pld-batch(delta=1)", "pld-batch(delta=x)"} {
		if _, err := FilterByName(bad); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
	// 365 releases at ε = 0.1: basic needs 36.5; the batch charge is the
	// optimal composition (about 11.2 at δ = 1e-7), and fits 12.
	c, stmt, err := pf.BatchCharge(Charge{Cost: Cost{Epsilon: 0.1}}, 365)
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := 0.0, 36.5
	for hi-lo > 1e-9 {
		m := (lo + hi) / 2
		if kovDelta(0.1, 365, m) > 1e-7 {
			lo = m
		} else {
			hi = m
		}
	}
	// The charge is the exact optimal composition (within the bisection
	// tolerance and the FFT error bound Err, 10⁻⁵ relative here).
	if c.Delta != 1e-7 || c.Epsilon < hi-1e-8 || c.Epsilon > hi*(1+1e-5) || !strings.Contains(stmt, "PLD composition") {
		t.Errorf("batch charge %+v (%s), want ε %g at δ 1e-7", c, stmt, hi)
	}
	s, ok, err := pf.Add(b, "", Charge{Cost: c})
	if err != nil || !ok {
		t.Fatalf("batch refused: %v", err)
	}
	if _, ok, _ := pf.Add(b, s, Charge{Cost: c}); ok {
		t.Error("a second batch of ε ≈ 11.2 admitted under ε 12")
	}
	// Small batches: basic composition is no larger (δ 0 < δ 1e-7 and ε
	// about equal) only when PLD does not win on ε.
	c2, stmt2, err := pf.BatchCharge(Charge{Cost: Cost{Epsilon: 1}}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if c2 != (Cost{Epsilon: 2}) || !strings.Contains(stmt2, "basic composition") {
		t.Errorf("2 releases of ε 1: charge %+v (%s), want basic (2, 0)", c2, stmt2)
	}
	// γ adds up.
	c3, _, _ := pf.BatchCharge(Charge{Cost: Cost{Epsilon: 0.1, Gamma: 1e-4}}, 100)
	if c3.Gamma != 100*1e-4 && math.Abs(c3.Gamma-1e-2) > 1e-17 {
		t.Errorf("γ of 100 releases: %g, want 0.01", c3.Gamma)
	}
}

// A discrete Gaussian curve: the RDP filter charges it like a Gaussian one
// (α μ²/2, the discrete Gaussian's zCDP), the Gaussian-DP filter refuses it
// with the reason, the Gaussian curve of the same μ is admitted.
func TestDiscreteGaussianCurve(t *testing.T) {
	dg := Charge{Cost: Cost{Epsilon: 0.5, Delta: 1e-8}, Curve: &Curve{Kind: CurveDiscreteGaussian, Value: 0.1}}
	g := Charge{Cost: dg.Cost, Curve: &Curve{Kind: "gaussian", Value: 0.1}}
	r := RDPFilter{Alpha: 16}
	a, err := r.RDP(dg)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := r.RDP(g); a != b || math.Abs(a-16*0.1*0.1/2) > 1e-12 {
		t.Errorf("RDP of the discrete Gaussian curve %g, of the Gaussian %g, want 0.08", a, b)
	}
	bud := Budget{Epsilon: 1, Delta: 1e-6}
	if _, _, err := (GDPFilter{}).Add(bud, "", dg); err == nil || !strings.Contains(err.Error(), "discrete Gaussian") || !strings.Contains(err.Error(), "rdp(alpha=A)") {
		t.Errorf("GDP filter on a discrete Gaussian curve: %v", err)
	}
	if _, ok, err := (GDPFilter{}).Add(bud, "", g); err != nil || !ok {
		t.Errorf("GDP filter on a Gaussian curve: %v %v", ok, err)
	}
	if err := (&Curve{Kind: "discrete", Value: 1}).Validate(); err == nil {
		t.Error("an unknown curve kind validated")
	}
}

// Gaussian batches: an exactly Gaussian curve is charged by GDP composition
// (the GDP curve at the charged ε is within δ, just below it is not), a
// discrete Gaussian curve by zCDP composition (at most the closed form
// ρ + 2√(ρ ln(1/δ)) and at least the GDP charge of the same μ), both far
// below the generic (ε, δ) pair's PLD.
func TestBatchChargeGaussian(t *testing.T) {
	pf := PLDBatchFilter{Delta: 1e-7}
	base := Cost{Epsilon: 0.1, Delta: 1e-10}
	const mu, k = 0.0155, 365
	g, gs, err := pf.BatchCharge(Charge{Cost: base, Curve: &Curve{Kind: "gaussian", Value: mu}}, k)
	if err != nil {
		t.Fatal(err)
	}
	M := mu * math.Sqrt(k)
	if !strings.Contains(gs, "GDP composition") || GDPDelta(M, g.Epsilon) > 1e-7 || GDPDelta(M, g.Epsilon*(1-1e-6)) <= 1e-7 {
		t.Errorf("Gaussian batch %+v (%s): δ_μ(ε) = %g", g, gs, GDPDelta(M, g.Epsilon))
	}
	d, ds, err := pf.BatchCharge(Charge{Cost: base, Curve: &Curve{Kind: CurveDiscreteGaussian, Value: mu}}, k)
	if err != nil {
		t.Fatal(err)
	}
	rho := k * mu * mu / 2
	closed := rho + 2*math.Sqrt(rho*math.Log(1e7))
	if !strings.Contains(ds, "zCDP composition") || d.Epsilon > closed*(1+1e-9) || d.Epsilon < g.Epsilon || d.Delta != 1e-7 {
		t.Errorf("discrete Gaussian batch %+v (%s), closed form %g, GDP %g", d, ds, closed, g.Epsilon)
	}
	p, _, err := pf.BatchCharge(Charge{Cost: base}, k)
	if err != nil {
		t.Fatal(err)
	}
	if !(p.Epsilon > 3*d.Epsilon) {
		t.Errorf("generic pair %g is not far above the curve-based charges %g, %g", p.Epsilon, g.Epsilon, d.Epsilon)
	}
	t.Logf("365 releases (ε 0.1, δ 1e-10, μ %g) at δ 1e-7: basic 36.5, generic PLD %.4g, discrete Gaussian zCDP %.4g, Gaussian GDP %.4g", mu, p.Epsilon, d.Epsilon, g.Epsilon)
}
