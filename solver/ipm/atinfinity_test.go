package ipm

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/sparse"
	"gonum.org/v1/gonum/mat"
)

// atInfinityProblem builds an SDP whose optimal set is at infinity, with a
// reference problem that has the same optimal value and is well posed. In
// variables z ∈ ℝⁿᵛ, with a random orthogonal Q of order k,
//
//	minimize z₀ + Σ_{j≥2} c_j z_j  s.t.  Qᵀ diag([z₀ a; a z₁], R₀ + Σ_{j≥2} z_j R_j) Q ⪰ 0,
//
// R₀ = 10·I and R_j random symmetric of order k − 2. The 2 × 2 block needs
// z₀ z₁ ≥ a², so z₀ > 0 and the infimum of z₀ is 0, approached only as z₁ →
// ∞: the optimal value is that of the reference, minimize Σ_{j≥2} c_j z_j
// s.t. R₀ + Σ z_j R_j ⪰ 0 (returned as ref), and no point attains it. The
// problem handed to the solver is written in x = T⁻¹z for a random T, so the
// direction to infinity combines every column (no single column shows it,
// and the one-column facial reduction of facial.go does not apply). This is
// the structure of SDPLIB's hinf problems (H∞ synthesis LMIs whose
// Lyapunov variable grows without bound at the optimum).
func atInfinityProblem(seed uint64, nv, k int, a float64) (p, ref *solver.Problem) {
	rng := rand.New(rand.NewPCG(seed, 7))
	randSym := func(n int) *mat.SymDense {
		m := mat.NewSymDense(n, nil)
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				m.SetSym(i, j, rng.NormFloat64())
			}
		}
		return m
	}
	q := randomOrthogonal(rng, k)
	// embed returns Qᵀ diag(top, rest) Q
	embed := func(top [2][2]float64, rest mat.Symmetric) *mat.Dense {
		full := mat.NewDense(k, k, nil)
		for i := 0; i < 2; i++ {
			for j := 0; j < 2; j++ {
				full.Set(i, j, top[i][j])
			}
		}
		if rest != nil {
			for i := 0; i < k-2; i++ {
				for j := 0; j < k-2; j++ {
					full.Set(2+i, 2+j, rest.At(i, j))
				}
			}
		}
		var t1, t2 mat.Dense
		t1.Mul(q.T(), full)
		t2.Mul(&t1, q)
		return &t2
	}
	gz := make([]*mat.Dense, nv) // the block's coefficient of z_j
	rj := make([]*mat.SymDense, nv)
	gz[0] = embed([2][2]float64{{1, 0}, {0, 0}}, nil)
	gz[1] = embed([2][2]float64{{0, 0}, {0, 1}}, nil)
	for j := 2; j < nv; j++ {
		rj[j] = randSym(k - 2)
		gz[j] = embed([2][2]float64{}, rj[j])
	}
	r0 := mat.NewSymDense(k-2, nil)
	for i := 0; i < k-2; i++ {
		r0.SetSym(i, i, 10)
	}
	g0 := embed([2][2]float64{{0, a}, {a, 0}}, r0)
	cz := make([]float64, nv)
	cz[0] = 1
	for j := 2; j < nv; j++ {
		cz[j] = rng.NormFloat64()
	}
	t := mat.NewDense(nv, nv, nil)
	for i := 0; i < nv; i++ {
		for j := 0; j < nv; j++ {
			t.Set(i, j, rng.NormFloat64())
		}
	}
	// s = b − Ax = G₀ + Σ_j x_j Σ_i T_ij G_i: b = svec G₀, column j of A = −svec(Σ_i T_ij G_i)
	d := k * (k + 1) / 2
	tr := sparse.NewTriplets(d, nv, d*nv)
	qv := make([]float64, nv)
	for j := 0; j < nv; j++ {
		col := mat.NewDense(k, k, nil)
		for i := 0; i < nv; i++ {
			var sc mat.Dense
			sc.Scale(t.At(i, j), gz[i])
			col.Add(col, &sc)
			qv[j] += cz[i] * t.At(i, j)
		}
		for r, v := range svecDense(col, k) {
			if v != 0 {
				tr.Append(r, j, -v)
			}
		}
	}
	p = &solver.Problem{Q: qv, A: tr.ToCSC(), B: svecDense(g0, k), Cones: []cone.Cone{cone.NewPSD(k)}}
	// the reference in z₂ … z_{nv−1}
	dr := (k - 2) * (k - 1) / 2
	rt := sparse.NewTriplets(dr, nv-2, dr*(nv-2))
	for j := 2; j < nv; j++ {
		for r, v := range svecDense(rj[j], k-2) {
			if v != 0 {
				rt.Append(r, j-2, -v)
			}
		}
	}
	ref = &solver.Problem{Q: cz[2:], A: rt.ToCSC(), B: svecDense(r0, k-2), Cones: []cone.Cone{cone.NewPSD(k - 2)}}
	return p, ref
}

