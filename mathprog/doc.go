// Package mathprog reads and writes the text formats of linear and convex
// quadratic programs: MPS (free and fixed, with the QPS and CPLEX extensions)
// and the CPLEX LP format, so that privopt decides itself what a file means.
//
// A file is read into a Model, which keeps the file's view (row and column
// bounds, names, objective sense, ½xᵀHx), and Model.Standard converts it to
// privopt's standard form (solver.Problem, a minimization):
//
//	minimize ½xᵀPx + qᵀx + r  subject to  Ax + s = b, s ∈ {0}ᵏ × ℝ₊ᵐ⁻ᵏ.
//
// WriteMPS writes a Model back (ReadMPS(WriteMPS(m)) gives the same standard
// form), WriteLP writes it as an LP file (ReadLP(WriteLP(m)) gives the same
// model, with names that LP files cannot hold replaced as LPNames says), and
// FromProblem turns a standard-form LP/QP into a Model.
//
// Invariants: readers never panic on any input; every error is a
// *SyntaxError with the line number, wrapping ErrSyntax, ErrInteger (integer
// markers and bound types, integer sections), ErrUnsupported (quadratic
// constraints, SOS, …) or ErrTooLarge (Limits, checked before the memory is
// taken: MPS and LP files declare no sizes, so each row, column and nonzero
// is counted as it is read). ReadFile decompresses gzip files transparently.
//
// References: the MPS format as documented by IBM ILOG CPLEX ("MPS file
// format: industry standard", with the OBJSENSE, RANGES, negative upper bound
// and set-name rules), the QPS extension of Maros and Mészáros ("A repository
// of convex quadratic programming problems", 1999: QUADOBJ), and the CPLEX
// LP file format.
package mathprog
