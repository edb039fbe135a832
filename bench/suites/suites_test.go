package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/internal/shareddata"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/auto"
)

// TestTolerance checks the pass rule of reference.json: 1e-6·max(1, |ref|),
// or half a unit of the last printed digit.
func TestTolerance(t *testing.T) {
	in := instance{}
	in.Reference = &struct {
		Value     float64 `json:"value"`
		Text      string  `json:"text"`
		SigDigits int     `json:"sig_digits"`
		Source    string  `json:"source"`
	}{Value: 2.0326, Text: "2.0326e+00", SigDigits: 5}
	if got := in.tolerance(); math.Abs(got-0.5e-4) > 1e-15 {
		t.Errorf("hinf1's tolerance %v, want 5e-5", got)
	}
	in.Reference.Value, in.Reference.Text, in.Reference.SigDigits = 1.1579029605625948, "", 0
	if got := in.tolerance(); math.Abs(got-1.1579029605625948e-6) > 1e-18 {
		t.Errorf("tolerance %v, want 1e-6·|ref|", got)
	}
	if g := grade(&in, solver.Optimal, 1.1579029605625948+2e-6, false); g != "wrong" {
		t.Errorf("an optimal status 2e-6 off is graded %q, want wrong", g)
	}
	if g := grade(&in, solver.AlmostOptimal, 1.1579029605625948+2e-6, false); g != "fail" {
		t.Errorf("an almost-optimal status 2e-6 off is graded %q, want fail", g)
	}
}

// TestSubset runs a few small public instances of every library through the
// default route and requires a verified pass (the full run is the benchmark).
func TestSubset(t *testing.T) {
	dir, ref := conicBench(t)
	want := map[string]bool{"HS21": true, "QAFIRO": true, "DUAL1": true, "demb782": true, "rijc782": true, "bss1": true, "truss1": true, "theta1": true, "infp1": true}
	n := 0
	for i := range ref.Instances {
		in := &ref.Instances[i]
		if !want[in.Name] {
			continue
		}
		n++
		o, _ := solveOne(dir, in, auto.New(), time.Minute, false)
		if o.Grade != "pass" {
			t.Errorf("%s/%s: %s, status %s, objective %.10g, reference %.10g (%s)", in.Set, in.Name, o.Grade, o.Status, o.Objective, o.Reference, o.Diagnostic)
		}
	}
	if n == 0 {
		t.Skip("none of the subset's instances is in the shared data")
	}
}

// TestErrata: a corrected reference changes the grade it should (LISWET8's
// misprinted exponent, isil01's status, nql30's tolerance, hinf13's withdrawn
// value) and leaves the published grade as published; every erratum names an
// instance of reference.json and carries evidence.
func TestErrata(t *testing.T) {
	_, ref := conicBench(t)
	byName := map[string]*instance{}
	for i := range ref.Instances {
		byName[ref.Instances[i].Name] = &ref.Instances[i]
	}
	for name, e := range errata {
		if byName[name] == nil || e.Evidence == "" {
			t.Errorf("erratum %q: instance in reference.json %v, evidence %q", name, byName[name] != nil, e.Evidence)
		}
		if e.Unknown && (e.Value != nil || e.SigDigits > 0 || e.RelTol > 0 || e.Status != "") {
			t.Errorf("erratum %q withdraws the published value but also sets a replacement: %+v", name, e)
		}
	}
	// hinf13: the published 46 ± 0.5 lies above the exact upper bound
	// 44.7581076133151 (scripts/bench/sdplib_upper/hinf13.json), so the
	// erratum withdraws it: a point at the bound is "wrong" against the
	// published value when called optimal, and ungraded ("noref") against
	// the erratum, with no reference in the table.
	if in := byName["hinf13"]; in != nil && in.Reference != nil {
		c, ev := in.corrected()
		if g := grade(in, solver.Optimal, 44.7581076133151, false); g != "wrong" {
			t.Errorf("hinf13 at 44.7581 against the published 46: %s", g)
		}
		if c.Reference != nil || !strings.Contains(ev, "44.7581076133151") {
			t.Errorf("hinf13's erratum keeps a reference %v or lacks the bound: %q", c.Reference, ev)
		}
		var o outcome
		o.Objective = 44.7581076133151
		o.gradeBoth(in, solver.Optimal, true)
		if o.Grade != "noref" || o.GradePub != "wrong" || !math.IsNaN(o.Reference) || o.Tolerance != 0 || o.Error != 0 || o.Erratum == "" {
			t.Errorf("hinf13 graded %q (published %q), reference %v ± %v, error %v, erratum %q; want noref (wrong), no reference",
				o.Grade, o.GradePub, o.Reference, o.Tolerance, o.Error, o.Erratum)
		}
		o.gradeBoth(in, solver.Optimal, false)
		if o.Grade != "wrong" || o.Reference != 46 || o.Tolerance != 0.5 {
			t.Errorf("hinf13 with -errata=false: %q against %v ± %v, want wrong against 46 ± 0.5", o.Grade, o.Reference, o.Tolerance)
		}
	}
	if in := byName["LISWET8"]; in != nil {
		c, _ := in.corrected()
		if g := grade(in, solver.Optimal, 714.47006, false); g != "wrong" {
			t.Errorf("LISWET8 at 714.47006 against the published value: %s", g)
		}
		if g := grade(c, solver.Optimal, 714.47006, false); g != "pass" {
			t.Errorf("LISWET8 at 714.47006 against the erratum: %s", g)
		}
		if g := grade(c, solver.Optimal, 714.5, false); g != "wrong" {
			t.Errorf("LISWET8 at 714.5 against the erratum: %s", g)
		}
	}
	if in := byName["isil01"]; in != nil {
		c, _ := in.corrected()
		if g := grade(c, solver.PrimalInfeasible, math.NaN(), false); g != "pass" {
			t.Errorf("isil01 infeasible against the erratum: %s", g)
		}
	}
	if in := byName["nql30"]; in != nil && in.Reference != nil {
		c, _ := in.corrected()
		if tol := c.tolerance(); math.Abs(tol-1e-4) > 1e-12 {
			t.Errorf("nql30 corrected tolerance %v, want 1e-4", tol)
		}
	}
}

