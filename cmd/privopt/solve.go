package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/privopt/privopt/cbf"
	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/mathprog"
	"github.com/privopt/privopt/solver"
	_ "github.com/privopt/privopt/solver/auto" // registers auto, highs and ipm for solver.ByName
)

func init() {
	register(command{name: "solve", summary: "solve a conic program from a .cbf, .mps or .lp file", run: runSolve})
}

const solveUsage = `Usage: privopt solve FILE [--json] [--time-limit S] [--solver auto|highs|ipm]

Solves the problem in FILE (.cbf: Conic Benchmark Format; .mps, .qps, .sif:
MPS/QPS, free or fixed; .lp: CPLEX LP format; any of them gzipped with a
further .gz) and prints a summary, or with --json an object
  {"status", "objective", "x", "solver", "iterations",
   "time": {"read", "build", "solve", "total"}}
where objective is in the file's sense (min or max), x lists the CBF scalar
variables in order (for .mps/.lp: the columns), and times are in seconds: read
= parse the file into privopt's standard form, build = validate it and set up
the backend, solve = the backend's solve call, total = all of it.
--solver auto (package solver/auto) uses HiGHS for LPs and the interior-point
solver for QPs and conic programs, and falls back to the other backend when
an LP/QP answer fails the re-check on the file's data ("fallback" in the JSON
names the rejected backend, "diagnostic" says why).
--time-limit S bounds reading and solving together: the backend stops with
status time-limit when S seconds have passed.
Exit status: 0 optimal, 1 any other outcome or error, 2 bad usage.

Flags:
`

// solveOutput is the JSON output of privopt solve.
type solveOutput struct {
	Status     string           `json:"status"`
	Objective  *float64         `json:"objective"`
	X          []float64        `json:"x"`
	Solver     string           `json:"solver"`
	Fallback   string           `json:"fallback,omitempty"`
	Iterations int              `json:"iterations"`
	Diagnostic string           `json:"diagnostic,omitempty"`
	Accuracy   *solver.Accuracy `json:"accuracy,omitempty"`
	Time       struct {
		Read  float64 `json:"read"`
		Build float64 `json:"build"`
		Solve float64 `json:"solve"`
		Total float64 `json:"total"`
	} `json:"time"`
}

// loaded is a problem read from a file.
type loaded struct {
	problem  *solver.Problem
	format   string // "CBF v3", "MPS", "LP"
	maximize bool
	nScalar  int // leading columns reported as x
}

// solveAbandonable runs the backend in its own goroutine and returns its
// result, or — when ctx is done first (SIGINT, or the --time-limit deadline
// that follows the backend's own limit by 5%) — a solution with status
// Cancelled. Backends poll the context themselves; this bounds the command's
// time also where they cannot (the sparse LDLᵀ's symbolic analysis, a C
// library's setup). The abandoned goroutine runs on until it returns or the
// process exits, which for the CLI is immediately after.
func solveAbandonable(ctx context.Context, s solver.Solver, p *solver.Problem, set solver.Settings) (*solver.Solution, error) {
	type result struct {
		sol *solver.Solution
		err error
	}
	done := make(chan result, 1)
	go func() {
		sol, err := s.Solve(ctx, p, set)
		done <- result{sol, err}
	}()
	select {
	case r := <-done:
		return r.sol, r.err
	case <-ctx.Done():
		select {
		case r := <-done: // the backend noticed the context in time
			return r.sol, r.err
		case <-time.After(100 * time.Millisecond):
		}
		return &solver.Solution{Status: solver.Cancelled, Solver: s.Name()}, nil
	}
}

func loadProblem(ctx context.Context, path string) (*loaded, error) {
	lower := strings.ToLower(path)
	ext := filepath.Ext(strings.TrimSuffix(lower, ".gz"))
	switch ext {
	case ".cbf", ".mps", ".qps", ".sif", ".lp":
	default:
		return nil, usagef("cannot solve %q: the file extension must be .cbf, .mps, .qps, .sif or .lp (each optionally .gz)", path)
	}
	if _, err := os.Stat(path); err != nil {
		return nil, err
	}
	if ext == ".cbf" {
		f, err := cbf.ReadFile(path)
		if err != nil {
			return nil, err
		}
		return &loaded{problem: f.Problem, format: fmt.Sprintf("CBF v%d", f.Version), maximize: f.Maximize, nScalar: f.NumScalarVars}, nil
	}
	m, err := mathprog.ReadFile(path)
	if err != nil {
		return nil, err
	}
	std, err := m.Standard()
	if err != nil {
		return nil, err
	}
	return &loaded{problem: std.Problem, format: strings.ToUpper(ext[1:]), maximize: std.Maximize, nScalar: std.Problem.NumVars()}, nil
}

