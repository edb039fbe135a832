// Package badscale generates badly scaled random LPs and SOCPs whose status
// (optimal, infeasible, unbounded, or primal and dual infeasible) is known by
// construction, and checks a backend's claimed status and certificate
// independently on the scaled data.
//
// Construction: a well-scaled instance with a built-in primal-dual pair or
// Farkas ray (Random documents each kind), then rows and columns scaled by
// 10^U(−4, 4), so that the coefficients span about 10⁻⁸ … 10⁸. Positive row
// (per cone block) and column scalings map solutions and certificates
// one-to-one and keep the optimal value, so the constructed status and
// objective hold for the scaled problem.
//
// Suite and PrimalDualSuite are the fixed instance sets of the hostile-input
// acceptance test (500 statuses, 100 primal-and-dual infeasible); the tests
// of solver/ipm, solver/highs and solver/auto and the CVXOPT cross-check
// (bench/scaledstatus) all use them, so their numbers refer to the same
// problems.
package badscale