// TestRegradeWithdrawn: -regrade of an earlier run's JSON grades an
// instance whose published value an erratum withdraws as "noref", counts it
// in the table's "no reference" column and writes no reference for it.
func TestRegradeWithdrawn(t *testing.T) {
	_, ref := conicBench(t)
	prev := []outcome{
		{Name: "hinf13", Set: "sdplib", Status: "almost-optimal", Objective: 45.0445818790685, Grade: "fail", GradePub: "fail"},
		{Name: "hinf1", Set: "sdplib", Status: "optimal", Objective: 2.03263, Grade: "pass", GradePub: "pass"},
	}
	js, err := json.Marshal(prev)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "prev.json")
	if err := os.WriteFile(path, js, 0o644); err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	if err := regradeFile(path, ref, splitHalves(ref), "ipm", true, &sb); err != nil {
		t.Fatal(err)
	}
	out := sb.String()
	// 2 instances, one per half of the split: hinf1 (tune) 1 pass of 1
	// graded; hinf13 (held-out) without a reference (as published a fail:
	// almost-optimal, 0.96 off 46).
	if !strings.Contains(out, "| sdplib (tune) | 1 | 1 (100.0%) | 0 | 0 | 0 | 1 / 0 |") ||
		!strings.Contains(out, "| sdplib (held-out) | 1 | 0 (0.0%) | 0 | 0 | 1 | 0 / 0 |") {
		t.Errorf("summary row missing:\n%s", out)
	}
	if !strings.Contains(out, "| sdplib/hinf13 (held-out) | noref | almost-optimal | 45.04458188 | NaN |") || !strings.Contains(out, "erratum (published grade fail)") {
		t.Errorf("hinf13 row not graded noref without a reference:\n%s", out)
	}
}

// TestWriteSDPA writes a one-block SDP and checks the SDPA lines.
func TestWriteSDPA(t *testing.T) {
	p := sdpExample()
	var sb strings.Builder
	if err := WriteSDPA(&sb, p); err != nil {
		t.Fatal(err)
	}
	// F(x) = x·[[1 1] [1 1]] − I
	want := "1\n1\n2 \n1 \n0 1 1 1 1\n0 1 2 2 1\n1 1 1 1 1\n1 1 1 2 1\n1 1 2 2 1\n"
	if sb.String() != want {
		t.Errorf("SDPA text\n%q\nwant\n%q", sb.String(), want)
	}
}

// TestTighten: -sdpa-margin 0.25 writes F(x) ⪰ 0.25·I, i.e. F₀ + 0.25·I:
// the diagonal entries of F₀ = I become 1.25, the rest is unchanged, and the
// problem given is not modified.
func TestTighten(t *testing.T) {
	p := sdpExample()
	var sb strings.Builder
	if err := WriteSDPA(&sb, tighten(p, 0.25)); err != nil {
		t.Fatal(err)
	}
	want := "1\n1\n2 \n1 \n0 1 1 1 1.25\n0 1 2 2 1.25\n1 1 1 1 1\n1 1 1 2 1\n1 1 2 2 1\n"
	if sb.String() != want {
		t.Errorf("SDPA text\n%q\nwant\n%q", sb.String(), want)
	}
	if p.B[0] != -1 || p.B[1] != 0 || p.B[2] != -1 {
		t.Errorf("tighten modified its input: b = %v", p.B)
	}
}

