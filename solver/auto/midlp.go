package auto

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

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
//   - random sparse LPs (d(q)/n = 1, nnz/n = 7): the IPM 2.1–5.5× faster;
//   - random set-cover LPs (d(q)/n = 1, nnz/n = 6): the IPM 2.6–14.6×
//     faster;
//   - transportation and assignment LPs (integer costs on 1–20 and 1–100:
//     d(q)/n ≤ 0.13, nnz/n = 3): HiGHS 1.4–4.3× faster, its presolve and
//     pivots gain from the ties (a degenerate optimal face);
//   - DC-OPF LPs of PGLib cases (B-θ: d(q)/n ≤ 0.16; PTDF: nnz/n ≥ 46, a
//     dense row per line limit over few generator columns): HiGHS 1.25–3.3×
//     faster (the releases' LPs, 20-segment costs, alike).
//
// The distinct-cost fraction was chosen on the tune half (every threshold
// in (0.35, 1] separates it the same way); the column-density bound was
// added when the held-out half's 89-bus PTDF LP (d(q)/n = 1, nnz/n = 369,
// HiGHS 2× faster) showed that d(q)/n alone does not separate the DC-OPF
// LPs (every bound in [7, 369) does the same on both halves). The set-cover
// LPs, a class held out whole, take the IPM first as measured best. The
// rule costs one sort of q: 53 µs at n = 6,300, about 1% of HiGHS's 5.8 ms
// on that transportation LP.
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
	slices.Sort(w)
	return len(slices.Compact(w))
}

// uncertifiedClaim reports whether sol claims infeasibility or
// unboundedness without a certificate that passed CheckCertificate (none
// given, or removed by Solve).
func uncertifiedClaim(sol *solver.Solution) bool {
	return (sol.Status == solver.PrimalInfeasible || sol.Status == solver.DualInfeasible) && !accepted(sol)
}

// certifyInfeasible is Solve's last step when no backend ended the route
// and the answer kept is an uncertified claim of infeasibility or
// unboundedness (claim): the backends may have disagreed (on a random
// primal-infeasible LP of 800 variables, bench/smallconic's lpinf family,
// the IPM claimed unbounded with a ray that failed the re-check and HiGHS
// claimed infeasible without a dual ray), and which claim was kept depended
// on the route's order. The feasibility problem (p with q = 0, P = 0,
// which cannot be unbounded) is solved along the same route within what
// remains of the time limit; when it ends with a verified Farkas
// certificate y (Aᵀy = 0, y ∈ K*, bᵀy < 0, checked by Solve on the
// feasibility problem, whose A, b and cones are p's), p is primal
// infeasible and that answer is returned; otherwise claim is returned with
// a diagnostic saying so. p's own objective must not be zero (the
// feasibility problem would be p itself).
func (s *Solver) certifyInfeasible(ctx context.Context, p *solver.Problem, set solver.Settings, start time.Time, claim *solver.Solution) *solver.Solution {
	zero := p.P == nil || p.P.Nnz() == 0
	for _, v := range p.Q {
		if v != 0 {
			zero = false
		}
	}
	if zero {
		return claim
	}
	sol, expired, err := s.solveFeasibility(ctx, p, set, start)
	if expired {
		return claim
	}
	if err != nil || sol.Status != solver.PrimalInfeasible || !accepted(sol) {
		var what string
		if err != nil {
			what = err.Error()
		} else {
			what = describe(sol)
		}
		claim.Diagnostic = appendMsg(claim.Diagnostic, "the feasibility problem did not certify infeasibility ("+what+")")
		return claim
	}
	sol.Objective, sol.DualObjective = math.Inf(1), math.Inf(1)
	sol.Fallback = claim.Solver
	sol.Diagnostic = fmt.Sprintf("no backend certified its answer (%s); the feasibility problem did: %s", describe(claim), describe(sol))
	return sol
}
