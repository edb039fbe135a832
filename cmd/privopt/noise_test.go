package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/privopt/privopt/noise"
)

func runNoiseCmd(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(context.Background(), append([]string{"noise"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

// Example 1 of Selvi, Liu & Wiesemann through the CLI (REFERENCE.md numbers).
func TestNoiseJSONExample1(t *testing.T) {
	cases := []struct {
		args  []string
		std   float64
		param string
		value float64
	}{
		{[]string{"laplace", "--epsilon", "1", "--sensitivity", "360.82"}, 510.28, "scale", 360.82},
		{[]string{"--epsilon", "1", "--delta", "0.2", "--sensitivity", "360", "analytic-gaussian"}, 300.96 * 1.0, "sigma", 300.96},
		{[]string{"truncated-laplace", "--epsilon", "1", "--delta", "0.2", "--sensitivity", "360"}, 273.48, "scale", 360},
	}
	for _, c := range cases {
		code, out, errs := runNoiseCmd(append(c.args, "--json")...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errs)
		}
		var got map[string]any
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatal(err)
		}
		if s := got["std"].(float64); math.Abs(s-c.std) > 0.01 {
			t.Errorf("%v: std %v, want %v", c.args, s, c.std)
		}
		if v := got[c.param].(float64); math.Abs(v-c.value) > 0.01 {
			t.Errorf("%v: %s %v, want %v", c.args, c.param, v, c.value)
		}
		for _, k := range []string{"mechanism", "epsilon", "delta", "sensitivity", "mean_abs", "support"} {
			if _, ok := got[k]; !ok {
				t.Errorf("%v: JSON lacks %q", c.args, k)
			}
		}
	}
}

func TestNoiseOptimalJSONAndPlot(t *testing.T) {
	svg := filepath.Join(t.TempDir(), "density.svg")
	code, out, errs := runNoiseCmd("optimal", "--epsilon", "1", "--delta", "0.2", "--sensitivity", "360", "--loss", "l2",
		"--intervals", "120", "--json", "--plot", svg, "--samples", "5")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got struct {
		Std, UpperBound, LowerBound, Gap, MaxShortfall, TimeS float64
		Certified                                             bool
		Intervals                                             int
		Support                                               []float64
		Samples                                               []float64
		LowerMethod                                           string
	}
	dec := json.NewDecoder(strings.NewReader(strings.NewReplacer(`"upper_bound"`, `"UpperBound"`, `"lower_bound"`, `"LowerBound"`,
		`"max_shortfall"`, `"MaxShortfall"`, `"time_s"`, `"TimeS"`, `"lower_method"`, `"LowerMethod"`).Replace(out)))
	if err := dec.Decode(&got); err != nil {
		t.Fatal(err)
	}
	if !got.Certified || got.MaxShortfall > 0 || got.Intervals < 100 || len(got.Support) != 2 || len(got.Samples) != 5 {
		t.Errorf("unexpected output %+v", got)
	}
	if math.Abs(got.Std-257.68) > 0.5 || !(got.LowerBound <= got.UpperBound) {
		t.Errorf("std %v (want ≈257.68), bounds [%v, %v]", got.Std, got.LowerBound, got.UpperBound)
	}
	// ℓ₂ declares its smoothness: the dithered bound certifies < 0.5% here.
	if got.LowerMethod != "dithered" || !(got.Gap < 0.005) {
		t.Errorf("lower method %q, gap %v", got.LowerMethod, got.Gap)
	}
	b, err := os.ReadFile(svg)
	if err != nil || !bytes.Contains(b, []byte("<svg")) || !bytes.Contains(b, []byte("analytic-gaussian")) || !bytes.Contains(b, []byte("laplace")) {
		t.Errorf("plot missing or incomplete (%v)", err)
	}
}

func TestNoiseUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"laplace"},
		{"laplace", "--epsilon", "-1"},
		{"laplace", "--epsilon", "NaN"},
		{"gaussian", "--epsilon", "0.5", "--delta", "1.5"},
		{"analytic-gaussian", "--epsilon", "1", "--delta", "0.1", "--sensitivity", "0"},
		{"optimal", "--epsilon", "1", "--delta", "0.1", "--loss", "pinball:2"},
		{"optimal", "--epsilon", "1", "--delta", "0.1", "--loss", "l3"},
		{"staircase", "--epsilon", "1", "--loss", "pinball:0.3"},
		{"wavelet", "--epsilon", "1"},
		{"laplace", "gaussian", "--epsilon", "1"},
	} {
		code, _, errs := runNoiseCmd(args...)
		if code != 2 {
			t.Errorf("%v: exit %d (stderr %q), want 2", args, code, errs)
		}
	}
	_, _, errs := runNoiseCmd("laplace", "--epsilon", "-1")
	if !strings.Contains(errs, "--epsilon is -1") {
		t.Errorf("stderr %q does not name the parameter", errs)
	}
}

