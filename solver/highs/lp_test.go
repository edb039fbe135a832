package highs

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/sparse"
)

// cutRows returns k random rows a·x ≤ b with a ≥ 0 (sparse) over n columns, as
// the transposed CSC AddRows takes, with their upper bounds.
func cutRows(rng *rand.Rand, n, k int) (*sparse.CSC, []float64, []float64) {
	t := sparse.NewTriplets(n, k, k*n/4)
	lo := make([]float64, k)
	up := make([]float64, k)
	for r := 0; r < k; r++ {
		for j := 0; j < n; j++ {
			if rng.Float64() < 0.25 {
				t.Append(j, r, rng.Float64())
			}
		}
		lo[r] = math.Inf(-1)
		up[r] = 1 + 4*rng.Float64()
	}
	return t.ToCSC(), lo, up
}

// stdFormOf turns the LP min cᵀx, Ax ≤ u (rows given transposed), 0 ≤ x ≤ 10
// into privopt's standard form, solved through Solver as an independent check.
func stdFormOf(c []float64, rowsT []*sparse.CSC, ups [][]float64) *solver.Problem {
	n := len(c)
	m := 0
	for _, r := range rowsT {
		m += r.Cols
	}
	t := sparse.NewTriplets(m+2*n, n, 0)
	b := make([]float64, 0, m+2*n)
	i := 0
	for k, r := range rowsT {
		for col := 0; col < r.Cols; col++ {
			for p := r.ColPtr[col]; p < r.ColPtr[col+1]; p++ {
				t.Append(i, r.RowIdx[p], r.Val[p])
			}
			b = append(b, ups[k][col])
			i++
		}
	}
	for j := 0; j < n; j++ {
		t.Append(m+2*j, j, 1)
		t.Append(m+2*j+1, j, -1)
		b = append(b, 10, 0)
	}
	return &solver.Problem{Q: c, A: t.ToCSC(), B: b, Cones: []cone.Cone{cone.NewNonnegative(m + 2*n)}}
}

func newBoxLP(t *testing.T, c []float64) *LP {
	t.Helper()
	n := len(c)
	lo := make([]float64, n)
	up := make([]float64, n)
	for j := range up {
		up[j] = 10
	}
	lp := NewLP(Options{})
	if err := lp.AddColumns(c, lo, up); err != nil {
		t.Fatal(err)
	}
	return lp
}

// TestLPCuttingPlane adds cuts in batches, re-solving warm after each, and
// checks the final optimum against a cold solve of the final LP and against the
// standard-form backend; then deletes rows and checks again.
func TestLPCuttingPlane(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(7, 8))
	n, batches, k := 60, 8, 40
	c := make([]float64, n)
	for j := range c {
		c[j] = -rng.Float64()
	}
	lp := newBoxLP(t, c)
	defer lp.Close()
	var all []*sparse.CSC
	var ups [][]float64
	var last *LPResult
	for b := 0; b < batches; b++ {
		rows, lo, up := cutRows(rng, n, k)
		all = append(all, rows)
		ups = append(ups, up)
		if err := lp.AddRows(lo, up, rows); err != nil {
			t.Fatal(err)
		}
		res, err := lp.Solve(ctx)
		if err != nil || res.Status != solver.Optimal {
			t.Fatalf("batch %d: %v %v", b, err, res)
		}
		if last != nil && res.Objective < last.Objective-1e-9 {
			t.Errorf("batch %d: objective decreased from %v to %v after adding cuts", b, last.Objective, res.Objective)
		}
		last = res
	}
	if lp.NumRows() != batches*k || lp.NumCols() != n {
		t.Fatalf("size %d×%d", lp.NumRows(), lp.NumCols())
	}
	// Cold solve of the same final LP in a fresh instance.
	cold := newBoxLP(t, c)
	defer cold.Close()
	for b := range all {
		lo := make([]float64, all[b].Cols)
		for i := range lo {
			lo[i] = math.Inf(-1)
		}
		if err := cold.AddRows(lo, ups[b], all[b]); err != nil {
			t.Fatal(err)
		}
	}
	cres, err := cold.Solve(ctx)
	if err != nil || cres.Status != solver.Optimal {
		t.Fatalf("cold: %v %v", err, cres)
	}
	if !near(last.Objective, cres.Objective, 1e-9) {
		t.Errorf("warm objective %v, cold %v", last.Objective, cres.Objective)
	}
	std := solve(t, stdFormOf(c, all, ups))
	if !near(last.Objective, std.Objective, 1e-9) {
		t.Errorf("LP objective %v, standard-form backend %v", last.Objective, std.Objective)
	}
	t.Logf("last warm re-solve: %d iterations; cold solve of the final LP: %d", last.Iterations, cres.Iterations)
	if last.Iterations > cres.Iterations {
		t.Errorf("warm re-solve took %d iterations, more than the cold solve's %d", last.Iterations, cres.Iterations)
	}
	// Duals in HiGHS's convention: c − Aᵀλ = d, λ ≤ 0 on rows at their upper bound.
	checkLPDuals(t, c, all, last)

	// Delete the first two batches and compare with the standard form of the rest.
	del := make([]int, 0, 2*k)
	for i := 0; i < 2*k; i++ {
		del = append(del, 2*k-1-i) // unsorted on purpose
	}
	if err := lp.DeleteRows(del); err != nil {
		t.Fatal(err)
	}
	if lp.NumRows() != (batches-2)*k {
		t.Fatalf("after deletion %d rows, want %d", lp.NumRows(), (batches-2)*k)
	}
	res, err := lp.Solve(ctx)
	if err != nil || res.Status != solver.Optimal {
		t.Fatalf("after deletion: %v %v", err, res)
	}
	std = solve(t, stdFormOf(c, all[2:], ups[2:]))
	if !near(res.Objective, std.Objective, 1e-9) {
		t.Errorf("after deletion objective %v, standard-form backend %v", res.Objective, std.Objective)
	}
}

