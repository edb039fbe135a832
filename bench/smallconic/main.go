// Command smallconic measures the per-solve cost of privopt on many small
// problems (10–200 variables), the models that learning and the hourly
// releases solve thousands of times, against HiGHS and CVXOPT.
//
// Families (seeded; every lp, qp and socp instance has a planted strictly
// feasible primal–dual pair, so every solver must report optimal; lpinf and
// lpunb have a planted certificate of the status every solver must report):
//
//   - lp:   minimize qᵀx s.t. Ax ≤ b, x free; A has m = 2n rows with 3
//     N(0, 1) entries each (and every column at least one), b = Ax₀ + s₀ with
//     s₀ uniform on [0.5, 2], q = −Aᵀy₀ with y₀ uniform on [0.5, 2];
//   - qp:   the same rows with ½xᵀPx, P = D + BBᵀ (D diagonal uniform on
//     [0.1, 1], B n×2 standard normal), q standard normal;
//   - socp: n/5 second-order cones of dimension 6 whose five lower rows each
//     touch 2 random variables (the head row t ≥ ‖·‖ has constant b = 0,
//     A = 0 except a free epigraph variable), plus 2n nonnegative rows as in
//     lp; b and q planted through conepoint.Interior;
//   - lpinf: 2n − 1 feasible rows as in lp plus one row −Σ y′ᵢaᵢ over a
//     random half of them with b_m = −Σ y′ᵢbᵢ − 1 (a planted Farkas
//     certificate: infeasible);
//   - lpunb, socpunb: the lp (socp) rows turned so that −Ad ∈ K for a
//     random d, feasible b, and q·d = −1 (a planted improving ray:
//     unbounded);
//   - exp: box-constrained logistic regression (two exponential cones per
//     sample; expsdp.go's logistic), entropy: maximum entropy on the
//     simplex under moment bounds (one exponential cone per probability;
//     entropy), sdp: max-cut relaxations in LMI form, PSD blocks of order
//     3–20 (maxCutLMI), sdpx: their duals over the matrices (maxCutPrimal;
//     n is the sum of the block orders, so an instance has about n·r/2
//     variables) — each with an attained optimum by construction.
//
// Backends per instance: ipm (solver/ipm alone), auto (the default route,
// with its re-check and fallback), highs (lp and qp only) and, with
// /usr/bin/python3 and python3-cvxopt present, CVXOPT's conelp/coneqp
// (bench/ipmvscvxopt/cvxopt_solve.py) at the same tolerances (1e-8), and
// with -ecos the ECOS driver built by scripts/build-ecos.sh
// (scripts/peers/ecos_solve.c: ECOS 2.0.10 from source, QPs as SOCPs
// through the epigraph of ½‖Lᵀx‖², tolerances 1e-8, the timer around
// setup + solve + cleanup), and with -clarabel the Clarabel driver built by
// scripts/build-clarabel.sh (scripts/peers/clarabel_solve.rs: Clarabel 0.11.1
// from source, the problem in its own form, default tolerances 1e-8, the
// timer around DefaultSolver::new + solve). Each
// privopt/HiGHS solve is repeated -reps times (the backends interleaved)
// and the fastest wall time kept; CVXOPT likewise (--reps), timing the solver call only (its matrices
// are built before the timer; privopt's time includes its presolve, scaling
// and the re-check). It prints per family and size the median solve time of
// every backend and the medians of the per-instance ratios, and the
// per-solve overhead of the default route over the IPM alone (auto − ipm).
//
// Two variants of the default route take part when named in -backends:
// auto-highs (every LP starts with HiGHS, the route before round 9:
// auto.Solver.SmallLPNnz = −1) and auto-ipm (every LP starts with the IPM);
// with auto-highs the table adds auto's paired ratio to it. -grid adds the
// DC-OPF LPs of PGLib cases (crossover.go: linear costs in B-θ and PTDF,
// piecewise-linear costs in PTDF, built by package grid), and -crossover
// prints both variants' times per LP with the sizes of A and the slowdown
// of the rule "IPM first when nnz(A) ≤ T" (or rows + columns ≤ T) per
// group, the measurement behind auto.DefaultSmallLPNnz.
//
// With -allocs it also prints the median heap allocations (count and bytes,
// from runtime.MemStats around one extra solve per instance) per backend,
// family and size; -memprofile writes an allocation profile that records
// every allocation of the run.
//
//	go run ./bench/smallconic [-sizes 10,20,50,100,200] [-per 10] [-reps 5] [-ecos ecos_solve] [-clarabel clarabel_solve]
//	    [-families lp,qp,socp] [-python /usr/bin/python3] [-seed 1] [-objtol 1e-5] [-ipm-refine 0] [-allocs] [-memprofile FILE] [-cpuprofile FILE]
//	    [-backends ipm,auto,highs,auto-highs,auto-ipm] [-grid 5_pjm,14_ieee] [-crossover]
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
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/privopt/privopt/bench/internal/conepoint"
	"github.com/privopt/privopt/bench/internal/cvxoptjson"
	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/internal/solvertest"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/auto"
	"github.com/privopt/privopt/solver/highs"
	"github.com/privopt/privopt/solver/ipm"
	"github.com/privopt/privopt/sparse"
)

