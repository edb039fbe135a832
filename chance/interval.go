package chance

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/lindecision"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/sparse"
)

// The interval fast path. With one noise component (k = 1) and only linear
// rows, enforcing a row f0(v) + f1(v)·ζ ≥ 0 for every ζ in an interval
// [lo, hi] (the vertex box or the robust support) is the same as enforcing it
// at ζ = lo and ζ = hi, and the decision rule is determined by its values at
// the two ends,
//
//	x_lo = x̄ + lo·X,  x_hi = x̄ + hi·X  ⇔  X = (x_hi − x_lo)/W,  x̄ = (hi·x_lo − lo·x_hi)/W,  W = hi − lo,
//
// an invertible change of variables. In (x_lo, x_hi) every base row
// b_i − A_i x̃(ζ) at an end touches one copy only, so the counterpart is two
// copies of the base problem coupled by the query rows Q(x_hi − x_lo) = W·I,
// the fixed recourse rows x_hi,c − x_lo,c = W·X_c and the objective
// qᵀx̄ + r = qᵀ(hi·x_lo − lo·x_hi)/W + r (or its sample CVaR). It has the
// same optimal value and decision rules as the (x̄, X) form (each constraint
// there is a nonsingular linear image of one here), with half the nonzeros per
// row and the sparsity of the base problem in each copy, which is what makes a
// 2,383-bus dispatch solve fast. Equality rows hold at both ends, i.e.
// b − A x̄ = 0 and A X = 0 (Remark 3.5).

// intervalApplies reports whether the fast path can reformulate l under spec.
func intervalApplies(l *lindecision.Lifted, spec *Spec) bool {
	if l.K() != 1 || len(spec.Groups) > 0 || (spec.Method != Vertex && spec.Method != Robust) {
		return false
	}
	base := l.Base()
	if base.P != nil && base.P.Nnz() > 0 {
		return false
	}
	return base.IsLinearConic()
}

