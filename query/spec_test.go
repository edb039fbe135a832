package query

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestParseSpec checks the one parser of mechanism names and (ε, δ): the
// default rule, the δ > 0 requirement and errors that name the bad value.
func TestParseSpec(t *testing.T) {
	for _, c := range []struct {
		name       string
		eps, delta float64
		want       Mechanism
		errHas     string
	}{
		{"", 1, 0, Laplace, ""},
		{"", 1, 1e-5, AnalyticGaussian, ""},
		{"laplace", 0.5, 1e-5, Laplace, ""},
		{"optimal", 1, 0.1, Optimal, ""},
		{"multi-gaussian", 1, 1e-3, MultiGaussian, ""},
		{"gaussian", 1, 0, "", "gaussian mechanism needs delta > 0"},
		{"optimal", 1, 0, "", "optimal mechanism needs delta > 0"},
		{"truncated-laplace", 1, 0, "", "truncated-laplace mechanism needs delta > 0"},
		{"cauchy", 1, 0, "", `noise "cauchy"`},
		{"laplace", 0, 0, "", "epsilon is 0"},
		{"laplace", 1, 1, "", "delta is 1"},
	} {
		s, err := ParseSpec(c.name, c.eps, c.delta)
		if c.errHas != "" {
			if err == nil || !strings.Contains(err.Error(), c.errHas) || !errors.Is(err, ErrInvalid) {
				t.Errorf("ParseSpec(%q, %v, %v) = %v, %v; want an ErrInvalid containing %q", c.name, c.eps, c.delta, s, err, c.errHas)
			}
			continue
		}
		if err != nil || s != (PrivacySpec{Mechanism: c.want, Epsilon: c.eps, Delta: c.delta}) {
			t.Errorf("ParseSpec(%q, %v, %v) = %+v, %v; want mechanism %s", c.name, c.eps, c.delta, s, err, c.want)
		}
	}
	if err := (PrivacySpec{Epsilon: 1}).Validate(); err == nil || !strings.Contains(err.Error(), "no mechanism") {
		t.Errorf("an empty mechanism validated: %v", err)
	}
}

// TestPrivacyEmbedsSpec checks that Privacy validates through its spec and
// calibrates exactly as Calibrate does for the same (ε, δ, Δ): one meaning
// per mechanism name.
func TestPrivacyEmbedsSpec(t *testing.T) {
	p := Privacy{PrivacySpec: PrivacySpec{Mechanism: Gaussian, Epsilon: 1}, Sensitivity: Sensitivity{Value: 1, Norm: 2}}
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "needs delta > 0") {
		t.Fatalf("Gaussian with δ = 0 validated: %v", err)
	}
	p.Delta = 1e-5
	p.Mechanism = AnalyticGaussian
	m, err := p.NoiseMechanism()
	if err != nil {
		t.Fatal(err)
	}
	ref, err := Calibrate(t.Context(), AnalyticGaussian, m.Params)
	if err != nil {
		t.Fatal(err)
	}
	if m.Dist.Variance() != ref.Dist.Variance() || m.Params.Sensitivity != 1 || m.Params.Epsilon != 1 {
		t.Errorf("Privacy's analytic Gaussian σ² = %v (params %+v), Calibrate's %v", m.Dist.Variance(), m.Params, ref.Dist.Variance())
	}
}

// ExampleParseSpec parses the CLI's --noise/--epsilon/--delta: an empty
// name picks the default mechanism for δ.
func ExampleParseSpec() {
	for _, delta := range []float64{0, 1e-6} {
		s, err := ParseSpec("", 1, delta)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(s.Describe())
	}
	_, err := ParseSpec("gaussian", 1, 0)
	fmt.Println(err)
	// Output:
	// laplace noise, ε = 1
	// analytic-gaussian noise, (ε, δ) = (1, 1e-06)
	// query: invalid input: the gaussian mechanism needs delta > 0 (it is (ε, δ)-DP); use laplace for δ = 0
}
