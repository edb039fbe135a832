package highs

/*
#cgo pkg-config: highs
#include <stdlib.h>
#include "highs_api.h"
#include "callback.h"
*/
import "C"

import (
	"context"
	"fmt"
	"io"
	"math"
	"runtime/cgo"
	"sync"
	"time"
	"unsafe"
)

// HiGHS model status and callback codes, as defined in interfaces/highs_c_api.h
// (HiGHS 1.10; there they are C variables, so cgo cannot use them as constants).
const (
	hsNotset                = 0
	hsLoadError             = 1
	hsModelError            = 2
	hsPresolveError         = 3
	hsSolveError            = 4
	hsPostsolveError        = 5
	hsModelEmpty            = 6
	hsOptimal               = 7
	hsInfeasible            = 8
	hsUnboundedOrInfeasible = 9
	hsUnbounded             = 10
	hsObjectiveBound        = 11
	hsObjectiveTarget       = 12
	hsTimeLimit             = 13
	hsIterationLimit        = 14
	hsUnknown               = 15
	hsSolutionLimit         = 16
	hsInterrupt             = 17

	hsStatusError = -1 // kHighsStatusError

	callbackLogging          = 0 // kHighsCallbackLogging
	callbackSimplexInterrupt = 1 // kHighsCallbackSimplexInterrupt
	callbackIpmInterrupt     = 2 // kHighsCallbackIpmInterrupt
)

// hsInt is HiGHS's index type (32-bit in the default build; the cgo code below
// fails to compile against a 64-bit HighsInt build, which is intended: the copy
// routines convert to int32).
type hsInt = C.HighsInt

var _ [unsafe.Sizeof(C.HighsInt(0)) - 4]struct{} // HighsInt must be 32-bit

// instance owns one C Highs object and the C memory of its callback state.
type instance struct {
	mu    sync.Mutex
	h     unsafe.Pointer
	cb    *C.privopt_cb_state
	logH  cgo.Handle
	hasCB bool
}

// newInstance creates a silent HiGHS instance.
func newInstance() *instance {
	in := &instance{h: C.Highs_create()}
	in.cb = (*C.privopt_cb_state)(C.calloc(1, C.size_t(unsafe.Sizeof(C.privopt_cb_state{}))))
	in.setBool("output_flag", false)
	return in
}

// destroy frees the C object; safe to call twice.
func (in *instance) destroy() {
	if in.h != nil {
		C.Highs_destroy(in.h)
		in.h = nil
	}
	if in.cb != nil {
		C.free(unsafe.Pointer(in.cb))
		in.cb = nil
	}
	if in.logH != 0 {
		in.logH.Delete()
		in.logH = 0
	}
}

func cstr(s string) (*C.char, func()) {
	c := C.CString(s)
	return c, func() { C.free(unsafe.Pointer(c)) }
}

func (in *instance) setBool(name string, v bool) error {
	c, free := cstr(name)
	defer free()
	var b C.HighsInt
	if v {
		b = 1
	}
	if C.Highs_setBoolOptionValue(in.h, c, b) == hsStatusError {
		return fmt.Errorf("highs: cannot set option %s = %v", name, v)
	}
	return nil
}

func (in *instance) setInt(name string, v int) error {
	if v > math.MaxInt32 {
		v = math.MaxInt32
	}
	c, free := cstr(name)
	defer free()
	if C.Highs_setIntOptionValue(in.h, c, C.HighsInt(v)) == hsStatusError {
		return fmt.Errorf("highs: cannot set option %s = %d", name, v)
	}
	return nil
}

func (in *instance) setDouble(name string, v float64) error {
	c, free := cstr(name)
	defer free()
	if C.Highs_setDoubleOptionValue(in.h, c, C.double(v)) == hsStatusError {
		return fmt.Errorf("highs: cannot set option %s = %v", name, v)
	}
	return nil
}

func (in *instance) setString(name, v string) error {
	c, free := cstr(name)
	defer free()
	cv, freev := cstr(v)
	defer freev()
	if C.Highs_setStringOptionValue(in.h, c, cv) == hsStatusError {
		return fmt.Errorf("highs: cannot set option %s = %q", name, v)
	}
	return nil
}

