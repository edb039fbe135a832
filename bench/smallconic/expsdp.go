package main

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/sparse"
)

// logisticSizes is the split of about n variables of the exp family into
// d = max(2, n/5) weights and N = max(1, (n−d)/3) samples (each sample adds
// its epigraph variable t and the two exponential-cone variables u, v).
func logisticSizes(n int) (d, N int) {
	d = max(2, n/5)
	N = max(1, (n-d)/3)
	return d, N
}

// logistic is the exp family: box-constrained logistic regression, the loss
// that private learning minimises (Chaudhuri, Monteleoni and Sarwate's
// objective without the regulariser, bounded by a box instead),
//
//	minimize Σᵢ log(1 + exp(−yᵢ aᵢᵀw))  s.t.  −1 ≤ w ≤ 1,
//
// with a given (N×d, rows aᵢ, entries N(0, 1)) and labels
// yᵢ = sign(aᵢᵀw* + 0.5·N(0, 1)) for a random w*. In conic form (variables
// w ∈ ℝᵈ, t, u, v ∈ ℝᴺ) tᵢ ≥ log(1 + exp(zᵢ)), zᵢ = −yᵢaᵢᵀw, is
// exp(zᵢ − tᵢ) + exp(−tᵢ) ≤ 1:
//
//	minimize Σ tᵢ  s.t.  (zᵢ − tᵢ, 1, uᵢ) ∈ K_exp, (−tᵢ, 1, vᵢ) ∈ K_exp,
//	                     uᵢ + vᵢ ≤ 1, 1 ∓ w_j ≥ 0,
//
// K_exp = cl{(x, y, z) : y > 0, y·exp(x/y) ≤ z} (package cone's order). The
// box is compact and the loss continuous, so the optimum is attained; w = 0,
// tᵢ = log 2 + 1, uᵢ = vᵢ = 0.4 is strictly feasible, and the problem is
// bounded below by 0 — the planted status is optimal. Rows: per sample the
// two cones, then the N rows uᵢ + vᵢ ≤ 1 and the 2d box rows.
func logistic(rng *rand.Rand, d, N int) *solver.Problem {
	ws := make([]float64, d)
	for j := range ws {
		ws[j] = rng.NormFloat64()
	}
	a := make([][]float64, N)
	y := make([]float64, N)
	for i := range a {
		a[i] = make([]float64, d)
		z := 0.5 * rng.NormFloat64()
		for j := range a[i] {
			a[i][j] = rng.NormFloat64()
			z += a[i][j] * ws[j]
		}
		y[i] = 1
		if z < 0 {
			y[i] = -1
		}
	}
	return logisticProblem(a, y)
}

// logisticProblem is the conic form of box-constrained logistic regression
// documented at logistic, for samples a (N×d) with labels y ∈ {−1, 1}.
func logisticProblem(a [][]float64, y []float64) *solver.Problem {
	N, d := len(a), len(a[0])
	n := d + 3*N
	tv, uv, vv := func(i int) int { return d + i }, func(i int) int { return d + N + i }, func(i int) int { return d + 2*N + i }
	m := 6*N + N + 2*d
	t := sparse.NewTriplets(m, n, N*(d+4)+2*N+2*d)
	b := make([]float64, m)
	var cones []cone.Cone
	for i := 0; i < N; i++ {
		r := 6 * i
		// s = b − Ax: s₀ = −yᵢaᵢᵀw − tᵢ, s₁ = 1, s₂ = uᵢ
		for j, v := range a[i] {
			if v != 0 {
				t.Append(r, j, y[i]*v)
			}
		}
		t.Append(r, tv(i), 1)
		b[r+1] = 1
		t.Append(r+2, uv(i), -1)
		// s₀ = −tᵢ, s₁ = 1, s₂ = vᵢ
		t.Append(r+3, tv(i), 1)
		b[r+4] = 1
		t.Append(r+5, vv(i), -1)
		cones = append(cones, cone.NewExponential(), cone.NewExponential())
	}
	r := 6 * N
	for i := 0; i < N; i++ {
		t.Append(r+i, uv(i), 1)
		t.Append(r+i, vv(i), 1)
		b[r+i] = 1
	}
	r += N
	for j := 0; j < d; j++ {
		t.Append(r+2*j, j, 1)
		t.Append(r+2*j+1, j, -1)
		b[r+2*j], b[r+2*j+1] = 1, 1
	}
	cones = append(cones, cone.NewNonnegative(N+2*d))
	q := make([]float64, n)
	for i := 0; i < N; i++ {
		q[tv(i)] = 1
	}
	return &solver.Problem{Q: q, A: t.ToCSC(), B: b, Cones: cones}
}

