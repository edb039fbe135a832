package query

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/privopt/privopt/solver"
)

// SensitivitySampleSize returns S = ⌈1/(γβ) − 1⌉, the number of adjacent
// dataset pairs after which the largest observed query change bounds the
// sensitivity of all but a fraction γ of pairs with confidence 1 − β
// (Dvorkin et al. Prop. 3.8, from Calafiore and Campi 2005, Corollary 1).
// γ = β = 0.1 gives 99.
func SensitivitySampleSize(gamma, beta float64) (int, error) {
	if !(gamma > 0 && gamma < 1) {
		return 0, invalidf("gamma is %v, must be in (0, 1)", gamma)
	}
	if !(beta > 0 && beta < 1) {
		return 0, invalidf("beta is %v, must be in (0, 1)", beta)
	}
	s := 1/(gamma*beta) - 1
	// Guard against 99.00000000000001 from rounding of γβ.
	n := int(math.Ceil(s - 1e-9*math.Max(1, s)))
	return max(n, 1), nil
}

// AdjacentPair samples one pair of α-adjacent datasets (D, D') — Algorithm 1,
// steps 2–5 — and returns the two deterministic problems built on them. rng is
// seeded deterministically from the sample index, so the estimate is
// reproducible regardless of scheduling. Implementations must be safe for
// concurrent calls.
type AdjacentPair func(ctx context.Context, rng *rand.Rand, sample int) (d, dPrime *solver.Problem, err error)

// SensitivitySpec configures EstimateSensitivity.
type SensitivitySpec struct {
	Query Query
	// Norm p of ‖Q x(D) − Q x(D')‖_p: 1, 2 or +Inf.
	Norm float64
	// Gamma and Beta set the sample size by Prop. 3.8 unless Samples > 0.
	Gamma, Beta float64
	Samples     int
	Pair        AdjacentPair
	Seed        uint64
	// Workers solving pairs in parallel (default GOMAXPROCS).
	Workers  int
	Solver   solver.Solver
	Settings solver.Settings
	Progress func(done, total int)
}