type instance struct {
	name, family string
	n            int
	p            *solver.Problem
	want         string // the planted status: optimal, infeasible or unbounded
}

// wantStatus is the status planted in family f's instances.
func wantStatus(f string) string {
	switch f {
	case "lpinf":
		return "infeasible"
	case "lpunb", "socpunb":
		return "unbounded"
	}
	return "optimal"
}

// result is one backend's fastest solve of one instance.
type result struct {
	seconds float64
	status  string
	obj     float64
	iters   int
}

func main() {
	sizes := flag.String("sizes", "10,20,50,100,200", "comma-separated numbers of variables")
	per := flag.Int("per", 10, "instances per family and size")
	reps := flag.Int("reps", 5, "solves per instance and backend (the fastest is kept)")
	families := flag.String("families", "lp,qp,socp", "comma-separated: lp, qp, socp, lpinf (infeasible), lpunb, socpunb (unbounded), exp, entropy (exponential cones), sdp (PSD blocks, LMI form), sdpx (the same in the matrices' form)")
	python := flag.String("python", "/usr/bin/python3", "python with cvxopt (skipped with a message when absent)")
	ecos := flag.String("ecos", "", "the ECOS driver built by scripts/build-ecos.sh (skipped with a message when empty)")
	clarabel := flag.String("clarabel", "", "the Clarabel driver built by scripts/build-clarabel.sh (skipped with a message when empty)")
	seed := flag.Uint64("seed", 1, "random seed")
	verbose := flag.Bool("v", false, "print every solve")
	only := flag.String("backends", "ipm,auto,highs", "comma-separated privopt-side backends to run: ipm, auto, highs, auto-highs (the default route with every LP HiGHS first, as before round 9), auto-ipm (every LP IPM first)")
	gridCases := flag.String("grid", "", "comma-separated PGLib cases (e.g. 5_pjm,14_ieee) whose DC-OPF LPs join the instances: families dcopf-lin-btheta, dcopf-lin-ptdf (linear costs) and dcopf-pwl-ptdf (4-segment piecewise-linear costs), n = buses")
	cross := flag.Bool("crossover", false, "print the per-instance times of auto-highs and auto-ipm with the sizes of A and the best nonzero threshold for starting LPs with the IPM (needs -backends with both)")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the privopt-side solves to this file")
	memProfile := flag.String("memprofile", "", "write an allocation profile (every allocation) of the privopt-side solves to this file")
	refine := flag.Int("ipm-refine", 0, "the ipm backend's iterative-refinement steps per KKT solve (ipm.Settings.RefineSteps; 0: its default, -1: refinement off); the auto backend keeps its defaults")
	objTol := flag.Float64("objtol", 1e-5, "relative tolerance (to max(1, |objective|)) above which two optimal objectives count as a disagreement")
	allocs := flag.Bool("allocs", false, "print the median heap allocations (count and bytes) of one solve per backend, family and size")
	flag.Parse()
	if *memProfile != "" {
		runtime.MemProfileRate = 1 // every allocation, so that small solves are counted exactly
	}

	var ns []int
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 10 {
			fmt.Fprintf(os.Stderr, "smallconic: -sizes entry %q, must be an integer ≥ 10\n", s)
			os.Exit(2)
		}
		ns = append(ns, n)
	}
	rng := rand.New(rand.NewPCG(*seed, 26))
	var insts []instance
	for _, f := range strings.Split(*families, ",") {
		for _, n := range ns {
			for k := 0; k < *per; k++ {
				p, err := generate(rng, f, n)
				if err != nil {
					fmt.Fprintln(os.Stderr, "smallconic:", err)
					os.Exit(2)
				}
				insts = append(insts, instance{name: fmt.Sprintf("%s_n%d_%d", f, n, k), family: f, n: n, p: p, want: wantStatus(f)})
			}
		}
	}

	ipmSet := ipm.Settings{RefineSteps: max(0, *refine), DisableRefinement: *refine < 0}
	ipmSolver, err := ipm.NewWithSettings(ipmSet)
	if err != nil {
		fmt.Fprintln(os.Stderr, "smallconic: -ipm-refine:", err)
		os.Exit(2)
	}

	if *gridCases != "" {
		g, err := gridInstances(strings.Split(*gridCases, ","))
		if err != nil {
			fmt.Fprintln(os.Stderr, "smallconic:", err)
			os.Exit(2)
		}
		insts = append(insts, g...)
	}

	backends := []struct {
		name string
		s    solver.Solver
		lpqp bool // only LPs and QPs
	}{{"ipm", ipmSolver, false}, {"auto", auto.New(), false}, {"highs", highs.New(), true},
		{"auto-highs", lpFirst(-1), false}, {"auto-ipm", lpFirst(math.MaxInt), false}}
	keep := map[string]bool{}
	for _, b := range strings.Split(*only, ",") {
		keep[strings.TrimSpace(b)] = true
	}
	for i := 0; i < len(backends); i++ {
		if !keep[backends[i].name] {
			backends = append(backends[:i], backends[i+1:]...)
			i--
		}
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "smallconic:", err)
			os.Exit(2)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, "smallconic:", err)
			os.Exit(2)
		}
	}
	res := map[string]map[string]result{} // backend → instance → result
	for _, b := range backends {
		res[b.name] = map[string]result{}
	}
	// Repetitions interleave the backends, so that a change of the
	// machine's load during the run affects all of them alike.
	for _, in := range insts {
		for r := 0; r < *reps; r++ {
			for _, b := range backends {
				if b.lpqp && !in.p.IsLinearConic() {
					continue
				}
				cur := timeSolve(b.s, in.p)
				if prev, ok := res[b.name][in.name]; !ok || cur.seconds < prev.seconds || math.IsNaN(cur.seconds) {
					res[b.name][in.name] = cur
				}
			}
		}
		if *verbose {
			for _, b := range backends {
				if r, ok := res[b.name][in.name]; ok {
					fmt.Printf("%-6s %-14s %-15s %.10g %d iterations %.3g ms\n", b.name, in.name, r.status, r.obj, r.iters, 1e3*r.seconds)
				}
			}
		}
	}
	if *cpuProfile != "" {
		pprof.StopCPUProfile()
	}
	if *memProfile != "" {
		if err := writeHeapProfile(*memProfile); err != nil {
			fmt.Fprintln(os.Stderr, "smallconic:", err)
			os.Exit(2)
		}
	}
	if *allocs {
		fmt.Println("| backend | family | n | allocations per solve (median) | bytes per solve (median) |")
		fmt.Println("|---|---|---|---|---|")
		for _, b := range backends {
			for _, f := range strings.Split(*families, ",") {
				for _, n := range ns {
					var cnt, byt []float64
					for _, in := range insts {
						if in.family != f || in.n != n || (b.lpqp && !in.p.IsLinearConic()) {
							continue
						}
						c, by := allocsOfSolve(b.s, in.p)
						cnt, byt = append(cnt, c), append(byt, by)
					}
					if len(cnt) > 0 {
						fmt.Printf("| %s | %s | %d | %.0f | %.0f |\n", b.name, f, n, median(cnt), median(byt))
					}
				}
			}
		}
		fmt.Println()
	}
	for peer, run := range map[string]func() (map[string]result, string){
		"cvxopt": func() (map[string]result, string) { return runCVXOPT(*python, insts, *reps) },
		"ecos": func() (map[string]result, string) {
			return runTextPeer("ECOS", "-ecos", "scripts/build-ecos.sh", *ecos, insts, *reps)
		},
		"clarabel": func() (map[string]result, string) {
			return runTextPeer("Clarabel", "-clarabel", "scripts/build-clarabel.sh", *clarabel, insts, *reps)
		},
	} {
		r, note := run()
		if r != nil {
			res[peer] = r
		}
		if note != "" {
			fmt.Println(note)
		}
	}
	if *verbose {
		// The peers' solves, in the format of the privopt-side lines, so
		// that iteration counts can be compared instance by instance.
		for _, peer := range []string{"cvxopt", "ecos", "clarabel"} {
			for _, in := range insts {
				if r, ok := res[peer][in.name]; ok {
					fmt.Printf("%-8s %-14s %-15s %.10g %d iterations %.3g ms\n", peer, in.name, r.status, r.obj, r.iters, 1e3*r.seconds)
				}
			}
		}
	}
	report(insts, res, *objTol)
	if *cross {
		crossover(insts, res)
	}
}