func (in *instance) intInfo(name string) int {
	c, free := cstr(name)
	defer free()
	var v C.HighsInt
	if C.Highs_getIntInfoValue(in.h, c, &v) == hsStatusError {
		return 0
	}
	return int(v)
}

// iterations sums the simplex, IPM, crossover, QP and PDLP iteration counts of the last run.
func (in *instance) iterations() int {
	n := 0
	for _, k := range []string{"simplex_iteration_count", "ipm_iteration_count", "crossover_iteration_count", "qp_iteration_count", "pdlp_iteration_count"} {
		if v := in.intInfo(k); v > 0 {
			n += v
		}
	}
	return n
}

// applyOptions sets every HiGHS option that o determines, resetting the ones
// left at their zero value to HiGHS's defaults.
func (in *instance) applyOptions(o *Options) error {
	if C.Highs_resetOptions(in.h) == hsStatusError {
		return fmt.Errorf("highs: cannot reset options")
	}
	set := []error{}
	add := func(err error) { set = append(set, err) }
	if o.TimeLimit > 0 {
		add(in.setDouble("time_limit", o.TimeLimit.Seconds()))
	}
	if o.MaxIterations > 0 {
		add(in.setInt("simplex_iteration_limit", o.MaxIterations))
		add(in.setInt("ipm_iteration_limit", o.MaxIterations))
		add(in.setInt("qp_iteration_limit", o.MaxIterations))
	}
	if o.Threads > 0 {
		add(in.setInt("threads", o.Threads))
	}
	if o.Method != "" {
		add(in.setString("solver", o.Method))
	}
	if o.Presolve != "" {
		add(in.setString("presolve", o.Presolve))
	}
	switch o.Simplex {
	case "dual":
		add(in.setInt("simplex_strategy", 1))
	case "primal":
		add(in.setInt("simplex_strategy", 4))
	}
	if o.PrimalFeasibilityTolerance > 0 {
		add(in.setDouble("primal_feasibility_tolerance", o.PrimalFeasibilityTolerance))
	}
	if o.DualFeasibilityTolerance > 0 {
		add(in.setDouble("dual_feasibility_tolerance", o.DualFeasibilityTolerance))
	}
	if o.OptimalityTolerance > 0 {
		add(in.setDouble("ipm_optimality_tolerance", o.OptimalityTolerance))
	}
	if o.RandomSeed != 0 {
		add(in.setInt("random_seed", o.RandomSeed))
	}
	// Logging: HiGHS prints to stdout unless output_flag is off. With a writer we
	// keep output on but route every line through the logging callback (HiGHS
	// does not print to the console while a logging callback is active).
	if in.logH != 0 {
		in.logH.Delete()
		in.logH = 0
	}
	if o.Log != nil {
		in.logH = cgo.NewHandle(o.Log)
		add(in.setBool("output_flag", true))
		add(in.setBool("log_to_console", true))
	} else {
		add(in.setBool("output_flag", false))
	}
	in.cb.log_handle = C.uintptr_t(in.logH)
	for _, err := range set {
		if err != nil {
			return err
		}
	}
	if !in.hasCB {
		if C.privopt_set_callback(in.h, in.cb) == hsStatusError {
			return fmt.Errorf("highs: cannot install the interrupt callback")
		}
		in.hasCB = true
	}
	for _, t := range []int{callbackSimplexInterrupt, callbackIpmInterrupt} {
		C.Highs_startCallback(in.h, C.int(t))
	}
	if o.Log != nil {
		C.Highs_startCallback(in.h, callbackLogging)
	} else {
		C.Highs_stopCallback(in.h, callbackLogging)
	}
	return nil
}

// testHookInterrupted, when set by a test, is called after the interrupt
// flag has been raised.
var testHookInterrupted func()

// run calls Highs_run, interrupting it (through the simplex and IPM interrupt
// callbacks) when ctx is cancelled. It returns the HiGHS return status, the
// model status and the wall time inside Highs_run.
func (in *instance) run(ctx context.Context) (runStatus, modelStatus int, elapsed time.Duration) {
	if ctx.Err() != nil {
		C.privopt_set_interrupt(in.cb, 1) // stop at the first iteration
	} else {
		C.privopt_set_interrupt(in.cb, 0)
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	if ctx.Done() != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case <-ctx.Done():
				C.privopt_set_interrupt(in.cb, 1)
				if testHookInterrupted != nil {
					testHookInterrupted()
				}
			case <-done:
			}
		}()
	}
	start := time.Now()
	rs := C.Highs_run(in.h)
	elapsed = time.Since(start)
	close(done)
	wg.Wait()
	return int(rs), int(C.Highs_getModelStatus(in.h)), elapsed
}

