// Package highs solves LPs and convex QPs in privopt's standard form with the
// HiGHS optimizer (Huangfu and Hall, "Parallelizing the dual revised simplex
// method", Math. Prog. Comp. 10, 2018; https://highs.dev), called through its C
// API with cgo (`pkg-config highs`).
//
// # Mapping
//
// The standard form of package solver,
//
//	minimize ½xᵀPx + qᵀx + r  subject to  Ax + s = b,  s ∈ K,
//
// with only zero and nonnegative cones, is passed to HiGHS with one bulk call:
//
//	zero row i:         b_i ≤ a_i·x ≤ b_i
//	nonnegative row i:  −∞ ≤ a_i·x ≤ b_i
//	row with one nonzero a·x_j (≤ or =) b:   a column bound on x_j instead
//	row with no nonzeros:  checked here (0 = b or 0 ≤ b) and dropped
//	P (upper triangle, column-wise) → HiGHS Hessian (lower triangle, column-wise = Pᵀ)
//	r → objective offset; q → column costs (always passed explicitly)
//
// Columns are otherwise free. Duals come back in privopt's convention
// Px + q + Aᵀy = 0 with y ≥ 0 on nonnegative rows: y = −λ for HiGHS's row dual λ,
// and a row that became a column bound gets the dual that closes the
// stationarity of its column (HiGHS's reduced cost). Statuses map through a
// table in which only HiGHS's "Optimal" becomes solver.Optimal, and every
// optimum is then checked against the optimality conditions (relative
// residuals ≤ 1e-5): HiGHS 1.10's QP solver can call a non-convex QP
// "optimal" at a non-stationary point, which is reported as NumericalError
// (and P with a negative diagonal entry or a negative 2×2 principal minor is
// rejected up front).
//
// The index arrays HiGHS needs (32-bit) are built in C memory and freed as soon
// as HiGHS has copied them, so the Go heap holds only the maps back. Each
// Solve uses its own HiGHS instance; a Solver is safe for concurrent use.
//
// Cancellation: a goroutine watches ctx and raises a flag that HiGHS's simplex
// and interior-point interrupt callbacks read, so a cancelled solve stops
// within one iteration with status Cancelled. (HiGHS's QP solver has no
// interrupt callback: QPs are bounded by Settings.TimeLimit.) "One iteration"
// is not always short: HiGHS polls the flag once per simplex iteration, and
// on a 6,000 × 5,000 random sparse LP the gaps between two polls of its dual
// simplex grew to 3.7 s late in phase 1 (a cancelled solve returned 44 ms
// after the cancellation in one run, 9 s in another; BENCHMARKS.md, "Solver
// trust, round 3"). solver/auto's concurrent route therefore does not wait
// for a cancelled HiGHS solve (auto.LoserGrace).
//
// # Why the C API and not github.com/lanl/highs
//
// The backend calls HiGHS's C API directly rather than through the
// github.com/lanl/highs binding because it needs what that binding (v1.0.3) does
// not expose: interrupt callbacks for cancellation, row deletion and basis
// access for warm cutting-plane re-solves, and bulk copies from C memory. The
// binding is used in the tests as an independent second path: random LPs and
// QPs solved both ways must agree (lanl_crosscheck_test.go). HiGHS 1.10's C
// header defines its constants as global symbols; highs_api.h renames privopt's
// copies so that a program can link privopt together with another HiGHS
// binding.
//
// # Incremental LPs
//
// LP keeps one HiGHS instance alive so that columns and rows can be added or
// deleted and the LP re-solved from the previous basis (dual simplex), as the
// cutting-plane method of package noise needs. Its rows are general
// lower ≤ a·x ≤ upper and its duals are in HiGHS's convention (documented at
// LPResult).
//
// # Files
//
// ReadFile reads .mps and .lp files with HiGHS's own reader into the standard form.
package highs
