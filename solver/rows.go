package solver

import (
	"math"

	"github.com/privopt/privopt/cone"
)

// RowAccuracy is the accuracy of a primal–dual point (x, s, y) measured row by
// row and column by column, each violation relative to the magnitudes of the
// terms that make up the condition it violates — the componentwise backward
// error of Oettli and Prager ("Compatibility of approximate solution of linear
// equations with given error bounds for coefficients and right-hand sides",
// Numer. Math. 6, 1964), extended to the cone conditions. With the row term
// magnitude Tᵢ = |bᵢ| + Σₖ|aᵢₖxₖ| + |sᵢ| and the column term magnitude
// Uⱼ = |qⱼ| + Σₖ|pⱼₖxₖ| + Σᵢ|aᵢⱼyᵢ|:
//
//	Primal = max over rows i of (|(Ax + s − b)ᵢ| + vᵢ) / Tᵢ
//	Dual   = max over columns j of (|(Px + q + Aᵀy)ⱼ| + Σᵢ|aᵢⱼwᵢ|) / Uⱼ
//	Complementarity = max over blocks k of
//	         min(‖s_k‖∞ / max_{i∈k} Tᵢ,  max_j Σ_{i∈k}|aᵢⱼyᵢ| / Uⱼ,  |s_kᵀy_k| / (‖s_k‖₂‖y_k‖₂))
//
// where vᵢ is the violation of row i's cone condition by s (|sᵢ| on zero rows,
// max(−sᵢ, 0) on nonnegative rows; for the other cones dist(s_k, K_k) charged
// to every row of the block, with the block's largest Tᵢ as its scale) and
// w = y − Π_{K*}(y) the part of y outside the dual cone (for the
// non-separable blocks charged through the columns as above). Zero-cone
// blocks have no complementarity condition; each row of a nonnegative block is
// a block of its own. A ratio 0/0 counts as 0.
//
// Every entry is invariant under positive scalings of the rows (per cone
// block) and of the columns of the problem, so a row whose terms are 10⁻⁵
// is judged on its own scale next to rows whose terms are 10⁶: a point that
// violates it by 2·10⁻⁶ has Primal ≈ 0.2, where the global PrimalResidual
// and PrimalCone of Accuracy report about 10⁻¹². Each entry is at most 1
// (the residual of a row is bounded by the sum of its terms).
//
// Complementarity is small when, for every block, either the slack is
// negligible next to the block's terms (an active constraint), or the dual is
// negligible in every column it enters (an inactive one), or the two are
// orthogonal (a non-polyhedral block with both on its boundary).
type RowAccuracy struct {
	Primal, Dual, Complementarity float64
	// Row is the row (Primal) and Column the column (Dual) that attain the
	// maximum; −1 when the maximum is 0. ComplementarityRow is the first
	// row of the block that attains Complementarity (−1 when 0).
	Row, Column, ComplementarityRow int
}

// Max returns the largest of the three measures (+Inf when one is NaN).
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
// px = Px, ax = Ax and aty = Aᵀy (see RowAccuracy). The lengths are checked
// by the caller.
func measureRows(p *Problem, x, s, y, px, ax, aty []float64) RowAccuracy {
	n, m := p.NumVars(), p.NumRows()
	A := p.A
	ra := RowAccuracy{Row: -1, Column: -1, ComplementarityRow: -1}

	// Row and column term magnitudes.
	T := make([]float64, m)
	for i := range T {
		T[i] = math.Abs(p.B[i]) + math.Abs(s[i])
	}
	U := make([]float64, n)
	for j := 0; j < n; j++ {
		U[j] = math.Abs(p.Q[j])
		for k := A.ColPtr[j]; k < A.ColPtr[j+1]; k++ {
			i, v := A.RowIdx[k], A.Val[k]
			T[i] += math.Abs(v * x[j])
			U[j] += math.Abs(v * y[i])
		}
	}
	if p.P != nil {
		P := p.P
		for j := 0; j < P.Cols; j++ {
			for k := P.ColPtr[j]; k < P.ColPtr[j+1]; k++ {
				i, v := P.RowIdx[k], math.Abs(P.Val[k])
				U[i] += v * math.Abs(x[j])
				if i != j {
					U[j] += v * math.Abs(x[i])
				}
			}
		}
	}

	// Primal: residual plus cone violation per row.
	viol := make([]float64, m) // vᵢ
	w := make([]float64, m)    // y − Π_{K*}(y)
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
			for t, v := range yk {
				w[off+t] = v // K* = {0}
			}
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
	off = 0
	for _, c := range p.Cones {
		blkT := 0.0
		if !separable(c.Kind) {
			for i := off; i < off+c.Dim; i++ {
				blkT = math.Max(blkT, T[i])
			}
		}
		for i := off; i < off+c.Dim; i++ {
			scale := T[i]
			if !separable(c.Kind) {
				scale = blkT
			}
			r := ratio(math.Abs(ax[i]+s[i]-p.B[i])+viol[i], scale)
			if !(r <= ra.Primal) {
				ra.Primal, ra.Row = r, i
			}
		}
		off += c.Dim
	}

	// Dual: residual plus the dual-cone violation charged through the columns.
	for j := 0; j < n; j++ {
		num := math.Abs(px[j] + p.Q[j] + aty[j])
		for k := A.ColPtr[j]; k < A.ColPtr[j+1]; k++ {
			num += math.Abs(A.Val[k] * w[A.RowIdx[k]])
		}
		if r := ratio(num, U[j]); !(r <= ra.Dual) {
			ra.Dual, ra.Column = r, j
		}
	}

	// Complementarity per block: the largest relative weight of y_k in a
	// column it enters, through the row-wise transpose of A.
	yw := make([]float64, m) // max_j |aᵢⱼyᵢ|/Uⱼ per row
	for j := 0; j < n; j++ {
		for k := A.ColPtr[j]; k < A.ColPtr[j+1]; k++ {
			i := A.RowIdx[k]
			if v := ratio(math.Abs(A.Val[k]*y[i]), U[j]); v > yw[i] {
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
				v := math.Min(ratio(math.Abs(s[i]), T[i]), yw[i])
				if s[i]*y[i] == 0 {
					v = 0
				}
				if !(v <= ra.Complementarity) {
					ra.Complementarity, ra.ComplementarityRow = v, i
				}
			}
			continue
		}
		// A non-separable block: the block-wise version of the same test,
		// with yw summed over the block's rows column by column bounded by
		// the row-wise maxima (a cheap upper bound: Σᵢ maxⱼ).
		var sInf, blkT, yRel, sy, ss, yy float64
		for i := lo; i < hi; i++ {
			sInf = math.Max(sInf, math.Abs(s[i]))
			blkT = math.Max(blkT, T[i])
			yRel += yw[i]
			sy += s[i] * y[i]
			ss += s[i] * s[i]
			yy += y[i] * y[i]
		}
		cos := ratio(math.Abs(sy), math.Sqrt(ss)*math.Sqrt(yy))
		v := math.Min(math.Min(ratio(sInf, blkT), yRel), cos)
		if !(v <= ra.Complementarity) {
			ra.Complementarity, ra.ComplementarityRow = v, lo
		}
	}
	return ra
}
