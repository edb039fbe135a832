package ipm

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/sparse"
	"gonum.org/v1/gonum/mat"
)

// svecOf is the scaled svec of the symmetric matrix m (row-major, order n).
func svecOf(m [][]float64) []float64 {
	n := len(m)
	var v []float64
	for j := 0; j < n; j++ {
		for i := j; i < n; i++ {
			if i == j {
				v = append(v, m[i][j])
			} else {
				v = append(v, math.Sqrt2*m[i][j])
			}
		}
	}
	return v
}

// facialTestProblem: two nonnegative rows, an order-4 PSD block, one
// nonnegative row. Column 1 has q = 0 and the block matrix −F with F = GGᵀ
// of rank 2; the other columns are random with q ≠ 0.
func facialTestProblem(rng *rand.Rand) *solver.Problem {
	const n, d = 4, 10
	m := 2 + d + 1
	rows := make([][]float64, m)
	for i := range rows {
		rows[i] = make([]float64, 4)
	}
	g := [][]float64{{1, 0}, {2, 1}, {0, 0}, {-1, 3}} // rank 2
	for col := 0; col < 4; col++ {
		mm := make([][]float64, n)
		for i := range mm {
			mm[i] = make([]float64, n)
		}
		for i := 0; i < n; i++ {
			for j := 0; j <= i; j++ {
				var v float64
				if col == 1 {
					v = -(g[i][0]*g[j][0] + g[i][1]*g[j][1])
				} else {
					v = rng.Float64()*2 - 1
				}
				mm[i][j], mm[j][i] = v, v
			}
		}
		for r, v := range svecOf(mm) {
			rows[2+r][col] = v
		}
		if col != 1 {
			rows[0][col], rows[1][col], rows[m-1][col] = rng.Float64(), -rng.Float64(), rng.Float64()
		}
	}
	b := make([]float64, m)
	for i := range b {
		b[i] = rng.Float64()*2 - 1
	}
	return &solver.Problem{Q: []float64{1, 0, -0.5, 2}, A: dense(rows), B: b,
		Cones: []cone.Cone{nn(2), cone.NewPSD(n), nn(1)}}
}

// TestFacialCongruence checks the reduction against the identity it rests
// on: for every reduced dual point y', the lifted y = recoverY(y') (the
// block V W Vᵀ) gives the original columns the inner products the reduced
// columns give y', the dropped column 0, the same bᵀy, and a PSD block when
// W is PSD.
func TestFacialCongruence(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 7))
	p := facialTestProblem(rng)
	fr := newFacialReduction(p)
	if fr == nil {
		t.Fatal("no reduction found for a column with a rank-2 semidefinite matrix and q = 0")
	}
	if fr.col != 1 || fr.n != 4 || fr.k != 2 || len(fr.piv) != 2 {
		t.Fatalf("reduction col %d, order %d → %d, rank %d; want col 1, 4 → 2, rank 2", fr.col, fr.n, fr.k, len(fr.piv))
	}
	red := fr.red
	if red.A.Rows != 2+3+1 || red.A.Cols != 3 || red.Cones[1].Dim != 3 {
		t.Fatalf("reduced A %d×%d, block dim %d; want 6×3, 3", red.A.Rows, red.A.Cols, red.Cones[1].Dim)
	}
	for trial := 0; trial < 5; trial++ {
		// W = LLᵀ PSD of order 2, random nonnegative rows
		l := [2][2]float64{{rng.Float64(), 0}, {rng.Float64() - 0.5, rng.Float64()}}
		w := [][]float64{{l[0][0] * l[0][0], l[0][0] * l[1][0]}, {l[0][0] * l[1][0], l[1][0]*l[1][0] + l[1][1]*l[1][1]}}
		ry := append([]float64{rng.Float64(), rng.Float64()}, svecOf(w)...)
		ry = append(ry, rng.Float64())
		y := fr.recoverY(ry)
		ay := p.A.MulTransVecTo(nil, 1, y, 0)
		ary := red.A.MulTransVecTo(nil, 1, ry, 0)
		if math.Abs(ay[1]) > 1e-12 {
			t.Errorf("dropped column: ⟨F, VWVᵀ⟩ = %g, want 0", ay[1])
		}
		for j, jr := range []int{0, 2, 3} {
			if math.Abs(ay[jr]-ary[j]) > 1e-12 {
				t.Errorf("column %d: Aᵀy %.15g, reduced %.15g", jr, ay[jr], ary[j])
			}
		}
		if by, bry := dot(p.B, y), dot(red.B, ry); math.Abs(by-bry) > 1e-12 {
			t.Errorf("bᵀy %.15g, reduced %.15g", by, bry)
		}
		blk, err := cone.SMat(nil, y[2:12])
		if err != nil {
			t.Fatal(err)
		}
		var es mat.EigenSym
		if !es.Factorize(blk, false) {
			t.Fatal("eigendecomposition failed")
		}
		if ev := es.Values(nil); ev[0] < -1e-12 {
			t.Errorf("lifted block has eigenvalue %g < 0", ev[0])
		}
	}
}

