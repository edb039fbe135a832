package grid

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHostileCases: the files under testdata/hostile end in the error named
// in the table (never a panic, never a silent skip).
func TestHostileCases(t *testing.T) {
	want := map[string]string{
		"indexed_out_of_range.m": "indexed assignment to row 9, but the matrix has 2 rows",
		"indexed_expression.m":   `value "2*x" must be a number`,
		"indexed_before.m":       "before the matrix is defined",
		"unknown_statement.m":    `statement "mpc = loadcase('case9');" is not understood`,
		"pwl_inf.m":              "piecewise-linear point 2 is (+Inf, 1000), must be finite",
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "hostile", "*.m"))
	if len(files) != len(want) {
		t.Fatalf("found %d files under testdata/hostile, the table lists %d", len(files), len(want))
	}
	for _, f := range files {
		_, err := ReadCase(f)
		w := want[filepath.Base(f)]
		var fe *FormatError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), w) {
			t.Errorf("%s: error %v, want a FormatError containing %q", filepath.Base(f), err, w)
		}
	}
}

// TestIndexedAssignmentApplied: "mpc.gen(2, 9) = 0;" after the matrix sets
// Pmax of generator 2 to 0 (it was once skipped silently), "mpc.gen(:, 8) = 0"
// takes every generator out of service, and a column beyond the row extends
// it (MATLAB semantics).
func TestIndexedAssignmentApplied(t *testing.T) {
	base, err := os.ReadFile(filepath.Join("testdata", "case2_merit.m"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := ParseMATPOWER(strings.NewReader(string(base) + "\nmpc.gen(2, 9) = 0;\nmpc.gen(2, 10) = 0;\nmpc.gencost(1, 5) = 12;\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Gens[1].Pmax != 0 || c.Gens[1].Pmin != 0 {
		t.Errorf("gen 2: Pmax %v, Pmin %v, want 0, 0", c.Gens[1].Pmax, c.Gens[1].Pmin)
	}
	if got := c.Costs[0].Coeffs[0]; got != 12 {
		t.Errorf("gen 1: linear cost %v after mpc.gencost(1, 5) = 12, want 12", got)
	}
	c, err = ParseMATPOWER(strings.NewReader(string(base) + "\nmpc.gen(:, 8) = 0;\n"))
	if err != nil {
		t.Fatal(err)
	}
	for i, g := range c.Gens {
		if g.InService {
			t.Errorf("gen %d still in service after mpc.gen(:, 8) = 0", i+1)
		}
	}
}
