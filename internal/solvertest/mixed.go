package solvertest

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/sparse"
)

// Family is the problem class of a mixed-scale instance.
type Family int

// Mixed-scale families.
const (
	LP   Family = iota // zero and nonnegative rows, linear objective
	QP                 // the same rows, P = LLᵀ of rank 1…n/2
	SOCP               // nonnegative rows and 1–3 second-order blocks
)

func (f Family) String() string {
	return [...]string{"lp", "qp", "socp"}[f]
}

// MixedInstance is a problem with a planted optimum whose row blocks have
// mixed scales (see Mixed).
type MixedInstance struct {
	Name    string          // "lp-17", "socp-4", …
	Problem *solver.Problem // the scaled problem
	// Objective is the optimal value ½x*ᵀPx* + qᵀx* of the planted point.
	Objective float64
	// X is the planted optimal x* (unique for LP and QP).
	X []float64
}

// Mixed builds instance number k of family f: n = 4…12 free variables, A
// dense with probability 0.7 per entry (N(0, 1) values), 0–2 zero rows,
// n − (zero rows) active nonnegative rows (s* = 0, y* ∈ [0.1, 1.1]), 2…n+1
// inactive ones (s* ∈ [0.1, 1.1], y* = 0), and for SOCP one to three
// second-order blocks of dimension 3–5 (s* interior, y* interior, or both on
// the boundary with s*ᵀy* = 0), with one active nonnegative row less per
// block. Then b = Ax* + s*, q = −Px* − Aᵀy* for a random x*: (x*, s*, y*)
// satisfies the optimality conditions of package solver, strictly
// complementary, and for LP and QP the active rows (generically of rank n)
// fix x*. The value ½x*ᵀPx* + qᵀx* is the optimum.
//
// Scaling: every row block (a row of the zero and nonnegative cones, a whole
// second-order block) is multiplied by 10^U(−6, 6), block 0 by 10⁻⁶ and
// block 1 by 10⁶ so that the whole span occurs in every problem, and every
// column by 10^U(−2, 2). Positive row and column scalings map the planted
// point to an optimum of the scaled problem with the same value.
func Mixed(rng *rand.Rand, f Family, k int) MixedInstance {
	n := 4 + rng.IntN(9)
	nz := rng.IntN(3)
	var socDims []int
	if f == SOCP {
		for b := 0; b < 1+rng.IntN(3); b++ {
			socDims = append(socDims, 3+rng.IntN(3))
		}
	}
	nActive := n - nz - len(socDims)
	nInactive := 2 + rng.IntN(n)
	nn := nActive + nInactive
	m := nz + nn
	var cones []cone.Cone
	if nz > 0 {
		cones = append(cones, cone.NewZero(nz))
	}
	cones = append(cones, cone.NewNonnegative(nn))
	for _, d := range socDims {
		cones = append(cones, cone.NewSecondOrder(d))
		m += d
	}
	A := make([][]float64, m)
	for i := range A {
		A[i] = make([]float64, n)
		for j := range A[i] {
			if rng.Float64() < 0.7 {
				A[i][j] = rng.NormFloat64()
			}
		}
	}
	x := make([]float64, n)
	for j := range x {
		x[j] = rng.NormFloat64()
	}
	s, y := make([]float64, m), make([]float64, m)
	for i := 0; i < nz; i++ {
		y[i] = rng.NormFloat64()
	}
	for t := 0; t < nn; t++ {
		i := nz + t
		if t < nActive {
			y[i] = 0.1 + rng.Float64()
		} else {
			s[i] = 0.1 + rng.Float64()
		}
	}
	rng.Shuffle(nn, func(a, b int) { // mix active and inactive rows
		a, b = nz+a, nz+b
		s[a], s[b] = s[b], s[a]
		y[a], y[b] = y[b], y[a]
		A[a], A[b] = A[b], A[a]
	})
	off := nz + nn
	for _, d := range socDims {
		socPair(rng, s[off:off+d], y[off:off+d])
		off += d
	}
	// P = LLᵀ (dense n×n) for QP.
	var P [][]float64
	if f == QP {
		r := 1 + rng.IntN(n/2)
		L := make([][]float64, n)
		for i := range L {
			L[i] = make([]float64, r)
			for t := range L[i] {
				L[i][t] = rng.NormFloat64()
			}
		}
		P = make([][]float64, n)
		for i := range P {
			P[i] = make([]float64, n)
			for j := range P[i] {
				for t := 0; t < r; t++ {
					P[i][j] += L[i][t] * L[j][t]
				}
			}
		}
	}
	b := make([]float64, m)
	for i := range A {
		b[i] = dot(A[i], x) + s[i]
	}
	q := make([]float64, n)
	for j := range q {
		for i := range A {
			q[j] -= A[i][j] * y[i]
		}
		if P != nil {
			q[j] -= dot(P[j], x)
		}
	}
	// Scaling.
	rowScale := make([]float64, m)
	blk := 0
	off = 0
	for _, c := range cones {
		size := 1
		if c.Kind == cone.SecondOrder {
			size = c.Dim
		}
		for lo := off; lo < off+c.Dim; lo += size {
			r := math.Pow(10, -6+12*rng.Float64())
			switch blk {
			case 0:
				r = 1e-6
			case 1:
				r = 1e6
			}
			blk++
			for i := lo; i < lo+size; i++ {
				rowScale[i] = r
			}
		}
		off += c.Dim
	}
	colScale := make([]float64, n)
	for j := range colScale {
		colScale[j] = math.Pow(10, -2+4*rng.Float64())
	}
	scaledA := scaleRowsCols(A, b, rowScale, colScale)
	var obj float64
	xs := make([]float64, n)
	for j := range x {
		obj += q[j] * x[j]
		q[j] *= colScale[j]
		xs[j] = x[j] / colScale[j]
	}
	inst := MixedInstance{Name: fmt.Sprintf("%v-%d", f, k), X: xs}
	var pc *sparse.CSC
	if P != nil {
		pt := sparse.NewTriplets(n, n, n*(n+1)/2)
		for j := 0; j < n; j++ {
			for i := 0; i <= j; i++ {
				pt.Append(i, j, colScale[i]*P[i][j]*colScale[j])
			}
			obj += 0.5 * x[j] * dot(P[j], x)
		}
		pc = pt.ToCSC()
	}
	inst.Objective = obj
	inst.Problem = &solver.Problem{P: pc, Q: q, A: scaledA, B: b, Cones: cones}
	return inst
}

