package auto

import (
	"sort"

	"github.com/privopt/privopt/solver"
)

// DefaultMidLPDistinctCost and DefaultMidLPNnzPerCol are the thresholds of
// MidLPFavoursIPM: an LP of A ∈ ℝ^{m×n} with more than DefaultSmallLPNnz
// and fewer than DefaultConcurrentNnz nonzeros starts with the IPM when
//
//	d(q)/n ≥ DefaultMidLPDistinctCost  and  nnz(A)/n ≤ DefaultMidLPNnzPerCol,
//
// d(q) the number of distinct nonzero values among the cost coefficients
// q₁ … qₙ. Measured by bench/midlp (BENCHMARKS.md, "Mid-size LPs on the
// default route, round 11"), CPU time of HiGHS's simplex alone against the
// IPM's alone on LPs of 2,000–20,000 nonzeros:
//
//   - random sparse LPs (d(q)/n = 1, nnz/n = 7): the IPM 2.2–5.4× faster;
//   - random set-cover LPs (d(q)/n = 1, nnz/n = 6): the IPM 2.7–14.5×
//     faster;
//   - transportation and assignment LPs (integer costs on 1–20 and 1–100:
//     d(q)/n ≤ 0.13, nnz/n = 3): HiGHS 1.2–4.6× faster, its presolve and
//     pivots gain from the ties (a degenerate optimal face);
//   - DC-OPF LPs of PGLib cases (B-θ: d(q)/n ≤ 0.15; PTDF: nnz/n ≥ 47, a
//     dense row per line limit over few generator columns): HiGHS 1.5–3.2×
//     faster.
//
// The distinct-cost fraction was chosen on the tune half (every threshold
// in (0.35, 1] separates it the same way); the column-density bound was
// added when the held-out half's 89-bus PTDF LP (d(q)/n = 1, nnz/n = 369,
// HiGHS 2× faster) showed that d(q)/n alone does not separate the DC-OPF
// LPs (every bound in [7, 369) does the same on both halves). The set-cover
// LPs, a class held out whole, take the IPM first as measured best. The
// rule costs one sort of q: 53 µs at n = 6,300, about 1% of HiGHS's solve
// of that transportation LP.
const (
	DefaultMidLPDistinctCost = 0.5
	DefaultMidLPNnzPerCol    = 20
)

// MidLPFavoursIPM reports whether the LP p, of more than DefaultSmallLPNnz
// and fewer than DefaultConcurrentNnz nonzeros, starts with the IPM: its
// columns are sparse (nnz(A)/n ≤ DefaultMidLPNnzPerCol) and its costs
// mostly distinct (d(q)/n ≥ DefaultMidLPDistinctCost), the measured
// quantities of DefaultMidLPDistinctCost's table. Few distinct costs are a
// proxy for dual degeneracy (many reduced costs tie), where the simplex
// needs few pivots; dense columns (few variables, many rows) make the
// simplex's bases small and the IPM's factorization large. The caller must
// check that p is an LP.
func MidLPFavoursIPM(p *solver.Problem) bool {
	n, nnz := p.NumVars(), p.A.Nnz()
	if n == 0 || nnz <= DefaultSmallLPNnz || nnz >= DefaultConcurrentNnz {
		return false
	}
	if float64(nnz) > DefaultMidLPNnzPerCol*float64(n) {
		return false
	}
	return float64(distinctNonzero(p.Q)) >= DefaultMidLPDistinctCost*float64(n)
}

// distinctNonzero is the number of distinct nonzero values of v.
func distinctNonzero(v []float64) int {
	w := make([]float64, 0, len(v))
	for _, x := range v {
		if x != 0 {
			w = append(w, x)
		}
	}
	sort.Float64s(w)
	d := 0
	for i, x := range w {
		if i == 0 || x != w[i-1] {
			d++
		}
	}
	return d
}
