package ldl

import (
	"errors"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/privopt/privopt/sparse"
)

// TestRefactorSamePattern checks the scatter that reuses a checked pattern
// (a matrix with the same ColPtr and RowIdx slices as the previous call):
// new values written in place give the same D, bit for bit, as a fresh
// factorization of a copy (whose new slices take the checked merge); a
// subset pattern keeps its absent entries at zero on the reused path; a
// non-finite value is still reported with its position; and a different
// pattern with an entry outside the analysis is still rejected.
func TestRefactorSamePattern(t *testing.T) { forMethods(t, testRefactorSamePattern) }

func testRefactorSamePattern(t *testing.T, m Method) {
	rng := rand.New(rand.NewPCG(26, 3))
	k, signs := quasiDefinite(rng, 40, 25, 0.1)
	s := mustAnalyze(t, k, Options{Method: m})
	// a subset of the analyzed pattern: every fourth off-diagonal dropped
	sub, _ := dropOffDiagonal(k, 4)
	for _, a := range []*sparse.CSC{k, sub} {
		work := a.Clone()
		f, err := s.Factor(work, signs, DefaultRegularization)
		if err != nil {
			t.Fatal(err)
		}
		for round := 0; round < 3; round++ {
			copy(work.Val, withValues(rng, a).Val) // same slices, new values
			if err := f.Refactor(work); err != nil {
				t.Fatal(err)
			}
			fresh, err := s.Factor(work.Clone(), signs, DefaultRegularization)
			if err != nil {
				t.Fatal(err)
			}
			for i := range f.d {
				if f.d[i] != fresh.d[i] {
					t.Fatalf("nnz %d round %d: D[%d] = %v on the reused pattern, %v fresh", a.Nnz(), round, i, f.d[i], fresh.d[i])
				}
			}
		}
		// a NaN on the reused path names its entry
		q := work.ColPtr[7] // first entry of column 7
		row := work.RowIdx[q]
		work.Val[q] = math.NaN()
		err = f.Refactor(work)
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "entry ("+strconv.Itoa(row)+",7) is NaN") {
			t.Errorf("NaN at (%d,7): err = %v, want ErrInvalid naming the entry", row, err)
		}
	}
	// a new pattern (new slices) with an entry outside the analysis is checked again
	f, err := s.Factor(k, signs, DefaultRegularization)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Refactor(k); err != nil {
		t.Fatal(err)
	}
	full := sparse.NewTriplets(k.Rows, k.Cols, k.Nnz()+k.Cols)
	for j := 0; j < k.Cols; j++ {
		for i := 0; i <= j; i++ {
			full.Append(i, j, 1)
		}
	}
	if err := f.Refactor(full.ToCSC()); !errors.Is(err, ErrPatternMismatch) {
		t.Errorf("dense pattern after the reused one: err = %v, want ErrPatternMismatch", err)
	}
}
