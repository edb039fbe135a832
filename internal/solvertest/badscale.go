package solvertest

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/sparse"
)

// Kind is the status an instance is constructed to have.
type Kind int

// Instance kinds.
const (
	Optimal              Kind = iota // a primal-dual pair (x*, s*, y*) is built in
	Infeasible                       // a Farkas ray y ∈ K*, Aᵀy = 0, bᵀy = −1, and a strictly feasible dual
	Unbounded                        // a ray d: −Ad ∈ K, qᵀd = −1, and a feasible point
	PrimalDualInfeasible             // both rays, y and d, at once (no feasible point)
)

// Instance is a random LP or SOCP whose status is known by construction, then
// scaled badly (rows and columns by 10^U(−4, 4), so the coefficients span
// about 10⁻⁸ … 10⁸). Scaling a row block by r > 0 and a column by c > 0 maps
// solutions and certificates one-to-one and keeps the optimal value, so Want
// and Objective hold for the scaled problem.
type Instance struct {
	Name      string          // "lp-17-optimal", "socp-4-infeasible", …
	Problem   *solver.Problem // the scaled problem
	Want      solver.Status   // Optimal, PrimalInfeasible (also for PrimalDualInfeasible) or DualInfeasible
	Objective float64         // the optimal value when Want is Optimal
}

// Suite returns the 500 instances of the statuses benchmark (seed (2026, 16)):
// 250 LPs and 250 SOCPs, alternating, each family cycling through Optimal,
// Infeasible and Unbounded.
func Suite() []Instance {
	rng := rand.New(rand.NewPCG(2026, 16))
	out := make([]Instance, 500)
	for k := range out {
		id := k/2*3 + k%3 // both families see all three statuses
		out[k] = Random(rng, Kind(id%3), id, k%2 == 0)
	}
	return out
}

// PrimalDualSuite returns the 100 primal-and-dual infeasible instances (seed
// (2026, 1616)): 50 LPs and 50 SOCPs, alternating.
func PrimalDualSuite() []Instance {
	rng := rand.New(rand.NewPCG(2026, 1616))
	out := make([]Instance, 100)
	for k := range out {
		out[k] = Random(rng, PrimalDualInfeasible, k, k%2 == 0)
	}
	return out
}

