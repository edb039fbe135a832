package ledger

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/privopt/privopt/accounting"
)

// The acceptance tests below re-execute the test binary as a child process
// that plays a releasing program: open the ledger, Spend, and only after Spend
// returned nil "release" (append the query name to a release file and fsync
// it). Children are selected by environment variables.
const (
	envChild   = "PRIVOPT_LEDGER_CHILD"
	envPath    = "PRIVOPT_LEDGER_PATH"
	envDataset = "PRIVOPT_LEDGER_DATASET"
	envOut     = "PRIVOPT_LEDGER_RELEASES"
	envEps     = "PRIVOPT_LEDGER_EPS"
)

func TestMain(m *testing.M) {
	if os.Getenv(envChild) != "" {
		os.Exit(childMain())
	}
	os.Exit(m.Run())
}

// childMain spends ε = $EPS on $DATASET until the budget refuses, releasing
// after each admitted spend; it prints the number of releases.
func childMain() int {
	ctx := context.Background()
	eps, err := strconv.ParseFloat(os.Getenv(envEps), 64)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	l, err := Open(ctx, os.Getenv(envPath), Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	defer l.Close()
	out, err := os.OpenFile(os.Getenv(envOut), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	defer out.Close()
	ds := os.Getenv(envDataset)
	n := 0
	for i := 0; ; i++ {
		q := fmt.Sprintf("%s/%d/%d", ds, os.Getpid(), i)
		err := l.Spend(ctx, ds, Entry{Query: q, Mechanism: "laplace", Cost: accounting.Cost{Epsilon: eps},
			Sensitivity: "1 declared, not verified", Guarantee: "test"})
		if errors.Is(err, ErrBudgetExceeded) {
			break
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 3
		}
		// The release: only after the spend is committed.
		if _, err := out.WriteString(q + "\n"); err != nil {
			return 3
		}
		if err := out.Sync(); err != nil {
			return 3
		}
		n++
	}
	fmt.Println(n)
	return 0
}

func child(t *testing.T, path, dataset, releases string, eps float64) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), envChild+"=1", envPath+"="+path, envDataset+"="+dataset,
		envOut+"="+releases, envEps+"="+strconv.FormatFloat(eps, 'g', -1, 64))
	return cmd
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}