// timeSolve solves p once and times it.
func timeSolve(s solver.Solver, p *solver.Problem) result {
	t0 := time.Now()
	sol, err := s.Solve(context.Background(), p, solver.Settings{})
	el := time.Since(t0).Seconds()
	if err != nil {
		return result{seconds: math.NaN(), status: "error: " + err.Error()}
	}
	return result{seconds: el, status: sol.Status.String(), obj: sol.Objective, iters: sol.Iterations}
}

// allocsOfSolve is the number of heap allocations and the bytes allocated by
// one solve of p (runtime.MemStats before and after; the loop runs on one
// goroutine, so the counts are the solve's own).
func allocsOfSolve(s solver.Solver, p *solver.Problem) (count, bytes float64) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, _ = s.Solve(context.Background(), p, solver.Settings{})
	runtime.ReadMemStats(&after)
	return float64(after.Mallocs - before.Mallocs), float64(after.TotalAlloc - before.TotalAlloc)
}

// writeHeapProfile writes the allocation profile (every allocation since the
// start, by call site) to path.
func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// generate builds one instance of family f with n variables.
func generate(rng *rand.Rand, f string, n int) (*solver.Problem, error) {
	switch f {
	case "lpinf":
		// m−1 rows of the lp family's kind, feasible; then row m is
		// −Σ y′ᵢaᵢ over a random half of them (y′ uniform on [0.5, 2]) with
		// b_m = −Σ y′ᵢbᵢ − 1, so y = (y′, 1) ≥ 0 has Aᵀy = 0, bᵀy = −1.
		m := 2 * n
		A := randomRows(rng, m-1, n, 3)
		x0 := make([]float64, n)
		for j := range x0 {
			x0[j] = rng.NormFloat64()
		}
		b := A.MulVecTo(nil, 1, x0, 0)
		y := make([]float64, m-1)
		for i := range b {
			b[i] += 0.5 + 1.5*rng.Float64()
			if rng.IntN(2) == 0 {
				y[i] = 0.5 + 1.5*rng.Float64()
			}
		}
		last := A.MulTransVecTo(nil, -1, y, 0)
		bm := -1.0
		for i := range y {
			bm -= y[i] * b[i]
		}
		t := sparse.NewTriplets(m, n, A.Nnz()+n)
		for j := 0; j < n; j++ {
			for q := A.ColPtr[j]; q < A.ColPtr[j+1]; q++ {
				t.Append(A.RowIdx[q], j, A.Val[q])
			}
			if last[j] != 0 {
				t.Append(m-1, j, last[j])
			}
		}
		q := make([]float64, n)
		for j := range q {
			q[j] = rng.NormFloat64()
		}
		return &solver.Problem{Q: q, A: t.ToCSC(), B: append(b, bm), Cones: []cone.Cone{cone.NewNonnegative(m)}}, nil
	case "lpunb":
		return unbounded(rng, randomRows(rng, 2*n, n, 3), []cone.Cone{cone.NewNonnegative(2 * n)}), nil
	case "socpunb":
		sp, err := generate(rng, "socp", n)
		if err != nil {
			return nil, err
		}
		return unbounded(rng, sp.A, sp.Cones), nil
	case "exp":
		d, N := logisticSizes(n)
		return logistic(rng, d, N), nil
	case "entropy":
		return entropy(rng, n), nil
	case "sdp":
		return maxCutLMI(rng, n), nil
	case "sdpx":
		return maxCutPrimal(maxCutWeights(rng, n)), nil
	case "lp", "qp":
		m := 2 * n
		p := solvertest.PlantedLP(rng, randomRows(rng, m, n, 3))
		if f == "lp" {
			return p, nil
		}
		p.P = psdUpper(rng, n)
		p.Q = make([]float64, n)
		for j := range p.Q {
			p.Q[j] = rng.NormFloat64()
		}
		return p, nil
	case "socp":
		k, m := n/5, 2*n
		t := sparse.NewTriplets(6*k+m, n, 0)
		var cones []cone.Cone
		row := 0
		// cone c: head row touches variable c (the epigraph), the five lower
		// rows two random variables each.
		for c := 0; c < k; c++ {
			t.Append(row, c, -1)
			for r := 1; r < 6; r++ {
				for _, j := range rng.Perm(n)[:2] {
					t.Append(row+r, j, rng.NormFloat64())
				}
			}
			row += 6
			cones = append(cones, cone.NewSecondOrder(6))
		}
		lin := randomRows(rng, m, n, 3)
		for j := 0; j < n; j++ {
			for q := lin.ColPtr[j]; q < lin.ColPtr[j+1]; q++ {
				t.Append(row+lin.RowIdx[q], j, lin.Val[q])
			}
		}
		cones = append(cones, cone.NewNonnegative(m))
		A := t.ToCSC()
		x0 := make([]float64, n)
		for j := range x0 {
			x0[j] = rng.NormFloat64()
		}
		b := A.MulVecTo(nil, 1, x0, 0)
		y0 := make([]float64, 0, A.Rows)
		off := 0
		for _, c := range cones {
			s0 := conepoint.Interior(rng, c, false)
			for i, v := range s0 {
				b[off+i] += v
			}
			y0 = append(y0, conepoint.Interior(rng, c, true)...)
			off += c.Dim
		}
		return &solver.Problem{Q: A.MulTransVecTo(nil, -1, y0, 0), A: A, B: b, Cones: cones}, nil
	}
	return nil, fmt.Errorf("-families entry %q, must be lp, qp, socp, lpinf, lpunb, socpunb, exp, entropy, sdp or sdpx", f)
}

