package accounting

import (
	"math"
	"testing"
)

// TestComposeKTruncated: 100 Gaussian steps (σ = 10, Δ = 1: μ-GDP with μ = 1
// exactly) composed with truncation at 8 against the untruncated ComposeK
// and the closed form GDPDelta. Truncation only moves losses up, so its δ(ε)
// is never below the untruncated one; for ε ≤ 4 the mass moved beyond 8
// changes δ by less than 10⁻⁹, and both stay above the exact δ by at most
// the grid's rounding (k·h in ε).
func TestComposeKTruncated(t *testing.T) {
	const h, k = 1e-3, 100
	p, err := GaussianPLD(10, 1, h)
	if err != nil {
		t.Fatal(err)
	}
	full, err := p.ComposeK(k)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := p.ComposeKTruncated(k, 8)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(tr.Mass); n > int(16/h)+1 {
		t.Errorf("truncated grid has %d points, want ≤ %d", n, int(16/h)+1)
	}
	for _, eps := range []float64{0, 0.5, 1, 2, 3, 4} {
		df, dt := full.Delta(eps), tr.Delta(eps)
		exact := GDPDelta(1, eps)
		// The exact δ can only grow; the computed values differ also by
		// their floating-point error terms (Err: the longer FFT's is larger).
		if dt < df-full.Err {
			t.Errorf("ε = %g: truncated δ %.12g below untruncated %.12g − Err", eps, dt, df)
		}
		if dt-df > 1e-9 {
			t.Errorf("ε = %g: truncation moved δ by %.3g (truncated %.12g, untruncated %.12g)", eps, dt-df, dt, df)
		}
		// Rounding up by ≤ h per step shifts ε by ≤ k·h: δ(ε) ≤ exact δ(ε − k·h).
		if dt < exact || dt > GDPDelta(1, eps-k*h)+1e-9 {
			t.Errorf("ε = %g: truncated δ %.9g outside [exact %.9g, exact at ε − kh %.9g]", eps, dt, exact, GDPDelta(1, eps-k*h))
		}
	}
}

// TestTruncateMovesMassUp: the mass above the cap goes to +∞, the mass below
// −cap to the first grid point at or above −cap, nothing is lost.
func TestTruncateMovesMassUp(t *testing.T) {
	p := &PLD{Step: 0.5, Offset: -6, Mass: []float64{0.1, 0.1, 0.1, 0.2, 0.2, 0.1, 0.1, 0.05, 0.05}, Inf: 0} // losses −3 … 1
	q, err := p.Truncate(0.6)                                                                                // grid points −0.5, 0, 0.5
	if err != nil {
		t.Fatal(err)
	}
	if q.Offset != -1 || len(q.Mass) != 3 {
		t.Fatalf("offset %d, %d points: want −1 and 3", q.Offset, len(q.Mass))
	}
	want := []float64{0.1 + 0.1 + 0.1 + 0.2 + 0.2 + 0.1, 0.1, 0.05} // losses ≤ −0.5 → −0.5; 0; 0.5
	for i := range want {
		if math.Abs(q.Mass[i]-want[i]) > 1e-15 {
			t.Errorf("mass[%d] = %v, want %v", i, q.Mass[i], want[i])
		}
	}
	if math.Abs(q.Inf-0.05) > 1e-15 {
		t.Errorf("Inf = %v, want 0.05 (the mass at loss 1 > 0.6)", q.Inf)
	}
	for _, eps := range []float64{0, 0.25, 0.5} {
		if q.Delta(eps) < p.Delta(eps) {
			t.Errorf("ε = %g: δ fell from %v to %v", eps, p.Delta(eps), q.Delta(eps))
		}
	}
	if _, err := p.Truncate(0); err == nil {
		t.Error("Truncate(0) accepted")
	}
}
