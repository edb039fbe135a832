// Package grid reads MATPOWER / PGLib-OPF, PSS/E RAW and PowerModels JSON
// power-network cases and builds DC power
// flow and DC optimal power flow (DC-OPF) models on them, including the private
// cost release of Dvorkin, Fioretto, Van Hentenryck, Pinson & Kazempour,
// "Privacy-preserving convex optimization: when differential privacy meets
// stochastic programming", Section 4.1 (eqs. 14–15).
//
// # Parsing
//
// ReadCase / ParseMATPOWER accept MATPOWER case format version 2 (the m-file
// syntax "mpc.bus = [ … ];"): "%" comments, ";"- or newline-separated rows,
// commas, "..." continuations, non-contiguous bus numbers, several generators per
// bus, out-of-service generators and branches (status 0), zero-capacity
// generators, polynomial costs of degree ≤ 2 (higher degrees are rejected unless
// their leading coefficients are zero) and convex piecewise-linear costs (a
// non-convex one is rejected). A Case keeps the file's units (MW, degrees) and
// rows; Case.Validate rejects what a DC model cannot use (unknown buses, Pmax <
// Pmin, negative ratings, x = 0, unknown cost models, …). Every data error is a
// *FormatError naming the matrix and row — "grid: gen row 3 (line 12): has 9
// columns, need at least 10" — and errors.Is(err, ErrFormat) holds.
//
// ReadCase picks the reader by extension: ".raw" is PSS/E RAW (ParseRAW:
// revisions 33, 34 and 35, their differences listed there; three-winding
// transformers become a star bus and three branches; RAW has no costs, so
// generators get zero costs to be replaced), ".json" is a PowerModels
// network (ParsePMJSON, per unit or not). Their errors are *FormatError too,
// naming the section, record, line and value, prefixed with the file name by
// ReadCase. WriteRAW and WritePMJSON write a Case in these formats (tests
// round-trip PGLib cases through them and compare DC-OPF costs).
//
// # DC model
//
// NewNetwork keeps the in-service part of a case (type-4 buses, status-0 branches
// and generators dropped) and builds MATPOWER's makeBdc matrices in MW: branch
// flow f = Bf θ + Pfinj and nodal balance Cg p − Load = Bbus θ + Pbusinj. The
// modelling choices are DCOptions; the zero value is MATPOWER's model:
//
//   - susceptance b = 1/x, or x/(r² + x²) (SusceptanceRX);
//   - a transformer's susceptance is divided by its tap ratio τ (ratio 0 = 1);
//   - a phase shift φ enters as f = b(θ_f − θ_t − φ), i.e. as the fixed
//     injections −bφ at the from bus and +bφ at the to bus;
//   - shunt conductance Gs (MW at 1 p.u.) is added to the bus load;
//   - rateA = 0 means no thermal limit; angle-difference limits angmin/angmax
//     (both 0, or beyond ±360°, mean none) become the flow bounds
//     b(angmin − φ) ≤ f ≤ b(angmax − φ), intersected with ±rateA.
//
// Each island gets one reference bus (θ = 0): its type-3 bus, else the bus of its
// largest generator; an island with load and no generator is an error. The
// reduced Bbus is factored once by the sparse LDLᵀ of internal/ldl with an
// approximate minimum-degree ordering (no pivoting: the matrix is positive
// definite when the susceptances are positive; a zero pivot, e.g. at a bus whose
// branch susceptances cancel, is a *FormatError naming the bus); PTDF columns,
// PTDFᵀμ and power flows are solves with that factor, never a dense inverse, and
// are safe for concurrent use.
//
// # Reproducing the PGLib-OPF DC baselines
//
// The PGLib-OPF DC baselines (PowerModels.jl v0.19.1 DCPPowerModel) are matched
// to within 0.01% on every bundled case, from 5_pjm to 2383wp_k, with
// PowerModelsDC(): b = x/(r² + x²), taps and phase shifts ignored, Gs as load,
// angle limits kept (they never bind on these cases), quadratic costs with their
// constant terms. MATPOWER's model (1/x, taps) differs by up to 0.43% (2383wp_k;
// 0.42% on 30_ieee, 0.10% on 89_pegase), the r-aware susceptance with taps by up
// to 0.19%, and ignoring shunts moves 89_pegase by −0.12%; phase shifts change
// 2383wp_k by 0.01%. See TestOPFBaselines and bench/opf.
//
// # DC-OPF
//
// BuildOPF builds, with package model, min Σ cost_g(p_g) over generator limits,
// power balance and flow limits (both directions, on branches with a finite
// limit), in one of two formulations: PTDF (dispatch variables only, one
// balance row per island, flows through the PTDF rows of the generator buses)
// or BTheta (angles as variables, one balance row per bus; sparse, the faster
// choice above a few hundred buses). Solve runs HiGHS (LP, or QP for quadratic
// costs) and returns the cost, dispatch, flows and LMPs: λ_i = ∂cost/∂Load_i,
// from the balance duals (BTheta) or as λ_island − Σ_l PTDF_{l,i} μ_l (PTDF).
//
// # At market scale
//
// Network.SolveDCOPF chooses formulation, limit handling and backend
// (AutoStrategy, a rule measured by bench/opfscale): from a few hundred buses
// on, when there are at most AutoHiGHSMaxGens generators or the costs are
// linear, it starts without flow limits and adds the violated ones
// (constraint generation: few limits bind) to a PTDF model solved by HiGHS;
// otherwise it solves the full B-θ model on the interior-point backend
// (HiGHS's active-set QP solver stalls on thousands of quadratic-cost
// generators). OPF.AddFlowLimit
// adds a row on a weighted sum of branch flows to any built OPF; its duals enter
// the LMPs. Network.SolveSCOPF adds N-1 security: post-contingency flows
// f_l + LODF_{l,k} f_k within limits, generated lazily; islanding outages
// (Network.Bridges) and outages no dispatch can secure are skipped and
// reported. Network.PTDFRows and FlowRanges compute PTDF rows for every branch
// in parallel with the shared factorization (progress, cancellation), the
// per-branch work of sensitivity certificates at scale.
//
// # Market rules and certified cost sensitivity
//
// grid only builds models; private releases go through package opfrelease
// (which hands grid's model to query and chance). For them grid provides the
// market rules (MarketRules: backstop units at a price cap and floor,
// Case.WithBackstops, Network.BackstopBuses) that make every load vector
// feasible, secant piecewise-linear costs (Case.PiecewiseCosts), declared load
// domains (LoadDomain, Network.LoadBand) and the certified sensitivity of the
// optimal cost over such a domain (Network.CertifyCostSensitivity: a price-cap
// repair bound, or the exact merit-order price where no branch can congest;
// Network.VerifyCostCertificate re-checks it with dense linear algebra).
package grid
