package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/privopt/privopt/grid"
	"github.com/privopt/privopt/internal/invariance"
	"github.com/privopt/privopt/internal/shareddata"
)

// opfSweepCase is one configuration of the CLI invariance sweep.
type opfSweepCase struct {
	name, file string
	band       float64 // the domain: reference ± band·|reference|, zero-load buses in [0, zeroMax]
	zeroMax    float64
	args       []string
	pairs      int
}

// invarianceRun is the CLI in process.
func invarianceRun(t *testing.T) invariance.Runner {
	return func(args ...string) (int, string, string) { return runCmd(t, args...) }
}

// sweepOPF runs the invariance relation on one configuration and fails the
// test on any published difference, refusal, or released difference above the
// certified sensitivity plus one grid step.
func sweepOPF(t *testing.T, path string, c opfSweepCase) *invariance.Result {
	t.Helper()
	net, _, ref := caseFile(t, path)
	dom, _ := grid.ReferenceBand(ref, c.band)
	for i, v := range ref {
		if v == 0 {
			dom.Hi[i] = c.zeroMax
		}
	}
	res, err := invariance.OPF(invarianceRun(t), t.TempDir(), net, invariance.OPFCase{
		Name: c.name, Case: path, Args: c.args, Alpha: 1, Pairs: c.pairs, Seed: 11, Domain: dom, Ref: ref, PerRun: 8})
	if err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	for _, f := range res.Failures {
		t.Error(f)
	}
	if testing.Verbose() {
		t.Logf("%s: released %v / %v", c.name, res.Released[0], res.Released[1])
	}
	t.Logf("%s: %d pairs, %d refusals, max |Δ released|/(sensitivity + grid) %.3f, /sensitivity %.3f", c.name, res.Pairs, res.Refusals, res.MaxRatio, res.MaxRawRatio)
	return res
}

// Adjacent private loads, the same seed: every byte of `privopt opf`'s JSON,
// text and ledger entries is identical except the released values, which
// differ by at most the certified sensitivity plus one grid step, and no
// pair refuses — for each mechanism, each chance method, N-1, a congested
// case scaled 1.336 and zero-load buses that may carry load. (The full sweep
// over more cases is bench/invariance; its numbers are in BENCHMARKS.md.)
func TestOPFAdjacencyInvariance(t *testing.T) {
	c14 := shareddata.Path(t, "pglib/pglib_opf_case14_ieee.m")
	cases := []opfSweepCase{
		{"14 laplace vertex", c14, 0.3, 5, []string{"--query", "cost"}, 8},
		{"14 laplace bonferroni", c14, 0.3, 5, []string{"--query", "cost", "--method", "bonferroni"}, 4},
		{"14 analytic-gaussian bonferroni", c14, 0.3, 5, []string{"--query", "cost", "--noise", "analytic-gaussian", "--delta", "1e-5", "--method", "bonferroni"}, 4},
		{"14 gaussian vertex", c14, 0.3, 0, []string{"--query", "cost", "--noise", "gaussian", "--epsilon", "0.5", "--delta", "1e-5"}, 4},
		{"14 truncated-laplace robust", c14, 0.3, 0, []string{"--query", "cost", "--noise", "truncated-laplace", "--delta", "1e-3", "--method", "robust"}, 4},
		{"14 optimal robust", c14, 0.1, 0, []string{"--query", "cost", "--noise", "optimal", "--delta", "0.1", "--method", "robust"}, 4},
		{"14 n-1", c14, 0.3, 0, []string{"--query", "cost", "--n-1", "--post-factor", "1.5"}, 4},
		{"5_pjm laplace vertex", shareddata.Path(t, "pglib/pglib_opf_case5_pjm.m"), 0.3, 0, []string{"--query", "cost"}, 6},
		{"30 laplace vertex", shareddata.Path(t, "pglib/pglib_opf_case30_ieee.m"), 0.3, 5, []string{"--query", "cost"}, 6},
		{"30 laplace vertex, LMP bound in the plan", shareddata.Path(t, "pglib/pglib_opf_case30_ieee.m"), 0.1, 0, []string{"--query", "cost", "--certify-lmp", "30s"}, 4},
	}
	worst := 0.0
	for _, c := range cases {
		r := sweepOPF(t, c.file, c)
		worst = math.Max(worst, r.MaxRatio)
	}
	if !(worst > 0) {
		t.Error("no released value moved between adjacent inputs: the sweep cannot tell anything")
	}
}

// The demo releases the same bytes twice with the same seed (its data is
// fixed; adjacency is covered by the opf sweep, which shares its code path).
func TestDemoDeterministic(t *testing.T) {
	_, a, _ := runCmd(t, "demo", "--seed", "9")
	_, b, _ := runCmd(t, "demo", "--seed", "9")
	if a != b || a == "" {
		t.Errorf("two seeded demos differ:\n%s\n%s", a, b)
	}
	_ = filepath.Join
}

