package solver

import (
	"errors"
	"fmt"
	"math"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/sparse"
)

// ErrInvalidCertificate is wrapped by every error CheckCertificate returns
// for a certificate that does not prove its status.
var ErrInvalidCertificate = errors.New("solver: invalid certificate")

// CheckCertificate checks the certificate of a PrimalInfeasible or
// DualInfeasible solution on p's own data, with every tolerance relative to
// the magnitudes of the terms that make up the quantity tested, so that the
// check is invariant under positive row scalings (per cone block) and column
// scalings of p (the Farkas test: row scalings only, see below) — the scalings that make absolute tolerances meaningless on
// badly scaled data (coefficients 10⁻⁸ … 10⁸).
//
// Primal infeasibility (Farkas): ŷ = Π_{K*}(y), the projection of sol.Y onto
// the dual cone, must satisfy
//
//	bᵀŷ < 0,  −bᵀŷ > tol · Σᵢ |bᵢ ŷᵢ|              (no cancellation)
//	‖Aᵀŷ‖∞ ≤ tol · maxⱼ Σᵢ |aᵢⱼ ŷᵢ|
//
// so that ŷᵀ(b − Ax) = bᵀŷ − (Aᵀŷ)ᵀx < 0 for every x that is not huge in
// the certificate's own scale: no s = b − Ax ∈ K exists. (The column-wise
// test |(Aᵀŷ)ⱼ| ≤ tol·Σᵢ|aᵢⱼŷᵢ| would also be invariant under column
// scaling, but rejects valid certificates whose entries that should vanish
// are merely tiny, e.g. 10⁻¹⁹ in a column they touch alone; a column scaled
// by 10⁸ can therefore hide a residual, which is why solver/auto cross-checks
// the other backend when a certificate is rejected.)
//
// Dual infeasibility (an improving ray x = sol.X): with ŝ = Π_K(−Ax),
//
//	qᵀx < 0,   −qᵀx > tol · Σⱼ |qⱼ xⱼ|
//	|(Ax + ŝ)ᵢ| ≤ tol · Σₖ |aᵢₖ xₖ|   per row of zero and nonnegative
//	                                   blocks, per block (max over its rows)
//	                                   for the other cones
//	|(Px)ⱼ| ≤ tol · Σₖ |pⱼₖ xₖ|       for every j
//
// It returns nil when the certificate checks out, an error wrapping
// ErrInvalidCertificate naming the violated condition when it does not
// (also when the certificate is missing, has the wrong length or is not
// finite), and an error wrapping ErrInvalidProblem when p is invalid or the
// status is not PrimalInfeasible or DualInfeasible. The checks are the
// standard ones of conic duality (Ben-Tal and Nemirovski, "Lectures on
// Modern Convex Optimization", 2001, Sec. 1.4.4 and 2.4).
func CheckCertificate(p *Problem, sol *Solution, tol float64) error {
	if err := p.Validate(); err != nil {
		return err
	}
	if sol == nil {
		return fmt.Errorf("%w: solution is nil", ErrInvalidProblem)
	}
	if !(tol > 0) {
		return fmt.Errorf("%w: certificate tolerance is %g, must be > 0", ErrInvalidProblem, tol)
	}
	switch sol.Status {
	case PrimalInfeasible:
		return checkFarkas(p, sol.Y, tol)
	case DualInfeasible:
		return checkRay(p, sol.X, tol)
	}
	return fmt.Errorf("%w: status %v has no certificate", ErrInvalidProblem, sol.Status)
}