func TestNoiseTextAndSamples(t *testing.T) {
	code, out, errs := runNoiseCmd("quasi-gaussian", "--epsilon", "1", "--delta", "0.1", "--samples", "4")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "sigma       0.87287") {
		t.Errorf("output lacks σ = 0.87287:\n%s", out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 4 {
		t.Fatalf("output %q", out)
	}
	for _, l := range lines[len(lines)-4:] {
		if _, err := json.Number(l).Float64(); err != nil {
			t.Errorf("sample line %q is not a number", l)
		}
	}
}

// TestNoiseMultiGaussian: `privopt noise multi-gaussian` with and without
// --k. The JSON fields against the library (σ from MultiGaussianSigma, the
// closed-form moments), best K = 2 at (1, 0.1) (the paper's Table 11), and
// --k rejected for other mechanisms.
func TestNoiseMultiGaussian(t *testing.T) {
	p := noise.Params{Epsilon: 1, Delta: 0.1, Sensitivity: 1}
	for _, c := range []struct {
		args []string
		k    int
	}{
		{[]string{"--k", "5"}, 5},
		{nil, 2},
	} {
		code, out, errs := runNoiseCmd(append([]string{"multi-gaussian", "--epsilon", "1", "--delta", "0.1", "--sensitivity", "1", "--json"}, c.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errs)
		}
		var got noiseOutput
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatal(err)
		}
		if got.Sigma == nil {
			t.Fatalf("%v: no sigma in %s", c.args, out)
		}
		if got.Mechanism != "multi-gaussian" || got.K == nil || *got.K != c.k || got.Epsilon != 1 || got.Delta != 0.1 || got.Sensitivity != 1 {
			t.Fatalf("%v: JSON %s", c.args, out)
		}
		s, err := noise.MultiGaussianSigma(p, c.k, noise.DefaultMultiGaussianEta)
		if err != nil {
			t.Fatal(err)
		}
		d, _ := noise.NewMultiGaussian(1, 1, s, c.k)
		if math.Abs(*got.Sigma-s) > 1e-6*s || math.Abs(got.MeanAbs-d.MeanAbs()) > 1e-6 || math.Abs(got.Variance-d.Variance()) > 1e-6 || math.Abs(got.Std-math.Sqrt(d.Variance())) > 1e-6 {
			t.Errorf("%v: JSON %s, library σ %g E|X| %g var %g", c.args, out, s, d.MeanAbs(), d.Variance())
		}
	}
	if code, _, _ := runNoiseCmd("gaussian", "--epsilon", "0.5", "--delta", "0.1", "--k", "3"); code != 2 {
		t.Errorf("--k with gaussian: exit %d, want 2", code)
	}
	if code, _, _ := runNoiseCmd("multi-gaussian", "--epsilon", "1", "--delta", "0.1", "--k", "99"); code != 2 {
		t.Errorf("--k 99: exit %d, want 2", code)
	}
}