// MixedSuite returns count instances (seed (2026, 26)), cycling through LP,
// QP and SOCP.
func MixedSuite(count int) []MixedInstance {
	rng := rand.New(rand.NewPCG(2026, 26))
	out := make([]MixedInstance, count)
	for k := range out {
		out[k] = Mixed(rng, Family(k%3), k)
	}
	return out
}

// Judge decides, in plain float64 arithmetic and without the solver
// package's re-check, whether sol — claimed Optimal or AlmostOptimal — is
// wrong for a problem whose optimal value is want: it returns "" when the
// claim stands, a reason otherwise. Wrong means
//
//   - the objective ½xᵀPx + qᵀx + r differs from want by more than
//     tol·max(1, |want|), or
//   - some row block is violated by x by more than tol relative to its own
//     terms: with u = b − Ax, |uᵢ| > tol·(|bᵢ| + Σₖ|aᵢₖxₖ|) on a zero row,
//     −uᵢ > tol·(…) on a nonnegative row, and dist(u_k, SOC) > tol·maxᵢ(…)
//     on a second-order block.
//
// The slack sol.S is not used: whatever a backend reports, x must be
// feasible row by row. Other statuses are not claims of optimality ("").
func Judge(p *solver.Problem, sol *solver.Solution, want, tol float64) string {
	if sol == nil || !sol.Status.OK() {
		return ""
	}
	x := sol.X
	n, m := p.NumVars(), p.NumRows()
	if len(x) != n {
		return fmt.Sprintf("x has length %d, want %d", len(x), n)
	}
	A := p.A
	u := make([]float64, m)
	mag := make([]float64, m)
	copy(u, p.B)
	for i := range mag {
		mag[i] = math.Abs(p.B[i])
	}
	for j := 0; j < n; j++ {
		for k := A.ColPtr[j]; k < A.ColPtr[j+1]; k++ {
			i := A.RowIdx[k]
			u[i] -= A.Val[k] * x[j]
			mag[i] += math.Abs(A.Val[k] * x[j])
		}
	}
	off := 0
	for _, c := range p.Cones {
		switch c.Kind {
		case cone.Zero, cone.Nonnegative:
			for i := off; i < off+c.Dim; i++ {
				v := math.Abs(u[i])
				if c.Kind == cone.Nonnegative {
					v = math.Max(-u[i], 0)
				}
				if v > tol*mag[i] {
					return fmt.Sprintf("row %d (%v) violated by %.3g, %.3g of its terms %.3g", i, c.Kind, v, v/mag[i], mag[i])
				}
			}
		case cone.SecondOrder:
			t := u[off]
			var nx, scale float64
			for i := off; i < off+c.Dim; i++ {
				if i > off {
					nx += u[i] * u[i]
				}
				scale = math.Max(scale, mag[i])
			}
			nx = math.Sqrt(nx)
			var d float64
			switch {
			case nx <= t:
			case nx <= -t:
				d = math.Hypot(t, nx)
			default:
				d = (nx - t) / math.Sqrt2
			}
			if d > tol*scale {
				return fmt.Sprintf("second-order block at row %d violated by %.3g, %.3g of its terms %.3g", off, d, d/scale, scale)
			}
		default:
			return fmt.Sprintf("Judge does not handle %v cones", c.Kind)
		}
		off += c.Dim
	}
	obj := p.R
	for j := range x {
		obj += p.Q[j] * x[j]
	}
	if p.P != nil {
		px := make([]float64, n)
		solver.SymMulVec(px, p.P, x)
		obj += 0.5 * dot(x, px)
	}
	if math.Abs(obj-want) > tol*math.Max(1, math.Abs(want)) {
		return fmt.Sprintf("objective %.10g, the planted optimum is %.10g (relative error %.2g)", obj, want, math.Abs(obj-want)/math.Max(1, math.Abs(want)))
	}
	return ""
}

