package lpdual

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/highs"
	"github.com/privopt/privopt/sparse"
)

// randomLP returns a feasible random program with ranged rows (some
// equalities, some one-sided) and boxed columns, and its HiGHS form.
func randomLP(rng *rand.Rand, m, n int) (*LP, []float64) {
	lp := &LP{Lo: make([]float64, n), Hi: make([]float64, n)}
	x0 := make([]float64, n) // a strictly feasible point
	for j := range lp.Lo {
		lp.Lo[j] = -1 - 3*rng.Float64()
		lp.Hi[j] = 1 + 3*rng.Float64()
		x0[j] = lp.Lo[j] + (lp.Hi[j]-lp.Lo[j])*(0.2+0.6*rng.Float64())
	}
	for i := 0; i < m; i++ {
		var col []int
		var val []float64
		act := 0.0
		for j := 0; j < n; j++ {
			if rng.Float64() < 0.4 {
				v := rng.NormFloat64()
				col, val = append(col, j), append(val, v)
				act += v * x0[j]
			}
		}
		lo, hi := act-rng.Float64(), act+rng.Float64()
		switch i % 4 {
		case 0:
			lo, hi = act, act
		case 1:
			lo = math.Inf(-1)
		case 2:
			hi = math.Inf(1)
		}
		lp.AddRow(lo, hi, col, val)
	}
	c := make([]float64, n)
	for j := range c {
		c[j] = rng.NormFloat64()
	}
	return lp, c
}

func solve(t *testing.T, lp *LP, c []float64, maximize bool) *highs.LPResult {
	t.Helper()
	h := highs.NewLP(highs.Options{})
	defer h.Close()
	if err := h.AddColumns(c, lp.Lo, lp.Hi); err != nil {
		t.Fatal(err)
	}
	tr := sparse.NewTriplets(lp.NumCols(), lp.NumRows(), len(lp.Val))
	for i := 0; i < lp.NumRows(); i++ {
		for k := lp.RowPtr[i]; k < lp.RowPtr[i+1]; k++ {
			tr.Append(lp.Col[k], i, lp.Val[k])
		}
	}
	if err := h.AddRows(lp.RowLo, lp.RowHi, tr.ToCSC()); err != nil {
		t.Fatal(err)
	}
	if err := h.SetObjectiveSense(maximize); err != nil {
		t.Fatal(err)
	}
	r, err := h.Solve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != solver.Optimal {
		t.Fatalf("status %v", r.Status)
	}
	return r
}

// The safe bound from HiGHS's dual is ≥ the optimum and within 1e-7
// (relative) of it, on random programs; the primal bound likewise for
// minimization with generous dual boxes.
func TestRandomLPs(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 4))
	var ws Workspace
	for trial := 0; trial < 60; trial++ {
		m, n := 3+rng.IntN(25), 2+rng.IntN(30)
		lp, c := randomLP(rng, m, n)
		if err := lp.Validate(); err != nil {
			t.Fatal(err)
		}
		r := solve(t, lp, c, true)
		b, err := MaxBound(lp, FromDense(c), FromDense(r.RowDual), &ws)
		if err != nil {
			t.Fatal(err)
		}
		tol := 1e-7 * (1 + math.Abs(r.Objective))
		if b < r.Objective-1e-9*(1+math.Abs(r.Objective)) || b > r.Objective+tol {
			t.Errorf("trial %d: safe bound %.12g, optimum %.12g", trial, b, r.Objective)
		}
		// The bound from the multipliers is valid for any y: a perturbed
		// dual still bounds the optimum (looser).
		y := append([]float64(nil), r.RowDual...)
		for i := range y {
			y[i] += 0.01 * rng.NormFloat64()
		}
		if pb, _ := MaxBound(lp, FromDense(c), FromDense(y), &ws); pb < r.Objective-1e-9*(1+math.Abs(r.Objective)) {
			t.Errorf("trial %d: perturbed dual bound %.12g below the optimum %.12g", trial, pb, r.Objective)
		}
		// Minimization: x from HiGHS, dual boxes ±(|y*|+1).
		rm := solve(t, lp, c, false)
		ylo, yhi := make([]float64, m), make([]float64, m)
		for i, v := range rm.RowDual {
			ylo[i], yhi[i] = -math.Abs(v)-1, math.Abs(v)+1
		}
		ub, err := MinUpperBound(lp, c, FromDense(rm.X), ylo, yhi)
		if err != nil {
			t.Fatal(err)
		}
		if ub < rm.Objective-1e-9*(1+math.Abs(rm.Objective)) || ub > rm.Objective+1e-7*(1+math.Abs(rm.Objective)) {
			t.Errorf("trial %d: primal upper bound %.12g, minimum %.12g", trial, ub, rm.Objective)
		}
	}
}

// A dual pushed towards an infinite row bound, or a reduced cost met by an
// infinite column bound, gives +Inf; malformed vectors are errors.
func TestInfiniteAndMalformed(t *testing.T) {
	lp := &LP{Lo: []float64{0, math.Inf(-1)}, Hi: []float64{1, math.Inf(1)}}
	lp.AddRow(math.Inf(-1), 2, []int{0, 1}, []float64{1, 1}) // x0 + x1 ≤ 2
	c := Sparse{Idx: []int{0}, Val: []float64{1}}
	// A negative multiplier on a ≤ row is dropped: the bound is the box's.
	if b, _ := MaxBound(lp, c, Sparse{Idx: []int{0}, Val: []float64{-1}}, nil); b != 1 {
		t.Errorf("negative multiplier on a ≤ row: %v, want 1", b)
	}
	if b, _ := MaxBound(lp, c, Sparse{Idx: []int{0}, Val: []float64{0.5}}, nil); !math.IsInf(b, 1) {
		t.Errorf("reduced cost on a free column: %v, want +Inf", b)
	}
	if b, _ := MaxBound(lp, c, Sparse{}, nil); b != 1 {
		t.Errorf("no multiplier: %v, want 1 (the column box)", b)
	}
	if _, err := MaxBound(lp, c, Sparse{Idx: []int{3}, Val: []float64{1}}, nil); err == nil {
		t.Error("a dual index out of range was accepted")
	}
	if _, err := MaxBound(lp, c, Sparse{Idx: []int{0}, Val: []float64{math.NaN()}}, nil); err == nil {
		t.Error("a NaN dual was accepted")
	}
}

// Outward rounding: the bound of max x over 0 ≤ x ≤ 0.1 from y = 0 is the
// float 0.1's value, and a sum that rounds to nearest below the exact value
// is rounded up.
func TestOutwardRounding(t *testing.T) {
	lp := &LP{Lo: []float64{0, 0, 0}, Hi: []float64{0.1, 0.2, 0.3}}
	lp.AddRow(math.Inf(-1), math.Inf(1), nil, nil)
	b, err := MaxBound(lp, FromDense([]float64{1, 1, 1}), Sparse{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// 0.1 + 0.2 + 0.3 in float64 rounds to 0.6000000000000001; the exact
	// sum of the three floats is above 0.6, so the bound must exceed 0.6.
	if !(b > 0.6) {
		t.Errorf("bound %v is not above 0.6", b)
	}
}