// TestFacialGpp2 is the smallest graph-partition-like SDP: min x₁ + x₂ s.t.
// x₁E₁₁ + x₂E₂₂ + x₀J − C ⪰ 0, x₁ ≤ 10, whose dual asks Y ⪰ 0 with
// diag Y = 1 and ⟨J, Y⟩ = 0, so Y = [1 −1; −1 1] is the only dual
// feasible block and the optimum is ⟨C, Y⟩ = C₁₁ + C₂₂ − 2C₁₂ = 2 for
// C = [2 ½; ½ 1]; the infimum is not attained (x₀ → ∞).
func TestFacialGpp2(t *testing.T) {
	r2 := math.Sqrt2
	p := &solver.Problem{
		Q: []float64{0, 1, 1},
		A: dense([][]float64{
			{-1, -1, 0},
			{-r2, 0, 0},
			{-1, 0, -1},
			{0, 1, 0},
		}),
		B:     []float64{-2, -r2 * 0.5, -1, 10},
		Cones: []cone.Cone{cone.NewPSD(2), nn(1)},
	}
	if fr := newFacialReduction(p); fr == nil || fr.col != 0 || fr.k != 1 {
		t.Fatalf("reduction %+v, want column 0 dropped, order 2 → 1", fr)
	}
	sol := solveT(t, p, Settings{})
	if !sol.Status.OK() {
		t.Fatalf("status %v (%s)", sol.Status, sol.Diagnostic)
	}
	if math.Abs(sol.Objective-2) > 1e-6 {
		t.Errorf("objective %.10g, want 2", sol.Objective)
	}
	want := []float64{1, -r2, 1}
	for i, v := range want {
		if math.Abs(sol.Y[i]-v) > 1e-6 {
			t.Errorf("y[%d] = %.10g, want %.10g", i, sol.Y[i], v)
		}
	}
	checkKKT(t, p, sol, 1e-7)
	blk, _ := cone.SMat(nil, sol.S[:3])
	var es mat.EigenSym
	es.Factorize(blk, false)
	if ev := es.Values(nil); ev[0] < -1e-9*math.Max(1, ev[1]) {
		t.Errorf("slack block eigenvalues %v: not PSD", ev)
	}
	if sol.S[3] < 0 {
		t.Errorf("slack of x₁ ≤ 10 is %g", sol.S[3])
	}
}

