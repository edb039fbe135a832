// Command lpconcurrent times the default route (solver/auto, whose LPs of at
// least auto.ConcurrentNnz nonzeros run HiGHS's simplex and the IPM side by
// side) against each backend alone on random sparse LPs
//
//	minimize qᵀx  subject to  Ax ≤ b   (x free)
//
// with A m×n holding nnz N(0, 1) entries at uniformly random positions (at
// least one per row and column), b = Ax₀ + s₀ for x₀ uniform on [−1, 1]ⁿ and
// s₀ uniform on [0, 1]ᵐ, and q = −Aᵀy₀ for y₀ uniform on [0, 1] on a random
// half of the rows and 0 elsewhere: primal and dual feasible, so optimal.
//
//	go run ./bench/lpconcurrent [-m 6000] [-n 5000] [-nnz 53000] [-seed 1]
//	    [-backends auto,ipm,highs,highs-ipm] [-time-limit 900s] [-cancel-after 30s]
//
// Each solve reports wall and process CPU time (user + system, all threads),
// status, objective, the process's peak resident set so far (getrusage's
// maxrss; run one backend per invocation to read it per backend) and, for
// auto, which backend won the race. With -cancel-after the solve's context is
// cancelled after that long and the time the backend took to return after
// the cancellation is printed.
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/privopt/privopt/bench/internal/cputime"
	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
	_ "github.com/privopt/privopt/solver/auto" // registers auto, highs and ipm for solver.ByName
	"github.com/privopt/privopt/solver/highs"
	"github.com/privopt/privopt/sparse"
)

func main() {
	m := flag.Int("m", 6000, "rows")
	n := flag.Int("n", 5000, "columns")
	nnz := flag.Int("nnz", 53000, "nonzeros of A")
	seed := flag.Uint64("seed", 1, "random seed")
	backends := flag.String("backends", "auto,ipm,highs,highs-ipm", "comma-separated: auto, ipm, highs (its default, dual simplex), highs-ipm (HiGHS's IPM)")
	limit := flag.Duration("time-limit", 900*time.Second, "time limit per solve")
	logIt := flag.Bool("log", false, "write the backends' iteration logs to standard error")
	cancelAfter := flag.Duration("cancel-after", 0, "cancel each solve's context after this long and report how long the backend took to return (0: never)")
	flag.Parse()
	p := randomLP(*m, *n, *nnz, *seed)
	fmt.Printf("random sparse LP %d × %d, %d nonzeros (seed %d), time limit %v\n", *m, *n, p.A.Nnz(), *seed, *limit)
	for _, name := range strings.Split(*backends, ",") {
		var b solver.Solver
		var err error
		if name == "highs-ipm" {
			b, err = highs.NewWithOptions(highs.Options{Method: "ipm"})
		} else {
			b, err = solver.ByName(name)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "lpconcurrent:", err)
			os.Exit(2)
		}
		cpu0 := cputime.Process()
		t0 := time.Now()
		set := solver.Settings{TimeLimit: *limit}
		if *logIt {
			set.Log = os.Stderr
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancelledAt := make(chan time.Time, 1)
		if *cancelAfter > 0 {
			timer := time.AfterFunc(*cancelAfter, func() { cancelledAt <- time.Now(); cancel() })
			defer timer.Stop()
		}
		sol, err := b.Solve(ctx, p, set)
		wall, cpu := time.Since(t0), cputime.Process()-cpu0
		select {
		case at := <-cancelledAt:
			fmt.Printf("%-10s returned %v after the cancellation\n", name, time.Since(at).Round(time.Millisecond))
		default:
		}
		cancel()
		if err != nil {
			fmt.Printf("%-10s error: %v\n", name, err)
			continue
		}
		fmt.Printf("%-10s %-15v obj %-16.10g wall %8.2fs  CPU %8.2fs  peak RSS %6.0f MB  answered by %s\n", name, sol.Status, sol.Objective, wall.Seconds(), cpu.Seconds(), peakRSSMB(), sol.Solver)
		if name == "auto" {
			fmt.Printf("           %s\n", sol.Diagnostic)
		}
	}
}

// peakRSSMB is the process's peak resident set size in MB (Linux reports
// ru_maxrss in KiB).
func peakRSSMB() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Maxrss) / 1024
}

func randomLP(m, n, nnz int, seed uint64) *solver.Problem {
	rng := rand.New(rand.NewPCG(seed, 6000))
	type key struct{ i, j int }
	seen := make(map[key]bool, nnz)
	t := sparse.NewTriplets(m, n, nnz+m+n)
	add := func(i, j int) {
		if !seen[key{i, j}] {
			seen[key{i, j}] = true
			t.Append(i, j, rng.NormFloat64())
		}
	}
	for i := 0; i < m; i++ {
		add(i, rng.IntN(n))
	}
	for j := 0; j < n; j++ {
		add(rng.IntN(m), j)
	}
	for len(seen) < nnz {
		add(rng.IntN(m), rng.IntN(n))
	}
	A := t.ToCSC()
	x0 := make([]float64, n)
	for j := range x0 {
		x0[j] = 2*rng.Float64() - 1
	}
	b := A.MulVecTo(nil, 1, x0, 0)
	y0 := make([]float64, m)
	for i := range b {
		b[i] += rng.Float64()
		if rng.IntN(2) == 0 {
			y0[i] = rng.Float64()
		}
	}
	q := A.MulTransVecTo(nil, -1, y0, 0)
	return &solver.Problem{Q: q, A: A, B: b, Cones: []cone.Cone{cone.NewNonnegative(m)}}
}