// unbounded turns A's rows so that −Ad ∈ K for a random direction d — a
// nonnegative row with aᵢ·d > 0 is negated; the head row of a second-order
// block (one entry, at the block's epigraph variable c) gets the coefficient
// that makes −(A_k d)₀ = ‖(A_k d)₁:‖ + 1 — and returns the problem with
// b = Ax₀ + s₀ (s₀ interior to K: feasible) and q with q·d = −1: d is an
// improving ray, the problem unbounded. A is modified in place.
func unbounded(rng *rand.Rand, A *sparse.CSC, cones []cone.Cone) *solver.Problem {
	n := A.Cols
	d := make([]float64, n)
	dd := 0.0
	for j := range d {
		d[j] = rng.NormFloat64()
		dd += d[j] * d[j]
	}
	ad := A.MulVecTo(nil, 1, d, 0)
	flip := make([]float64, A.Rows) // per row: the factor of its coefficients
	head := make([]float64, A.Rows) // per head row: −(A_k d)₀ wanted
	off := 0
	for _, c := range cones {
		switch c.Kind {
		case cone.Nonnegative:
			for i := off; i < off+c.Dim; i++ {
				flip[i] = 1
				if ad[i] > 0 {
					flip[i] = -1
				}
			}
		case cone.SecondOrder:
			tail := 0.0
			for i := off + 1; i < off+c.Dim; i++ {
				tail += ad[i] * ad[i]
				flip[i] = 1
			}
			head[off] = math.Sqrt(tail) + 1
		}
		off += c.Dim
	}
	for j := 0; j < n; j++ {
		for q := A.ColPtr[j]; q < A.ColPtr[j+1]; q++ {
			i := A.RowIdx[q]
			if h := head[i]; h != 0 {
				A.Val[q] = -h / d[j] // the head row's single entry
			} else {
				A.Val[q] *= flip[i]
			}
		}
	}
	x0 := make([]float64, n)
	for j := range x0 {
		x0[j] = rng.NormFloat64()
	}
	b := A.MulVecTo(nil, 1, x0, 0)
	off = 0
	for _, c := range cones {
		for i, v := range conepoint.Interior(rng, c, false) {
			b[off+i] += v
		}
		off += c.Dim
	}
	q := make([]float64, n)
	qd := 0.0
	for j := range q {
		q[j] = rng.NormFloat64()
		qd += q[j] * d[j]
	}
	for j := range q {
		q[j] -= (qd + 1) * d[j] / dd
	}
	return &solver.Problem{Q: q, A: A, B: b, Cones: cones}
}

