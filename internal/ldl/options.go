package ldl

import (
	"errors"
	"fmt"
	"math"
)

// Errors reported by the package. Every error returned by Analyze, Factor and
// Refactor wraps one of them, so callers can branch with errors.Is.
var (
	// ErrInvalid marks a malformed argument: a non-square or structurally
	// invalid matrix, an entry below the diagonal, a missing diagonal entry, a
	// NaN or infinite value, wrong slice lengths, invalid options.
	ErrInvalid = errors.New("ldl: invalid input")
	// ErrInvalidInput is the former name of ErrInvalid (the same value).
	//
	// Deprecated: use ErrInvalid.
	ErrInvalidInput = ErrInvalid
	// ErrPatternMismatch marks a matrix whose sparsity pattern has an entry that
	// is not in the pattern given to Analyze, or whose size differs from it.
	ErrPatternMismatch = errors.New("ldl: matrix pattern differs from the analyzed pattern")
	// ErrZeroPivot marks a factorization that met an exactly zero pivot without
	// dynamic regularization (the matrix is singular, or not strongly
	// factorizable in the chosen order). The factor is unusable afterwards.
	ErrZeroPivot = errors.New("ldl: zero pivot")
	// ErrInterrupted marks a numeric factorization stopped by the function
	// installed with Symbolic.SetInterrupt (cancellation, time limit).
	ErrInterrupted = errors.New("ldl: factorization interrupted")
)

// PivotError reports the pivot at which the numeric factorization stopped.
// It wraps ErrZeroPivot.
type PivotError struct {
	// Index is the row/column of the zero pivot in the original ordering.
	Index int
	// Step is its position in the elimination order.
	Step int
}

// Error describes the zero pivot and how to avoid it.
func (e *PivotError) Error() string {
	return fmt.Sprintf("ldl: zero pivot at row %d (elimination step %d); pass pivot signs to enable dynamic regularization", e.Index, e.Step)
}

// Unwrap returns ErrZeroPivot.
func (e *PivotError) Unwrap() error { return ErrZeroPivot }

func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalidInput}, args...)...)
}

func mismatchf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrPatternMismatch}, args...)...)
}

// Ordering selects the symmetric permutation P applied before factorizing
// P K Pᵀ = L D Lᵀ.
type Ordering int

const (
	// AMD is the approximate minimum degree ordering of Amestoy, Davis and Duff
	// (SIAM J. Matrix Anal. Appl. 17(4), 1996), with rows/columns of degree
	// above 10·√n postponed to the end. It is the default (zero value).
	AMD Ordering = iota
	// Natural factorizes K in its given order (P = I).
	Natural
	// Given uses Options.Perm.
	Given
	// MinimumDegree is the exact minimum degree ordering on an explicit
	// elimination graph (Tinney–Walker scheme 2; see mdOrder), for matrices
	// of order at most MaxMinimumDegreeOrder: on small matrices it costs a
	// fraction of AMD's quotient-graph bookkeeping, with the exact degrees
	// AMD approximates. It has no dense-row postponement. Analyze reports
	// an error wrapping ErrInvalidInput for a larger matrix.
	MinimumDegree
)

// String returns the ordering name.
func (o Ordering) String() string {
	switch o {
	case AMD:
		return "AMD"
	case Natural:
		return "Natural"
	case Given:
		return "Given"
	case MinimumDegree:
		return "MinimumDegree"
	}
	return fmt.Sprintf("Ordering(%d)", int(o))
}

// Options configures Analyze. The zero value selects AMD.
type Options struct {
	// Ordering selects the fill-reducing permutation.
	Ordering Ordering
	// Perm is the elimination order for Ordering == Given: Perm[k] is the
	// original index of the k-th pivot. It must be a permutation of 0..n-1.
	Perm []int
	// Method selects the numeric factorization; the zero value chooses by the
	// symbolic analysis.
	Method Method
	// SupernodalRatio is the threshold of Auto: the supernodal method is
	// chosen when flops(L)/nnz(L) is at least SupernodalRatio. Zero means
	// the default 5 (the break-even of one factorization followed by one
	// solve); a caller that solves many times per factorization sets it
	// higher, since the simplicial solve is the cheaper one on small
	// factors (see autoSupernodalRatio). It must be ≥ 0.
	SupernodalRatio float64
	// DenseFactor tunes AMD's dense-row detection: a row whose degree exceeds
	// max(16, DenseFactor·√n) is removed from the graph and ordered last, as in
	// AMD. Zero means the default 10; a negative value disables the detection.
	DenseFactor float64
	// Interrupt, when not nil, is polled by Analyze every 64 pivots of the
	// AMD ordering and every 256 columns of its O(nnz(L)) passes (elimination
	// tree and column counts, supernode partition); when it returns true
	// Analyze stops with an error wrapping ErrInterrupted. Analyze also
	// installs it on the returned Symbolic (SetInterrupt), so that the numeric
	// factorizations poll it too. Pass a cheap function, e.g. one reading
	// context.Context.Err.
	Interrupt func() bool
}

