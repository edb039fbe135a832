// Package opfrelease releases statistics of a DC optimal power flow — the
// optimal dispatch cost or the output of a generator subset — with
// differential privacy by program perturbation (Dvorkin et al., Section 4.1),
// through the one release pipeline: package grid builds the OPF model, package
// query lifts it to a linear decision rule, package chance reformulates the
// chance constraints (two copies of the OPF at the ends of the noise interval)
// and query draws the noise and writes the record.
//
// # Guarantees
//
//   - Certified sensitivity. The cost release is the private program's optimal
//     value, which equals the OPF cost V(d) with market rules plus a
//     data-independent offset; grid.Network.CertifyCostSensitivity bounds
//     |V(d′) − V(d)| over α-adjacent loads in a declared domain (a primal
//     repair by the price-cap backstops, or the exact merit-order price when no
//     branch can congest over the domain). The bound, plus twice the solver
//     accuracy checked on every solve, is the release's sensitivity, recorded
//     as query.Certified with a query.Certificate whose verifier recomputes it.
//   - Generator subsets have no certified sensitivity (LP dispatches are not
//     unique); they, and CVaR objectives, need Options.DeclaredSensitivity and
//     are labelled assumed everywhere.
//   - No data-dependent abort: backstop units at a price cap and floor make the
//     private program feasible for every load vector in the domain (Prepare's
//     doc has the argument); in the B-θ program they are fixed at zero and
//     freed only when their reduced cost says so, which keeps the LP as small
//     as the plain OPF (with lazy PTDF limits they are free from the start).
//   - Scale. Above 100 buses flow limits are monitored lazily (Options.Limits:
//     PTDF rows added when either end of the noise interval violates them),
//     and chance solves the two copies of the cost release separately (the
//     lower one is the market dispatch, the upper one a shift of shedding and
//     absorption at one bus, re-checked on the two-copy program). The
//     optimal value, hence the released statistic and its certified
//     sensitivity, is that of the program with every limit (tested against
//     it on 118, 300 and 1354 buses).
//   - Privacy boundary: Release returns only publishable values (the released
//     number and its record). Pre-noise values, the nominal cost, realized
//     feasibility and simulated evaluations come from Diagnostics, Evaluate and
//     ReleasedMeanAt, documented as private.
package opfrelease
