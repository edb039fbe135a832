// Command lpoverhead measures the time privopt spends outside HiGHS when it
// solves random sparse LPs built with the model DSL, and its peak memory
// relative to the size of the standard-form data.
//
// For each size (10⁴, 10⁵, 10⁶ nonzeros in the constraint matrix) it builds
//
//	minimize cᵀx  subject to  A x ≤ b,  −1 ≤ x ≤ 1
//
// with A random sparse (10 nonzeros per row, m = n/2 rows), b = A x₀ + s₀
// for a random x₀ in the box and s₀ uniform on [0, slack] (so the LP is
// feasible; the box makes it bounded), and times: build (model variables, expressions and constraints),
// canonicalize (standard form), copy (the HiGHS backend's work outside
// Highs_run: converting the standard form, passing it to HiGHS, reading the
// solution back), HiGHS (inside Highs_run), map back (Canonical.Invert). It
// prints the ratio (build + canonicalize + copy + map back) / HiGHS and the
// peak memory relative to the bytes of the standard-form data (A in CSC form,
// b, q), measured in a separate untimed run: "live+" is the largest live Go
// heap (after a collection at the end of each phase) above the heap holding
// the user's input data, i.e. what privopt keeps; "heap+" is the Go heap
// high-water mark (runtime.MemStats, sampled every 5 ms and at phase ends),
// which also counts garbage not yet collected (GOGC=100 lets the heap grow to
// about twice the live data); "rss" is the process's maximum resident set
// size (getrusage), which includes HiGHS's own copies of the LP, its
// factorization and the Go runtime. Each size runs in its own process
// so that the resident-set maximum is per size.
//
// Usage:
//
//	go run ./bench/lpoverhead [-sizes 1e4,1e5,1e6] [-seed 1] [-slack 1] [-reps 3]
//
// Times are the minimum over -reps repetitions of the whole pipeline (the
// machine may be shared); the heap peak is that of the first repetition, the
// resident-set maximum that of the whole process.
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/privopt/privopt/model"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/highs"
	"github.com/privopt/privopt/sparse"
)

const perRow = 10 // nonzeros per constraint row

var (
	slack float64
	reps  int
)

func main() {
	sizes := flag.String("sizes", "1e4,1e5,1e6", "comma-separated numbers of nonzeros")
	seed := flag.Uint64("seed", 1, "random seed")
	one := flag.Int("one", 0, "run one size in this process (used internally)")
	flag.IntVar(&reps, "reps", 3, "repetitions per size; each phase reports its minimum time")
	flag.Float64Var(&slack, "slack", 1, "row slacks s₀ are uniform on [0, slack]; larger values make fewer rows active and the LP easier for HiGHS")
	flag.Parse()
	if *one > 0 {
		if err := runOne(*one, *seed); err != nil {
			fmt.Fprintln(os.Stderr, "lpoverhead:", err)
			os.Exit(1)
		}
		return
	}
	fmt.Printf("%-9s %8s %8s %9s %9s %9s %9s %9s %9s %7s %8s %9s %9s %8s\n",
		"nnz", "rows", "cols", "build", "canon", "copy", "highs", "mapback", "outside", "ratio", "std MB", "live+/std", "heap+/std", "rss/std")
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "lpoverhead:", err)
		os.Exit(1)
	}
	for _, s := range strings.Split(*sizes, ",") {
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || f < 100 {
			fmt.Fprintf(os.Stderr, "lpoverhead: bad size %q\n", s)
			os.Exit(2)
		}
		cmd := exec.Command(exe, "-one", strconv.Itoa(int(f)), "-seed", strconv.FormatUint(*seed, 10), "-slack", strconv.FormatFloat(slack, 'g', -1, 64), "-reps", strconv.Itoa(reps))
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "lpoverhead:", err)
			os.Exit(1)
		}
	}
}

// heapPeak samples the Go heap every few milliseconds and keeps the maximum.
type heapPeak struct {
	max  atomic.Uint64
	stop chan struct{}
	wg   sync.WaitGroup
}

func startHeapPeak() *heapPeak {
	h := &heapPeak{stop: make(chan struct{})}
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		var ms runtime.MemStats
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > h.max.Load() {
				h.max.Store(ms.HeapAlloc)
			}
			select {
			case <-h.stop:
				return
			case <-t.C:
			}
		}
	}()
	return h
}

func (h *heapPeak) done() uint64 {
	close(h.stop)
	h.wg.Wait()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return max(h.max.Load(), ms.HeapAlloc)
}

