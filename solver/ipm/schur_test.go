package ipm

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/sparse"
	"gonum.org/v1/gonum/mat"
)

// TestFKNFormulas checks every formula of fknPlan (F1, F2, F3 forced on all
// rows, and the cost-based choice) against tr(F_i G F_j G) computed with
// dense matrix products, for data matrices from one nonzero to fully dense
// and G = TᵀT from a random upper triangular T; and G = I (the
// initialization) against A_pᵀA_p.
func TestFKNFormulas(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const n, nc = 9, 14
	d := n * (n + 1) / 2
	tri := sparse.NewTriplets(d, nc, 0)
	fs := make([]*mat.SymDense, nc)
	for c := 0; c < nc; c++ {
		fs[c] = mat.NewSymDense(n, nil)
		// column c has about c·d/(nc−1) nonzeros (c = 0: a single diagonal one)
		for k := 0; k < d; k++ {
			if (c == 0 && k != 3) || (c > 0 && rng.Float64() > float64(c)/float64(nc-1)) {
				continue
			}
			v := rng.NormFloat64()
			tri.Append(k, c, v)
			i, j := svecPos(k, n)
			if i == j {
				fs[c].SetSym(i, i, v)
			} else {
				fs[c].SetSym(i, j, v/math.Sqrt2)
			}
		}
	}
	ap := tri.ToCSC()
	tm := mat.NewTriDense(n, mat.Upper, nil)
	for i := 0; i < n; i++ {
		tm.SetTri(i, i, 1+rng.Float64())
		for j := i + 1; j < n; j++ {
			tm.SetTri(i, j, rng.NormFloat64())
		}
	}
	var g mat.Dense
	g.Mul(tm.T(), tm)
	want := func(a, b int, gm mat.Matrix) float64 {
		var x, y mat.Dense
		x.Mul(fs[a], gm)
		y.Mul(fs[b], gm)
		var p mat.Dense
		p.Mul(&x, &y)
		return mat.Trace(&p)
	}
	for _, rule := range []int8{0, 1, 2, 3} {
		pl := newFKNPlan(n, ap)
		if rule != 0 {
			for p := range pl.formula {
				pl.formula[p] = rule
			}
		}
		for _, ident := range []bool{false, true} {
			var gm mat.Matrix = &g
			if ident {
				pl.setG(nil)
				gm = identityDense(n)
			} else {
				pl.setG(tm)
			}
			sc := mat.NewSymDense(nc, nil)
			pl.assemble(sc, 2)
			for a := 0; a < nc; a++ {
				for b := a; b < nc; b++ {
					w, got := want(a, b, gm), sc.At(a, b)
					if math.Abs(got-w) > 1e-10*(1+math.Abs(w)) {
						t.Errorf("formula %d, G = I %v: M[%d,%d] = %.12g, want %.12g", rule, ident, a, b, got, w)
					}
				}
			}
		}
	}
	// the choice: the single-nonzero column takes F3, the densest F1 or F2
	pl := newFKNPlan(n, ap)
	if f := pl.formula[nc-1]; f != 3 {
		t.Errorf("sparsest column: formula %d, want 3", f)
	}
	if f := pl.formula[0]; f == 3 {
		t.Errorf("densest column: formula 3, want 1 or 2")
	}
}

// svecPos is the inverse of svecIdx: the position (i, j), i ≥ j, of svec
// coordinate k of an order-n block.
func svecPos(k, n int) (int, int) {
	for j := 0; j < n; j++ {
		if k < n-j {
			return j + k, j
		}
		k -= n - j
	}
	panic("svecPos: index out of range")
}

func identityDense(n int) *mat.Dense {
	m := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		m.Set(i, i, 1)
	}
	return m
}

// maxCutDual is the dual of the max-cut SDP relaxation of a graph with
// Laplacian lap, in SDPLIB's mcp form: minimize Σ yᵢ subject to
// Diag(y) − lap/4 ⪰ 0 (variable i's data matrix is the single entry E_ii).
func maxCutDual(lap *mat.SymDense) *solver.Problem {
	n := lap.SymmetricDim()
	d := n * (n + 1) / 2
	tri := sparse.NewTriplets(d, n, n)
	b := make([]float64, d)
	for j := 0; j < n; j++ {
		for i := j; i < n; i++ {
			k := svecIdx(i, j, n)
			if i == j {
				tri.Append(k, i, -1) // s = svec(Diag(y) − lap/4) = b − A y
				b[k] = -lap.At(i, i) / 4
			} else {
				b[k] = -math.Sqrt2 * lap.At(i, j) / 4
			}
		}
	}
	q := make([]float64, n)
	for i := range q {
		q[i] = 1
	}
	return &solver.Problem{Q: q, A: tri.ToCSC(), B: b, Cones: []cone.Cone{cone.NewPSD(n)}}
}

