// Command suites runs the public benchmark instances of the shared data folder
// (conic-bench: CBLIB, SDPLIB 1.2 as CBF, Maros–Mészáros QPS; reference.json
// holds the origin and the published optimum of each) through privopt,
// grades every answer with the rule of reference.json and writes a table
// (markdown and JSON).
//
//	go run ./bench/suites [-set cblib,sdplib,maros] [-route auto|ipm|highs]
//	    [-only REGEXP] [-half tune|held-out|all] [-time-limit 300s] [-out bench-suites] [-csdp] [-cvxopt]
//	    [-cpuprofile FILE] [-points DIR] [-sdpa DIR [-sdpa-margin EPS]]
//	    [-set hinfgen [-gen-seeds 1-20] [-gen-dir DIR]]
//
// Grades: "pass" (status optimal or almost-optimal and |obj − ref| within the
// tolerance of the rule; infeasible instances: the matching status), "wrong"
// (status optimal but the objective outside the tolerance: a wrong optimum),
// "fail" (any other outcome, with the status and diagnostic), "noref" (no
// published value, or one an erratum withdraws as provably wrong with no
// verified replacement: the status is reported, not graded).
//
// Every instance belongs to one half of the held-out split (split.go: by
// the FNV-1a hash of its name, half of each library); -half runs one half,
// and the tables tally and compare each half separately.
//
// With -csdp the SDPLIB instances are also converted to SDPA format and
// solved by the csdp program (if installed), side by side; with -cvxopt
// every instance that CVXOPT can take is solved by /usr/bin/python3 with
// CVXOPT (bench/ipmvscvxopt/cvxopt_solve.py). Timings are wall times and
// CPU times (user + system of the solve: this process's for privopt, the
// child's for csdp), the latter the fairer measure on a loaded machine; with
// -csdp the table is preceded by the geometric mean, median and range of the
// ratios privopt/CSDP over the instances both solve. -cpuprofile writes a
// CPU profile of the whole run (privopt's solves; csdp runs in a child).
// With -points DIR the returned point of every instance is written to
// DIR/NAME.json ({"status", "x", "y"} in standard-form columns and rows; for
// an infeasible instance y is the certificate), for independent checks such
// as scripts/bench/cbf_pd_check.py and scripts/bench/cbf_farkas_check.py.
// With -sdpa DIR nothing is solved: the selected SDPLIB instances are written
// to DIR/NAME.dat-s in SDPA format (WriteSDPA, the file -csdp gives csdp;
// its x are the CBF scalar variables in order), for example to run csdp by
// hand and check its y with scripts/bench/sdpa_upper_check.py. With
// -sdpa-margin EPS > 0 the written problem is the tightened one,
// F(x) = Σᵢ xᵢFᵢ − F₀ ⪰ EPS·I on every block (F₀ + EPS·I written instead of
// F₀): its solutions are strictly feasible points of the original, with an
// eigenvalue margin of about EPS less the solver's error.
//
// -set hinfgen adds generated H∞ synthesis LMIs (hinfgen.go: the
// Gahinet–Apkarian LMIs of random plants with the structure of SDPLIB's
// hinf1…15, regular and degenerate kinds; seeds above 40 strongly
// unstable), seeds -gen-seeds (default 1-20), set hinfgen, half generated:
// each is written in SDPA format (to -gen-dir DIR when given, else a
// temporary folder), solved by csdp (always), and graded like the unseen set
// against a reference computed without privopt (hinfGenSet: the H∞ norm by
// Hamiltonian bisection, the Riccati optimum, the regularized Riccati bound
// of a singular plant, or csdp's value).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/privopt/privopt/bench/internal/cputime"
	"github.com/privopt/privopt/cbf"
	"github.com/privopt/privopt/internal/shareddata"
	"github.com/privopt/privopt/mathprog"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/auto"
	"github.com/privopt/privopt/solver/highs"
	"github.com/privopt/privopt/solver/ipm"
)

// reference is reference.json.
type reference struct {
	PassRule  string     `json:"pass_rule"`
	Instances []instance `json:"instances"`
}

type instance struct {
	Name           string `json:"name"`
	Set            string `json:"set"`
	File           string `json:"file"`
	ExpectedStatus string `json:"expected_status"`
	Reference      *struct {
		Value     float64 `json:"value"`
		Text      string  `json:"text"`
		SigDigits int     `json:"sig_digits"`
		Source    string  `json:"source"`
	} `json:"reference"`
	relTol float64 // an erratum's relative tolerance (errata.go)
}

