package main

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// writeSlowLP writes a random sparse LP (8,000 columns, 16,000 rows, 6
// nonzeros per row) in CBF: its KKT factorizations fill in, so the IPM runs
// for a minute or more — long enough to be interrupted.
func writeSlowLP(t *testing.T, path string) {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	const n, m, perRow = 8000, 16000, 6
	var b bytes.Buffer
	w := bufio.NewWriter(&b)
	fmt.Fprintf(w, "VER\n3\nOBJSENSE\nMIN\nVAR\n%d 1\nL+ %d\nCON\n%d 1\nL+ %d\nOBJACOORD\n%d\n", n, n, m, m, n)
	for j := 0; j < n; j++ {
		fmt.Fprintf(w, "%d %.6f\n", j, 0.5+rng.Float64())
	}
	fmt.Fprintf(w, "ACOORD\n%d\n", m*perRow)
	for i := 0; i < m; i++ {
		for _, j := range rng.Perm(n)[:perRow] {
			fmt.Fprintf(w, "%d %d %.6f\n", i, j, 2*rng.Float64()-1)
		}
	}
	fmt.Fprintf(w, "BCOORD\n%d\n", m)
	for i := 0; i < m; i++ {
		fmt.Fprintf(w, "%d %.6f\n", i, 1+rng.Float64())
	}
	w.Flush()
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSIGINTStopsCommands builds privopt, starts long-running commands (the
// IPM on a large LP, the optimal-noise cutting planes on HiGHS, ten million
// crypto/rand samples, a private DC-OPF by vertex sampling at a tiny η, a
// private logistic regression by program perturbation), sends os.Interrupt once each has run for a second,
// and checks that the process exits with status 1 reporting the
// cancellation. The latency from the signal to the exit is the measured
// outcome: the acceptance target is 1 s; the test fails above 5 s (a
// generous bound for a loaded machine) and logs every latency.
func TestSIGINTStopsCommands(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("os.Interrupt cannot be sent to a process on Windows")
	}
	dir := t.TempDir()
	bin := privoptBinary(t)
	lp := filepath.Join(dir, "slow.cbf")
	writeSlowLP(t, lp)
	csv := filepath.Join(dir, "regress.csv")
	writeRegressionCSV(t, csv, 50000, 30)
	for _, c := range []struct {
		name string
		args []string
	}{
		{"solve-ipm", []string{"solve", "--solver", "ipm", lp}},
		{"noise-optimal", []string{"noise", "optimal", "--epsilon", "1", "--delta", "1e-6", "--gap", "1e-5", "--intervals", "2000"}},
		{"noise-samples", []string{"noise", "laplace", "--epsilon", "1", "--samples", "10000000"}},
		// vertex sampling at η = 1e-9 needs ~10¹⁰ scenarios' worth of rows
		{"opf-vertex-eta-1e-9", []string{"opf", "--case", demoCase, "--query", "cost", "--eta", "1e-9"}},
		// program perturbation of a logistic fit: 100,000 exponential
		// cones (50,000 rows), about 7 s of interior-point iterations on
		// a machine where 5,000 rows took 0.6 s (finished before the
		// signal)
		{"regress-logistic-program", []string{"regress", "--data", csv, "--target", "y", "--model", "logistic", "--epsilon", "1", "--strategy", "program"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(bin, c.args...)
			var stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = nil, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			select {
			case err := <-exited:
				t.Fatalf("finished before the signal (%v): make the workload longer\n%s", err, stderr.String())
			case <-time.After(time.Second):
			}
			sent := time.Now()
			if err := cmd.Process.Signal(os.Interrupt); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-exited:
				latency := time.Since(sent)
				t.Logf("%s: exited %v after the signal (%v)", c.name, latency.Round(time.Millisecond), err)
				if latency > 5*time.Second {
					t.Errorf("%s: exit took %v after SIGINT", c.name, latency)
				}
				if code := cmd.ProcessState.ExitCode(); code != 1 {
					t.Errorf("%s: exit code %d, want 1\n%s", c.name, code, stderr.String())
				}
				msg := stderr.String()
				if !strings.Contains(msg, "cancel") {
					t.Errorf("%s: stderr does not report the cancellation:\n%s", c.name, msg)
				}
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("%s: still running 30 s after SIGINT", c.name)
			}
		})
	}
}

// TestTimeLimitHonoured runs the IPM on the slow LP with --time-limit 2: the
// status must be time-limit; the wall time of the whole command (read, setup,
// solve) is the measured outcome, logged, with a failure only beyond 2 s +
// 50% (the acceptance target is 10%; a loaded machine adds noise).
func TestTimeLimitHonoured(t *testing.T) {
	dir := t.TempDir()
	lp := filepath.Join(dir, "slow.cbf")
	writeSlowLP(t, lp)
	start := time.Now()
	code, out, errs := runCmd(t, "solve", "--solver", "ipm", "--time-limit", "2", lp)
	wall := time.Since(start)
	t.Logf("--time-limit 2: wall %v", wall.Round(time.Millisecond))
	if code != 1 || !strings.Contains(out, "status     time-limit") {
		t.Fatalf("exit %d, stdout %q, stderr %q; want status time-limit", code, out, errs)
	}
	if wall > 3*time.Second {
		t.Errorf("--time-limit 2 took %v", wall)
	}
}

// writeRegressionCSV writes a random regression data set with d features
// x0..x(d−1) ~ N(0, 1) and a target y = x0 + x1 + x2 + N(0, 1), n rows.
func writeRegressionCSV(t *testing.T, path string, n, d int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(3, 4))
	var b bytes.Buffer
	for j := 0; j < d; j++ {
		fmt.Fprintf(&b, "x%d,", j)
	}
	b.WriteString("y\n")
	x := make([]float64, d)
	for i := 0; i < n; i++ {
		for j := range x {
			x[j] = rng.NormFloat64()
			fmt.Fprintf(&b, "%.4f,", x[j])
		}
		fmt.Fprintf(&b, "%.4f\n", x[0]+x[1]+x[2]+rng.NormFloat64())
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// privoptBinary builds privopt once per test run into a temporary directory
// (removed by TestMain) and returns its path.
func privoptBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "privopt-bin")
		if err != nil {
			binErr = err
			return
		}
		binDir = dir
		binPath = filepath.Join(dir, "privopt")
		if out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput(); err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

var binDir string

// TestMain removes the binary privoptBinary built.
func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}
