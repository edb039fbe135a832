package grid

import (
	"math"
	"testing"

	"github.com/privopt/privopt/lpdual"
)

func debugInf(t *testing.T, lp *lpdual.LP, c, y lpdual.Sparse) {
	r := map[int]float64{}
	for k, j := range c.Idx {
		r[j] += c.Val[k]
	}
	for k, i := range y.Idx {
		if y.Val[k] > 0 && math.IsInf(lp.RowHi[i], 0) || y.Val[k] < 0 && math.IsInf(lp.RowLo[i], 0) {
			t.Logf("row %d y %v range [%v, %v]", i, y.Val[k], lp.RowLo[i], lp.RowHi[i])
		}
		for q := lp.RowPtr[i]; q < lp.RowPtr[i+1]; q++ {
			r[lp.Col[q]] -= lp.Val[q] * y.Val[k]
		}
	}
	for j, v := range r {
		if v != 0 && (math.IsInf(lp.Lo[j], 0) || math.IsInf(lp.Hi[j], 0)) {
			t.Logf("col %d r %v box [%v, %v]", j, v, lp.Lo[j], lp.Hi[j])
		}
	}
}
