package model

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/sparse"
)

// TestNoPanics applies random operations with random, often invalid,
// arguments (wrong lengths, out-of-range indices, NaN, nil matrices, foreign
// models) and requires that nothing panics and that the model then either
// canonicalizes to a valid standard form or reports an error.
func TestNoPanics(t *testing.T) {
	valid := 0
	for seed := uint64(1); seed <= 2000; seed++ {
		if ok, err := randomModel(seed); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		} else if ok {
			valid++
		}
	}
	t.Logf("%d of 2000 random models canonicalized, the rest reported errors", valid)
	if valid < 100 {
		t.Errorf("only %d valid models: the generator no longer exercises canonicalization", valid)
	}
}

// FuzzNoPanics runs the random-operation generator of TestNoPanics on fuzzed
// seeds: go test -fuzz FuzzNoPanics ./model.
func FuzzNoPanics(f *testing.F) {
	for _, s := range []uint64{1, 2, 3, 42, 1 << 40} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, seed uint64) {
		if _, err := randomModel(seed); err != nil {
			t.Fatal(err)
		}
	})
}

// randomModel builds a model by a random sequence of operations with often
// invalid arguments. It reports whether the model canonicalized, and an error
// only if the canonical form is invalid (a panic fails the caller).
func randomModel(seed uint64) (bool, error) {
	rng := rand.New(rand.NewPCG(seed, 5))
	m := New("fuzz")
	foreign := New("other").Vector("f", 3)
	vars := []*Var{m.Vector("x", 4), m.Scalar("s"), m.Matrix("M", 2, 2), m.Symmetric("S", 2)}
	pool := []Expr{vars[0].Expr(), vars[1].Expr(), Const(1, 2), Zeros(3), {}}
	pick := func() Expr { return pool[rng.IntN(len(pool))] }
	num := func() float64 {
		switch rng.IntN(40) {
		case 0:
			return math.NaN()
		case 1:
			return math.Inf(1)
		}
		return rng.NormFloat64()
	}
	idx := func() int { return rng.IntN(5) - 1 }
	vec := func() []float64 {
		v := make([]float64, rng.IntN(5))
		for i := range v {
			v[i] = num()
		}
		return v
	}
	for step := 0; step < 1+rng.IntN(6); step++ {
		var e Expr
		switch rng.IntN(22) {
		case 0:
			e = pick().Add(pick())
		case 1:
			e = pick().Sub(pick())
		case 2:
			e = pick().Scale(num())
		case 3:
			e = pick().Dot(vec())
		case 4:
			e = pick().Sum()
		case 5:
			e = pick().MulElem(vec())
		case 6:
			e = pick().At(idx())
		case 7:
			e = pick().Slice(idx(), idx())
		case 8:
			e = pick().Pick([]int{idx(), idx()})
		case 9:
			e = Reshape(pick(), idx(), idx())
		case 10:
			e = Stack(pick(), pick(), foreign.Expr())
		case 11:
			if rng.IntN(3) == 0 {
				e = MulDense(nil, pick())
			} else {
				e = MulDense(mat.NewDense(2, 1+rng.IntN(4), nil), pick())
			}
		case 12:
			if rng.IntN(3) == 0 {
				e = MulSparse(nil, pick())
			} else {
				e = MulSparse(sparse.NewCSC(2, rng.IntN(5)), pick())
			}
		case 13:
			e = AddAll(pick(), pick(), pick())
		case 14:
			e = pick().T().Entry(idx(), idx())
		case 15:
			v := vars[rng.IntN(len(vars))]
			e = v.Entry(idx(), idx())
			m.Bound(v, num(), num())
		case 16:
			m.LessEq("", pick(), pick())
		case 17:
			m.NormLessEq("", pick(), pick())
		case 18:
			m.PSD("", pick())
		case 19:
			m.ExpCone("", pick(), pick(), pick())
		case 20:
			m.InCone("", pick(), cone.Cone{Kind: cone.Kind(rng.IntN(9)), Dim: idx()})
		case 21:
			m.Minimize(pick(), SumSquares(pick()).Scale(num()), QuadForm(pick(), mat.NewSymDense(2, []float64{1, num(), num(), 1})))
		}
		if e.x != nil {
			pool = append(pool, e)
		}
	}
	can, err := m.Canonicalize()
	if err != nil {
		return false, nil
	}
	if verr := can.Problem.Validate(); verr != nil {
		return true, fmt.Errorf("canonical form invalid: %w", verr)
	}
	return true, nil
}