// svecDense is the scaled svec of the symmetric matrix m of order n.
func svecDense(m mat.Matrix, n int) []float64 {
	v := make([]float64, n*(n+1)/2)
	for j := 0; j < n; j++ {
		for i := j; i < n; i++ {
			x := m.At(i, j)
			if i != j {
				x *= math.Sqrt2
			}
			v[cone.SVecIndex(n, i, j)] = x
		}
	}
	return v
}

// TestOptimalSetAtInfinity solves 80 problems whose optimal set is at
// infinity (atInfinityProblem: 8 variables, order 7, a ∈ {1, 30}, seeds 1 to
// 40) and compares each with its well-posed reference.
//
// Every answer with status Optimal or AlmostOptimal must be within 1e-3
// relative (max(1, |v*|)) of the reference's optimal value v*, and an
// unbounded reference must give DualInfeasible. Measured: before keepCandidate,
// 42 of the 80 ended numerical-error (the iterate of smallest merit has an
// objective sensitivity of 0.1 to 70 as ‖x‖ grows, while an earlier iterate
// passes the re-check); with it, 1 (seed 3, a = 30, where no iterate
// meeting the reduced tolerances passes: the smallest sensitivity is 0.09);
// with the re-solve without the equilibration (Solve), which answers that
// one, 0. The largest relative error is 1.6e-4. The test allows at most 2
// failures.
// The first-order estimate Gap + Sensitivity is not a bound here: the
// error exceeds it by up to 1.9× (the optimal x is at infinity, so the
// dual residual times the optimal x, which the estimate replaces by the
// iterate's x, is larger); the test logs the largest ratio.
func TestOptimalSetAtInfinity(t *testing.T) {
	failed, rescued := 0, 0
	worst, worstRatio := 0.0, 0.0
	for seed := uint64(1); seed <= 40; seed++ {
		for _, a := range []float64{1, 30} {
			p, ref := atInfinityProblem(seed, 8, 7, a)
			rs, err := New().Solve(context.Background(), ref, solver.Settings{})
			if err != nil {
				t.Fatal(err)
			}
			sol, err := New().Solve(context.Background(), p, solver.Settings{})
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case rs.Status == solver.DualInfeasible:
				if sol.Status != solver.DualInfeasible {
					t.Errorf("seed %d, a = %g: %v, want unbounded as the reference", seed, a, sol.Status)
				}
			case rs.Status != solver.Optimal:
				t.Fatalf("seed %d, a = %g: reference %v (%s)", seed, a, rs.Status, rs.Diagnostic)
			case sol.Status.OK():
				rel := math.Abs(sol.Objective-rs.Objective) / math.Max(1, math.Abs(rs.Objective))
				if rel > 1e-3 {
					t.Errorf("seed %d, a = %g: %v objective %.9g, reference %.9g: relative error %.2g above 1e-3",
						seed, a, sol.Status, sol.Objective, rs.Objective, rel)
				}
				worst = math.Max(worst, rel)
				if est := sol.Accuracy.Gap + sol.Accuracy.Sensitivity; est > 0 {
					worstRatio = math.Max(worstRatio, rel/est)
				}
				if strings.Contains(sol.Diagnostic, "fails the re-check") {
					rescued++
				}
			default:
				failed++
				t.Logf("seed %d, a = %g: %v (%s)", seed, a, sol.Status, sol.Diagnostic)
			}
		}
	}
	t.Logf("%d of 80 failed, %d answered by an earlier iterate that passes the re-check; largest relative error %.2g, %.2g times its gap + sensitivity",
		failed, rescued, worst, worstRatio)
	if failed > 2 {
		t.Errorf("%d of 80 problems failed, want at most 2", failed)
	}
}
