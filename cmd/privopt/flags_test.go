package main

import (
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// TestFlagHelpers: each helper accepts the values inside its range and
// rejects the others with a usage error (exit code 2) naming flag and value.
func TestFlagHelpers(t *testing.T) {
	inf := math.Inf(1)
	for _, c := range []struct {
		err  error
		want string // "" means valid
	}{
		{floatIn("eta", 0.5, 0, 1, open), ""},
		{floatIn("eta", 0, 0, 1, open), "--eta is 0, must be in (0, 1)"},
		{floatIn("eta", 1, 0, 1, open), "--eta is 1, must be in (0, 1)"},
		{floatIn("delta", 0, 0, 1, openHi), ""},
		{floatIn("delta", math.NaN(), 0, 1, openHi), "--delta is NaN, must be in [0, 1)"},
		{floatIn("epsilon", 2, 0, inf, openLo), ""},
		{floatIn("epsilon", inf, 0, inf, openLo), "--epsilon is +Inf, must be > 0 and finite"},
		{floatIn("gap", -1, 0, inf, closed), "--gap is -1, must be ≥ 0 and finite"},
		{floatIn("shift", -inf, -inf, inf, closed), "--shift is -Inf, must be a finite number"},
		{intIn("samples", 10, 0, 10), ""},
		{intIn("samples", 11, 0, 10), "--samples is 11, must be in [0, 10]"},
		{intAtLeast("evaluate", -1, 0), "--evaluate is -1, must be ≥ 0"},
		{oneOf("method", "vertex", "vertex", "robust"), ""},
		{oneOf("method", "magic", "vertex", "robust"), `--method is "magic", must be one of vertex, robust`},
		{onlyIfSet(false, errors.New("x")), ""},
		{writableFile("plot", ""), ""},
		{writableFile("plot", filepath.Join(t.TempDir(), "p.svg")), ""},
		{writableFile("plot", filepath.Join(t.TempDir(), "missing", "p.svg")), "does not exist"},
	} {
		if c.want == "" {
			if c.err != nil {
				t.Errorf("unexpected error %v", c.err)
			}
			continue
		}
		var ue usageError
		if !errors.As(c.err, &ue) || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("error %v, want a usage error containing %q", c.err, c.want)
		}
	}
	if err := checkFlags(nil, intIn("a", 5, 0, 1), intIn("b", 5, 0, 1)); err == nil || !strings.Contains(err.Error(), "--a is 5") {
		t.Errorf("checkFlags: %v, want the first error (--a)", err)
	}
}