// tolerance is the pass rule of reference.json: 1e-6·max(1, |ref|), or half a
// unit of the last printed digit when the reference has fewer digits.
func (in *instance) tolerance() float64 {
	r := in.Reference
	tol := 1e-6 * math.Max(1, math.Abs(r.Value))
	if r.SigDigits > 0 && r.Value != 0 {
		exp := math.Floor(math.Log10(math.Abs(r.Value)))
		if r.Text != "" {
			if k := strings.IndexAny(r.Text, "eE"); k >= 0 {
				if e, err := strconv.Atoi(r.Text[k+1:]); err == nil {
					exp = float64(e)
				}
			}
		}
		tol = math.Max(tol, 0.5*math.Pow(10, exp-float64(r.SigDigits-1)))
	}
	return in.widen(tol)
}

// outcome is one graded run.
type outcome struct {
	Name       string  `json:"name"`
	Set        string  `json:"set"`
	Half       string  `json:"half"`            // "tune" or "held-out" (split.go)
	Grade      string  `json:"grade"`           // against the reference with its erratum applied (errata.go)
	GradePub   string  `json:"grade_published"` // against reference.json as published
	Erratum    string  `json:"erratum,omitempty"`
	Status     string  `json:"status"`
	Objective  float64 `json:"objective"`
	Reference  float64 `json:"reference"`
	Tolerance  float64 `json:"tolerance"`
	Error      float64 `json:"abs_error"`
	Solver     string  `json:"solver"`
	Fallback   string  `json:"fallback,omitempty"`
	Iterations int     `json:"iterations"`
	Seconds    float64 `json:"seconds"`
	CPUSeconds float64 `json:"cpu_seconds"` // process CPU time (user + system, all threads) of the solve
	Diagnostic string  `json:"diagnostic,omitempty"`
	// Rows is the row-wise re-check of an OK answer (solver.RowAccuracy:
	// primal, dual, complementarity).
	Rows [3]float64 `json:"rows,omitempty"`
	// peers
	CSDPSeconds   float64 `json:"csdp_seconds,omitempty"`
	CSDPCPU       float64 `json:"csdp_cpu_seconds,omitempty"` // csdp's user + system time
	CSDPObjective float64 `json:"csdp_objective,omitempty"`
	CSDPStatus    string  `json:"csdp_status,omitempty"`
	// CSDPPrimal is csdp's "primal objective value" (its max form): the
	// gap to CSDPObjective bounds how well it pinned the optimum.
	CSDPPrimal float64 `json:"csdp_primal_objective,omitempty"`
}

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "suites:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("suites", flag.ContinueOnError)
	sets := fs.String("set", "cblib,sdplib,maros", "comma-separated libraries")
	route := fs.String("route", "auto", "backend: auto, ipm or highs")
	only := fs.String("only", "", "regular expression on instance names")
	limit := fs.Duration("time-limit", 300*time.Second, "time limit per instance")
	out := fs.String("out", "", "write OUT.md and OUT.json")
	csdp := fs.Bool("csdp", false, "also run csdp on the SDPLIB instances")
	pointDir := fs.String("points", "", "write the returned x and y of every instance to DIR/NAME.json")
	dataDir := fs.String("data", "", "conic-bench folder (default: the shared data folder's conic-bench)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the privopt solves (not CSDP) to this file")
	useErrata := fs.Bool("errata", true, "grade against the documented corrections of published references too (errata.go)")
	regrade := fs.String("regrade", "", "re-grade the outcomes of an earlier -out run (OUT.json) against reference.json and the errata, without solving")
	sdpaDir := fs.String("sdpa", "", "write the selected SDPLIB instances to DIR/NAME.dat-s (SDPA format) and solve nothing")
	sdpaMargin := fs.Float64("sdpa-margin", 0, "with -sdpa: write the tightened problem F(x) ⪰ EPS·I instead (strictly feasible points)")
	unseenDir := fs.String("unseen", "", "also solve every DIR/*.dat-s (SDPA) not in reference.json, graded against DIR/../README.md's table (SDPLIB 1.2's layout): set sdplib-unseen, half unseen")
	halfFlag := fs.String("half", "all", "which half of the held-out split (split.go) to run: tune, held-out or all")
	genSeeds := fs.String("gen-seeds", "1-20", "with -set hinfgen: the seeds of the generated H∞ synthesis LMIs (hinfgen.go), e.g. 1-20,33")
	genDir := fs.String("gen-dir", "", "with -set hinfgen: write the generated SDPA files to DIR and keep them (default: a temporary folder, removed)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	dir := *dataDir
	if dir == "" {
		d, err := shareddata.Dir()
		if err != nil {
			return err
		}
		dir = filepath.Join(d, "conic-bench")
	}
	ref, err := loadReference(dir)
	if err != nil {
		return err
	}
	var re *regexp.Regexp
	if *only != "" {
		if re, err = regexp.Compile(*only); err != nil {
			return err
		}
	}
	if *halfFlag != "all" && *halfFlag != halfTune && *halfFlag != halfHeldOut {
		return fmt.Errorf("-half is %q, must be tune, held-out or all", *halfFlag)
	}
	halves := splitHalves(ref)
	want := map[string]bool{}
	for _, s := range strings.Split(*sets, ",") {
		want[strings.TrimSpace(s)] = true
	}
	if *unseenDir != "" {
		extra, err := unseenInstances(*unseenDir, ref)
		if err != nil {
			return err
		}
		for _, in := range extra {
			halves[in.Set+"/"+in.Name] = halfUnseen
		}
		ref.Instances = append(ref.Instances, extra...)
		want[setUnseen] = true
	}
	var genPeers map[string]outcome
	if want[setHinfGen] && *regrade == "" {
		seeds, err := parseSeeds(*genSeeds)
		if err != nil {
			return err
		}
		if *genDir == "" {
			d, err := os.MkdirTemp("", "hinfgen-*")
			if err != nil {
				return err
			}
			defer os.RemoveAll(d)
			*genDir = d
		}
		extra, peers, err := hinfGenSet(seeds, *genDir, *limit, stdout)
		if err != nil {
			return err
		}
		for _, in := range extra {
			halves[in.Set+"/"+in.Name] = halfGenerated
		}
		ref.Instances = append(ref.Instances, extra...)
		genPeers = peers
	}
	if *regrade != "" {
		return regradeFile(*regrade, ref, halves, *route, *useErrata, stdout)
	}
	if *sdpaDir != "" {
		return writeSDPAFiles(dir, *unseenDir, *sdpaDir, *sdpaMargin, ref, want, re, stdout)
	}
	backend, err := newBackend(*route)
	if err != nil {
		return err
	}
	var results []outcome
	for i := range ref.Instances {
		in := &ref.Instances[i]
		if !want[in.Set] || (re != nil && !re.MatchString(in.Name)) {
			continue
		}
		if *halfFlag != "all" && halves[in.Set+"/"+in.Name] != *halfFlag {
			continue
		}
		idir := dir
		if in.Set == setUnseen {
			idir = *unseenDir
		}
		if in.Set == setHinfGen {
			idir = *genDir
		}
		o, sol := solveOne(idir, in, backend, *limit, *useErrata)
		o.Half = halves[in.Set+"/"+in.Name]
		if *pointDir != "" && sol != nil {
			js, err := json.Marshal(map[string]any{"status": sol.Status.String(), "x": finite(sol.X), "y": finite(sol.Y)})
			if err == nil {
				err = os.WriteFile(filepath.Join(*pointDir, in.Name+".json"), js, 0o644)
			}
			if err != nil {
				return fmt.Errorf("writing the point of %s: %w", in.Name, err)
			}
		}
		if *csdp && (in.Set == "sdplib" || in.Set == setUnseen) {
			runCSDP(idir, in, &o, *limit)
		}
		if p, ok := genPeers[in.Name]; ok && in.Set == setHinfGen { // csdp ran for the reference
			o.CSDPStatus, o.CSDPObjective, o.CSDPPrimal, o.CSDPSeconds, o.CSDPCPU = p.CSDPStatus, p.CSDPObjective, p.CSDPPrimal, p.CSDPSeconds, p.CSDPCPU
		}
		fmt.Fprintf(stdout, "%-8s %-8s %-24s %-6s %-15s obj %-14.8g ref %-14.8g %6.2fs (CPU %.2fs) %s rows %.1e/%.1e/%.1e%s\n", o.Set, o.Half, o.Name, o.Grade, o.Status,
			o.Objective, o.Reference, o.Seconds, o.CPUSeconds, o.Solver, o.Rows[0], o.Rows[1], o.Rows[2], csdpNote(&o))
		results = append(results, o)
	}
	table := markdown(results, *route)
	fmt.Fprint(stdout, "\n"+table)
	if *out != "" {
		if err := os.WriteFile(*out+".md", []byte(table), 0o644); err != nil {
			return err
		}
		js, err := json.MarshalIndent(results, "", " ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(*out+".json", js, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// finite returns v with NaN and ±Inf entries replaced by 0 (JSON has no
// such numbers), or nil for nil.
func finite(v []float64) []float64 {
	if v == nil {
		return nil
	}
	out := make([]float64, len(v))
	for i, x := range v {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			out[i] = x
		}
	}
	return out
}

// MarshalJSON writes NaN objectives and references (no value) as null.
func (o outcome) MarshalJSON() ([]byte, error) {
	type plain outcome
	num := func(v float64) *float64 {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil
		}
		return &v
	}
	return json.Marshal(struct {
		plain
		Objective *float64 `json:"objective"`
		Reference *float64 `json:"reference"`
	}{plain(o), num(o.Objective), num(o.Reference)})
}

func csdpNote(o *outcome) string {
	if o.CSDPStatus == "" {
		return ""
	}
	return fmt.Sprintf("  | csdp %s %.8g %.2fs (CPU %.2fs)", o.CSDPStatus, o.CSDPObjective, o.CSDPSeconds, o.CSDPCPU)
}

func loadReference(dir string) (*reference, error) {
	b, err := os.ReadFile(filepath.Join(dir, "reference.json"))
	if err != nil {
		return nil, err
	}
	var r reference
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("reference.json: %w", err)
	}
	return &r, nil
}