func (in *instance) numCol() int { return int(C.Highs_getNumCol(in.h)) }
func (in *instance) numRow() int { return int(C.Highs_getNumRow(in.h)) }

// solution copies the primal and dual values out of HiGHS. Any slice may be nil
// only if the corresponding dimension is 0.
func (in *instance) solution(colValue, colDual, rowValue, rowDual []float64) error {
	if C.Highs_getSolution(in.h, dptr(colValue), dptr(colDual), dptr(rowValue), dptr(rowDual)) == hsStatusError {
		return fmt.Errorf("highs: cannot read the solution")
	}
	return nil
}

// dptr returns a C pointer to v's first element, or nil for an empty slice.
func dptr(v []float64) *C.double {
	if len(v) == 0 {
		return nil
	}
	return (*C.double)(unsafe.Pointer(&v[0]))
}

// iptr returns a C pointer to v's first element, or nil for an empty slice.
func iptr(v []int32) *C.HighsInt {
	if len(v) == 0 {
		return nil
	}
	return (*C.HighsInt)(unsafe.Pointer(&v[0]))
}

// logTo is a writer adapter used in tests.
var _ io.Writer = (*nopWriter)(nil)

type nopWriter struct{}

func (nopWriter) Write(p []byte) (int, error) { return len(p), nil }

// passModel copies a whole LP or QP into HiGHS in one call (column-wise A, lower
// triangle of the Hessian column-wise; q arrays nil for an LP).
func (in *instance) passModel(numCol, numRow int, offset float64, cost, colLo, colUp, rowLo, rowUp []float64,
	aStart, aIndex []int32, aValue []float64, qStart, qIndex []int32, qValue []float64) error {
	var st C.HighsInt
	if len(qValue) > 0 {
		st = C.Highs_passModel(in.h, C.HighsInt(numCol), C.HighsInt(numRow), C.HighsInt(len(aValue)), C.HighsInt(len(qValue)),
			1 /* kHighsMatrixFormatColwise */, 1 /* kHighsHessianFormatTriangular */, 1 /* kHighsObjSenseMinimize */, C.double(offset),
			dptr(cost), dptr(colLo), dptr(colUp), dptr(rowLo), dptr(rowUp),
			iptr(aStart), iptr(aIndex), dptr(aValue), iptr(qStart), iptr(qIndex), dptr(qValue), nil)
	} else {
		st = C.Highs_passLp(in.h, C.HighsInt(numCol), C.HighsInt(numRow), C.HighsInt(len(aValue)),
			1 /* kHighsMatrixFormatColwise */, 1 /* kHighsObjSenseMinimize */, C.double(offset),
			dptr(cost), dptr(colLo), dptr(colUp), dptr(rowLo), dptr(rowUp),
			iptr(aStart), iptr(aIndex), dptr(aValue))
	}
	if st == hsStatusError {
		return fmt.Errorf("highs: HiGHS rejected the model (%d columns, %d rows, %d nonzeros)", numCol, numRow, len(aValue))
	}
	return nil
}

// dualRay returns HiGHS's dual ray (a certificate of primal infeasibility in
// HiGHS's row-dual sign convention), or nil when HiGHS has none.
func (in *instance) dualRay(numRow int) []float64 {
	var has C.HighsInt
	ray := make([]float64, numRow)
	if C.Highs_getDualRay(in.h, &has, dptr(ray)) == hsStatusError || has == 0 {
		return nil
	}
	return ray
}

// primalRay returns HiGHS's primal ray (a certificate of unboundedness), or nil.
func (in *instance) primalRay(numCol int) []float64 {
	var has C.HighsInt
	ray := make([]float64, numCol)
	if C.Highs_getPrimalRay(in.h, &has, dptr(ray)) == hsStatusError || has == 0 {
		return nil
	}
	return ray
}