// TestPSDSchurRules solves max-cut SDPs with the Schur complement assembled
// by each rule. For the complete graph K_n the optimum is n²/4 (closed form:
// ⟨L, X⟩/4 with L = nI − J is largest, n²/4, at any feasible X with X1 = 0,
// e.g. X = n/(n−1)·(I − J/n)); for a random weighted graph the three rules
// must agree with the solve that keeps the block in the KKT matrix.
func TestPSDSchurRules(t *testing.T) {
	const n = 24
	complete := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		complete.SetSym(i, i, n-1)
		for j := 0; j < i; j++ {
			complete.SetSym(i, j, -1)
		}
	}
	rng := rand.New(rand.NewPCG(5, 6))
	random := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < i; j++ {
			if rng.Float64() < 0.3 {
				w := 1 + rng.Float64()
				random.SetSym(i, j, -w)
				random.SetSym(i, i, random.At(i, i)+w)
				random.SetSym(j, j, random.At(j, j)+w)
			}
		}
	}
	kept := solveT(t, maxCutDual(random), Settings{DisablePSDElimination: true})
	if kept.Status != solver.Optimal {
		t.Fatalf("random graph, block kept: status %v", kept.Status)
	}
	for _, rule := range []PSDSchurRule{PSDSchurAuto, PSDSchurSparse, PSDSchurDense} {
		sol := solveT(t, maxCutDual(complete), Settings{PSDSchurRule: rule})
		if want := n * n / 4.0; sol.Status != solver.Optimal || !close(sol.Objective, want, 1e-7) {
			t.Errorf("rule %d, K_%d: status %v objective %.10g, want %v", rule, n, sol.Status, sol.Objective, want)
		}
		p := maxCutDual(random)
		sol = solveT(t, p, Settings{PSDSchurRule: rule})
		if sol.Status != solver.Optimal || !close(sol.Objective, kept.Objective, 1e-7) {
			t.Errorf("rule %d, random graph: status %v objective %.10g, block kept %.10g", rule, sol.Status, sol.Objective, kept.Objective)
		}
		checkKKT(t, p, sol, 1e-7)
	}
}

func TestPSDSchurRuleValidate(t *testing.T) {
	for _, r := range []PSDSchurRule{-1, 3} {
		set := Settings{PSDSchurRule: r}
		if err := set.Validate(); err == nil {
			t.Errorf("PSDSchurRule %d accepted", r)
		}
	}
}

// TestPSDOrderOne: a 1×1 PSD block (SDPA's diagonal blocks) is solved as
// the half-line: min x₁ + 2x₂ s.t. x₁ − 2 ∈ PSD(1), x₂ − 3 ∈ PSD(1),
// x₁ + x₂ ≤ 10 has the optimum 2 + 6 = 8 with duals 1 and 2 on the blocks.
func TestPSDOrderOne(t *testing.T) {
	p := &solver.Problem{
		Q:     []float64{1, 2},
		A:     dense([][]float64{{-1, 0}, {0, -1}, {1, 1}}),
		B:     []float64{-2, -3, 10},
		Cones: []cone.Cone{cone.NewPSD(1), cone.NewPSD(1), cone.NewNonnegative(1)},
	}
	sol := solveT(t, p, Settings{})
	if sol.Status != solver.Optimal || !close(sol.Objective, 8, 1e-8) {
		t.Fatalf("status %v objective %v, want optimal 8", sol.Status, sol.Objective)
	}
	if !close(sol.Y[0], 1, 1e-7) || !close(sol.Y[1], 2, 1e-7) || math.Abs(sol.Y[2]) > 1e-7 {
		t.Errorf("duals %v, want (1, 2, 0)", sol.Y)
	}
	checkKKT(t, p, sol, 1e-8)
}
