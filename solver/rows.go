package solver

import (
	"fmt"
	"math"

	"github.com/privopt/privopt/cone"
)

// RowAccuracy is the accuracy of a primal–dual point (x, s, y) measured row by
// row and column by column, each violation relative to the magnitudes of the
// terms that make up the condition it violates — the componentwise backward
// error of Oettli and Prager ("Compatibility of approximate solution of linear
// equations with given error bounds for coefficients and right-hand sides",
// Numer. Math. 6, 1964), extended to the cone conditions. With the row term
// magnitude Tᵢ = |bᵢ| + Σₖ|aᵢₖxₖ| + |sᵢ|, the column term magnitude
// Uⱼ = |qⱼ| + Σₖ|pⱼₖxₖ| + Σᵢ|aᵢⱼyᵢ|, and the global scales mapped into row i
// and column j, Gᵢ = maxₖ|aᵢₖ|·max(1, ‖x‖∞) (for an empty row the global scale
// 1 + max(‖b‖∞, ‖Ax‖∞, ‖s‖∞) of Accuracy.PrimalResidual) and
// Hⱼ = maxᵢ|aᵢⱼ|·max(1, ‖y‖∞) + maxₖ|pⱼₖ|·max(1, ‖x‖∞):
//
//	Primal = max over rows i of (|(Ax + s − b)ᵢ| + vᵢ) / (Tᵢ + ϕGᵢ)
//	Dual   = max over columns j of (|(Px + q + Aᵀy)ⱼ| + Σᵢ|aᵢⱼwᵢ|) / (Uⱼ + ϕHⱼ)
//	Complementarity = max over blocks k of min(‖s_k‖∞ / (max_{i∈k}Tᵢ + ϕ·max_{i∈k}Gᵢ),
//	         max_j Σ_{i∈k}|aᵢⱼyᵢ| / (Uⱼ + ϕHⱼ),  |s_kᵀy_k| / (‖s_k‖₂‖y_k‖₂))
//	Sensitivity = (Σᵢ|yᵢ|vᵢ + Σⱼ|xⱼ|Σᵢ|aᵢⱼwᵢ|) / max(1, min(|pobj|, |dobj|))
//
// where ϕ = RowFloor, vᵢ is the violation of row i's cone condition by s
// (|sᵢ| on zero rows, max(−sᵢ, 0) on nonnegative rows; for the other cones
// dist(s_k, K_k) charged to every row of the block, with the block's largest
// Tᵢ and Gᵢ as its scale) and w = y − Π_{K*}(y) the part of y outside the dual
// cone. Zero-cone blocks have no complementarity condition; each row of a
// nonnegative block is a block of its own. A ratio 0/0 counts as 0.
//
// Compared with a tolerance ρ (Certify: RowTolerance), Primal ≤ ρ allows row i
// a violation of ρ times its own terms plus ρϕ times its coefficients at the
// largest variable: a row whose terms are 10⁻⁵ next to rows of 10⁶ is judged
// on its own scale (a violation of 2·10⁻⁶ gives Primal ≈ 0.2, where the
// global PrimalResidual and PrimalCone of Accuracy report about 10⁻¹²), while
// a row whose terms all vanish at the solution (a bound xₖ ≥ 0 at xₖ ≈ 10⁻¹³)
// is held to the global rule. Sensitivity is Accuracy.Sensitivity for the
// cone violations (Accuracy's counts the equation residuals only): a slack
// reported as b − Ax that leaves its cone moves the objective by yᵢ times the
// violation, however small the row's terms.
//
// The row terms Tᵢ and column terms Uⱼ are invariant under positive scalings
// of the rows (per cone block) and columns; the floors Gᵢ and Hⱼ are not (a
// global scale cannot be), so Primal is invariant under row scalings and the
// measures are exact ratios to the own terms wherever those exceed the floor.
type RowAccuracy struct {
	Primal, Dual, Complementarity, Sensitivity float64
	// Row is the row (Primal) and Column the column (Dual) that attain the
	// maximum; −1 when the maximum is 0. ComplementarityRow is the first
	// row of the block that attains Complementarity (−1 when 0).
	Row, Column, ComplementarityRow int
}

// Max returns the largest of Primal, Dual and Complementarity (+Inf when one
// is NaN); Sensitivity is tested apart (Certify).
func (r RowAccuracy) Max() float64 {
	m := 0.0
	for _, v := range []float64{r.Primal, r.Dual, r.Complementarity} {
		if math.IsNaN(v) {
			return math.Inf(1)
		}
		m = math.Max(m, v)
	}
	return m
}

// meets reports whether Primal and Dual are at most rowTol, Sensitivity at
// most sensTol and Complementarity at most ComplementarityTolerance (see
// Certify).
func (r RowAccuracy) meets(rowTol, sensTol float64) bool {
	return r.Primal <= rowTol && r.Dual <= rowTol && r.Sensitivity <= sensTol && r.Complementarity <= ComplementarityTolerance
}

