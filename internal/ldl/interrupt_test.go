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

// TestAnalyzeInterrupt: Options.Interrupt stops the symbolic analysis (the
// AMD loop itself and the O(nnz(L)) passes) at the first poll that fires, for
// every poll position; a never-firing interrupt changes nothing, and the
// result's numeric factorizations poll the same function.
func TestAnalyzeInterrupt(t *testing.T) {
	a := gridLaplacian(100) // n = 10,000
	for _, m := range []Method{Simplicial, Supernodal} {
		ref := mustAnalyze(t, a, Options{Method: m})
		polls := 0
		sym := mustAnalyze(t, a, Options{Method: m, Interrupt: func() bool { polls++; return false }})
		if got, want := sym.NnzL(), ref.NnzL(); got != want {
			t.Fatalf("%v: nnz(L) %d with a silent interrupt, %d without", m, got, want)
		}
		// 10,000 pivots at one poll per 64 (fewer: mass elimination), and
		// two or three passes over 10,000 columns at one per 256.
		if polls < 60 {
			t.Fatalf("%v: the analysis polled %d times, want ≥ 60", m, polls)
		}
		for _, fireAt := range []int{1, 2, polls / 2, polls} {
			calls := 0
			_, err := Analyze(a, Options{Method: m, Interrupt: func() bool { calls++; return calls >= fireAt }})
			if !errors.Is(err, ErrInterrupted) {
				t.Fatalf("%v: interrupt firing at poll %d of %d: %v", m, fireAt, polls, err)
			}
			if calls != fireAt {
				t.Errorf("%v: polled %d times after firing at poll %d", m, calls, fireAt)
			}
		}
		fired := false
		sym = mustAnalyze(t, a, Options{Method: m, Interrupt: func() bool { return fired }})
		fired = true
		if _, err := sym.Factor(a, nil, Regularization{}); !errors.Is(err, ErrInterrupted) {
			t.Errorf("%v: Factor after Analyze with Interrupt: %v, want ErrInterrupted", m, err)
		}
	}
	// The AMD loop alone: a firing interrupt leaves amdOrder at its first poll.
	calls := 0
	if perm, _ := amdOrder(a.Cols, a.ColPtr, a.RowIdx, defaultDenseFactor, func() bool { calls++; return true }); perm != nil || calls != 1 {
		t.Errorf("amdOrder with a firing interrupt: perm of length %d after %d polls, want nil after 1", len(perm), calls)
	}
}
