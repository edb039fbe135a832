package ldl

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"
)

// sameBits reports the first index where a and b differ in their bits.
func sameBits(a, b []float64) int {
	if len(a) != len(b) {
		return 0
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return i
		}
	}
	return -1
}

// TestNumericReplay: a refactorization over the recorded schedule
// (numericReplay, in assembly on x86-64) gives the bits of a first
// factorization of the same values (the recording Go loop), with the same
// regularized pivots and inertia, on quasi-definite matrices whose expected
// signs are partly wrong (so that the pivot rule fires); and the Go form of
// the replay (numericRowsGo) agrees with it bit for bit.
func TestNumericReplay(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 4))
	for trial := 0; trial < 30; trial++ {
		n1, n2 := 5+rng.IntN(60), 3+rng.IntN(60)
		k, signs := quasiDefinite(rng, n1, n2, 0.02+0.1*rng.Float64())
		flips := 0
		for i := range signs {
			if rng.IntN(8) == 0 {
				signs[i] = -signs[i]
				flips++
			}
		}
		s := mustAnalyze(t, k, Options{Method: Simplicial})
		f, err := s.Factor(k, signs, DefaultRegularization)
		if err != nil {
			t.Fatal(err)
		}
		k2 := withValues(rng, k)
		if err := f.Refactor(k2); err != nil {
			t.Fatal(err)
		}
		ref, err := s.Factor(k2, signs, DefaultRegularization)
		if err != nil {
			t.Fatal(err)
		}
		if i := sameBits(f.d, ref.d); i >= 0 {
			t.Fatalf("trial %d: D differs at %d: %v vs %v", trial, i, f.d[i], ref.d[i])
		}
		if i := sameBits(f.lx, ref.lx); i >= 0 {
			t.Fatalf("trial %d: L differs at %d: %v vs %v", trial, i, f.lx[i], ref.lx[i])
		}
		if f.DynamicRegCount() != ref.DynamicRegCount() {
			t.Fatalf("trial %d: %d regularized pivots, recording run %d", trial, f.DynamicRegCount(), ref.DynamicRegCount())
		}
		if flips > 0 && f.DynamicRegCount() == 0 {
			t.Fatalf("trial %d: %d wrong signs but no regularized pivot", trial, flips)
		}
		p1, n1r, z1 := f.Inertia()
		p2, n2r, z2 := ref.Inertia()
		if p1 != p2 || n1r != n2r || z1 != z2 || p1+n1r+z1 != n1+n2 {
			t.Fatalf("trial %d: inertia (%d,%d,%d), recording run (%d,%d,%d)", trial, p1, n1r, z1, p2, n2r, z2)
		}
		// the Go form of the replay on the same values
		d, lx := append([]float64(nil), f.d...), append([]float64(nil), f.lx...)
		clear(f.d)
		clear(f.lx)
		if err := f.scatter(k2); err != nil {
			t.Fatal(err)
		}
		if nreg := f.numericRowsGo(0, s.n); nreg != ref.DynamicRegCount() {
			t.Fatalf("trial %d: Go replay %d regularized pivots, want %d", trial, nreg, ref.DynamicRegCount())
		}
		if i := sameBits(f.d, d); i >= 0 {
			t.Fatalf("trial %d: Go replay D differs at %d", trial, i)
		}
		if i := sameBits(f.lx, lx); i >= 0 {
			t.Fatalf("trial %d: Go replay L differs at %d", trial, i)
		}

		// solves: the assembly form against the Go loops, bit for bit, on
		// vectors with exact zeros (the forward loop skips them) and a NaN
		for rep := 0; rep < 3; rep++ {
			x := randVec(rng, s.n)
			for i := range x {
				if rng.IntN(3) == 0 {
					x[i] = 0
				}
			}
			if rep == 2 {
				x[rng.IntN(s.n)] = math.NaN()
			}
			xg := append([]float64(nil), x...)
			f.solvePermuted(x)
			f.solveSimplicialGo(xg)
			for i := range x {
				a, b := math.Float64bits(x[i]), math.Float64bits(xg[i])
				if a != b && !(math.IsNaN(x[i]) && math.IsNaN(xg[i])) {
					t.Fatalf("trial %d: solve differs at %d: %v vs %v (%d bits)", trial, i, x[i], xg[i], bits.OnesCount64(a^b))
				}
			}
			if rep < 2 {
				// and it solves: relative residual at round-off
				b := randVec(rng, s.n)
				sol := f.Solve(nil, b)
				// Solve (gather, solve, scatter in assembly) against the Go loops
				xg := make([]float64, s.n)
				for k, i := range s.perm {
					xg[k] = b[i]
				}
				f.solveSimplicialGo(xg)
				for k, i := range s.perm {
					if math.Float64bits(sol[i]) != math.Float64bits(xg[k]) {
						t.Fatalf("trial %d: Solve differs from the Go loops at %d", trial, i)
					}
				}
				if r := relResidual(k2, sol, b); f.DynamicRegCount() == 0 && r > 1e-10 {
					t.Fatalf("trial %d: relative residual %g", trial, r)
				}
			}
		}
	}
}

// TestRefactorValuesNonFinite: a Refactor with the very pattern slices of
// the previous call (values only, scatter's summed finiteness test) still
// rejects a NaN or an infinite value, naming the entry, and recovers.
func TestRefactorValuesNonFinite(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 5))
	k, signs := quasiDefinite(rng, 20, 15, 0.1)
	s := mustAnalyze(t, k, Options{Method: Simplicial})
	f, err := s.Factor(k, signs, DefaultRegularization)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Refactor(k); err != nil {
		t.Fatal(err)
	}
	p := len(k.Val) / 2
	j := 0
	for k.ColPtr[j+1] <= p {
		j++
	}
	want := fmt.Sprintf("entry (%d,%d)", k.RowIdx[p], j)
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		old := k.Val[p]
		k.Val[p] = bad
		err := f.Refactor(k)
		if !errors.Is(err, ErrInvalidInput) || !strings.Contains(err.Error(), want) {
			t.Errorf("Refactor with %v at %s: %v", bad, want, err)
		}
		k.Val[p] = old
		if err := f.Refactor(k); err != nil {
			t.Errorf("Refactor after %v: %v", bad, err)
		}
	}
}