// EstimateSensitivity runs Algorithm 1 of Dvorkin et al. (e-companion 7): for S
// sampled adjacent pairs it solves both problems and returns the largest
// ‖Q x(D) − Q x(D')‖_p. The result is a Sampled sensitivity: calibrating noise
// to it gives (ε, γ)-probabilistic DP with confidence 1 − β (Theorem 3.9).
// A pair whose problems cannot be solved to optimality is an error.
//
// As in the paper, the pairs are solved as deterministic programs (1): the
// estimate is the sensitivity of Q x*(D). The released value is Q x̄*(D), the
// nominal part of the chance-constrained program, whose sensitivity can differ
// (it cannot be estimated first, since the noise scale shapes x̄*). Both agree
// when the counterpart only shifts the deterministic solution by a
// data-independent margin, as in Example 2.7 and in problems whose binding
// constraints keep their structure; query tests check ‖Q x̄*(D) − Q x̄*(D')‖
// against the sensitivity used.
func EstimateSensitivity(ctx context.Context, spec SensitivitySpec) (Sensitivity, error) {
	if spec.Pair == nil {
		return Sensitivity{}, invalidf("sensitivity estimation needs a Pair sampler")
	}
	if spec.Norm != 1 && spec.Norm != 2 && !math.IsInf(spec.Norm, 1) {
		return Sensitivity{}, invalidf("norm is %v, must be 1, 2 or +Inf", spec.Norm)
	}
	s, err := SensitivitySampleSize(spec.Gamma, spec.Beta)
	if err != nil {
		return Sensitivity{}, err
	}
	if spec.Samples > 0 {
		if spec.Samples < s {
			return Sensitivity{}, invalidf("Samples %d is below the %d that Prop. 3.8 requires for gamma %v, beta %v", spec.Samples, s, spec.Gamma, spec.Beta)
		}
		s = spec.Samples
	}
	workers := spec.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	deltas := make([]float64, s)
	errs := make([]error, s)
	var next, done atomic.Int64
	var progressMu sync.Mutex
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= s || ctx.Err() != nil {
					return
				}
				deltas[i], errs[i] = spec.pairDelta(ctx, i)
				if errs[i] != nil {
					cancel()
					return
				}
				d := int(done.Add(1))
				if spec.Progress != nil {
					progressMu.Lock()
					spec.Progress(d, s)
					progressMu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	for i, e := range errs {
		if e != nil {
			return Sensitivity{}, fmt.Errorf("query: sensitivity sample %d: %w", i, e)
		}
	}
	if err := ctx.Err(); err != nil && int(done.Load()) < s {
		return Sensitivity{}, err
	}
	mx := 0.0
	for _, d := range deltas {
		mx = math.Max(mx, d)
	}
	return Sensitivity{Value: mx, Norm: spec.Norm, Source: Sampled, Gamma: spec.Gamma, Beta: spec.Beta, Samples: s}, nil
}

func (spec *SensitivitySpec) pairDelta(ctx context.Context, i int) (float64, error) {
	rng := rand.New(rand.NewPCG(spec.Seed, uint64(i)))
	d, dp, err := spec.Pair(ctx, rng, i)
	if err != nil {
		return 0, err
	}
	a, err := solveBase(ctx, d, spec.Solver, spec.Settings)
	if err != nil {
		return 0, err
	}
	b, err := solveBase(ctx, dp, spec.Solver, spec.Settings)
	if err != nil {
		return 0, err
	}
	if err := spec.Query.Validate(len(a.X)); err != nil {
		return 0, err
	}
	qa, qb := spec.Query.Apply(a.X), spec.Query.Apply(b.X)
	return norm(qa, qb, spec.Norm), nil
}

func norm(a, b []float64, p float64) float64 {
	s := 0.0
	for i := range a {
		d := math.Abs(a[i] - b[i])
		switch {
		case p == 1:
			s += d
		case p == 2:
			s += d * d
		default:
			s = math.Max(s, d)
		}
	}
	if p == 2 {
		return math.Sqrt(s)
	}
	return s
}

// Audit is the result of AuditSensitivity.
type Audit struct {
	// Max is the largest observed ‖Q x̄*(D) − Q x̄*(D')‖_p of the released
	// statistic over the sampled pairs.
	Max float64
	// Assumed is the sensitivity the privacy spec calibrates the noise to.
	Assumed float64
	// Exceeded counts pairs whose change exceeds Assumed (relative slack 1e-9).
	Exceeded int
	Samples  int
}

// AuditSensitivity checks the sensitivity a privacy spec assumes against the
// statistic actually released: for each sampled adjacent pair it solves the
// program perturbation of both datasets with spec (the same uncertainty set for
// every solve: vertex and scenario samples come from chanceSeed) and measures
// ‖Q x̄*(D) − Q x̄*(D')‖_p in the spec's sensitivity norm. Pairs run in
// parallel; pair s uses the stream seeded by (seed, s).
func AuditSensitivity(ctx context.Context, spec Spec, pair AdjacentPair, samples int, seed, chanceSeed uint64) (*Audit, error) {
	if pair == nil || samples < 1 {
		return nil, invalidf("audit needs a Pair sampler and samples ≥ 1 (got %d)", samples)
	}
	if err := spec.Privacy.Validate(); err != nil {
		return nil, err
	}
	pnorm := spec.Privacy.Sensitivity.Norm
	deltas := make([]float64, samples)
	errs := make([]error, samples)
	var next atomic.Int64
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	solveOne := func(q *solver.Problem) ([]float64, error) {
		sp := spec
		sp.Chance.Rand = rand.New(rand.NewPCG(chanceSeed, 0))
		sol, err := Solve(ctx, q, sp)
		if err != nil {
			return nil, err
		}
		return sol.QueryMean, nil
	}
	var wg sync.WaitGroup
	for w := 0; w < min(runtime.GOMAXPROCS(0), samples); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= samples || ctx.Err() != nil {
					return
				}
				d, dp, err := pair(ctx, rand.New(rand.NewPCG(seed, uint64(i))), i)
				var a, b []float64
				if err == nil {
					a, err = solveOne(d)
				}
				if err == nil {
					b, err = solveOne(dp)
				}
				if err != nil {
					errs[i] = fmt.Errorf("query: audit sample %d: %w", i, err)
					cancel()
					return
				}
				deltas[i] = norm(a, b, pnorm)
			}
		}()
	}
	wg.Wait()
	for _, e := range errs {
		if e != nil {
			return nil, e
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	au := &Audit{Assumed: spec.Privacy.Sensitivity.Value, Samples: samples}
	for _, d := range deltas {
		au.Max = math.Max(au.Max, d)
		if d > au.Assumed*(1+1e-9) {
			au.Exceeded++
		}
	}
	return au, nil
}