// RowFloor is ϕ of RowAccuracy: the weight of the global scale mapped into a
// row (column) next to the row's own terms.
const RowFloor = 1e-3

// RowTolerance and RowReducedTolerance bound RowAccuracy.Primal and Dual for
// an Optimal and an AlmostOptimal answer (Certify), whatever the backend's
// tolerance: an Optimal point violates no row by more than 10⁻⁵ of its own
// terms plus 10⁻⁸ of its coefficients at the largest variable. (On the public
// CBLIB instances the IPM's optimal answers reach 3·10⁻⁶ here, on rows whose
// terms all vanish at the solution; its almost-optimal SDPLIB answers reach
// 4·10⁻³ on columns of the same kind.)
const (
	RowTolerance        = 1e-5
	RowReducedTolerance = 1e-2
)

// ComplementarityTolerance bounds RowAccuracy.Complementarity for both OK
// statuses: a block whose slack and dual both exceed 1% of their own scales
// is not complementary. It is loose because the products reach the objective
// through the gap, which Accuracy.Meets holds to the solve's tolerance, and
// degenerate blocks keep slack and dual both of order √μ (on the public
// Maros–Mészáros instances the IPM's optimal answers reach 2.6·10⁻³ here).
const ComplementarityTolerance = 1e-2

// String lists the row-wise violations with the rows and column attaining
// them, for diagnostics.
func (r RowAccuracy) String() string {
	return fmt.Sprintf("row-wise: primal %.2g (row %d), dual %.2g (column %d), complementarity %.2g (row %d), cone-violation sensitivity %.2g",
		r.Primal, r.Row, r.Dual, r.Column, r.Complementarity, r.ComplementarityRow, r.Sensitivity)
}

// ratio is num/den with 0/0 = 0.
func ratio(num, den float64) float64 {
	if num == 0 {
		return 0
	}
	return num / den
}

// separable reports whether each row of a block of kind k is a cone of its
// own (zero, free and nonnegative cones).
func separable(k cone.Kind) bool {
	return k == cone.Zero || k == cone.Free || k == cone.Nonnegative
}