func newBackend(route string) (solver.Solver, error) {
	switch route {
	case "auto":
		return auto.New(), nil
	case "ipm":
		return ipm.New(), nil
	case "highs":
		return highs.New(), nil
	}
	return nil, fmt.Errorf("-route is %q, must be auto, ipm or highs", route)
}

// load reads an instance into the standard form; maximize says the file's
// objective is the negated minimum.
func load(path string) (*solver.Problem, bool, error) {
	low := strings.ToLower(path)
	if strings.HasSuffix(low, ".dat-s") {
		f, err := os.Open(path)
		if err != nil {
			return nil, false, err
		}
		defer f.Close()
		p, err := ReadSDPA(f)
		return p, false, err
	}
	if strings.HasSuffix(low, ".cbf") || strings.HasSuffix(low, ".cbf.gz") {
		f, err := cbf.ReadFile(path)
		if err != nil {
			return nil, false, err
		}
		return f.Problem, f.Maximize, nil
	}
	m, err := mathprog.ReadFile(path)
	if err != nil {
		return nil, false, err
	}
	s, err := m.Standard()
	if err != nil {
		return nil, false, err
	}
	return s.Problem, s.Maximize, nil
}

// solveOne solves and grades one instance; the solution is nil when the
// file could not be read or the solver returned an error.
func solveOne(dir string, in *instance, backend solver.Solver, limit time.Duration, useErrata bool) (outcome, *solver.Solution) {
	o := outcome{Name: in.Name, Set: in.Set, Objective: math.NaN(), Reference: math.NaN()}
	if in.Reference != nil {
		o.Reference, o.Tolerance = in.Reference.Value, in.tolerance()
	}
	p, maximize, err := load(filepath.Join(dir, in.File))
	if err != nil {
		o.Grade, o.Status, o.Diagnostic = "fail", "read-error", err.Error()
		return o, nil
	}
	start, cpu0 := time.Now(), cputime.Process()
	ctx, cancel := context.WithTimeout(context.Background(), limit+limit/10)
	defer cancel()
	sol, err := backend.Solve(ctx, p, solver.Settings{TimeLimit: limit})
	o.Seconds, o.CPUSeconds = time.Since(start).Seconds(), (cputime.Process() - cpu0).Seconds()
	if err != nil {
		o.Grade, o.Status, o.Diagnostic = "fail", "error", err.Error()
		return o, nil
	}
	o.Status, o.Solver, o.Fallback, o.Iterations, o.Diagnostic = sol.Status.String(), sol.Solver, sol.Fallback, sol.Iterations, sol.Diagnostic
	if r := sol.Accuracy.Rows; sol.Status.OK() {
		o.Rows = [3]float64{r.Primal, r.Dual, r.Complementarity}
	}
	if sol.Status.OK() {
		o.Objective = sol.Objective
		if maximize {
			o.Objective = -o.Objective
		}
	}
	o.gradeBoth(in, sol.Status, useErrata)
	return o, sol
}

