package model

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/privopt/privopt/sparse"
)

// TestExprOps checks every expression operation against the same operation on
// dense matrices, on random data (coefficients are multiples of 1/16 with
// small numerators, so sums are exact and the comparison tolerance is tight).
func TestExprOps(t *testing.T) {
	type tcase struct {
		name string
		run  func(rng *rand.Rand, m *Model, N int) (Expr, dense)
	}
	cases := []tcase{
		{"Add", func(rng *rand.Rand, m *Model, N int) (Expr, dense) {
			a, da := randAffine(rng, m, 7, 0.3)
			b, db := randAffine(rng, m, 7, 0.3)
			w := newDense(7, N)
			for i := range w.A {
				for j := range w.A[i] {
					w.A[i][j] = da.A[i][j] + db.A[i][j]
				}
				w.c[i] = da.c[i] + db.c[i]
			}
			return a.Add(b), w
		}},
		{"Sub", func(rng *rand.Rand, m *Model, N int) (Expr, dense) {
			a, da := randAffine(rng, m, 5, 0.4)
			b, db := randAffine(rng, m, 5, 0.4)
			w := newDense(5, N)
			for i := range w.A {
				for j := range w.A[i] {
					w.A[i][j] = da.A[i][j] - db.A[i][j]
				}
				w.c[i] = da.c[i] - db.c[i]
			}
			return a.Sub(b), w
		}},
		{"SubSelfCancels", func(rng *rand.Rand, m *Model, N int) (Expr, dense) {
			a, _ := randAffine(rng, m, 4, 0.5)
			return a.Sub(a), newDense(4, N)
		}},
		{"AddScaled", func(rng *rand.Rand, m *Model, N int) (Expr, dense) {
			a, da := randAffine(rng, m, 6, 0.3)
			b, db := randAffine(rng, m, 6, 0.3)
			w := newDense(6, N)
			for i := range w.A {
				for j := range w.A[i] {
					w.A[i][j] = da.A[i][j] - 2.5*db.A[i][j]
				}
				w.c[i] = da.c[i] - 2.5*db.c[i]
			}
			return a.AddScaled(-2.5, b), w
		}},
		{"AddBroadcastLeft", func(rng *rand.Rand, m *Model, N int) (Expr, dense) {
			a, da := randAffine(rng, m, 1, 0.5)
			b, db := randAffine(rng, m, 6, 0.3)
			w := newDense(6, N)
			for i := range w.A {
				for j := range w.A[i] {
					w.A[i][j] = da.A[0][j] + db.A[i][j]
				}
				w.c[i] = da.c[0] + db.c[i]
			}
			return a.Add(b), w
		}},
		{"SubBroadcastRight", func(rng *rand.Rand, m *Model, N int) (Expr, dense) {
			a, da := randAffine(rng, m, 6, 0.3)
			b, db := randAffine(rng, m, 1, 0.5)
			w := newDense(6, N)
			for i := range w.A {
				for j := range w.A[i] {
					w.A[i][j] = da.A[i][j] - db.A[0][j]
				}
				w.c[i] = da.c[i] - db.c[0]
			}
			return a.Sub(b), w
		}},
		{"AddConst", func(rng *rand.Rand, m *Model, N int) (Expr, dense) {
			a, da := randAffine(rng, m, 3, 0.3)
			da.c[0] += 1
			da.c[1] += 2
			da.c[2] += 3
			return a.Add(Const(1, 2, 3)), da
		}},
		{"AddLoopLazy", func(rng *rand.Rand, m *Model, N int) (Expr, dense) {
			// e = e.Add(t) and e = e.Sub(t) in a loop, sharing prefixes.
			w := newDense(4, N)
			var e Expr = Zeros(4)
			for k := 0; k < 50; k++ {
				t, dt := randAffine(rng, m, 4, 0.2)
				s := 1.0
				if k%3 == 0 {
					s = -1
					e = e.Sub(t)
				} else {
					e = e.Add(t)
				}
				for i := range w.A {
					for j := range w.A[i] {
						w.A[i][j] += s * dt.A[i][j]
					}
					w.c[i] += s * dt.c[i]
				}
				if k == 20 {
					_ = e.Nnz() // materialize a prefix: later sums must build on it
				}
			}
			return e, w
		}},
		{"Scale", func(rng *rand.Rand, m *Model, N int) (Expr, dense) {
			a, da := randAffine(rng, m, 5, 0.4)
			for i := range da.A {
				for j := range da.A[i] {
					da.A[i][j] *= -3
				}
				da.c[i] *= -3
			}
			return a.Scale(-3), da
		}},
		{"ScaleZero", func(rng *rand.Rand, m *Model, N int) (Expr, dense) {
			a, _ := randAffine(rng, m, 5, 0.4)
			return a.Scale(0), newDense(5, N)
		}},
		{"Neg", func(rng *rand.Rand, m *Model, N int) (Expr, dense) {
			a, da := randAffine(rng, m, 5, 0.4)
			for i := range da.A {
				for j := range da.A[i] {
					da.A[i][j] = -da.A[i][j]
				}
				da.c[i] = -da.c[i]
			}
			return a.Neg(), da
		}},
		{"MulElem", func(rng *rand.Rand, m *Model, N int) (Expr, dense) {
			a, da := randAffine(rng, m, 6, 0.4)
			w := randVec(rng, 6)
			w[2] = 0
			for i := range da.A {
				for j := range da.A[i] {
					da.A[i][j] *= w[i]
				}
				da.c[i] *= w[i]
			}
			return a.MulElem(w), da
		}},
		{"Dot", func(rng *rand.Rand, m *Model, N int) (Expr, dense) {
			a, da := randAffine(rng, m, 8, 0.3)
			w := randVec(rng, 8)
			r := newDense(1, N)
			for i := range da.A {
				for j := range da.A[i] {
					r.A[0][j] += w[i] * da.A[i][j]
				}
				r.c[0] += w[i] * da.c[i]
			}
			return a.Dot(w), r
		}},
		{"Sum", func(rng *rand.Rand, m *Model, N int) (Expr, dense) {
			a, da := randAffine(rng, m, 9, 0.3)
			r := newDense(1, N)
			for i := range da.A {
				for j := range da.A[i] {
					r.A[0][j] += da.A[i][j]
				}
				r.c[0] += da.c[i]
			}
			return a.Sum(), r
		}},
		{"AtSlicePick", func(rng *rand.Rand, m *Model, N int) (Expr, dense) {
			a, da := randAffine(rng, m, 10, 0.3)
			idx := []int{7, 2, 2, 9, 0}
			r := newDense(0, N)
			// Stack(At(3), Slice(4,7), Pick(idx)): rows 3, 4, 5, 6, 7, 2, 2, 9, 0
			for _, i := range append([]int{3, 4, 5, 6}, idx...) {
				r.A = append(r.A, da.A[i])
				r.c = append(r.c, da.c[i])
			}
			return Stack(a.At(3), a.Slice(4, 7), a.Pick(idx)), r
		}},
		{"StackMany", func(rng *rand.Rand, m *Model, N int) (Expr, dense) {
			var es []Expr
			r := newDense(0, N)
			for k := 0; k < 20; k++ {
				e, d := randAffine(rng, m, 1+k%3, 0.2)
				if k%4 == 0 {
					c := randVec(rng, 2)
					e, d = Const(c...), dense{A: [][]float64{make([]float64, N), make([]float64, N)}, c: c}
				}
				es = append(es, e)
				r.A = append(r.A, d.A...)
				r.c = append(r.c, d.c...)
			}
			return Stack(es...), r
		}},
		{"AddAll", func(rng *rand.Rand, m *Model, N int) (Expr, dense) {
			var es []Expr
			r := newDense(4, N)
			for k := 0; k < 15; k++ {
				n := 4
				if k%5 == 2 {
					n = 1 // broadcast
				}
				e, d := randAffine(rng, m, n, 0.2)
				es = append(es, e)
				for i := 0; i < 4; i++ {
					src := i
					if n == 1 {
						src = 0
					}
					for j := 0; j < N; j++ {
						r.A[i][j] += d.A[src][j]
					}
					r.c[i] += d.c[src]
				}
			}
			return AddAll(es...), r
		}},
		{"MulDense", func(rng *rand.Rand, m *Model, N int) (Expr, dense) {
			a, da := randAffine(rng, m, 6, 0.3)
			M := mat.NewDense(4, 6, randVec(rng, 24))
			M.Set(1, 2, 0)
			r := newDense(4, N)
			for i := 0; i < 4; i++ {
				for k := 0; k < 6; k++ {
					for j := 0; j < N; j++ {
						r.A[i][j] += M.At(i, k) * da.A[k][j]
					}
					r.c[i] += M.At(i, k) * da.c[k]
				}
			}
			return MulDense(M, a), r
		}},
		{"MulSparse", func(rng *rand.Rand, m *Model, N int) (Expr, dense) {
			a, da := randAffine(rng, m, 6, 0.3)
			tr := sparse.NewTriplets(5, 6, 0)
			M := make([][]float64, 5)
			for i := range M {
				M[i] = make([]float64, 6)
				for k := 0; k < 6; k++ {
					if rng.Float64() < 0.4 {
						v := randVec(rng, 1)[0]
						tr.Append(i, k, v)
						M[i][k] += v
					}
				}
			}
			r := newDense(5, N)
			for i := 0; i < 5; i++ {
				for k := 0; k < 6; k++ {
					for j := 0; j < N; j++ {
						r.A[i][j] += M[i][k] * da.A[k][j]
					}
					r.c[i] += M[i][k] * da.c[k]
				}
			}
			return MulSparse(tr.ToCSC(), a), r
		}},
		{"MulSparseSelection", func(rng *rand.Rand, m *Model, N int) (Expr, dense) {
			// e = a slice of the matrix variable y (a selection): fast path;
			// an explicit zero in A takes the general path and is dropped.
			y := m.VarByName("y")
			sel := y.Slice(1, 5)
			tr := sparse.NewTriplets(3, 4, 0)
			r := newDense(3, N)
			for i := 0; i < 3; i++ {
				for k := 0; k < 4; k++ {
					if rng.Float64() < 0.6 {
						v := randVec(rng, 1)[0]
						tr.Append(i, k, v)
						r.A[i][y.Col(1+k)] += v
					}
				}
			}
			A := tr.ToCSC()
			if rng.IntN(2) == 0 && A.Nnz() > 0 {
				A.Val[0] = 0
				for i := 0; i < 3; i++ {
					if A.RowIdx[0] == i {
						r.A[i][y.Col(1+firstCol(A))] = 0
					}
				}
			}
			return MulSparse(A, sel), r
		}},
		{"ReshapeTransposeEntry", func(rng *rand.Rand, m *Model, N int) (Expr, dense) {
			a, da := randAffine(rng, m, 6, 0.3)
			S := Reshape(a, 2, 3) // S[i][j] = a[3i+j]
			T := S.T()            // 3×2, T[i][j] = a[3j+i]
			r := newDense(0, N)
			for i := 0; i < 3; i++ {
				for j := 0; j < 2; j++ {
					r.A = append(r.A, da.A[3*j+i])
					r.c = append(r.c, da.c[3*j+i])
				}
			}
			if rr, cc := T.Shape(); rr != 3 || cc != 2 {
				panic("shape")
			}
			r.A = append(r.A, da.A[5])
			r.c = append(r.c, da.c[5])
			return Stack(T, S.Entry(1, 2)), r
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for seed := uint64(1); seed <= 20; seed++ {
				rng := rand.New(rand.NewPCG(seed, 7))
				m := New("t")
				m.Vector("x", 5)
				m.Matrix("y", 2, 3)
				N := m.NumVars()
				got, want := tc.run(rng, m, N)
				assertDense(t, tc.name, toDense(t, got, N), want, 1e-13)
				// Eval agrees with the dense form.
				x := randVec(rng, N)
				ev := got.Eval(x)
				for i := range want.A {
					s := want.c[i]
					for j := range x {
						s += want.A[i][j] * x[j]
					}
					if !close(ev[i], s, 1e-12) {
						t.Fatalf("Eval[%d] = %v, want %v", i, ev[i], s)
					}
				}
			}
		})
	}
}

