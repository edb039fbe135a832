package mathprog

import (
	"errors"
	"fmt"
	"math"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/sparse"
)

// ErrSyntax is wrapped by every error about a malformed file (see *SyntaxError).
var ErrSyntax = errors.New("mathprog: syntax error")

// ErrInteger is wrapped by the error for a file that declares integer,
// binary or semi-continuous variables: privopt solves continuous problems only.
var ErrInteger = errors.New("mathprog: integer variables are not supported")

// ErrUnsupported is wrapped by the error for a valid file that uses a feature
// privopt does not read (quadratic constraints, SOS, indicator constraints, …).
var ErrUnsupported = errors.New("mathprog: unsupported feature")

// ErrTooLarge is wrapped by the error for a file that exceeds a limit of
// Limits before anything of that size is allocated.
var ErrTooLarge = errors.New("mathprog: file too large")

// SyntaxError reports a malformed line.
type SyntaxError struct {
	Format string // "MPS" or "LP"
	Line   int    // 1-based line number
	Msg    string
	Err    error // ErrSyntax, ErrInteger, ErrUnsupported or ErrTooLarge
}

// Error returns "mathprog: MPS line 12: message".
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("mathprog: %s line %d: %s", e.Format, e.Line, e.Msg)
}

// Unwrap returns the sentinel error the SyntaxError wraps.
func (e *SyntaxError) Unwrap() error { return e.Err }

// Model is a linear or convex quadratic program as a file states it:
//
//	minimize (or maximize)  cᵀx + c₀ + ½xᵀHx
//	subject to              RowLo ≤ Ax ≤ RowUp,  ColLo ≤ x ≤ ColUp
//
// with ±Inf for missing bounds. H is symmetric and stored as its upper
// triangle (H nil for an LP). Rows of the file's free (N) rows other than the
// objective are dropped by the readers.
type Model struct {
	Name     string
	Maximize bool
	ColNames []string
	RowNames []string
	// ObjName is the name of the objective (MPS: its N row; LP: its label).
	ObjName      string
	Cost         []float64   // c, one per column
	ObjConstant  float64     // c₀
	H            *sparse.CSC // upper triangle of H (½xᵀHx), nil when linear
	A            *sparse.CSC // len(RowNames) × len(ColNames)
	RowLo, RowUp []float64
	ColLo, ColUp []float64
}

// NumCols returns the number of variables.
func (m *Model) NumCols() int { return len(m.ColNames) }

// NumRows returns the number of constraint rows.
func (m *Model) NumRows() int { return len(m.RowNames) }

// Validate checks shapes, that no bound is NaN and that H is an upper triangle.
func (m *Model) Validate() error {
	n, r := len(m.ColNames), len(m.RowNames)
	bad := func(format string, args ...any) error {
		return fmt.Errorf("mathprog: invalid model: %s", fmt.Sprintf(format, args...))
	}
	if len(m.Cost) != n || len(m.ColLo) != n || len(m.ColUp) != n {
		return bad("%d columns but %d costs, %d lower and %d upper bounds", n, len(m.Cost), len(m.ColLo), len(m.ColUp))
	}
	if len(m.RowLo) != r || len(m.RowUp) != r {
		return bad("%d rows but %d lower and %d upper bounds", r, len(m.RowLo), len(m.RowUp))
	}
	if m.A == nil || m.A.Rows != r || m.A.Cols != n {
		return bad("A must be %d×%d", r, n)
	}
	if err := m.A.Validate(); err != nil {
		return bad("A: %v", err)
	}
	if m.H != nil {
		if m.H.Rows != n || m.H.Cols != n {
			return bad("H is %d×%d, want %d×%d", m.H.Rows, m.H.Cols, n, n)
		}
		if err := m.H.Validate(); err != nil {
			return bad("H: %v", err)
		}
		for j := 0; j < n; j++ {
			for k := m.H.ColPtr[j]; k < m.H.ColPtr[j+1]; k++ {
				if m.H.RowIdx[k] > j {
					return bad("H has entry (%d,%d) below the diagonal", m.H.RowIdx[k], j)
				}
			}
		}
	}
	for _, v := range [][]float64{m.Cost, m.RowLo, m.RowUp, m.ColLo, m.ColUp} {
		for i, x := range v {
			if math.IsNaN(x) {
				return bad("entry %d of a cost or bound vector is NaN", i)
			}
		}
	}
	if math.IsNaN(m.ObjConstant) || math.IsInf(m.ObjConstant, 0) {
		return bad("objective constant is %v, must be finite", m.ObjConstant)
	}
	return nil
}