// gradeBoth sets the published grade, and the grade, reference and
// tolerance with in's erratum applied (when useErrata), and the error.
func (o *outcome) gradeBoth(in *instance, st solver.Status, useErrata bool) {
	o.Reference, o.Tolerance, o.Erratum, o.Error = math.NaN(), 0, "", 0
	if in.Reference != nil {
		o.Reference, o.Tolerance = in.Reference.Value, in.tolerance()
	}
	o.Grade = grade(in, st, o.Objective, false)
	o.GradePub = o.Grade
	if c, ev := in.corrected(); useErrata && ev != "" {
		o.Grade, o.Erratum = grade(c, st, o.Objective, false), ev
		if c.Reference != nil {
			o.Reference, o.Tolerance = c.Reference.Value, c.tolerance()
		} else if in.Reference != nil { // withdrawn (erratum.Unknown): no reference
			o.Reference, o.Tolerance = math.NaN(), 0
		}
	}
	if !math.IsNaN(o.Reference) && !math.IsNaN(o.Objective) {
		o.Error = math.Abs(o.Objective - o.Reference)
	}
}

// grade applies the pass rule of reference.json.
func grade(in *instance, st solver.Status, obj float64, maximize bool) string {
	switch in.ExpectedStatus {
	case "infeasible":
		if st == solver.PrimalInfeasible {
			return "pass"
		}
		if st == solver.Optimal {
			return "wrong"
		}
		return "fail"
	case "unbounded":
		if st == solver.DualInfeasible {
			return "pass"
		}
		if st == solver.Optimal {
			return "wrong"
		}
		return "fail"
	}
	if in.Reference == nil {
		return "noref"
	}
	if !st.OK() {
		if (st == solver.PrimalInfeasible || st == solver.DualInfeasible) && in.ExpectedStatus == "optimal" {
			return "fail"
		}
		return "fail"
	}
	if math.Abs(obj-in.Reference.Value) <= in.tolerance() {
		return "pass"
	}
	if st == solver.Optimal {
		return "wrong"
	}
	return "fail"
}

