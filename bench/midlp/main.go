// Command midlp measures the default route (solver/auto) on LPs of 2,000 to
// 20,000 nonzeros, the size between the IPM-first rule (2000)
// and the concurrent route (20000), across structures:
//
//   - rand: random sparse feasible LPs, the "lp" family of bench/smallconic at
//     larger n (min qᵀx, Ax ≤ b, x free, A 2n × n with 3 N(0,1) entries per
//     row, b = Ax₀ + s₀, q = −Aᵀy₀ with s₀, y₀ uniform on [0.5, 2]);
//   - transp: transportation LPs (s sources, d sinks, integer costs 1–20,
//     integer supplies ≥ demands; supply ≤, demand ≥, x ≥ 0 rows);
//   - assign: assignment LPs (n × n, row and column sums = 1, x ≥ 0,
//     integer costs 1–100: highly degenerate);
//   - dcopf: the DC-OPF LPs of PGLib cases (grid.BuildOPF + canonicalization,
//     linear costs in B-θ and PTDF, 4-segment piecewise-linear costs in PTDF,
//     as bench/smallconic -grid builds them).
//
// Every LP is solved by HiGHS alone, the IPM alone, and three routes of
// auto: HiGHS first (SmallLPNnz = −1, no race), IPM first (every LP, no
// race) and concurrent (ConcurrentNnz = 1); the five interleaved in every
// repetition, the fastest wall time and the smallest process CPU time of
// -reps kept. The default route is, by its rule, one of the three routes;
// its time is that route's. Then every candidate rule is scored per half
// (tune: odd seeds and every other PGLib case; held-out: the rest) and per
// group as the geometric mean over the group's LPs of (the rule's route's
// CPU / the faster sequential route's CPU), and the same for wall time.
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/privopt/privopt/bench/internal/cputime"
	"github.com/privopt/privopt/bench/internal/pglibcase"
	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/grid"
	"github.com/privopt/privopt/internal/shareddata"
	"github.com/privopt/privopt/internal/solvertest"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/auto"
	"github.com/privopt/privopt/solver/highs"
	"github.com/privopt/privopt/solver/ipm"
	"github.com/privopt/privopt/sparse"
)

type instance struct {
	name, group, half string
	p                 *solver.Problem
}

// variants are the solvers timed on every LP: the backends alone and the
// three routes of auto.
var variants = []string{"highs", "ipm", "auto-h", "auto-i", "auto-c"}

func newVariant(v string) solver.Solver {
	switch v {
	case "highs":
		return highs.New()
	case "ipm":
		return ipm.New()
	case "auto-h":
		s := auto.New()
		s.SmallLPNnz, s.ConcurrentNnz = -1, -1
		return s
	case "auto-i":
		s := auto.New()
		s.SmallLPNnz, s.ConcurrentNnz = math.MaxInt, -1
		return s
	case "auto-c":
		s := auto.New()
		s.ConcurrentNnz = 1
		return s
	}
	panic(v)
}

type result struct {
	wall, cpu float64 // seconds
	status    string
	obj       float64
	solver    string
}

func main() {
	reps := flag.Int("reps", 3, "repetitions (fastest wall, smallest CPU kept)")
	half := flag.String("half", "both", "tune, heldout or both")
	groups := flag.String("groups", "rand,transp,assign,cover,dcopf", "instance groups")
	limit := flag.Duration("time-limit", 60*time.Second, "time limit of one solve")
	flag.Parse()
	insts, err := instances(*groups, *half)
	if err != nil {
		fmt.Fprintln(os.Stderr, "midlp:", err)
		os.Exit(1)
	}
	res := map[string]map[string]result{}
	fmt.Println("| instance | half | rows | cols | nnz(A) | rows/cols | nnz/col | distinct q | highs CPU | ipm CPU | auto-h CPU | auto-i CPU | auto-c CPU / wall | default | default/best | statuses |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, in := range insts {
		r := map[string]result{}
		for k := 0; k < *reps; k++ {
			for _, v := range variants {
				x := timeSolve(newVariant(v), in.p, *limit)
				old, ok := r[v]
				if ok {
					x.wall = math.Min(x.wall, old.wall)
					x.cpu = math.Min(x.cpu, old.cpu)
				}
				r[v] = x
			}
		}
		res[in.name] = r
		f := featuresOf(in.p)
		def := defaultRoute(in.p)
		best := math.Min(r["auto-h"].cpu, r["auto-i"].cpu)
		st := statuses(r)
		fmt.Printf("| %s | %s | %d | %d | %d | %.2f | %.2f | %.2f | %s | %s | %s | %s | %s / %s | %s | %.2f | %s |\n",
			in.name, in.half, f.rows, f.cols, f.nnz, f.rowsPerCol, f.nnzPerCol, f.distinctQ,
			ms(r["highs"].cpu), ms(r["ipm"].cpu), ms(r["auto-h"].cpu), ms(r["auto-i"].cpu), ms(r["auto-c"].cpu), ms(r["auto-c"].wall),
			def, r["auto-"+def].cpu/best, st)
	}
	for _, h := range []string{"tune", "heldout"} {
		score(insts, res, h)
	}
}

