package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/privopt/privopt/grid"
)

// certify on the hand-solved three-bus case (grid/testdata/case3_congested.m):
// with the load at bus 3 in [81, 99] MW branch 1–3 always binds and the LMP
// there is 50 $/MWh, so the certificate is the LMP bound 50·α; the file it
// writes loads (and re-verifies) against the same network and domain.
func TestCertifyCommand(t *testing.T) {
	dir := t.TempDir()
	casePath := filepath.Join("..", "..", "grid", "testdata", "case3_congested.m")
	dom := filepath.Join(dir, "domain.csv")
	if err := os.WriteFile(dom, []byte("bus,min,max\n3,81,99\n2,0,10\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "cert.json")
	code, stdout, stderr := runCmd(t, "certify", "--case", casePath, "--domain", dom, "--alpha", "2", "--dc-model", "matpower", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "certificate: lmp-bound, 50.0001 $/MWh per MW, sensitivity 100 $/h") && !strings.Contains(stdout, "certificate: lmp-bound, 50 $/MWh per MW, sensitivity 100 $/h") {
		t.Errorf("stdout: %s", stdout)
	}
	if !strings.Contains(stderr, "lmp-bound: max π over 1 bus(es) (1 excluded by their bounds): proven bound") {
		t.Errorf("no progress on stderr: %s", stderr)
	}
	c, err := grid.ReadCase(casePath)
	if err != nil {
		t.Fatal(err)
	}
	pw, _, _ := c.PiecewiseCosts(20)
	net, err := grid.NewNetwork(pw, grid.DCOptions{})
	if err != nil {
		t.Fatal(err)
	}
	df, _ := os.Open(dom)
	d, err := grid.ReadLoadDomainCSV(df, net)
	df.Close()
	if err != nil {
		t.Fatal(err)
	}
	f, _ := os.Open(out)
	defer f.Close()
	cf, err := grid.LoadCostCertificate(context.Background(), f, net, d, true)
	if err != nil {
		t.Fatal(err)
	}
	if cf.Method != "lmp-bound" || cf.Alpha != 2 || cf.Security {
		t.Errorf("file: %+v", cf)
	}
	if cf.Certificate.LMP == nil || cf.Certificate.LMP.Proof == nil {
		t.Fatal("no checkable proof in the file (--checkable is the default)")
	}
	// A proof whose last price bound is lowered is refused when the file is
	// loaded (the proof is checked; no solver runs).
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	steps := doc["certificate"].(map[string]any)["lmp"].(map[string]any)["proof"].(map[string]any)["steps"].([]any)
	last := -1
	for q, st := range steps {
		if st.(map[string]any)["op"] == "pi_hi" {
			last = q
		}
	}
	if last < 0 {
		t.Fatal("no price step in the proof")
	}
	steps[last].(map[string]any)["x"] = steps[last].(map[string]any)["x"].(float64) - 1
	bad, _ := json.Marshal(doc)
	if _, err := grid.LoadCostCertificate(context.Background(), bytes.NewReader(bad), net, d, false); !errors.Is(err, grid.ErrNotCertified) {
		t.Errorf("tampered proof loaded: %v", err)
	}
	// N-1: the 50 $/MWh unit at bus 3 serves bus 3 alone at any post factor,
	// so the N-1 bound is 50 too (grid's TestN1LMPBoundClosedForm); the
	// certificate is re-derived by --verify and written with n_1 true.
	outN1 := filepath.Join(dir, "cert_n1.json")
	code, stdout, _ = runCmd(t, "certify", "--case", casePath, "--domain", dom, "--n-1", "--post-factor", "1.5", "--dc-model", "matpower", "--verify", "--quiet", "--out", outN1)
	if code != 0 || !strings.Contains(stdout, "lmp-bound-n1, 50.0001 $/MWh") || !strings.Contains(stdout, "verified: re-derived") {
		t.Errorf("--n-1: exit %d, %s", code, stdout)
	}
	// --target-ratio 0 runs the MIP to closure: the same tight 50.
	if code, stdout, _ := runCmd(t, "certify", "--case", casePath, "--domain", dom, "--n-1", "--post-factor", "1.5", "--dc-model", "matpower", "--target-ratio", "0", "--quiet"); code != 0 || !strings.Contains(stdout, "lmp-bound-n1, 50.0001 $/MWh") {
		t.Errorf("--n-1 --target-ratio 0: exit %d, %s", code, stdout)
	}
	if f, err := os.Open(outN1); err != nil {
		t.Error(err)
	} else {
		cf, err := grid.LoadCostCertificate(context.Background(), f, net, d, true)
		f.Close()
		if err != nil || !cf.Security || cf.Certificate.N1 == nil || cf.Certificate.N1.PostFactor != 1.5 {
			t.Errorf("N-1 certificate file: %v %+v", err, cf)
		}
	}
	for _, args := range [][]string{
		{"certify", "--case", casePath},
		{"certify", "--case", casePath, "--domain", dom, "--alpha", "0"},
		{"certify", "--case", casePath, "--domain", dom, "--price-floor", "5"},
		{"certify", "--case", casePath, "--domain", dom, "--post-factor", "1.5"},
		{"certify", "--case", casePath, "--domain", dom, "--n-1", "--post-factor", "0"},
		{"certify", "--case", casePath, "--domain", dom, "--target-ratio", "2"},
		{"certify", "--case", casePath, "--domain", dom, "--n-1", "--target-ratio", "0.5"},
	} {
		if code, _, _ := runCmd(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

// --pattern-split-work: with --n-1 it is a usage error naming the flag, a
// negative value is refused, --target-ratio without --n-1 needs it and
// --checkable=false, and with --checkable=false (with and without a
// target) and with the default --checkable (the proof covers the split)
// the certificate is the same 50 $/MWh LMP bound on the three-bus case
// (one varying bus at 50: nothing to split).
func TestCertifyPatternSplitFlag(t *testing.T) {
	dir := t.TempDir()
	casePath := filepath.Join("..", "..", "grid", "testdata", "case3_congested.m")
	dom := filepath.Join(dir, "domain.csv")
	if err := os.WriteFile(dom, []byte("bus,min,max\n3,81,99\n2,0,10\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	base := []string{"certify", "--case", casePath, "--domain", dom, "--dc-model", "matpower", "--quiet"}
	for _, extra := range [][]string{{"--pattern-split-work", "1e8", "--checkable=false", "--n-1"}} {
		code, _, stderr := runCmd(t, append(slices.Clone(base), extra...)...)
		if code != 2 || !strings.Contains(stderr, "--pattern-split-work does not run with --n-1") {
			t.Errorf("%v: exit %d, stderr %q", extra, code, stderr)
		}
	}
	code, _, stderr := runCmd(t, append(slices.Clone(base), "--checkable=false", "--pattern-split-work", "-1")...)
	if code == 0 || !strings.Contains(stderr, "pattern-split-work") {
		t.Errorf("negative work: exit %d, stderr %q", code, stderr)
	}
	// --target-ratio without --n-1 needs the split without the proof.
	for _, extra := range [][]string{{"--target-ratio", "2"}, {"--pattern-split-work", "1e8", "--target-ratio", "2"}, {"--checkable=false", "--target-ratio", "2"}} {
		code, _, stderr := runCmd(t, append(slices.Clone(base), extra...)...)
		if code != 2 || !strings.Contains(stderr, "--target-ratio sets where the N-1 bound or the pattern split stops") {
			t.Errorf("%v: exit %d, stderr %q", extra, code, stderr)
		}
	}
	for _, route := range [][]string{{"--checkable=false"}, {"--checkable=true"}, {"--checkable=false", "--target-ratio", "2"}, {"--checkable=false", "--target-ratio", "0"}} {
		code, stdout, stderr := runCmd(t, append(append(slices.Clone(base), route...), "--pattern-split-work", "1e8")...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", route, code, stderr)
		}
		if !strings.Contains(stdout, "certificate: lmp-bound, 50") {
			t.Errorf("%s: stdout: %s", route, stdout)
		}
	}
}

// certify on a case with a shunt withdrawal (case3_congested with Gs = 5
// MW at bus 3) covers the release's withdrawals — the loads plus the
// shunt — and says so; `opf --certificate` accepts the file for that case
// and domain (the plan checks it against its withdrawal domain), and
// refuses a file certified on the same case without the shunt (its domain
// digest is the demand domain's, which the release does not see).
func TestCertifyShuntWithdrawals(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("..", "..", "grid", "testdata", "case3_congested.m"))
	if err != nil {
		t.Fatal(err)
	}
	shunted := strings.Replace(string(src), "\t3\t1\t90\t0\t0\t0\t1", "\t3\t1\t90\t0\t5\t0\t1", 1)
	if shunted == string(src) {
		t.Fatal("bus 3's row not found")
	}
	withShunt, without := filepath.Join(dir, "shunt.m"), filepath.Join(dir, "plain.m")
	if err := os.WriteFile(withShunt, []byte(shunted), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(without, src, 0o644); err != nil {
		t.Fatal(err)
	}
	dom := filepath.Join(dir, "domain.csv")
	if err := os.WriteFile(dom, []byte("bus,min,max\n3,81,99\n2,0,10\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	certS, certP := filepath.Join(dir, "shunt.json"), filepath.Join(dir, "plain.json")
	code, stdout, stderr := runCmd(t, "certify", "--case", withShunt, "--domain", dom, "--dc-model", "matpower", "--quiet", "--out", certS)
	if code != 0 {
		t.Fatalf("certify with the shunt: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "the case's shunt withdrawals at 1 buses (5 MW in all)") || !strings.Contains(stdout, "certificate: lmp-bound, 50") {
		t.Errorf("certify with the shunt: %s", stdout)
	}
	if code, _, stderr := runCmd(t, "certify", "--case", without, "--domain", dom, "--dc-model", "matpower", "--quiet", "--out", certP); code != 0 {
		t.Fatalf("certify without the shunt: exit %d: %s", code, stderr)
	}
	code, stdout, stderr = runCmd(t, "opf", "--case", withShunt, "--domain", dom, "--dc-model", "matpower", "--certificate", certS, "--query", "cost", "--plan-only")
	if code != 0 || !strings.Contains(stdout, "lmp-bound") {
		t.Errorf("opf with the shunt case's certificate: exit %d: %s %s", code, stdout, stderr)
	}
	code, _, stderr = runCmd(t, "opf", "--case", withShunt, "--domain", dom, "--dc-model", "matpower", "--certificate", certP, "--query", "cost", "--plan-only")
	if code == 0 || !strings.Contains(stderr, "digest") {
		t.Errorf("opf with a certificate of the demand domain on the shunt case: exit %d: %s", code, stderr)
	}
}