// csdpRatios summarizes the time ratios privopt/CSDP over the instances both
// solve (status optimal or almost-optimal on both sides): the geometric
// mean, median and range, of wall and of CPU time. Empty without CSDP
// results.
func csdpRatios(rs []outcome, label string) string {
	ok := func(s string) bool { return s == "optimal" || s == "almost-optimal" }
	var wall, cpu []float64
	for _, r := range rs {
		if !ok(r.Status) || !ok(r.CSDPStatus) || r.CSDPSeconds <= 0 {
			continue
		}
		wall = append(wall, r.Seconds/r.CSDPSeconds)
		if r.CSDPCPU > 0 && r.CPUSeconds > 0 {
			cpu = append(cpu, r.CPUSeconds/r.CSDPCPU)
		}
	}
	if len(wall) == 0 {
		return ""
	}
	stats := func(v []float64) string {
		if len(v) == 0 {
			return "no data"
		}
		sort.Float64s(v)
		var lg float64
		for _, x := range v {
			lg += math.Log(x)
		}
		med := v[len(v)/2]
		if len(v)%2 == 0 {
			med = (v[len(v)/2-1] + v[len(v)/2]) / 2
		}
		return fmt.Sprintf("geometric mean %.2f, median %.2f, range %.2f–%.2f over %d instances", math.Exp(lg/float64(len(v))), med, v[0], v[len(v)-1], len(v))
	}
	return fmt.Sprintf("\nTime ratio privopt/CSDP on the instances both solve (%s): wall %s; CPU %s.\n", label, stats(wall), stats(cpu))
}

