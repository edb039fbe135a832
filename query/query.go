package query

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/privopt/privopt/lindecision"
)

// ErrInvalid is wrapped by every validation error of this package.
var ErrInvalid = errors.New("query: invalid input")

func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

// Query is a linear query Q x on the solution x of a standard-form problem: k
// rows over the problem's columns (for a model, columns v.Col(i)). Program
// perturbation releases Q x̄* + ζ̂ with one noise component per row.
type Query struct {
	Name string                     // "identity", "sum", "weighted-sum" or "linear"
	Rows []lindecision.SparseVector // k rows
}

// Identity releases the listed columns themselves: Q = rows of the identity
// (Example 3.1). k = len(cols).
func Identity(cols ...int) Query {
	rows := make([]lindecision.SparseVector, len(cols))
	for r, c := range cols {
		rows[r] = lindecision.SparseVector{Idx: []int{c}, Val: []float64{1}}
	}
	return Query{Name: "identity", Rows: rows}
}

// Sum releases Σ_{c ∈ cols} x_c (Example 3.2). k = 1.
func Sum(cols ...int) Query {
	w := make([]float64, len(cols))
	for i := range w {
		w[i] = 1
	}
	return Query{Name: "sum", Rows: []lindecision.SparseVector{{Idx: append([]int(nil), cols...), Val: w}}}
}

// WeightedSum releases Σ_t w_t·x_{cols[t]}, e.g. a dispatch cost cᵀx (eq. 15d).
// k = 1.
func WeightedSum(cols []int, w []float64) Query {
	return Query{Name: "weighted-sum", Rows: []lindecision.SparseVector{{Idx: append([]int(nil), cols...), Val: append([]float64(nil), w...)}}}
}

// Linear releases Q x for any k rows.
func Linear(rows ...lindecision.SparseVector) Query {
	return Query{Name: "linear", Rows: rows}
}

// K returns the number of rows (noise components).
func (q Query) K() int { return len(q.Rows) }

// Validate checks the rows against n columns: matching lengths, indices in
// range and not repeated, finite values, no zero row, and full row rank
// (otherwise Q X = I has no solution).
func (q Query) Validate(n int) error {
	if len(q.Rows) == 0 {
		return invalidf("query %q has no rows", q.Name)
	}
	dense := mat.NewDense(len(q.Rows), n, nil)
	for r, row := range q.Rows {
		if len(row.Idx) != len(row.Val) {
			return invalidf("query row %d has %d indices and %d values", r, len(row.Idx), len(row.Val))
		}
		seen := map[int]bool{}
		nz := false
		for t, c := range row.Idx {
			if c < 0 || c >= n {
				return invalidf("query row %d has column %d, out of range [0,%d)", r, c, n)
			}
			if seen[c] {
				return invalidf("query row %d repeats column %d", r, c)
			}
			seen[c] = true
			if v := row.Val[t]; math.IsNaN(v) || math.IsInf(v, 0) {
				return invalidf("query row %d has value %v at column %d, must be finite", r, v, c)
			}
			nz = nz || row.Val[t] != 0
			dense.Set(r, c, row.Val[t])
		}
		if !nz {
			return invalidf("query row %d is zero", r)
		}
	}
	if len(q.Rows) > 1 {
		var svd mat.SVD
		if !svd.Factorize(dense, mat.SVDNone) {
			return invalidf("query: rank computation failed")
		}
		if rank := svd.Rank(1e-12); rank < len(q.Rows) {
			return invalidf("query %q has rank %d < k = %d rows: Q X = I has no solution", q.Name, rank, len(q.Rows))
		}
	}
	return nil
}

// Apply returns Q x.
func (q Query) Apply(x []float64) []float64 {
	y := make([]float64, len(q.Rows))
	for r, row := range q.Rows {
		for t, c := range row.Idx {
			y[r] += row.Val[t] * x[c]
		}
	}
	return y
}

// String describes the query.
func (q Query) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s(k=%d)", q.Name, len(q.Rows))
	return b.String()
}

// rightInverse returns X₀ = Qᵀ(QQᵀ)⁻¹ (n×k), the minimum-norm solution of
// Q X = I: the recourse output perturbation implicitly uses.
func (q Query) rightInverse(n int) (*mat.Dense, error) {
	k := len(q.Rows)
	qd := mat.NewDense(k, n, nil)
	for r, row := range q.Rows {
		for t, c := range row.Idx {
			qd.Set(r, c, row.Val[t])
		}
	}
	var g mat.Dense
	g.Mul(qd, qd.T())
	var gi mat.Dense
	if err := gi.Inverse(&g); err != nil {
		return nil, invalidf("query: Q Qᵀ is singular: %v", err)
	}
	x := mat.NewDense(n, k, nil)
	x.Mul(qd.T(), &gi)
	return x, nil
}

// Column is anything that maps its entries to columns of the standard form,
// such as a model variable (model.Var: entry i is column v.Col(i)).
type Column interface {
	Len() int
	Col(i int) int
}

// Columns returns the standard-form columns of every entry of the given
// variables, in order: query.Identity(query.Columns(w)...) releases the model
// variable w.
func Columns(vs ...Column) []int {
	var cols []int
	for _, v := range vs {
		for i := 0; i < v.Len(); i++ {
			cols = append(cols, v.Col(i))
		}
	}
	return cols
}
