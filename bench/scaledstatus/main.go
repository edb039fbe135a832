// Command scaledstatus cross-checks the statuses of privopt's backends on the
// badly scaled instances of the hostile-input benchmark (internal/solvertest:
// 500 LPs and SOCPs with a constructed status, 100 primal-and-dual
// infeasible ones) against CVXOPT, an independent interior-point solver.
//
// It is an optional script, never run by make test: it needs Debian's
// python3-cvxopt and calls bench/ipmvscvxopt/cvxopt_solve.py (solvers.conelp
// at abstol = reltol = feastol = 1e-8) on every -every'th instance of both
// suites, after solving them with the default route (solver/auto), the IPM
// and (LPs) HiGHS. It prints one line per instance and a tally: how often each
// solver returns the constructed status, and how often CVXOPT's status agrees
// with the default route's. On the primal-and-dual infeasible instances
// CVXOPT's "dual infeasible" is counted apart: its homogeneous embedding
// returns whichever certificate it finds first, and these problems have both.
//
// Usage (from the module root):
//
//	go run ./bench/scaledstatus [-every 5] [-python /usr/bin/python3]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/privopt/privopt/bench/internal/cvxoptjson"
	"github.com/privopt/privopt/internal/solvertest"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/auto"
	"github.com/privopt/privopt/solver/highs"
	"github.com/privopt/privopt/solver/ipm"
)

func main() {
	every := flag.Int("every", 5, "cross-check every n-th instance of each suite (1: all 600)")
	python := flag.String("python", "/usr/bin/python3", "Python interpreter with cvxopt")
	flag.Parse()
	if *every < 1 {
		fmt.Fprintf(os.Stderr, "scaledstatus: -every is %d, must be ≥ 1\n", *every)
		os.Exit(2)
	}
	var insts []solvertest.Instance
	for si, suite := range [][]solvertest.Instance{solvertest.Suite(), solvertest.PrimalDualSuite()} {
		for k, in := range suite {
			if k%*every != 0 {
				continue
			}
			if si == 1 {
				in.Name = "pd-" + in.Name // primal and dual infeasible
			}
			insts = append(insts, in)
		}
	}
	dir, err := os.MkdirTemp("", "scaledstatus")
	if err != nil {
		fatal(err)
	}
	defer os.RemoveAll(dir)
	var files []string
	for _, in := range insts {
		f := filepath.Join(dir, in.Name+".json")
		if err := cvxoptjson.Write(f, in.Name, in.Problem); err != nil {
			fatal(err)
		}
		files = append(files, f)
	}
	py := map[string]cvxoptjson.Result{}
	cmd := exec.Command(*python, append([]string{cvxoptjson.ScriptPath()}, files...)...)
	cmd.Env = append(os.Environ(), "OPENBLAS_NUM_THREADS=1", "OMP_NUM_THREADS=1")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		fmt.Fprintf(os.Stderr, "scaledstatus: CVXOPT failed or is missing (%v): install python3-cvxopt\n", err)
		os.Exit(1)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var r cvxoptjson.Result
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			fatal(fmt.Errorf("cvxopt_solve.py output %q: %v", line, err))
		}
		if r.Error != "" {
			r.Status = "error"
		}
		py[r.Name] = r
	}

	solvers := []solver.Solver{auto.New(), ipm.New(), highs.New()}
	right := map[string]int{}
	ran := map[string]int{}
	// per suite (0: constructed statuses, 1: primal and dual infeasible)
	var agree, cvxUndecided, cvxDisagree, pdDual [2]int
	fmt.Printf("%-26s %-11s | %-11s %-11s %-15s | %-11s\n", "instance", "constructed", "auto", "ipm", "highs", "cvxopt")
	for _, in := range insts {
		got := map[string]string{}
		for _, s := range solvers {
			if s.Name() == "highs" && !in.Problem.IsLinearConic() {
				got[s.Name()] = "-"
				continue
			}
			sol, err := s.Solve(context.Background(), in.Problem, solver.Settings{})
			st := "error"
			if err == nil {
				st = sol.Status.String()
				if sol.Status == solver.AlmostOptimal {
					st = solver.Optimal.String()
				}
			}
			got[s.Name()] = st
			ran[s.Name()]++
			if st == in.Want.String() {
				right[s.Name()]++
			}
		}
		c := py[in.Name].Status
		if c == "" {
			c = "missing"
		}
		ran["cvxopt"]++
		if c == in.Want.String() {
			right["cvxopt"]++
		}
		si := 0
		if strings.HasPrefix(in.Name, "pd-") {
			si = 1
		}
		switch {
		case c == got["auto"]:
			agree[si]++
		case si == 1 && c == "unbounded":
			// CVXOPT's "dual infeasible" is a certificate of dual
			// infeasibility, which these problems also have.
			pdDual[si]++
		case c == "optimal" || c == "infeasible" || c == "unbounded":
			cvxDisagree[si]++
		default:
			cvxUndecided[si]++
		}
		fmt.Printf("%-26s %-11s | %-11s %-11s %-15s | %-11s\n", in.Name, in.Want, got["auto"], got["ipm"], got["highs"], c)
	}
	fmt.Println()
	for _, name := range []string{"auto", "ipm", "highs", "cvxopt"} {
		fmt.Printf("%-7s constructed status on %d of %d\n", name, right[name], ran[name])
	}
	for si, suite := range []string{"constructed statuses", "primal and dual infeasible"} {
		fmt.Printf("CVXOPT vs auto, %s: %d agree, %d disagree with a decided status, %d undecided (unknown or error)", suite, agree[si], cvxDisagree[si], cvxUndecided[si])
		if si == 1 {
			fmt.Printf(", %d \"dual infeasible\" (CVXOPT reports the dual certificate it finds first)", pdDual[si])
		}
		fmt.Println()
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "scaledstatus:", err)
	os.Exit(1)
}
