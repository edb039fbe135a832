package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func runCmd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func solveFile(name string) string { return filepath.Join("testdata", "solve", name) }

func TestSolveJSON(t *testing.T) {
	cases := []struct {
		file      string
		objective float64
		x         []float64
		backend   string // the default route: the IPM for QPs and small LPs (auto.DefaultSmallLPNnz)
	}{
		{"wyndor.cbf", 36, []float64{2, 6}, "ipm"},
		{"wyndor.lp", 36, []float64{2, 6}, "ipm"},
		{"ranges.mps", -5, []float64{1, -1, 4}, "ipm"},
		{"qp.lp", -13.0 / 3, []float64{-2.0 / 3, 7.0 / 3}, "ipm"},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			// Flags after the file name are accepted too.
			code, out, errs := runCmd(t, "solve", solveFile(c.file), "--json", "--time-limit", "10")
			if code != 0 {
				t.Fatalf("exit %d, stderr %q", code, errs)
			}
			var got struct {
				Status     string    `json:"status"`
				Objective  *float64  `json:"objective"`
				X          []float64 `json:"x"`
				Solver     string    `json:"solver"`
				Iterations *int      `json:"iterations"`
				Time       map[string]float64
			}
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("%v in %q", err, out)
			}
			if got.Status != "optimal" || got.Solver != c.backend || got.Objective == nil || got.Iterations == nil {
				t.Fatalf("got %+v", got)
			}
			// The backends are accurate to about 1e-7 (relative).
			if math.Abs(*got.Objective-c.objective) > 1e-6 {
				t.Errorf("objective %v, want %v", *got.Objective, c.objective)
			}
			if len(got.X) != len(c.x) {
				t.Fatalf("x = %v, want %v", got.X, c.x)
			}
			for j := range c.x {
				if math.Abs(got.X[j]-c.x[j]) > 1e-6 {
					t.Errorf("x[%d] = %v, want %v", j, got.X[j], c.x[j])
				}
			}
			for _, k := range []string{"read", "build", "solve", "total"} {
				v, ok := got.Time[k]
				if !ok || v < 0 {
					t.Errorf("time.%s = %v, %v", k, v, ok)
				}
			}
			if got.Time["total"] < got.Time["solve"] {
				t.Errorf("total %v < solve %v", got.Time["total"], got.Time["solve"])
			}
		})
	}
}

func TestSolveHuman(t *testing.T) {
	code, out, errs := runCmd(t, "solve", solveFile("wyndor.cbf"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"CBF v3, maximize", "2 variables, 5 rows", "status     optimal", "objective  36", "x          [2 6]", "solver     ipm"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestSolveFailures(t *testing.T) {
	cases := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"infeasible", []string{"solve", "--json", solveFile("infeasible.cbf")}, 1, "status infeasible"},
		{"missing file", []string{"solve", solveFile("nope.cbf")}, 1, "no such file"},
		{"syntax", []string{"solve", solveFile("bad.cbf")}, 1, "line 5: VAR: cone Q has dimension 0"},
		{"highs on a cone", []string{"solve", "--solver", "highs", solveFile("socp.cbf")}, 1, "highs: unsupported cone"},
		{"no file", []string{"solve"}, 2, "want exactly one FILE"},
		{"two files", []string{"solve", "a.cbf", "b.cbf"}, 2, "want exactly one FILE"},
		{"bad flag", []string{"solve", "--fast", solveFile("wyndor.cbf")}, 2, "flag provided but not defined"},
		{"bad solver", []string{"solve", "--solver", "gurobi", solveFile("wyndor.cbf")}, 2, "--solver is \"gurobi\""},
		{"bad limit", []string{"solve", "--time-limit", "-1", solveFile("wyndor.cbf")}, 2, "--time-limit is -1"},
		{"extension", []string{"solve", "model.txt"}, 2, "extension must be .cbf, .mps, .qps, .sif or .lp"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := runCmd(t, c.args...)
			if code != c.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, c.code, errs)
			}
			if !strings.Contains(errs, c.msg) {
				t.Errorf("stderr %q lacks %q", errs, c.msg)
			}
			if c.name == "infeasible" {
				var got map[string]any
				if err := json.Unmarshal([]byte(out), &got); err != nil || got["status"] != "infeasible" || got["objective"] != nil {
					t.Errorf("JSON %q (%v)", out, err)
				}
			}
		})
	}
}

