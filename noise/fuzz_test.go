package noise

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"
)

// FuzzMechanismParams explores the (ε, δ, Δ) space of every closed-form
// mechanism: no panic, no hang, and either a ParamError or noise with a
// positive finite standard deviation (see checkMechanismParams).
func FuzzMechanismParams(f *testing.F) {
	for _, s := range [][3]float64{{1, 1e-5, 1}, {1000, 0.1, 1}, {710, 0.1, 1}, {1e-7, 0.1, 1}, {1e-300, 1e-300, 1e300}, {math.Inf(1), 0.5, 1}, {math.NaN(), 0.1, 1}, {5, 0.49999, 1e-300}} {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, eps, delta, sens float64) {
		checkMechanismParams(t, Params{Epsilon: eps, Delta: delta, Sensitivity: sens})
	})
}

// FuzzOptimizeParams runs Optimize on a coarse grid (16 cells) over the
// (ε, δ) space, 3 s per input: no panic; the error is a ParamError,
// ErrNotCertified, the deadline or a solver failure, and a result is
// certified with lower ≤ upper bound.
func FuzzOptimizeParams(f *testing.F) {
	for _, s := range [][2]float64{{1, 0.1}, {1000, 0.1}, {1e-7, 0.1}, {20, 1e-9}, {0.5, 0.999}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, eps, delta float64) {
		// The fuzzing engine declares a worker hung after 10 s without
		// progress: each input gets 3 s, and Optimize must honour the
		// cancellation (a context error is an accepted outcome).
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		res, err := Optimize(ctx, Params{Epsilon: eps, Delta: delta, Sensitivity: 1}, OptimalOptions{Intervals: 16})
		if err != nil {
			if errors.Is(err, ErrInvalidParam) || errors.Is(err, ErrNotCertified) || errors.Is(err, context.DeadlineExceeded) {
				return
			}
			t.Logf("ε = %g, δ = %g: %v", eps, delta, err) // solver status errors are reported, not crashes
			return
		}
		if !res.Certificate.Certified {
			t.Errorf("ε = %g, δ = %g: result not certified", eps, delta)
		}
		if res.LowerBound > res.UpperBound*(1+1e-6) {
			t.Errorf("ε = %g, δ = %g: lower bound %g above upper bound %g", eps, delta, res.LowerBound, res.UpperBound)
		}
	})
}