// entropy is the entropy family: maximum entropy under moment bounds,
//
//	maximize −Σⱼ xⱼ log xⱼ  s.t.  Σ xⱼ = 1, |Fx − Fx⁰| ≤ δ (k rows), x ≥ 0,
//
// with F k×p (p = n/2 probabilities, k = max(1, p/10), entries N(0, 1)),
// x⁰ a random point of the simplex's interior (uniform on [0.5, 2],
// normalised) and δᵢ = θᵢ·|Fᵢ(x⁰ − 1/p)|, θᵢ uniform on [0.1, 0.5], so that
// the uniform distribution (the unconstrained maximiser) violates every
// moment row and the bounds shape the optimum. In conic form (variables x, t ∈ ℝⁿ) tⱼ ≤ −xⱼ log xⱼ
// is (tⱼ, xⱼ, 1) ∈ K_exp:
//
//	minimize −Σ tⱼ  s.t.  Σ xⱼ = 1, (tⱼ, xⱼ, 1) ∈ K_exp, δ ± (Fx⁰ − Fx) ≥ 0.
//
// x⁰ (with tⱼ below −x⁰ⱼ log x⁰ⱼ) is strictly feasible, and the feasible
// set of x is compact with −x log x bounded above, so the optimum is
// attained: the planted status is optimal. Rows: the equality row, then
// the p cones, then the 2k moment rows.
func entropy(rng *rand.Rand, n int) *solver.Problem {
	p := max(2, n/2)
	k := max(1, p/10)
	x0 := make([]float64, p)
	sum := 0.0
	for j := range x0 {
		x0[j] = 0.5 + 1.5*rng.Float64()
		sum += x0[j]
	}
	for j := range x0 {
		x0[j] /= sum
	}
	F := make([][]float64, k)
	lo, hi := make([]float64, k), make([]float64, k)
	for r := range F {
		F[r] = make([]float64, p)
		fx, fu := 0.0, 0.0
		for j := range F[r] {
			F[r][j] = rng.NormFloat64()
			fx += F[r][j] * x0[j]
			fu += F[r][j] / float64(p)
		}
		delta := (0.1 + 0.4*rng.Float64()) * math.Abs(fx-fu)
		lo[r], hi[r] = fx-delta, fx+delta
	}
	return entropyProblem(p, F, lo, hi)
}

// entropyProblem is the conic form of maximum entropy over p
// probabilities with lo ≤ Fx ≤ hi (F k×p, k ≥ 0), as documented at
// entropy; the objective is −Σ tⱼ, minus the entropy at the optimum.
func entropyProblem(p int, F [][]float64, lo, hi []float64) *solver.Problem {
	k := len(F)
	n := 2 * p
	m := 1 + 3*p + 2*k
	t := sparse.NewTriplets(m, n, p+2*p+2*k*p)
	b := make([]float64, m)
	cones := []cone.Cone{cone.NewZero(1)}
	for j := 0; j < p; j++ {
		t.Append(0, j, 1)
	}
	b[0] = 1
	for j := 0; j < p; j++ {
		r := 1 + 3*j
		t.Append(r, p+j, -1) // s₀ = tⱼ
		t.Append(r+1, j, -1) // s₁ = xⱼ
		b[r+2] = 1           // s₂ = 1
		cones = append(cones, cone.NewExponential())
	}
	r := 1 + 3*p
	for i := 0; i < k; i++ {
		for j, v := range F[i] {
			t.Append(r+2*i, j, v)    // hi − Fx ≥ 0
			t.Append(r+2*i+1, j, -v) // Fx − lo ≥ 0
		}
		b[r+2*i], b[r+2*i+1] = hi[i], -lo[i]
	}
	if k > 0 {
		cones = append(cones, cone.NewNonnegative(2*k))
	}
	q := make([]float64, n)
	for j := 0; j < p; j++ {
		q[p+j] = -1
	}
	return &solver.Problem{Q: q, A: t.ToCSC(), B: b, Cones: cones}
}

