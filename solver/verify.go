package solver

import (
	"fmt"
	"math"

	"github.com/privopt/privopt/sparse"
)

// Accuracy is the accuracy of a primal–dual point (x, s, y) measured on a
// problem's own (unscaled) data, each entry a relative violation of one
// optimality condition of the package documentation:
//
//	PrimalResidual = ‖Ax + s − b‖∞ / (1 + max(‖b‖∞, ‖Ax‖∞, ‖s‖∞))
//	DualResidual   = ‖Px + q + Aᵀy‖∞ / (1 + max(‖q‖∞, ‖Px‖∞, ‖Aᵀy‖∞))
//	Gap            = |pobj − dobj| / max(1, min(|pobj|, |dobj|))
//	PrimalCone     = max over blocks k of dist(s_k, K_k) / (1 + ‖s_k‖∞)
//	DualCone       = max over blocks k of dist(y_k, K_k*) / (1 + ‖y_k‖∞)
//
// with pobj = ½xᵀPx + qᵀx + r and dobj = −½xᵀPx − bᵀy + r. These are the
// residuals of the stopping rules of conic interior-point solvers (Clarabel,
// ECOS: O'Donoghue et al. 2016, §3.5; Goulart & Chen 2024, §4) with the
// distance to the cone added, so that a point is judged the same way whichever
// backend produced it and whatever scaling the backend applied internally.
type Accuracy struct {
	PrimalResidual, DualResidual, Gap float64
	PrimalCone, DualCone              float64
	// Sensitivity is the first-order bound on how far the objectives may be
	// from the optimal value because the residuals are not zero: (x, y) is an
	// exact primal–dual pair of the problem with b and q perturbed by the
	// residuals r_p = Ax + s − b and r_d = Px + q + Aᵀy, whose optimal value
	// differs by about yᵀr_p + xᵀr_d (∂p*/∂b = −y, ∂p*/∂q = x), so
	//
	//	Sensitivity = (|y|ᵀ|r_p| + |x|ᵀ|r_d|) / max(1, min(|pobj|, |dobj|)).
	//
	// Small relative residuals do not make it small when y or x is large
	// (problems without a strictly feasible primal or dual point): it is what ties the
	// residuals to the accuracy of the objective value.
	Sensitivity float64
	// PrimalObjective and DualObjective are pobj and dobj above.
	PrimalObjective, DualObjective float64
	// Rows is the row-by-row and column-by-column re-check (see RowAccuracy):
	// the global residuals above are relative to the largest terms of the
	// whole problem and cannot see a violation of a row whose terms are
	// small; Certify requires both.
	Rows RowAccuracy
}

// Max returns the largest of the five relative violations (+Inf when any is NaN).
func (a Accuracy) Max() float64 {
	m := 0.0
	for _, v := range []float64{a.PrimalResidual, a.DualResidual, a.Gap, a.PrimalCone, a.DualCone, a.Sensitivity} {
		if math.IsNaN(v) {
			return math.Inf(1)
		}
		m = math.Max(m, v)
	}
	return m
}

// almost reports whether the point meets the reduced tolerance r in its
// residuals, gap and cone distances, and SensitivityFactor·r in Sensitivity.
// The sensitivity is a first-order bound that overestimates the objective's
// error on problems without a strictly feasible dual point (measured on
// such SDPs: 6e-3 estimated where the error is 3e-4, a factor 20), hence
// the looser bound; it still rejects points whose residuals are small but
// whose objective is far off (measured on an ill-conditioned QP: residuals
// below 1e-5, objective 48% off). The instances are in BENCHMARKS.md
// ("Solver trust, round 2").
func (a Accuracy) almost(r float64) bool {
	m := 0.0
	for _, v := range []float64{a.PrimalResidual, a.DualResidual, a.Gap, a.PrimalCone, a.DualCone} {
		if math.IsNaN(v) {
			return false
		}
		m = math.Max(m, v)
	}
	return m <= r && a.Sensitivity <= SensitivityFactor*r
}

// SensitivityFactor scales the reduced tolerance for the Sensitivity of an
// AlmostOptimal answer (see almost): with the default 1e-5, 1e-2.
const SensitivityFactor = 1000