func checkLPDuals(t *testing.T, c []float64, rowsT []*sparse.CSC, res *LPResult) {
	t.Helper()
	d := append([]float64(nil), c...)
	i := 0
	for _, r := range rowsT {
		for col := 0; col < r.Cols; col++ {
			for p := r.ColPtr[col]; p < r.ColPtr[col+1]; p++ {
				d[r.RowIdx[p]] -= r.Val[p] * res.RowDual[i]
			}
			if res.RowDual[i] > 1e-9 {
				t.Errorf("row %d (≤ row of a minimization) has dual %v > 0", i, res.RowDual[i])
			}
			i++
		}
	}
	for j := range d {
		if math.Abs(d[j]-res.ColDual[j]) > 1e-9 {
			t.Errorf("reduced cost %d: c − Aᵀλ = %v, HiGHS %v", j, d[j], res.ColDual[j])
		}
	}
}

func TestLPErrors(t *testing.T) {
	lp := NewLP(Options{})
	defer lp.Close()
	if err := lp.AddColumns([]float64{1}, []float64{1}, []float64{0}); err == nil {
		t.Error("lower > upper accepted")
	}
	if err := lp.AddColumns([]float64{math.NaN()}, []float64{0}, []float64{1}); err == nil {
		t.Error("NaN cost accepted")
	}
	if err := lp.AddColumns([]float64{1, 1}, []float64{0, 0}, []float64{1, 1}); err != nil {
		t.Fatal(err)
	}
	if err := lp.AddRows([]float64{0}, []float64{1}, sparse.NewCSC(3, 1)); err == nil {
		t.Error("wrong row shape accepted")
	}
	if err := lp.AddRows([]float64{0}, []float64{1}, sparse.NewCSC(2, 1)); err != nil {
		t.Errorf("empty row rejected: %v", err)
	}
	if err := lp.DeleteRows([]int{5}); err == nil {
		t.Error("out-of-range deletion accepted")
	}
	if err := lp.SetObjectiveSense(true); err != nil {
		t.Fatal(err)
	}
	res, err := lp.Solve(context.Background())
	if err != nil || res.Status != solver.Optimal || !near(res.Objective, 2, 1e-12) {
		t.Errorf("max x+y on the unit box: %v %+v", err, res)
	}
	lp.Close()
	if _, err := lp.Solve(context.Background()); err != ErrClosed {
		t.Errorf("after Close: %v", err)
	}
	bad := NewLP(Options{Method: "magic"})
	if err := bad.AddColumns(nil, nil, nil); err == nil {
		t.Error("invalid options not reported")
	}
}

func TestLPUnboundedAndInfeasible(t *testing.T) {
	ctx := context.Background()
	lp := NewLP(Options{})
	defer lp.Close()
	inf := math.Inf(1)
	if err := lp.AddColumns([]float64{-1, 0}, []float64{0, 0}, []float64{inf, inf}); err != nil {
		t.Fatal(err)
	}
	// x − y ≤ 1: unbounded along (1, 1).
	rows := sparse.NewTriplets(2, 1, 2)
	rows.Append(0, 0, 1)
	rows.Append(1, 0, -1)
	if err := lp.AddRows([]float64{math.Inf(-1)}, []float64{1}, rows.ToCSC()); err != nil {
		t.Fatal(err)
	}
	res, err := lp.Solve(ctx)
	if err != nil || res.Status != solver.DualInfeasible {
		t.Fatalf("got %v %+v, want unbounded", err, res)
	}
	// x + y ≤ −1 makes it infeasible.
	rows = sparse.NewTriplets(2, 1, 2)
	rows.Append(0, 0, 1)
	rows.Append(1, 0, 1)
	if err := lp.AddRows([]float64{math.Inf(-1)}, []float64{-1}, rows.ToCSC()); err != nil {
		t.Fatal(err)
	}
	res, err = lp.Solve(ctx)
	if err != nil || res.Status != solver.PrimalInfeasible {
		t.Fatalf("got %v %+v, want infeasible", err, res)
	}
	// Deleting it restores unboundedness.
	if err := lp.DeleteRows([]int{1}); err != nil {
		t.Fatal(err)
	}
	res, err = lp.Solve(ctx)
	if err != nil || res.Status != solver.DualInfeasible {
		t.Fatalf("got %v %+v, want unbounded", err, res)
	}
}