// TestSolveAutoConic: a second-order cone problem goes to the interior-point
// backend under --solver auto; until that backend lands it reports an error.
func TestSolveAutoConic(t *testing.T) {
	code, out, errs := runCmd(t, "solve", "--json", solveFile("socp.cbf"))
	if code != 0 {
		if !strings.Contains(errs, "ipm") {
			t.Errorf("exit %d without naming the backend: %q", code, errs)
		}
		t.Skipf("interior-point backend not available: %s", strings.TrimSpace(errs))
	}
	var got struct {
		Status    string
		Objective float64
		X         []float64
		Solver    string
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if got.Solver != "ipm" || math.Abs(got.Objective-3/math.Sqrt2) > 1e-6 {
		t.Errorf("got %+v, want ipm and 3/√2", got)
	}
}

// TestSolveGzip: a gzipped .cbf.gz (and .lp.gz) is decompressed, not parsed raw.
func TestSolveGzip(t *testing.T) {
	for _, name := range []string{"wyndor.cbf", "wyndor.lp"} {
		raw, err := os.ReadFile(solveFile(name))
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), name+".gz")
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write(raw)
		zw.Close()
		if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		code, out, errs := runCmd(t, "solve", path, "--json")
		var got struct {
			Objective float64 `json:"objective"`
		}
		if code != 0 || json.Unmarshal([]byte(out), &got) != nil || math.Abs(got.Objective-36) > 1e-6 {
			t.Errorf("%s.gz: exit %d, stdout %q, stderr %q", name, code, out, errs)
		}
	}
}

// solveJSONOut is the part of privopt solve --json the dual tests read.
type solveJSONOut struct {
	Status       string     `json:"status"`
	Objective    *float64   `json:"objective"`
	Duals        []*float64 `json:"duals"`
	ReducedCosts []float64  `json:"reduced_costs"`
	Accuracy     map[string]float64
}

func decodeSolve(t *testing.T, out string) solveJSONOut {
	t.Helper()
	var got solveJSONOut
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v in %q", err, out)
	}
	return got
}

func checkVec(t *testing.T, what string, got []float64, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s = %v, want %v", what, got, want)
	}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-6 {
			t.Errorf("%s = %v, want %v", what, got, want)
			return
		}
	}
}

func derefAll(t *testing.T, v []*float64) []float64 {
	t.Helper()
	out := make([]float64, len(v))
	for i, p := range v {
		if p == nil {
			t.Fatalf("dual %d is null", i)
		}
		out[i] = *p
	}
	return out
}

// TestSolveDuals checks --json duals and reduced costs against the duals of
// small programs worked by hand:
//
//   - min x + 2y + 3z s.t. x + y + z ≥ 1, x, y, z ≥ 0 (read from standard
//     input with --format lp): shadow price 1, reduced costs (0, 1, 2);
//   - Wyndor (max 3x + 5y, x ≤ 4, 2y ≤ 12, 3x + 2y ≤ 18): shadow prices
//     (0, 3/2, 1), reduced costs 0;
//   - the SOCP of socp.cbf, min t s.t. (t, x − 1, y − 2) ∈ Q, x + y = 0: the
//     CBF dual y ∈ Q × ℝ with Aᵀy = c = (1, 0, 0) that is complementary to
//     g = (3/√2, −3/2, −3/2) is (1, 1/√2, 1/√2, −1/√2), of dual value
//     −bᵀy = y₁ + 2y₂ = 3/√2.
//
// Every key of the output is snake_case.
func TestSolveDuals(t *testing.T) {
	lp := "\\ cover\nMinimize\n obj: x + 2 y + 3 z\nSubject To\n c1: x + y + z >= 1\nEnd\n"
	solveStdin = strings.NewReader(lp)
	defer func() { solveStdin = os.Stdin }()
	code, out, errs := runCmd(t, "solve", "--json", "--format", "lp", "-")
	if code != 0 {
		t.Fatalf("stdin LP: exit %d: %s", code, errs)
	}
	got := decodeSolve(t, out)
	checkVec(t, "cover duals", derefAll(t, got.Duals), []float64{1})
	checkVec(t, "cover reduced costs", got.ReducedCosts, []float64{0, 1, 2})
	for _, key := range []string{"primal_residual", "dual_residual", "gap", "primal_cone", "dual_cone", "sensitivity", "primal_objective", "dual_objective"} {
		if _, ok := got.Accuracy[key]; !ok {
			t.Errorf("accuracy lacks %q: %v", key, got.Accuracy)
		}
	}
	for _, old := range []string{"PrimalResidual", "DualObjective"} {
		if strings.Contains(out, old) {
			t.Errorf("output still has the CamelCase key %q", old)
		}
	}

	code, out, errs = runCmd(t, "solve", "--json", solveFile("wyndor.lp"))
	if code != 0 {
		t.Fatalf("wyndor: exit %d: %s", code, errs)
	}
	got = decodeSolve(t, out)
	checkVec(t, "wyndor duals", derefAll(t, got.Duals), []float64{0, 1.5, 1})
	checkVec(t, "wyndor reduced costs", got.ReducedCosts, []float64{0, 0})

	code, out, errs = runCmd(t, "solve", "--json", solveFile("socp.cbf"))
	if code != 0 {
		t.Fatalf("socp: exit %d: %s", code, errs)
	}
	got = decodeSolve(t, out)
	r := 1 / math.Sqrt2
	checkVec(t, "socp duals", derefAll(t, got.Duals), []float64{1, r, r, -r})
	checkVec(t, "socp reduced costs", got.ReducedCosts, []float64{0, 0, 0})
}