// Random builds instance number k (used in the name) of the given kind,
// nonnegative cones only (an LP) when lp, else nonnegative and 1–3
// second-order blocks; n = 3…10 variables, A dense with probability 0.6 per
// entry, N(0, 1) values.
//
// The constructions: for Optimal, complementary s* ∈ K, y* ∈ K* and a random
// x*, then b = Ax* + s*, q = −Aᵀy* (value qᵀx*); for Infeasible, A is
// projected so that Aᵀy = 0 for a y ∈ K* and b so that bᵀy = −1, with
// q = −Aᵀy₀ for y₀ interior to K*; for Unbounded, A is projected so that
// Ad = −t (t ∈ K) and q so that qᵀd = −1, with b = Ax₀ + s₀; for
// PrimalDualInfeasible, both projections with tᵀy = 0 (so they do not
// interfere).
func Random(rng *rand.Rand, kind Kind, k int, lp bool) Instance {
	n := 3 + rng.IntN(8)
	// cone blocks of the rows
	var cones []cone.Cone
	m := 0
	nn := n + 1 + rng.IntN(n)
	cones = append(cones, cone.NewNonnegative(nn))
	m += nn
	if !lp {
		for b := 0; b < 1+rng.IntN(3); b++ {
			d := 2 + rng.IntN(4)
			cones = append(cones, cone.NewSecondOrder(d))
			m += d
		}
	}
	A := make([][]float64, m)
	for i := range A {
		A[i] = make([]float64, n)
		for j := range A[i] {
			if rng.Float64() < 0.6 {
				A[i][j] = rng.NormFloat64()
			}
		}
	}
	// interiorPoint returns a point of K (boundary in some blocks when
	// boundary is true) and a complementary point of K* (zero where the
	// first is interior).
	complementary := func() (s, y []float64) {
		s, y = make([]float64, m), make([]float64, m)
		off := 0
		for _, c := range cones {
			switch c.Kind {
			case cone.Nonnegative:
				for i := off; i < off+c.Dim; i++ {
					if rng.IntN(2) == 0 {
						s[i] = rng.Float64() + 0.1
					} else {
						y[i] = rng.Float64() + 0.1
					}
				}
			case cone.SecondOrder:
				socPair(rng, s[off:off+c.Dim], y[off:off+c.Dim])
			}
			off += c.Dim
		}
		return s, y
	}
	mulA := func(x []float64) []float64 {
		r := make([]float64, m)
		for i := range A {
			for j, a := range A[i] {
				r[i] += a * x[j]
			}
		}
		return r
	}
	mulAT := func(y []float64) []float64 {
		r := make([]float64, n)
		for i := range A {
			for j, a := range A[i] {
				r[j] += a * y[i]
			}
		}
		return r
	}
	randVec := func(k int) []float64 {
		v := make([]float64, k)
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		return v
	}
	b := make([]float64, m)
	q := make([]float64, n)
	inst := Instance{}
	switch kind {
	case PrimalDualInfeasible: // primal and dual infeasible: Aᵀy = 0, bᵀy = −1, Ad = −t, qᵀd = −1 with tᵀy = 0
		t, y := complementary()
		t[0], y[0] = 0, 1
		t[1], y[1] = 1, 0
		d := randVec(n)
		yy, dd := dot(y, y), dot(d, d)
		subOuter(A, y, mulAT(y), yy)
		// keeps Aᵀy = 0 because yᵀ(Ad + t) = 0
		ad := mulA(d)
		for i := range ad {
			ad[i] += t[i]
		}
		subOuter(A, ad, d, dd)
		b = randVec(m)
		by := dot(b, y)
		for i := range b {
			b[i] -= y[i] * (by + 1) / yy
		}
		q = randVec(n)
		qd := dot(q, d)
		for j := range q {
			q[j] -= d[j] * (qd + 1) / dd
		}
		inst.Want = solver.PrimalInfeasible
	case Optimal: // optimal: b = Ax* + s*, q = −Aᵀy*, value qᵀx* = −bᵀy*
		x := randVec(n)
		s, y := complementary()
		ax := mulA(x)
		for i := range b {
			b[i] = ax[i] + s[i]
		}
		aty := mulAT(y)
		for j := range q {
			q[j] = -aty[j]
		}
		inst.Want = solver.Optimal
		inst.Objective += dot(q, x)
	case Infeasible: // primal infeasible: Aᵀy = 0, bᵀy = −1 for y ∈ K* (y = the complementary dual point, nonzero)
		_, y := complementary()
		y[0] = 1 // make sure y ≠ 0 (y[0] is a nonnegative coordinate)
		yy := dot(y, y)
		subOuter(A, y, mulAT(y), yy)
		b = randVec(m)
		by := dot(b, y)
		for i := range b {
			b[i] -= y[i] * (by + 1) / yy
		}
		// q = −Aᵀy₀ with y₀ in the interior of K*: the dual is feasible, so
		// the problem is infeasible and not also dual infeasible.
		y0 := make([]float64, m)
		off := 0
		for _, c := range cones {
			y0[off] = 2
			if c.Kind == cone.Nonnegative {
				for i := off; i < off+c.Dim; i++ {
					y0[i] = 0.5 + rng.Float64()
				}
			}
			off += c.Dim
		}
		aty0 := mulAT(y0)
		for j := range q {
			q[j] = -aty0[j]
		}
		inst.Want = solver.PrimalInfeasible
	default: // unbounded: Ad = −t (t ∈ K), qᵀd = −1, and a feasible point
		d := randVec(n)
		t, _ := complementary()
		t[0] = 1
		dd := dot(d, d)
		ad := mulA(d)
		for i := range ad {
			ad[i] += t[i]
		}
		subOuter(A, ad, d, dd)
		q = randVec(n)
		qd := dot(q, d)
		for j := range q {
			q[j] -= d[j] * (qd + 1) / dd
		}
		x0 := randVec(n)
		s0, _ := complementary()
		ax := mulA(x0)
		for i := range b {
			b[i] = ax[i] + s0[i]
		}
		inst.Want = solver.DualInfeasible
	}
	// bad scaling: one factor per row block of a second-order cone
	rowScale := make([]float64, m)
	off := 0
	for _, c := range cones {
		if c.Kind == cone.SecondOrder {
			r := math.Pow(10, -4+8*rng.Float64())
			for i := off; i < off+c.Dim; i++ {
				rowScale[i] = r
			}
		} else {
			for i := off; i < off+c.Dim; i++ {
				rowScale[i] = math.Pow(10, -4+8*rng.Float64())
			}
		}
		off += c.Dim
	}
	colScale := make([]float64, n)
	for j := range colScale {
		colScale[j] = math.Pow(10, -4+8*rng.Float64())
	}
	scaledA := scaleRowsCols(A, b, rowScale, colScale)
	for j := range q {
		q[j] *= colScale[j]
	}
	family := "lp"
	if !lp {
		family = "socp"
	}
	inst.Name = fmt.Sprintf("%s-%d-%v", family, k, inst.Want)
	inst.Problem = &solver.Problem{Q: q, A: scaledA, B: b, Cones: cones}
	return inst
}