// TestKillDuringSpend is the crash acceptance test: 200 times, a child
// spends ε = 1/16 against a budget of ε = 1 (16 releases fit) and is killed
// with SIGKILL after a random delay; then the ledger must open cleanly, its
// hash chain must verify, every release the child made must have its spend
// recorded, and the recorded spend must not exceed the budget. Three kills
// in four wait for a random number j ∈ [0, 15] of releases and then a random
// fraction of one spend's duration (T/16, T the measured duration of an
// unkilled child), so they land inside the spend/release sequence whatever the
// machine's speed; the others use a delay uniform on [0, 1.2·T].
func TestKillDuringSpend(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "budget.db")
	l, err := Open(ctx, path, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	const eps = 1.0 / 16
	// Calibrate T on one unkilled run.
	init := func(ds string) {
		l, err := Open(ctx, path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		must(t, l.Init(ctx, ds, accounting.Budget{Epsilon: 1}))
	}
	init("calibrate")
	start := time.Now()
	out, err := child(t, path, "calibrate", filepath.Join(dir, "calibrate.txt"), eps).Output()
	if err != nil {
		t.Fatalf("calibration child: %v", err)
	}
	T := time.Since(start)
	if strings.TrimSpace(string(out)) != "16" {
		t.Fatalf("unkilled child released %q times, want 16", out)
	}
	rng := rand.New(rand.NewPCG(12, 2026))
	runs := 200
	var killed, midway, totalReleases, orphanSpends int
	for r := 0; r < runs; r++ {
		ds := fmt.Sprintf("run%03d", r)
		init(ds)
		rel := filepath.Join(dir, ds+".txt")
		cmd := child(t, path, ds, rel, eps)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		// Three runs in four: wait until the child has released j times
		// (j uniform in 0..15), then a random fraction of one spend's
		// duration; otherwise a uniform delay in [0, 1.2·T] (kills during
		// start-up and open as well).
		var wait <-chan time.Time
		if r%4 != 0 {
			j := rng.IntN(16)
			for finished := false; !finished && len(readLines(t, rel)) < j; {
				select {
				case err := <-done:
					done <- err
					finished = true
				case <-time.After(200 * time.Microsecond):
				}
			}
			wait = time.After(time.Duration(rng.Float64() * float64(T) / 16))
		} else {
			wait = time.After(time.Duration(rng.Float64() * 1.2 * float64(T)))
		}
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("run %d: child failed before the kill: %v", r, err)
			}
		case <-wait:
			_ = cmd.Process.Signal(syscall.SIGKILL)
			if err := <-done; err != nil {
				killed++
			}
		}
		// Check the invariant.
		l, err := Open(ctx, path, Options{})
		if err != nil {
			t.Fatalf("run %d: ledger does not open after SIGKILL: %v", r, err)
		}
		st, err := l.Status(ctx, ds)
		l.Close()
		if err != nil {
			t.Fatalf("run %d: %v", r, err)
		}
		recorded := map[string]bool{}
		for _, e := range st.Releases {
			recorded[e.Query] = true
		}
		lines := readLines(t, rel)
		for _, q := range lines {
			if !recorded[q] {
				t.Fatalf("run %d: release %q has no recorded spend", r, q)
			}
		}
		if len(st.Releases) > 16 || st.Spent.Epsilon > 1 {
			t.Fatalf("run %d: %d spends, ε %v recorded against budget 1", r, len(st.Releases), st.Spent.Epsilon)
		}
		if len(lines) > 0 && len(lines) < 16 {
			midway++
		}
		totalReleases += len(lines)
		orphanSpends += len(st.Releases) - len(lines)
	}
	t.Logf("%d runs, unkilled child T = %v (loaded machine); %d killed by SIGKILL, %d killed after 1–15 of 16 releases; %d releases checked, all with recorded spends; %d spends without release (killed between commit and release)",
		runs, T, killed, midway, totalReleases, orphanSpends)
	if midway == 0 {
		t.Errorf("no kill landed between spends; the test did not exercise the crash path")
	}
}

// TestConcurrentProcesses: 8 processes spend ε = 1/64 each against one budget
// ε = 1 until refused. Exactly 64 spends must be admitted in total (the
// budget is filled, never exceeded), matching the releases the processes
// report and the rows of the log.
func TestConcurrentProcesses(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "budget.db")
	l, err := Open(ctx, path, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	must(t, l.Init(ctx, "shared", accounting.Budget{Epsilon: 1}))
	l.Close()
	const procs = 8
	cmds := make([]*exec.Cmd, procs)
	outs := make([]*strings.Builder, procs)
	for i := range cmds {
		cmds[i] = child(t, path, "shared", filepath.Join(dir, "releases.txt"), 1.0/64)
		outs[i] = new(strings.Builder)
		cmds[i].Stdout = outs[i]
		var stderr strings.Builder
		cmds[i].Stderr = &stderr
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	sum := 0
	per := make([]int, procs)
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("process %d: %v", i, err)
		}
		n, err := strconv.Atoi(strings.TrimSpace(outs[i].String()))
		if err != nil {
			t.Fatalf("process %d printed %q", i, outs[i])
		}
		per[i] = n
		sum += n
	}
	l, err = Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	st, err := l.Status(ctx, "shared")
	if err != nil {
		t.Fatal(err)
	}
	lines := readLines(t, filepath.Join(dir, "releases.txt"))
	t.Logf("8 processes, releases per process %v, total %d; log rows %d; spent ε %v of 1", per, sum, len(st.Releases), st.Spent.Epsilon)
	if sum != 64 || len(st.Releases) != 64 || len(lines) != 64 || st.Spent.Epsilon != 1 {
		t.Fatalf("total releases %d, log rows %d, release lines %d, spent %v; want 64, 64, 64, 1", sum, len(st.Releases), len(lines), st.Spent.Epsilon)
	}
}
