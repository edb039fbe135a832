package learn

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/privopt/privopt/accounting"
	"github.com/privopt/privopt/noise"
)

// stepPLDs caches the dominating per-step PLDs of perStepPLDEpsilon by
// mechanism name and (ε, δ) (the mechanism is calibrated at Δ = 1; the
// privacy of a location mechanism does not depend on the scale). Building
// one costs up to seconds (the multi-Gaussian's profile nodes are
// certificates); the value depends on public parameters only.
var stepPLDs sync.Map

type stepPLDKey struct {
	name         string
	epsilon, del float64
}

// stepPLDGrid is the loss grid of the per-step PLDs: the profile-based
// PLDs (accounting.MechanismPLD) put their atoms on nodes 0.05 or 0.1
// apart, so composing them on this grid rounds nothing; closed forms
// (Laplace, truncated Laplace) round each loss up by at most this much.
const stepPLDGrid = 0.05

// perStepPLDEpsilon returns the ε at delta of steps compositions of the
// per-step mechanism m (calibrated at Δ = 1) through its dominating
// privacy-loss distribution (stepPLD), composed by FFT with the pessimistic
// truncation of the loss at basic composition's steps·ε₀ plus 10
// (accounting.PLD.ComposeKTruncated): mass beyond is charged as an infinite
// loss. ok is false when package accounting has no PLD for the mechanism or
// the composition gives no finite ε at delta.
func perStepPLDEpsilon(ctx context.Context, m *noise.Mechanism, steps int, delta float64) (eps float64, ok bool, err error) {
	p, ok, err := stepPLD(ctx, m)
	if !ok || err != nil {
		return 0, false, err
	}
	c, err := p.ComposeKTruncated(steps, float64(steps)*m.Params.Epsilon+10)
	if err != nil {
		return 0, false, err
	}
	e := c.Epsilon(delta)
	return e, !math.IsInf(e, 1), nil
}

// stepPLD returns the dominating PLD of the per-step mechanism m
// (calibrated at Δ = 1) on the grid stepPLDGrid (accounting.MechanismPLD),
// cached; ok is false when package accounting has none for it.
func stepPLD(ctx context.Context, m *noise.Mechanism) (*accounting.PLD, bool, error) {
	if m.Params.Sensitivity != 1 {
		return nil, false, fmt.Errorf("learn: per-step PLD of a mechanism calibrated at Δ = %v, want 1", m.Params.Sensitivity)
	}
	key := stepPLDKey{m.Name, m.Params.Epsilon, m.Params.Delta}
	if v, hit := stepPLDs.Load(key); hit {
		return v.(*accounting.PLD), true, nil
	}
	p, err := accounting.MechanismPLD(ctx, m, stepPLDGrid)
	if errors.Is(err, accounting.ErrInvalid) && ctx.Err() == nil {
		return nil, false, nil // no PLD for this mechanism: the caller keeps the composition theorems
	}
	if err != nil {
		return nil, false, err
	}
	stepPLDs.Store(key, p)
	return p, true, nil
}
