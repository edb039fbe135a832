package mathprog

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/privopt/privopt/internal/shareddata"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/auto"
	"github.com/privopt/privopt/sparse"
)

// modelDiff describes the first difference between two models (exact
// comparison: names, order, bounds, costs, A, H, constant, sense), or "".
func modelDiff(a, b *Model) string {
	switch {
	case a.Maximize != b.Maximize:
		return "sense"
	case len(a.ColNames) != len(b.ColNames) || len(a.RowNames) != len(b.RowNames):
		return "sizes"
	case a.ObjConstant != b.ObjConstant:
		return "objective constant"
	}
	for j := range a.ColNames {
		if a.ColNames[j] != b.ColNames[j] || a.Cost[j] != b.Cost[j] || a.ColLo[j] != b.ColLo[j] || a.ColUp[j] != b.ColUp[j] {
			return "column " + a.ColNames[j]
		}
	}
	for i := range a.RowNames {
		if a.RowNames[i] != b.RowNames[i] || a.RowLo[i] != b.RowLo[i] || a.RowUp[i] != b.RowUp[i] {
			return "row " + a.RowNames[i]
		}
	}
	if d := exactCSCDiff(dropZeros(a.A), dropZeros(b.A)); d != "" {
		return "A " + d
	}
	n := len(a.ColNames)
	ha, hb := a.H, b.H
	if ha == nil {
		ha = sparse.NewCSC(n, n)
	}
	if hb == nil {
		hb = sparse.NewCSC(n, n)
	}
	if d := exactCSCDiff(dropZeros(ha), dropZeros(hb)); d != "" {
		return "H " + d
	}
	return ""
}

func exactCSCDiff(a, b *sparse.CSC) string {
	if a.Nnz() != b.Nnz() {
		return "nnz " + itoa(a.Nnz()) + " vs " + itoa(b.Nnz())
	}
	for j := 0; j <= a.Cols; j++ {
		if a.ColPtr[j] != b.ColPtr[j] {
			return "column pointers"
		}
	}
	for k := range a.RowIdx {
		if a.RowIdx[k] != b.RowIdx[k] || a.Val[k] != b.Val[k] {
			return "entry " + itoa(k)
		}
	}
	return ""
}

func lpRoundTrip(t *testing.T, m *Model) (*Model, string) {
	t.Helper()
	var sb strings.Builder
	if err := WriteLP(&sb, m); err != nil {
		t.Fatal(err)
	}
	back, err := ReadLP(strings.NewReader(sb.String()), Limits{})
	if err != nil {
		t.Fatalf("reading the written LP file: %v\n%s", err, sb.String())
	}
	return back, sb.String()
}

// TestWriteLPRoundTrip writes models with every row kind (≤, ≥, =, ranged,
// free, empty), every bound kind (default, free, fixed, negative upper
// bound, only an upper bound), a maximization with ½xᵀHx and a constant, and
// awkward numbers (1e-300, 0.1, −0, 2⁵³+1 is not a float64 so 2⁵³), and
// reads them back: the models must be identical (the names are valid LP
// names, kept as they are).
func TestWriteLPRoundTrip(t *testing.T) {
	src := []string{
		"max\n obj: 3 x + 2 y - z + 7 - [ x ^ 2 + x * y + 3 z ^ 2 ] / 2\nst\n a: x + y + z <= 4\n b: -2 <= x - y <= 3\n c: x + z >= 1\n d: x + y = 2\nbounds\n x <= -1\n -3 <= y <= 5\n z free\nend\n",
		"min\n cost: 0.1 u + 1e-300 v - 9007199254740992 w - 5\nst\n e: u - v = 0\n f: -1e30 <= w + u <= 1e30\nbounds\n u = 3\n v <= 7\nend\n",
	}
	for k, text := range src {
		m, err := ReadLP(strings.NewReader(text), Limits{})
		if err != nil {
			t.Fatal(err)
		}
		back, out := lpRoundTrip(t, m)
		if d := modelDiff(m, back); d != "" {
			t.Errorf("model %d: round trip differs in %s\n%s", k, d, out)
		}
	}
	// rows and columns the LP syntax cannot state directly: a free row, an
	// empty row, a column in no row and with a zero cost
	m := &Model{Name: "edge", ObjName: "o", ColNames: []string{"p", "q", "r"}, RowNames: []string{"unbounded", "empty"},
		Cost: []float64{1, -2, 0}, ColLo: []float64{0, math.Inf(-1), 0}, ColUp: []float64{math.Inf(1), 4, math.Inf(1)},
		RowLo: []float64{math.Inf(-1), -1}, RowUp: []float64{math.Inf(1), 2}}
	tr := sparse.NewTriplets(2, 3, 2)
	tr.Append(0, 0, 1)
	tr.Append(0, 1, -1)
	m.A = tr.ToCSC()
	back, out := lpRoundTrip(t, m)
	if d := modelDiff(m, back); d != "" {
		t.Errorf("edge model: round trip differs in %s\n%s", d, out)
	}
}