// randomRows is an m×n matrix with `per` N(0, 1) entries in every row at
// distinct random columns, and at least one entry in every column.
func randomRows(rng *rand.Rand, m, n, per int) *sparse.CSC {
	t := sparse.NewTriplets(m, n, m*per+n)
	seen := map[[2]int]bool{}
	add := func(i, j int) {
		if !seen[[2]int{i, j}] {
			seen[[2]int{i, j}] = true
			t.Append(i, j, rng.NormFloat64())
		}
	}
	for i := 0; i < m; i++ {
		for _, j := range rng.Perm(n)[:per] {
			add(i, j)
		}
	}
	for j := 0; j < n; j++ {
		add(rng.IntN(m), j)
	}
	return t.ToCSC()
}

// psdUpper is the upper triangle of D + BBᵀ, D diagonal uniform on
// [0.1, 1], B n×2 standard normal.
func psdUpper(rng *rand.Rand, n int) *sparse.CSC {
	B := make([][2]float64, n)
	for i := range B {
		B[i] = [2]float64{rng.NormFloat64(), rng.NormFloat64()}
	}
	t := sparse.NewTriplets(n, n, n*(n+1)/2)
	for j := 0; j < n; j++ {
		for i := 0; i <= j; i++ {
			v := B[i][0]*B[j][0] + B[i][1]*B[j][1]
			if i == j {
				v += 0.1 + 0.9*rng.Float64()
			}
			t.Append(i, j, v)
		}
	}
	return t.ToCSC()
}