// TestWriteSDPAFiles: -sdpa writes hinf1 in SDPA format (13 variables,
// blocks 4, 4, 6); with -sdpa-margin 0.5 every diagonal entry of F₀ grows by
// 0.5 (block 3's F₀ has none in the file, so each becomes a line of value
// 0.5); a negative margin is refused naming the flag and the value.
func TestWriteSDPAFiles(t *testing.T) {
	dir, ref := conicBench(t)
	re := regexp.MustCompile("^hinf1$")
	want := map[string]bool{"sdplib": true}
	for _, margin := range []float64{0, 0.5} {
		out := t.TempDir()
		var sb strings.Builder
		if err := writeSDPAFiles(dir, "", out, margin, ref, want, re, &sb); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(out, "hinf1.dat-s"))
		if err != nil {
			t.Fatalf("margin %v: %v (stdout %q)", margin, err, sb.String())
		}
		text := string(b)
		if !strings.HasPrefix(text, "13\n3\n4 4 6 \n") {
			t.Errorf("margin %v: header %q", margin, text[:min(len(text), 20)])
		}
		for k := 1; k <= 6; k++ {
			line := fmt.Sprintf("\n0 3 %d %d 0.5\n", k, k)
			if got := strings.Contains(text, line); got != (margin == 0.5) {
				t.Errorf("margin %v: line %q present %v", margin, strings.TrimSpace(line), got)
			}
		}
	}
	err := writeSDPAFiles(dir, "", t.TempDir(), -1, ref, want, re, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "-sdpa-margin is -1") {
		t.Errorf("margin -1: error %v", err)
	}
}

// sdpExample: min x s.t. [[x−1, x], [x, x−1]] ⪰ 0, written as s = b − Ax
// with svec(s) = (x − 1, √2·x, x − 1): b = (−1, 0, −1), A = (−1, −√2, −1).
func sdpExample() *solver.Problem {
	return examplePSD()
}

