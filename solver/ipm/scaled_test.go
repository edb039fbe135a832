package ipm_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/highs"
	"github.com/privopt/privopt/solver/ipm"
	"github.com/privopt/privopt/sparse"
)

// scaledInstance is a random LP or SOCP whose status is known by
// construction, then scaled badly (rows and columns by 10^U(−4, 4), so the
// coefficients span about 10⁻⁸ … 10⁸). Scaling a row block by r > 0 and a
// column by c > 0 maps solutions and certificates one-to-one and keeps the
// optimal value, so want and objective hold for the scaled problem.
type scaledInstance struct {
	name      string
	p         *solver.Problem
	want      solver.Status
	objective float64 // optimal value when want is Optimal
}

// randomScaled builds instance number k of the given kind (0 optimal, 1
// primal infeasible, 2 unbounded, 3 primal and dual infeasible), cones
// nonnegative only (LP) when lp, else nonnegative and second-order blocks.
func randomScaled(rng *rand.Rand, kind, k int, lp bool) scaledInstance {
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
				u := make([]float64, c.Dim-1)
				var nu float64
				for t := range u {
					u[t] = rng.NormFloat64()
					nu += u[t] * u[t]
				}
				nu = math.Sqrt(nu)
				switch rng.IntN(3) {
				case 0: // s interior, y = 0
					s[off] = 1 + rng.Float64()
					for t := range u {
						s[off+1+t] = 0.5 * u[t] / nu
					}
				case 1: // y interior, s = 0
					y[off] = 1 + rng.Float64()
					for t := range u {
						y[off+1+t] = 0.5 * u[t] / nu
					}
				default: // both on the boundary, sᵀy = 0
					a, b := 0.5+rng.Float64(), 0.5+rng.Float64()
					s[off], y[off] = a, b
					for t := range u {
						s[off+1+t] = a * u[t] / nu
						y[off+1+t] = -b * u[t] / nu
					}
				}
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
	inst := scaledInstance{}
	switch kind {
	case 3: // primal and dual infeasible: Aᵀy = 0, bᵀy = −1, Ad = −t, qᵀd = −1 with tᵀy = 0
		t, y := complementary()
		t[0], y[0] = 0, 1
		t[1], y[1] = 1, 0
		d := randVec(n)
		var yy, dd float64
		for _, v := range y {
			yy += v * v
		}
		for _, v := range d {
			dd += v * v
		}
		aty := mulAT(y)
		for i := range A {
			for j := range A[i] {
				A[i][j] -= y[i] * aty[j] / yy
			}
		}
		// keeps Aᵀy = 0 because yᵀ(Ad + t) = 0
		ad := mulA(d)
		for i := range A {
			for j := range A[i] {
				A[i][j] -= (ad[i] + t[i]) * d[j] / dd
			}
		}
		b = randVec(m)
		var by float64
		for i := range b {
			by += b[i] * y[i]
		}
		for i := range b {
			b[i] -= y[i] * (by + 1) / yy
		}
		q = randVec(n)
		var qd float64
		for j := range q {
			qd += q[j] * d[j]
		}
		for j := range q {
			q[j] -= d[j] * (qd + 1) / dd
		}
		inst.want = solver.PrimalInfeasible
	case 0: // optimal: b = Ax* + s*, q = −Aᵀy*, value qᵀx* = −bᵀy*
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
		inst.want = solver.Optimal
		for j := range q {
			inst.objective += q[j] * x[j]
		}
	case 1: // primal infeasible: Aᵀy = 0, bᵀy = −1 for y ∈ K* (y = the complementary dual point, nonzero)
		_, y := complementary()
		y[0] = 1 // make sure y ≠ 0 (y[0] is a nonnegative coordinate)
		var yy float64
		for _, v := range y {
			yy += v * v
		}
		aty := mulAT(y)
		for i := range A {
			for j := range A[i] {
				A[i][j] -= y[i] * aty[j] / yy
			}
		}
		b = randVec(m)
		var by float64
		for i := range b {
			by += b[i] * y[i]
		}
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
		inst.want = solver.PrimalInfeasible
	default: // unbounded: Ad = −t (t ∈ K), qᵀd = −1, and a feasible point
		d := randVec(n)
		t, _ := complementary()
		t[0] = 1
		var dd float64
		for _, v := range d {
			dd += v * v
		}
		ad := mulA(d)
		for i := range A {
			for j := range A[i] {
				A[i][j] -= (ad[i] + t[i]) * d[j] / dd
			}
		}
		q = randVec(n)
		var qd float64
		for j := range q {
			qd += q[j] * d[j]
		}
		for j := range q {
			q[j] -= d[j] * (qd + 1) / dd
		}
		x0 := randVec(n)
		s0, _ := complementary()
		ax := mulA(x0)
		for i := range b {
			b[i] = ax[i] + s0[i]
		}
		inst.want = solver.DualInfeasible
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
	tr := sparse.NewTriplets(m, n, m*n)
	for i := range A {
		for j, a := range A[i] {
			if a != 0 {
				tr.Append(i, j, rowScale[i]*a*colScale[j])
			}
		}
		b[i] *= rowScale[i]
	}
	for j := range q {
		q[j] *= colScale[j]
	}
	family := "lp"
	if !lp {
		family = "socp"
	}
	inst.name = fmt.Sprintf("%s-%d-%v", family, k, inst.want)
	inst.p = &solver.Problem{Q: q, A: tr.ToCSC(), B: b, Cones: cones}
	return inst
}

// checkOnOriginal is the independent check of a claimed status on the
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
func checkOnOriginal(p *solver.Problem, sol *solver.Solution, want float64, tol float64) string {
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
		var qx float64
		for j := range x {
			qx += p.Q[j] * x[j]
		}
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
		ymag := make([]float64, m) // y's own scale per coordinate
		for i := range ymag {
			ymag[i] = math.Abs(y[i])
		}
		if e := inCone(y, ymag); e != "" {
			return "dual: " + e
		}
	case solver.PrimalInfeasible:
		y := sol.Y
		if y == nil {
			return "no certificate returned"
		}
		var by float64
		for i := range y {
			by += p.B[i] * y[i]
		}
		if !(by < 0) {
			return fmt.Sprintf("certificate: bᵀy = %g, not < 0", by)
		}
		aty := A.MulTransVecTo(nil, 1, y, 0)
		absy := make([]float64, m)
		for i := range y {
			absy[i] = math.Abs(y[i])
		}
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
		if e := inCone(y, absy); e != "" {
			return "certificate: " + e
		}
	case solver.DualInfeasible:
		x := sol.X
		if x == nil {
			return "no certificate returned"
		}
		var qx float64
		for j := range x {
			qx += p.Q[j] * x[j]
		}
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

// knownHiGHSFailures lists the instances on which HiGHS (called through
// solver/highs with default options) returns a status other than the
// constructed one (or the right one with an invalid certificate), with the
// status it returns: numerical errors on badly
// scaled infeasible LPs, and two wrong statuses whose certificates fail the
// independent check (lp-680: "infeasible" without a ray for an unbounded LP;
// lp-747: "unbounded" with an invalid ray for an LP with an optimum). The
// IPM decides all of them correctly. The test fails when this list is out of
// date in either direction, so a fix in the HiGHS route shows up here.
var knownHiGHSFailures = map[string]solver.Status{
	"lp-16-infeasible":  solver.NumericalError,
	"lp-61-infeasible":  solver.NumericalError,
	"lp-97-infeasible":  solver.NumericalError,
	"lp-133-infeasible": solver.NumericalError,
	"lp-295-infeasible": solver.NumericalError,
	"lp-304-infeasible": solver.NumericalError,
	"lp-358-infeasible": solver.NumericalError,
	"lp-376-infeasible": solver.NumericalError,
	"lp-385-infeasible": solver.NumericalError,
	"lp-394-infeasible": solver.NumericalError,
	"lp-421-infeasible": solver.NumericalError,
	"lp-671-unbounded":  solver.DualInfeasible, // right status, ray violates −Ax ∈ K by 2.5e-3 of the row's scale
	"lp-680-unbounded":  solver.PrimalInfeasible,
	"lp-747-optimal":    solver.DualInfeasible,
}

// TestBadlyScaledStatuses: 500 random badly scaled LPs and SOCPs whose status
// is known by construction (250 LPs, 250 SOCPs; optimal, infeasible and
// unbounded in turn). The IPM must return the constructed status on every
// one; HiGHS (LPs) on all but knownHiGHSFailures. Every claim of either
// backend is checked independently on the original data (checkOnOriginal,
// tolerance 10⁻⁶ for optimal points, 10⁻⁵ for certificates): zero wrong
// "optimal", zero invalid certificates (HiGHS's known wrong statuses
// excepted, and listed).
func TestBadlyScaledStatuses(t *testing.T) {
	rng := rand.New(rand.NewPCG(2026, 16))
	const total = 500
	type tally struct{ agree, disagree, wrongOptimal, badCert int }
	counts := map[string]*tally{"ipm": {}, "highs": {}}
	seen := map[string]bool{}
	for k := 0; k < total; k++ {
		lp := k%2 == 0
		inst := randomScaled(rng, (k/2*3+k%3)%3, k/2*3+k%3, lp) // both kinds see all three statuses
		backends := []solver.Solver{ipm.New()}
		if lp {
			backends = append(backends, highs.New())
		}
		for _, s := range backends {
			sol, err := s.Solve(context.Background(), inst.p, solver.Settings{})
			c := counts[s.Name()]
			if err != nil {
				t.Errorf("%s on %s: %v", s.Name(), inst.name, err)
				c.disagree++
				continue
			}
			got := sol.Status
			if got == solver.AlmostOptimal {
				got = solver.Optimal
			}
			known, isKnown := knownHiGHSFailures[inst.name]
			isKnown = isKnown && s.Name() == "highs"
			if isKnown {
				seen[inst.name] = true
				if sol.Status != known {
					t.Errorf("highs on %s: status %v, knownHiGHSFailures says %v (constructed %v): update the list", inst.name, sol.Status, known, inst.want)
				}
			}
			if got != inst.want {
				c.disagree++
				if !isKnown {
					t.Errorf("%s on %s: status %v, constructed %v", s.Name(), inst.name, sol.Status, inst.want)
				}
			} else {
				c.agree++
			}
			tol := 1e-5
			if got == solver.Optimal {
				tol = 1e-6
			}
			if msg := checkOnOriginal(inst.p, sol, inst.objective, tol); msg != "" {
				if sol.Status.OK() {
					c.wrongOptimal++
				} else {
					c.badCert++
				}
				if !isKnown {
					t.Errorf("%s on %s: %v fails the independent check: %s", s.Name(), inst.name, sol.Status, msg)
				}
			}
		}
	}
	for name := range knownHiGHSFailures {
		if !seen[name] {
			t.Errorf("knownHiGHSFailures lists %s, which the generator no longer produces", name)
		}
	}
	for _, name := range []string{"ipm", "highs"} {
		c := counts[name]
		t.Logf("%s: %d agree with the constructed status, %d disagree, %d wrong optimal, %d invalid certificates", name, c.agree, c.disagree, c.wrongOptimal, c.badCert)
	}
}

// knownPrimalDualFailures lists the primal-and-dual infeasible instances on
// which a backend does not answer "infeasible", with its answer. The IPM
// detects the dual certificate first and iterates dualInfeasibleGrace more
// times looking for a primal one; on these SOCPs its z iterate does not turn
// into one (bᵀz stays > 0), so "unbounded" remains. HiGHS stops with
// numerical errors on five of the badly scaled LPs.
var knownPrimalDualFailures = map[string]solver.Status{
	"ipm/socp-17-infeasible": solver.DualInfeasible,
	"ipm/socp-43-infeasible": solver.DualInfeasible,
	"ipm/socp-55-infeasible": solver.DualInfeasible,
	"ipm/socp-65-infeasible": solver.DualInfeasible,
	"ipm/socp-79-infeasible": solver.DualInfeasible,
	"ipm/socp-85-infeasible": solver.DualInfeasible,
	"ipm/socp-89-infeasible": solver.DualInfeasible,
	"highs/lp-10-infeasible": solver.NumericalError,
	"highs/lp-14-infeasible": solver.NumericalError,
	"highs/lp-30-infeasible": solver.NumericalError,
	"highs/lp-68-infeasible": solver.NumericalError,
	"highs/lp-72-infeasible": solver.NumericalError,
}

// TestBadlyScaledPrimalDualInfeasible: 100 random badly scaled LPs and SOCPs
// that are primal and dual infeasible at once (certificates y and d with
// yᵀ(−Ad) = 0 built in). Both backends must say "infeasible" (the primal
// certificate takes precedence, as in HiGHS), never "unbounded", which would
// claim a feasible point (knownPrimalDualFailures excepted); a returned
// certificate must check.
func TestBadlyScaledPrimalDualInfeasible(t *testing.T) {
	rng := rand.New(rand.NewPCG(2026, 1616))
	tally := map[string]map[solver.Status]int{"ipm": {}, "highs": {}}
	seen := map[string]bool{}
	for k := 0; k < 100; k++ {
		lp := k%2 == 0
		inst := randomScaled(rng, 3, k, lp)
		backends := []solver.Solver{ipm.New()}
		if lp {
			backends = append(backends, highs.New())
		}
		for _, s := range backends {
			sol, err := s.Solve(context.Background(), inst.p, solver.Settings{})
			if err != nil {
				t.Errorf("%s on %s: %v", s.Name(), inst.name, err)
				continue
			}
			tally[s.Name()][sol.Status]++
			key := s.Name() + "/" + inst.name
			if known, ok := knownPrimalDualFailures[key]; ok {
				seen[key] = true
				if sol.Status != known {
					t.Errorf("%s: status %v, knownPrimalDualFailures says %v: update the list", key, sol.Status, known)
				}
				continue
			}
			if sol.Status != solver.PrimalInfeasible {
				t.Errorf("%s on %s (primal and dual infeasible): status %v", s.Name(), inst.name, sol.Status)
				continue
			}
			if msg := checkOnOriginal(inst.p, sol, 0, 1e-5); msg != "" && !(s.Name() == "highs" && sol.Y == nil) {
				t.Errorf("%s on %s: certificate fails the independent check: %s", s.Name(), inst.name, msg)
			}
		}
	}
	for key := range knownPrimalDualFailures {
		if !seen[key] {
			t.Errorf("knownPrimalDualFailures lists %s, which the generator no longer produces", key)
		}
	}
	t.Logf("statuses: ipm %v, highs %v", tally["ipm"], tally["highs"])
}