// checkFarkas is CheckCertificate for a primal infeasibility certificate y.
func checkFarkas(p *Problem, y []float64, tol float64) error {
	m := p.NumRows()
	if len(y) != m {
		return fmt.Errorf("%w: infeasibility certificate Y has length %d, want %d", ErrInvalidCertificate, len(y), m)
	}
	yh := make([]float64, m)
	off := 0
	for _, c := range p.Cones {
		blk, err := c.Dual().Project(yh[off:off+c.Dim], y[off:off+c.Dim])
		if err != nil {
			return fmt.Errorf("%w: infeasibility certificate Y, block at row %d: %v", ErrInvalidCertificate, off, err)
		}
		copy(yh[off:], blk)
		off += c.Dim
	}
	var by, byAbs float64
	for i, v := range yh {
		by += p.B[i] * v
		byAbs += math.Abs(p.B[i] * v)
	}
	if !(by < 0) || !(-by > tol*byAbs) {
		return fmt.Errorf("%w: infeasibility certificate has bᵀy = %g (Σ|bᵢyᵢ| = %g), need bᵀy < 0 beyond tolerance %g", ErrInvalidCertificate, by, byAbs, tol)
	}
	A := p.A
	g := make([]float64, A.Cols)
	var mag float64
	for j := range g {
		var cm float64
		for k := A.ColPtr[j]; k < A.ColPtr[j+1]; k++ {
			t := A.Val[k] * yh[A.RowIdx[k]]
			g[j] += t
			cm += math.Abs(t)
		}
		mag = math.Max(mag, cm)
	}
	for j, v := range g {
		if math.Abs(v) > tol*mag {
			return fmt.Errorf("%w: infeasibility certificate has (Aᵀy)_%d = %g, more than %g × maxⱼ Σᵢ|aᵢⱼyᵢ| = %g", ErrInvalidCertificate, j, v, tol, mag)
		}
	}
	return nil
}

// checkRay is CheckCertificate for an unboundedness certificate x.
func checkRay(p *Problem, x []float64, tol float64) error {
	n, m := p.NumVars(), p.NumRows()
	if len(x) != n {
		return fmt.Errorf("%w: unboundedness certificate X has length %d, want %d", ErrInvalidCertificate, len(x), n)
	}
	var qx, qxAbs float64
	for j, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: unboundedness certificate X[%d] is %g", ErrInvalidCertificate, j, v)
		}
		qx += p.Q[j] * v
		qxAbs += math.Abs(p.Q[j] * v)
	}
	if !(qx < 0) || !(-qx > tol*qxAbs) {
		return fmt.Errorf("%w: unboundedness certificate has qᵀx = %g (Σ|qⱼxⱼ| = %g), need qᵀx < 0 beyond tolerance %g", ErrInvalidCertificate, qx, qxAbs, tol)
	}
	ax, mag := absMulVec(p.A, x, m)
	neg := make([]float64, m)
	for i := range ax {
		neg[i] = -ax[i]
	}
	v, err := outsideCones(p.Cones, neg, mag, tol)
	if err != nil {
		return fmt.Errorf("%w: unboundedness certificate, %v", ErrInvalidCertificate, err)
	}
	if v.row >= 0 {
		return fmt.Errorf("%w: unboundedness certificate has −(Ax)_%d = %g outside the %v cone by %g, more than %g × Σ|aᵢₖxₖ| = %g",
			ErrInvalidCertificate, v.row, neg[v.row], v.kind, v.by, tol, v.scale)
	}
	if p.P != nil {
		px := SymMulVec(make([]float64, n), p.P, x)
		pmag := make([]float64, n)
		for j := 0; j < p.P.Cols; j++ {
			for k := p.P.ColPtr[j]; k < p.P.ColPtr[j+1]; k++ {
				i, v := p.P.RowIdx[k], math.Abs(p.P.Val[k])
				pmag[i] += v * math.Abs(x[j])
				if i != j {
					pmag[j] += v * math.Abs(x[i])
				}
			}
		}
		for j := range px {
			if math.Abs(px[j]) > tol*pmag[j] {
				return fmt.Errorf("%w: unboundedness certificate has (Px)_%d = %g, more than %g × Σ|pⱼₖxₖ| = %g", ErrInvalidCertificate, j, px[j], tol, pmag[j])
			}
		}
	}
	return nil
}

// absMulVec returns A·x and the row magnitudes Σₖ |aᵢₖ xₖ|.
func absMulVec(A *sparse.CSC, x []float64, m int) (ax, mag []float64) {
	ax, mag = make([]float64, m), make([]float64, m)
	for j := 0; j < A.Cols; j++ {
		for k := A.ColPtr[j]; k < A.ColPtr[j+1]; k++ {
			t := A.Val[k] * x[j]
			ax[A.RowIdx[k]] += t
			mag[A.RowIdx[k]] += math.Abs(t)
		}
	}
	return ax, mag
}

