package highs

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"time"

	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/sparse"
)

// ErrClosed is returned by the methods of an LP after Close.
var ErrClosed = errors.New("highs: LP is closed")

// LP is an incrementally built linear program
//
//	minimize (or maximize) cᵀx  subject to  rowLower ≤ Ax ≤ rowUpper,  colLower ≤ x ≤ colUpper
//
// held in one persistent HiGHS instance, so that after adding or deleting
// rows the next Solve starts from the previous optimal basis (HiGHS then runs
// the dual simplex method without presolve). It is the LP of cutting-plane
// methods. Bounds may be ±Inf. An LP is not safe for concurrent use; Close
// releases the HiGHS instance (a forgotten LP is released by the garbage
// collector).
type LP struct {
	in      *instance
	opts    Options
	err     error     // invalid options given to NewLP
	cost    []float64 // mirror of the costs, for the feasibility re-run
	max     bool
	cleanup runtime.Cleanup
}

// LPResult is the outcome of LP.Solve.
//
// The duals follow HiGHS's convention: the reduced costs are d = c − Aᵀλ, so for
// a minimization λ_i ≥ 0 when row i is at its lower bound, λ_i ≤ 0 at its upper
// bound, and λ_i = ∂(optimal value)/∂(active bound of row i). (For a
// maximization the signs of λ flip.) For a row a·x ≤ u of a minimization,
// privopt's standard-form dual is y_i = −λ_i ≥ 0.
type LPResult struct {
	Status     solver.Status
	Objective  float64   // cᵀx (only meaningful for OK statuses)
	X          []float64 // primal values, length NumCols
	ColDual    []float64 // reduced costs d = c − Aᵀλ
	RowDual    []float64 // λ, length NumRows
	RowValue   []float64 // row activities Ax
	Iterations int       // simplex + IPM iterations of this solve
	Time       time.Duration
}

// NewLP returns an empty LP (no rows or columns) using options o. Invalid
// options are reported by every later method.
func NewLP(o Options) *LP {
	lp := &LP{opts: o}
	if err := o.Validate(); err != nil {
		lp.err = err
		return lp
	}
	lp.in = newInstance()
	if err := lp.in.applyOptions(&lp.opts); err != nil {
		lp.err = err
	}
	lp.cleanup = runtime.AddCleanup(lp, func(in *instance) { in.destroy() }, lp.in)
	return lp
}

func (lp *LP) ok() error {
	if lp.err != nil {
		return lp.err
	}
	if lp.in == nil {
		return ErrClosed
	}
	return nil
}

// Close releases the HiGHS instance. It is safe to call twice.
func (lp *LP) Close() error {
	if lp.in != nil {
		lp.cleanup.Stop()
		lp.in.destroy()
		lp.in = nil
	}
	return nil
}

// NumCols returns the number of columns.
func (lp *LP) NumCols() int {
	if lp.ok() != nil {
		return 0
	}
	return lp.in.numCol()
}

// NumRows returns the number of rows.
func (lp *LP) NumRows() int {
	if lp.ok() != nil {
		return 0
	}
	return lp.in.numRow()
}

func checkBounds(what string, lower, upper []float64) error {
	if len(lower) != len(upper) {
		return fmt.Errorf("highs: %d lower and %d upper %s bounds", len(lower), len(upper), what)
	}
	for i := range lower {
		l, u := lower[i], upper[i]
		if math.IsNaN(l) || math.IsNaN(u) || l > u || math.IsInf(l, 1) || math.IsInf(u, -1) {
			return fmt.Errorf("highs: %s %d has bounds [%v, %v], must satisfy −Inf ≤ lower ≤ upper ≤ +Inf", what, i, l, u)
		}
	}
	return nil
}

// AddColumns appends len(cost) columns with the given costs and bounds and no
// matrix entries (rows added later refer to them).
func (lp *LP) AddColumns(cost, lower, upper []float64) error {
	if err := lp.ok(); err != nil {
		return err
	}
	if len(cost) != len(lower) {
		return fmt.Errorf("highs: %d costs but %d bounds", len(cost), len(lower))
	}
	if err := checkBounds("column", lower, upper); err != nil {
		return err
	}
	for j, c := range cost {
		if math.IsNaN(c) || math.IsInf(c, 0) {
			return fmt.Errorf("highs: cost[%d] is %v, must be finite", j, c)
		}
	}
	if err := lp.in.addCols(cost, lower, upper); err != nil {
		return err
	}
	lp.cost = append(lp.cost, cost...)
	return nil
}