// TestOutcomeJSON: NaN values (no objective) are written as null.
func TestOutcomeJSON(t *testing.T) {
	b, err := json.Marshal(outcome{Name: "x", Objective: math.NaN(), Reference: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"objective":null`) || !strings.Contains(string(b), `"reference":1`) {
		t.Errorf("JSON %s", b)
	}
}

// conicBench returns the directory of ../shared's conic-bench instances and
// its reference.json, skipping the test when either is absent.
func conicBench(t testing.TB) (string, *reference) {
	t.Helper()
	d, err := shareddata.Dir()
	if err != nil {
		t.Skipf("shared data not available: %v", err)
	}
	dir := filepath.Join(d, "conic-bench")
	ref, err := loadReference(dir)
	if err != nil {
		t.Skipf("no conic-bench reference: %v", err)
	}
	return dir, ref
}

// TestSplitHalves checks the held-out split's rule on the shared reference
// list: every instance in exactly one half, the halves of each library of
// sizes ⌊n/2⌋ (held-out) and ⌈n/2⌉ (tune), and every held-out name hashing
// below every tune name of its library.
func TestSplitHalves(t *testing.T) {
	_, ref := conicBench(t)
	halves := splitHalves(ref)
	if len(halves) != len(ref.Instances) {
		t.Fatalf("%d instances split, want %d", len(halves), len(ref.Instances))
	}
	n, held := map[string]int{}, map[string]int{}
	maxHeld, minTune := map[string]uint64{}, map[string]uint64{}
	for _, in := range ref.Instances {
		n[in.Set]++
		h := nameHash(in.Name)
		switch halves[in.Set+"/"+in.Name] {
		case halfHeldOut:
			held[in.Set]++
			maxHeld[in.Set] = max(maxHeld[in.Set], h)
		case halfTune:
			if v, ok := minTune[in.Set]; !ok || h < v {
				minTune[in.Set] = h
			}
		default:
			t.Errorf("%s/%s: half %q", in.Set, in.Name, halves[in.Set+"/"+in.Name])
		}
	}
	for set, k := range n {
		if held[set] != k/2 {
			t.Errorf("%s: %d of %d held out, want %d", set, held[set], k, k/2)
		}
		if maxHeld[set] > minTune[set] {
			t.Errorf("%s: a held-out name hashes above a tune name", set)
		}
	}
}

// TestReadSDPARoundTrip reads back what WriteSDPA writes (one PSD block and
// one diagonal block, SDPA's separators in the header) and compares the
// standard forms entry by entry.
func TestReadSDPARoundTrip(t *testing.T) {
	p := sdpExample()
	var sb strings.Builder
	if err := WriteSDPA(&sb, p); err != nil {
		t.Fatal(err)
	}
	got, err := ReadSDPA(strings.NewReader("\"a comment\n" + sb.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Cones) != len(p.Cones) || got.Cones[0] != p.Cones[0] {
		t.Fatalf("cones %v, want %v", got.Cones, p.Cones)
	}
	for i := range p.B {
		if math.Abs(got.B[i]-p.B[i]) > 1e-15 {
			t.Errorf("b[%d] = %v, want %v", i, got.B[i], p.B[i])
		}
	}
	for i := range p.Q {
		if got.Q[i] != p.Q[i] {
			t.Errorf("q[%d] = %v, want %v", i, got.Q[i], p.Q[i])
		}
	}
	for j := 0; j < p.A.Cols; j++ {
		for i := 0; i < p.A.Rows; i++ {
			if d := got.A.At(i, j) - p.A.At(i, j); math.Abs(d) > 1e-15 {
				t.Errorf("A[%d,%d] = %v, want %v", i, j, got.A.At(i, j), p.A.At(i, j))
			}
		}
	}
	// a diagonal block and the header's separators
	q, err := ReadSDPA(strings.NewReader("2 =mdim\n2 =nblocks\n{2, -1}\n{1.5, -2}\n0 1 1 2 3\n1 2 1 1 4\n2 1 2 2 -1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if q.NumRows() != 4 || q.Cones[1] != cone.NewNonnegative(1) || q.Q[1] != -2 {
		t.Fatalf("rows %d, cones %v, q %v", q.NumRows(), q.Cones, q.Q)
	}
	// F₀ entry (1,2) = 3: b at svec (0,1) = −3√2; F₂ (2,2) = −1: A[2,1] = 1;
	// F₁ diagonal block entry 4: A[3,0] = −4
	if math.Abs(q.B[1]+3*math.Sqrt2) > 1e-15 || q.A.At(2, 1) != 1 || q.A.At(3, 0) != -4 {
		t.Errorf("b %v, A[2,1] %v, A[3,0] %v", q.B, q.A.At(2, 1), q.A.At(3, 0))
	}
}

// TestUnseenErrata: hinf12's published 0.2, hinf15's 25 and gpp100's
// -44.9435 lie above exact upper bounds on the minimum (1.95e-5, 23.956 and
// -44.94355077, certificates in
// scripts/bench/sdplib_upper), so against the erratum a point at the bound
// is ungraded ("noref"), against the published value "wrong" when called
// optimal; the same name in the shared set is not affected.
func TestUnseenErrata(t *testing.T) {
	for _, c := range []struct {
		name      string
		published float64
		digits    int
		bound     float64
	}{{"hinf12", 0.2, 1, 1.82176704230573e-05}, {"hinf15", 25, 2, 23.955975997125}, {"gpp100", -44.9435, 6, -44.9435507672}} {
		in := instance{Name: c.name, Set: setUnseen, ExpectedStatus: "optimal"}
		in.Reference = &struct {
			Value     float64 `json:"value"`
			Text      string  `json:"text"`
			SigDigits int     `json:"sig_digits"`
			Source    string  `json:"source"`
		}{Value: c.published, SigDigits: c.digits}
		if g := grade(&in, solver.Optimal, c.bound, false); g != "wrong" {
			t.Errorf("%s at the bound %v against the published %v: %s, want wrong", c.name, c.bound, c.published, g)
		}
		var o outcome
		o.Objective = c.bound
		o.gradeBoth(&in, solver.Optimal, true)
		if o.Grade != "noref" || o.GradePub != "wrong" || o.Erratum == "" {
			t.Errorf("%s graded %q (published %q), erratum %q; want noref (wrong)", c.name, o.Grade, o.GradePub, o.Erratum)
		}
		shared := in
		shared.Set = "sdplib"
		if _, ev := shared.corrected(); ev != "" {
			t.Errorf("%s of the shared set picked up the unseen erratum: %q", c.name, ev)
		}
		if _, err := os.Stat(filepath.Join("..", "..", "scripts", "bench", "sdplib_upper", c.name+".json")); err != nil {
			t.Errorf("%s: certificate missing: %v", c.name, err)
		}
	}
}
