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
	"github.com/privopt/privopt/internal/fileio"
	"github.com/privopt/privopt/mathprog"
	"github.com/privopt/privopt/solver"
	_ "github.com/privopt/privopt/solver/auto" // registers auto, highs and ipm for solver.ByName
)

func init() {
	register(command{name: "solve", summary: "solve a conic program from a .cbf, .mps or .lp file", run: runSolve})
}

const solveUsage = `Usage: privopt solve FILE [--json] [--format F] [--time-limit S] [--solver auto|highs|ipm]

Solves the problem in FILE (.cbf: Conic Benchmark Format; .mps, .qps, .sif:
MPS/QPS, free or fixed; .lp: CPLEX LP format; any of them gzipped with a
further .gz) and prints a summary, or with --json an object
  {"status", "objective", "x", "duals", "psd_duals", "reduced_costs", "solver",
   "fallback", "iterations", "diagnostic", "accuracy",
   "time": {"read", "build", "solve", "total"}}
where objective is in the file's sense (min or max), x lists the CBF scalar
variables in order (for .mps/.lp: the columns), and times are in seconds: read
= parse the file into privopt's standard form, build = validate it and set up
the backend, solve = the backend's solve call, total = all of it.
Duals, in the file's sense (present when the status is optimal):
  .mps/.lp: "duals" has one entry per constraint row in file order, the shadow
    price ∂objective/∂(active bound of the row) (0 for an inactive row), and
    "reduced_costs" one per column, d = c + Hx − Aᵀ·duals, the shadow price of
    the column's active bound (0 for a column between its bounds);
  .cbf: "duals" has one entry per scalar constraint (CON rows; PSDCON rows
    are in "psd_duals"), the dual variable y of the CBF dual problem (y in the dual cone,
    Aᵀy = c for OBJSENSE MIN, Aᵀy = −c for MAX: the file's objective changes
    by −y·δb per change δb of the constraint's constant b for MIN), null for
    rows in the free cone F; for L- rows privopt stores −g, so their dual is
    reported for −g, and EXP*/POW* rows are reported for privopt's scaled
    coordinates; "reduced_costs" has one entry per scalar variable, the part
    c − Aᵀy of the objective not explained by the constraints (the dual of the
    variable's cone domain; 0 for free variables); "psd_duals" has one n×n
    matrix (a list of rows) per PSD constraint F(x) = Σ F_j x_j + G ⪰ 0,
    in file order: the dual matrix Y ⪰ 0 (with the sign convention of
    "duals"), with <F_j, Y> its part of the dual equation for x_j and
    <Y, F(x)> = 0 at an optimum; absent when the file has no PSDCON.
"accuracy" re-checks an optimal answer on the file's data: relative
"primal_residual", "dual_residual", "gap", "primal_cone", "dual_cone",
"sensitivity", and the "primal_objective" and "dual_objective" of the
standard form. Changed in this version: every key is snake_case; the
accuracy keys were PrimalResidual, DualResidual, Gap, PrimalCone, DualCone,
Sensitivity, PrimalObjective and DualObjective.
--format cbf|mps|lp names the format instead of the extension (mps covers
.qps and .sif); FILE "-" reads standard input and needs --format (gzip is
recognized by its magic bytes there too).
--solver auto (package solver/auto) uses HiGHS for LPs and the interior-point
solver for QPs and conic programs, and falls back to the other backend when
an LP/QP answer fails the re-check on the file's data ("fallback" in the JSON
names the rejected backend, "diagnostic" says why).
--time-limit S bounds reading and solving together: the backend stops with
status time-limit when S seconds have passed.
Exit status: 0 optimal, 1 any other outcome or error, 2 bad usage.

Flags:
`

