package main

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/privopt/privopt/noise"
)

// Two cells of the paper's Table 4 (ε = 1, δ ∈ {0.1, 0.2}) recomputed from
// privopt's truncated Laplace E|X| and its certified optimal-noise bounds:
// the certified gap is below 1% (the paper's accuracy), so the midpoint O
// is known to ±0.5%, and the suboptimality matches the paper to ±0.6
// points (measured: 4.62 vs 5.10, 5.36 vs 5.82).
func TestTable4Cells(t *testing.T) {
	cells, err := ReadTable(strings.NewReader(table4))
	if err != nil {
		t.Fatal(err)
	}
	if len(cells) != 100 {
		t.Fatalf("read %d cells, want 100", len(cells))
	}
	checked := 0
	for _, c := range cells {
		if c.Epsilon != 1 || (c.Delta != 0.1 && c.Delta != 0.2) {
			continue
		}
		r, err := Evaluate(context.Background(), c, noise.OptimalOptions{Intervals: 200})
		if err != nil {
			t.Fatal(err)
		}
		if !r.Comparable() {
			t.Fatalf("(%g, %g): certified gap %.3f%% ≥ 1%%", c.Epsilon, c.Delta, 100*r.Gap)
		}
		if math.Abs(r.Ours-c.Paper) > 0.6 {
			t.Errorf("(%g, %g): suboptimality %.2f%%, paper %.2f%% (±0.6 points)", c.Epsilon, c.Delta, r.Ours, c.Paper)
		}
		checked++
	}
	if checked != 2 {
		t.Fatalf("checked %d cells, want 2", checked)
	}
}

// The staircase mixture: its loss is the closed form (1 − δ)·e^{ε/2}/(e^ε − 1)
// + δ·w/2 (w = γ/64, up to the 10⁻⁶ lowering of t and the 10⁻¹³ tail), it
// is certified at δ by an independent call of noise.Certify, and it is not
// (ε, δ/2)-DP (the mixture spends its δ).
func TestMixtureReference(t *testing.T) {
	for _, c := range []struct{ eps, delta float64 }{{5, 0.3}, {5, 0.02}, {2, 0.1}} {
		v, d, err := MixtureReference(c.eps, c.delta)
		if err != nil {
			t.Fatal(err)
		}
		gamma := 1 / (1 + math.Exp(c.eps/2))
		want := (1-c.delta)*math.Exp(c.eps/2)/math.Expm1(c.eps) + c.delta*gamma/128
		t.Logf("(%g, %g): mixture E|X| %.6f, closed form %.6f", c.eps, c.delta, v, want)
		if math.Abs(v-want) > 1e-6*want {
			t.Errorf("(%g, %g): E|X| %v, closed form %v", c.eps, c.delta, v, want)
		}
		p := noise.Params{Epsilon: c.eps, Delta: c.delta, Sensitivity: 1}
		if cert, err := noise.Certify(d, p); err != nil || !cert.Certified {
			t.Errorf("(%g, %g): not certified: %v %+v", c.eps, c.delta, err, cert)
		}
		p.Delta /= 2
		if cert, err := noise.Certify(d, p); err != nil || cert.Certified {
			t.Errorf("(%g, %g): certified at δ/2 too: %v", c.eps, c.delta, err)
		}
	}
}

// The ε = 5 row of Table 4 (δ < ½) with the certified staircase mixture as
// the upper end and the dithered lower bound averaged over 8 offset
// intervals (central event window, k_l = 160): for every O in the certified
// interval the cell is within ±0.6 points of the paper, and the certified
// gap is below 1.6% (measured 1.15–1.50%; round 3: 0.80–7.58%).
func TestTable4Epsilon5(t *testing.T) {
	if testing.Short() {
		t.Skip("8 optimal-noise solves (about 9 s); skipped with -short")
	}
	cells, err := ReadTable(strings.NewReader(table4))
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, c := range cells {
		if c.Epsilon != 5 || c.Delta >= 0.5 {
			continue
		}
		r, err := evaluate(context.Background(), c, noise.OptimalOptions{Intervals: 50, LowerGranularity: 160, DitherIntervals: 8}, true)
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := 100*(r.TruncatedLaplace-r.Upper), 100*(r.TruncatedLaplace-r.Lower)
		t.Logf("(5, %g): [D, P] = [%.5f, %.5f] (mixture %.5f), gap %.2f%%, ours [%.2f, %.2f], paper %.2f", c.Delta, r.Lower, r.Upper, r.Mixture, 100*r.Gap, lo, hi, c.Paper)
		if r.Gap >= 0.016 || lo < c.Paper-0.6 || hi > c.Paper+0.6 {
			t.Errorf("(5, %g): gap %.2f%%, ours [%.2f, %.2f], paper %.2f ± 0.6", c.Delta, 100*r.Gap, lo, hi, c.Paper)
		}
		checked++
	}
	if checked != 8 {
		t.Fatalf("checked %d cells, want 8", checked)
	}
}
