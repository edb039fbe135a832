package cbf

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/highs"
	"github.com/privopt/privopt/sparse"
)

// randomProblem returns a random problem with every cone kind; PSD cones
// come last when psdLast.
func randomProblem(rng *rand.Rand, psdLast bool) *solver.Problem {
	var cones []cone.Cone
	for k := 0; k < 2+rng.IntN(6); k++ {
		switch rng.IntN(6) {
		case 0:
			cones = append(cones, cone.NewZero(1+rng.IntN(3)))
		case 1:
			cones = append(cones, cone.NewNonnegative(1+rng.IntN(4)))
		case 2:
			cones = append(cones, cone.NewSecondOrder(1+rng.IntN(4)))
		case 3:
			cones = append(cones, cone.NewRotatedSecondOrder(2+rng.IntN(3)))
		case 4:
			cones = append(cones, cone.NewExponential())
		case 5:
			cones = append(cones, cone.NewPower(0.05+0.9*rng.Float64()))
		}
	}
	psd := cone.NewPSD(1 + rng.IntN(3))
	if psdLast {
		cones = append(cones, psd)
	} else {
		cones = append([]cone.Cone{psd}, cones...)
	}
	m := cone.TotalDim(cones)
	n := 1 + rng.IntN(6)
	t := sparse.NewTriplets(m, n, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			if rng.Float64() < 0.4 {
				t.Append(i, j, rng.NormFloat64())
			}
		}
	}
	b := make([]float64, m)
	for i := range b {
		if rng.Float64() < 0.7 {
			b[i] = rng.NormFloat64() * 10
		}
	}
	q := make([]float64, n)
	for j := range q {
		if rng.Float64() < 0.7 {
			q[j] = rng.NormFloat64()
		}
	}
	return &solver.Problem{Q: q, R: rng.NormFloat64(), A: t.ToCSC(), B: b, Cones: cones}
}

func roundTrip(t *testing.T, p *solver.Problem) *File {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, p, &WriteOptions{Comment: "round trip\ntest"}); err != nil {
		t.Fatal(err)
	}
	f, err := Read(&buf)
	if err != nil {
		t.Fatalf("reading back: %v\n%s", err, buf.String())
	}
	return f
}

// TestRoundTrip: 300 random problems with every cone kind, PSD last, are
// reproduced exactly, except off-diagonal PSD entries (one rounding each of
// ÷√2 on writing and ×√2 on reading: relative error ≤ 2⁻⁵²).
func TestRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for k := 0; k < 300; k++ {
		p := randomProblem(rng, true)
		f := roundTrip(t, p)
		g := f.Problem
		if f.NumScalarVars != p.NumVars() || g.NumVars() != p.NumVars() || g.NumRows() != p.NumRows() {
			t.Fatalf("problem %d: sizes %d×%d, want %d×%d", k, g.NumRows(), g.NumVars(), p.NumRows(), p.NumVars())
		}
		if len(g.Cones) != len(p.Cones) {
			t.Fatalf("problem %d: cones %v, want %v", k, g.Cones, p.Cones)
		}
		for i := range p.Cones {
			if g.Cones[i] != p.Cones[i] {
				t.Errorf("problem %d: cone %d is %v, want %v", k, i, g.Cones[i], p.Cones[i])
			}
		}
		psdStart := p.NumRows() - p.Cones[len(p.Cones)-1].Dim
		tol := func(i int) float64 {
			if i >= psdStart {
				return 4e-16
			}
			return 0
		}
		Dp, Dg := p.A.Dense(), g.A.Dense()
		for i := range Dp {
			for j := range Dp[i] {
				if d := math.Abs(Dp[i][j] - Dg[i][j]); d > tol(i)*math.Abs(Dp[i][j]) {
					t.Errorf("problem %d: A[%d,%d] = %v, want %v", k, i, j, Dg[i][j], Dp[i][j])
				}
			}
			if d := math.Abs(p.B[i] - g.B[i]); d > tol(i)*math.Abs(p.B[i]) {
				t.Errorf("problem %d: b[%d] = %v, want %v", k, i, g.B[i], p.B[i])
			}
		}
		for j := range p.Q {
			if p.Q[j] != g.Q[j] {
				t.Errorf("problem %d: q[%d] = %v, want %v", k, j, g.Q[j], p.Q[j])
			}
		}
		if p.R != g.R {
			t.Errorf("problem %d: r = %v, want %v", k, g.R, p.R)
		}
		if t.Failed() {
			t.FailNow()
		}
	}
}

// TestRoundTripPSDFirst: PSD blocks move behind the other rows; the data are
// otherwise the same (checked as sorted multisets of row contents).
func TestRoundTripPSDFirst(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for k := 0; k < 50; k++ {
		p := randomProblem(rng, false)
		g := roundTrip(t, p).Problem
		d := p.Cones[0].Dim
		// Expected row order: rows d.. then rows 0..d.
		perm := make([]int, 0, p.NumRows())
		for i := d; i < p.NumRows(); i++ {
			perm = append(perm, i)
		}
		for i := 0; i < d; i++ {
			perm = append(perm, i)
		}
		Dp, Dg := p.A.Dense(), g.A.Dense()
		for gi, pi := range perm {
			for j := range Dp[pi] {
				if math.Abs(Dp[pi][j]-Dg[gi][j]) > 4e-16*math.Abs(Dp[pi][j]) {
					t.Fatalf("problem %d: row %d (was %d) differs: %v vs %v", k, gi, pi, Dg[gi], Dp[pi])
				}
			}
		}
		if g.Cones[len(g.Cones)-1] != p.Cones[0] {
			t.Fatalf("problem %d: last cone %v, want %v", k, g.Cones[len(g.Cones)-1], p.Cones[0])
		}
	}
}

