package opfrelease

import (
	"context"
	"strings"
	"testing"

	"github.com/privopt/privopt/query"
)

// TestEvaluateTruncatedLaplace: with the scalar-only truncated Laplace
// mechanism the input-perturbation baseline (one noise value per varying
// load) does not apply; Evaluate reports it as not applicable and still runs
// the program and the output baselines (the one-row query: the scalar
// mechanism applies), instead of losing the whole comparison.
func TestEvaluateTruncatedLaplace(t *testing.T) {
	pr := prepare(t, loadNet(t, "14_ieee"), func(o *Options) { o.Mechanism = query.TruncatedLaplace; o.Delta = 1e-3 })
	ev, err := pr.Evaluate(context.Background(), EvalOptions{N: 200, InputN: 20, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if ev.Input == nil || !strings.HasPrefix(ev.Input.NotApplicable, "not applicable: the truncated Laplace mechanism is scalar") || ev.Input.N != 0 {
		t.Errorf("input baseline: %+v, want not applicable", ev.Input)
	}
	for name, e := range map[string]*struct {
		n  int
		na string
	}{
		"program": {ev.Program.N, ev.Program.NotApplicable},
		"output":  {ev.Output.N, ev.Output.NotApplicable},
	} {
		if e.n != 200 || e.na != "" {
			t.Errorf("%s: %d releases, not applicable %q; want 200 simulated", name, e.n, e.na)
		}
	}
	// The output baseline releases x* + ζ with ζ bounded by the truncation:
	// its loss is finite and the program's infeasibility stays within η.
	if ev.Program.InfeasibleRate > pr.Options().Eta+0.05 {
		t.Errorf("program infeasible rate %v, η = %v", ev.Program.InfeasibleRate, pr.Options().Eta)
	}
}