// sdpOrders splits n into PSD block orders of 3 to 20: while the rest
// exceeds 20 (or, with probability ½, when it is 6 to 20) a block of order
// uniform on 3…min(20, rest − 3) is cut off; the rest is the last block.
// Median block counts (a simulation of this rule): 1 at n = 10 (1–3), 2 at
// 20, 5 at 50, 9 at 100, 18 at 200 (13–25).
func sdpOrders(rng *rand.Rand, n int) []int {
	var orders []int
	for rest := n; rest > 0; {
		if rest <= 20 && (rest < 6 || rng.IntN(2) == 0) {
			orders = append(orders, rest)
			break
		}
		r := 3 + rng.IntN(min(20, rest-3)-2)
		orders = append(orders, r)
		rest -= r
	}
	return orders
}

// maxCutLMI is the sdp family: the max-cut relaxation (Goemans–Williamson)
// per block in its LMI form. For every block k of order r with a symmetric
// weight matrix C_k,
//
//	primal (the one privopt states):  minimize −Σ 1ᵀy_k  s.t.  C_k − Diag(y_k) ⪰ 0,
//	its dual:                          minimize ⟨C_k, X_k⟩  s.t.  diag(X_k) = 1, X_k ⪰ 0,
//
// with the optimal values equal up to sign (−p* = d*). Both are strictly
// feasible — y_k = (λ_min(C_k) − 1)·1 and X_k = I — so the optimum is
// attained on both sides: the planted status is optimal. One row couples
// the blocks, Σ_k 1ᵀy_k ≤ Σ_k tr C_k + 1; it is never active (the LMI's
// diagonal gives y_i ≤ C_ii), so it leaves the optimum alone, but the
// blocks share a row as in a model with a budget. Block orders come from
// sdpOrders; C_k has each off-diagonal entry nonzero with probability ½,
// N(0, 1), and an N(0, 1) diagonal. Variables: y, n in all; rows: the PSD
// blocks in svec order (package cone), then the coupling row.
func maxCutLMI(rng *rand.Rand, n int) *solver.Problem {
	return maxCutProblem(maxCutWeights(rng, n))
}

// maxCutWeights draws the weight matrices of the sdp and sdpx families:
// block orders from sdpOrders, each off-diagonal entry nonzero with
// probability ½ and then N(0, 1), an N(0, 1) diagonal.
func maxCutWeights(rng *rand.Rand, n int) [][][]float64 {
	var Cs [][][]float64
	for _, r := range sdpOrders(rng, n) {
		C := make([][]float64, r)
		for i := range C {
			C[i] = make([]float64, r)
		}
		for j := 0; j < r; j++ {
			C[j][j] = rng.NormFloat64()
			for i := j + 1; i < r; i++ {
				if rng.IntN(2) == 0 {
					v := rng.NormFloat64()
					C[i][j], C[j][i] = v, v
				}
			}
		}
		Cs = append(Cs, C)
	}
	return Cs
}

// maxCutBeta is the coupling row's right-hand side Σ_k tr C_k + 1.
func maxCutBeta(Cs [][][]float64) float64 {
	beta := 1.0
	for _, C := range Cs {
		for i := range C {
			beta += C[i][i]
		}
	}
	return beta
}