// Certify once, release often: `privopt certify` writes the LMP-bound
// certificate of 5_pjm over a ±10% domain; `privopt opf --certificate` checks
// it against the case and the domain and uses it (39.97 $/h instead of the
// price cap's 1000), the invariance relation holds with it, and a
// certificate for another domain is refused before any load is read.
func TestOPFCertificateFile(t *testing.T) {
	path := shareddata.Path(t, "pglib/pglib_opf_case5_pjm.m")
	net, _, ref := caseFile(t, path)
	dir := t.TempDir()
	dom, _ := grid.ReferenceBand(ref, 0.1)
	dpath, cpath := filepath.Join(dir, "domain.csv"), filepath.Join(dir, "cert.json")
	if err := invariance.WriteDomainCSV(dpath, net, dom); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runCmd(t, "certify", "--case", path, "--domain", dpath, "--alpha", "1", "--out", cpath, "--quiet"); code != 0 {
		t.Fatalf("certify: exit %d: %s", code, errs)
	}
	res, err := invariance.OPF(invarianceRun(t), dir, net, invariance.OPFCase{Name: "5_pjm certificate", Case: path,
		Args: []string{"--query", "cost", "--certificate", cpath}, Alpha: 1, Pairs: 6, Seed: 5, Domain: dom, Ref: ref})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Failures {
		t.Error(f)
	}
	code, out, errs := runCmd(t, "opf", "--case", path, "--domain", dpath, "--certificate", cpath, "--query", "cost", "--plan-only", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var o struct {
		Plan struct {
			Sensitivity float64 `json:"sensitivity"`
			Certificate struct {
				Method string `json:"method"`
			} `json:"certificate"`
		} `json:"plan"`
	}
	if err := json.Unmarshal([]byte(out), &o); err != nil {
		t.Fatal(err)
	}
	if o.Plan.Certificate.Method != "opf-lmp-bound" || !(o.Plan.Sensitivity > 39.9 && o.Plan.Sensitivity < 41) {
		t.Errorf("plan with the certificate: %s, sensitivity %v (want opf-lmp-bound, ≈ 39.97)", o.Plan.Certificate.Method, o.Plan.Sensitivity)
	}
	wide, _ := grid.ReferenceBand(ref, 0.3)
	wpath := filepath.Join(dir, "wide.csv")
	if err := invariance.WriteDomainCSV(wpath, net, wide); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runCmd(t, "opf", "--case", path, "--domain", wpath, "--certificate", cpath, "--query", "cost", "--plan-only"); code == 0 || !strings.Contains(errs, "digest") {
		t.Errorf("a certificate for another domain: exit %d, %q", code, errs)
	}
}

// Certify once, release every hour: a plan saved with --save-plan (here with
// the LMP bound certified inside it) and loaded with --plan releases the
// same bytes as the plan computed from the flags, the invariance relation
// holds through the saved plan, and plan-shaping flags or an edited file
// are refused before any load is read.
func TestOPFSavedPlan(t *testing.T) {
	path := shareddata.Path(t, "pglib/pglib_opf_case5_pjm.m")
	net, _, ref := caseFile(t, path)
	dir := t.TempDir()
	dom, _ := grid.ReferenceBand(ref, 0.1)
	dpath, ppath := filepath.Join(dir, "domain.csv"), filepath.Join(dir, "plan.json")
	if err := invariance.WriteDomainCSV(dpath, net, dom); err != nil {
		t.Fatal(err)
	}
	flags := []string{"opf", "--case", path, "--domain", dpath, "--query", "cost", "--certify-lmp", "30s", "--chance-seed", "4"}
	code, planned, errs := runCmd(t, append(flags, "--plan-only", "--json", "--save-plan", ppath)...)
	if code != 0 {
		t.Fatalf("save: exit %d: %s", code, errs)
	}
	code, loaded, errs := runCmd(t, "opf", "--case", path, "--plan", ppath, "--plan-only", "--json")
	if code != 0 {
		t.Fatalf("load: exit %d: %s", code, errs)
	}
	if planned != loaded {
		t.Errorf("the loaded plan prints differently:\n%s\n%s", planned, loaded)
	}
	if !strings.Contains(loaded, `"opf-lmp-bound"`) {
		t.Errorf("the saved plan lost its LMP-bound certificate:\n%s", loaded)
	}
	// The same releases from the flags and from the file.
	_, a, _ := runCmd(t, append(flags, "--seed", "8", "--json")...)
	_, b, _ := runCmd(t, "opf", "--case", path, "--plan", ppath, "--seed", "8", "--json")
	if a != b || !strings.Contains(a, `"released_value"`) {
		t.Errorf("releases differ between the flags and the saved plan:\n%s\n%s", a, b)
	}
	res, err := invariance.OPF(invarianceRun(t), dir, net, invariance.OPFCase{Name: "5_pjm saved plan", Case: path,
		Alpha: 1, Pairs: 6, Seed: 5, Domain: dom, Ref: ref, Plan: ppath})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Failures {
		t.Error(f)
	}
	if code, _, errs := runCmd(t, "opf", "--case", path, "--plan", ppath, "--epsilon", "2"); code != 2 || !strings.Contains(errs, "--epsilon") {
		t.Errorf("--plan with --epsilon: exit %d: %s", code, errs)
	}
	raw, err := os.ReadFile(ppath)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(raw), `"epsilon": 1,`, `"epsilon": 0.5,`, 1)
	epath := filepath.Join(dir, "edited.json")
	if err := os.WriteFile(epath, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runCmd(t, "opf", "--case", path, "--plan", epath, "--plan-only"); code == 0 || !strings.Contains(errs, "differs") {
		t.Errorf("edited plan file: exit %d: %s", code, errs)
	}
}
