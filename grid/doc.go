// Package grid reads MATPOWER / PGLib-OPF power-network cases and builds DC power
// flow and DC optimal power flow (DC-OPF) models on them, including the private
// cost release of Dvorkin et al., "Privacy-preserving convex optimization: when
// differential privacy meets stochastic programming", Section 4.1.
//
// # Parsing
//
// ReadCase / ParseMATPOWER accept MATPOWER case format version 2 (the m-file
// syntax "mpc.bus = [ … ];"): comments, ";"- or newline-separated rows, commas,
// "..." continuations, non-contiguous bus numbers, several generators per bus,
// out-of-service generators and branches, polynomial costs up to degree 2 and
// convex piecewise-linear costs. A Case keeps the file's units (MW, degrees) and
// rows; Case.Validate rejects what a DC model cannot use, and every data error is
// a *FormatError naming the matrix and row (errors.Is(err, ErrFormat)).
//
// # DC model
//
// NewNetwork keeps the in-service part of a case (isolated buses, status-0
// branches and generators dropped) and builds MATPOWER's makeBdc matrices in MW:
// branch flow f = Bf θ + Pfinj and nodal balance Cg p − Load = Bbus θ + Pbusinj.
// Modelling choices (DCOptions, zero value = default):
//
//   - susceptance b = 1/x (default) or x/(r² + x²);
//   - a transformer's susceptance is divided by its tap ratio τ (makeBdc);
//   - a phase shift φ enters the flow as f = b(θ_f − θ_t − φ), i.e. as fixed
//     injections −bφ / +bφ at the two ends;
//   - shunt conductance Gs (MW at 1 p.u.) is added to the bus load;
//   - rateA = 0 means no thermal limit; angle-difference limits become flow
//     bounds b(angmin − φ) ≤ f ≤ b(angmax − φ).
//
// Each island has one reference bus (θ = 0). The reduced Bbus (reference rows and
// columns removed) is factored once by a sparse LDLᵀ with a minimum-degree
// ordering; PTDF columns, PTDFᵀμ products and power flows are solves with that
// factor, never a dense inverse.
package grid
