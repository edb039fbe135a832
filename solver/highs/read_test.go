package highs

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/privopt/privopt/solver"
)

func TestReadModel(t *testing.T) {
	cases := []struct {
		file     string
		maximize bool
		x        []float64
		value    float64 // the file's optimal value, in its own sense
		tol      float64
	}{
		{"wyndor.lp", true, []float64{2, 6}, 36, 1e-9},
		{"ranges.mps", false, []float64{1, -1, 4}, -5, 1e-9},
		{"qp.lp", false, []float64{-2.0 / 3, 7.0 / 3}, -13.0 / 3, 1e-6},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			m, err := ReadModel(filepath.Join("testdata", c.file))
			if err != nil {
				t.Fatal(err)
			}
			if m.Maximize != c.maximize {
				t.Errorf("Maximize = %v", m.Maximize)
			}
			sol := solve(t, m.Problem)
			checkKKT(t, m.Problem, sol, c.tol)
			val := sol.Objective
			if m.Maximize {
				val = -val
			}
			if !near(val, c.value, c.tol) {
				t.Errorf("value %v, want %v", val, c.value)
			}
			for j, w := range c.x {
				if !near(sol.X[j], w, c.tol) {
					t.Errorf("x[%d] = %v, want %v", j, sol.X[j], w)
				}
			}
		})
	}
}

func TestReadModelErrors(t *testing.T) {
	if _, err := ReadFile(filepath.Join("testdata", "missing.mps")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := ReadFile(filepath.Join("testdata", "integer.lp")); !errors.Is(err, ErrInteger) {
		t.Errorf("integer model: %v", err)
	}
	bad := filepath.Join(t.TempDir(), "bad.mps")
	os.WriteFile(bad, []byte("NAME x\nROWS\n Q  R1\nGARBAGE\n"), 0o644)
	if p, err := ReadFile(bad); err == nil {
		t.Errorf("malformed MPS accepted: %+v", p)
	}
	other := filepath.Join(t.TempDir(), "model.txt")
	os.WriteFile(other, []byte("x"), 0o644)
	if _, err := ReadFile(other); err == nil {
		t.Error("unknown extension accepted")
	}
	_ = solver.Optimal
}