// FILE "-" without --format is a usage error naming the flag.
func TestSolveStdinNeedsFormat(t *testing.T) {
	code, _, errs := runCmd(t, "solve", "-")
	if code != 2 || !strings.Contains(errs, "--format") {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
}

// "psd_duals" reports the dual matrix of each PSD constraint: two closed
// forms (λ_max(A) = 3 with Y = vvᵀ for the top eigenvector v, and a 2×2
// maximization whose dual has the sign convention of "duals"), and a random
// 10×10 SDP checked on the file's own data: Y ⪰ 0, the dual equations
// ⟨Fⱼ, Y⟩ = cⱼ read from HCOORD, and complementarity ⟨Y, F(x)⟩ = 0.
func TestSolvePSDDuals(t *testing.T) {
	type psdOut struct {
		Objective *float64      `json:"objective"`
		X         []float64     `json:"x"`
		PSDDuals  [][][]float64 `json:"psd_duals"`
	}
	run := func(path string) psdOut {
		t.Helper()
		code, out, errs := runCmd(t, "solve", "--json", path)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", path, code, errs)
		}
		var got psdOut
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatal(err)
		}
		if len(got.PSDDuals) != 1 {
			t.Fatalf("%s: psd_duals = %v, want one matrix", path, got.PSDDuals)
		}
		return got
	}
	flat := func(y [][]float64) []float64 {
		var v []float64
		for _, r := range y {
			v = append(v, r...)
		}
		return v
	}
	got := run(solveFile("lambdamax.cbf"))
	checkVec(t, "λ_max objective", []float64{*got.Objective}, []float64{3})
	checkVec(t, "λ_max dual matrix", flat(got.PSDDuals[0]), []float64{0.5, 0.5, 0, 0.5, 0.5, 0, 0, 0, 0})
	got = run(solveFile("psdmax.cbf"))
	checkVec(t, "2×2 objective", []float64{*got.Objective}, []float64{1})
	checkVec(t, "2×2 dual matrix (MAX: sign of duals)", flat(got.PSDDuals[0]), []float64{-0.5, 0.5, 0.5, -0.5})

	path := filepath.Join("..", "..", "solver", "ipm", "testdata", "crosscheck", "sdp1.cbf")
	got = run(path)
	c, H, D := readPSDCBF(t, path)
	Y := got.PSDDuals[0]
	n := len(Y)
	var eig mat.EigenSym
	ys := mat.NewSymDense(n, flat(Y))
	if !eig.Factorize(ys, false) {
		t.Fatal("eigendecomposition of Y failed")
	}
	ynorm := mat.Norm(ys, 2)
	if lo := eig.Values(nil)[0]; lo < -1e-7*ynorm {
		t.Errorf("Y has eigenvalue %v < 0", lo)
	}
	inner := func(F map[[2]int]float64) float64 { // ⟨F, Y⟩ from F's lower triangle
		s := 0.0
		for kl, v := range F {
			if kl[0] == kl[1] {
				s += v * Y[kl[0]][kl[1]]
			} else {
				s += 2 * v * Y[kl[0]][kl[1]]
			}
		}
		return s
	}
	Fx := map[[2]int]float64{}
	for kl, v := range D {
		Fx[kl] += v
	}
	for j, cj := range c {
		if d := inner(H[j]) - cj; math.Abs(d) > 1e-6*(1+math.Abs(cj)) {
			t.Errorf("dual equation %d: ⟨F_j, Y⟩ − c_j = %v", j, d)
		}
		for kl, v := range H[j] {
			Fx[kl] += v * got.X[j]
		}
	}
	if cs := inner(Fx); math.Abs(cs) > 1e-6*(1+ynorm) {
		t.Errorf("complementarity ⟨Y, F(x)⟩ = %v", cs)
	}
}

// readPSDCBF reads the objective c, the HCOORD matrices Fⱼ and the DCOORD
// matrix G (lower triangles) of a CBF file with one PSD constraint and free
// scalar variables, independently of package cbf.
func readPSDCBF(t *testing.T, path string) (c []float64, H []map[[2]int]float64, D map[[2]int]float64) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(string(raw), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	D = map[[2]int]float64{}
	num := func(s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for i := 0; i < len(lines); i++ {
		switch lines[i] {
		case "VAR":
			nv := int(num(strings.Fields(lines[i+1])[0]))
			c = make([]float64, nv)
			H = make([]map[[2]int]float64, nv)
			for j := range H {
				H[j] = map[[2]int]float64{}
			}
		case "OBJACOORD", "HCOORD", "DCOORD":
			cnt := int(num(lines[i+1]))
			for k := 0; k < cnt; k++ {
				f := strings.Fields(lines[i+2+k])
				switch lines[i] {
				case "OBJACOORD":
					c[int(num(f[0]))] = num(f[1])
				case "HCOORD":
					H[int(num(f[1]))][[2]int{int(num(f[2])), int(num(f[3]))}] += num(f[4])
				case "DCOORD":
					D[[2]int{int(num(f[1])), int(num(f[2]))}] += num(f[3])
				}
			}
			i += 1 + cnt
		}
	}
	return c, H, D
}
