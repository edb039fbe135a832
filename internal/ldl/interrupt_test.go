package ldl

import (
	"errors"
	"math/rand/v2"
	"testing"
)

// TestInterrupt: an interrupt that fires stops Factor and Refactor with
// ErrInterrupted (simplicial and supernodal); after removing it the same
// Symbolic factorizes and solves to a small residual.
func TestInterrupt(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	a, signs := quasiDefinite(rng, 300, 200, 0.02)
	for _, m := range []Method{Simplicial, Supernodal} {
		sym := mustAnalyze(t, a, Options{Method: m})
		calls := 0
		sym.SetInterrupt(func() bool { calls++; return true })
		if _, err := sym.Factor(a, signs, Regularization{Eps: 1e-13, Delta: 1e-7}); !errors.Is(err, ErrInterrupted) {
			t.Fatalf("%v: Factor with a firing interrupt: %v", m, err)
		}
		if calls != 1 {
			t.Errorf("%v: interrupt polled %d times before stopping, want 1", m, calls)
		}
		sym.SetInterrupt(func() bool { return false })
		f, err := sym.Factor(a, signs, Regularization{Eps: 1e-13, Delta: 1e-7})
		if err != nil {
			t.Fatal(err)
		}
		sym.SetInterrupt(func() bool { return true })
		if err := f.Refactor(a); !errors.Is(err, ErrInterrupted) {
			t.Fatalf("%v: Refactor with a firing interrupt: %v", m, err)
		}
		sym.SetInterrupt(nil)
		if err := f.Refactor(a); err != nil {
			t.Fatal(err)
		}
		b := randVec(rng, a.Cols)
		if r := relResidual(a, f.Solve(nil, b), b); r > 1e-10 {
			t.Errorf("%v: residual %g after an interrupted factorization", m, r)
		}
	}
}
