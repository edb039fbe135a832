package main

import (
	"context"
	"encoding/json"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/privopt/privopt/bench/internal/cputime"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/auto"
	"github.com/privopt/privopt/solver/ipm"
)

// TestDiagSDPAFile is a measurement, not a check: it solves the SDPA file
// named by PRIVOPT_DIAG_SDPA on the default route with the iteration log on
// standard output and prints the status, objective, iterations and CPU
// seconds. Skipped without the variable.
func TestDiagSDPAFile(t *testing.T) {
	path := os.Getenv("PRIVOPT_DIAG_SDPA")
	if path == "" {
		t.Skip("PRIVOPT_DIAG_SDPA not set")
	}
	p := readSDPAFile(t, path)
	cpu0 := cputime.Process()
	sol, err := auto.New().Solve(context.Background(), p, solver.Settings{TimeLimit: 300 * time.Second, Log: os.Stdout})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %v objective %.9g iterations %d CPU %.2f s (%s)", path, sol.Status, sol.Objective,
		sol.Iterations, (cputime.Process() - cpu0).Seconds(), sol.Diagnostic)
}

// TestDiagSDPAPoint is a measurement, not a check: it solves the SDPA file
// named by PRIVOPT_DIAG_SDPA with the IPM at FeasTol = GapTol = 1e-12 and
// writes x as {"x": [...]} to the file named by PRIVOPT_DIAG_POINT (the
// input of scripts/bench/sdpa_upper_check.py). Skipped without the
// variables.
func TestDiagSDPAPoint(t *testing.T) {
	path, out := os.Getenv("PRIVOPT_DIAG_SDPA"), os.Getenv("PRIVOPT_DIAG_POINT")
	if path == "" || out == "" {
		t.Skip("PRIVOPT_DIAG_SDPA or PRIVOPT_DIAG_POINT not set")
	}
	p := readSDPAFile(t, path)
	sv, err := ipm.NewWithSettings(ipm.Settings{FeasTol: 1e-12, GapTol: 1e-12, ReducedFeasTol: 1e-8, ReducedGapTol: 1e-8})
	if err != nil {
		t.Fatal(err)
	}
	sol, err := sv.Solve(context.Background(), p, solver.Settings{TimeLimit: 300 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	xs := make([]string, len(sol.X))
	for i, v := range sol.X {
		xs[i] = strconv.FormatFloat(v, 'g', 17, 64)
	}
	b, _ := json.Marshal(map[string][]string{"x": xs})
	if err := os.WriteFile(out, b, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %v objective %.12g iterations %d (%s)", path, sol.Status, sol.Objective, sol.Iterations, sol.Diagnostic)
}

// readSDPAFile reads the SDPA file at path (the test fails on an error).
func readSDPAFile(t *testing.T, path string) *solver.Problem {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := ReadSDPA(f)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