// Validate reports whether the options are usable (the permutation is checked
// against the matrix size by Analyze).
func (o Options) Validate() error {
	switch o.Ordering {
	case AMD, Natural, MinimumDegree:
		if o.Perm != nil {
			return invalidf("Options.Perm is set (length %d) but Ordering is %v; Perm needs Ordering Given", len(o.Perm), o.Ordering)
		}
	case Given:
		if o.Perm == nil {
			return invalidf("Options.Perm is nil, must be a permutation for Ordering Given")
		}
		if err := checkPerm(o.Perm, len(o.Perm)); err != nil {
			return err
		}
	default:
		return invalidf("Options.Ordering is %d, must be AMD, Natural, Given or MinimumDegree", int(o.Ordering))
	}
	if o.Method < Auto || o.Method > Supernodal {
		return invalidf("Options.Method is %d, must be Auto, Simplicial or Supernodal", int(o.Method))
	}
	if !(o.SupernodalRatio >= 0) || math.IsInf(o.SupernodalRatio, 1) {
		return invalidf("Options.SupernodalRatio is %v, must be finite and ≥ 0", o.SupernodalRatio)
	}
	if math.IsNaN(o.DenseFactor) || math.IsInf(o.DenseFactor, 0) {
		return invalidf("Options.DenseFactor is %v, must be finite", o.DenseFactor)
	}
	return nil
}

// Method selects the numeric factorization algorithm; both compute the same
// factor (up to rounding).
type Method int

const (
	// Auto chooses Supernodal when the average work per entry of L, flops(L)/nnz(L),
	// is at least Options.SupernodalRatio (default 5: dense blocks pay off),
	// else Simplicial.
	Auto Method = iota
	// Simplicial is the up-looking row-by-row factorization (Davis's LDL).
	Simplicial
	// Supernodal is the left-looking supernodal factorization with dense blocks.
	Supernodal
)

// String returns the method name.
func (m Method) String() string {
	switch m {
	case Auto:
		return "Auto"
	case Simplicial:
		return "Simplicial"
	case Supernodal:
		return "Supernodal"
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

func checkPerm(p []int, n int) error {
	if len(p) != n {
		return invalidf("Options.Perm has length %d, want %d", len(p), n)
	}
	seen := make([]bool, n)
	for k, i := range p {
		if i < 0 || i >= n {
			return invalidf("Options.Perm[%d] is %d, must be in [0,%d)", k, i, n)
		}
		if seen[i] {
			return invalidf("Options.Perm[%d] is %d, which appears twice", k, i)
		}
		seen[i] = true
	}
	return nil
}

// Regularization configures dynamic regularization of the pivots of a
// quasi-definite matrix: with expected pivot sign σᵢ ∈ {+1, −1}, a computed
// pivot dᵢ is replaced when it has the wrong sign or is too small,
//
//	if σᵢ·dᵢ < Eps  then  dᵢ ← σᵢ·Delta,
//
// the rule used by interior-point solvers for quasi-definite KKT systems
// (Vanderbei, SIAM J. Optim. 5(1), 1995; Goulart & Chen, Clarabel, 2024).
type Regularization struct {
	// Eps is the threshold (≥ 0) below which a signed pivot is replaced.
	Eps float64
	// Delta is the replacement magnitude (> 0).
	Delta float64
}

// DefaultRegularization is the rule {Eps: 1e-13, Delta: 1e-7}, close to the
// defaults of Clarabel's dynamic regularization for unit-scaled problems.
var DefaultRegularization = Regularization{Eps: 1e-13, Delta: 1e-7}

// Validate reports whether Eps ≥ 0 and Delta > 0, both finite.
func (r Regularization) Validate() error {
	if !(r.Eps >= 0) || math.IsInf(r.Eps, 0) {
		return invalidf("Regularization.Eps is %v, must be ≥ 0 and finite", r.Eps)
	}
	if !(r.Delta > 0) || math.IsInf(r.Delta, 0) {
		return invalidf("Regularization.Delta is %v, must be > 0 and finite", r.Delta)
	}
	return nil
}