func TestVarLayout(t *testing.T) {
	m := New("layout")
	a := m.Scalar("a")
	x := m.Vector("x", 3)
	M := m.Matrix("M", 2, 3)
	S := m.Symmetric("S", 3)
	z := m.Vector("", 2)
	if got := []int{a.Col(0), x.Col(0), x.Col(2), M.Col(0), M.Col(5), S.Col(0), z.Col(0), m.NumVars()}; !equalInts(got, []int{0, 1, 3, 4, 9, 10, 16, 18}) {
		t.Fatalf("columns %v", got)
	}
	if z.Name() != "x4" {
		t.Errorf("auto name %q, want x4", z.Name())
	}
	// Symmetric: (i,j) and (j,i) share the lower-triangular column-major slot.
	wantSym := [][]int{{0, 1, 2}, {1, 3, 4}, {2, 4, 5}}
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			if got := S.Col(i*3+j) - S.Col(0); got != wantSym[i][j] {
				t.Errorf("S.Col(%d,%d) offset %d, want %d", i, j, got, wantSym[i][j])
			}
		}
	}
	if S.Len() != 9 || S.NumColumns() != 6 {
		t.Errorf("S.Len = %d, NumColumns = %d", S.Len(), S.NumColumns())
	}
	N := m.NumVars()
	d := toDense(t, M.Entry(1, 2), N)
	if d.A[0][M.Col(5)] != 1 {
		t.Errorf("M.Entry(1,2) is not column %d", M.Col(5))
	}
	if r, c := M.Expr().Shape(); r != 2 || c != 3 {
		t.Errorf("M shape %d×%d", r, c)
	}
	d = toDense(t, x.Slice(1, 3), N)
	if d.A[0][2] != 1 || d.A[1][3] != 1 {
		t.Errorf("x.Slice(1,3) = %v", d.A)
	}
	if m.VarByName("M") != M || m.VarByName("nope") != nil {
		t.Error("VarByName")
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestBuilder(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	m := New("b")
	x := m.Vector("x", 4)
	y := m.Vector("y", 3)
	N := m.NumVars()
	b := NewExprBuilder(3)
	b.Grow(50) // less than needed: appends still grow
	want := newDense(3, N)
	for k := 0; k < 200; k++ { // many duplicates, any order
		row := rng.IntN(3)
		if rng.IntN(2) == 0 {
			i, c := rng.IntN(4), randVec(rng, 1)[0]
			b.AddVar(row, x, i, c)
			want.A[row][x.Col(i)] += c
		} else {
			i, c := rng.IntN(3), randVec(rng, 1)[0]
			b.AddVar(row, y, i, c)
			want.A[row][y.Col(i)] += c
		}
	}
	b.AddConst(1, 2.5)
	want.c[1] += 2.5
	b.AddExpr(2, x.At(0).Add(Const(1)), -2)
	want.A[2][x.Col(0)] -= 2
	want.c[2] -= 2
	b.AddScaled(0.5, y.Expr())
	for i := 0; i < 3; i++ {
		want.A[i][y.Col(i)] += 0.5
	}
	assertDense(t, "builder", toDense(t, b.Expr(), N), want, 1e-12)

	bad := NewExprBuilder(2)
	bad.AddVar(2, x, 0, 1)
	if err := bad.Expr().Err(); !errors.Is(err, ErrDimension) {
		t.Errorf("row out of range: %v", err)
	}
	bad = NewExprBuilder(2)
	bad.AddVar(0, x, 0, math.NaN())
	if err := bad.Expr().Err(); !errors.Is(err, ErrNotFinite) {
		t.Errorf("NaN: %v", err)
	}
}

// TestExprErrors checks that invalid operations return expressions carrying
// errors (never panic), that errors propagate, and that the model records the
// first one.
func TestExprErrors(t *testing.T) {
	m := New("e")
	x := m.Vector("x", 3)
	y := m.Vector("y", 4)
	other := New("o").Vector("z", 3)
	cases := []struct {
		name string
		e    Expr
		want error
	}{
		{"AddMismatch", x.Expr().Add(y.Expr()), ErrDimension},
		{"SubMismatch", x.Expr().Sub(y.Expr()), ErrDimension},
		{"AtRange", x.Expr().At(3), ErrDimension},
		{"SliceRange", x.Expr().Slice(2, 5), ErrDimension},
		{"PickRange", x.Expr().Pick([]int{0, -1}), ErrDimension},
		{"DotLen", x.Expr().Dot([]float64{1, 2}), ErrDimension},
		{"MulElemNaN", x.Expr().MulElem([]float64{1, math.NaN(), 2}), ErrNotFinite},
		{"ScaleInf", x.Expr().Scale(math.Inf(1)), ErrNotFinite},
		{"ConstNaN", Const(1, math.NaN()), ErrNotFinite},
		{"Reshape", Reshape(x.Expr(), 2, 2), ErrDimension},
		{"MulDenseDims", MulDense(mat.NewDense(2, 2, nil), x.Expr()), ErrDimension},
		{"MulSparseDims", MulSparse(sparse.NewCSC(2, 4), x.Expr()), ErrDimension},
		{"Models", x.Expr().Add(other.Expr()), ErrModelMismatch},
		{"StackModels", Stack(x.Expr(), other.Expr()), ErrModelMismatch},
		{"Propagates", x.Expr().Add(y.Expr()).Scale(2).Sum().Add(Const(1)), ErrDimension},
		{"VarAt", x.At(7), ErrDimension},
		{"VarEntry", x.Entry(0, 1), ErrDimension},
	}
	for _, tc := range cases {
		if !errors.Is(tc.e.Err(), tc.want) {
			t.Errorf("%s: error %v, want %v", tc.name, tc.e.Err(), tc.want)
		}
	}
	if err := m.Err(); !errors.Is(err, ErrDimension) {
		t.Errorf("model error %v, want the first one (dimension)", err)
	}
	if _, err := m.Canonicalize(); !errors.Is(err, ErrDimension) {
		t.Errorf("Canonicalize error %v", err)
	}
}

// TestSharedPrefix: two sums sharing a lazy prefix are both correct, and
// materializing the first caches the prefix for the second.
func TestSharedPrefix(t *testing.T) {
	m := New("prefix")
	x := m.Vector("x", 10)
	var base Expr = Const(1)
	for i := 0; i < 10; i++ {
		base = base.Add(x.At(i).Scale(float64(i + 1)))
	}
	e1 := base.Add(x.At(0))
	e2 := base.Sub(x.At(9).Scale(10))
	want1 := newDense(1, 10)
	want2 := newDense(1, 10)
	for i := 0; i < 10; i++ {
		want1.A[0][i] = float64(i + 1)
		want2.A[0][i] = float64(i + 1)
	}
	want1.A[0][0] += 1
	want2.A[0][9] = 0
	want1.c[0], want2.c[0] = 1, 1
	assertDense(t, "e1", toDense(t, e1, 10), want1, 0)
	if !base.x.materialized() {
		t.Error("the shared prefix was not cached")
	}
	assertDense(t, "e2", toDense(t, e2, 10), want2, 0)
}

// TestZeroExpr: the zero Expr is an additive identity of any length.
func TestZeroExpr(t *testing.T) {
	m := New("zero")
	x := m.Vector("x", 3)
	var sum Expr
	for i := 0; i < 3; i++ {
		sum = sum.Add(x.At(i).Scale(float64(i + 1)))
	}
	want := newDense(1, 3)
	want.A[0] = []float64{1, 2, 3}
	assertDense(t, "sum", toDense(t, sum, 3), want, 0)
	var acc Expr
	acc = acc.Sub(x.Expr()).Add(Expr{})
	d := toDense(t, acc, 3)
	if d.A[1][1] != -1 || acc.Len() != 3 {
		t.Errorf("zero − x = %v", d.A)
	}
	if AddAll(Expr{}, x.Expr(), Expr{}).Len() != 3 {
		t.Error("AddAll should skip zero Exprs")
	}
	c := m.GreaterEq("nonneg", x.Expr(), Expr{})
	if m.Err() != nil || c.Len() != 3 {
		t.Errorf("x ≥ (zero Expr): %v, %d rows", m.Err(), c.Len())
	}
}

// TestOperandsUnchanged: operations share arrays with their operands but
// never modify them; a variable's cached expression stays the identity map
// after every operation has been applied to it (and to its slices).
func TestOperandsUnchanged(t *testing.T) {
	m := New("imm")
	x := m.Vector("x", 5)
	xe := x.Expr()
	c := Const(1, 2, 3, 4, 5)
	ops := []Expr{
		xe.Scale(3), xe.Neg(), xe.Add(c), xe.Sub(xe), xe.AddScaled(2, c), xe.MulElem([]float64{1, 0, 2, 0, 3}),
		xe.Slice(1, 4).Scale(2), xe.Pick([]int{4, 0}).Add(Const(1)), xe.Sum(), xe.Dot([]float64{1, 2, 3, 4, 5}),
		Reshape(xe, 5, 1).T(), Stack(xe, xe), AddAll(xe, c, xe), x.At(2).Scale(-1), c.Scale(2).Add(xe),
	}
	for _, e := range ops {
		_ = e.Nnz()
	}
	want := newDense(5, 5)
	for i := 0; i < 5; i++ {
		want.A[i][i] = 1
	}
	assertDense(t, "x.Expr()", toDense(t, x.Expr(), 5), want, 0)
	assertVec(t, "const", c.Constant(), []float64{1, 2, 3, 4, 5}, 0)
	if x.Expr().x != xe.x {
		t.Error("x.Expr() is not cached")
	}
}

// firstCol returns the column of A's first stored entry.
func firstCol(A *sparse.CSC) int {
	for j := 0; j < A.Cols; j++ {
		if A.ColPtr[j+1] > 0 {
			return j
		}
	}
	return -1
}
