package highs

import (
	"math"

	"github.com/privopt/privopt/solver"
)

// warmState is what Solve keeps in solver.Settings.Warm: the final basis of
// the last solve and, for each of its rows, a key of the row's coefficients
// (so that the rows of the next problem find theirs whatever their order).
type warmState struct {
	numCol int
	cols   []int32  // column statuses
	rows   []int32  // row statuses
	keys   []uint64 // rowKeys of the rows
}

// rowKeys hashes each kept row's coefficients (column indices and values, in
// column order). Equal rows get equal keys; a collision between different
// rows only weakens the warm start (every answer is certified anyway).
func (d *stdLP) rowKeys() []uint64 {
	h := make([]uint64, d.numRow)
	for i := range h {
		h[i] = 0xcbf29ce484222325
	}
	for j := 0; j < d.numCol; j++ {
		for k := d.aStart[j]; k < d.aStart[j+1]; k++ {
			r := d.aIndex[k]
			x := uint64(j)*0x9e3779b97f4a7c15 ^ math.Float64bits(d.aValue[k])
			x ^= x >> 31
			h[r] = (h[r] ^ x) * 0x100000001b3
		}
	}
	return h
}

// warmBasis maps the previous solve's basis onto d: columns keep their
// status (same number of columns), rows take the status of the previous row
// with the same key (the first unused one) and new rows are basic (their
// slack). A nonbasic status is moved to a finite bound of the new bounds
// (free: zero). It returns nil when no basis results (fewer basic variables
// than rows, only after a key collision), and the next solve then starts cold.
func (d *stdLP) warmBasis(w *warmState, keys []uint64) (cols, rows []int32) {
	if w == nil || w.numCol != d.numCol || len(w.cols) != d.numCol {
		return nil, nil
	}
	prev := make(map[uint64][]int, len(w.keys))
	for i, k := range w.keys {
		prev[k] = append(prev[k], i)
	}
	basic := 0
	cols = make([]int32, d.numCol)
	for j, st := range w.cols {
		cols[j] = fitStatus(st, d.colLo[j], d.colUp[j])
		if cols[j] == int32(Basic) {
			basic++
		}
	}
	rows = make([]int32, d.numRow)
	isNew := make([]bool, d.numRow)
	for r, k := range keys {
		st := int32(Basic)
		if q := prev[k]; len(q) > 0 {
			st, prev[k] = w.rows[q[0]], q[1:]
		} else {
			isNew[r] = true
		}
		rows[r] = fitStatus(st, d.rowLo[r], d.rowUp[r])
		if rows[r] == int32(Basic) {
			basic++
		}
	}
	// A row that was nonbasic has gone (the upper copy's extra row of
	// package chance, a deleted cut): one basic variable too many per such
	// row. Make the last new rows nonbasic at a bound (a new cut was
	// violated, so it is likely active at the next optimum); if the basis
	// matrix is then singular, HiGHS's rank-deficiency repair replaces
	// columns by slacks.
	for r := d.numRow - 1; r >= 0 && basic > d.numRow; r-- {
		if isNew[r] && rows[r] == int32(Basic) {
			rows[r] = fitStatus(int32(AtUpper), d.rowLo[r], d.rowUp[r])
			basic--
		}
	}
	if basic != d.numRow {
		return nil, nil
	}
	return cols, rows
}

// fitStatus returns st, a nonbasic status moved to a finite bound of [lo, up].
func fitStatus(st int32, lo, up float64) int32 {
	if st == int32(Basic) {
		return st
	}
	switch {
	case st == int32(AtUpper) && !math.IsInf(up, 1):
		return int32(AtUpper)
	case !math.IsInf(lo, -1):
		return int32(AtLower)
	case !math.IsInf(up, 1):
		return int32(AtUpper)
	}
	return int32(AtZero)
}

// warmStart returns the row keys of d (for saveWarm) and the basis kept in
// ws mapped onto d (nil when none fits). It must run before d.pass releases
// the matrix copy; it does nothing for QPs (HiGHS's active-set QP solver is
// not restarted from a simplex basis here).
func (d *stdLP) warmStart(ws *solver.WarmStart) (keys []uint64, cols, rows []int32) {
	if ws == nil || d.hessian {
		return nil, nil, nil
	}
	keys = d.rowKeys()
	w, _ := ws.Load("highs").(*warmState)
	cols, rows = d.warmBasis(w, keys)
	return keys, cols, rows
}

// saveWarm stores HiGHS's final basis in ws (nothing when HiGHS holds no
// valid basis: the next solve then starts cold).
func saveWarm(in *instance, ws *solver.WarmStart, keys []uint64, numCol int) {
	if ws == nil || keys == nil {
		return
	}
	if !in.basisValid() {
		ws.Store("highs", nil)
		return
	}
	cols, rows, err := in.basis(numCol, len(keys))
	if err != nil {
		ws.Store("highs", nil)
		return
	}
	ws.Store("highs", &warmState{numCol: numCol, cols: cols, rows: rows, keys: keys})
}
