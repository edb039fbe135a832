package ipm

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privopt/privopt/internal/ldl"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/sparse"
)

// randomQuasiDefinite returns the upper triangle of a random KKT matrix
//
//	[ BᵀB + I    Aᵀ ]
//	[ A         −H  ]
//
// (B and A sparse, H positive diagonal spanning 10⁻³…10³) and its signs.
func randomQuasiDefinite(rng *rand.Rand, n, m int) (*sparse.CSC, []int8) {
	dim := n + m
	full := make([]float64, dim*dim)
	for r := 0; r < n/2; r++ { // B has n/2 rows
		var row []int
		for j := 0; j < n; j++ {
			if rng.Float64() < 0.3 {
				row = append(row, j)
			}
		}
		vals := make([]float64, len(row))
		for k := range vals {
			vals[k] = rng.NormFloat64()
		}
		for a, i := range row {
			for b, j := range row {
				full[i*dim+j] += vals[a] * vals[b]
			}
		}
	}
	for j := 0; j < n; j++ {
		full[j*dim+j]++
	}
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			if rng.Float64() < 0.25 {
				v := rng.NormFloat64()
				full[(n+i)*dim+j], full[j*dim+n+i] = v, v
			}
		}
		full[(n+i)*dim+n+i] = -math.Pow(10, 6*rng.Float64()-3)
	}
	t := sparse.NewTriplets(dim, dim, 0)
	for j := 0; j < dim; j++ {
		for i := 0; i <= j; i++ {
			if v := full[i*dim+j]; v != 0 || i == j {
				t.Append(i, j, v)
			}
		}
	}
	signs := make([]int8, dim)
	for i := range signs {
		signs[i] = 1
		if i >= n {
			signs[i] = -1
		}
	}
	return t.ToCSC(), signs
}

// TestDenseSparseLDLAgree factors random quasi-definite KKT matrices with the
// dense LDLᵀ (its own order: cone rows first) and the sparse one (AMD order)
// and checks that both solves leave a residual at round-off level, agree with
// each other, and regularize no pivot (the matrices are quasi-definite).
func TestDenseSparseLDLAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 11))
	reg := ldl.Regularization{Eps: 1e-13, Delta: 2e-7}
	for trial := 0; trial < 20; trial++ {
		n, m := 2+rng.IntN(25), 1+rng.IntN(40)
		k, signs := randomQuasiDefinite(rng, n, m)
		dense := &denseLDL{signs: signs, reg: reg}
		sp := &sparseLDL{signs: signs, reg: reg, ratio: kktSupernodalRatio}
		for refactor := 0; refactor < 2; refactor++ {
			if refactor == 1 { // a new scaling H, same pattern (as between iterations)
				for j := n; j < n+m; j++ {
					k.Val[k.ColPtr[j+1]-1] *= math.Pow(10, 2*rng.Float64()-1)
				}
			}
			if err := dense.factor(k); err != nil {
				t.Fatalf("trial %d: dense: %v", trial, err)
			}
			if err := sp.factor(k); err != nil {
				t.Fatalf("trial %d: sparse: %v", trial, err)
			}
			if dense.regularized() != 0 || sp.regularized() != 0 {
				t.Errorf("trial %d: regularized pivots dense %d, sparse %d, want 0", trial, dense.regularized(), sp.regularized())
			}
			b := make([]float64, n+m)
			for i := range b {
				b[i] = rng.NormFloat64()
			}
			xd, xs := make([]float64, n+m), make([]float64, n+m)
			dense.solve(xd, b)
			sp.solve(xs, b)
			for name, x := range map[string][]float64{"dense": xd, "sparse": xs} {
				kx := solver.SymMulVec(make([]float64, n+m), k, x)
				var r float64
				for i := range b {
					r = math.Max(r, math.Abs(kx[i]-b[i]))
				}
				if r > 1e-9*(1+normInf(x)) {
					t.Errorf("trial %d (%d×%d) %s: ‖Kx − b‖∞ = %g, ‖x‖∞ = %g", trial, n, m, name, r, normInf(x))
				}
			}
			var diff float64
			for i := range xd {
				diff = math.Max(diff, math.Abs(xd[i]-xs[i]))
			}
			if diff > 1e-8*(1+normInf(xs)) {
				t.Errorf("trial %d (%d×%d): dense and sparse solutions differ by %g (‖x‖∞ = %g)", trial, n, m, diff, normInf(xs))
			}
		}
	}
}

