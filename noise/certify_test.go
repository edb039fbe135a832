package noise

import (
	"math"
	"math/rand/v2"
	"testing"
)

// A uniform density on [0, 10) shifted by φ ∈ [0, 1] leaves mass φ/10 uncovered
// and nothing else: the exact maximal shortfall is Δ/10 − δ. The weights 0.1
// are not exact in binary, but the distribution is w/Σw, exactly uniform, so
// δ = 0.1 (float64 0.1000000000000000055…) is certified and the next float64
// below it is not — a decision no float64 computation can make.
func TestCertifyUniformExactBoundary(t *testing.T) {
	edges := make([]float64, 11)
	probs := make([]float64, 10)
	for i := range edges {
		edges[i] = float64(i)
	}
	for i := range probs {
		probs[i] = 0.1
	}
	general, err := NewPiecewiseConstant(edges, probs)
	if err != nil {
		t.Fatal(err)
	}
	idx := make([]int, 21)
	for i := range idx {
		idx[i] = i
	}
	gp := make([]float64, 20)
	for i := range gp {
		gp[i] = 0.05
	}
	grid, _ := newGridPiecewise(0.5, idx, gp)
	for name, d := range map[string]*PiecewiseConstant{"general": general, "grid": grid} {
		c, err := Certify(d, Params{Epsilon: 1, Delta: 0.1, Sensitivity: 1})
		if err != nil {
			t.Fatal(err)
		}
		if !c.Certified || c.MaxShortfall > 0 || c.MaxShortfall < -1e-16 {
			t.Errorf("%s: δ=0.1: certified=%v shortfall=%g, want certified with shortfall in [-1e-16, 0]", name, c.Certified, c.MaxShortfall)
		}
		if math.Abs(c.WorstShift) != 1 {
			t.Errorf("%s: worst shift %v, want ±1", name, c.WorstShift)
		}
		c, _ = Certify(d, Params{Epsilon: 1, Delta: math.Nextafter(0.1, 0), Sensitivity: 1})
		if c.Certified || !(c.MaxShortfall > 0) {
			t.Errorf("%s: δ=prev(0.1): certified=%v shortfall=%g, want not certified", name, c.Certified, c.MaxShortfall)
		}
		c, _ = Certify(d, Params{Epsilon: 1, Delta: 0.05, Sensitivity: 1})
		near(t, name+" shortfall δ=0.05", c.MaxShortfall, 0.05, 1e-15)
	}
}

// Random piecewise-constant densities: the merge sweep agrees with the plain
// pairwise evaluation of Algorithm 2, and Certify's maximal shortfall agrees
// with a dense scan over φ (V is piecewise affine in φ; the scan is below the
// maximum by at most the slope times the step).
func TestCertifyAgainstDenseScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 40; trial++ {
		n := 2 + rng.IntN(12)
		edges := make([]float64, n+1)
		edges[0] = -3 * rng.Float64()
		for i := 1; i <= n; i++ {
			edges[i] = edges[i-1] + 0.05 + rng.Float64()
		}
		probs := make([]float64, n)
		for i := range probs {
			probs[i] = rng.Float64()
		}
		d, err := NewPiecewiseConstant(edges, probs)
		if err != nil {
			t.Fatal(err)
		}
		p := Params{Epsilon: 0.2 + 2*rng.Float64(), Delta: 0.05, Sensitivity: 0.3 + 2*rng.Float64()}
		c, err := Certify(d, p)
		if err != nil {
			t.Fatal(err)
		}
		view := &cellsView{edges: d.edges, dens: make([]float64, n)}
		maxDens := 0.0
		for j := range view.dens {
			view.dens[j] = d.probs[j] / (edges[j+1] - edges[j])
			maxDens = math.Max(maxDens, view.dens[j])
		}
		e := math.Exp(p.Epsilon)
		best := math.Inf(-1)
		const steps = 4000
		for s := 0; s <= steps; s++ {
			phi := -p.Sensitivity + 2*p.Sensitivity*float64(s)/steps
			v, _, _ := view.shortfall(edges[0], edges[n], phi, e, nil)
			vp := view.shortfallPlain(edges[0], edges[n], phi, e)
			if math.Abs(v-vp) > 1e-12 {
				t.Fatalf("trial %d φ=%v: merge %v, plain %v", trial, phi, v, vp)
			}
			best = math.Max(best, v)
		}
		slope := 2 * float64(n+1) * maxDens * (1 + e)
		got := c.MaxShortfall + p.Delta
		if got < best-1e-12 || got > best+slope*2*p.Sensitivity/steps {
			t.Errorf("trial %d: certified max shortfall %v, dense scan %v (slack %v)", trial, got, best, slope*2*p.Sensitivity/steps)
		}
		if c.Certified != (c.MaxShortfall <= 0) {
			t.Errorf("trial %d: Certified=%v with shortfall %v", trial, c.Certified, c.MaxShortfall)
		}
	}
}
