// Command lift measures the cost of program perturbation's lifting and
// chance-constraint reformulation against the solve time of the same LP, on
// random covering LPs
//
//	minimize cᵀx  subject to  A x ≥ d,  x ≥ 0,   A ≥ 0 banded (5 entries per row),
//
// with a private weighted-sum query cᵀx (the total cost, k = 1, Laplace noise)
// and the vertex method (η = 1%, β = 10%). It prints, for each size, the time of
// the deterministic HiGHS solve, of lindecision.Lift, of chance.Reformulate and
// of the counterpart's solve, and the ratio (lift + reformulate) / solve, all
// measured in the same run.
//
// Usage: go run ./bench/lift [-rows 100000] [-reps 3] [-counterpart=false] [-method ipm]
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"time"

	"github.com/privopt/privopt/chance"
	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/lindecision"
	"github.com/privopt/privopt/noise"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/highs"
	"github.com/privopt/privopt/sparse"
)

// coveringLP returns a banded covering LP with m covering rows and n = m
// columns: row i covers columns i, i+1, …, i+4 (mod n).
func coveringLP(m int, seed uint64) *solver.Problem {
	n := m
	rng := rand.New(rand.NewPCG(seed, 1))
	tr := sparse.NewTriplets(m+n, n, 5*m+n)
	b := make([]float64, m+n)
	for i := 0; i < m; i++ {
		for t := 0; t < 5; t++ {
			tr.Append(i, (i+t)%n, -(0.5 + rng.Float64())) // −a_iᵀx + s = −d_i
		}
		b[i] = -(1 + rng.Float64())
	}
	for j := 0; j < n; j++ {
		tr.Append(m+j, j, -1) // −x_j + s = 0
	}
	c := make([]float64, n)
	for j := range c {
		c[j] = 1 + rng.Float64()
	}
	return &solver.Problem{Q: c, A: tr.ToCSC(), B: b, Cones: []cone.Cone{cone.NewNonnegative(m + n)}}
}

func main() {
	rows := flag.Int("rows", 100000, "covering rows of the largest LP")
	reps := flag.Int("reps", 3, "repetitions of lift+reformulate (the minimum is reported)")
	solveCounterpart := flag.Bool("counterpart", true, "also solve the counterpart")
	method := flag.String("method", "", "HiGHS method for the counterpart: \"\" (choose), simplex, ipm or pdlp")
	flag.Parse()
	ctx := context.Background()
	fmt.Printf("%8s %8s %12s %10s %12s %10s %14s %s\n", "rows", "cols", "solve", "lift", "reformulate", "ratio", "counterpart", "status")
	for _, m := range []int{*rows / 10, *rows} {
		p := coveringLP(m, 1)
		t0 := time.Now()
		sol, err := highs.New().Solve(ctx, p, solver.Settings{})
		if err != nil || !sol.Status.OK() {
			fmt.Fprintln(os.Stderr, "deterministic solve:", err, sol)
			os.Exit(1)
		}
		solveTime := time.Since(t0)
		cols := make([]int, p.NumVars())
		for j := range cols {
			cols[j] = j
		}
		lap, _ := noise.NewLaplace(1)
		var lift, ref time.Duration = 1 << 62, 1 << 62
		var cp *chance.Counterpart
		for r := 0; r < *reps; r++ {
			t1 := time.Now()
			l, err := lindecision.Lift(p, lindecision.Spec{
				Noise: lindecision.Perturbation{Components: []lindecision.Distribution{lap}},
				Query: []lindecision.SparseVector{{Idx: cols, Val: p.Q}},
			})
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			t2 := time.Now()
			cp, err = chance.Reformulate(l, chance.Spec{Approximation: chance.Approximation{Method: chance.Vertex, Eta: 0.01, Beta: 0.1}, Rand: rand.New(rand.NewPCG(2, 2))})
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			t3 := time.Now()
			lift, ref = min(lift, t2.Sub(t1)), min(ref, t3.Sub(t2))
		}
		status, cpTime := "-", time.Duration(0)
		if *solveCounterpart {
			t4 := time.Now()
			hs, err := highs.NewWithOptions(highs.Options{Method: *method})
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(2)
			}
			res, err := chance.Solve(ctx, cp, hs, solver.Settings{})
			cpTime = time.Since(t4)
			status = "optimal"
			if err != nil {
				status = err.Error()
			} else if res.Solution.Status != solver.Optimal {
				status = res.Solution.Status.String()
			}
		}
		fmt.Printf("%8d %8d %12v %10v %12v %9.1f%% %14v %s\n", m, p.NumVars(), solveTime.Round(time.Millisecond), lift.Round(time.Microsecond), ref.Round(time.Microsecond),
			100*float64(lift+ref)/float64(solveTime), cpTime.Round(time.Millisecond), status)
	}
}