// runCVXOPT writes the instances as JSON and solves them with
// cvxopt_solve.py; nil and a note when python or cvxopt is absent.
func runCVXOPT(python string, insts []instance, reps int) (map[string]result, string) {
	if _, err := os.Stat(python); err != nil {
		return nil, fmt.Sprintf("CVXOPT skipped: %s not found", python)
	}
	if err := exec.Command(python, "-c", "import cvxopt").Run(); err != nil {
		return nil, fmt.Sprintf("CVXOPT skipped: %s cannot import cvxopt (%v)", python, err)
	}
	return runPeer("CVXOPT", python, []string{cvxoptjson.ScriptPath(), "--reps", strconv.Itoa(reps)}, cvxoptjson.Write, insts)
}

// runTextPeer writes the instances as text and solves them with a peer's
// driver (ECOS's built by scripts/build-ecos.sh, Clarabel's by
// scripts/build-clarabel.sh); nil and a note when there is none.
func runTextPeer(peer, flagName, script, binary string, insts []instance, reps int) (map[string]result, string) {
	if binary == "" {
		return nil, fmt.Sprintf("%s skipped: no %s driver (build one with %s)", peer, flagName, script)
	}
	if _, err := os.Stat(binary); err != nil {
		return nil, fmt.Sprintf("%s skipped: %s not found", peer, binary)
	}
	return runPeer(peer, binary, []string{"--reps", strconv.Itoa(reps)}, cvxoptjson.WriteText, insts)
}

