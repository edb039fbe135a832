package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoiseOutRoundTrip: privopt noise optimal --out → --noise-file (exact
// certifier re-run) → safe samples on the density's release grid.
func TestNoiseOutRoundTrip(t *testing.T) {
	file := filepath.Join(t.TempDir(), "noise.json")
	code, _, errs := runNoiseCmd("optimal", "--epsilon", "1", "--delta", "0.2", "--sensitivity", "2", "--intervals", "40", "--out", file)
	if code != 0 {
		t.Fatalf("optimal --out: exit %d: %s", code, errs)
	}
	code, out, errs := runNoiseCmd("--noise-file", file, "--json", "--samples", "20")
	if code != 0 {
		t.Fatalf("--noise-file: exit %d: %s", code, errs)
	}
	var got struct {
		Mechanism   string
		Epsilon     float64
		Delta       float64
		Sensitivity float64
		Support     []float64
		Samples     []float64
		SamplesSafe *bool `json:"samples_safe"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if got.Mechanism != "optimal" || got.Epsilon != 1 || got.Delta != 0.2 || got.Sensitivity != 2 || len(got.Samples) != 20 ||
		got.SamplesSafe == nil || !*got.SamplesSafe {
		t.Fatalf("reloaded: %s", out)
	}
	for _, x := range got.Samples {
		if x < got.Support[0]-1 || x > got.Support[1] {
			t.Fatalf("sample %v outside the support %v", x, got.Support)
		}
	}
	// A file claiming a smaller ε is refused with exit 1.
	b, _ := os.ReadFile(file)
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(strings.Replace(string(b), `"epsilon": 1,`, `"epsilon": 0.5,`, 1)), 0o644)
	if code, _, errs := runNoiseCmd("--noise-file", bad); code != 1 || !strings.Contains(errs, "could not be certified") {
		t.Fatalf("tampered file: exit %d: %s", code, errs)
	}
	// --out with a non-piecewise mechanism is a usage error.
	if code, _, _ := runNoiseCmd("laplace", "--epsilon", "1", "--out", file); code != 2 {
		t.Fatalf("laplace --out: exit %d", code)
	}
	// Samples of a Gaussian go through the discrete Gaussian: samples_safe.
	code, out, _ = runNoiseCmd("analytic-gaussian", "--epsilon", "1", "--delta", "1e-5", "--samples", "3", "--json")
	if code != 0 || !strings.Contains(out, `"samples_safe": true`) {
		t.Fatalf("analytic-gaussian samples: exit %d\n%s", code, out)
	}
}
