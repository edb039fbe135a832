package main

import (
	"context"
	"math"
	"testing"
)

// Acceptance (issue: constraint violation 0 for projection, ≤ η for program
// perturbation on 10⁵ fresh draws). Program perturbation's Bonferroni with
// exact Gaussian rows keeps the joint violation ≤ η; 5 standard errors of
// slack give a false-failure probability below 10⁻⁶. Output perturbation
// without projection violates the monotonicity rows in a large fraction.
func TestMonotoneAcceptance(t *testing.T) {
	const draws, eta = 100000, 0.05
	lines, wstar, err := run(context.Background(), 1000, draws, draws, 1, eta)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]line{}
	for _, l := range lines {
		byName[l.name] = l
		t.Logf("%-24s violation %.3f%%, test MSE %.4f, mean w %.3f", l.name, 100*l.violation, l.mse, l.mean)
	}
	if byName["output + projection"].violation != 0 {
		t.Fatalf("projection violates in %v of releases", byName["output + projection"].violation)
	}
	slack := 5 * math.Sqrt(eta*(1-eta)/draws)
	for _, name := range []string{"program perturbation", "program (sampled w̄*)"} {
		if v := byName[name].violation; v > eta+slack {
			t.Fatalf("%s violates in %v > η = %v", name, v, eta)
		}
	}
	if v := byName["output perturbation"].violation; v < 0.2 {
		t.Fatalf("output perturbation violates in only %v", v)
	}
	if !(wstar[0] > 0 && wstar[1] > 0) {
		t.Fatalf("non-private w* = %v", wstar)
	}
}