// parseSolveArgs parses flags that may appear before or after FILE.
func parseSolveArgs(args []string, stderr io.Writer) (file string, jsonOut bool, limit time.Duration, backend string, err error) {
	fs := flag.NewFlagSet("solve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), solveUsage)
		fs.PrintDefaults()
	}
	j := fs.Bool("json", false, "print the result as JSON")
	tl := fs.Float64("time-limit", 0, "time limit in seconds for reading and solving (0: none)")
	sv := fs.String("solver", "auto", "backend: auto, highs or ipm")
	var files []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return "", false, 0, "", err
			}
			return "", false, 0, "", usagef("%v", err)
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(files) != 1 {
		return "", false, 0, "", usagef("want exactly one FILE, got %d (see 'privopt solve -h')", len(files))
	}
	if err := checkFlags(
		floatIn("time-limit", *tl, 0, 1e9, closed), // 1e9 s: time.Duration's range is 292 years
		oneOf("solver", *sv, "auto", "highs", "ipm"),
	); err != nil {
		return "", false, 0, "", err
	}
	return files[0], *j, time.Duration(*tl * float64(time.Second)), *sv, nil
}

func runSolve(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	file, jsonOut, limit, backend, err := parseSolveArgs(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	start := time.Now()
	// --time-limit bounds the whole command: the backends stop themselves at
	// the limit (status time-limit); the context's deadline, 5% later, also
	// abandons a file reader or a backend that overruns it.
	runCtx := ctx
	if limit > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, limit+limit/20)
		defer cancel()
	}
	ld, err := loadProblem(runCtx, file)
	if err != nil {
		return err
	}
	tRead := time.Since(start)

	buildStart := time.Now()
	p := ld.problem
	if err := p.Validate(); err != nil {
		return err
	}
	s, err := solver.ByName(backend) // checked by parseSolveArgs
	if err != nil {
		return err
	}
	settings := solver.Settings{TimeLimit: limit}
	tBuild := time.Since(buildStart)

	solveStart := time.Now()
	settings.TimeLimit = max(0, limit-time.Since(start)) // what is left of it
	if limit > 0 && settings.TimeLimit == 0 {
		settings.TimeLimit = time.Nanosecond
	}
	sol, err := solveAbandonable(runCtx, s, p, settings)
	tSolve := time.Since(solveStart)
	if err != nil {
		return err // backend errors are prefixed with the backend's name
	}
	if sol.Status == solver.Cancelled && ctx.Err() == nil && runCtx.Err() != nil {
		sol.Status = solver.TimeLimit // our deadline, not the user's interrupt
	}
	tTotal := time.Since(start)

	var out solveOutput
	out.Status = sol.Status.String()
	out.Solver = sol.Solver
	out.Iterations = sol.Iterations
	out.Diagnostic = sol.Diagnostic
	out.Fallback = sol.Fallback
	if sol.Status.OK() {
		out.Accuracy = &sol.Accuracy
	}
	if sol.Status.OK() {
		obj := sol.Objective
		if ld.maximize {
			obj = -obj
		}
		out.Objective = &obj
		out.X = sol.X[:ld.nScalar]
	}
	out.Time.Read = tRead.Seconds()
	out.Time.Build = tBuild.Seconds()
	out.Time.Solve = tSolve.Seconds()
	out.Time.Total = tTotal.Seconds()
	if jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return err
		}
	} else {
		printSummary(stdout, file, ld, &out)
	}
	if !sol.Status.OK() {
		return fmt.Errorf("%s: status %s: %w", file, sol.Status, sol.Status.Err())
	}
	return nil
}

func printSummary(w io.Writer, file string, ld *loaded, out *solveOutput) {
	p := ld.problem
	sense := "minimize"
	if ld.maximize {
		sense = "maximize"
	}
	count := map[cone.Kind]int{}
	for _, c := range p.Cones {
		count[c.Kind] += c.Dim
	}
	kinds := make([]string, 0, len(count))
	for k, d := range count {
		kinds = append(kinds, fmt.Sprintf("%v %d", k, d))
	}
	sort.Strings(kinds)
	fmt.Fprintf(w, "file       %s (%s, %s)\n", file, ld.format, sense)
	fmt.Fprintf(w, "size       %d variables, %d rows (%s), %d nonzeros\n", p.NumVars(), p.NumRows(), strings.Join(kinds, ", "), p.A.Nnz())
	fmt.Fprintf(w, "solver     %s, %d iterations\n", out.Solver, out.Iterations)
	fmt.Fprintf(w, "status     %s\n", out.Status)
	if out.Objective != nil {
		fmt.Fprintf(w, "objective  %.10g\n", *out.Objective)
		const show = 8
		if len(out.X) <= show {
			fmt.Fprintf(w, "x          %v\n", fmtVec(out.X))
		} else {
			fmt.Fprintf(w, "x          %v … (first %d of %d)\n", fmtVec(out.X[:show]), show, len(out.X))
		}
	}
	fmt.Fprintf(w, "time       read %s, build %s, solve %s, total %s\n",
		solveSecs(out.Time.Read), solveSecs(out.Time.Build), solveSecs(out.Time.Solve), solveSecs(out.Time.Total))
}

func fmtVec(v []float64) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = fmt.Sprintf("%.6g", x)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func solveSecs(s float64) string { return fmt.Sprintf("%.3gs", s) }
