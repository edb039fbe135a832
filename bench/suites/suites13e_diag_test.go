package main

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/privopt/privopt/bench/internal/cputime"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/auto"
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
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := ReadSDPA(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	cpu0 := cputime.Process()
	sol, err := auto.New().Solve(context.Background(), p, solver.Settings{TimeLimit: 300 * time.Second, Log: os.Stdout})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %v objective %.9g iterations %d CPU %.2f s (%s)", path, sol.Status, sol.Objective,
		sol.Iterations, (cputime.Process() - cpu0).Seconds(), sol.Diagnostic)
}
