package highs

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/sparse"
)

// TestWarmStartCuttingPlanes solves a sequence of LPs that grow by rows (a
// cutting-plane loop; the rows of each problem in a new order, and once with
// a row removed) cold and with one solver.WarmStart: the optima must agree
// (the warm start changes the path, not the answer) and the warm sequence
// must need fewer simplex iterations in total.
func TestWarmStartCuttingPlanes(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	const n = 60
	c := make([]float64, n)
	for j := range c {
		c[j] = -1 - rng.Float64() // maximize a positive combination
	}
	var rowsT []*sparse.CSC
	var ups [][]float64
	ws := &solver.WarmStart{}
	s := New()
	ctx := context.Background()
	coldIt, warmIt, warmUsed := 0, 0, 0
	for round := 0; round < 8; round++ {
		r, _, up := cutRows(rng, n, 15)
		rowsT, ups = append(rowsT, r), append(ups, up)
		if round == 5 { // drop the first block: rows that may be nonbasic disappear
			rowsT, ups = rowsT[1:], ups[1:]
		}
		// New blocks first: the row order changes every round.
		rev := make([]*sparse.CSC, len(rowsT))
		revUp := make([][]float64, len(ups))
		for k := range rowsT {
			rev[len(rowsT)-1-k], revUp[len(ups)-1-k] = rowsT[k], ups[k]
		}
		p := stdFormOf(c, rev, revUp)
		cold, err := s.Solve(ctx, p, solver.Settings{})
		if err != nil || cold.Status != solver.Optimal {
			t.Fatalf("round %d: cold solve: %v %v", round, err, cold.Status)
		}
		if ws.Load("highs") != nil {
			warmUsed++
		}
		warm, err := s.Solve(ctx, p, solver.Settings{Warm: ws})
		if err != nil || warm.Status != solver.Optimal {
			t.Fatalf("round %d: warm solve: %v %v", round, err, warm.Status)
		}
		if d := math.Abs(warm.Objective - cold.Objective); d > 1e-7*(1+math.Abs(cold.Objective)) {
			t.Fatalf("round %d: warm optimum %.12g, cold %.12g", round, warm.Objective, cold.Objective)
		}
		if round > 0 {
			coldIt += cold.Iterations
			warmIt += warm.Iterations
		}
	}
	if warmUsed != 7 {
		t.Fatalf("the warm state was kept for %d of 7 restarts", warmUsed)
	}
	if warmIt >= coldIt {
		t.Fatalf("warm restarts took %d simplex iterations, cold solves %d", warmIt, coldIt)
	}
	t.Logf("iterations after the first round: cold %d, warm %d", coldIt, warmIt)
}

// TestWarmStartMismatch: a state from a problem with another number of
// columns is ignored (a cold start) and the answer is still the optimum.
func TestWarmStartMismatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	ws := &solver.WarmStart{}
	ctx := context.Background()
	for _, n := range []int{20, 30} {
		c := make([]float64, n)
		for j := range c {
			c[j] = -1
		}
		r, _, up := cutRows(rng, n, 10)
		p := stdFormOf(c, []*sparse.CSC{r}, [][]float64{up})
		cold, err := New().Solve(ctx, p, solver.Settings{})
		if err != nil || cold.Status != solver.Optimal {
			t.Fatal(err, cold.Status)
		}
		warm, err := New().Solve(ctx, p, solver.Settings{Warm: ws})
		if err != nil || warm.Status != solver.Optimal {
			t.Fatal(err, warm.Status)
		}
		if math.Abs(warm.Objective-cold.Objective) > 1e-7*(1+math.Abs(cold.Objective)) {
			t.Fatalf("n = %d: warm %.12g, cold %.12g", n, warm.Objective, cold.Objective)
		}
	}
	if st, _ := ws.Load("highs").(*warmState); st == nil || st.numCol != 30 {
		t.Fatalf("the state is not the last solve's: %+v", st)
	}
}

// TestFitStatus: nonbasic statuses move to a finite bound.
func TestFitStatus(t *testing.T) {
	inf := math.Inf(1)
	for _, c := range []struct {
		st     BasisStatus
		lo, up float64
		want   BasisStatus
	}{
		{AtUpper, 0, 1, AtUpper},
		{AtLower, 0, 1, AtLower},
		{AtLower, -inf, 1, AtUpper},
		{AtUpper, 0, inf, AtLower},
		{AtLower, -inf, inf, AtZero},
		{Basic, -inf, inf, Basic},
	} {
		if got := fitStatus(int32(c.st), c.lo, c.up); got != int32(c.want) {
			t.Errorf("fitStatus(%d, %v, %v) = %d, want %d", c.st, c.lo, c.up, got, c.want)
		}
	}
}