// TestFacialRejects: no reduction for an indefinite matrix, a column with
// q ≠ 0, a column that also touches another cone, a positive definite
// matrix (the face would be {0}).
func TestFacialRejects(t *testing.T) {
	r2 := math.Sqrt2
	base := func(col []float64, q0 float64) *solver.Problem {
		rows := [][]float64{{col[0], 1}, {col[1], 0}, {col[2], 1}, {col[3], 1}}
		return &solver.Problem{Q: []float64{q0, 1}, A: dense(rows), B: []float64{1, 0, 1, 1},
			Cones: []cone.Cone{cone.NewPSD(2), nn(1)}}
	}
	cases := []struct {
		name string
		p    *solver.Problem
	}{
		{"indefinite [0 1; 1 0]", base([]float64{0, r2, 0, 0}, 0)},
		{"indefinite [1 0; 0 −1]", base([]float64{1, 0, -1, 0}, 0)},
		{"q ≠ 0", base([]float64{1, r2, 1, 0}, 1)},
		{"touches the nonnegative row", base([]float64{1, r2, 1, 1}, 0)},
		{"definite", base([]float64{1, 0, 1, 0}, 0)},
	}
	for _, c := range cases {
		if fr := newFacialReduction(c.p); fr != nil {
			t.Errorf("%s: reduced (column %d, rank %d)", c.name, fr.col, len(fr.piv))
		}
	}
	if fr := newFacialReduction(base([]float64{1, r2, 1, 0}, 0)); fr == nil || fr.k != 1 {
		t.Errorf("the rank-one J with q = 0 is not reduced")
	}
}

// TestFacialBudget: the detection's dense work stops at facialWorkBudget·n³;
// identity columns (q = 0, rejected as definite after n pivots of n² each)
// use it up, so a reducible column after 20 of them on an order-3 block is not
// reached, while after 5 of them it is.
func TestFacialBudget(t *testing.T) {
	build := func(ids int) *solver.Problem {
		const d = 6
		rows := make([][]float64, d)
		for i := range rows {
			rows[i] = make([]float64, ids+2)
		}
		id := svecOf([][]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}})
		ones := svecOf([][]float64{{1, 1, 1}, {1, 1, 1}, {1, 1, 1}})
		for c := 0; c < ids; c++ {
			for r := range id {
				rows[r][c] = -id[r]
			}
		}
		for r := range ones {
			rows[r][ids] = -ones[r]
			rows[r][ids+1] = -id[r]
		}
		q := make([]float64, ids+2)
		q[ids+1] = 1
		return &solver.Problem{Q: q, A: dense(rows), B: make([]float64, d), Cones: []cone.Cone{cone.NewPSD(3)}}
	}
	if fr := newFacialReduction(build(5)); fr == nil || fr.col != 5 {
		t.Errorf("after 5 identity columns: reduction %v, want column 5", fr)
	}
	if fr := newFacialReduction(build(20)); fr != nil {
		t.Errorf("after 20 identity columns: column %d reduced beyond the work budget", fr.col)
	}
}

// TestFacialTooLarge: a PSD variable of order 40 (x = svec(X), X ⪰ 0, no
// other row, zero objective) admits a reduction (every diagonal column is
// a semidefinite rank-one matrix), but above MaxFactorBytes it is refused
// with ErrTooLarge before any reduction is tried; below the cap it solves,
// with one reduction step (the reduced problem is not reduced again: 40
// nested steps would each build a problem of 820 columns).
func TestFacialTooLarge(t *testing.T) {
	const n = 40
	d := n * (n + 1) / 2
	tri := sparse.NewTriplets(d, d, d)
	for i := 0; i < d; i++ {
		tri.Append(i, i, -1)
	}
	p := &solver.Problem{Q: make([]float64, d), A: tri.ToCSC(), B: make([]float64, d), Cones: []cone.Cone{cone.NewPSD(n)}}
	if newFacialReduction(p) == nil {
		t.Fatal("no reduction found on a PSD variable with zero objective")
	}
	small, err := NewWithSettings(Settings{MaxFactorBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := small.Solve(context.Background(), p, solver.Settings{}); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("MaxFactorBytes 1 MiB: error %v, want ErrTooLarge", err)
	}
	sol, err := New().Solve(context.Background(), p, solver.Settings{})
	if err != nil || !sol.Status.OK() || math.Abs(sol.Objective) > 1e-8 {
		t.Fatalf("default cap: status %v objective %v error %v, want optimal 0", sol.Status, sol.Objective, err)
	}
}