func runOne(nnz int, seed uint64) error {
	debug.SetGCPercent(100)
	rng := rand.New(rand.NewPCG(seed, uint64(nnz)))
	m := nnz / perRow
	n := 2 * m
	// Random data, generated before timing (it is the user's input).
	t := sparse.NewTriplets(m, n, nnz)
	for i := 0; i < m; i++ {
		for k := 0; k < perRow; k++ {
			t.Append(i, rng.IntN(n), rng.NormFloat64())
		}
	}
	A := t.ToCSC()
	t = nil
	x0 := make([]float64, n)
	for j := range x0 {
		x0[j] = 2*rng.Float64() - 1
	}
	b := A.MulVecTo(nil, 1, x0, 0)
	for i := range b {
		b[i] += slack * rng.Float64()
	}
	c := make([]float64, n)
	for j := range c {
		c[j] = rng.NormFloat64()
	}
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	peak := startHeapPeak()

	ctx := context.Background()
	// Memory run (not timed): the sampled heap peak, and the live heap after
	// a collection at the end of each phase.
	var liveMax uint64
	_, p, err := pipeline(ctx, A, b, c, n, func() {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		if ms.HeapAlloc > peak.max.Load() {
			peak.max.Store(ms.HeapAlloc)
		}
		runtime.GC()
		runtime.ReadMemStats(&ms)
		liveMax = max(liveMax, ms.HeapAlloc)
	})
	if err != nil {
		return err
	}
	heap := peak.done()
	// Timing runs: the minimum of each phase.
	var best [5]time.Duration // build, canonicalize, copy, HiGHS, map back
	for rep := 0; rep < reps; rep++ {
		p = nil
		runtime.GC() // the previous run's data must not be collected during this one
		ph, prob, err := pipeline(ctx, A, b, c, n, func() {})
		if err != nil {
			return err
		}
		p = prob
		for k := range best {
			if rep == 0 || ph[k] < best[k] {
				best[k] = ph[k]
			}
		}
	}
	tBuild, tCanon, tCopy, tHighs, tMap := best[0], best[1], best[2], best[3], best[4]

	std := 8*(len(p.A.ColPtr)+len(p.A.RowIdx)+len(p.A.Val)) + 8*(len(p.B)+len(p.Q))
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return err
	}
	rss := float64(ru.Maxrss) * 1024 // kilobytes on Linux
	outside := tBuild + tCanon + tCopy + tMap
	fmt.Printf("%-9d %8d %8d %9s %9s %9s %9s %9s %9s %7.3f %8.1f %9.2f %9.2f %8.2f\n",
		p.A.Nnz(), p.NumRows(), p.NumVars(), ms(tBuild), ms(tCanon), ms(tCopy), ms(tHighs), ms(tMap), ms(outside),
		float64(outside)/float64(tHighs), float64(std)/1e6, float64(liveMax-base.HeapAlloc)/float64(std),
		float64(heap-base.HeapAlloc)/float64(std), rss/float64(std))
	return nil
}

// pipeline builds, canonicalizes, solves and maps back the LP once and
// returns the phase times (build, canonicalize, copy, HiGHS, map back).
func pipeline(ctx context.Context, A *sparse.CSC, b, c []float64, n int, after func()) ([5]time.Duration, *solver.Problem, error) {
	var ph [5]time.Duration
	t0 := time.Now()
	mod := model.New("lpoverhead")
	x := mod.Vector("x", n)
	mod.Bound(x, -1, 1)
	mod.LessEq("rows", model.MulSparse(A, x.Expr()), model.Const(b...))
	mod.Minimize(x.Expr().Dot(c))
	if err := mod.Err(); err != nil {
		return ph, nil, err
	}
	ph[0] = time.Since(t0)
	after()

	t1 := time.Now()
	can, err := mod.Canonicalize()
	if err != nil {
		return ph, nil, err
	}
	ph[1] = time.Since(t1)
	after()

	t2 := time.Now()
	sol, err := highs.New().Solve(ctx, can.Problem, solver.Settings{})
	if err != nil {
		return ph, nil, err
	}
	tBackend := time.Since(t2)
	if sol.Status != solver.Optimal {
		return ph, nil, fmt.Errorf("nnz %d: status %v", A.Nnz(), sol.Status)
	}
	ph[3] = sol.SolveTime
	ph[2] = tBackend - sol.SolveTime
	after()

	t3 := time.Now()
	res, err := can.Invert(sol)
	if err != nil {
		return ph, nil, err
	}
	ph[4] = time.Since(t3)
	after()
	if !res.Status.OK() {
		return ph, nil, fmt.Errorf("nnz %d: result status %v", A.Nnz(), res.Status)
	}
	return ph, can.Problem, nil
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1fms", float64(d)/1e6) }
