package main

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
)

// Flag validation. Every check returns nil or a usage error (exit code 2)
// naming the flag and its value — "--eta is 0, must be in (0, 1)" — so that an
// invalid value is reported, never replaced by a default. Commands list their
// checks in one call, run after flag parsing and before any work:
//
//	if err := checkFlags(
//		floatIn("epsilon", eps, 0, math.Inf(1), openLo),
//		intAtLeast("samples", n, 0),
//		writableFile("plot", plotFile),
//	); err != nil {
//		return err
//	}
//
// A check of a flag the user did not set runs on the default value, which
// must pass it; use onlyIfSet (or flagSet) for flags whose default is a
// sentinel such as NaN.

// bounds tells floatIn which ends of [lo, hi] are excluded.
type bounds int

const (
	closed bounds = 0               // lo ≤ v ≤ hi
	openLo bounds = 1               // lo < v
	openHi bounds = 2               // v < hi
	open   bounds = openLo | openHi // lo < v < hi
)

// checkFlags returns the first non-nil error of errs (the flags' order of
// declaration is the order of the report).
func checkFlags(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// floatIn checks that v is a finite number in the interval from lo to hi
// with the ends excluded as b says; an infinite end (math.Inf) leaves that
// side unbounded.
func floatIn(name string, v, lo, hi float64, b bounds) error {
	okLo := v > lo || (b&openLo == 0 && v == lo)
	okHi := v < hi || (b&openHi == 0 && v == hi)
	if okLo && okHi && !math.IsNaN(v) && !math.IsInf(v, 0) {
		return nil
	}
	l, r := "[", "]"
	if b&openLo != 0 {
		l = "("
	}
	if b&openHi != 0 {
		r = ")"
	}
	switch {
	case math.IsInf(lo, -1) && math.IsInf(hi, 1):
		return usagef("--%s is %v, must be a finite number", name, v)
	case math.IsInf(hi, 1):
		op := "≥"
		if b&openLo != 0 {
			op = ">"
		}
		return usagef("--%s is %v, must be %s %v and finite", name, v, op, lo)
	}
	return usagef("--%s is %v, must be in %s%v, %v%s", name, v, l, lo, hi, r)
}

// intIn checks lo ≤ v ≤ hi.
func intIn(name string, v, lo, hi int) error {
	if v < lo || v > hi {
		return usagef("--%s is %d, must be in [%d, %d]", name, v, lo, hi)
	}
	return nil
}

// intAtLeast checks v ≥ lo.
func intAtLeast(name string, v, lo int) error {
	if v < lo {
		return usagef("--%s is %d, must be ≥ %d", name, v, lo)
	}
	return nil
}

// oneOf checks that v is one of the allowed words.
func oneOf(name, v string, allowed ...string) error {
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return usagef("--%s is %q, must be one of %s", name, v, strings.Join(allowed, ", "))
}

// onlyIfSet returns err when set is true, nil otherwise.
func onlyIfSet(set bool, err error) error {
	if set {
		return err
	}
	return nil
}

// writableFile checks, before any work is done, that path ("" = flag not
// given) can be written: its directory exists and accepts a new file (a
// temporary file is created and removed there) and path is not a directory.
// An existing file is not touched.
func writableFile(name, path string) error {
	if path == "" {
		return nil
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return usagef("--%s is %q, a directory; want a file name", name, path)
	}
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	if err != nil || !st.IsDir() {
		return usagef("--%s is %q: directory %q does not exist", name, path, dir)
	}
	f, err := os.CreateTemp(dir, ".privopt-write-check-*")
	if err != nil {
		return usagef("--%s is %q: cannot write in %q (%v)", name, path, dir, errors.Unwrap(err))
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// errFlag formats a usage error for a flag whose value fails a check that
// has no helper above.
func errFlag(name string, v any, why string) error {
	return usagef("--%s is %v, %s", name, v, why)
}