// OptimalSensitivityFactor scales the tolerance for the Sensitivity of an
// Optimal answer (see Meets). The sensitivity sums |y_i r_i| over all rows, so
// at a point whose residuals are all at the tolerance it exceeds them by a
// small factor; 10 keeps the objective's possible error at 1e-7 for the
// IPM's 1e-8 while rejecting the sensitivities of 1.6e-6 and 6.3e-5 that
// measured answers with wrong objectives had (BENCHMARKS.md, "Solver trust,
// round 2").
const OptimalSensitivityFactor = 10

// Meets reports whether the point meets tol as an Optimal answer must:
// residuals, gap and cone distances ≤ tol, Sensitivity ≤
// OptimalSensitivityFactor·tol.
func (a Accuracy) Meets(tol float64) bool {
	m := 0.0
	for _, v := range []float64{a.PrimalResidual, a.DualResidual, a.Gap, a.PrimalCone, a.DualCone} {
		if math.IsNaN(v) {
			return false
		}
		m = math.Max(m, v)
	}
	return m <= tol && a.Sensitivity <= OptimalSensitivityFactor*tol
}

// Within reports whether every relative violation is at most tol.
func (a Accuracy) Within(tol float64) bool { return a.Max() <= tol }

// String lists the violations, for diagnostics: "primal residual 3e-09, dual
// residual 1e-10, gap 2e-09, primal cone 0, dual cone 0".
func (a Accuracy) String() string {
	return fmt.Sprintf("primal residual %.2g, dual residual %.2g, gap %.2g, primal cone %.2g, dual cone %.2g, objective sensitivity %.2g",
		a.PrimalResidual, a.DualResidual, a.Gap, a.PrimalCone, a.DualCone, a.Sensitivity)
}

// Measure computes the Accuracy of (x, s, y) for p (see Accuracy for the
// formulas). It returns an error wrapping ErrInvalidProblem when the lengths
// do not match p; p must be valid (Validate).
func Measure(p *Problem, x, s, y []float64) (Accuracy, error) {
	n, m := p.NumVars(), p.NumRows()
	if len(x) != n || len(s) != m || len(y) != m {
		return Accuracy{}, fmt.Errorf("%w: point has len(x) = %d, len(s) = %d, len(y) = %d, want %d, %d, %d",
			ErrInvalidProblem, len(x), len(s), len(y), n, m, m)
	}
	var a Accuracy
	px := make([]float64, n)
	SymMulVec(px, p.P, x)
	ax := p.A.MulVecTo(nil, 1, x, 0)
	aty := p.A.MulTransVecTo(nil, 1, y, 0)
	var xpx, qx, by float64
	for j := range x {
		xpx += x[j] * px[j]
		qx += p.Q[j] * x[j]
	}
	for i := range y {
		by += p.B[i] * y[i]
	}
	a.PrimalObjective = 0.5*xpx + qx + p.R
	a.DualObjective = -0.5*xpx - by + p.R

	var rp, nb, nax, ns, sens float64
	for i := 0; i < m; i++ {
		r := math.Abs(ax[i] + s[i] - p.B[i])
		sens += r * math.Abs(y[i])
		rp = math.Max(rp, r)
		nb = math.Max(nb, math.Abs(p.B[i]))
		nax = math.Max(nax, math.Abs(ax[i]))
		ns = math.Max(ns, math.Abs(s[i]))
	}
	a.PrimalResidual = rp / (1 + math.Max(nb, math.Max(nax, ns)))
	var rd, nq, npx, naty float64
	for j := 0; j < n; j++ {
		r := math.Abs(px[j] + p.Q[j] + aty[j])
		sens += r * math.Abs(x[j])
		rd = math.Max(rd, r)
		nq = math.Max(nq, math.Abs(p.Q[j]))
		npx = math.Max(npx, math.Abs(px[j]))
		naty = math.Max(naty, math.Abs(aty[j]))
	}
	a.DualResidual = rd / (1 + math.Max(nq, math.Max(npx, naty)))
	// Relative to the objective values themselves, constant included: that
	// is the accuracy a caller reads (a large constant r must not hide an
	// absolute error of the variable part, as it did on a QP whose constant
	// dwarfs its variable part).
	scale := math.Max(1, math.Min(math.Abs(a.PrimalObjective), math.Abs(a.DualObjective)))
	a.Gap = math.Abs(a.PrimalObjective-a.DualObjective) / scale
	a.Sensitivity = sens / scale

	a.Rows = measureRows(p, x, s, y, px, ax, aty, scale)

	off := 0
	for _, c := range p.Cones {
		sk, yk := s[off:off+c.Dim], y[off:off+c.Dim]
		off += c.Dim
		if c.Dim == 0 {
			continue
		}
		d, err := c.Distance(sk)
		if err != nil {
			d = math.Inf(1)
		}
		a.PrimalCone = math.Max(a.PrimalCone, d/(1+normInf(sk)))
		d, err = c.Dual().Distance(yk)
		if err != nil {
			d = math.Inf(1)
		}
		a.DualCone = math.Max(a.DualCone, d/(1+normInf(yk)))
	}
	return a, nil
}