// SetCosts replaces the costs of all columns (len(cost) = NumCols).
func (lp *LP) SetCosts(cost []float64) error {
	if err := lp.ok(); err != nil {
		return err
	}
	if len(cost) != lp.in.numCol() {
		return fmt.Errorf("highs: %d costs for %d columns", len(cost), lp.in.numCol())
	}
	for j, c := range cost {
		if math.IsNaN(c) || math.IsInf(c, 0) {
			return fmt.Errorf("highs: cost[%d] is %v, must be finite", j, c)
		}
	}
	if err := lp.in.setCosts(cost); err != nil {
		return err
	}
	lp.cost = append(lp.cost[:0], cost...)
	return nil
}

// SetColumnBounds changes the bounds of column j.
func (lp *LP) SetColumnBounds(j int, lower, upper float64) error {
	if err := lp.ok(); err != nil {
		return err
	}
	if j < 0 || j >= lp.in.numCol() {
		return fmt.Errorf("highs: column %d out of range [0, %d)", j, lp.in.numCol())
	}
	if err := checkBounds("column", []float64{lower}, []float64{upper}); err != nil {
		return err
	}
	return lp.in.setColBounds(j, lower, upper)
}

// SetRowBounds changes the bounds of row i.
func (lp *LP) SetRowBounds(i int, lower, upper float64) error {
	if err := lp.ok(); err != nil {
		return err
	}
	if i < 0 || i >= lp.in.numRow() {
		return fmt.Errorf("highs: row %d out of range [0, %d)", i, lp.in.numRow())
	}
	if err := checkBounds("row", []float64{lower}, []float64{upper}); err != nil {
		return err
	}
	return lp.in.setRowBounds(i, lower, upper)
}

// AddRows appends len(lower) rows lower_r ≤ a_r·x ≤ upper_r in one call to
// HiGHS. rows holds the new rows' coefficients transposed: a NumCols×k CSC
// matrix whose column r is row r (that is, the rows in CSR form). Rows without
// entries are allowed.
func (lp *LP) AddRows(lower, upper []float64, rows *sparse.CSC) error {
	if err := lp.ok(); err != nil {
		return err
	}
	if err := checkBounds("row", lower, upper); err != nil {
		return err
	}
	if rows == nil {
		return fmt.Errorf("highs: AddRows: rows is nil")
	}
	nc := lp.in.numCol()
	if rows.Cols != len(lower) || rows.Rows != nc {
		return fmt.Errorf("highs: AddRows: rows is %d×%d, want NumCols×len(lower) = %d×%d", rows.Rows, rows.Cols, nc, len(lower))
	}
	if err := rows.Validate(); err != nil {
		return fmt.Errorf("highs: AddRows: %w", err)
	}
	if rows.Nnz() > maxHighsInt {
		return fmt.Errorf("%w: %d new nonzeros", ErrTooLarge, rows.Nnz())
	}
	start := make([]int32, len(rows.ColPtr))
	for r, v := range rows.ColPtr {
		start[r] = int32(v)
	}
	index := make([]int32, len(rows.RowIdx))
	for k, j := range rows.RowIdx {
		index[k] = int32(j)
	}
	return lp.in.addRows(lower, upper, start, index, rows.Val)
}

// DeleteRows deletes the rows with the given indices (any order, duplicates
// ignored); the remaining rows keep their relative order and are renumbered
// from 0.
func (lp *LP) DeleteRows(idx []int) error {
	if err := lp.ok(); err != nil {
		return err
	}
	nr := lp.in.numRow()
	set := make([]int32, 0, len(idx))
	for _, i := range idx {
		if i < 0 || i >= nr {
			return fmt.Errorf("highs: DeleteRows: row %d out of range [0, %d)", i, nr)
		}
		set = append(set, int32(i))
	}
	slices.Sort(set)
	set = slices.Compact(set)
	return lp.in.deleteRows(set)
}

// SetObjectiveSense selects maximization (true) or minimization (false, the default).
func (lp *LP) SetObjectiveSense(maximize bool) error {
	if err := lp.ok(); err != nil {
		return err
	}
	if err := lp.in.setSense(maximize); err != nil {
		return err
	}
	lp.max = maximize
	return nil
}