// clearSolver discards HiGHS's solution and basis so the next run starts cold.
func (in *instance) clearSolver() { C.Highs_clearSolver(in.h) }

// zeroObjective replaces the objective by 0 (costs and Hessian), turning the
// model into a feasibility problem.
func (in *instance) zeroObjective(numCol int, hessian bool) error {
	if numCol > 0 {
		zeros := make([]float64, numCol)
		if C.Highs_changeColsCostByRange(in.h, 0, C.HighsInt(numCol-1), dptr(zeros)) == hsStatusError {
			return fmt.Errorf("highs: cannot change the costs")
		}
	}
	if hessian {
		start := make([]int32, numCol+1)
		if C.Highs_passHessian(in.h, C.HighsInt(numCol), 0, 1, iptr(start), nil, nil) == hsStatusError {
			return fmt.Errorf("highs: cannot clear the Hessian")
		}
	}
	return nil
}

// addCols appends columns without matrix entries.
func (in *instance) addCols(cost, lower, upper []float64) error {
	if len(cost) == 0 {
		return nil
	}
	if C.Highs_addCols(in.h, C.HighsInt(len(cost)), dptr(cost), dptr(lower), dptr(upper), 0, nil, nil, nil) == hsStatusError {
		return fmt.Errorf("highs: HiGHS rejected %d new columns", len(cost))
	}
	return nil
}

// addRows appends rows given row-wise (start has one entry per row, plus an
// unused trailing one).
func (in *instance) addRows(lower, upper []float64, start, index []int32, value []float64) error {
	if len(lower) == 0 {
		return nil
	}
	if C.Highs_addRows(in.h, C.HighsInt(len(lower)), dptr(lower), dptr(upper), C.HighsInt(len(value)), iptr(start), iptr(index), dptr(value)) == hsStatusError {
		return fmt.Errorf("highs: HiGHS rejected %d new rows", len(lower))
	}
	return nil
}

// deleteRows deletes the rows in set (sorted, unique).
func (in *instance) deleteRows(set []int32) error {
	if len(set) == 0 {
		return nil
	}
	if C.Highs_deleteRowsBySet(in.h, C.HighsInt(len(set)), iptr(set)) == hsStatusError {
		return fmt.Errorf("highs: HiGHS could not delete %d rows", len(set))
	}
	return nil
}

func (in *instance) setSense(maximize bool) error {
	s := C.HighsInt(1)
	if maximize {
		s = -1
	}
	if C.Highs_changeObjectiveSense(in.h, s) == hsStatusError {
		return fmt.Errorf("highs: cannot change the objective sense")
	}
	return nil
}

func (in *instance) setCosts(cost []float64) error {
	if len(cost) == 0 {
		return nil
	}
	if C.Highs_changeColsCostByRange(in.h, 0, C.HighsInt(len(cost)-1), dptr(cost)) == hsStatusError {
		return fmt.Errorf("highs: cannot change the costs")
	}
	return nil
}

func (in *instance) setColBounds(j int, lo, up float64) error {
	if C.Highs_changeColBounds(in.h, C.HighsInt(j), C.double(lo), C.double(up)) == hsStatusError {
		return fmt.Errorf("highs: cannot change the bounds of column %d", j)
	}
	return nil
}

func (in *instance) setRowBounds(i int, lo, up float64) error {
	if C.Highs_changeRowBounds(in.h, C.HighsInt(i), C.double(lo), C.double(up)) == hsStatusError {
		return fmt.Errorf("highs: cannot change the bounds of row %d", i)
	}
	return nil
}

func (in *instance) objectiveValue() float64 { return float64(C.Highs_getObjectiveValue(in.h)) }

// basis returns the basis status of every column and row.
func (in *instance) basis(nc, nr int) (cols, rows []int32, err error) {
	cols = make([]int32, nc)
	rows = make([]int32, nr)
	if C.Highs_getBasis(in.h, iptr(cols), iptr(rows)) == hsStatusError {
		return nil, nil, fmt.Errorf("highs: no basis available")
	}
	return cols, rows, nil
}

// setBasis passes a basis (column and row statuses) for the next run.
func (in *instance) setBasis(cols, rows []int32) error {
	if C.Highs_setBasis(in.h, iptr(cols), iptr(rows)) == hsStatusError {
		return fmt.Errorf("highs: HiGHS rejected the basis")
	}
	return nil
}

