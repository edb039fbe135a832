package query

import (
	"context"
	"strings"
	"testing"

	"github.com/privopt/privopt/solver"
)

// TestBaselineNotApplicable: with the truncated Laplace mechanism (scalar
// only) the output baseline of a two-row query and the input baseline of two
// perturbed entries do not apply; they say so in NotApplicable, with no
// error, while the one-dimensional baselines still run on the same problem
// and mechanism (Example 2.7 with ℓ = 2, u = 30: half of the output
// perturbation releases lie below ℓ, Pr[ζ < 0] = ½ for the symmetric noise).
func TestBaselineNotApplicable(t *testing.T) {
	ctx := context.Background()
	priv := Privacy{PrivacySpec: PrivacySpec{Mechanism: TruncatedLaplace, Epsilon: 1, Delta: 0.1}, Sensitivity: Sensitivity{Value: 1, Norm: 1, Source: Declared}}
	two := example27two()
	out, err := OutputPerturbation(ctx, two, Identity(0, 1), priv, EvalOptions{N: 100, Seed: 1})
	if err != nil || out == nil || out.Strategy != "output" || !strings.HasPrefix(out.NotApplicable, "not applicable: the truncated Laplace mechanism is scalar") || out.N != 0 {
		t.Fatalf("output baseline, two rows: %+v, %v; want not applicable and no error", out, err)
	}
	build := func(z []float64) (*solver.Problem, error) { return example27two(), nil }
	in, err := InputPerturbation(ctx, two, 2, priv, build, EvalOptions{N: 100, Seed: 1})
	if err != nil || in == nil || in.Strategy != "input" || !strings.Contains(in.NotApplicable, "k = 2") {
		t.Fatalf("input baseline, two entries: %+v, %v; want not applicable and no error", in, err)
	}
	const n = 4000
	one, err := OutputPerturbation(ctx, example27(1, 2, 30), Identity(0), priv, EvalOptions{N: n, Seed: 2})
	if err != nil || one.NotApplicable != "" || one.N != n {
		t.Fatalf("output baseline, one row: %+v, %v", one, err)
	}
	if !within(one.InfeasibleRate, 0.5, n, 5) {
		t.Errorf("output perturbation infeasible %v, want 0.5", one.InfeasibleRate)
	}
	// An invalid privacy spec is still an error, not "not applicable".
	bad := priv
	bad.Epsilon = -1
	if ev, err := OutputPerturbation(ctx, two, Identity(0, 1), bad, EvalOptions{N: 10}); err == nil {
		t.Errorf("ε = −1: %+v and no error", ev)
	}
}
