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
	// Program is the release: every sampled problem is solved by Solve with
	// it and the change of the released statistic Q x̄* is measured (never
	// the deterministic Q x*, which can move far less: the SVM test sees 6×).
	// Program.Privacy.Sensitivity.Value is the starting calibration.
	Program Spec
	// Norm p of ‖Q x̄(D) − Q x̄(D')‖_p: 1, 2 or +Inf; it must match the
	// mechanism's (ℓ1 for Laplace, ℓ2 for the Gaussians).
	Norm float64
	// Gamma and Beta set the sample size by Prop. 3.8 unless Samples > 0.
	Gamma, Beta float64
	Samples     int
	Pair        AdjacentPair
	// Seed seeds the pair sampler (pair s uses the stream (Seed, s));
	// ChanceSeed seeds the chance reformulation's samples, the same for every
	// solve, as a release would draw them once.
	Seed, ChanceSeed uint64
	// MaxRounds bounds the recalibrations (default 5).
	MaxRounds int
	// Workers solving pairs in parallel (default GOMAXPROCS).
	Workers  int
	Progress func(done, total int)
}

// EstimateSensitivity runs Algorithm 1 of Dvorkin et al. (e-companion 7) on
// the released statistic: for S sampled adjacent pairs (S from Prop. 3.8) it
// solves the program perturbation of both datasets and takes the largest
// ‖Q x̄*(D) − Q x̄*(D')‖_p. Because x̄* depends on the noise scale, which
// depends on the sensitivity, the estimate is a fixed point: starting from
// Δ₀ = Program.Privacy.Sensitivity.Value, if the largest change m exceeds Δ the
// calibration is raised to 1.1·m and the pairs are solved again (at most
// MaxRounds times). The result has Value = Δ, the calibration under which every
// sampled change was ≤ Δ, and Source Sampled: calibrating the noise to it gives
// (ε, δ, γ)-probabilistic DP with confidence 1 − β (Theorem 3.9). Pairs that
// cannot be solved are errors naming the sample.
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
	rounds := spec.MaxRounds
	if rounds <= 0 {
		rounds = 5
	}
	prog := spec.Program
	prog.Privacy.Sensitivity = Sensitivity{Value: prog.Privacy.Sensitivity.Value, Norm: spec.Norm, Source: Declared}
	if err := prog.Privacy.Validate(); err != nil {
		return Sensitivity{}, fmt.Errorf("query: starting calibration: %w", err)
	}
	var last float64
	for round := 0; round < rounds; round++ {
		deltas, err := measurePairs(ctx, prog, spec.Pair, s, spec.Seed, spec.ChanceSeed, spec.Workers, spec.Progress, "sensitivity sample")
		if err != nil {
			return Sensitivity{}, err
		}
		last = 0
		for _, d := range deltas {
			last = math.Max(last, d)
		}
		cal := prog.Privacy.Sensitivity.Value
		if last <= cal {
			return Sensitivity{Value: cal, Norm: spec.Norm, Source: Sampled, Gamma: spec.Gamma, Beta: spec.Beta, Samples: s}, nil
		}
		prog.Privacy.Sensitivity.Value = 1.1 * last
	}
	return Sensitivity{}, invalidf("sampled sensitivity did not settle in %d rounds: the released statistic moved by %v under a calibration of %v; start from a larger Program sensitivity", rounds, last, prog.Privacy.Sensitivity.Value/1.1)
}

// measurePairs solves the program perturbation of each sampled adjacent pair
// (pair i from the stream (seed, i), chance samples from chanceSeed) and
// returns ‖Q x̄*(D) − Q x̄*(D')‖ in the spec's sensitivity norm, in parallel.
func measurePairs(ctx context.Context, spec Spec, pair AdjacentPair, samples int, seed, chanceSeed uint64, workers int, progress func(done, total int), what string) ([]float64, error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	pnorm := spec.Privacy.Sensitivity.Norm
	deltas := make([]float64, samples)
	errs := make([]error, samples)
	var next, done atomic.Int64
	var progressMu sync.Mutex
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
	for w := 0; w < min(workers, samples); w++ {
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
					errs[i] = fmt.Errorf("query: %s %d: %w", what, i, err)
					cancel()
					return
				}
				deltas[i] = norm(a, b, pnorm)
				if n := int(done.Add(1)); progress != nil {
					progressMu.Lock()
					progress(n, samples)
					progressMu.Unlock()
				}
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
	return deltas, nil
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
	deltas, err := measurePairs(ctx, spec, pair, samples, seed, chanceSeed, 0, nil, "audit sample")
	if err != nil {
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