// solveOutput is the JSON output of privopt solve (snake_case keys).
type solveOutput struct {
	Status       string          `json:"status"`
	Objective    *float64        `json:"objective"`
	X            []float64       `json:"x"`
	Duals        []*float64      `json:"duals,omitempty"`
	PSDDuals     [][][]float64   `json:"psd_duals,omitempty"`
	ReducedCosts []float64       `json:"reduced_costs,omitempty"`
	Solver       string          `json:"solver"`
	Fallback     string          `json:"fallback,omitempty"`
	Iterations   int             `json:"iterations"`
	Diagnostic   string          `json:"diagnostic,omitempty"`
	Accuracy     *accuracyOutput `json:"accuracy,omitempty"`
	Time         struct {
		Read  float64 `json:"read"`
		Build float64 `json:"build"`
		Solve float64 `json:"solve"`
		Total float64 `json:"total"`
	} `json:"time"`
}

// accuracyOutput is solver.Accuracy with snake_case keys.
type accuracyOutput struct {
	PrimalResidual  float64 `json:"primal_residual"`
	DualResidual    float64 `json:"dual_residual"`
	Gap             float64 `json:"gap"`
	PrimalCone      float64 `json:"primal_cone"`
	DualCone        float64 `json:"dual_cone"`
	Sensitivity     float64 `json:"sensitivity"`
	PrimalObjective float64 `json:"primal_objective"`
	DualObjective   float64 `json:"dual_objective"`
}