func ms(s float64) string { return fmt.Sprintf("%.3g ms", 1e3*s) }

// statuses is "optimal" when every variant ended optimal with objectives
// within 1e-6 relative of HiGHS's, else the variants' statuses.
func statuses(r map[string]result) string {
	ref := r["highs"]
	ok := true
	for _, v := range variants {
		x := r[v]
		if x.status != "optimal" || math.Abs(x.obj-ref.obj) > 1e-6*math.Max(1, math.Abs(ref.obj)) {
			ok = false
		}
	}
	if ok {
		return "optimal"
	}
	var s []string
	for _, v := range variants {
		s = append(s, fmt.Sprintf("%s %s %.9g", v, r[v].status, r[v].obj))
	}
	return strings.Join(s, ", ")
}

// timeSolve solves p once; the CPU time is the process's over the solve
// and, for the concurrent route, LoserGrace after it (the cancelled backend
// stops within it or runs on in the background).
func timeSolve(s solver.Solver, p *solver.Problem, limit time.Duration) result {
	c0, t0 := cputime.Process(), time.Now()
	sol, err := s.Solve(context.Background(), p, solver.Settings{TimeLimit: limit})
	wall := time.Since(t0).Seconds()
	if a, ok := s.(*auto.Solver); ok && a.Concurrent(p) {
		time.Sleep(2 * auto.LoserGrace)
	}
	cpu := (cputime.Process() - c0).Seconds()
	if err != nil {
		return result{wall: math.NaN(), cpu: math.NaN(), status: "error: " + err.Error()}
	}
	return result{wall: wall, cpu: cpu, status: sol.Status.String(), obj: sol.Objective, solver: sol.Solver}
}

// features are the measured quantities a rule may read off an LP.
type features struct {
	rows, cols, nnz       int
	rowsPerCol, nnzPerCol float64
	distinctQ             float64 // distinct nonzero cost coefficients / columns
}

func featuresOf(p *solver.Problem) features {
	f := features{rows: p.NumRows(), cols: p.NumVars(), nnz: p.A.Nnz()}
	f.rowsPerCol = float64(f.rows) / float64(f.cols)
	f.nnzPerCol = float64(f.nnz) / float64(f.cols)
	seen := map[float64]bool{}
	for _, v := range p.Q {
		if v != 0 {
			seen[v] = true
		}
	}
	f.distinctQ = float64(len(seen)) / float64(f.cols)
	return f
}

// ruleToday is the round-9 route: "i" (IPM first) up to 2,000 nonzeros,
// "c" (concurrent) from 20,000, "h" (HiGHS first) between.
func ruleToday(f features) string {
	switch {
	case f.nnz >= 20000:
		return "c"
	case f.nnz <= 2000:
		return "i"
	}
	return "h"
}

// defaultRoute is the route auto.New takes on p: "c", "i" or "h".
func defaultRoute(p *solver.Problem) string {
	a := auto.New()
	if a.Concurrent(p) {
		return "c"
	}
	if a.Route(p)[0].Name() == "ipm" {
		return "i"
	}
	return "h"
}

type rule struct {
	name string
	pick func(features) string
}

// midRule is the rule name that keeps today's ends (IPM first up to 2,000
// nonzeros, the race from 20,000) and between them starts with the IPM
// where ipm holds, with HiGHS elsewhere.
func midRule(name string, ipm func(features) bool) rule {
	return rule{name, func(f features) string {
		switch {
		case f.nnz <= 2000:
			return "i"
		case f.nnz >= 20000:
			return "c"
		case ipm(f):
			return "i"
		}
		return "h"
	}}
}

