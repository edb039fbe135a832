// Package solvertest holds the test fixtures of the solver packages: random
// problems whose answer is known by construction, and independent checks of
// a backend's claim on the problem's own data. Only tests and benchmark
// programs import it; no production package does.
//
// Badly scaled statuses (Random, Suite, PrimalDualSuite, Check): random LPs
// and SOCPs whose status (optimal, infeasible, unbounded, or primal and dual
// infeasible) is known by construction. Construction: a well-scaled instance
// with a built-in primal-dual pair or Farkas ray (Random documents each
// kind), then rows and columns scaled by 10^U(−4, 4), so that the
// coefficients span about 10⁻⁸ … 10⁸. Positive row (per cone block) and
// column scalings map solutions and certificates one-to-one and keep the
// optimal value, so the constructed status and objective hold for the scaled
// problem. Suite and PrimalDualSuite are the fixed instance sets of the
// hostile-input acceptance test (500 statuses, 100 primal-and-dual
// infeasible); the tests of solver/ipm, solver/highs and solver/auto and the
// CVXOPT cross-check (bench/scaledstatus) all use them, so their numbers
// refer to the same problems.
//
// Mixed row scales (Mixed, MixedSuite, Judge, OneSmallRow): LPs, QPs and
// SOCPs with a planted, unique optimum (a strictly complementary KKT point
// whose active rows determine x), whose row blocks are scaled by 10^U(−6, 6)
// within one problem — the case where a re-check against global norms cannot
// see a violated row with small terms. Judge decides, independently of the
// solver package's re-check, whether an answer claimed optimal is wrong.
package solvertest
