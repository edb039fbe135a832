package highs

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/sparse"
)

// ErrInteger is wrapped by the error ReadFile returns for a model with integer
// variables (privopt solves continuous problems only).
var ErrInteger = errors.New("highs: integer variables are not supported")

// Model is an LP or QP read from a file, in standard form.
type Model struct {
	// Problem is the model as a minimization in standard form; its columns are
	// the file's columns in order.
	Problem *solver.Problem
	// Maximize reports that the file's objective was to be maximized; Problem
	// minimizes its negation, so the file's optimal value is −Problem's.
	Maximize bool
}

// ReadFile reads a .mps or .lp file with HiGHS's reader into the standard form
// (see ReadModel; a maximization is negated into a minimization).
func ReadFile(path string) (*solver.Problem, error) {
	m, err := ReadModel(path)
	if err != nil {
		return nil, err
	}
	return m.Problem, nil
}

// ReadModel reads a .mps or .lp file (also compressed .mps.gz as HiGHS
// supports it) with HiGHS's reader and converts it to the standard form:
//
//	row l = a·x = u            → one zero-cone row  a·x + s = u
//	row l ≤ a·x ≤ u            → nonnegative rows  a·x + s = u (u finite), −a·x + s = −l (l finite)
//	column bound l ≤ x_j ≤ u   → singleton rows in the same way (x_j fixed: a zero row)
//	Hessian Q (½xᵀQx)          → P (upper triangle)
//
// The zero rows come first (equality rows, then fixed columns), then the
// nonnegative rows (row upper, row lower, column upper, column lower bounds,
// each in index order). Free rows are dropped.
func ReadModel(path string) (*Model, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("highs: %w", err)
	}
	switch ext := strings.ToLower(filepath.Ext(strings.TrimSuffix(path, ".gz"))); ext {
	case ".mps", ".lp":
	default:
		return nil, fmt.Errorf("highs: cannot read %q: extension %q is not .mps or .lp", path, ext)
	}
	in := newInstance()
	defer in.destroy()
	r, err := in.readModel(path)
	if err != nil {
		return nil, err
	}
	for j, v := range r.integrality {
		if v != 0 {
			return nil, fmt.Errorf("%w: column %d of %q is not continuous", ErrInteger, j, path)
		}
	}
	return r.toStandard(path)
}

func (r *rawModel) toStandard(path string) (*Model, error) {
	n := r.numCol
	sign := 1.0
	if r.maximize {
		sign = -1
	}
	for j := 0; j < n; j++ {
		if r.colLo[j] > r.colUp[j] {
			// Kept: the problem is infeasible and the solver will say so.
			continue
		}
		if math.IsNaN(r.colLo[j]) || math.IsNaN(r.colUp[j]) {
			return nil, fmt.Errorf("highs: column %d of %q has a NaN bound", j, path)
		}
	}
	// Row-wise view of A to emit standard-form rows by HiGHS row.
	AT := (&sparse.CSC{Rows: r.numRow, Cols: n, ColPtr: intsOf(r.aStart), RowIdx: intsOf(r.aIndex), Val: r.aValue}).Transpose()
	rows := 0
	for i := 0; i < r.numRow; i++ {
		switch {
		case r.rowLo[i] == r.rowUp[i]:
			rows++
		default:
			rows += btoi(!math.IsInf(r.rowUp[i], 1)) + btoi(!math.IsInf(r.rowLo[i], -1))
		}
	}
	for j := 0; j < n; j++ {
		switch {
		case r.colLo[j] == r.colUp[j]:
			rows++
		default:
			rows += btoi(!math.IsInf(r.colUp[j], 1)) + btoi(!math.IsInf(r.colLo[j], -1))
		}
	}
	t := sparse.NewTriplets(rows, n, 2*len(r.aValue)+2*n)
	var b []float64
	row := 0
	emitRow := func(i int, s, rhs float64) {
		for k := AT.ColPtr[i]; k < AT.ColPtr[i+1]; k++ {
			t.Append(row, AT.RowIdx[k], s*AT.Val[k])
		}
		b = append(b, rhs)
		row++
	}
	emitCol := func(j int, s, rhs float64) {
		t.Append(row, j, s)
		b = append(b, rhs)
		row++
	}
	for i := 0; i < r.numRow; i++ {
		if r.rowLo[i] == r.rowUp[i] {
			emitRow(i, 1, r.rowUp[i])
		}
	}
	for j := 0; j < n; j++ {
		if r.colLo[j] == r.colUp[j] {
			emitCol(j, 1, r.colUp[j])
		}
	}
	nz := row
	for i := 0; i < r.numRow; i++ {
		if r.rowLo[i] != r.rowUp[i] && !math.IsInf(r.rowUp[i], 1) {
			emitRow(i, 1, r.rowUp[i])
		}
	}
	for i := 0; i < r.numRow; i++ {
		if r.rowLo[i] != r.rowUp[i] && !math.IsInf(r.rowLo[i], -1) {
			emitRow(i, -1, -r.rowLo[i])
		}
	}
	for j := 0; j < n; j++ {
		if r.colLo[j] != r.colUp[j] && !math.IsInf(r.colUp[j], 1) {
			emitCol(j, 1, r.colUp[j])
		}
	}
	for j := 0; j < n; j++ {
		if r.colLo[j] != r.colUp[j] && !math.IsInf(r.colLo[j], -1) {
			emitCol(j, -1, -r.colLo[j])
		}
	}
	p := &solver.Problem{
		Q:     make([]float64, n),
		R:     sign * r.offset,
		A:     t.ToCSC(),
		B:     b,
		Cones: []cone.Cone{cone.NewZero(nz), cone.NewNonnegative(row - nz)},
	}
	for j := range p.Q {
		p.Q[j] = sign * r.cost[j]
	}
	if r.qStart != nil {
		// HiGHS's lower triangle column-wise, transposed = upper triangle column-wise.
		L := &sparse.CSC{Rows: n, Cols: n, ColPtr: intsOf(r.qStart), RowIdx: intsOf(r.qIndex), Val: append([]float64(nil), r.qValue...)}
		if err := L.Validate(); err != nil {
			return nil, fmt.Errorf("highs: Hessian of %q: %w", path, err)
		}
		U := L.Transpose()
		for k := range U.Val {
			U.Val[k] *= sign
		}
		p.P = U
	}
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("highs: model read from %q: %w", path, err)
	}
	return &Model{Problem: p, Maximize: r.maximize}, nil
}

func intsOf(v []int32) []int {
	out := make([]int, len(v))
	for i, x := range v {
		out[i] = int(x)
	}
	return out
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
