// Command structsocp generates banded, structured second-order cone programs
// of the shape of issue 14's slow case (20,000 variables, 2,500 second-order
// cones, 1,000 rotated second-order cones, about 58,000 nonzeros) and solves
// them with privopt's interior-point method (solver/ipm), printing the wall
// time, the iterations and the re-check of the answer on the generated data
// (solver.Certify: relative residuals, gap, cone distances).
//
// For n variables (n a multiple of 40) the instance is, in the standard form
// Ax + s = b, s ∈ K:
//
//   - n/10 equality rows (zero cone), row i touching the 6 consecutive
//     variables 10i … 10i+5;
//   - n/8 second-order cones of dimension 4, cone k's rows each touching 2
//     variables of the window 8k … 8k+7;
//   - n/20 rotated second-order cones of dimension 3, cone k's rows each
//     touching 2 variables of the window 20k … 20k+19;
//   - n bound rows s_j = b_j ∓ x_j (nonnegative cone, one nonzero each).
//
// The data are random (seeded) and made primal and dual strictly feasible —
// b = Ax₀ + s₀ with s₀ in the interior of K (s₀ = 0 on the equality rows),
// q = −Aᵀy₀ with y₀ in the interior of K* (free on the equality rows) — so the
// optimum is attained and every correct solver reports optimal.
//
// Usage:
//
//	go run ./bench/structsocp [-n 20000] [-seed 1] [-reps 1] [-threads 0]
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"time"

	"github.com/privopt/privopt/bench/internal/conepoint"
	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/ipm"
	"github.com/privopt/privopt/sparse"
)

func main() {
	n := flag.Int("n", 20000, "number of variables (a multiple of 40)")
	seed := flag.Uint64("seed", 1, "random seed")
	reps := flag.Int("reps", 1, "solves of the same instance")
	threads := flag.Int("threads", 0, "solver threads (0: GOMAXPROCS)")
	flag.Parse()
	p, _, _, err := structured(*n, *seed)
	if err != nil {
		fmt.Fprintln(os.Stderr, "structsocp:", err)
		os.Exit(2)
	}
	fmt.Printf("structured SOCP: %d variables, %d rows, %d nonzeros, %d cones\n", p.NumVars(), p.NumRows(), p.A.Nnz(), len(p.Cones))
	for r := 0; r < *reps; r++ {
		start := time.Now()
		sol, err := ipm.New().Solve(context.Background(), p, solver.Settings{Threads: *threads})
		el := time.Since(start)
		if err != nil {
			fmt.Fprintln(os.Stderr, "structsocp:", err)
			os.Exit(1)
		}
		acc, err := solver.Measure(p, sol.X, sol.S, sol.Y)
		if err != nil {
			fmt.Fprintln(os.Stderr, "structsocp:", err)
			os.Exit(1)
		}
		fmt.Printf("ipm: %v, objective %.10g, %d iterations, %.2f s wall; re-check: %v\n", sol.Status, sol.Objective, sol.Iterations, el.Seconds(), acc)
	}
}

// structured returns the instance described in the package comment and the
// strictly feasible points of its construction: x0 (primal) and y0 (dual), so
// that −bᵀy0 ≤ optimum ≤ qᵀx0 by weak duality.
func structured(n int, seed uint64) (p *solver.Problem, x0, y0 []float64, err error) {
	if n < 40 || n%40 != 0 {
		return nil, nil, nil, fmt.Errorf("structsocp: n is %d, must be a positive multiple of 40", n)
	}
	rng := rand.New(rand.NewPCG(seed, 14))
	neq, nsoc, nrot := n/10, n/8, n/20
	rows := neq + 4*nsoc + 3*nrot + n
	tr := sparse.NewTriplets(rows, n, 6*neq+8*nsoc+6*nrot+n)
	row := 0
	for i := 0; i < neq; i++ {
		for j := 10 * i; j < 10*i+6; j++ {
			tr.Append(row, j, rng.NormFloat64())
		}
		row++
	}
	for k := 0; k < nsoc; k++ {
		for r := 0; r < 4; r++ {
			tr.Append(row, 8*k+r, rng.NormFloat64())
			tr.Append(row, 8*k+4+r, rng.NormFloat64())
			row++
		}
	}
	for k := 0; k < nrot; k++ {
		for r := 0; r < 3; r++ {
			tr.Append(row, 20*k+2*r, rng.NormFloat64())
			tr.Append(row, 20*k+2*r+7, rng.NormFloat64())
			row++
		}
	}
	for j := 0; j < n; j++ {
		sign := 1.0
		if rng.IntN(2) == 0 {
			sign = -1
		}
		tr.Append(row, j, sign)
		row++
	}
	cones := []cone.Cone{cone.NewZero(neq)}
	for k := 0; k < nsoc; k++ {
		cones = append(cones, cone.NewSecondOrder(4))
	}
	for k := 0; k < nrot; k++ {
		cones = append(cones, cone.NewRotatedSecondOrder(3))
	}
	cones = append(cones, cone.NewNonnegative(n))
	a := tr.ToCSC()
	x0 = make([]float64, n)
	for i := range x0 {
		x0[i] = rng.NormFloat64()
	}
	var s0 []float64
	for _, c := range cones {
		s0 = append(s0, conepoint.Interior(rng, c, false)...)
		y0 = append(y0, conepoint.Interior(rng, c, true)...)
	}
	b := a.MulVecTo(s0, 1, x0, 1)
	q := a.MulTransVecTo(nil, -1, y0, 0)
	return &solver.Problem{Q: q, A: a, B: b, Cones: cones}, x0, y0, nil
}