// TestRoundTripSolveLP: random feasible bounded LPs solve to the same optimum
// with HiGHS before and after a round trip.
func TestRoundTripSolveLP(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	s := highs.New()
	ctx := context.Background()
	for k := 0; k < 50; k++ {
		n := 2 + rng.IntN(10)
		m := n + rng.IntN(10)
		tr := sparse.NewTriplets(m, n, m*n)
		x0 := make([]float64, n)
		for j := range x0 {
			x0[j] = rng.NormFloat64()
		}
		y0 := make([]float64, m)
		b := make([]float64, m)
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				if rng.Float64() < 0.5 {
					tr.Append(i, j, rng.NormFloat64())
				}
			}
			switch {
			case i == 0: // the zero-cone row: s = 0, y free
				y0[i] = rng.NormFloat64()
			case rng.IntN(2) == 0:
				y0[i] = rng.Float64()
			default:
				b[i] = rng.Float64()
			}
		}
		A := tr.ToCSC()
		A.MulVecTo(b, 1, x0, 1)
		q := A.MulTransVecTo(nil, -1, y0, 0)
		p := &solver.Problem{Q: q, R: 1.5, A: A, B: b, Cones: []cone.Cone{cone.NewZero(1), cone.NewNonnegative(m - 1)}}
		before, err := s.Solve(ctx, p, solver.Settings{})
		if err != nil || before.Status != solver.Optimal {
			t.Fatalf("LP %d: %v %v", k, err, before)
		}
		after, err := s.Solve(ctx, roundTrip(t, p).Problem, solver.Settings{})
		if err != nil || after.Status != solver.Optimal {
			t.Fatalf("LP %d after round trip: %v %v", k, err, after)
		}
		if math.Abs(before.Objective-after.Objective) > 1e-9*(1+math.Abs(before.Objective)) {
			t.Errorf("LP %d: objective %v before, %v after", k, before.Objective, after.Objective)
		}
	}
}

func TestSolveLPFile(t *testing.T) {
	f, err := ReadFile(filepath.Join("testdata", "lp.cbf"))
	if err != nil {
		t.Fatal(err)
	}
	sol, err := highs.New().Solve(context.Background(), f.Problem, solver.Settings{})
	if err != nil || sol.Status != solver.Optimal {
		t.Fatalf("%v %v", err, sol)
	}
	if !f.Maximize || math.Abs(-sol.Objective-36) > 1e-9 || math.Abs(sol.X[0]-2) > 1e-9 || math.Abs(sol.X[1]-6) > 1e-9 {
		t.Errorf("maximize %v, value %v at %v; want 36 at (2, 6)", f.Maximize, -sol.Objective, sol.X)
	}
}

func TestWriteErrors(t *testing.T) {
	P := sparse.NewTriplets(1, 1, 1)
	P.Append(0, 0, 1)
	p := &solver.Problem{P: P.ToCSC(), Q: []float64{0}, A: sparse.NewCSC(0, 1), B: nil}
	if err := Write(&bytes.Buffer{}, p, nil); !errors.Is(err, ErrQuadratic) {
		t.Errorf("QP: %v", err)
	}
	bad := &solver.Problem{Q: []float64{math.NaN()}, A: sparse.NewCSC(0, 1)}
	if err := Write(&bytes.Buffer{}, bad, nil); !errors.Is(err, solver.ErrInvalidProblem) {
		t.Errorf("NaN: %v", err)
	}
	if err := Write(&bytes.Buffer{}, nil, nil); err == nil {
		t.Error("nil problem accepted")
	}
}

// FuzzRead: the reader never panics, and whatever it accepts is a valid
// problem that survives a write/read round trip with the same shape.
func FuzzRead(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.cbf"))
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("VER\n3\nVAR\n1 1\nQ 1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Read(bytes.NewReader(data))
		if err != nil {
			return
		}
		p := file.Problem
		if err := p.Validate(); err != nil {
			t.Fatalf("accepted an invalid problem: %v", err)
		}
		var buf bytes.Buffer
		if err := Write(&buf, p, nil); err != nil {
			t.Fatalf("cannot write back: %v", err)
		}
		g, err := Read(&buf)
		if err != nil {
			t.Fatalf("cannot read back: %v\n%s", err, buf.String())
		}
		if g.Problem.NumRows() != p.NumRows() || g.Problem.NumVars() != p.NumVars() {
			t.Fatalf("round trip changed the shape: %d×%d → %d×%d", p.NumRows(), p.NumVars(), g.Problem.NumRows(), g.Problem.NumVars())
		}
	})
}
