package highs

/*
#cgo pkg-config: highs
#include <stdint.h>
// Prototypes from interfaces/highs_c_api.h (HiGHS 1.10, HighsInt = int32_t).
// The header itself is included by capi.go only: its constants are
// definitions, and a second cgo file including it would define them twice.
int32_t Highs_changeRowsBoundsBySet(void* highs, const int32_t num_set_entries,
    const int32_t* set, const double* lower, const double* upper);
int32_t Highs_passHessian(void* highs, const int32_t dim, const int32_t num_nz,
    const int32_t format, const int32_t* start, const int32_t* index,
    const double* value);
*/
import "C"

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"unsafe"

	"github.com/privopt/privopt/sparse"
)

// SetRowBoundsSet changes the bounds of the rows idx[k] to [lower[k],
// upper[k]] in one call to HiGHS (Highs_changeRowsBoundsBySet), which costs
// one cgo crossing instead of len(idx) for SetRowBounds in a loop. Indices
// must be distinct and in range; the basis is kept, so the next Solve starts
// from it.
func (lp *LP) SetRowBoundsSet(idx []int, lower, upper []float64) error {
	if err := lp.ok(); err != nil {
		return err
	}
	if len(idx) != len(lower) {
		return fmt.Errorf("highs: SetRowBoundsSet: %d indices but %d bounds", len(idx), len(lower))
	}
	if err := checkBounds("row", lower, upper); err != nil {
		return err
	}
	if len(idx) == 0 {
		return nil
	}
	nr := lp.in.numRow()
	set := make([]int32, len(idx))
	for k, i := range idx {
		if i < 0 || i >= nr {
			return fmt.Errorf("highs: SetRowBoundsSet: row %d out of range [0, %d)", i, nr)
		}
		set[k] = int32(i)
	}
	// HiGHS wants the set in increasing order.
	order := sortedOrder(set)
	s, lo, hi := make([]int32, len(set)), make([]float64, len(set)), make([]float64, len(set))
	for k, t := range order {
		s[k], lo[k], hi[k] = set[t], lower[t], upper[t]
		if k > 0 && s[k] == s[k-1] {
			return fmt.Errorf("highs: SetRowBoundsSet: row %d appears twice", s[k])
		}
	}
	if C.Highs_changeRowsBoundsBySet(lp.in.h, C.int32_t(len(s)), i32ptr(s), f64ptr(lo), f64ptr(hi)) == hsStatusError {
		return fmt.Errorf("highs: cannot change the bounds of %d rows", len(s))
	}
	return nil
}

// sortedOrder returns the permutation that sorts v increasingly.
func sortedOrder(v []int32) []int {
	order := make([]int, len(v))
	sorted := true
	for k := range order {
		order[k] = k
		if k > 0 && v[k] < v[k-1] {
			sorted = false
		}
	}
	if !sorted {
		slices.SortFunc(order, func(a, b int) int { return cmp.Compare(v[a], v[b]) })
	}
	return order
}

// SetHessian sets the quadratic part ½xᵀPx of the objective (P: the upper
// triangle of a symmetric positive semidefinite NumCols×NumCols matrix,
// column-wise; nil or empty removes it), so the LP becomes a convex QP that
// HiGHS solves with its active-set QP solver. That solver does not start
// from the previous solve: in HiGHS 1.10 a QP re-solved after a change of
// costs or bounds takes as many iterations as a fresh one.
func (lp *LP) SetHessian(P *sparse.CSC) error {
	if err := lp.ok(); err != nil {
		return err
	}
	nc := lp.in.numCol()
	if P == nil || P.Nnz() == 0 {
		start := make([]int32, nc+1)
		if C.Highs_passHessian(lp.in.h, C.int32_t(nc), 0, 1, i32ptr(start), nil, nil) == hsStatusError {
			return fmt.Errorf("highs: cannot clear the Hessian")
		}
		return nil
	}
	if P.Rows != nc || P.Cols != nc {
		return fmt.Errorf("highs: SetHessian: P is %d×%d, want NumCols×NumCols = %d×%d", P.Rows, P.Cols, nc, nc)
	}
	if err := P.Validate(); err != nil {
		return fmt.Errorf("highs: SetHessian: %w", err)
	}
	for j := 0; j < P.Cols; j++ {
		for k := P.ColPtr[j]; k < P.ColPtr[j+1]; k++ {
			if i := P.RowIdx[k]; i > j {
				return fmt.Errorf("highs: SetHessian: entry (%d, %d) is below the diagonal; pass the upper triangle", i, j)
			}
			if v := P.Val[k]; math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("highs: SetHessian: entry (%d, %d) is %v, must be finite", P.RowIdx[k], j, v)
			}
		}
	}
	if err := checkConvexNecessary(P); err != nil {
		return err
	}
	start, index, value := lowerFromUpper(P)
	if C.Highs_passHessian(lp.in.h, C.int32_t(nc), C.int32_t(len(index)), 1 /* kHighsHessianFormatTriangular */, i32ptr(start), i32ptr(index), f64ptr(value)) == hsStatusError {
		return fmt.Errorf("highs: cannot set the Hessian (%d nonzeros)", len(index))
	}
	return nil
}

// i32ptr and f64ptr return pointers to the first elements (nil for empty
// slices) in this file's C types.
func i32ptr(v []int32) *C.int32_t {
	if len(v) == 0 {
		return nil
	}
	return (*C.int32_t)(unsafe.Pointer(&v[0]))
}

func f64ptr(v []float64) *C.double {
	if len(v) == 0 {
		return nil
	}
	return (*C.double)(unsafe.Pointer(&v[0]))
}

// CertifyTolerances returns the tolerances with which Solver.Solve re-checks
// an optimum on the caller's data (solver.Certify): CertifyTolerance (default
// 1e-7) and the reduced tolerance max(1e-5, 100× the feasibility
// tolerances). Code that maps an LP's answer to a solver.Solution certifies
// it with them, so that Optimal means the same as from Solver.Solve.
func (o Options) CertifyTolerances() (tol, reduced float64) { return o.certifyTol(), o.verifyTol() }
