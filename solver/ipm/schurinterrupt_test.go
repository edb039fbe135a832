package ipm

import (
	"errors"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/privopt/privopt/internal/ldl"
	"gonum.org/v1/gonum/mat"
)

// TestSchurAssemblyInterrupt: an interrupt that fires during the assembly of
// an eliminated PSD block's Schur complement (dense rule: between rows and
// Gram panels; sparse rule: after the block) stops the factorization with
// ldl.ErrInterrupted, with one or two workers; without the interrupt the
// next assembly gives the x-block values of an uninterrupted one, bit for
// bit (nothing of the aborted assembly is left behind).
func TestSchurAssemblyInterrupt(t *testing.T) {
	const n = 40
	lap := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < i; j++ {
			if (i+2*j)%3 == 0 {
				lap.SetSym(i, j, -1)
				lap.SetSym(i, i, lap.At(i, i)+1)
				lap.SetSym(j, j, lap.At(j, j)+1)
			}
		}
	}
	p := maxCutDual(lap)
	for _, rule := range []PSDSchurRule{PSDSchurSparse, PSDSchurDense} {
		for _, threads := range []int{1, 2} {
			build := func() *workspace {
				set := Settings{PSDSchurRule: rule}
				set.fill()
				set.Threads = threads
				w, err := newWorkspace(p, &set, nil)
				if err != nil {
					t.Fatal(err)
				}
				if len(w.kkt.elims) != 1 {
					t.Fatalf("rule %d: %d eliminated blocks, want 1", rule, len(w.kkt.elims))
				}
				return w
			}
			ref := build()
			if err := ref.kkt.factorIdentity(); err != nil {
				t.Fatal(err)
			}
			w := build()
			// the dense rule polls per row and panel: fire at the second
			// poll (mid-assembly); the sparse rule polls once per block
			fireAt := int64(2)
			if rule == PSDSchurSparse {
				fireAt = 1
			}
			var calls atomic.Int64
			w.kkt.interrupt = func() bool { return calls.Add(1) >= fireAt }
			err := w.kkt.factorIdentity()
			if !errors.Is(err, ldl.ErrInterrupted) {
				t.Fatalf("rule %d, %d threads: interrupted assembly returned %v, want ldl.ErrInterrupted", rule, threads, err)
			}
			w.kkt.interrupt = nil
			if err := w.kkt.factorIdentity(); err != nil {
				t.Fatalf("rule %d, %d threads: assembly after the interrupt: %v", rule, threads, err)
			}
			if !slices.Equal(w.kkt.k.Val, ref.kkt.k.Val) {
				t.Errorf("rule %d, %d threads: matrix after an interrupted assembly differs from an uninterrupted one", rule, threads)
			}
		}
	}
}
