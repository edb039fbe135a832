package model

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/sparse"
)

// randomLP returns the data of a random sparse LP with about nnz nonzeros:
// n = nnz/10 variables, m = n/2 rows (20 nonzeros per row).
func randomLP(nnz int) (A *sparse.CSC, b, c []float64) {
	rng := rand.New(rand.NewPCG(uint64(nnz), 1))
	n := nnz / 10
	m := n / 2
	tr := sparse.NewTriplets(m, n, nnz)
	for i := 0; i < m; i++ {
		for k := 0; k < nnz/m; k++ {
			tr.Append(i, rng.IntN(n), rng.NormFloat64())
		}
	}
	b = make([]float64, m)
	for i := range b {
		b[i] = 1 + rng.Float64()
	}
	c = make([]float64, n)
	for j := range c {
		c[j] = rng.NormFloat64()
	}
	return tr.ToCSC(), b, c
}

// BenchmarkBuildCanonicalize measures building a random sparse LP (A·x ≤ b,
// 0 ≤ x ≤ 1, min cᵀx) and canonicalizing it, for three ways of writing the
// constraints: one MulSparse, an ExprBuilder fed entry by entry, and one
// Dot expression per row (with an Add chain for the objective).
func BenchmarkBuildCanonicalize(b *testing.B) {
	for _, nnz := range []int{10_000, 100_000, 1_000_000} {
		A, rhs, c := randomLP(nnz)
		At := A.Transpose()
		b.Run(fmt.Sprintf("MulSparse/nnz=%d", nnz), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				m := New("lp")
				x := m.Vector("x", A.Cols)
				m.Bound(x, 0, 1)
				m.LessEq("rows", MulSparse(A, x.Expr()), Const(rhs...))
				m.Minimize(x.Expr().Dot(c))
				if _, err := m.Canonicalize(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("Builder/nnz=%d", nnz), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				m := New("lp")
				x := m.Vector("x", A.Cols)
				m.Bound(x, 0, 1)
				eb := NewExprBuilder(A.Rows)
				eb.Grow(A.Nnz())
				for i := 0; i < At.Cols; i++ {
					for p := At.ColPtr[i]; p < At.ColPtr[i+1]; p++ {
						eb.AddVar(i, x, At.RowIdx[p], At.Val[p])
					}
				}
				m.LessEq("rows", eb.Expr(), Const(rhs...))
				m.Minimize(x.Expr().Dot(c))
				if _, err := m.Canonicalize(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("PerRow/nnz=%d", nnz), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				m := New("lp")
				x := m.Vector("x", A.Cols)
				m.Bound(x, 0, math.Inf(1))
				xe := x.Expr()
				for i := 0; i < At.Cols; i++ {
					lo, hi := At.ColPtr[i], At.ColPtr[i+1]
					m.LessEq("", xe.Pick(At.RowIdx[lo:hi]).Dot(At.Val[lo:hi]), Const(rhs[i]))
				}
				var obj Expr = Zeros(1)
				for j := range c {
					obj = obj.Add(x.At(j).Scale(c[j]))
				}
				m.Minimize(obj)
				if _, err := m.Canonicalize(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSum measures e.Sum over 10⁵ terms, AddAll of 10⁵ scalars and
// Stack of 10⁵ scalars.
func BenchmarkSum(b *testing.B) {
	const n = 100_000
	m := New("sum")
	x := m.Vector("x", n)
	terms := make([]Expr, n)
	for i := range terms {
		terms[i] = x.At(i)
	}
	b.Run("Sum/n=1e5", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = x.Expr().Sum().Nnz()
		}
	})
	b.Run("AddAll/n=1e5", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = AddAll(terms...).Nnz()
		}
	})
	b.Run("AddLoop/n=1e5", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var e Expr = Zeros(1)
			for _, t := range terms {
				e = e.Add(t)
			}
			_ = e.Nnz()
		}
	})
	b.Run("Stack/n=1e5", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = Stack(terms...).Nnz()
		}
	})
}

// BenchmarkLeastSquares measures canonicalizing min ‖Xw − y‖² for a dense
// tall X (rows × 10, 10⁵ and 10⁶ nonzeros): the direct form 2XᵀX through the
// dense Gram accumulator.
func BenchmarkLeastSquares(b *testing.B) {
	for _, nnz := range []int{100_000, 1_000_000} {
		rows, cols := nnz/10, 10
		rng := rand.New(rand.NewPCG(9, uint64(nnz)))
		X := mat.NewDense(rows, cols, nil)
		y := make([]float64, rows)
		for i := 0; i < rows; i++ {
			for j := 0; j < cols; j++ {
				X.Set(i, j, rng.NormFloat64())
			}
			y[i] = rng.NormFloat64()
		}
		b.Run(fmt.Sprintf("nnz=%d", nnz), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				m := New("ls")
				w := m.Vector("w", cols)
				m.Minimize(Expr{}, SumSquares(MulDense(X, w.Expr()).Sub(Const(y...))))
				can, err := m.Canonicalize()
				if err != nil {
					b.Fatal(err)
				}
				if can.Problem.NumVars() != cols {
					b.Fatal("lifted")
				}
			}
		})
	}
}

// BenchmarkSolveLP solves the random LP of BenchmarkBuildCanonicalize with
// HiGHS and reports the share of time spent outside the backend
// (build + canonicalize + inverse map) as "outside/solve".
func BenchmarkSolveLP(b *testing.B) {
	for _, nnz := range []int{10_000, 100_000} {
		A, rhs, c := randomLP(nnz)
		b.Run(fmt.Sprintf("nnz=%d", nnz), func(b *testing.B) {
			b.ReportAllocs()
			var outside, inside time.Duration
			for b.Loop() {
				start := time.Now()
				m := New("lp")
				x := m.Vector("x", A.Cols)
				m.Bound(x, 0, 1)
				m.LessEq("rows", MulSparse(A, x.Expr()), Const(rhs...))
				m.Minimize(x.Expr().Dot(c))
				res, err := m.Solve(context.Background(), SolveOptions{})
				if err != nil || res.Status != solver.Optimal {
					b.Fatal(err, res.Status)
				}
				total := time.Since(start)
				inside += res.Solution.SolveTime
				outside += total - res.Solution.SolveTime
			}
			b.ReportMetric(float64(outside)/float64(inside), "outside/solve")
		})
	}
}