// OneSmallRow builds the badly scaled LP class of the row-wise re-check's
// motivating failure: 16 free variables and 35 inequality rows, 16 of them
// active at a planted optimum (y* ∈ [0.1, 1.1]), A dense with N(0, 1) entries,
// every row scaled by 10^U(3, 6) except row 0, which is active and scaled by
// small (its terms are then about small·|x*|, e.g. 10⁻⁵), and every column
// by 10^U(−colSpan, colSpan). The planted point is the unique optimum
// (Objective, X).
func OneSmallRow(rng *rand.Rand, small, colSpan float64) MixedInstance {
	const n, m, active = 16, 35, 16
	A := make([][]float64, m)
	for i := range A {
		A[i] = make([]float64, n)
		for j := range A[i] {
			A[i][j] = rng.NormFloat64()
		}
	}
	x := make([]float64, n)
	for j := range x {
		x[j] = rng.NormFloat64()
	}
	s, y := make([]float64, m), make([]float64, m)
	for i := range s {
		if i < active {
			y[i] = 0.1 + rng.Float64()
		} else {
			s[i] = 0.1 + rng.Float64()
		}
	}
	tr := sparse.NewTriplets(m, n, m*n)
	b := make([]float64, m)
	q := make([]float64, n)
	for i := range A {
		r := small
		if i > 0 {
			r = math.Pow(10, 3+3*rng.Float64())
		}
		b[i] = r * (dot(A[i], x) + s[i])
		for j, a := range A[i] {
			tr.Append(i, j, r*a)
			q[j] -= a * y[i]
		}
	}
	obj := dot(q, x)
	A0 := tr.ToCSC()
	for j := 0; j < n; j++ {
		c := math.Pow(10, -colSpan+2*colSpan*rng.Float64())
		for k := A0.ColPtr[j]; k < A0.ColPtr[j+1]; k++ {
			A0.Val[k] *= c
		}
		q[j] *= c
		x[j] /= c
	}
	return MixedInstance{Name: fmt.Sprintf("one-small-row-%g-%g", small, colSpan), Objective: obj, X: x,
		Problem: &solver.Problem{Q: q, A: A0, B: b, Cones: []cone.Cone{cone.NewNonnegative(m)}}}
}
