// Command ipmvscvxopt compares privopt's interior-point solver (solver/ipm) with
// CVXOPT side by side, in one run, on the same generated instances and at the
// same accuracy (relative gap and feasibility 1e-8 for both).
//
// Instances (seeded, so every run sees the same data):
//
//   - SOCP: n variables, n/10 second-order cones of dimension 11 whose rows each
//     touch 3 variables in a window of 20, and n bound rows (one nonzero each);
//   - SDP: one 50×50 PSD block (1275 svec rows) with dense random coefficient
//     matrices for n variables, plus 10 nonnegative rows.
//
// Each instance is made primal and dual strictly feasible (b = A x₀ + s₀ with
// s₀ ∈ int K, q = −Aᵀy₀ with y₀ ∈ int K*), so both solvers must report optimal.
// The program writes each instance as JSON to a temporary directory, solves it
// with ipm in-process, and runs cvxopt_solve.py (next to this file) under
// Debian's python3-cvxopt to solve the same data with solvers.conelp
// (abstol = reltol = feastol = 1e-8, KKT solver -kkt, default "chol", which is
// CVXOPT's fastest here; its dense KKT systems make large SOCPs slow: on the
// development machine about an hour per SOCP with 10⁴ variables). Times are wall-clock
// times of the solve calls only (CVXOPT's matrices are built before its timer
// starts; ipm's time includes its own presolve, scaling and factorization setup),
// and the CPU times of the same calls (process CPU time, all threads), which are
// the fairer measure on a loaded machine.
// It prints per-instance times and iterations and the median time ratio
// ipm/CVXOPT per family.
//
// Usage:
//
//	go run ./bench/ipmvscvxopt [-quick] [-python /usr/bin/python3] [-families socp,sdp]
//	    [-socp 10000,15000,20000] [-sdp 50,100,200] [-kkt chol] [-blas-threads 1]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/privopt/privopt/bench/internal/conepoint"
	"github.com/privopt/privopt/bench/internal/cvxoptjson"
	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/ipm"
	"github.com/privopt/privopt/sparse"
)

// instance is a named standard-form problem.
type instance struct {
	name, family string
	p            *solver.Problem
}