// maxCutProblem is the conic form documented at maxCutLMI for the blocks'
// weight matrices Cs.
func maxCutProblem(Cs [][][]float64) *solver.Problem {
	n, m := 0, 1
	for _, C := range Cs {
		n += len(C)
		m += len(C) * (len(C) + 1) / 2
	}
	t := sparse.NewTriplets(m, n, 2*n)
	b := make([]float64, m)
	var cones []cone.Cone
	row, v := 0, 0
	for _, C := range Cs {
		r := len(C)
		// svec(C − Diag(y)) = b − Ay: b = svec(C), A = +1 at the diagonal
		// positions (svec's diagonal is unscaled).
		copy(b[row:], svecOf(C))
		for j := 0; j < r; j++ {
			t.Append(row+cone.SVecIndex(r, j, j), v+j, 1)
		}
		cones = append(cones, cone.NewPSD(r))
		row += r * (r + 1) / 2
		v += r
	}
	for j := 0; j < n; j++ {
		t.Append(row, j, 1)
	}
	b[row] = maxCutBeta(Cs)
	cones = append(cones, cone.NewNonnegative(1))
	q := make([]float64, n)
	for j := range q {
		q[j] = -1
	}
	return &solver.Problem{Q: q, A: t.ToCSC(), B: b, Cones: cones}
}

// maxCutPrimal is the sdpx family: the dual of maxCutLMI's problem, the
// max-cut relaxations stated over the matrices themselves,
//
//	minimize Σ_k ⟨C_k, X_k⟩ + β·w  s.t.  diag(X_k) + w·1 = 1, X_k ⪰ 0, w ≥ 0,
//
// (w is the multiplier of maxCutLMI's coupling row, β its right-hand side;
// w = 0 at the optimum), whose optimal value is minus maxCutLMI's for the
// same weights. X_k = I/2, w = ½ is strictly feasible. Variables:
// svec(X_1), …, svec(X_K), w — Σ r(r+1)/2 + 1 of them for orders r, so the
// size parameter n is the sum of the orders as in sdp, not the number of
// variables; rows: the n equality rows (block by block), the PSD blocks
// (s = svec(X_k)), then w ≥ 0.
func maxCutPrimal(Cs [][][]float64) *solver.Problem {
	n, nv := 0, 1
	for _, C := range Cs {
		n += len(C)
		nv += len(C) * (len(C) + 1) / 2
	}
	m := n + (nv - 1) + 1
	w := nv - 1
	t := sparse.NewTriplets(m, nv, 2*n+nv)
	b := make([]float64, m)
	q := make([]float64, nv)
	row, v, psdRow := 0, 0, n
	var psd []cone.Cone
	for _, C := range Cs {
		r := len(C)
		copy(q[v:], svecOf(C)) // ⟨C, X⟩ = svec(C)·svec(X)
		for i := 0; i < r; i++ {
			t.Append(row+i, v+cone.SVecIndex(r, i, i), 1) // diag(X)ᵢ + w = 1
		}
		for i := 0; i < r; i++ {
			t.Append(row+i, w, 1)
			b[row+i] = 1
		}
		for k := 0; k < r*(r+1)/2; k++ {
			t.Append(psdRow+k, v+k, -1) // s = svec(X)
		}
		psd = append(psd, cone.NewPSD(r))
		row += r
		v += r * (r + 1) / 2
		psdRow += r * (r + 1) / 2
	}
	t.Append(m-1, w, -1)
	q[w] = maxCutBeta(Cs)
	cones := append([]cone.Cone{cone.NewZero(n)}, psd...)
	cones = append(cones, cone.NewNonnegative(1))
	return &solver.Problem{Q: q, A: t.ToCSC(), B: b, Cones: cones}
}

// svecOf is svec(C) (package cone's order and scaling) of a symmetric C
// given by rows.
func svecOf(C [][]float64) []float64 {
	r := len(C)
	flat := make([]float64, 0, r*r)
	for _, row := range C {
		flat = append(flat, row...)
	}
	return cone.SVec(nil, mat.NewSymDense(r, flat))
}