// loaded is a problem read from a file.
type loaded struct {
	problem  *solver.Problem
	format   string // "CBF v3", "MPS", "LP"
	maximize bool
	nScalar  int // leading columns reported as x
	// duals maps the standard-form duals to the file's (see solveUsage)
	duals func(sol *solver.Solution) (duals []*float64, reduced []float64)
	// psdDuals returns the dual matrix of every PSD constraint (CBF only)
	psdDuals func(sol *solver.Solution) [][][]float64
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

// solveStdin is the standard input of privopt solve ("-"); tests replace it.
var solveStdin io.Reader = os.Stdin

// formatOf returns the format ("cbf", "mps", "lp") of path from its
// extension, or the one named by --format.
func formatOf(path, format string) (string, error) {
	if format != "" {
		return format, nil
	}
	if path == "-" {
		return "", usagef("reading standard input (FILE \"-\") needs --format cbf, mps or lp")
	}
	ext := filepath.Ext(strings.TrimSuffix(strings.ToLower(path), ".gz"))
	switch ext {
	case ".cbf", ".lp":
		return ext[1:], nil
	case ".mps", ".qps", ".sif":
		return "mps", nil
	}
	return "", usagef("cannot solve %q: the file extension must be .cbf, .mps, .qps, .sif or .lp (each optionally .gz), or name the format with --format", path)
}

func loadProblem(ctx context.Context, path, format string) (*loaded, error) {
	format, err := formatOf(path, format)
	if err != nil {
		return nil, err
	}
	var r io.Reader
	if path == "-" {
		r, err = fileio.NewReader(solveStdin)
	} else {
		var rc io.ReadCloser
		rc, err = fileio.Open(path)
		if rc != nil {
			defer rc.Close()
		}
		r = rc
	}
	if err != nil {
		return nil, err
	}
	if format == "cbf" {
		f, err := cbf.Read(r)
		if err != nil {
			return nil, err
		}
		return &loaded{problem: f.Problem, format: fmt.Sprintf("CBF v%d", f.Version), maximize: f.Maximize, nScalar: f.NumScalarVars,
			duals:    func(sol *solver.Solution) ([]*float64, []float64) { return cbfDuals(f, sol) },
			psdDuals: func(sol *solver.Solution) [][][]float64 { return cbfPSDDuals(f, sol) }}, nil
	}
	var m *mathprog.Model
	if format == "lp" {
		m, err = mathprog.ReadLP(r, mathprog.Limits{})
	} else {
		m, err = mathprog.ReadMPS(r, mathprog.Limits{})
	}
	if err != nil {
		if path != "-" {
			err = fmt.Errorf("%w (file %s)", err, path)
		}
		return nil, err
	}
	std, err := m.Standard()
	if err != nil {
		return nil, err
	}
	return &loaded{problem: std.Problem, format: strings.ToUpper(format), maximize: std.Maximize, nScalar: std.Problem.NumVars(),
		duals: func(sol *solver.Solution) ([]*float64, []float64) { return mathprogDuals(m, std, sol) }}, nil
}

// mathprogDuals maps the standard-form duals y (Px + q + Aᵀy = 0) of an
// MPS/LP model to shadow prices in the file's sense: standard row k expresses
// bound s_k·(a·x) ≤ s_k·bound of a model row or column, so ∂(file objective)/
// ∂(that bound) = −σ·s_k·y_k with σ = −1 for a maximization; a row's dual sums
// its upper and lower bound rows (at most one is nonzero at an optimum), and
// a column's reduced cost those of its bound rows.
func mathprogDuals(m *mathprog.Model, std *mathprog.Standard, sol *solver.Solution) ([]*float64, []float64) {
	sigma := 1.0
	if std.Maximize {
		sigma = -1
	}
	duals := make([]*float64, m.NumRows())
	for i := range duals {
		duals[i] = new(float64)
	}
	reduced := make([]float64, m.NumCols())
	for k, ref := range std.RowMap {
		v := -sigma * ref.Sign * sol.Y[k]
		if ref.Row >= 0 {
			*duals[ref.Row] += v
		} else {
			reduced[ref.Column] += v
		}
	}
	return duals, reduced
}

// cbfDuals returns the dual of every CBF scalar constraint (σ·y on its row,
// σ = −1 for OBJSENSE MAX; nil for free rows) and the reduced costs
// σ·(q + Px + A_conᵀ y_con) of the scalar variables: the objective gradient
// left after the constraint rows, i.e. the dual of the variables' domains.
func cbfDuals(f *cbf.File, sol *solver.Solution) ([]*float64, []float64) {
	sigma := 1.0
	if f.Maximize {
		sigma = -1
	}
	p := f.Problem
	duals := make([]*float64, len(f.ConRows))
	isCon := make([]bool, p.NumRows())
	for i, r := range f.ConRows {
		if r >= 0 {
			v := sigma * sol.Y[r]
			duals[i] = &v
			isCon[r] = true
		}
	}
	for _, r := range f.PSDConRows {
		// PSD constraint blocks are constraint rows too (their duals are not
		// reported).
		for k := r; k < p.NumRows() && k < r+psdBlockDim(p, r); k++ {
			isCon[k] = true
		}
	}
	g := append([]float64(nil), p.Q...)
	if p.P != nil {
		for j := 0; j < p.P.Cols; j++ {
			for k := p.P.ColPtr[j]; k < p.P.ColPtr[j+1]; k++ {
				i := p.P.RowIdx[k]
				g[i] += p.P.Val[k] * sol.X[j]
				if i != j {
					g[j] += p.P.Val[k] * sol.X[i]
				}
			}
		}
	}
	A := p.A
	for j := 0; j < A.Cols; j++ {
		for k := A.ColPtr[j]; k < A.ColPtr[j+1]; k++ {
			if isCon[A.RowIdx[k]] {
				g[j] += A.Val[k] * sol.Y[A.RowIdx[k]]
			}
		}
	}
	reduced := make([]float64, f.NumScalarVars)
	for j := range reduced {
		reduced[j] = sigma * g[j]
	}
	return duals, reduced
}

// cbfPSDDuals returns the dual matrix of every CBF PSD constraint
// Σⱼ Fⱼxⱼ + G ⪰ 0, in file order: σ·Y with Y = smat(y) ⪰ 0 the dual of the
// constraint's svec block (σ = −1 for OBJSENSE MAX, as for scalar rows),
// unpacked to a full symmetric matrix (off-diagonal svec entries divided by
// √2), so that the objective of a minimization changes by −⟨Y, δG⟩ per
// change δG of the constant matrix, and for OBJSENSE MIN the CBF dual reads
// Σᵢ aᵢⱼyᵢ + ⟨Fⱼ, Y⟩ = cⱼ for a free scalar variable j.
func cbfPSDDuals(f *cbf.File, sol *solver.Solution) [][][]float64 {
	if len(f.PSDConRows) == 0 {
		return nil
	}
	sigma := 1.0
	if f.Maximize {
		sigma = -1
	}
	p := f.Problem
	out := make([][][]float64, len(f.PSDConRows))
	for c, r := range f.PSDConRows {
		y := make([]float64, psdBlockDim(p, r))
		for k := range y {
			y[k] = sigma * sol.Y[r+k]
		}
		Y, err := cone.SMat(nil, y) // the block of a PSD cone has a triangular length
		if err != nil {
			continue
		}
		n := Y.SymmetricDim()
		out[c] = make([][]float64, n)
		for i := range out[c] {
			out[c][i] = make([]float64, n)
			for j := range out[c][i] {
				out[c][i][j] = Y.At(i, j)
			}
		}
	}
	return out
}

// psdBlockDim returns the dimension of the cone block starting at row r.
func psdBlockDim(p *solver.Problem, r int) int {
	row := 0
	for _, k := range p.Cones {
		if row == r {
			return k.Dim
		}
		row += k.Dim
	}
	return 0
}

// parseSolveArgs parses flags that may appear before or after FILE.
func parseSolveArgs(args []string, stderr io.Writer) (file string, jsonOut bool, limit time.Duration, backend, format string, err error) {
	fs := flag.NewFlagSet("solve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), solveUsage)
		fs.PrintDefaults()
	}
	j := fs.Bool("json", false, "print the result as JSON")
	tl := fs.Float64("time-limit", 0, "time limit in seconds for reading and solving (0: none)")
	sv := fs.String("solver", "auto", "backend: auto, highs or ipm")
	fm := fs.String("format", "", "file format cbf, mps or lp (default: from the extension; required for FILE \"-\", standard input)")
	var files []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return "", false, 0, "", "", err
			}
			return "", false, 0, "", "", usagef("%v", err)
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(files) != 1 {
		return "", false, 0, "", "", usagef("want exactly one FILE, got %d (see 'privopt solve -h')", len(files))
	}
	if err := checkFlags(
		floatIn("time-limit", *tl, 0, 1e9, closed), // 1e9 s: time.Duration's range is 292 years
		oneOf("solver", *sv, "auto", "highs", "ipm"),
	); err != nil {
		return "", false, 0, "", "", err
	}
	if *fm != "" {
		if err := checkFlags(oneOf("format", *fm, "cbf", "mps", "lp")); err != nil {
			return "", false, 0, "", "", err
		}
	}
	return files[0], *j, time.Duration(*tl * float64(time.Second)), *sv, *fm, nil
}

func runSolve(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	file, jsonOut, limit, backend, format, err := parseSolveArgs(args, stderr)
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
	ld, err := loadProblem(runCtx, file, format)
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
		a := sol.Accuracy
		out.Accuracy = &accuracyOutput{a.PrimalResidual, a.DualResidual, a.Gap, a.PrimalCone, a.DualCone, a.Sensitivity, a.PrimalObjective, a.DualObjective}
	}
	if sol.Status.OK() {
		obj := sol.Objective
		if ld.maximize {
			obj = -obj
		}
		out.Objective = &obj
		out.X = sol.X[:ld.nScalar]
		if len(sol.Y) == p.NumRows() {
			out.Duals, out.ReducedCosts = ld.duals(sol)
			if ld.psdDuals != nil {
				out.PSDDuals = ld.psdDuals(sol)
			}
		}
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
