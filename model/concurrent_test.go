package model

import (
	"context"
	"math"
	"sync"
	"testing"
)

// TestConcurrentUse materializes a shared lazy expression and canonicalizes
// and solves one built model from several goroutines (run with -race to
// check the absence of data races); every goroutine must see the same
// numbers.
func TestConcurrentUse(t *testing.T) {
	m := New("conc")
	x := m.Vector("x", 50)
	var e Expr = Zeros(1)
	for i := 0; i < 50; i++ {
		e = e.Add(x.At(i).Scale(float64(i%7) - 3))
	}
	prefix := e
	for i := 0; i < 50; i++ {
		e = e.Sub(x.At(49 - i))
	}
	m.Bound(x, -1, 1)
	m.LessEq("sum", x.Expr().Sum(), Const(3))
	m.Minimize(e)
	ones := make([]float64, 50)
	for i := range ones {
		ones[i] = 1
	}
	var wg sync.WaitGroup
	vals := make([]float64, 8)
	objs := make([]float64, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			vals[g] = e.Eval(ones)[0] + prefix.Eval(ones)[0]
			res, err := m.Solve(context.Background(), SolveOptions{})
			if err != nil || !res.Status.OK() {
				t.Errorf("goroutine %d: %v %v", g, err, res)
				return
			}
			objs[g] = res.Objective
		}()
	}
	wg.Wait()
	// Σ(i%7 − 3) over i < 50, twice (e and prefix), minus 50 for the Sub chain.
	want := -50.0
	for i := 0; i < 50; i++ {
		want += 2 * (float64(i%7) - 3)
	}
	for g := range vals {
		if vals[g] != want || objs[g] != objs[0] || math.IsNaN(objs[g]) {
			t.Errorf("goroutine %d: value %v (want %v), objective %v (first %v)", g, vals[g], want, objs[g], objs[0])
		}
	}
}