// SetIterationLimit caps the simplex (and interior-point) iterations of
// the following solves at k (HiGHS's simplex_iteration_limit and
// ipm_iteration_limit; k ≤ 0: no cap, HiGHS's default). A solve that
// reaches it ends with status IterationLimit: a deterministic stop, unlike
// a time limit.
func (lp *LP) SetIterationLimit(k int) error {
	if err := lp.ok(); err != nil {
		return err
	}
	if k <= 0 {
		k = math.MaxInt32
	}
	if err := lp.in.setInt("simplex_iteration_limit", k); err != nil {
		return err
	}
	return lp.in.setInt("ipm_iteration_limit", k)
}

// ResetBasis discards the current basis, so the next Solve starts cold.
func (lp *LP) ResetBasis() error {
	if err := lp.ok(); err != nil {
		return err
	}
	lp.in.clearSolver()
	return nil
}

// BasisStatus is the simplex basis status of a column or row (HiGHS's
// HighsBasisStatus).
type BasisStatus int8

// Basis statuses.
const (
	AtLower  BasisStatus = 0 // nonbasic at its lower bound
	Basic    BasisStatus = 1
	AtUpper  BasisStatus = 2 // nonbasic at its upper bound
	AtZero   BasisStatus = 3 // free nonbasic at zero
	Nonbasic BasisStatus = 4 // nonbasic, bound unspecified
)

// Basis returns the basis status of every column and row after a simplex solve.
func (lp *LP) Basis() (cols, rows []BasisStatus, err error) {
	if err := lp.ok(); err != nil {
		return nil, nil, err
	}
	c, r, err := lp.in.basis(lp.in.numCol(), lp.in.numRow())
	if err != nil {
		return nil, nil, err
	}
	cols = make([]BasisStatus, len(c))
	for i, v := range c {
		cols[i] = BasisStatus(v)
	}
	rows = make([]BasisStatus, len(r))
	for i, v := range r {
		rows[i] = BasisStatus(v)
	}
	return cols, rows, nil
}

// Solve solves the LP, starting from the basis of the previous solve if any.
// Cancelling ctx interrupts the simplex iterations (status Cancelled). When
// HiGHS reports "unbounded or infeasible", Solve decides between the two by a
// re-run without presolve and, if needed, a feasibility solve (zero costs).
func (lp *LP) Solve(ctx context.Context) (*LPResult, error) {
	if err := lp.ok(); err != nil {
		return nil, err
	}
	res := &LPResult{}
	if ctx.Err() != nil {
		res.Status = solver.Cancelled
		return res, nil
	}
	in := lp.in
	_, ms, el := in.run(ctx)
	res.Time += el
	res.Iterations += in.iterations()
	if ms == hsUnboundedOrInfeasible {
		_ = in.setString("presolve", "off")
		in.clearSolver()
		_, ms, el = in.run(ctx)
		res.Time += el
		res.Iterations += in.iterations()
		if ms == hsUnboundedOrInfeasible {
			if err := in.zeroObjective(in.numCol(), false); err != nil {
				return nil, err
			}
			in.clearSolver()
			_, fs, el := in.run(ctx)
			res.Time += el
			res.Iterations += in.iterations()
			if err := in.setCosts(lp.cost); err != nil {
				return nil, err
			}
			in.clearSolver()
			switch fs {
			case hsOptimal:
				ms = hsUnbounded
			default:
				ms = fs
			}
		}
		if lp.opts.Presolve != "" {
			_ = in.setString("presolve", lp.opts.Presolve)
		} else {
			_ = in.setString("presolve", "choose")
		}
	}
	res.Status = mapStatus(ms, ctx)
	if res.Status == solver.Optimal {
		nc, nr := in.numCol(), in.numRow()
		res.X = make([]float64, nc)
		res.ColDual = make([]float64, nc)
		res.RowValue = make([]float64, nr)
		res.RowDual = make([]float64, nr)
		if err := in.solution(res.X, res.ColDual, res.RowValue, res.RowDual); err != nil {
			res.Status = solver.NumericalError
			return res, nil
		}
		res.Objective = in.objectiveValue()
	}
	return res, nil
}
