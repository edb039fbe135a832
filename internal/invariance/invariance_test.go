package invariance_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/privopt/privopt/internal/invariance"
)

// The release lines are masked; the plan lines are kept byte for byte.
func ExampleMaskText() {
	fmt.Print(invariance.MaskText("plan\n  sensitivity 0.35\nrelease data: private weights\n  x0     -1.25e-3\n  x1   0.5\n"))
	// Output:
	// plan
	//   sensitivity 0.35
	// release data: private weights
	//  x# #
	//  x# #
}

func run(plan string, x0, x1 float64) invariance.Run {
	js := fmt.Sprintf(`{"plan": %s, "releases": [{"label": "data", "released_value": {"x0": %v, "x1": %v}, "estimate": {"x0": %v, "x1": %v}}]}`,
		plan, x0, x1, x0, x1)
	return invariance.Run{Text: fmt.Sprintf("plan\nrelease data\n  x0 %v\n  x1 %v\n", x0, x1), JSON: []byte(js)}
}

// Compare accepts released values within the calibrated sensitivity plus
// one grid step and rejects a larger move, a plan that differs, or a text
// that differs outside the release.
func TestCompare(t *testing.T) {
	plan := `{"strategy": "projection", "calibrated_sensitivity": 0.5, "release_grid": 0.125, "weights": 2, "guarantee": {"noise": "analytic-gaussian"}}`
	rep, err := invariance.Compare(run(plan, 1, 2), run(plan, 1.375, 2.375))
	if err != nil || rep.Bound != 0.625 || rep.Ratio() < 1.06 || rep.Ratio() > 1.07 {
		t.Fatalf("within the bound: %+v, %v", rep, err)
	}
	if _, err := invariance.Compare(run(plan, 1, 2), run(plan, 1.5, 2.5)); err == nil || !strings.Contains(err.Error(), "above the bound") {
		t.Fatalf("0.707 > 0.625 accepted: %v", err)
	}
	other := strings.Replace(plan, "0.5", "0.51", 1)
	if _, err := invariance.Compare(run(plan, 1, 2), run(other, 1, 2)); err == nil || !strings.Contains(err.Error(), "plans differ") {
		t.Fatalf("different plans accepted: %v", err)
	}
	a, b := run(plan, 1, 2), run(plan, 1, 2)
	b.Text = "plan (n = 41)\n" + b.Text
	if _, err := invariance.Compare(a, b); err == nil {
		t.Fatal("different text accepted")
	}
	// Optimal noise: the values are not bounded (the exact sampler's stream
	// depends on the value), everything else still must match.
	opt := strings.Replace(plan, "analytic-gaussian", "optimal", 1)
	if rep, err := invariance.Compare(run(opt, 1, 2), run(opt, 5, 2)); err != nil || rep.Bounded {
		t.Fatalf("optimal: %+v %v", rep, err)
	}
}
