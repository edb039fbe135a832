// Package model is privopt's modelling language: variables, sparse affine
// expressions, linear and conic constraints and convex quadratic objectives,
// canonicalized into the standard conic form of package solver
//
//	minimize ½xᵀPx + qᵀx + r  subject to  Ax + s = b,  s ∈ K,
//
// solved by a backend (HiGHS for LP/QP, the interior-point solver for the other
// cones), and mapped back: primal values per variable, duals per named
// constraint, the objective in the user's sense.
//
// Go has no operator overloading, so expressions are built by method chains:
//
//	m := model.New("diet")
//	x := m.Vector("x", 2)
//	m.Bound(x, 0, math.Inf(1))
//	m.GreaterEq("protein", x.Expr().Dot([]float64{3, 1}), model.Const(6))
//	m.Minimize(x.Expr().Dot([]float64{2, 1}))
//	res, err := m.Solve(ctx, model.SolveOptions{})
//
// # Invariants
//
//   - An Expr is immutable: e = A·x + c with A stored as compressed sparse rows
//     (columns strictly increasing within a row, no explicit zeros). Operations
//     never modify operands and may share their arrays.
//   - Expression errors are sticky and never panic: an invalid operation
//     returns an Expr carrying the error, everything derived from it carries it
//     too, and the model records the first error (Model.Err), which
//     Canonicalize and Solve return.
//   - Standard-form columns are the user variables in creation order
//     (Var.Col), then auxiliary columns; rows are the constraints in creation
//     order, each contiguous (Canonical.Rows), then variable bounds, then rows
//     defining auxiliary variables. Consecutive zero/nonnegative rows share one
//     cone block.
//   - Building is linear in the size of the data: Add/Sub are lazy (O(1), one
//     merge when needed), Stack and AddAll are single passes, ExprBuilder
//     accumulates triplets, and Canonicalize assembles A with two counting
//     passes. Only SumSquares/QuadForm objective terms can be superlinear (the
//     products AᵀA, AᵀQA), and SumSquares lifts when AᵀA would be dense.
//     Fastest to slowest for large models: MulSparse/MulDense of a variable,
//     ExprBuilder, one Dot/Sum per row, chains of Add (each Add allocates a
//     node of about 200 bytes).
//   - Duals (Result.Dual) are the standard-form y ∈ K* on a constraint's rows
//     (Px + q + Aᵀy = 0): for LessEq/GreaterEq y ≥ 0 is the rate at which the
//     objective improves per unit relaxation, in either sense; for Equal, the
//     improvement per unit increase of the right-hand side; for cone
//     constraints, y ∈ K* in the constraint's row order (PSD: the matrix
//     smat(y)).
//   - A Result never mutates the model. A model is built from one goroutine;
//     once built, Canonicalize and Solve may run concurrently.
//   - Solve never reports an optimum at a bad point: every (almost) optimal
//     point is checked against the standard-form constraints
//     (SolveOptions.FeasibilityTol) and downgraded to NumericalError if it
//     fails.
//
// # Atoms and disciplined convex programming
//
// Fn is the convex-expression layer over the affine Expr: atoms named after
// CVXPY's (Abs, Norm2, LogSumExp, GeoMean, LogDet, LambdaMax, …; the table is
// docs/ATOMS.md) composed by the DCP rules, with curvature, sign and
// monotonicity, used through MinimizeFn, MaximizeFn, LessEqFn and
// GreaterEqFn. A broken rule is an error wrapping ErrNotDCP that names the use
// and the offending subexpression. Atoms are canonicalized when used into
// auxiliary epigraph variables and cone constraints (names starting with
// "_"), so the standard form above is unchanged.
//
// # Parameters and re-solves
//
// Param is data that enters affine expressions like a variable and moves to
// b (and q, through AddObjectiveDot) in the standard form; RHSParam turns an
// existing constraint's right-hand side into one. Model.Prepare
// canonicalizes once; Prepared.SetParam updates b, q, r in place and
// Prepared.Solve re-solves, warm-started from the previous HiGHS basis for
// LPs and from the previous solution for problems the interior-point method
// answers (ipm.Solver.SolveFrom); see Prepared.
package model
