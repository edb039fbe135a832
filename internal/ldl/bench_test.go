package ldl

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privopt/privopt/sparse"
)

// localKKT returns the upper triangle of a random quasi-definite KKT matrix
// [H Aᵀ; A −δI] with n1 primal and n2 dual rows: H is diagonal plus a random
// coupling between neighbouring variables, and dual row r couples four random
// primal variables within a window of ±window around its proportional position
// (the locality of real constraint matrices; uniformly random patterns are
// expander graphs whose factors fill almost completely).
func localKKT(rng *rand.Rand, n1, n2, window int) (*sparse.CSC, []int8) {
	n := n1 + n2
	t := sparse.NewTriplets(n, n, n+n1+4*n2)
	signs := make([]int8, n)
	for i := 0; i < n1; i++ {
		t.Append(i, i, 1+rng.Float64())
		if i+1 < n1 && rng.IntN(2) == 0 {
			t.Append(i, i+1, 0.1*rng.NormFloat64())
		}
		signs[i] = 1
	}
	for r := 0; r < n2; r++ {
		row := n1 + r
		center := r * n1 / max(n2, 1)
		for range 4 {
			j := min(max(center+rng.IntN(2*window+1)-window, 0), n1-1)
			t.Append(j, row, rng.NormFloat64())
		}
		t.Append(row, row, -1e-4)
		signs[row] = -1
	}
	return t.ToCSC(), signs
}

type benchCase struct {
	name  string
	a     *sparse.CSC
	signs []int8
}

func benchCases(b *testing.B) []benchCase {
	rng := rand.New(rand.NewPCG(2024, 1))
	kkt, signs := localKKT(rng, 66667, 33333, 200)
	cs := []benchCase{
		{"grid=100x100", gridLaplacian(100), nil},
		{"grid=300x300", gridLaplacian(300), nil},
		{"kkt=1e5", kkt, signs},
	}
	for i := range cs {
		if cs[i].signs == nil {
			cs[i].signs = make([]int8, cs[i].a.Cols)
			for j := range cs[i].signs {
				cs[i].signs[j] = 1
			}
		}
	}
	return cs
}

func BenchmarkAnalyze(b *testing.B) {
	for _, c := range benchCases(b) {
		for _, ord := range []Ordering{AMD, Natural} {
			if ord == Natural && c.name != "grid=100x100" {
				continue // natural order: fill too large to be useful
			}
			b.Run(fmt.Sprintf("%s/%v", c.name, ord), func(b *testing.B) {
				b.ReportAllocs()
				var s *Symbolic
				for b.Loop() {
					var err error
					if s, err = Analyze(c.a, Options{Ordering: ord}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(s.NnzL()), "nnzL")
			})
		}
	}
}

func BenchmarkFactor(b *testing.B) {
	for _, c := range benchCases(b) {
		for _, m := range []Method{Simplicial, Supernodal} {
			s, err := Analyze(c.a, Options{Method: m})
			if err != nil {
				b.Fatal(err)
			}
			b.Run(c.name+"/"+m.String()+"/Factor", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := s.Factor(c.a, c.signs, DefaultRegularization); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(s.NnzL()), "nnzL")
			})
			f, err := s.Factor(c.a, c.signs, DefaultRegularization)
			if err != nil {
				b.Fatal(err)
			}
			b.Run(c.name+"/"+m.String()+"/Refactor", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if err := f.Refactor(c.a); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(s.FactorFlops()*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gflop/s")
			})
		}
	}
}

func BenchmarkSolve(b *testing.B) {
	for _, c := range benchCases(b) {
		s, err := Analyze(c.a, Options{})
		if err != nil {
			b.Fatal(err)
		}
		f, err := s.Factor(c.a, c.signs, DefaultRegularization)
		if err != nil {
			b.Fatal(err)
		}
		rhs := make([]float64, c.a.Cols)
		for i := range rhs {
			rhs[i] = math.Sin(float64(i))
		}
		x := make([]float64, c.a.Cols)
		b.Run(c.name+"/Solve", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				f.Solve(x, rhs)
			}
		})
		b.Run(c.name+"/SolveRefine2", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				f.SolveRefine(x, rhs, c.a, 2, 0)
			}
		})
	}
}

