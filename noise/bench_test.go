package noise

import (
	"context"
	"fmt"
	"testing"
)

// benchGrid returns the (1, 0.2), Δ = 1 upper-bound grid with about n cells
// and the truncated-Laplace cell probabilities on it (a realistic density).
func benchGrid(n int) (*grid, []float64) {
	p := Params{Epsilon: 1, Delta: 0.2, Sensitivity: 1}
	lam := SupportRule(p)
	k := max(2, n/(2*lam))
	g := newGrid(p, lam, k, OptimalOptions{}.withDefaults(), false, 1)
	w := make([]float64, len(g.width))
	for j := range w {
		a, b := float64(g.idx[j])/float64(k), float64(g.idx[j+1])/float64(k)
		tl := &TruncatedLaplace{Scale: 1, Bound: float64(lam)}
		w[j] = tl.CDF(b) - tl.CDF(a)
	}
	return g, w
}

// BenchmarkShortfallSearch times one full most-violated-constraint search
// (every shift mβ, |m| ≤ k) by the unit-cell sweep and by probing all cell
// pairs as in Algorithm 2.
func BenchmarkShortfallSearch(b *testing.B) {
	for _, n := range []int{100, 400, 2000} {
		g, w := benchGrid(n)
		v := make([]float64, len(g.shifts))
		ud := make([]float64, len(g.cellOf))
		b.Run(fmt.Sprintf("structured/N=%d", len(g.width)), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				g.shortfalls(w, v, ud, nil)
			}
		})
		if n > 400 { // the pairwise search takes ~16 s per call at N = 2000
			continue
		}
		b.Run(fmt.Sprintf("pairwise/N=%d", len(g.width)), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				g.shortfallsPlain(w, v)
			}
		})
	}
}

// BenchmarkCertify times the exact certificate of an optimized distribution.
func BenchmarkCertify(b *testing.B) {
	for _, n := range []int{100, 400} {
		r, err := Optimize(context.Background(), Params{1, 0.2, 1}, OptimalOptions{Intervals: n, Symmetric: true, SkipLowerBound: true})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("N=%d", r.Intervals), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := Certify(r.Dist, Params{1, 0.2, 1}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkOptimize times both bounds for (1, 0.2), Δ = 1, ℓ₁, symmetric.
func BenchmarkOptimize(b *testing.B) {
	for _, n := range []int{100, 200, 400} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := Optimize(context.Background(), Params{1, 0.2, 1}, OptimalOptions{Intervals: n, Symmetric: true}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
