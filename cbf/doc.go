// Package cbf reads and writes the Conic Benchmark Format (CBF), the file format
// of the CBLIB library of conic problems (Friberg, "CBLIB 2014: a benchmark
// library for conic mixed-integer and continuous optimization", Math. Prog.
// Comp. 8, 2016; specification: MOSEK's "The CBF format"). Read accepts
// versions 1–4 and Write emits version 3.
//
// # Mapping to the standard form
//
// A CBF instance
//
//	min/max  g_obj = Σ⟨F_obj_j, X_j⟩ + aᵀx + b_obj
//	s.t.     g = Σ⟨F_j, X_j⟩ + A_cbf x + b_cbf ∈ K_con,   G_i = Σ_j x_j H_ij + D_i ⪰ 0,
//	         x ∈ K_var,   X_j ⪰ 0
//
// becomes privopt's min ½xᵀPx + qᵀx + r s.t. Ax + s = b, s ∈ K (P = 0) as follows.
//
//   - Columns: the CBF scalar variables in order (File.NumScalarVars of them),
//     then for each PSDVAR X_j its svec coordinates (column-major lower triangle,
//     off-diagonal entries scaled by √2, as in package cone). ⟨F, X⟩ becomes
//     Σ_k F_kk·svec_kk + Σ_{k>l} √2·F_kl·svec_kl.
//   - Rows, in this order: the CON rows (cone by cone; rows in the free cone F
//     are dropped), the PSDCON blocks (svec(G_i)), the VAR cones (s = x_j;
//     F variables are free), the PSDVAR blocks (s = svec(X_j)).
//   - A CON row is s = c·g for a coefficient c, i.e. A = −c·A_cbf, b = c·b_cbf:
//     c = 1 for L+, L=, Q, QR, EXP, @k:POW, SVECPSD and c = −1 for L- (g ≤ 0).
//   - Cones: L= → zero, L+/L- → nonnegative, Q → second-order (first coordinate
//     the bound, as in privopt), QR → rotated second-order (2·g₁g₂ ≥ ‖g₃…‖², as
//     in privopt), SVECPSD → PSD (same svec), PSDCON → PSD.
//   - EXP: CBF's cone is {g₀ ≥ g₁·exp(g₂/g₁), g₁ > 0}; privopt's is
//     {y·exp(x/y) ≤ z, y > 0}, so (x, y, z) = (g₂, g₁, g₀): the three rows are
//     reversed.
//   - EXP* (dual): (x, y, z) = (−g₁, −g₂, e·g₀) ∈ K_exp, since the dual cone in
//     privopt order (u, v, w) = (g₂, g₁, g₀) is {−u·exp(v/u) ≤ e·w, u < 0}.
//   - @k:POW with parameters (α₀, α₁) and dimension 3: g₀^α g₁^(1−α) ≥ |g₂| with
//     α = α₀/(α₀+α₁), privopt's power cone with the same coordinate order.
//     @k:POW* (dual): (g₀/α, g₁/(1−α), g₂) ∈ K_pow(α). Power cones with more
//     than two parameters or another dimension are reported as unsupported.
//   - OBJSENSE MAX: q and r are negated (File.Maximize is set); the file's
//     optimal value is −(the standard form's).
//   - INT with a positive count is an error wrapping ErrUnsupported: privopt
//     has no integer variables.
//
// # Errors
//
// Every error about the content is a *SyntaxError naming the line ("cbf: line
// 12: VAR: cone Q has dimension 0, must be ≥ 1") and wrapping ErrSyntax or
// ErrUnsupported: unknown keywords or cones, duplicate sections, sections out
// of order, counts that do not match, indices out of range, NaN or Inf, and
// truncated files. The reader never panics on any input (it is fuzzed by
// FuzzRead) and caps declared sizes at MaxDimension and, relative to the
// input, at max(FreeDimension, DimensionPerByte·bytes) columns plus rows,
// checked before anything of the declared size is allocated.
package cbf