// runPeer writes every instance to a temporary file with write, runs
// command args... files and decodes its cvxoptjson.Result lines (one per
// instance); nil and a note naming the peer when that fails.
func runPeer(peer, command string, args []string, write func(path, name string, p *solver.Problem) error, insts []instance) (map[string]result, string) {
	dir, err := os.MkdirTemp("", "smallconic")
	if err != nil {
		return nil, peer + " skipped: " + err.Error()
	}
	defer os.RemoveAll(dir)
	for _, in := range insts {
		path := filepath.Join(dir, in.name)
		if err := write(path, in.name, in.p); err != nil {
			return nil, peer + " skipped: " + err.Error()
		}
		args = append(args, path)
	}
	cmd := exec.Command(command, args...)
	cmd.Env = append(os.Environ(), "OMP_NUM_THREADS=1", "OPENBLAS_NUM_THREADS=1")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Sprintf("%s skipped: %s failed: %v", peer, command, err)
	}
	res := map[string]result{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var r cvxoptjson.Result
		if json.Unmarshal([]byte(line), &r) != nil {
			continue
		}
		if r.Error != "" {
			res[r.Name] = result{seconds: math.NaN(), status: "error: " + r.Error}
			continue
		}
		res[r.Name] = result{seconds: r.Time, status: r.Status, obj: r.Objective, iters: r.Iterations}
	}
	return res, ""
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// peers are the backends privopt's ipm and auto are compared with.
var peers = []string{"highs", "cvxopt", "ecos", "clarabel"}