// basisValid reports whether HiGHS holds a valid basis after a run.
func (in *instance) basisValid() bool { return in.intInfo("basis_validity") == 1 }

// rawModel is a model as HiGHS stores it (column-wise A, lower-triangular Hessian).
type rawModel struct {
	numCol, numRow         int
	maximize               bool
	offset                 float64
	cost, colLo, colUp     []float64
	rowLo, rowUp           []float64
	aStart, aIndex         []int32
	aValue                 []float64
	qStart, qIndex         []int32
	qValue                 []float64
	integrality            []int32
	readStatus, readErrMsg string
}

// readModel reads a model file with HiGHS's reader (format from the extension).
func (in *instance) readModel(path string) (*rawModel, error) {
	c, free := cstr(path)
	defer free()
	if C.Highs_readModel(in.h, c) == hsStatusError {
		return nil, fmt.Errorf("highs: HiGHS could not read %q (missing file or syntax error)", path)
	}
	r := &rawModel{numCol: in.numCol(), numRow: in.numRow()}
	nnz := int(C.Highs_getNumNz(in.h))
	qnnz := int(C.Highs_getHessianNumNz(in.h))
	r.cost = make([]float64, r.numCol)
	r.colLo = make([]float64, r.numCol)
	r.colUp = make([]float64, r.numCol)
	r.rowLo = make([]float64, r.numRow)
	r.rowUp = make([]float64, r.numRow)
	r.aStart = make([]int32, r.numCol+1)
	r.aIndex = make([]int32, nnz)
	r.aValue = make([]float64, nnz)
	r.qStart = make([]int32, r.numCol+1)
	r.qIndex = make([]int32, qnnz)
	r.qValue = make([]float64, qnnz)
	r.integrality = make([]int32, r.numCol)
	var nc, nr, nz, qnz, sense C.HighsInt
	var offset C.double
	if C.Highs_getModel(in.h, 1, 1, &nc, &nr, &nz, &qnz, &sense, &offset,
		dptr(r.cost), dptr(r.colLo), dptr(r.colUp), dptr(r.rowLo), dptr(r.rowUp),
		iptr(r.aStart), iptr(r.aIndex), dptr(r.aValue),
		iptr(r.qStart), iptr(r.qIndex), dptr(r.qValue), iptr(r.integrality)) == hsStatusError {
		return nil, fmt.Errorf("highs: cannot extract the model read from %q", path)
	}
	if int(nc) != r.numCol || int(nr) != r.numRow || int(nz) != nnz {
		return nil, fmt.Errorf("highs: inconsistent model sizes from %q", path)
	}
	r.aStart[r.numCol] = int32(nnz)
	if qnnz == 0 {
		r.qStart = nil
	} else {
		r.qStart[r.numCol] = int32(qnnz)
	}
	r.maximize = sense == -1
	r.offset = float64(offset)
	return r, nil
}

// cbuf is memory allocated with C.malloc for data that is only passed to
// HiGHS (which copies it): it stays out of the Go heap and is released as soon
// as the bulk call returns, instead of waiting for a garbage collection.
type cbuf struct{ ptrs []unsafe.Pointer }

// int32s returns a slice of n int32 in C memory (nil for n = 0).
func (b *cbuf) int32s(n int) []int32 {
	if n == 0 {
		return nil
	}
	p := C.malloc(C.size_t(n) * 4)
	if p == nil {
		panic("highs: out of memory")
	}
	b.ptrs = append(b.ptrs, p)
	return unsafe.Slice((*int32)(p), n)
}

// float64s returns a slice of n float64 in C memory (nil for n = 0).
func (b *cbuf) float64s(n int) []float64 {
	if n == 0 {
		return nil
	}
	p := C.malloc(C.size_t(n) * 8)
	if p == nil {
		panic("highs: out of memory")
	}
	b.ptrs = append(b.ptrs, p)
	return unsafe.Slice((*float64)(p), n)
}

// free releases every buffer; the slices must not be used afterwards.
func (b *cbuf) free() {
	for _, p := range b.ptrs {
		C.free(p)
	}
	b.ptrs = nil
}
