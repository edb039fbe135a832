package ledger

import (
	"context"
	"math"
	"testing"

	"github.com/privopt/privopt/accounting"
)

// The curves new entries are recorded with: a Gaussian release of the
// library is a discrete Gaussian (μ = Δ/σ; √T times that for T iterative
// steps), stored in the entry; an explicit
// curve is kept; Laplace stores none (CurveOf derives it when charging).
func TestReleaseCurve(t *testing.T) {
	g := Entry{Mechanism: "analytic-gaussian", Params: map[string]float64{"sensitivity": 2, "noise_std": 8}, Cost: accounting.Cost{Epsilon: 1, Delta: 1e-7}}
	if c := releaseCurve(g); c == nil || *c != (accounting.Curve{Kind: accounting.CurveDiscreteGaussian, Value: 0.25}) {
		t.Errorf("Gaussian entry: %+v", c)
	}
	// DP gradient descent: 100 steps of Δ 2, σ 8 compose to μ = 0.25·√100.
	it := Entry{Mechanism: "gaussian", Params: map[string]float64{"sensitivity": 2, "noise_std": 8, "steps": 100}, Cost: accounting.Cost{Epsilon: 1, Delta: 1e-6}}
	if c := releaseCurve(it); c == nil || math.Abs(c.Value-2.5) > 1e-12 || c.Kind != accounting.CurveDiscreteGaussian {
		t.Errorf("iterative entry: %+v, want μ 2.5", c)
	}
	own := &accounting.Curve{Kind: "gaussian", Value: 0.1}
	if c := releaseCurve(Entry{Mechanism: "gaussian", Curve: own}); c != own {
		t.Errorf("explicit curve replaced by %+v", c)
	}
	if c := releaseCurve(Entry{Mechanism: "laplace", Cost: accounting.Cost{Epsilon: 0.3}}); c != nil {
		t.Errorf("Laplace entry stored the curve %+v", c)
	}
	// The stored curve survives the store and the replay (Status).
	ctx := context.Background()
	l := New(NewMemoryStore())
	if err := l.InitFilter(ctx, "r", accounting.Budget{Epsilon: 5, Delta: 1e-5}, "rdp(alpha=8)"); err != nil {
		t.Fatal(err)
	}
	if err := l.Spend(ctx, "r", g); err != nil {
		t.Fatal(err)
	}
	st, err := l.Status(ctx, "r")
	if err != nil || st.Releases[0].Curve == nil || st.Releases[0].Curve.Kind != accounting.CurveDiscreteGaussian {
		t.Fatalf("status %+v, %v", st, err)
	}
}
