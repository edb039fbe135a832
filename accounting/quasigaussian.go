package accounting

import (
	"fmt"
	"math"
	"sort"

	"github.com/privopt/privopt/noise"
)

// QuasiGaussianProfile returns a rigorous upper bound on the privacy profile
// of the quasi-Gaussian noise d (Liu & Selvi, Definition 2),
//
//	δ(ε′) ≥ sup_{|φ| ≤ Δ} H_φ(ε′),   H_φ(ε′) = ∫(f(x) − e^{ε′}·f(x − φ))⁺ dx,
//
// for use with ProfilePLD (MechanismPLD does so). It needs no quadrature
// tolerance:
//
//   - H_{−φ} = H_φ (f is symmetric) and H_0 = 0, so φ ∈ (0, Δ].
//   - c·f(x) = e^ε·G(x) + G(|x| − Δ), G(y) = e^{−y²/(2σ²)}, and each term is
//     monotone in x between the points 0 and ±Δ, so on a cell [a, b] its
//     maximum and minimum are its values at the clamped mode and at the
//     far end (padded by a relative 10⁻¹², which covers the rounding of
//     math.Exp and of its argument). This gives cell bounds L_i ≤ c·f ≤ U_i
//     on cells of width w covering [−T, T], T = Δ + 12σ (w = σ/(400(1 + Δ/σ)),
//     at most 400,000 cells).
//   - For φ in the window [jw, (j+1)w] and x in cell i, x − φ lies in cell
//     i − j − 1 or i − j, so (f(x) − e^{ε′}f(x − φ))⁺ ≤ (U_i − e^{ε′}·min(L_{i−j−1},
//     L_{i−j}))⁺/c: the window's bound H_j(ε′) = Σ_i w·(U_i − e^{ε′}m_i)⁺/c covers
//     every φ in it. Beyond ±T: the mass P[|X| > T] ≤ 2Q(12)·(e^ε + 1)/(e^ε +
//     2Φ(Δ/σ)) < 10⁻³¹ is added (as 10⁻³⁰).
//   - Per window, the cells are sorted by their bound log-ratio ln(U_i/m_i),
//     so each profile query is a binary search and two suffix sums; the sums
//     are padded by (number of terms + 8)·2⁻⁵³ relative, plus 10⁻¹²·ΣU for
//     cells whose rounded log-ratio falls on the wrong side of ε′.
//
// The bound is tight up to the cell resolution: the log-ratio bound exceeds
// the true one by about (|x| + Δ)·2w/σ² (≈ 0.01 near x = 3σ).
func QuasiGaussianProfile(d *noise.QuasiGaussian) (func(eps float64) (float64, error), error) {
	s, D, e := d.Sigma, d.Sensitivity, d.Epsilon
	if !(s > 0) || !(D > 0) || !(e > 0) {
		return nil, fmt.Errorf("%w: quasi-Gaussian σ = %v, Δ = %v, ε = %v", ErrInvalid, s, D, e)
	}
	w := s / (400 * (1 + D/s))
	T := D + 12*s
	n := int(math.Ceil(2 * T / w))
	if n > 400000 {
		w = 2 * T / 400000
		n = 400000
	}
	const pad = 1e-12
	ee := math.Exp(e)
	g := func(y float64) float64 { return math.Exp(-y * y / (2 * s * s)) }
	// bounds of G(|x| − Δ) and G(x) on [a, b]
	U := make([]float64, n)
	L := make([]float64, n)
	for i := 0; i < n; i++ {
		a := -T + float64(i)*w
		b := a + w
		// G(x): mode 0.
		hi0 := g(math.Max(a, math.Min(0, b)))
		lo0 := math.Min(g(a), g(b))
		// G(|x| − Δ): a function of t = |x| on [tl, tr], mode Δ.
		tl, tr := math.Min(math.Abs(a), math.Abs(b)), math.Max(math.Abs(a), math.Abs(b))
		if a <= 0 && b >= 0 {
			tl = 0
		}
		hi1 := g(math.Max(tl, math.Min(D, tr)) - D)
		lo1 := math.Min(g(tl-D), g(tr-D))
		U[i] = (ee*hi0 + hi1) * (1 + pad)
		L[i] = (ee*lo0 + lo1) * (1 - pad)
	}
	c := math.Sqrt(2*math.Pi) * s * (ee + 2*(&noise.Gaussian{Sigma: 1}).CDF(D/s)) * (1 - pad)
	tail := 1e-30
	windows := int(math.Ceil(D / w))
	type win struct {
		logr []float64 // ascending
		sumU []float64 // suffix sums of w·U/c over cells with log-ratio ≥ logr[k]
		sumM []float64
		inf  float64 // cells with m_i = 0
	}
	ws := make([]win, windows)
	type cell struct{ r, u, m float64 }
	cells := make([]cell, 0, n)
	for j := 0; j < windows; j++ {
		cells = cells[:0]
		var inf float64
		for i := 0; i < n; i++ {
			u := U[i] * w / c
			m := 0.0
			if i-j-1 >= 0 {
				m = math.Min(L[i-j-1], L[i-j]) * w / c
			}
			if m <= 0 {
				inf += u
				continue
			}
			cells = append(cells, cell{math.Log(u / m), u, m})
		}
		sort.Slice(cells, func(a, b int) bool { return cells[a].r < cells[b].r })
		k := len(cells)
		wn := win{logr: make([]float64, k), sumU: make([]float64, k+1), sumM: make([]float64, k+1), inf: inf}
		for t := k - 1; t >= 0; t-- {
			wn.logr[t] = cells[t].r
			wn.sumU[t] = wn.sumU[t+1] + cells[t].u
			wn.sumM[t] = wn.sumM[t+1] + cells[t].m
		}
		ws[j] = wn
	}
	rel := float64(n+8) * unitRoundoff
	return func(eps float64) (float64, error) {
		if !(eps >= 0) {
			return 0, fmt.Errorf("%w: ε is %v, must be ≥ 0", ErrInvalid, eps)
		}
		best := 0.0
		x := math.Exp(eps)
		for j := range ws {
			wn := &ws[j]
			// cells with ln(u/m) > ε contribute u − e^ε m > 0
			t := sort.SearchFloat64s(wn.logr, eps)
			// + 10⁻¹²·ΣU: cells whose rounded log-ratio falls on the
			// wrong side of ε have |u − e^ε m| ≤ 10⁻¹⁴u.
			h := wn.inf + wn.sumU[t] - x*wn.sumM[t]*(1-rel) + 1e-12*wn.sumU[0]
			best = math.Max(best, h*(1+rel))
		}
		return math.Min(1, best+tail), nil
	}, nil
}