func rules() []rule {
	rs := []rule{
		{"HiGHS first (no race)", func(features) string { return "h" }},
		{"IPM first (no race)", func(features) string { return "i" }},
		{"concurrent always", func(features) string { return "c" }},
		{"today (IPM ≤ 2000, HiGHS, race ≥ 20000)", ruleToday},
	}
	for _, t := range []int{3000, 5000, 10000, 20000} {
		rs = append(rs, rule{fmt.Sprintf("(a) IPM first ≤ %d", t), func(f features) string {
			if f.nnz >= 20000 {
				return "c"
			}
			if f.nnz <= t {
				return "i"
			}
			return "h"
		}})
	}
	for _, c := range []int{2001, 5000, 10000} {
		rs = append(rs, rule{fmt.Sprintf("(b) race ≥ %d", c), func(f features) string {
			if f.nnz <= 2000 {
				return "i"
			}
			if f.nnz >= c {
				return "c"
			}
			return "h"
		}})
	}
	for _, d := range []float64{5, 8, 12, 20} {
		rs = append(rs, midRule(fmt.Sprintf("(c) IPM first < 20000 when nnz/col ≤ %g", d), func(f features) bool { return f.nnzPerCol <= d }))
	}
	for _, rc := range []float64{2, 3, 5} {
		rs = append(rs, midRule(fmt.Sprintf("(c) IPM first < 20000 when rows/cols ≤ %g", rc), func(f features) bool { return f.rowsPerCol <= rc }))
	}
	for _, dq := range []float64{0.05, 0.2, 0.5} {
		rs = append(rs, midRule(fmt.Sprintf("(c) IPM first < 20000 when distinct q/cols ≥ %g", dq), func(f features) bool { return f.distinctQ >= dq }))
	}
	for _, d := range []float64{10, 20, 40} {
		rs = append(rs, midRule(fmt.Sprintf("(c) IPM first < 20000 when distinct q/cols ≥ 0.5 and nnz/col ≤ %g", d), func(f features) bool { return f.distinctQ >= 0.5 && f.nnzPerCol <= d }))
	}
	rs = append(rs, rule{"auto.New (this build)", nil})
	return rs
}

// score prints, for the LPs of half h, every rule's geometric-mean
// slowdown per group against the faster sequential route (CPU and wall) and
// the worst group's.
func score(insts []instance, res map[string]map[string]result, h string) {
	var gs []string
	seen := map[string]bool{}
	for _, in := range insts {
		if in.half == h && !seen[in.group] {
			seen[in.group] = true
			gs = append(gs, in.group)
		}
	}
	if len(gs) == 0 {
		return
	}
	fmt.Printf("\nHalf %s: geometric mean of (rule's route / faster of HiGHS first, IPM first), CPU | wall\n\n", h)
	head, sep := "| rule |", "|---|"
	for _, g := range gs {
		head += " " + g + " CPU | " + g + " wall |"
		sep += "---|---|"
	}
	fmt.Println(head + " worst CPU | worst wall |")
	fmt.Println(sep + "---|---|")
	for _, r := range rules() {
		line := "| " + r.name + " |"
		wc, ww := 0.0, 0.0
		for _, g := range gs {
			var sc, sw float64
			k := 0
			for _, in := range insts {
				if in.half != h || in.group != g {
					continue
				}
				x := res[in.name]
				bc := math.Min(x["auto-h"].cpu, x["auto-i"].cpu)
				bw := math.Min(x["auto-h"].wall, x["auto-i"].wall)
				var c result
				if r.pick == nil {
					c = x["auto-"+defaultRoute(in.p)]
				} else {
					c = x["auto-"+r.pick(featuresOf(in.p))]
				}
				sc += math.Log(c.cpu / bc)
				sw += math.Log(c.wall / bw)
				k++
			}
			gc, gw := math.Exp(sc/float64(k)), math.Exp(sw/float64(k))
			wc, ww = math.Max(wc, gc), math.Max(ww, gw)
			line += fmt.Sprintf(" %.3f | %.3f |", gc, gw)
		}
		fmt.Printf("%s %.3f | %.3f |\n", line, wc, ww)
	}
}