func main() {
	quick := flag.Bool("quick", false, "smaller instances (a smoke test, not the acceptance sizes)")
	python := flag.String("python", "/usr/bin/python3", "Python interpreter with cvxopt")
	families := flag.String("families", "socp,sdp", "comma-separated families to run")
	timeout := flag.Duration("timeout", 30*time.Minute, "time limit per solve")
	keep := flag.String("keep", "", "write the instances' JSON files into this directory and keep them")
	socpSizes := flag.String("socp", "10000,15000,20000", "comma-separated SOCP variable counts")
	sdpVars := flag.String("sdp", "50,100,200", "comma-separated variable counts of the 50×50 SDPs")
	kkt := flag.String("kkt", "chol", "CVXOPT KKT solver (chol is its fastest for these cones; qr is its default without equality constraints)")
	blasThreads := flag.Int("blas-threads", 1, "OPENBLAS_NUM_THREADS for CVXOPT (ipm is single-threaded)")
	flag.Parse()

	var insts []instance
	for _, fam := range strings.Split(*families, ",") {
		switch fam {
		case "socp":
			sizes := parseInts(*socpSizes)
			if *quick {
				sizes = []int{1000, 2000}
			}
			for _, n := range sizes { // the seed depends on the size only
				insts = append(insts, instance{fmt.Sprintf("socp_n%d", n), "socp", socpInstance(n, uint64(n))})
			}
		case "sdp":
			vars := parseInts(*sdpVars)
			order := 50
			if *quick {
				vars, order = []int{20, 40}, 20
			}
			for _, n := range vars {
				insts = append(insts, instance{fmt.Sprintf("sdp%d_n%d", order, n), "sdp", sdpInstance(order, n, uint64(1000*order+n))})
			}
		default:
			fmt.Fprintf(os.Stderr, "ipmvscvxopt: unknown family %q (want socp or sdp)\n", fam)
			os.Exit(2)
		}
	}

	dir := *keep
	if dir == "" {
		tmp, err := os.MkdirTemp("", "ipmvscvxopt")
		if err != nil {
			fatal(err)
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		fatal(err)
	}
	var files []string
	for _, in := range insts {
		f := filepath.Join(dir, in.name+".json")
		if err := cvxoptjson.Write(f, in.name, in.p); err != nil {
			fatal(err)
		}
		files = append(files, f)
	}

	fmt.Printf("ipm vs CVXOPT, accuracy 1e-8 (ipm FeasTol = GapTol = 1e-8; CVXOPT abstol = reltol = feastol = 1e-8, kktsolver %q, %d BLAS thread(s))\n", *kkt, *blasThreads)
	fmt.Printf("GOMAXPROCS=%d\n\n", runtime.GOMAXPROCS(0))

	// CVXOPT first (one Python process for all instances).
	py := map[string]cvxoptjson.Result{}
	havePy := true
	if *python == "" {
		havePy = false
		fmt.Printf("CVXOPT skipped (-python \"\")\n\n")
	} else if _, err := os.Stat(*python); err != nil {
		havePy = false
		fmt.Printf("CVXOPT is missing: %s not found (install Debian's python3-cvxopt); reporting ipm only\n\n", *python)
	} else {
		script := cvxoptjson.ScriptPath()
		cmd := exec.Command(*python, append([]string{script, "--kkt", *kkt}, files...)...)
		cmd.Env = append(os.Environ(), fmt.Sprintf("OPENBLAS_NUM_THREADS=%d", *blasThreads), fmt.Sprintf("OMP_NUM_THREADS=%d", *blasThreads))
		cmd.Stderr = os.Stderr
		out, err := cmd.Output()
		if err != nil {
			havePy = false
			fmt.Printf("CVXOPT is missing or failed (%v); reporting ipm only\n\n", err)
		}
		for _, line := range strings.Split(string(out), "\n") {
			if strings.TrimSpace(line) == "" {
				continue
			}
			var r cvxoptjson.Result
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				fatal(fmt.Errorf("cvxopt_solve.py output %q: %v", line, err))
			}
			py[r.Name] = r
		}
	}

	fmt.Printf("%-14s %7s %7s %9s | %-10s %5s %9s %9s %17s | %-10s %5s %9s %9s %17s | %8s %8s %9s\n",
		"instance", "n", "m", "nnz(A)", "ipm", "iter", "wall[s]", "cpu[s]", "objective", "cvxopt", "iter", "wall[s]", "cpu[s]", "objective", "ratio", "cpuratio", "rel.diff")
	ratios := map[string][]float64{}
	cpuRatios := map[string][]float64{}
	for _, in := range insts {
		ctx, cancel := context.WithTimeout(context.Background(), *timeout)
		cpu0 := cpuSeconds()
		start := time.Now()
		sol, err := ipm.New().Solve(ctx, in.p, solver.Settings{TimeLimit: *timeout})
		el := time.Since(start).Seconds()
		cpu := cpuSeconds() - cpu0
		cancel()
		status, iters, obj := "error", 0, math.NaN()
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: ipm: %v\n", in.name, err)
		} else {
			status, iters, obj = sol.Status.String(), sol.Iterations, sol.Objective
		}
		fmt.Printf("%-14s %7d %7d %9d | %-10s %5d %9.3f %9.3f %17.10g", in.name, in.p.NumVars(), in.p.NumRows(), in.p.A.Nnz(), status, iters, el, cpu, obj)
		r, ok := py[in.name]
		if !havePy || !ok {
			fmt.Printf(" | %-10s\n", "n/a")
			continue
		}
		if r.Error != "" {
			fmt.Printf(" | error: %s\n", r.Error)
			continue
		}
		ratio, cpuRatio := el/r.Time, cpu/r.CPU
		diff := math.Abs(obj-r.Objective) / math.Max(1, math.Abs(r.Objective))
		fmt.Printf(" | %-10s %5d %9.3f %9.3f %17.10g | %8.4f %8.4f %9.2g\n", r.Status, r.Iterations, r.Time, r.CPU, r.Objective, ratio, cpuRatio, diff)
		if status == "optimal" && r.Status == "optimal" {
			ratios[in.family] = append(ratios[in.family], ratio)
			cpuRatios[in.family] = append(cpuRatios[in.family], cpuRatio)
		}
	}
	fmt.Println()
	for _, fam := range strings.Split(*families, ",") {
		if rs := ratios[fam]; len(rs) > 0 {
			fmt.Printf("median time ratio ipm/CVXOPT on %s: wall %.4f, cpu %.4f over %d instances (both optimal)\n",
				fam, median(rs), median(cpuRatios[fam]), len(rs))
		}
	}
}

