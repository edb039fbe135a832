// Command privopt solves conic programs and releases differentially private
// results of them.
//
// Usage:
//
//	privopt COMMAND [flags] [args]
//
// Run "privopt help" for the list of commands and "privopt COMMAND -h" for one
// command's flags. Every command exits 0 on success, 1 on a failed run (for
// example an infeasible problem) and 2 on bad usage.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"sort"
	"time"
)

// command is one sub-command. Each lives in its own file and registers itself in
// an init function.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

var commands = map[string]command{}

func register(c command) {
	if _, dup := commands[c.name]; dup {
		panic("privopt: command registered twice: " + c.name)
	}
	commands[c.name] = c
}

// usageError marks errors caused by bad command-line usage (exit code 2).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	go exitAfterInterrupt(ctx, interruptGrace, os.Stderr)
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// interruptGrace is how long a command may take to wind down after SIGINT
// before the process exits without it. Long loops poll the context
// (factorizations, sampling, cutting planes, reformulations), but a few
// O(nnz) steps on large problems (a sparse conversion of a counterpart with
// millions of entries) are not interruptible and take up to a few seconds on
// a loaded machine; SIGINT must stop any command within 1 s.
const interruptGrace = 700 * time.Millisecond

// exitAfterInterrupt exits the process with status 1 when the command has
// not returned within grace after ctx (the SIGINT context) is done. Ledger
// spends are SQLite transactions (atomic at any exit); output files are
// written after the computation, so only a file being written in that very
// moment can be left incomplete.
func exitAfterInterrupt(ctx context.Context, grace time.Duration, stderr io.Writer) {
	<-ctx.Done()
	time.Sleep(grace)
	fmt.Fprintln(stderr, "privopt: cancelled by interrupt; stopped without waiting for the running step to finish")
	os.Exit(1)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		printUsage(stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	if args[0] == "--version" || args[0] == "version" {
		fmt.Fprintln(stdout, versionString())
		return 0
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "privopt: unknown command %q\n\n", args[0])
		printUsage(stderr)
		return 2
	}
	if err := c.run(ctx, args[1:], stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "privopt %s: %v\n", c.name, err)
		var ue usageError
		if errors.As(err, &ue) {
			return 2
		}
		return 1
	}
	return 0
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "privopt — privacy-preserving optimization")
	fmt.Fprintln(w, "\nUsage: privopt COMMAND [flags] [args]\n\nCommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-8s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'privopt COMMAND -h' for a command's flags, 'privopt --version' for the version.")
}

// Version is the release of privopt this binary belongs to.
const Version = "0.15.0"

// versionString returns "privopt VERSION" with the module version, the VCS
// revision and the Go version the binary was built with, where known.
func versionString() string {
	s := "privopt " + Version
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return s
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		s += " (module " + v + ")"
	}
	var rev, dirty string
	for _, kv := range bi.Settings {
		switch kv.Key {
		case "vcs.revision":
			rev = kv.Value
		case "vcs.modified":
			if kv.Value == "true" {
				dirty = "+modified"
			}
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev != "" {
		s += " revision " + rev + dirty
	}
	return s + ", " + bi.GoVersion
}