// CheckFeasible checks that x is a primal feasible point of p, b − Ax ∈ K:
// with r = b − Ax and ŝ = Π_K(r),
//
//	|rᵢ − ŝᵢ| ≤ tol · (|bᵢ| + |(Ax)ᵢ|)
//
// per row of zero and nonnegative blocks, and per block (the largest row
// magnitude of the block) for the other cones — relative to the two sides of
// each row, so that the check is invariant under positive row scalings (per
// cone block) and column scalings of p. Unlike CheckCertificate's ray test
// the scale is not the sum of the terms Σₖ|aᵢₖxₖ|: a point far out along a
// direction that nearly cancels in A (an improving ray, of which the points
// of an interior-point method are full) has huge terms, and relative to them
// the violated row of a primal infeasible problem would pass (measured: two
// primal-and-dual infeasible SOCPs of solvertest.PrimalDualSuite). The
// rounding of Ax, about ε·Σₖ|aᵢₖxₖ|, counts against the point: a point whose
// rows cancel by more than 1/tol is rejected, never wrongly accepted. Together with an improving ray (a
// DualInfeasible certificate that passes CheckCertificate) it proves that p
// is unbounded rather than primal and dual infeasible (Ben-Tal and
// Nemirovski, "Lectures on Modern Convex Optimization", 2001, Sec. 1.4.4).
// It returns nil when x checks out, an error wrapping ErrInvalidCertificate
// naming the violated row when it does not (also when x has the wrong length
// or is not finite), and an error wrapping ErrInvalidProblem for an invalid
// p or tol.
func CheckFeasible(p *Problem, x []float64, tol float64) error {
	if err := p.Validate(); err != nil {
		return err
	}
	if !(tol > 0) {
		return fmt.Errorf("%w: feasibility tolerance is %g, must be > 0", ErrInvalidProblem, tol)
	}
	n, m := p.NumVars(), p.NumRows()
	if len(x) != n {
		return fmt.Errorf("%w: feasible point has length %d, want %d", ErrInvalidCertificate, len(x), n)
	}
	for j, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: feasible point x[%d] is %g", ErrInvalidCertificate, j, v)
		}
	}
	ax, _ := absMulVec(p.A, x, m)
	r, mag := make([]float64, m), make([]float64, m)
	for i := range r {
		r[i] = p.B[i] - ax[i]
		mag[i] = math.Abs(p.B[i]) + math.Abs(ax[i])
	}
	v, err := outsideCones(p.Cones, r, mag, tol)
	if err != nil {
		return fmt.Errorf("%w: feasible point, %v", ErrInvalidCertificate, err)
	}
	if v.row >= 0 {
		return fmt.Errorf("%w: feasible point has (b − Ax)_%d = %g outside the %v cone by %g, more than %g × (|bᵢ| + |(Ax)ᵢ|) = %g",
			ErrInvalidCertificate, v.row, r[v.row], v.kind, v.by, tol, v.scale)
	}
	return nil
}

// violation is the first row outsideCones finds outside its cone: row −1
// when none.
type violation struct {
	row       int
	kind      cone.Kind
	by, scale float64
}

// outsideCones tests v ∈ K block by block, relative to the row magnitudes
// mag: with v̂ = Π_K(v), |vᵢ − v̂ᵢ| ≤ tol·magᵢ per row of zero and
// nonnegative blocks, ≤ tol·max_{block} mag for the other cones (the
// convention of CheckCertificate's ray test and of CheckFeasible). It
// returns the first row that fails (row −1 when none), and an error naming
// the block when a projection fails.
func outsideCones(cones []cone.Cone, v, mag []float64, tol float64) (violation, error) {
	off := 0
	for _, c := range cones {
		sh, err := c.Project(nil, v[off:off+c.Dim])
		if err != nil {
			return violation{row: -1}, fmt.Errorf("block at row %d: %v", off, err)
		}
		separable := c.Kind == cone.Zero || c.Kind == cone.Nonnegative
		var blkMag float64
		for t := range sh {
			blkMag = math.Max(blkMag, mag[off+t])
		}
		for t := range sh {
			scale := blkMag
			if separable {
				scale = mag[off+t]
			}
			if d := v[off+t] - sh[t]; math.Abs(d) > tol*scale {
				return violation{row: off + t, kind: c.Kind, by: d, scale: scale}, nil
			}
		}
		off += c.Dim
	}
	return violation{row: -1}, nil
}