// Check is the independent check of a claimed status on the
// problem's own (badly scaled) data, in plain float64 arithmetic:
//
//   - optimal: the objective qᵀx equals the constructed optimum to 10⁻⁵
//     relative; ‖Ax + s − b‖∞ ≤ tol·(1 + max(‖b‖∞, ‖Ax‖∞, ‖s‖∞)),
//     ‖Aᵀy + q‖∞ ≤ tol·(1 + max(‖q‖∞, ‖Aᵀy‖∞)), s ∈ K and y ∈ K* up to tol
//     times each block's magnitude (row-wise scale of Ax and b);
//   - infeasible: bᵀy < 0, ‖Aᵀy‖∞ ≤ tol·max(‖A‖·|y|), y ∈ K*;
//   - unbounded: qᵀx < 0, −Ax ∈ K up to tol times each row's magnitude
//     Σ_k |a_ik x_k|.
//
// A certificate the backend did not return (nil) is reported as missing. It
// returns "" when the claim checks out.
func Check(p *solver.Problem, sol *solver.Solution, want float64, tol float64) string {
	A := p.A
	m, n := p.NumRows(), p.NumVars()
	normInf := func(v []float64) float64 {
		var r float64
		for _, x := range v {
			r = math.Max(r, math.Abs(x))
		}
		return r
	}
	// rowMag[i] = |b_i| + Σ_k |a_ik x_k| (the scale of row i at x)
	rowMag := func(x []float64, withB bool) []float64 {
		mag := make([]float64, m)
		for j := 0; j < n; j++ {
			for q := A.ColPtr[j]; q < A.ColPtr[j+1]; q++ {
				mag[A.RowIdx[q]] += math.Abs(A.Val[q] * x[j])
			}
		}
		if withB {
			for i := range mag {
				mag[i] += math.Abs(p.B[i])
			}
		}
		return mag
	}
	absVec := func(v []float64) []float64 {
		a := make([]float64, len(v))
		for i, x := range v {
			a[i] = math.Abs(x)
		}
		return a
	}
	inCone := func(v, mag []float64) string {
		off := 0
		for _, c := range p.Cones {
			blk := v[off : off+c.Dim]
			var scale float64
			for t := range blk {
				scale = math.Max(scale, math.Max(math.Abs(blk[t]), mag[off+t]))
			}
			switch c.Kind {
			case cone.Nonnegative:
				for t, x := range blk {
					if x < -tol*math.Max(mag[off+t], 1e-300) {
						return fmt.Sprintf("coordinate %d is %g < 0 (row magnitude %g)", off+t, x, mag[off+t])
					}
				}
			case cone.SecondOrder:
				var nrm float64
				for _, x := range blk[1:] {
					nrm += x * x
				}
				if nrm = math.Sqrt(nrm); blk[0] < nrm-tol*scale {
					return fmt.Sprintf("SOC block at %d: %g < ‖·‖ = %g", off, blk[0], nrm)
				}
			}
			off += c.Dim
		}
		return ""
	}
	switch sol.Status {
	case solver.Optimal, solver.AlmostOptimal:
		x, s, y := sol.X, sol.S, sol.Y
		qx := dot(p.Q, x)
		if math.Abs(qx-want) > 1e-5*(1+math.Abs(want)) {
			return fmt.Sprintf("objective %.10g, the constructed optimum is %.10g", qx, want)
		}
		ax := A.MulVecTo(nil, 1, x, 0)
		r := make([]float64, m)
		for i := range r {
			r[i] = ax[i] + s[i] - p.B[i]
		}
		if nr, sc := normInf(r), 1+math.Max(normInf(p.B), math.Max(normInf(ax), normInf(s))); nr > tol*sc {
			return fmt.Sprintf("primal residual %g, scale %g", nr, sc)
		}
		if e := inCone(s, rowMag(x, true)); e != "" {
			return "slack: " + e
		}
		if y == nil {
			return "no dual solution"
		}
		aty := A.MulTransVecTo(nil, 1, y, 0)
		rd := make([]float64, n)
		for j := range rd {
			rd[j] = aty[j] + p.Q[j]
		}
		if nr, sc := normInf(rd), 1+math.Max(normInf(p.Q), normInf(aty)); nr > tol*sc {
			return fmt.Sprintf("dual residual %g, scale %g", nr, sc)
		}
		if e := inCone(y, absVec(y)); e != "" { // y's own scale per coordinate
			return "dual: " + e
		}
	case solver.PrimalInfeasible:
		y := sol.Y
		if y == nil {
			return "no certificate returned"
		}
		by := dot(p.B, y)
		if !(by < 0) {
			return fmt.Sprintf("certificate: bᵀy = %g, not < 0", by)
		}
		aty := A.MulTransVecTo(nil, 1, y, 0)
		// the scale of Aᵀy: max_j Σ_i |a_ij y_i|
		var sc float64
		for j := 0; j < n; j++ {
			var t float64
			for q := A.ColPtr[j]; q < A.ColPtr[j+1]; q++ {
				t += math.Abs(A.Val[q] * y[A.RowIdx[q]])
			}
			sc = math.Max(sc, t)
		}
		if nr := normInf(aty); nr > tol*sc {
			return fmt.Sprintf("certificate: ‖Aᵀy‖∞ = %g vs scale %g (bᵀy = %g)", nr, sc, by)
		}
		if e := inCone(y, absVec(y)); e != "" {
			return "certificate: " + e
		}
	case solver.DualInfeasible:
		x := sol.X
		if x == nil {
			return "no certificate returned"
		}
		qx := dot(p.Q, x)
		if !(qx < 0) {
			return fmt.Sprintf("certificate: qᵀx = %g, not < 0", qx)
		}
		s := A.MulVecTo(nil, -1, x, 0)
		if e := inCone(s, rowMag(x, false)); e != "" {
			return "certificate direction −Ax: " + e
		}
	}
	return ""
}