// instances builds the LPs of the named groups; generated LPs of odd seeds
// and the PGLib cases 24, 57, 118 form the tune half, even seeds and cases
// 30, 89, 300 the held-out half.
func instances(groups, half string) ([]instance, error) {
	var out []instance
	halfOf := func(seed int) string {
		if seed%2 == 1 {
			return "tune"
		}
		return "heldout"
	}
	for _, g := range strings.Split(groups, ",") {
		switch g {
		case "rand":
			for _, n := range []int{300, 500, 800, 1200, 1800, 2600} {
				for seed := 1; seed <= 2; seed++ {
					rng := rand.New(rand.NewPCG(uint64(seed), uint64(n)))
					out = append(out, instance{fmt.Sprintf("rand_%d_s%d", n, seed), g, halfOf(seed), randLP(rng, n)})
				}
			}
		case "transp":
			for _, sd := range [][2]int{{15, 40}, {25, 50}, {30, 80}, {50, 100}, {60, 105}} {
				for seed := 1; seed <= 2; seed++ {
					rng := rand.New(rand.NewPCG(uint64(seed), uint64(sd[0]*1000+sd[1])))
					out = append(out, instance{fmt.Sprintf("transp_%dx%d_s%d", sd[0], sd[1], seed), g, halfOf(seed), transpLP(rng, sd[0], sd[1])})
				}
			}
		case "assign":
			for _, n := range []int{28, 40, 55, 70, 80} {
				for seed := 1; seed <= 2; seed++ {
					rng := rand.New(rand.NewPCG(uint64(seed), uint64(n)))
					out = append(out, instance{fmt.Sprintf("assign_%d_s%d", n, seed), g, halfOf(seed), assignLP(rng, n)})
				}
			}
		case "cover":
			// a class held out whole: no seed of it tunes the rule
			for _, n := range []int{400, 800, 1500, 2200, 3000} {
				for seed := 1; seed <= 2; seed++ {
					rng := rand.New(rand.NewPCG(uint64(seed), uint64(n)))
					out = append(out, instance{fmt.Sprintf("cover_%d_s%d", n, seed), g, "heldout", coverLP(rng, n)})
				}
			}
		case "release":
			// the LMP-bound benchmarks' LPs (bench/internal/pglibcase: 20
			// secant segments, the PowerModels DC model), held out whole
			ps, err := releaseLPs([]string{"24_ieee_rts", "30_ieee", "57_ieee", "89_pegase", "118_ieee", "300_ieee", "1354_pegase"})
			if err != nil {
				return nil, err
			}
			out = append(out, ps...)
		case "dcopf":
			for _, c := range []struct{ name, half string }{
				{"24_ieee_rts", "tune"}, {"30_ieee", "heldout"}, {"57_ieee", "tune"},
				{"89_pegase", "heldout"}, {"118_ieee", "tune"}, {"300_ieee", "heldout"},
			} {
				ps, err := dcopf(c.name)
				if err != nil {
					return nil, err
				}
				for _, p := range ps {
					p.half = c.half
					out = append(out, p)
				}
			}
		default:
			return nil, fmt.Errorf("group %q, must be rand, transp, assign, cover, dcopf or release", g)
		}
	}
	var kept []instance
	for _, in := range out {
		if half == "both" || in.half == half {
			kept = append(kept, in)
		}
	}
	sort.SliceStable(kept, func(i, j int) bool { return kept[i].half > kept[j].half })
	return kept, nil
}

// randLP is bench/smallconic's "lp" family at n variables.
func randLP(rng *rand.Rand, n int) *solver.Problem {
	m := 2 * n
	t := sparse.NewTriplets(m, n, 3*m+n)
	seen := map[[2]int]bool{}
	add := func(i, j int) {
		if !seen[[2]int{i, j}] {
			seen[[2]int{i, j}] = true
			t.Append(i, j, rng.NormFloat64())
		}
	}
	for i := 0; i < m; i++ {
		for _, j := range rng.Perm(n)[:3] {
			add(i, j)
		}
	}
	for j := 0; j < n; j++ {
		add(rng.IntN(m), j)
	}
	return solvertest.PlantedLP(rng, t.ToCSC())
}

// transpLP is the transportation LP of s sources and d sinks: min Σ cᵢⱼxᵢⱼ
// s.t. Σⱼ xᵢⱼ ≤ Sᵢ, Σᵢ xᵢⱼ ≥ Dⱼ, x ≥ 0, with integer costs uniform on
// 1–20, demands on 1–50 and supplies whose total exceeds the demand's by
// about 20%.
func transpLP(rng *rand.Rand, s, d int) *solver.Problem {
	n := s * d
	m := s + d + n
	t := sparse.NewTriplets(m, n, 3*n)
	q := make([]float64, n)
	b := make([]float64, m)
	total := 0.0
	for j := 0; j < d; j++ {
		dj := float64(1 + rng.IntN(50))
		b[s+j] = -dj
		total += dj
	}
	for i := 0; i < s; i++ {
		b[i] = math.Ceil(1.2 * total / float64(s) * (0.5 + rng.Float64()))
	}
	for i := 0; i < s; i++ {
		for j := 0; j < d; j++ {
			k := i*d + j
			q[k] = float64(1 + rng.IntN(20))
			t.Append(i, k, 1)
			t.Append(s+j, k, -1)
			t.Append(s+d+k, k, -1)
		}
	}
	// the supplies' random shares may fall short of the demand: top up the
	// first source
	sum := 0.0
	for i := 0; i < s; i++ {
		sum += b[i]
	}
	if sum < 1.05*total {
		b[0] += 1.05*total - sum
	}
	return &solver.Problem{Q: q, A: t.ToCSC(), B: b, Cones: []cone.Cone{cone.NewNonnegative(m)}}
}