// TestLPSimplexPrimal re-solves one LP under a sequence of objectives (the
// pattern of bound tightening: only the costs change) with Simplex "primal"
// and "dual": every optimum agrees with the standard-form backend's, and the
// primal simplex's duals satisfy c − Aᵀλ = reduced costs.
func TestLPSimplexPrimal(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(3, 4))
	n, k := 40, 60
	rows, lo, up := cutRows(rng, n, k)
	lps := map[string]*LP{}
	for _, s := range []string{"primal", "dual"} {
		lp := NewLP(Options{Simplex: s, Presolve: "off"})
		defer lp.Close()
		zero, ten := make([]float64, n), make([]float64, n)
		for j := range ten {
			ten[j] = 10
		}
		if err := lp.AddColumns(zero, zero, ten); err != nil {
			t.Fatal(err)
		}
		if err := lp.AddRows(lo, up, rows); err != nil {
			t.Fatal(err)
		}
		lps[s] = lp
	}
	for trial := 0; trial < 12; trial++ {
		c := make([]float64, n)
		for j := range c {
			c[j] = rng.Float64() - 0.7
		}
		std := solve(t, stdFormOf(c, []*sparse.CSC{rows}, [][]float64{up}))
		for s, lp := range lps {
			if err := lp.SetCosts(c); err != nil {
				t.Fatal(err)
			}
			res, err := lp.Solve(ctx)
			if err != nil || res.Status != solver.Optimal {
				t.Fatalf("%s, objective %d: %v %v", s, trial, err, res)
			}
			if !near(res.Objective, std.Objective, 1e-9) {
				t.Errorf("%s, objective %d: %v, standard-form backend %v", s, trial, res.Objective, std.Objective)
			}
			if s == "primal" {
				checkLPDuals(t, c, []*sparse.CSC{rows}, res)
			}
		}
	}
}

// TestLPSetIterationLimit: a cap of one simplex iteration stops an LP that
// needs more (status IterationLimit, deterministic), and removing the cap
// (k ≤ 0) lets the next solve reach the optimum of max Σx over
// x_j + x_{j+1} ≤ 1, 0 ≤ x ≤ 10 (n = 20: the optimum is 10).
func TestLPSetIterationLimit(t *testing.T) {
	const n = 20
	lp := NewLP(Options{Presolve: "off", Method: "simplex"})
	defer lp.Close()
	c, lo, up := make([]float64, n), make([]float64, n), make([]float64, n)
	for j := range c {
		c[j], up[j] = 1, 10
	}
	if err := lp.AddColumns(c, lo, up); err != nil {
		t.Fatal(err)
	}
	tr := sparse.NewTriplets(n, n-1, 2*(n-1)) // AddRows takes the rows as columns
	rlo, rup := make([]float64, n-1), make([]float64, n-1)
	for i := 0; i < n-1; i++ {
		tr.Append(i, i, 1)
		tr.Append(i+1, i, 1)
		rlo[i], rup[i] = math.Inf(-1), 1
	}
	if err := lp.AddRows(rlo, rup, tr.ToCSC()); err != nil {
		t.Fatal(err)
	}
	if err := lp.SetObjectiveSense(true); err != nil {
		t.Fatal(err)
	}
	if err := lp.SetIterationLimit(1); err != nil {
		t.Fatal(err)
	}
	r, err := lp.Solve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != solver.IterationLimit || r.Iterations > 1 {
		t.Fatalf("capped at 1: status %v after %d iterations, want iteration-limit", r.Status, r.Iterations)
	}
	if err := lp.SetIterationLimit(0); err != nil {
		t.Fatal(err)
	}
	r, err = lp.Solve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != solver.Optimal || math.Abs(r.Objective-10) > 1e-9 {
		t.Fatalf("uncapped: %v %v, want optimal 10", r.Status, r.Objective)
	}
}
