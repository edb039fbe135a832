package ipm

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
)

// expMaxEntMean is maximize −Σⱼ xⱼ log xⱼ s.t. Σⱼ xⱼ = 1, Σⱼ aⱼxⱼ = mean, x ≥ 0 in
// conic form (variables x, t; (tⱼ, xⱼ, 1) ∈ K_exp, minimize −Σ tⱼ), and its
// optimum from the Gibbs form xⱼ ∝ exp(λaⱼ), λ found by bisection on the
// mean (monotone in λ): an independent reference.
func expMaxEntMean(a []float64, mean float64) (*solver.Problem, float64) {
	p := len(a)
	rows := make([][]float64, 0, 2+3*p)
	b := make([]float64, 0, 2+3*p)
	one, mom := make([]float64, 2*p), make([]float64, 2*p)
	for j := range a {
		one[j], mom[j] = 1, a[j]
	}
	rows = append(rows, one, mom)
	b = append(b, 1, mean)
	var cones []cone.Cone
	cones = append(cones, cone.NewZero(2))
	for j := 0; j < p; j++ {
		// s = b − A·(x, t) = (tⱼ, xⱼ, 1)
		r0, r1, r2 := make([]float64, 2*p), make([]float64, 2*p), make([]float64, 2*p)
		r0[p+j], r1[j] = -1, -1
		rows = append(rows, r0, r1, r2)
		b = append(b, 0, 0, 1)
		cones = append(cones, cone.NewExponential())
	}
	q := make([]float64, 2*p)
	for j := 0; j < p; j++ {
		q[p+j] = -1
	}
	gibbs := func(l float64) (m, ent float64) {
		var z float64
		for _, v := range a {
			z += math.Exp(l * v)
		}
		for _, v := range a {
			x := math.Exp(l*v) / z
			m += x * v
			ent -= x * math.Log(x)
		}
		return m, ent
	}
	lo, hi := -200.0, 200.0
	for k := 0; k < 200; k++ {
		mid := (lo + hi) / 2
		if m, _ := gibbs(mid); m < mean {
			lo = mid
		} else {
			hi = mid
		}
	}
	_, ent := gibbs((lo + hi) / 2)
	return &solver.Problem{Q: q, A: dense(rows), B: b, Cones: cones}, -ent
}

// TestExpNoRegDescentAtFloor: maximum-entropy problems solved to their Gibbs
// optimum keep the initial static regularization — the residuals of their
// last KKT solves lie at the round-off of computing them (the scaling
// blocks grow like 1/μ), where before expSolveAtFloor a descent of ε redid
// the iteration three to four times without making the solves more
// accurate — and the bound itself matches a dense evaluation of
// u·max(|b| + |K₀||x|)/(1 + ‖b‖∞).
func TestExpNoRegDescentAtFloor(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 11))
	set := DefaultSettings()
	for _, p := range []int{10, 25, 40} {
		a := make([]float64, p)
		for j := range a {
			a[j] = rng.Float64()
		}
		pr, want := expMaxEntMean(a, 0.35)
		w, err := newWorkspace(pr, &set, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !w.nonsymEarly {
			t.Fatalf("p = %d: not in the nonsymEarly class", p)
		}
		eps0 := w.kkt.eps
		sol := w.run(context.Background())
		if sol.Status != solver.Optimal {
			t.Fatalf("p = %d: status %v", p, sol.Status)
		}
		if math.Abs(sol.Objective-want) > 1e-7*(1+math.Abs(want)) {
			t.Errorf("p = %d: objective %.10g, Gibbs optimum %.10g", p, sol.Objective, want)
		}
		if w.kkt.eps != eps0 || w.regFirst > 0 || w.regLocked {
			t.Errorf("p = %d: static regularization adapted (ε %g → %g)", p, eps0, w.kkt.eps)
		}

		// the bound against a dense evaluation at the last constant solve
		ks := w.kkt
		n := ks.dim
		kd := make([]float64, n*n)
		for j := 0; j < n; j++ {
			for q := ks.k.ColPtr[j]; q < ks.k.ColPtr[j+1]; q++ {
				i := ks.k.RowIdx[q]
				v := ks.k.Val[q]
				if i == j && j < ks.n+ks.mr {
					v -= ks.eps * float64(ks.signs[j])
				}
				kd[i*n+j], kd[j*n+i] = v, v
			}
		}
		x, b := w.sol, w.rhs
		var m, nb float64
		for i := 0; i < n; i++ {
			s := math.Abs(b[i])
			for j := 0; j < n; j++ {
				s += math.Abs(kd[i*n+j]) * math.Abs(x[j])
			}
			m = math.Max(m, s)
			nb = math.Max(nb, math.Abs(b[i]))
		}
		ref := 0x1p-53 * m / (1 + nb)
		if got := ks.expAbsResidualBound(x, b); !(math.Abs(got-ref) <= 1e-12*ref) || ref == 0 {
			t.Errorf("p = %d: bound %.17g, dense %.17g", p, got, ref)
		}
	}
}
