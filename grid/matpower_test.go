package grid

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/privopt/privopt/internal/shareddata"
)

func TestParseCase5PJM(t *testing.T) {
	c, err := ReadCase(shareddata.Path(t, "pglib/pglib_opf_case5_pjm.m"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Name != "pglib_opf_case5_pjm" || c.BaseMVA != 100 {
		t.Errorf("name %q base %v", c.Name, c.BaseMVA)
	}
	if len(c.Buses) != 5 || len(c.Gens) != 5 || len(c.Branches) != 6 || len(c.Costs) != 5 {
		t.Fatalf("sizes %d %d %d %d", len(c.Buses), len(c.Gens), len(c.Branches), len(c.Costs))
	}
	// Values copied from the file by hand.
	if b := c.Buses[3]; b.ID != 4 || b.Type != Ref || b.Pd != 400 || b.Qd != 131.47 {
		t.Errorf("bus 4: %+v", b)
	}
	if g := c.Gens[2]; g.Bus != 3 || g.Pmax != 520 || g.Pmin != 0 || !g.InService {
		t.Errorf("gen 3: %+v", g)
	}
	if _, c1, c0, ok := c.Costs[3].Quadratic(); !ok || c1 != 40 || c0 != 0 {
		t.Errorf("cost 4: %+v", c.Costs[3])
	}
	if br := c.Branches[5]; br.From != 4 || br.To != 5 || br.X != 0.0297 || br.RateA != 240 || br.AngMin != -30 {
		t.Errorf("branch 6: %+v", br)
	}
	if got := c.TotalLoad(); got != 1000 {
		t.Errorf("total load %v, want 1000", got)
	}
}

// TestParseAllPGLib parses every bundled PGLib case and builds its DC network; the
// counts are those of the files' matrices (checked independently with awk).
func TestParseAllPGLib(t *testing.T) {
	dir := filepath.Dir(shareddata.Path(t, "pglib/pglib_opf_case5_pjm.m"))
	files, err := filepath.Glob(filepath.Join(dir, "*.m"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	want := map[string][3]int{ // buses, gens, branches
		"pglib_opf_case5_pjm": {5, 5, 6}, "pglib_opf_case14_ieee": {14, 5, 20},
		"pglib_opf_case24_ieee_rts": {24, 33, 38}, "pglib_opf_case30_ieee": {30, 6, 41},
		"pglib_opf_case57_ieee": {57, 7, 80}, "pglib_opf_case89_pegase": {89, 12, 210},
		"pglib_opf_case118_ieee": {118, 54, 186}, "pglib_opf_case300_ieee": {300, 69, 411},
		"pglib_opf_case1354_pegase": {1354, 260, 1991}, "pglib_opf_case2383wp_k": {2383, 327, 2896},
	}
	for _, f := range files {
		c, err := ReadCase(f)
		if err != nil {
			t.Errorf("%s: %v", filepath.Base(f), err)
			continue
		}
		if w, ok := want[c.Name]; ok {
			if got := [3]int{len(c.Buses), len(c.Gens), len(c.Branches)}; got != w {
				t.Errorf("%s: sizes %v, want %v", c.Name, got, w)
			}
		}
		n, err := NewNetwork(c, DCOptions{})
		if err != nil {
			t.Errorf("%s: network: %v", c.Name, err)
			continue
		}
		if len(n.RefBus) != 1 {
			t.Errorf("%s: %d islands, want 1", c.Name, len(n.RefBus))
		}
		checkPowerFlowBalance(t, c.Name, n)
	}
}

// checkPowerFlowBalance solves a DC power flow with a proportional dispatch and
// checks nodal balance Σ_l A_li f_l = inj_i at every non-reference bus.
func checkPowerFlowBalance(t *testing.T, name string, n *Network) {
	t.Helper()
	var load, cap float64
	for _, d := range n.Load {
		load += d
	}
	for _, p := range n.Pmax {
		cap += p
	}
	pg := make([]float64, n.NumGens())
	for g := range pg {
		pg[g] = n.Pmax[g] * load / cap
	}
	_, flow := n.PowerFlow(pg)
	inj := n.NetInjection(pg)
	out := make([]float64, n.NumBuses())
	for l, f := range flow {
		out[n.From[l]] += f
		out[n.To[l]] -= f
	}
	isRef := map[int]bool{}
	for _, r := range n.RefBus {
		isRef[r] = true
	}
	var worst, sum float64
	for i := range out {
		sum += inj[i]
		if !isRef[i] {
			worst = math.Max(worst, math.Abs(out[i]-inj[i]))
		}
	}
	if worst > 1e-6*math.Max(1, load) {
		t.Errorf("%s: nodal balance residual %.3g MW", name, worst)
	}
	if math.Abs(sum) > 1e-6*load {
		t.Errorf("%s: proportional dispatch unbalanced by %.3g MW", name, sum)
	}
}

func TestParseFeatures(t *testing.T) {
	c, err := ReadCase("testdata/case_features.m")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Buses) != 5 || len(c.Gens) != 5 || len(c.Branches) != 6 || len(c.Costs) != 5 {
		t.Fatalf("sizes %d %d %d %d", len(c.Buses), len(c.Gens), len(c.Branches), len(c.Costs))
	}
	if c.Buses[1].ID != 20 || c.Buses[2].ID != 30 || c.Buses[3].ID != 45 || c.Buses[1].Gs != 5 {
		t.Errorf("rows on one line / commas: %+v", c.Buses[:4])
	}
	if g := c.Gens[4]; g.Bus != 45 || g.Pmax != 40 || !g.InService {
		t.Errorf("continued row: %+v", g)
	}
	if c.Gens[2].InService {
		t.Error("gen 3 has status 0")
	}
	if c2, c1, c0, _ := c.Costs[0].Quadratic(); c2 != 0.01 || c1 != 20 || c0 != 100 {
		t.Errorf("cost 1 = %v %v %v", c2, c1, c0)
	}
	if c2, c1, c0, _ := c.Costs[1].Quadratic(); c2 != 0 || c1 != 30 || c0 != 0 {
		t.Errorf("linear cost 2 = %v %v %v", c2, c1, c0)
	}
	pwl := c.Costs[4]
	if pwl.Model != PiecewiseLinear || pwl.Eval(30) != 700 || pwl.Eval(10) != 200 || pwl.MarginalMax(0, 40) != 30 || pwl.MarginalMax(0, 15) != 20 {
		t.Errorf("pwl: %+v eval(30)=%v", pwl, pwl.Eval(30))
	}
	n, err := NewNetwork(c, DCOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Bus 99 is isolated: it, and branch 45–99, are dropped; gen 3 and branch 5 are
	// out of service.
	if n.NumBuses() != 4 || n.NumGens() != 4 || n.NumBranches() != 4 {
		t.Fatalf("network sizes %d %d %d", n.NumBuses(), n.NumGens(), n.NumBranches())
	}
	if n.Load[n.BusIndex[20]] != 55 {
		t.Errorf("load at bus 20 = %v, want Pd + Gs = 55", n.Load[n.BusIndex[20]])
	}
	if n.BusID[n.RefBus[0]] != 10 {
		t.Errorf("reference bus %d, want 10", n.BusID[n.RefBus[0]])
	}
	// Branch 1: rateA 0 → unlimited except the ±30° angle limit: B·π/6.
	B1 := 100 / 0.1
	if n.B[0] != B1 || !near(n.FlowMax[0], B1*math.Pi/6, 1e-12) || !near(n.FlowMin[0], -B1*math.Pi/6, 1e-12) {
		t.Errorf("branch 1: B %v flow [%v, %v]", n.B[0], n.FlowMin[0], n.FlowMax[0])
	}
	// Branch 2: tap 0.95 divides the susceptance (makeBdc).
	if !near(n.B[1], 100/(0.1*0.95), 1e-12) || n.FlowMax[1] != 150 {
		t.Errorf("branch 2: B %v, max flow %v", n.B[1], n.FlowMax[1])
	}
	// Branch 3: −5° shift; the angle limits shift with it: B(±30° + 5°), the lower
	// one below −rateA, so the flow range is [−80, min(80, B·35°)].
	if !near(n.Shift[2], -5*math.Pi/180, 1e-15) || n.FlowMin[2] != -80 || n.FlowMax[2] != 80 {
		t.Errorf("branch 3: shift %v flow [%v, %v]", n.Shift[2], n.FlowMin[2], n.FlowMax[2])
	}
	// Branch 4: angle limits 0, 0 mean none.
	if n.FlowMax[3] != 100 || n.FlowMin[3] != -100 {
		t.Errorf("branch 4: flow [%v, %v]", n.FlowMin[3], n.FlowMax[3])
	}
	nr, err := NewNetwork(c, DCOptions{Susceptance: SusceptanceRX, IgnoreTaps: true, IgnoreShunts: true, IgnorePhaseShifts: true})
	if err != nil {
		t.Fatal(err)
	}
	if want := 100 * 0.1 / (0.01*0.01 + 0.1*0.1); !near(nr.B[1], want, 1e-12) || nr.Shift[2] != 0 || nr.Load[nr.BusIndex[20]] != 50 {
		t.Errorf("options ignored: B %v (want %v) shift %v load %v", nr.B[1], want, nr.Shift[2], nr.Load[nr.BusIndex[20]])
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		file, matrix string
		row          int
		msg          string
	}{
		{"missing_branch.m", "branch", 0, "matrix missing"},
		{"missing_basemva.m", "baseMVA", 0, "missing"},
		{"gen_columns.m", "gen", 3, "has 9 columns, need at least 10"},
		{"gencost_model.m", "gencost", 1, "cost model is 3"},
		{"gencost_cubic.m", "gencost", 1, "degree 3"},
		{"gencost_nonconvex.m", "gencost", 1, "not convex"},
		{"gencost_short.m", "gencost", 0, "has 1 rows, need one per generator (2)"},
		{"island_no_gen.m", "bus", 0, "no in-service generator"},
		{"negative_rate.m", "branch", 2, "rateA is -5"},
		{"pmax_below_pmin.m", "gen", 1, "Pmax = 20 is below Pmin = 50"},
		{"unknown_bus.m", "branch", 1, "to bus 7 does not exist"},
		{"unclosed.m", "bus", 0, "never closed"},
		{"not_a_number.m", "branch", 1, `"abc" is not a number`},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			c, err := ReadCase(filepath.Join("testdata", "bad", tc.file))
			if err == nil {
				_, err = NewNetwork(c, DCOptions{})
			}
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, ErrFormat) {
				t.Errorf("%v: not ErrFormat", err)
			}
			var fe *FormatError
			if !errors.As(err, &fe) || fe.Matrix != tc.matrix || fe.Row != tc.row {
				t.Errorf("error %q: want matrix %q row %d", err, tc.matrix, tc.row)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %q does not mention %q", err, tc.msg)
			}
		})
	}
}

func TestReadCaseMissingFile(t *testing.T) {
	_, err := ReadCase(filepath.Join(t.TempDir(), "nope.m"))
	if err == nil || errors.Is(err, ErrFormat) || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("err = %v", err)
	}
}

func near(a, b, rel float64) bool {
	return math.Abs(a-b) <= rel*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}