// report prints, per family and size, the median time of each backend, the
// number of optimal answers, objective disagreements (relative difference
// to the first optimal answer above objTol), and the medians of
// the per-instance ratios privopt/peer.
func report(insts []instance, res map[string]map[string]result, objTol float64) {
	mine := []string{"ipm", "auto"} // privopt's backends (highs is a peer), and the LP-route variants when run
	for _, b := range []string{"auto-highs", "auto-ipm"} {
		if len(res[b]) > 0 {
			mine = append(mine, b)
		}
	}
	names := append(append([]string(nil), mine...), peers...)
	type key struct {
		f string
		n int
	}
	groups := map[key][]instance{}
	var order []key
	for _, in := range insts {
		k := key{in.family, in.n}
		if groups[k] == nil {
			order = append(order, k)
		}
		groups[k] = append(groups[k], in)
	}
	head := "| family | n | ipm median | auto median | auto − ipm (median) |"
	rule := "|---|---|---|---|---|"
	paired := len(res["auto-highs"]) > 0 // the LP route before round 9 in the run: auto's paired ratio to it
	if paired {
		head += " auto-highs median | auto/auto-highs (median of the per-instance ratios) |"
		rule += "---|---|"
	}
	for _, p := range peers {
		head += " " + p + " median |"
		rule += "---|"
	}
	for _, p := range peers {
		for _, me := range mine {
			head += " " + me + "/" + p + " |"
			rule += "---|"
		}
	}
	head += " planted status found " + strings.Join(names, "/") + " | objective disagreements |"
	rule += "---|---|"
	fmt.Println(head)
	fmt.Println(rule)
	all := map[string][]float64{}
	for _, k := range order {
		times := map[string][]float64{}
		ratios := map[string][]float64{}
		opt := map[string]int{}
		var over, afterBefore []float64
		disagree := 0
		for _, in := range groups[k] {
			ref := math.NaN()
			for _, b := range names {
				r, ok := res[b][in.name]
				if !ok {
					continue
				}
				if r.status == in.want {
					opt[b]++
				}
				if r.status == "optimal" {
					if math.IsNaN(ref) {
						ref = r.obj
					} else if math.Abs(r.obj-ref) > objTol*math.Max(1, math.Abs(ref)) {
						disagree++
					}
				}
				if !math.IsNaN(r.seconds) {
					times[b] = append(times[b], r.seconds)
				}
			}
			ri, iok := res["ipm"][in.name]
			rauto, aok := res["auto"][in.name]
			if iok && aok {
				over = append(over, rauto.seconds-ri.seconds)
			}
			if rb, ok := res["auto-highs"][in.name]; ok && aok && rb.seconds > 0 {
				afterBefore = append(afterBefore, rauto.seconds/rb.seconds)
			}
			for _, peer := range peers {
				rp, ok := res[peer][in.name]
				if !ok || rp.seconds <= 0 || math.IsNaN(rp.seconds) {
					continue
				}
				for _, me := range mine {
					r, ok := res[me][in.name]
					if !ok || math.IsNaN(r.seconds) {
						continue
					}
					ratios[me+"/"+peer] = append(ratios[me+"/"+peer], r.seconds/rp.seconds)
					all[k.f+" "+me+"/"+peer] = append(all[k.f+" "+me+"/"+peer], r.seconds/rp.seconds)
				}
			}
		}
		ms := func(b string) string {
			if len(times[b]) == 0 {
				return "—"
			}
			return fmt.Sprintf("%.3g ms", 1e3*median(times[b]))
		}
		rs := func(r string) string {
			if len(ratios[r]) == 0 {
				return "—"
			}
			return fmt.Sprintf("%.2f", median(ratios[r]))
		}
		line := fmt.Sprintf("| %s | %d | %s | %s | %.3g ms |", k.f, k.n, ms("ipm"), ms("auto"), 1e3*median(over))
		if paired {
			line += fmt.Sprintf(" %s | %.2f |", ms("auto-highs"), median(afterBefore))
		}
		for _, p := range peers {
			line += " " + ms(p) + " |"
		}
		for _, p := range peers {
			for _, me := range mine {
				line += " " + rs(me+"/"+p) + " |"
			}
		}
		var counts []string
		for _, b := range names {
			counts = append(counts, strconv.Itoa(opt[b]))
		}
		line += fmt.Sprintf(" %s of %d | %d |", strings.Join(counts, "/"), len(groups[k]), disagree)
		fmt.Println(line)
	}
	// median iterations per family and backend
	fmt.Println()
	fmt.Println("| family | median iterations " + strings.Join(names, " / ") + " |")
	fmt.Println("|---|---|")
	var fams []string
	seen := map[string]bool{}
	for _, k := range order {
		if !seen[k.f] {
			seen[k.f] = true
			fams = append(fams, k.f)
		}
	}
	for _, f := range fams {
		var cells []string
		for _, b := range names {
			var its []float64
			for _, in := range insts {
				if r, ok := res[b][in.name]; ok && in.family == f && !math.IsNaN(r.seconds) {
					its = append(its, float64(r.iters))
				}
			}
			if len(its) == 0 {
				cells = append(cells, "—")
			} else {
				cells = append(cells, fmt.Sprintf("%.0f", median(its)))
			}
		}
		fmt.Printf("| %s | %s |\n", f, strings.Join(cells, " / "))
	}
	var keys []string
	for k := range all {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Println()
	for _, k := range keys {
		fmt.Printf("median ratio %s over all sizes: %.2f (%d instances)\n", k, median(all[k]), len(all[k]))
	}
}