// reformulateInterval builds the two-copy counterpart (see above).
func (r *reformer) reformulateInterval() (*Counterpart, error) {
	l, spec := r.l, r.spec
	g, err := r.boxGuarantee(spec.Approximation)
	if err != nil {
		return nil, err
	}
	lo, hi := g.Box[0].Lo, g.Box[0].Hi
	w := hi - lo
	if !(w > 0) {
		return nil, errDegenerate
	}
	base := l.Base()
	n := base.NumVars()
	at := base.A.Transpose() // column i = row i of A
	var zero, nonneg rowset
	nonneg.reserve(2*base.A.Nnz(), 2*base.NumRows())
	zero.reserve(2*n+2*l.NumEqualities(), n+l.NumEqualities())
	nv := 2 * n
	// Base rows at both ends, kept in the base problem's cone kinds; loRow[i]
	// is the local row of base row i's lower copy (zero rows negated: −1 − k).
	loRow := make([]int, base.NumRows())
	row := 0
	for _, c := range base.Cones {
		rs := &nonneg
		if c.Kind == cone.Zero {
			rs = &zero
		}
		for t := 0; t < c.Dim; t++ {
			i := row + t
			for copyOff := 0; copyOff <= n; copyOff += n {
				k := rs.open(base.B[i])
				if copyOff == 0 {
					loRow[i] = k
					if rs == &zero {
						loRow[i] = -1 - k
					}
				}
				for p := at.ColPtr[i]; p < at.ColPtr[i+1]; p++ {
					rs.term(k, copyOff+at.RowIdx[p], -at.Val[p])
				}
			}
		}
		row += c.Dim
	}
	// Fixed recourse: x_hi,c − x_lo,c = W·X_c; and a reverse map of X columns.
	xOf := map[int]int{}
	for c := 0; c < n; c++ {
		if col := l.XCol(c, 0); col >= 0 {
			xOf[col] = c
			continue
		}
		k := zero.open(-w * l.XFixed(c, 0))
		zero.term(k, n+c, 1)
		zero.term(k, c, -1)
	}
	// Query equalities (base row −1), affine in the lifted (x̄, X), times W.
	// A single one over X alone, with free recourse everywhere, may let the
	// copies decouple (split.go): qv collects its row.
	var qv []float64
	qrow, queries := -1, 0
	freeAll := len(xOf) == n
	for e := 0; e < l.NumEqualities(); e++ {
		a, br := l.Equality(e)
		if br >= 0 {
			continue // equality rows of the base problem: both copies above
		}
		queries++
		k := zero.open(w * a.Const)
		if queries == 1 && freeAll {
			qrow, qv = k, make([]float64, n)
			if !(a.Const < 0) {
				qrow = -1 // Qᵀ(x_hi − x_lo) = −W·Const must be positive
			}
		}
		for t, col := range a.Idx {
			v := a.Val[t]
			if col < n { // x̄_col = (hi·x_lo − lo·x_hi)/W
				zero.term(k, col, v*hi)
				zero.term(k, n+col, -v*lo)
			} else if c, ok := xOf[col]; ok { // X_c = (x_hi − x_lo)/W
				zero.term(k, n+c, v)
				zero.term(k, c, -v)
				if k == qrow {
					qv[c] += v
				}
			} else {
				return nil, invalidf("query equality %d refers to lifted column %d, which the interval path cannot map", e, col)
			}
			if col < n && k == qrow {
				qrow = -1 // an x̄ term: not the query row of split.go
			}
		}
	}
	q := make([]float64, nv)
	objAt := func(z float64, scale float64, dst func(col int, v float64)) {
		// qᵀx̃(z) = qᵀ(x_lo (hi − z) + x_hi (z − lo))/W.
		for c, v := range base.Q {
			if v != 0 {
				dst(c, scale*v*(hi-z)/w)
				dst(n+c, scale*v*(z-lo)/w)
			}
		}
	}
	objR := base.R
	if cv := spec.CVaR; cv == nil {
		objAt(0, 1, func(col int, v float64) { q[col] += v })
	} else {
		s, wt := cv.resolved()
		objAt(0, 1-wt, func(col int, v float64) { q[col] += v })
		objR = (1 - wt) * base.R // the CVaR part carries r inside its rows
		noise := l.Noise()
		f, err := noise.Factor()
		if err != nil {
			return nil, err
		}
		gamma := nv
		nv++
		extra := map[int]float64{gamma: wt}
		zeta := make([]float64, 1)
		for t := 0; t < s; t++ {
			if err := r.pollSampling(t, s, "CVaR scenario"); err != nil {
				return nil, err
			}
			noise.Sample(zeta, r.rng.Uint64, f)
			z := nv
			nv++
			extra[z] = wt / ((1 - cv.Alpha) * float64(s))
			k := nonneg.open(0) // z ≥ 0
			nonneg.term(k, z, 1)
			k = nonneg.open(-base.R) // z + γ − qᵀx̃(ζ_s) − r ≥ 0
			nonneg.term(k, z, 1)
			nonneg.term(k, gamma, 1)
			objAt(zeta[0], -1, func(col int, v float64) { nonneg.term(k, col, v) })
		}
		q = append(q, make([]float64, nv-len(q))...)
		for c, v := range extra {
			q[c] += v
		}
	}
	// Assemble [zero | nonnegative] rows (rowset stores g(v) ∈ K as
	// (−coef)·v + s = c, the standard form's Ax + s = b).
	m0, m1 := zero.n(), nonneg.n()
	tr := sparse.NewTriplets(m0+m1, nv, len(zero.v)+len(nonneg.v))
	for t := range zero.v {
		tr.Append(zero.i[t], zero.j[t], zero.v[t])
	}
	for t := range nonneg.v {
		tr.Append(m0+nonneg.i[t], nonneg.j[t], nonneg.v[t])
	}
	rhs := append(append(make([]float64, 0, m0+m1), zero.b...), nonneg.b...)
	var cones []cone.Cone
	if m0 > 0 {
		cones = append(cones, cone.NewZero(m0))
	}
	if m1 > 0 {
		cones = append(cones, cone.NewNonnegative(m1))
	}
	p := &solver.Problem{Q: q, R: objR, A: tr.ToCSC(), B: rhs, Cones: cones}
	cp := &Counterpart{Lifted: l, Problem: p, Guarantee: g}
	cp.Stats = Stats{AuxVars: nv - l.NumVars(), Rows: p.NumRows()}
	cp.copies = n
	if qrow >= 0 && queries == 1 && spec.CVaR == nil && objectiveIsQuery(base.Q, qv) {
		sp := &intervalSplit{n: n, qv: qv, d: -zero.b[qrow], qrow: qrow, loRow: loRow, upper: spec.Upper}
		for i, r := range loRow {
			if r < 0 {
				sp.loRow[i] = -1 - r
			} else {
				sp.loRow[i] = m0 + r
			}
		}
		cp.split = sp
	}
	cp.decode = func(x []float64) (*lindecision.Rule, error) {
		rule := &lindecision.Rule{XBar: make([]float64, n), X: mat.NewDense(n, 1, nil)}
		for c := 0; c < n; c++ {
			xl, xh := x[c], x[n+c]
			rule.XBar[c] = (hi*xl - lo*xh) / w
			rule.X.Set(c, 0, (xh-xl)/w)
		}
		return rule, nil
	}
	return cp, nil
}

// disableInterval forces the general path (tests compare the two).
var disableInterval bool

// disableSplit makes Solve solve decoupling counterparts whole (tests compare
// the two).
var disableSplit bool

// objectiveIsQuery reports whether q = κ·qv for some κ > 0 (relative
// tolerance 1e-12), the condition under which the copies decouple.
func objectiveIsQuery(q, qv []float64) bool {
	kappa := 0.0
	for j, v := range qv {
		if v != 0 {
			kappa = q[j] / v
			break
		}
	}
	if !(kappa > 0) || math.IsInf(kappa, 0) {
		return false
	}
	for j, v := range qv {
		if math.Abs(q[j]-kappa*v) > 1e-12*math.Max(math.Abs(q[j]), math.Abs(kappa*v)) {
			return false
		}
	}
	return true
}