// assignLP is the n × n assignment LP: min Σ cᵢⱼxᵢⱼ s.t. every row and
// column of x sums to 1, x ≥ 0, integer costs uniform on 1–100.
func assignLP(rng *rand.Rand, n int) *solver.Problem {
	nv := n * n
	m := 2*n + nv
	t := sparse.NewTriplets(m, nv, 3*nv)
	q := make([]float64, nv)
	b := make([]float64, m)
	for i := 0; i < 2*n; i++ {
		b[i] = 1
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			k := i*n + j
			q[k] = float64(1 + rng.IntN(100))
			t.Append(i, k, 1)
			t.Append(n+j, k, 1)
			t.Append(2*n+k, k, -1)
		}
	}
	return &solver.Problem{Q: q, A: t.ToCSC(), B: b, Cones: []cone.Cone{cone.NewZero(2 * n), cone.NewNonnegative(nv)}}
}

// coverLP is the LP relaxation of a random set cover: n sets over n/2
// elements, every set covering 5 random elements, costs uniform on [1, 2]:
// min cᵀx s.t. Σ_{sets covering e} x ≥ 1 for every element e, x ≥ 0 (every
// element covered by some set).
func coverLP(rng *rand.Rand, n int) *solver.Problem {
	m := n / 2
	t := sparse.NewTriplets(m+n, n, 6*n+m)
	covered := make([]bool, m)
	q := make([]float64, n)
	for j := 0; j < n; j++ {
		q[j] = 1 + rng.Float64()
		for _, e := range rng.Perm(m)[:5] {
			t.Append(e, j, -1)
			covered[e] = true
		}
		t.Append(m+j, j, -1)
	}
	for e := range covered {
		if !covered[e] {
			t.Append(e, rng.IntN(n), -1)
		}
	}
	b := make([]float64, m+n)
	for e := 0; e < m; e++ {
		b[e] = -1
	}
	return &solver.Problem{Q: q, A: t.ToCSC(), B: b, Cones: []cone.Cone{cone.NewNonnegative(m + n)}}
}

// releaseLPs returns the B-θ and PTDF DC-OPF LPs of the named cases as
// pglibcase.Load builds their networks (the LMP-bound benchmarks' model),
// leaving out LPs of more than 100,000 nonzeros (the concurrent route's
// size, beyond this measurement).
func releaseLPs(names []string) ([]instance, error) {
	dir, err := shareddata.Dir()
	if err != nil {
		return nil, fmt.Errorf("release needs the shared data folder: %w", err)
	}
	var out []instance
	for _, name := range names {
		nw, err := pglibcase.Load(dir, name)
		if err != nil {
			return nil, err
		}
		for _, f := range []grid.Formulation{grid.BTheta, grid.PTDF} {
			o, err := nw.BuildOPF(grid.OPFOptions{Formulation: f})
			if err != nil {
				return nil, fmt.Errorf("case %s %v: %w", name, f, err)
			}
			cn, err := o.Model.Canonicalize()
			if err != nil {
				return nil, fmt.Errorf("case %s %v: %w", name, f, err)
			}
			p := cn.Problem
			if !p.IsLinearConic() || (p.P != nil && p.P.Nnz() > 0) || p.A.Nnz() > 100000 {
				continue
			}
			out = append(out, instance{name: fmt.Sprintf("release-%v_%s", f, name), group: "release", half: "heldout", p: p})
		}
	}
	return out, nil
}

// dcopf returns the DC-OPF LPs of the named PGLib case as bench/smallconic
// -grid builds them (pglibcase.DCOPFLPs, all four families).
func dcopf(name string) ([]instance, error) {
	dir, err := shareddata.Dir()
	if err != nil {
		return nil, fmt.Errorf("dcopf needs the shared data folder: %w", err)
	}
	lps, _, err := pglibcase.DCOPFLPs(dir, name, pglibcase.DCOPFFamilies)
	if err != nil {
		return nil, err
	}
	var out []instance
	for _, lp := range lps {
		out = append(out, instance{name: lp.Family + "_" + name, group: "dcopf", p: lp.Problem})
	}
	return out, nil
}