func markdown(rs []outcome, route string) string {
	var b strings.Builder
	type tally struct{ n, pass, wrong, fail, noref, passPub, wrongPub int }
	per := map[string]*tally{}
	var order []string
	for _, r := range rs {
		key := r.Set
		if r.Half != "" {
			key += " (" + r.Half + ")"
		}
		t := per[key]
		if t == nil {
			t = &tally{}
			per[key] = t
			order = append(order, key)
		}
		t.n++
		switch r.GradePub {
		case "pass":
			t.passPub++
		case "wrong":
			t.wrongPub++
		}
		switch r.Grade {
		case "pass":
			t.pass++
		case "wrong":
			t.wrong++
		case "noref":
			t.noref++
		default:
			t.fail++
		}
	}
	fmt.Fprintf(&b, "| library (route %s) | instances | verified pass | wrong optimal | other failures | no reference | as published: pass / wrong |\n|---|---|---|---|---|---|---|\n", route)
	sort.Strings(order)
	for _, s := range order {
		t := per[s]
		graded := t.n - t.noref
		rate := 0.0
		if graded > 0 {
			rate = 100 * float64(t.pass) / float64(graded)
		}
		fmt.Fprintf(&b, "| %s | %d | %d (%.1f%%) | %d | %d | %d | %d / %d |\n", s, t.n, t.pass, rate, t.wrong, t.fail, t.noref, t.passPub, t.wrongPub)
	}
	b.WriteString(csdpRatios(rs, "all"))
	for _, h := range []string{halfTune, halfHeldOut} {
		var part []outcome
		for _, r := range rs {
			if r.Half == h {
				part = append(part, r)
			}
		}
		if len(part) < len(rs) {
			b.WriteString(csdpRatios(part, h))
		}
	}
	fmt.Fprintf(&b, "\n| instance | grade | status | objective | reference | |error| | solver | iterations | seconds | CPU seconds | note |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
	sorted := append([]outcome(nil), rs...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Set < sorted[j].Set })
	for _, r := range sorted {
		note := r.Diagnostic
		if len(note) > 160 {
			note = note[:160] + "…"
		}
		if r.Erratum != "" {
			note = "erratum (published grade " + r.GradePub + "): " + r.Erratum + ". " + note
		}
		note = strings.ReplaceAll(note, "|", "/")
		if r.CSDPStatus != "" {
			note = fmt.Sprintf("csdp %s %.8g in %.2fs (CPU %.2fs). %s", r.CSDPStatus, r.CSDPObjective, r.CSDPSeconds, r.CSDPCPU, note)
		}
		slv := r.Solver
		if r.Fallback != "" {
			slv += " (after " + r.Fallback + ")"
		}
		fmt.Fprintf(&b, "| %s/%s (%s) | %s | %s | %.10g | %.10g | %.2g | %s | %d | %.3f | %.3f | %s |\n", r.Set, r.Name, r.Half, r.Grade, r.Status,
			r.Objective, r.Reference, r.Error, slv, r.Iterations, r.Seconds, r.CPUSeconds, note)
	}
	return b.String()
}

// regradeFile re-applies grade (halves: the split of every instance) (with the errata when useErrata) to the
// outcomes of an earlier run and prints the table.
func regradeFile(path string, ref *reference, halves map[string]string, route string, useErrata bool, stdout io.Writer) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var prev []outcome
	if err := json.Unmarshal(b, &prev); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	var objs []struct { // NaN objectives are written as null
		Objective *float64 `json:"objective"`
	}
	if err := json.Unmarshal(b, &objs); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	byName := map[string]*instance{}
	for i := range ref.Instances {
		byName[ref.Instances[i].Set+"/"+ref.Instances[i].Name] = &ref.Instances[i]
	}
	var out []outcome
	for k, o := range prev {
		o.Objective = math.NaN()
		if v := objs[k].Objective; v != nil {
			o.Objective = *v
		}
		in := byName[o.Set+"/"+o.Name]
		if in == nil {
			return fmt.Errorf("%s: instance %s/%s is not in reference.json", path, o.Set, o.Name)
		}
		st, err := solver.ParseStatus(o.Status)
		if err != nil {
			st = solver.StatusUnknown
		}
		o.gradeBoth(in, st, useErrata)
		o.Half = halves[o.Set+"/"+o.Name]
		out = append(out, o)
	}
	fmt.Fprint(stdout, markdown(out, route))
	return nil
}
