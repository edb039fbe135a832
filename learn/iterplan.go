package learn

import (
	"context"
	"fmt"

	"github.com/privopt/privopt/noise"
)

// IterativeSchedule is the public schedule of an iterative plan (DPGD,
// DPSGD, DPCD): everything the noisy steps use besides the private rows.
// With the plan's Guarantee (the composed (ε, δ) and the accountant that
// composed it) it is the whole privacy statement of the run.
type IterativeSchedule struct {
	// Iterations is T (outer iterations for DPCD); UpdatesPerIteration is
	// DPCD's P (1 for the gradient methods); Steps = T·P noisy updates,
	// the count the accountant composes.
	Iterations          int `json:"iterations"`
	UpdatesPerIteration int `json:"updates_per_iteration"`
	Steps               int `json:"steps"`
	// Clip is the per-example gradient ℓ₂ clip C (DPGD, DPSGD: one value)
	// or the per-coordinate partial-derivative clips C_j (DPCD).
	Clip []float64 `json:"clip"`
	// StepSize is η (γ for every coordinate of DPCD); BatchRate q (1: full
	// batch).
	StepSize  float64 `json:"step_size"`
	BatchRate float64 `json:"batch_rate"`
	// StepSensitivity is the largest per-step ℓ₂ sensitivity 2C/(nq) and
	// StepNoiseStd the standard deviation of the noise added to that step's
	// statistic (z·2C/(nq) in the composed accounting; the per-step
	// mechanism's std times 2C/(nq) with PerStep).
	StepSensitivity float64 `json:"step_sensitivity"`
	StepNoiseStd    float64 `json:"step_noise_std"`
	// NoiseMultiplier is z (composed accounting) or the per-step noise std
	// per unit sensitivity (PerStep).
	NoiseMultiplier float64 `json:"noise_multiplier"`
	// Accountant names the composition (e.g. the exact Gaussian PLD).
	Accountant string `json:"accountant"`
	// PerStep: every update is calibrated to (ε, δ) on its own and the
	// Guarantee is the composition (Liu and Selvi §2.5).
	PerStep bool `json:"per_step"`
	// Average: the average of the outer iterates is released.
	Average bool `json:"average"`
}

// newIterativePlan plans an iterative strategy from public inputs: the
// schedule, the clip norms and the noise multiplier chosen by the
// accountant for the composed (ε, δ) depend on n, d and the settings only
// (IterativeSpec.plan, calibrate); the certificate is the clipping bound
// 2C/(nq) (MethodClippedSteps).
func newIterativePlan(ctx context.Context, ps PlanSpec) (*Plan, error) {
	if ps.Iterative == nil {
		return nil, invalidf("strategy %q needs PlanSpec.Iterative (the public settings of the run)", ps.Strategy)
	}
	is := *ps.Iterative
	if is.Method == "" {
		is.Method = ps.Strategy
	}
	if is.Method != ps.Strategy {
		return nil, invalidf("iterative method %q differs from the strategy %q", is.Method, ps.Strategy)
	}
	if err := ps.Privacy.WithDefault().Validate(); err != nil {
		return nil, err
	}
	ip := ps.IterativePrivacy
	ip.PrivacySpec = ps.Privacy
	n, d := ps.N, ps.Features
	sched, b, g, nz, err := is.calibrated(ctx, n, d, ip)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	cmax := 0.0
	for _, c := range sched.clip {
		cmax = max(cmax, c)
	}
	certify(&g, sched, nz, ip, cmax, fmt.Sprintf("any rows (per-example gradients clipped to %g; rows clipped to X = %g, |y| ≤ %g for the step sizes only), n = %d", cmax, b.X, b.Y, n))
	g.Statement += fmt.Sprintf("; step %.4g; the %s iterate is released (post-processing)", sched.eta, map[bool]string{true: "averaged", false: "last"}[is.Average])
	acc := GaussianAccountant{}.Describe()
	if ip.Accountant != nil {
		acc = ip.Accountant.Describe()
	}
	sc := &IterativeSchedule{Iterations: sched.outer, UpdatesPerIteration: sched.perIter, Steps: sched.steps,
		Clip: append([]float64(nil), sched.clip...), StepSize: sched.eta, BatchRate: sched.rate,
		StepSensitivity: g.Sensitivity, StepNoiseStd: g.NoiseStd, NoiseMultiplier: nz.z, Accountant: acc,
		PerStep: ip.PerStep, Average: is.Average}
	lam := is.Ridge
	pl := &Plan{Strategy: ps.Strategy, Loss: is.Loss, Lambda: lam, L1: is.L1, Constraints: "none", Intercept: is.Intercept,
		N: n, Features: d, Weights: sched.k, BoundX: b.X, BoundY: b.Y, Guarantee: g,
		CalibratedSensitivity: g.Sensitivity, ReleasedNoiseRMS: g.NoiseStd, Schedule: sc}
	pl.Notes = append(pl.Notes,
		fmt.Sprintf("n = %d is public: neighbouring datasets replace one row within the bounds and keep n", n),
		fmt.Sprintf("%d noisy steps of per-step sensitivity %.6g (clipping, certified) and noise std %.6g, composed by the %s to (%.6g, %.3g); the released weights are a post-processing of the noisy steps", sched.steps, g.Sensitivity, g.NoiseStd, acc, g.Epsilon, g.Delta))
	pl.clip = func(data Data) Data { return data } // the draw clips rows its own way (clipRows)
	pl.draw = func(ctx context.Context, data Data) (drawFn, error) {
		rows, y := clipRows(data, is, b)
		return func(ctx context.Context, src noise.Source) ([]float64, error) {
			cd := &cdData{loss: is.Loss, rows: rows, y: y, t: make([]float64, n)}
			return run(ctx, sched, lossGradient(is.Loss, rows, y), cd, nz, src, is.Method)
		}, nil
	}
	return pl, nil
}