// Standard converts the model to privopt's standard form (a minimization; a
// maximization is negated, so the file's optimal value is −Problem's):
//
//	row l = a·x = u            → one zero-cone row     a·x + s = u
//	row l ≤ a·x ≤ u            → nonnegative rows      a·x + s = u (u finite), −a·x + s = −l (l finite)
//	column bound l ≤ x_j ≤ u   → singleton rows in the same way (x_j fixed: a zero row)
//	H                          → P (upper triangle)
//
// Zero rows come first (equality rows, then fixed columns), then the
// nonnegative rows (row upper, row lower, column upper, column lower bounds,
// each in index order). Rows with both bounds infinite are dropped. The map
// from standard-form rows back to the model is returned in RowMap.
func (m *Model) Standard() (*Standard, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	n, nr := m.NumCols(), m.NumRows()
	sign := 1.0
	if m.Maximize {
		sign = -1
	}
	for i := 0; i < nr; i++ {
		if math.IsInf(m.RowLo[i], 1) || math.IsInf(m.RowUp[i], -1) {
			return nil, fmt.Errorf("mathprog: row %q has bounds [%v, %v]", m.RowNames[i], m.RowLo[i], m.RowUp[i])
		}
	}
	for j := 0; j < n; j++ {
		if math.IsInf(m.ColLo[j], 1) || math.IsInf(m.ColUp[j], -1) {
			return nil, fmt.Errorf("mathprog: column %q has bounds [%v, %v]", m.ColNames[j], m.ColLo[j], m.ColUp[j])
		}
	}
	AT := m.A.Transpose()
	t := sparse.NewTriplets(0, n, 2*m.A.Nnz()+2*n)
	var b []float64
	var rmap []RowRef
	emitRow := func(i int, s, rhs float64) {
		row := len(b)
		t.Grow(row+1, n)
		for k := AT.ColPtr[i]; k < AT.ColPtr[i+1]; k++ {
			t.Append(row, AT.RowIdx[k], s*AT.Val[k])
		}
		b = append(b, rhs)
		rmap = append(rmap, RowRef{Row: i, Column: -1, Sign: s})
	}
	emitCol := func(j int, s, rhs float64) {
		t.Grow(len(b)+1, n)
		t.Append(len(b), j, s)
		b = append(b, rhs)
		rmap = append(rmap, RowRef{Row: -1, Column: j, Sign: s})
	}
	for i := 0; i < nr; i++ {
		if m.RowLo[i] == m.RowUp[i] {
			emitRow(i, 1, m.RowUp[i])
		}
	}
	for j := 0; j < n; j++ {
		if m.ColLo[j] == m.ColUp[j] {
			emitCol(j, 1, m.ColUp[j])
		}
	}
	nz := len(b)
	for i := 0; i < nr; i++ {
		if m.RowLo[i] != m.RowUp[i] && !math.IsInf(m.RowUp[i], 1) {
			emitRow(i, 1, m.RowUp[i])
		}
	}
	for i := 0; i < nr; i++ {
		if m.RowLo[i] != m.RowUp[i] && !math.IsInf(m.RowLo[i], -1) {
			emitRow(i, -1, -m.RowLo[i])
		}
	}
	for j := 0; j < n; j++ {
		if m.ColLo[j] != m.ColUp[j] && !math.IsInf(m.ColUp[j], 1) {
			emitCol(j, 1, m.ColUp[j])
		}
	}
	for j := 0; j < n; j++ {
		if m.ColLo[j] != m.ColUp[j] && !math.IsInf(m.ColLo[j], -1) {
			emitCol(j, -1, -m.ColLo[j])
		}
	}
	t.Grow(len(b), n)
	p := &solver.Problem{
		Q:     make([]float64, n),
		R:     sign * m.ObjConstant,
		A:     t.ToCSC(),
		B:     b,
		Cones: []cone.Cone{cone.NewZero(nz), cone.NewNonnegative(len(b) - nz)},
	}
	for j := range p.Q {
		p.Q[j] = sign * m.Cost[j]
	}
	if m.H != nil && m.H.Nnz() > 0 {
		P := m.H.Clone()
		for k := range P.Val {
			P.Val[k] *= sign
		}
		p.P = P
	}
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("mathprog: %w", err)
	}
	return &Standard{Problem: p, Maximize: m.Maximize, RowMap: rmap}, nil
}

// Standard is a Model in privopt's standard form (see Model.Standard).
type Standard struct {
	// Problem minimizes; its columns are the model's columns in order.
	Problem *solver.Problem
	// Maximize: the model maximizes, Problem minimizes the negated objective.
	Maximize bool
	// RowMap[k] says which bound of the model standard-form row k expresses.
	RowMap []RowRef
}

// RowRef names the model row (Row ≥ 0) or column bound (Column ≥ 0) behind a
// standard-form row, with Sign +1 for an upper (or equality) bound, −1 for a
// lower bound written as −a·x ≤ −l.
type RowRef struct {
	Row, Column int
	Sign        float64
}

// FromProblem returns the Model of an LP/QP in standard form (zero and
// nonnegative cones only): zero rows become equality rows a·x = b, nonnegative
// rows a·x ≤ b, every column is free. Rows are named R1, R2, …, columns
// C1, C2, … It fails with ErrUnsupported for other cones.
func FromProblem(p *solver.Problem) (*Model, error) {
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("mathprog: %w", err)
	}
	n, mr := p.NumVars(), p.NumRows()
	md := &Model{Name: "privopt", ObjName: "OBJ", Cost: append([]float64(nil), p.Q...), ObjConstant: p.R,
		A: p.A.Clone(), ColLo: make([]float64, n), ColUp: make([]float64, n),
		RowLo: make([]float64, mr), RowUp: append([]float64(nil), p.B...)}
	for j := 0; j < n; j++ {
		md.ColNames = append(md.ColNames, fmt.Sprintf("C%d", j+1))
		md.ColLo[j], md.ColUp[j] = math.Inf(-1), math.Inf(1)
	}
	for i := 0; i < mr; i++ {
		md.RowNames = append(md.RowNames, fmt.Sprintf("R%d", i+1))
	}
	off := 0
	for k, c := range p.Cones {
		for i := off; i < off+c.Dim; i++ {
			switch c.Kind {
			case cone.Zero:
				md.RowLo[i] = p.B[i]
			case cone.Nonnegative:
				md.RowLo[i] = math.Inf(-1)
			default:
				return nil, fmt.Errorf("%w: cone %d is %v; MPS and LP files hold zero and nonnegative rows only", ErrUnsupported, k, c)
			}
		}
		off += c.Dim
	}
	if p.P != nil && p.P.Nnz() > 0 {
		md.H = p.P.Clone()
	}
	return md, nil
}