// measureRows computes the RowAccuracy of (x, s, y) for p given the products
// px = Px, ax = Ax and aty = Aᵀy and the objectives' scale
// max(1, min(|pobj|, |dobj|)) (see RowAccuracy). The lengths are checked by
// the caller.
func measureRows(p *Problem, x, s, y, px, ax, aty []float64, objScale float64) RowAccuracy {
	n, m := p.NumVars(), p.NumRows()
	A := p.A
	ra := RowAccuracy{Row: -1, Column: -1, ComplementarityRow: -1}
	// The global scales count a variable of magnitude below 1 as 1, as the
	// "1 +" of Accuracy's denominators does.
	xInf, yInf := math.Max(1, normInf(x)), math.Max(1, normInf(y))

	// Row and column term magnitudes T, U and global scales G, H.
	T, G := make([]float64, m), make([]float64, m)
	for i := range T {
		T[i] = math.Abs(p.B[i]) + math.Abs(s[i])
	}
	U, H := make([]float64, n), make([]float64, n)
	for j := 0; j < n; j++ {
		U[j] = math.Abs(p.Q[j])
		var amax float64
		for k := A.ColPtr[j]; k < A.ColPtr[j+1]; k++ {
			i, v := A.RowIdx[k], A.Val[k]
			T[i] += math.Abs(v * x[j])
			U[j] += math.Abs(v * y[i])
			G[i] = math.Max(G[i], math.Abs(v))
			amax = math.Max(amax, math.Abs(v))
		}
		H[j] = amax * yInf
	}
	// An empty row (aᵢ = 0) has no coefficients to carry the global scale:
	// it gets the global primal scale 1 + max(‖b‖∞, ‖Ax‖∞, ‖s‖∞) itself.
	global := 1 + math.Max(normInf(p.B), math.Max(normInf(ax), normInf(s)))
	for i := range G {
		if G[i] == 0 {
			G[i] = global
		} else {
			G[i] *= xInf
		}
	}
	if p.P != nil {
		P := p.P
		pmax := make([]float64, n)
		for j := 0; j < P.Cols; j++ {
			for k := P.ColPtr[j]; k < P.ColPtr[j+1]; k++ {
				i, v := P.RowIdx[k], math.Abs(P.Val[k])
				U[i] += v * math.Abs(x[j])
				pmax[i] = math.Max(pmax[i], v)
				if i != j {
					U[j] += v * math.Abs(x[i])
					pmax[j] = math.Max(pmax[j], v)
				}
			}
		}
		for j := range H {
			H[j] += pmax[j] * xInf
		}
	}

	// Cone violations v of s and the part w of y outside K*.
	viol := make([]float64, m)
	w := make([]float64, m)
	off := 0
	for _, c := range p.Cones {
		sk, yk := s[off:off+c.Dim], y[off:off+c.Dim]
		switch c.Kind {
		case cone.Zero:
			for t, v := range sk {
				viol[off+t] = math.Abs(v)
			}
		case cone.Nonnegative:
			for t, v := range sk {
				viol[off+t] = math.Max(-v, 0)
				w[off+t] = math.Min(yk[t], 0)
			}
		case cone.Free:
			copy(w[off:off+c.Dim], yk) // K* = {0}
		default:
			d, err := c.Distance(sk)
			if err != nil {
				d = math.Inf(1)
			}
			for t := range sk {
				viol[off+t] = d
			}
			proj, err := c.Dual().Project(nil, yk)
			for t := range yk {
				if err != nil {
					w[off+t] = math.Inf(1)
				} else {
					w[off+t] = yk[t] - proj[t]
				}
			}
		}
		off += c.Dim
	}

	// Primal, with the objective impact of the cone violations.
	var sens float64
	off = 0
	for _, c := range p.Cones {
		var blkT, blkG float64
		if !separable(c.Kind) {
			for i := off; i < off+c.Dim; i++ {
				blkT, blkG = math.Max(blkT, T[i]), math.Max(blkG, G[i])
			}
		}
		for i := off; i < off+c.Dim; i++ {
			scale := T[i] + RowFloor*G[i]
			if !separable(c.Kind) {
				scale = blkT + RowFloor*blkG
			}
			r := ratio(math.Abs(ax[i]+s[i]-p.B[i])+viol[i], scale)
			if !(r <= ra.Primal) {
				ra.Primal, ra.Row = r, i
			}
		}
		if separable(c.Kind) {
			for i := off; i < off+c.Dim; i++ {
				sens += math.Abs(y[i]) * viol[i]
			}
		} else if c.Dim > 0 {
			sens += normInf(y[off:off+c.Dim]) * viol[off] * math.Sqrt(float64(c.Dim))
		}
		off += c.Dim
	}

	// Dual: residual plus the dual-cone violation charged through the columns.
	for j := 0; j < n; j++ {
		num := math.Abs(px[j] + p.Q[j] + aty[j])
		var cw float64
		for k := A.ColPtr[j]; k < A.ColPtr[j+1]; k++ {
			cw += math.Abs(A.Val[k] * w[A.RowIdx[k]])
		}
		sens += math.Abs(x[j]) * cw
		if r := ratio(num+cw, U[j]+RowFloor*H[j]); !(r <= ra.Dual) {
			ra.Dual, ra.Column = r, j
		}
	}
	ra.Sensitivity = sens / objScale

	// Complementarity per block: the largest relative weight of yᵢ in a
	// column it enters, through the columns of A.
	yw := make([]float64, m) // maxⱼ |aᵢⱼyᵢ| / (Uⱼ + ϕHⱼ) per row
	for j := 0; j < n; j++ {
		for k := A.ColPtr[j]; k < A.ColPtr[j+1]; k++ {
			i := A.RowIdx[k]
			if v := ratio(math.Abs(A.Val[k]*y[i]), U[j]+RowFloor*H[j]); v > yw[i] {
				yw[i] = v
			}
		}
	}
	off = 0
	for _, c := range p.Cones {
		lo, hi := off, off+c.Dim
		off = hi
		switch c.Kind {
		case cone.Zero, cone.Free:
			continue
		case cone.Nonnegative:
			for i := lo; i < hi; i++ {
				v := math.Min(ratio(math.Abs(s[i]), T[i]+RowFloor*G[i]), yw[i])
				if s[i]*y[i] == 0 {
					v = 0
				}
				if !(v <= ra.Complementarity) {
					ra.Complementarity, ra.ComplementarityRow = v, i
				}
			}
			continue
		}
		// A non-separable block: the same test block-wise, with the weight
		// of y_k bounded by the sum of its rows' (Σᵢ maxⱼ ≥ maxⱼ Σᵢ).
		var sInf, blkT, blkG, yRel, sy, ss, yy float64
		for i := lo; i < hi; i++ {
			sInf = math.Max(sInf, math.Abs(s[i]))
			blkT, blkG = math.Max(blkT, T[i]), math.Max(blkG, G[i])
			yRel += yw[i]
			sy += s[i] * y[i]
			ss += s[i] * s[i]
			yy += y[i] * y[i]
		}
		cos := ratio(math.Abs(sy), math.Sqrt(ss)*math.Sqrt(yy))
		v := math.Min(math.Min(ratio(sInf, blkT+RowFloor*blkG), yRel), cos)
		if !(v <= ra.Complementarity) {
			ra.Complementarity, ra.ComplementarityRow = v, lo
		}
	}
	return ra
}