// TestLPNames: names the LP syntax would read differently are replaced by
// names it reads back as written, distinct from each other and from the
// valid names kept.
func TestLPNames(t *testing.T) {
	bad := []string{"", "1x", "x y", "a-b", "inf", "Free", "x+y", ".5", "C------1", "_C______1"}
	m := &Model{ColNames: bad, Cost: make([]float64, len(bad)), ColLo: make([]float64, len(bad)),
		ColUp: make([]float64, len(bad)), A: sparse.NewCSC(0, len(bad))}
	cols, _ := LPNames(m)
	want := []string{"_", "_1x", "_x_y", "_a_b", "_inf", "_Free", "_x_y~2", "_.5", "_C______1~2", "_C______1"}
	for j := range want {
		if cols[j] != want[j] {
			t.Errorf("name %q → %q, want %q", bad[j], cols[j], want[j])
		}
	}
	back, out := lpRoundTrip(t, m)
	for j := range want {
		if back.ColNames[j] != want[j] {
			t.Errorf("column %d read back as %q, want %q\n%s", j, back.ColNames[j], want[j], out)
		}
	}
}

// TestWriteLPMarosRoundTrip reads small Maros–Mészáros QPS files, writes them
// as LP files and reads those back: every model must come back identical up
// to the names LPNames replaces,
// and on a few the default route must find the same optimum on both models,
// equal to the published value of reference.json (its pass rule).
func TestWriteLPMarosRoundTrip(t *testing.T) {
	files := marosFiles(t)
	dir, _ := shareddata.Dir()
	refs := map[string]float64{}
	if b, err := os.ReadFile(filepath.Join(dir, "conic-bench", "reference.json")); err == nil {
		var r struct {
			Instances []struct {
				Name      string `json:"name"`
				Reference *struct {
					Value float64 `json:"value"`
				} `json:"reference"`
			} `json:"instances"`
		}
		if json.Unmarshal(b, &r) == nil {
			for _, in := range r.Instances {
				if in.Reference != nil {
					refs[in.Name] = in.Reference.Value
				}
			}
		}
	}
	solve := map[string]bool{"QAFIRO": true, "HS21": true, "HS118": true, "DUALC1": true, "QADLITTL": true, "CVXQP1_S": true}
	tested := 0
	for _, f := range files {
		if st, err := os.Stat(f); err != nil || st.Size() > 8<<10 {
			continue
		}
		name := strings.TrimSuffix(filepath.Base(f), ".SIF.gz")
		t.Run(name, func(t *testing.T) {
			m, err := ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			back, out := lpRoundTrip(t, m)
			// the model as written: names replaced as LPNames says
			named := *m
			named.ColNames, named.RowNames = LPNames(m)
			if d := modelDiff(&named, back); d != "" {
				t.Fatalf("round trip differs in %s\n%.2000s", d, out)
			}
			tested++
			ref, ok := refs[name]
			if !solve[name] || !ok {
				return
			}
			var vals [2]float64
			for k, md := range []*Model{m, back} {
				s, err := md.Standard()
				if err != nil {
					t.Fatal(err)
				}
				sol, err := auto.New().Solve(context.Background(), s.Problem, solver.Settings{})
				if err != nil || !sol.Status.OK() {
					t.Fatalf("solve: %v %v", err, sol)
				}
				vals[k] = sol.Objective
				if s.Maximize {
					vals[k] = -vals[k]
				}
			}
			tol := 1e-6 * math.Max(1, math.Abs(ref))
			if math.Abs(vals[0]-vals[1]) > 1e-9*math.Max(1, math.Abs(ref)) || math.Abs(vals[1]-ref) > tol {
				t.Errorf("optimum %.10g from the QPS file, %.10g from the LP file, published %.10g", vals[0], vals[1], ref)
			}
		})
	}
	if tested == 0 {
		t.Skip("no small Maros–Mészáros file in the shared data")
	}
}