// cpuSeconds returns the process's user + system CPU time (all threads).
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return math.NaN()
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

func parseInts(s string) []int {
	var out []int
	for _, f := range strings.Split(s, ",") {
		var v int
		if _, err := fmt.Sscan(strings.TrimSpace(f), &v); err != nil || v <= 0 {
			fatal(fmt.Errorf("bad size %q in %q", f, s))
		}
		out = append(out, v)
	}
	return out
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "ipmvscvxopt:", err)
	os.Exit(1)
}

func median(x []float64) float64 {
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// finish sets b = A x₀ + s₀ and q = −Aᵀy₀ for random x₀, s₀ ∈ int K, y₀ ∈ int K*.
func finish(rng *rand.Rand, a *sparse.CSC, cones []cone.Cone) *solver.Problem {
	n := a.Cols
	x0 := make([]float64, n)
	for i := range x0 {
		x0[i] = rng.NormFloat64()
	}
	var s0, y0 []float64
	for _, c := range cones {
		s0 = append(s0, conepoint.Interior(rng, c, false)...)
		y0 = append(y0, conepoint.Interior(rng, c, true)...)
	}
	b := a.MulVecTo(s0, 1, x0, 1)
	q := a.MulTransVecTo(nil, -1, y0, 0)
	return &solver.Problem{Q: q, A: a, B: b, Cones: cones}
}

// socpInstance builds the SOCP family described in the package comment.
func socpInstance(n int, seed uint64) *solver.Problem {
	rng := rand.New(rand.NewPCG(seed, 1))
	const d = 11
	k := n / 10
	var cones []cone.Cone
	tr := sparse.NewTriplets(k*d+n, n, 3*k*d+n)
	row := 0
	for c := 0; c < k; c++ {
		start := 10*c - 5
		for r := 0; r < d; r++ {
			seen := map[int]bool{}
			for e := 0; e < 3; e++ {
				j := ((start+rng.IntN(20))%n + n) % n
				if seen[j] {
					continue
				}
				seen[j] = true
				tr.Append(row, j, rng.NormFloat64())
			}
			row++
		}
		cones = append(cones, cone.NewSecondOrder(d))
	}
	for j := 0; j < n; j++ { // bound rows s = b − x·(±1)
		sign := 1.0
		if rng.IntN(2) == 0 {
			sign = -1
		}
		tr.Append(row, j, sign)
		row++
	}
	cones = append(cones, cone.NewNonnegative(n))
	return finish(rng, tr.ToCSC(), cones)
}

// sdpInstance builds the SDP family: 10 nonnegative rows (each touching 5
// variables), then one PSD block of the given order with dense coefficients.
func sdpInstance(order, n int, seed uint64) *solver.Problem {
	rng := rand.New(rand.NewPCG(seed, 2))
	dim := order * (order + 1) / 2
	const lin = 10
	tr := sparse.NewTriplets(lin+dim, n, 5*lin+dim*n)
	for r := 0; r < lin; r++ {
		for e := 0; e < 5; e++ {
			tr.Append(r, rng.IntN(n), rng.NormFloat64())
		}
	}
	for j := 0; j < n; j++ {
		for r := 0; r < dim; r++ {
			tr.Append(lin+r, j, rng.NormFloat64())
		}
	}
	cones := []cone.Cone{cone.NewNonnegative(lin), cone.NewPSD(order)}
	return finish(rng, tr.ToCSC(), cones)
}