// TestDenseSparseLDLRegularize checks the dynamic regularization rule on a
// diagonal matrix, whose pivots are the same in every order: a pivot d with
// expected sign σ and σ·d < Eps becomes σ·Delta, so x_i = b_i/d_i with the
// replaced pivots, and both factorizations count the same replacements.
func TestDenseSparseLDLRegularize(t *testing.T) {
	reg := ldl.Regularization{Eps: 1e-13, Delta: 2e-7}
	diag := []float64{2, 1e-20, -3, 0.5, -1e-16, 4}
	signs := []int8{1, 1, -1, -1, -1, 1}
	// expected pivots: 2, +Delta, −3, −Delta (wrong sign), −Delta (too small), 4
	want := []float64{2, 2e-7, -3, -2e-7, -2e-7, 4}
	tr := sparse.NewTriplets(6, 6, 6)
	for i, v := range diag {
		tr.Append(i, i, v)
	}
	k := tr.ToCSC()
	b := []float64{1, 2, 3, 4, 5, 6}
	for name, f := range map[string]kktSolver{
		"dense":  &denseLDL{signs: signs, reg: reg},
		"sparse": &sparseLDL{signs: signs, reg: reg, ratio: kktSupernodalRatio},
	} {
		if err := f.factor(k); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := f.regularized(); got != 3 {
			t.Errorf("%s: %d regularized pivots, want 3", name, got)
		}
		x := make([]float64, 6)
		f.solve(x, b)
		for i := range x {
			if w := b[i] / want[i]; math.Abs(x[i]-w) > 1e-12*math.Abs(w) {
				t.Errorf("%s: x[%d] = %g, want %g", name, i, x[i], w)
			}
		}
	}
}

// TestRefineSolutionNormCorrections checks the correction count that
// solveReduced's skipped residual check relies on: with an exact solve the
// first residual is at round-off and no correction is made; with a solve
// that is off by a relative 10⁻³ each correction gains three digits, so from
// the first residual 5·10⁻³ four corrections reach the round-off tolerance
// 10⁻¹² + 10⁻¹³‖b‖∞ = 1.5·10⁻¹² (three leave 5·10⁻¹²).
func TestRefineSolutionNormCorrections(t *testing.T) {
	d := []float64{2, 4, 8}
	b := []float64{1, -3, 5}
	mul := func(dst, src []float64) {
		for i := range dst {
			dst[i] = d[i] * src[i]
		}
	}
	for _, c := range []struct {
		name  string
		pert  float64
		steps int
	}{{"exact", 0, 0}, {"inexact", 1e-3, 4}} {
		solve := func(dst, src []float64) {
			for i := range dst {
				dst[i] = src[i] / (d[i] * (1 + c.pert))
			}
		}
		x := make([]float64, 3)
		solve(x, b)
		res, dx := make([]float64, 3), make([]float64, 3)
		r, steps := refineSolutionNorm(x, b, normInf(b), 0, res, dx, 10, mul, solve)
		if steps != c.steps {
			t.Errorf("%s: %d corrections, want %d", c.name, steps, c.steps)
		}
		if r > 1e-12+1e-13*normInf(b) {
			t.Errorf("%s: residual %g above the round-off tolerance", c.name, r)
		}
		for i := range x {
			if w := b[i] / d[i]; math.Abs(x[i]-w) > 1e-12 {
				t.Errorf("%s: x[%d] = %v, want %v", c.name, i, x[i], w)
			}
		}
	}
}