// scaleRowsCols returns diag(rowScale)·A·diag(colScale) in CSC form (A dense,
// row by row, zeros left out) and scales b by rowScale in place.
func scaleRowsCols(A [][]float64, b, rowScale, colScale []float64) *sparse.CSC {
	tr := sparse.NewTriplets(len(A), len(colScale), len(A)*len(colScale))
	for i := range A {
		for j, a := range A[i] {
			if a != 0 {
				tr.Append(i, j, rowScale[i]*a*colScale[j])
			}
		}
		b[i] *= rowScale[i]
	}
	return tr.ToCSC()
}

// socPair sets a complementary pair of a second-order block of dimension
// len(s): s interior and y = 0, y interior and s = 0, or both on the boundary
// with sᵀy = 0 (one of the three at random), drawing the same numbers in the
// same order whichever it is.
func socPair(rng *rand.Rand, s, y []float64) {
	u := make([]float64, len(s)-1)
	var nu float64
	for t := range u {
		u[t] = rng.NormFloat64()
		nu += u[t] * u[t]
	}
	nu = math.Sqrt(nu)
	switch rng.IntN(3) {
	case 0: // s interior, y = 0
		s[0] = 1 + rng.Float64()
		for t := range u {
			s[1+t] = 0.5 * u[t] / nu
		}
	case 1: // y interior, s = 0
		y[0] = 1 + rng.Float64()
		for t := range u {
			y[1+t] = 0.5 * u[t] / nu
		}
	default: // both on the boundary, sᵀy = 0
		a, b := 0.5+rng.Float64(), 0.5+rng.Float64()
		s[0], y[0] = a, b
		for t := range u {
			s[1+t] = a * u[t] / nu
			y[1+t] = -b * u[t] / nu
		}
	}
}

// dot is Σᵢ uᵢvᵢ, summed in order (the instances stay bit-identical).
func dot(u, v []float64) float64 {
	var t float64
	for i := range u {
		t += u[i] * v[i]
	}
	return t
}

// subOuter sets A ← A − u vᵀ/s.
func subOuter(A [][]float64, u, v []float64, s float64) {
	for i := range A {
		for j := range A[i] {
			A[i][j] -= u[i] * v[j] / s
		}
	}
}
