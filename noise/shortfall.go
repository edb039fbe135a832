package noise

import (
	"math"
	"sort"
)

// cellsView is a piecewise-constant density for the privacy-shortfall sweep:
// cell j is [edges[j], edges[j+1]) with density dens[j].
type cellsView struct {
	edges []float64
	dens  []float64
}

// shortfall evaluates, for the shift φ and the multiplier e = e^ε,
//
//	V(φ) = ∫_{[lo,hi)} (f(x) − e·f(x − φ))⁺ dx = max_A P[X∈A] − e·P[X+φ∈A]
//
// over events A ⊆ [lo, hi), by one merge of the edges with the shifted edges
// (O(N), the structured search of Lemma C.17 in Selvi, Liu & Wiesemann: only
// overlapping cell pairs are visited). The worst-case event A* is the union of
// the merged segments where the integrand is positive. If row is non-nil,
// row[j] accumulates the coefficient of p_j in the DP constraint of (φ, A*):
// |A*∩Π_j|/|Π_j| − e·|A*∩(Π_j+φ)|/|Π_j|.
//
// a1 = Σ_segments (f + e·f_φ) and a2 = Σ_segments len·(f + e·f_φ) feed the
// floating-point error bound of Certify.
func (c *cellsView) shortfall(lo, hi, phi, e float64, row []float64) (v, a1, a2 float64) {
	a := c.edges
	n := len(a) - 1
	x := lo
	i := sort.Search(n+1, func(j int) bool { return a[j] > x }) - 1
	k := sort.Search(n+1, func(j int) bool { return a[j]+phi > x }) - 1
	inf := math.Inf(1)
	for x < hi {
		na, nb := inf, inf
		if i+1 <= n {
			na = a[i+1]
		}
		if k+1 <= n {
			nb = a[k+1] + phi
		}
		y := math.Min(math.Min(na, nb), hi)
		if y > x {
			var fi, gk float64
			if i >= 0 && i < n {
				fi = c.dens[i]
			}
			if k >= 0 && k < n {
				gk = c.dens[k]
			}
			a1 += fi + e*gk
			a2 += (y - x) * (fi + e*gk)
			if t := fi - e*gk; t > 0 {
				v += (y - x) * t
				if row != nil {
					row[i] += (y - x) / (a[i+1] - a[i])
					if k >= 0 && k < n {
						row[k] -= e * (y - x) / (a[k+1] - a[k])
					}
				}
			}
		}
		if y == hi {
			break
		}
		x = y
		if y == na {
			i++
		}
		if y == nb {
			k++
		}
	}
	return v, a1, a2
}

// shortfallPlain evaluates the same V(φ) the way Algorithm 2 of Selvi, Liu &
// Wiesemann is written: every pair of cells (j, j') is probed for overlap,
// O(N²) per shift. It is the baseline of the search benchmark.
func (c *cellsView) shortfallPlain(lo, hi, phi, e float64) float64 {
	a := c.edges
	n := len(a) - 1
	v := 0.0
	for j := 0; j < n; j++ {
		lj, rj := math.Max(a[j], lo), math.Min(a[j+1], hi)
		if rj <= lj {
			continue
		}
		// Part of cell j not covered by the shifted support: A_j.
		cov := math.Max(0, math.Min(rj, a[n]+phi)-math.Max(lj, a[0]+phi))
		v += (rj - lj - cov) * c.dens[j]
		for jj := 0; jj < n; jj++ {
			t := c.dens[j] - e*c.dens[jj]
			if t <= 0 {
				continue
			}
			ov := math.Min(rj, a[jj+1]+phi) - math.Max(lj, a[jj]+phi)
			if ov > 0 {
				v += ov * t
			}
		}
	}
	return v
}