// Certify checks an OK solution against p with Measure and, when it misses
// tol (or reducedTol), lowers its status: a point that Meets tol and whose
// row-wise re-check (Accuracy.Rows, see RowAccuracy) passes tol stays as it
// is, one within reducedTol in both (its Sensitivity within
// SensitivityFactor·reducedTol) becomes AlmostOptimal, any other
// NumericalError. The row-wise re-check passes for Optimal when its Primal and
// Dual are at most RowTolerance and its Sensitivity at most
// OptimalSensitivityFactor·tol (AlmostOptimal: RowReducedTolerance and
// SensitivityFactor·reducedTol), its Complementarity at most
// ComplementarityTolerance. The
// reason is appended to sol.Diagnostic. Statuses other than Optimal and
// AlmostOptimal are left alone. It returns the measured accuracy (zero when
// the status was not OK).
//
// Every backend calls it before returning, so that an Optimal status always
// means "verified on the caller's data", never "the backend's internal,
// scaled residuals were small".
func Certify(p *Problem, sol *Solution, tol, reducedTol float64) Accuracy {
	if sol == nil || !sol.Status.OK() {
		return Accuracy{}
	}
	acc, err := Measure(p, sol.X, sol.S, sol.Y)
	if err != nil {
		sol.Status = NumericalError
		sol.addDiagnostic(err.Error())
		return acc
	}
	return CertifyMeasured(sol, acc, tol, reducedTol)
}

// CertifyMeasured is Certify for a solution whose point (X, S, Y) has already
// been measured without error: acc must be Measure(p, sol.X, sol.S, sol.Y) of
// exactly that point (a backend that re-checked its final iterate before
// returning it saves the second pass). It grades and lowers the status as
// Certify does and returns acc (zero when the status was not OK).
func CertifyMeasured(sol *Solution, acc Accuracy, tol, reducedTol float64) Accuracy {
	if sol == nil || !sol.Status.OK() {
		return Accuracy{}
	}
	rowsOK, rowsAlmost := acc.Rows.meets(RowTolerance, OptimalSensitivityFactor*tol), acc.Rows.meets(RowReducedTolerance, SensitivityFactor*reducedTol)
	switch {
	case sol.Status == Optimal && acc.Meets(tol) && rowsOK:
	case acc.almost(reducedTol) && rowsAlmost:
		if sol.Status == Optimal {
			sol.Status = AlmostOptimal
			sol.addDiagnostic(fmt.Sprintf("re-check on the original data misses the tolerance %g (%v; %v): almost optimal; the objective may be off by about gap + sensitivity (relative)", tol, acc, acc.Rows))
		}
	default:
		sol.Status = NumericalError
		sol.addDiagnostic(fmt.Sprintf("re-check on the original data misses the reduced tolerance %g (%v; %v)", reducedTol, acc, acc.Rows))
	}
	return acc
}

func (s *Solution) addDiagnostic(msg string) {
	if s.Diagnostic == "" {
		s.Diagnostic = msg
		return
	}
	s.Diagnostic += "; " + msg
}

// SymMulVec sets dst = P·x for the symmetric P stored as its upper triangle
// (the storage of Problem.P); a nil P gives dst = 0. It returns dst.
func SymMulVec(dst []float64, P *sparse.CSC, x []float64) []float64 {
	clear(dst)
	if P == nil {
		return dst
	}
	for j := 0; j < P.Cols; j++ {
		for k := P.ColPtr[j]; k < P.ColPtr[j+1]; k++ {
			i, v := P.RowIdx[k], P.Val[k]
			dst[i] += v * x[j]
			if i != j {
				dst[j] += v * x[i]
			}
		}
	}
	return dst
}

func normInf(v []float64) float64 {
	var m float64
	for _, x := range v {
		m = math.Max(m, math.Abs(x))
	}
	return m
}