// BenchmarkSOCKKT measures the SVM-shaped KKT matrix of socKKT: the full size
// (4,500 points, 36 features, about 355k rows) runs only without -short.
func BenchmarkSOCKKT(b *testing.B) {
	for _, points := range []int{450, 4500} {
		if testing.Short() && points > 450 {
			continue
		}
		rng := rand.New(rand.NewPCG(7, uint64(points)))
		a, signs := socKKT(rng, points, 36)
		name := fmt.Sprintf("points=%d,n=%d", points, a.Cols)
		b.Run(name+"/Analyze", func(b *testing.B) {
			b.ReportAllocs()
			var s *Symbolic
			for b.Loop() {
				var err error
				if s, err = Analyze(a, Options{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(s.NnzL()), "nnzL")
			b.ReportMetric(float64(s.DenseCount()), "dense")
		})
		for _, m := range []Method{Simplicial, Supernodal} {
			s, err := Analyze(a, Options{Method: m})
			if err != nil {
				b.Fatal(err)
			}
			f, err := s.Factor(a, signs, DefaultRegularization)
			if err != nil {
				b.Fatal(err)
			}
			b.Run(name+"/"+m.String()+"/Refactor", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if err := f.Refactor(a); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(s.FactorFlops()/1e9, "Gflop")
				b.ReportMetric(float64(f.DynamicRegCount()), "dynreg")
			})
			rhs := make([]float64, a.Cols)
			for i := range rhs {
				rhs[i] = float64(i%7) - 3
			}
			x := make([]float64, a.Cols)
			b.Run(name+"/"+m.String()+"/Solve", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					f.Solve(x, rhs)
				}
			})
		}
	}
}

// BenchmarkDenseSupernode refactors a dense positive definite matrix of order
// 1021 (the Schur complement of SDPLIB qap10, one supernode) with the panel
// path (blockUpdate) and column by column.
func BenchmarkDenseSupernode(b *testing.B) {
	rng := rand.New(rand.NewPCG(10, 21))
	k, signs := quasiDefinite(rng, 1021, 0, 4)
	f, err := mustAnalyze(b, k, Options{Ordering: Natural, Method: Supernodal}).Factor(k, signs, DefaultRegularization)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		off  bool
	}{{"panels", false}, {"columns", true}} {
		b.Run(c.name, func(b *testing.B) {
			disableBlocked = c.off
			defer func() { disableBlocked = false }()
			for b.Loop() {
				if err := f.Refactor(k); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSmallKKT measures the operations of one interior-point solve on
// a small quasi-definite KKT matrix (50 primal and 100 dual rows, the order of
// the bench/smallconic LPs at n = 50): the analysis, a refactorization and a
// solve, simplicial (the method kktSupernodalRatio picks at this size).
func BenchmarkSmallKKT(b *testing.B) {
	rng := rand.New(rand.NewPCG(26, 7))
	a, signs := localKKT(rng, 50, 100, 10)
	b.Run("Analyze", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Analyze(a, Options{Method: Simplicial}); err != nil {
				b.Fatal(err)
			}
		}
	})
	s, err := Analyze(a, Options{Method: Simplicial})
	if err != nil {
		b.Fatal(err)
	}
	f, err := s.Factor(a, signs, DefaultRegularization)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("Refactor", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := f.Refactor(a); err != nil {
				b.Fatal(err)
			}
		}
	})
	rhs := make([]float64, a.Cols)
	for i := range rhs {
		rhs[i] = math.Sin(float64(i))
	}
	x := make([]float64, a.Cols)
	b.Run("Solve", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			f.Solve(x, rhs)
		}
	})
}
