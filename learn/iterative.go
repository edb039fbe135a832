package learn

import (
	"context"
	"fmt"
	"math"
	"sync"

	"github.com/privopt/privopt/accounting"
	"github.com/privopt/privopt/noise"
	"github.com/privopt/privopt/query"
)

// Iterative release strategies (TrainIterative). Unlike the one-shot
// strategies of Release, they add noise at every step of an optimization
// method and release the last (or averaged) iterate, a post-processing of
// the noisy steps.
const (
	// DPGD: differentially private (proximal) gradient descent. Each step
	// averages per-example gradients clipped to ℓ₂ norm C (Abadi et al.,
	// "Deep learning with differential privacy", CCS 2016, Alg. 1, full
	// batch), adds N(0, (z·2C/n)²I) and takes a public step η followed by
	// the ℓ₁ proximal map:
	//
	//	w ← prox_{ηλ‖·‖₁}(w − η(ḡ + ζ)),  ḡ = (1/n) Σᵢ clip_C(∇ℓᵢ(w)).
	//
	// Replacing one row moves ḡ by at most 2C/n in ℓ₂ whatever w is, so
	// every step is a Gaussian mechanism of noise multiplier z.
	DPGD Strategy = "dp-gd"
	// DPSGD: DP-GD on Poisson minibatches (each row kept with probability
	// q, public), the sum normalized by the public expected size qn. The
	// sampled sum changes by at most 2C when a row is replaced, so each step
	// is a Gaussian mechanism of multiplier z without any amplification
	// credit; an accountant for the Poisson-subsampled Gaussian
	// (IterativePrivacy.Accountant, e.g. a PLDAccountant whose StepPLD is
	// the subsampled Gaussian's PLD) turns the sampling into a smaller σ.
	// Such a PLD must dominate the step under this package's replace-one
	// adjacency (Adjacency), where the replaced row enters the sampled sum
	// with probability q on both sides (a pair of Gaussian mixtures); the
	// usual add/remove-one subsampled PLD does not cover it by itself (Zhu,
	// Dong and Wang, AISTATS 2022, treat both relations).
	DPSGD Strategy = "dp-sgd"
	// DPCD: differentially private proximal coordinate descent (Mangold,
	// Bellet, Salmon and Tommasi, "Differentially private coordinate descent
	// for composite empirical risk minimization", ICML 2022, Alg. 1): T
	// outer iterations of P coordinate updates; coordinate j's partial
	// derivatives are clipped per example to [−C_j, C_j] and the update
	//
	//	w_j ← prox_{γ_j λ|·|}(w_j − γ_j(ḡ_j + ζ_j)),  ζ_j ~ N(0, (z·2C_j/n)²),
	//
	// is a Gaussian mechanism of multiplier z (sensitivity 2C_j/n). Each
	// outer iterate is the average of its P inner iterates (Mangold et al.;
	// Selvi et al., DP-via-DRO §5.3; Liu and Selvi §2.5).
	DPCD Strategy = "dp-cd"
)

// IterativeSpec is a composite ERM problem and the public settings of the
// iterative method that solves it:
//
//	minimize (1/n) Σᵢ ℓ(wᵀx̃ᵢ; yᵢ) + (μ/2)‖w_f‖² + λ‖w_f‖₁,
//
// w_f the feature weights (the intercept, if any, is not penalized). Every
// field is public: none may be computed from the private data.
type IterativeSpec struct {
	// Method is DPGD, DPSGD or DPCD.
	Method Strategy
	// Loss is Logistic (labels ±1) or Squared.
	Loss Loss
	// L1 is λ ≥ 0 (the proximal term); Ridge is μ ≥ 0.
	L1, Ridge float64
	// Intercept appends a constant-1 feature.
	Intercept bool
	// Bounds: rows are clipped first (a public row-wise map). For DPGD and
	// DPSGD, X bounds ‖xᵢ‖₂ (Bounds.Clip); for DPCD, X bounds every entry
	// |x_ij| (each entry clamped to [−X, X]). Y clamps targets. They set
	// the default step sizes and clipping thresholds, not the privacy, which
	// the gradient clipping alone certifies. Zero value: DefaultBounds.
	Bounds Bounds
	// Iterations T ≥ 1 (outer iterations for DPCD).
	Iterations int
	// Clip is C > 0: the per-example gradient ℓ₂ norm (DPGD, DPSGD) or the
	// per-example partial-derivative bound of every coordinate (DPCD).
	// 0: the Lipschitz bound of the clipped rows — logistic X̃ (ℓ₂) or X
	// (coordinate), so clipping changes nothing; squared X̃·Y or X·Y,
	// which clips examples whose residual exceeds Y.
	Clip float64
	// CoordinateClip optionally gives C_j per weight for DPCD (Mangold et
	// al.'s coordinate-wise thresholds); it overrides Clip.
	CoordinateClip []float64
	// StepSize is the public step η (DPGD, DPSGD) or γ for every
	// coordinate (DPCD); 0: 1/β with β the smoothness bound of the clipped
	// rows plus μ (logistic X̃²/4, squared X̃²; for DPCD X²/4 or X² per
	// coordinate).
	StepSize float64
	// BatchRate is DPSGD's Poisson sampling rate q ∈ (0, 1].
	BatchRate float64
	// Coordinates is DPCD's P ≥ 1 updates per outer iteration (0: ⌈k/4⌉
	// for k weights, the papers' choice).
	Coordinates int
	// Average releases the average of the outer iterates instead of the
	// last one.
	Average bool
}

// IterativePrivacy is the guarantee an iterative release meets.
type IterativePrivacy struct {
	// PrivacySpec: Epsilon and Delta are the target (ε, δ) of the whole run
	// (δ > 0); with PerStep they are the guarantee of each single update
	// instead. Mechanism: for the composed (default) accounting, Gaussian
	// or AnalyticGaussian (empty: AnalyticGaussian) — both add N(0, σ²)
	// with σ chosen by the accountant, the names differ only in the
	// per-step calibration. With PerStep, any name of StepMechanisms.
	query.PrivacySpec
	// PerStep calibrates every update to (Epsilon, Delta) on its own, the
	// setting of Liu and Selvi (§2.5, Table 9) and Selvi et al. (§5.3),
	// who "omit the compositions". The run's guarantee is then the
	// composition of all updates, which the Guarantee reports (PLD for the
	// Gaussian family, the better of basic and advanced composition
	// otherwise); it is far weaker than (Epsilon, Delta).
	PerStep bool
	// Accountant composes the steps (nil: GaussianAccountant{}). A
	// subsampling accountant makes DPSGD's sampling count.
	Accountant StepAccountant
}

// StepAccountant bounds the privacy of an iterative method whose every step
// releases a statistic of sensitivity Δ (replace-one adjacency, Adjacency)
// plus Gaussian noise of standard deviation z·Δ. Implementations must be
// valid for adaptive composition (each step's statistic may depend on the
// previous outputs).
type StepAccountant interface {
	// Epsilon returns an ε such that steps compositions are (ε, delta)-DP
	// at noise multiplier z.
	Epsilon(z float64, steps int, delta float64) (float64, error)
	// Describe names the accountant in guarantee statements.
	Describe() string
}

// GaussianAccountant accounts full-batch Gaussian steps exactly: k
// adaptive Gaussian mechanisms of multiplier z compose to μ-GDP with μ =
// √k/z (Dong, Roth and Su, "Gaussian differential privacy", JRSS-B 2022,
// Cor. 3.3), whose privacy-loss distribution is that of one Gaussian
// mechanism with σ = z/√k; its δ(ε) is read from accounting.GaussianPLD
// (rounded up on a grid of Step, an upper bound).
type GaussianAccountant struct {
	// Step is the PLD grid (0: 1e-4).
	Step float64
}

var _ StepAccountant = GaussianAccountant{}

// Epsilon returns the PLD's ε at delta for μ = √steps/z.
func (a GaussianAccountant) Epsilon(z float64, steps int, delta float64) (float64, error) {
	key := epsilonKey{z, steps, delta, a.Step}
	if e, ok := epsilonCache.Load(key); ok {
		return e.(float64), nil
	}
	p, err := a.pld(z, steps)
	if err != nil {
		return 0, err
	}
	e := p.Epsilon(delta)
	epsilonCache.Store(key, e)
	return e, nil
}

// pld returns the PLD of steps Gaussian steps at multiplier z.
func (a GaussianAccountant) pld(z float64, steps int) (*accounting.PLD, error) {
	h := a.Step
	if h == 0 {
		h = 1e-4
	}
	if !(z > 0) || steps < 1 {
		return nil, invalidf("noise multiplier %v and steps %d must be > 0", z, steps)
	}
	return accounting.GaussianPLD(z/math.Sqrt(float64(steps)), 1, h)
}

type epsilonKey struct {
	z        float64
	steps    int
	delta, h float64
}

// epsilonCache memoizes GaussianAccountant.Epsilon (public numbers only).
var epsilonCache sync.Map

// Describe names the accountant.
func (GaussianAccountant) Describe() string {
	return "Gaussian steps composed exactly (μ-GDP, μ = √steps/z), PLD rounded up"
}

// PLDAccountant composes a per-step privacy-loss distribution by FFT
// (accounting.PLD.ComposeK), for steps without a closed-form composition,
// such as the Poisson-subsampled Gaussian of DPSGD: StepPLD returns the
// PLD of one step at multiplier z on the grid h (for sensitivity 1).
type PLDAccountant struct {
	StepPLD func(z, h float64) (*accounting.PLD, error)
	// Step is the grid h (0: 1e-4). The accountant's ε exceeds the exact one
	// by at most steps·h.
	Step float64
	// Name describes the step in statements.
	Name string
}

var _ StepAccountant = PLDAccountant{}

// Epsilon composes StepPLD(z, h) steps times.
func (a PLDAccountant) Epsilon(z float64, steps int, delta float64) (float64, error) {
	p, err := a.composed(z, steps)
	if err != nil {
		return 0, err
	}
	return p.Epsilon(delta), nil
}

// composed returns the steps-fold composition of StepPLD(z, h).
func (a PLDAccountant) composed(z float64, steps int) (*accounting.PLD, error) {
	h := a.Step
	if h == 0 {
		h = 1e-4
	}
	if a.StepPLD == nil {
		return nil, invalidf("PLD accountant without a step PLD")
	}
	if !(z > 0) || steps < 1 {
		return nil, invalidf("noise multiplier %v and steps %d must be > 0", z, steps)
	}
	p, err := a.StepPLD(z, h)
	if err != nil {
		return nil, err
	}
	return p.ComposeK(steps)
}

// Describe names the accountant.
func (a PLDAccountant) Describe() string {
	return "PLD of " + a.Name + " composed by FFT, rounded up"
}

// GaussianStepPLD is the per-step PLD of a full-batch Gaussian step
// (accounting.GaussianPLD with σ = z, Δ = 1), for PLDAccountant.
func GaussianStepPLD(z, h float64) (*accounting.PLD, error) { return accounting.GaussianPLD(z, 1, h) }

// NoiseMultiplier returns the smallest noise multiplier z (to relative
// precision 10⁻⁶, rounded up) for which acc certifies steps compositions at
// (eps, delta): ε(z) is non-increasing in z, so bisection on z applies.
func NoiseMultiplier(acc StepAccountant, steps int, eps, delta float64) (float64, error) {
	key := multiplierKey{steps, eps, delta}
	_, exact := acc.(GaussianAccountant)
	if exact {
		if z, ok := multiplierCache.Load(key); ok {
			return z.(float64), nil
		}
	}
	z, err := noiseMultiplier(acc, steps, eps, delta)
	if err == nil && exact && acc.(GaussianAccountant).Step == 0 {
		multiplierCache.Store(key, z)
	}
	return z, err
}

type multiplierKey struct {
	steps      int
	eps, delta float64
}

// multiplierCache memoizes the default Gaussian accountant's bisection
// (a function of public numbers only).
var multiplierCache sync.Map

func noiseMultiplier(acc StepAccountant, steps int, eps, delta float64) (float64, error) {
	ok := func(z float64) (bool, error) {
		if da, isDA := acc.(deltaAccountant); isDA {
			d, err := da.Delta(z, steps, eps)
			return d <= delta, err
		}
		e, err := acc.Epsilon(z, steps, delta)
		return e <= eps, err
	}
	lo, hi := 0.0, 1.0
	if g, isG := acc.(GaussianAccountant); isG {
		// Bracket around the closed-form multiplier (exact μ-GDP); the
		// accountant's own PLD decides every comparison.
		z0 := g.guess(steps, eps, delta)
		lo, hi = 0.99*z0, 1.01*z0
		if good, err := ok(lo); err != nil || good {
			lo = 0
		}
	}
	for {
		good, err := ok(hi)
		if err != nil {
			return 0, err
		}
		if good {
			break
		}
		lo, hi = hi, 2*hi
		if hi > 1e12 {
			return 0, fmt.Errorf("learn: no noise multiplier up to 1e12 meets (%v, %v) over %d steps", eps, delta, steps)
		}
	}
	for hi-lo > 1e-6*hi {
		mid := 0.5 * (lo + hi)
		good, err := ok(mid)
		if err != nil {
			return 0, err
		}
		if good {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, nil
}

// deltaAccountant is implemented by accountants that evaluate δ(ε)
// directly (one pass over the PLD instead of a search over ε).
type deltaAccountant interface {
	Delta(z float64, steps int, eps float64) (float64, error)
}

// Delta returns the PLD's δ at eps for μ = √steps/z.
func (a GaussianAccountant) Delta(z float64, steps int, eps float64) (float64, error) {
	p, err := a.pld(z, steps)
	if err != nil {
		return 0, err
	}
	return p.Delta(eps), nil
}

// guess returns the closed-form multiplier: the smallest z with
// Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) ≤ δ, μ = √steps/z (Dong, Roth and Su
// 2022, Cor. 2.13), by bisection in μ (δ increases with μ).
func (GaussianAccountant) guess(steps int, eps, delta float64) float64 {
	phi := func(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }
	d := func(mu float64) float64 { return phi(-eps/mu+mu/2) - math.Exp(eps)*phi(-eps/mu-mu/2) }
	lo, hi := 1e-6, 1.0
	for d(hi) < delta && hi < 1e6 {
		hi *= 2
	}
	for i := 0; i < 100; i++ {
		mid := 0.5 * (lo + hi)
		if d(mid) <= delta {
			lo = mid
		} else {
			hi = mid
		}
	}
	return math.Sqrt(float64(steps)) / lo
}

// Delta composes StepPLD(z, h) steps times and returns δ at eps.
func (a PLDAccountant) Delta(z float64, steps int, eps float64) (float64, error) {
	p, err := a.composed(z, steps)
	if err != nil {
		return 0, err
	}
	return p.Delta(eps), nil
}

// StepMechanisms maps the noise names accepted with
// IterativePrivacy.PerStep to their calibration for one scalar update of
// sensitivity Δ at (ε, δ). Adding a registered mechanism of package noise is
// one line.
var StepMechanisms = map[NoiseKind]func(noise.Params) (*noise.Mechanism, error){
	Laplace:          noise.LaplaceMechanism,
	Gaussian:         noise.GaussianMechanism,
	AnalyticGaussian: noise.AnalyticGaussianMechanism,
	QuasiGaussian:    noise.QuasiGaussianMechanism,
	MultiGaussian: func(p noise.Params) (*noise.Mechanism, error) {
		return noise.MultiGaussianMechanism(p, noise.MultiGaussianOptions{})
	},
}

// MultiGaussian is the multi-Gaussian mixture mechanism of Liu and Selvi
// (Definition 3, Theorem 5; noise.MultiGaussianMechanism, the best K in
// 1..10 for E|X|), available per step.
const MultiGaussian NoiseKind = query.MultiGaussian

// QuasiGaussian is the quasi-Gaussian mixture mechanism of Liu and Selvi
// (Theorem 3; noise.QuasiGaussianMechanism), available per step.
const QuasiGaussian NoiseKind = "quasi-gaussian"

// MethodClippedSteps is the certificate method of TrainIterative: the
// sensitivity 2C/n of every clipped, averaged step and the accountant's
// composition.
const MethodClippedSteps = "clipped-noisy-steps"

func init() { query.RegisterVerifier(MethodClippedSteps, verifyClippedSteps) }

// verifyClippedSteps recomputes the per-step sensitivity 2C/(n·q) (q = 1
// full batch) and, for the exact Gaussian accountant (param "gaussian" = 1),
// the composed ε of steps at multiplier z with GaussianAccountant.
func verifyClippedSteps(c *Certificate) error {
	v, err := params(c, "n", "clip", "rate", "steps", "noise_multiplier", "epsilon", "delta", "gaussian")
	if err != nil {
		return err
	}
	n, clip, q, steps, z, eps, delta, gauss := v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]
	if !(n >= 1) || !(clip > 0) || !(q > 0 && q <= 1) || !(steps >= 1) || !(z > 0) {
		return invalidf("clipped-steps certificate params out of range: n=%v clip=%v rate=%v steps=%v z=%v", n, clip, q, steps, z)
	}
	if want := 2 * clip / (n * q); c.Bound < want*(1-1e-12) {
		return fmt.Errorf("learn: clipped-steps certificate bound %v below 2C/(nq) = %v", c.Bound, want)
	}
	if gauss == 1 {
		e, err := GaussianAccountant{}.Epsilon(z, int(steps), delta)
		if err != nil {
			return err
		}
		if e > eps*(1+1e-9) {
			return fmt.Errorf("learn: clipped-steps certificate: %v Gaussian steps at multiplier %v are (%v, %v)-DP, not ε = %v", steps, z, e, delta, eps)
		}
	}
	return nil
}

// IterativeResult is an iterative release: the weights and the guarantee.
type IterativeResult struct {
	Weights   []float64
	Guarantee Guarantee
	// NoiseMultiplier is z (composed accounting) or the per-step noise
	// standard deviation over the step's sensitivity (PerStep).
	NoiseMultiplier float64
	Steps           int // noisy steps (gradient steps or coordinate updates)
}

// GradientFunc writes into g the gradient at w of example i's loss; it is
// the only place private data enter an iterative method (DPGradientDescent
// clips its output).
type GradientFunc func(w []float64, i int, g []float64)

// iterPlan is the public schedule of a run.
type iterPlan struct {
	n, k           int
	steps          int
	clip           []float64 // per coordinate (CD) or one value (GD)
	rate           float64
	eta            float64
	l1, ridge      float64
	penalized      int // weights 0..penalized−1 carry the ℓ₁ and ridge terms
	outer, perIter int
	average        bool
}

// noiser adds the step noise: Gaussian N(0, (z·Δ)²) in the composed
// accounting; otherwise Δ times a draw from the per-step mechanism
// calibrated at sensitivity 1 (exactly as private for sensitivity Δ as the
// unit mechanism is for 1, so one privacy-loss distribution covers every
// step).
type noiser struct {
	z    float64
	unit noise.Distribution
}

func (nz *noiser) add(v, sens float64, src noise.Source) (float64, error) {
	if nz.unit == nil {
		return v + nz.z*sens*gauss(src), nil
	}
	return v + sens*nz.unit.Sample(src), nil
}

// gauss returns a standard normal draw (noise.Gaussian's inverse transform
// of a full-precision uniform; sampled in floating point, see
// TrainIterative).
func gauss(src noise.Source) float64 {
	d := noise.Gaussian{Sigma: 1}
	return d.Sample(src)
}

// calibrate sets the noise of a run of steps noisy steps and the
// guarantee's privacy fields.
func calibrate(ctx context.Context, p IterativePrivacy, steps int, g *Guarantee) (*noiser, error) {
	if !(p.Epsilon > 0) || math.IsInf(p.Epsilon, 0) {
		return nil, invalidf("epsilon is %v, must be > 0 and finite", p.Epsilon)
	}
	if !(p.Delta > 0 && p.Delta < 1) {
		return nil, invalidf("delta is %v, must be in (0, 1) for iterative methods", p.Delta)
	}
	acc := p.Accountant
	if acc == nil {
		acc = GaussianAccountant{}
	}
	if p.Mechanism == "" {
		p.Mechanism = AnalyticGaussian
	}
	g.Noise = p.Mechanism
	if !p.PerStep {
		if p.Mechanism != Gaussian && p.Mechanism != AnalyticGaussian {
			return nil, invalidf("noise %q: composed accounting of iterative methods needs gaussian or analytic-gaussian (other mechanisms: per-step calibration)", p.Mechanism)
		}
		z, err := NoiseMultiplier(acc, steps, p.Epsilon, p.Delta)
		if err != nil {
			return nil, err
		}
		g.Epsilon, g.Delta = p.Epsilon, p.Delta
		g.Statement = fmt.Sprintf("%d noisy steps, Gaussian noise of multiplier z = %.6g chosen by bisection so that the %s gives (%g, %g)", steps, z, acc.Describe(), p.Epsilon, p.Delta)
		return &noiser{z: z}, nil
	}
	mk, ok := StepMechanisms[p.Mechanism]
	if !ok {
		return nil, invalidf("noise %q has no per-step calibration (StepMechanisms)", p.Mechanism)
	}
	m, err := mk(noise.Params{Epsilon: p.Epsilon, Delta: p.Delta, Sensitivity: 1})
	if err != nil {
		return nil, fmt.Errorf("learn: per-step %s noise: %w", p.Mechanism, err)
	}
	nz := &noiser{unit: m.Dist, z: noise.Std(m.Dist)}
	// The run's guarantee: k updates each (ε₀, δ₀)-DP.
	k := float64(steps)
	e0, d0 := p.Epsilon, m.Params.Delta
	total, tdelta, how := k*e0, k*d0, "basic composition"
	if adv := accounting.AdvancedComposition(e0, steps, p.Delta); adv < total && k*d0+p.Delta < 1 {
		total, tdelta, how = adv, k*d0+p.Delta, "advanced composition"
	}
	if gd, ok := m.Dist.(*noise.Gaussian); ok {
		// Gaussian per step: exact composition, stated at the per-step δ.
		if e, err := acc.Epsilon(gd.Sigma, steps, p.Delta); err == nil {
			total, tdelta, how = e, p.Delta, acc.Describe()
		}
	} else if e, ok, err := perStepPLDEpsilon(ctx, m, steps, p.Delta); err != nil {
		return nil, err
	} else if ok && (e < total || tdelta >= 1) {
		// Any other mechanism with a PLD: its dominating PLD composed by FFT.
		total, tdelta, how = e, p.Delta, "its privacy-loss distribution composed by FFT (accounting.MechanismPLD, truncated pessimistically)"
	}
	g.Epsilon, g.Delta = total, tdelta
	g.Statement = fmt.Sprintf("each of %d updates is (%g, %g)-DP by the %s mechanism (per-step calibration, Liu and Selvi §2.5); the run is (%.4g, %.3g)-DP by %s", steps, e0, d0, p.Mechanism, total, tdelta, how)
	if tdelta >= 1 {
		// δ ≥ 1 promises nothing: say so instead of printing a guarantee.
		g.Statement = fmt.Sprintf("each of %d updates is (%g, %g)-DP by the %s mechanism (per-step calibration, Liu and Selvi §2.5); composed by %s the run's δ is %.3g ≥ 1, so the run as a whole has NO differential-privacy guarantee", steps, e0, d0, p.Mechanism, how, tdelta)
	}
	return nz, nil
}

// clipRows returns the clipped copy of the design X̃ (intercept column
// appended) and the clamped targets: rows to ℓ₂ norm X (coordinate:
// entries to [−X, X]).
func clipRows(data Data, s IterativeSpec, b Bounds) (rows [][]float64, y []float64) {
	n, d := data.X.Dims()
	rows = make([][]float64, n)
	y = make([]float64, n)
	for i := 0; i < n; i++ {
		r := make([]float64, d, d+1)
		copy(r, data.X.RawRowView(i)[:d])
		if s.Method == DPCD {
			for j := range r {
				r[j] = math.Max(-b.X, math.Min(b.X, r[j]))
			}
		} else {
			nr := 0.0
			for _, v := range r {
				nr += v * v
			}
			if nr = math.Sqrt(nr); nr > b.X {
				for j := range r {
					r[j] *= b.X / nr
				}
			}
		}
		if s.Intercept {
			r = append(r, 1)
		}
		rows[i] = r
		y[i] = math.Max(-b.Y, math.Min(b.Y, data.Y[i]))
	}
	return rows, y
}

// lossGradient returns the per-example gradient of the ERM loss on the
// clipped rows (without the regularizers).
func lossGradient(loss Loss, rows [][]float64, y []float64) GradientFunc {
	return func(w []float64, i int, g []float64) {
		r := rows[i]
		t := 0.0
		for j, v := range r {
			t += w[j] * v
		}
		var s float64 // ∂ℓ/∂t
		if loss == Logistic {
			s = -y[i] * sigmoid(-y[i]*t)
		} else {
			s = t - y[i]
		}
		for j, v := range r {
			g[j] = s * v
		}
	}
}

func sigmoid(u float64) float64 {
	if u >= 0 {
		return 1 / (1 + math.Exp(-u))
	}
	e := math.Exp(u)
	return e / (1 + e)
}

// plan validates spec and returns the public schedule for n rows, d features.
func (s IterativeSpec) plan(n, d int) (*iterPlan, Bounds, error) {
	b := s.Bounds
	if b == (Bounds{}) {
		b = DefaultBounds
	}
	if err := b.Validate(); err != nil {
		return nil, b, err
	}
	if s.Loss != Logistic && s.Loss != Squared {
		return nil, b, invalidf("iterative loss is %q, must be logistic or squared", s.Loss)
	}
	if !(s.L1 >= 0) || math.IsInf(s.L1, 0) || !(s.Ridge >= 0) || math.IsInf(s.Ridge, 0) {
		return nil, b, invalidf("l1 %v and ridge %v must be ≥ 0 and finite", s.L1, s.Ridge)
	}
	if s.Iterations < 1 {
		return nil, b, invalidf("iterations is %d, must be ≥ 1", s.Iterations)
	}
	if !(s.Clip >= 0) || math.IsInf(s.Clip, 0) || !(s.StepSize >= 0) || math.IsInf(s.StepSize, 0) {
		return nil, b, invalidf("clip %v and step size %v must be ≥ 0 and finite", s.Clip, s.StepSize)
	}
	k := d
	if s.Intercept {
		k++
	}
	p := &iterPlan{n: n, k: k, l1: s.L1, ridge: s.Ridge, penalized: d, rate: 1, average: s.Average, outer: s.Iterations}
	xt := b.X
	if s.Method != DPCD {
		xt = featureNorm(b, s.Intercept)
	} else if s.Intercept {
		xt = math.Max(b.X, 1)
	}
	beta := xt * xt
	lip := xt * b.Y
	if s.Loss == Logistic {
		beta, lip = beta/4, xt
	}
	p.eta = s.StepSize
	if p.eta == 0 {
		p.eta = 1 / (beta + s.Ridge)
	}
	c := s.Clip
	if c == 0 {
		c = lip
	}
	switch s.Method {
	case DPGD, DPSGD:
		p.clip = []float64{c}
		p.steps, p.perIter = s.Iterations, 1
		if s.Method == DPSGD {
			if !(s.BatchRate > 0 && s.BatchRate <= 1) {
				return nil, b, invalidf("batch rate is %v, must be in (0, 1]", s.BatchRate)
			}
			p.rate = s.BatchRate
		}
	case DPCD:
		p.clip = make([]float64, k)
		for j := range p.clip {
			p.clip[j] = c
		}
		if s.CoordinateClip != nil {
			if len(s.CoordinateClip) != k {
				return nil, b, invalidf("coordinate clip has %d entries, the model has %d weights", len(s.CoordinateClip), k)
			}
			for j, v := range s.CoordinateClip {
				if !(v > 0) || math.IsInf(v, 0) {
					return nil, b, invalidf("coordinate clip[%d] is %v, must be > 0 and finite", j, v)
				}
				p.clip[j] = v
			}
		}
		p.perIter = s.Coordinates
		if p.perIter == 0 {
			p.perIter = (k + 3) / 4
		}
		if p.perIter < 1 {
			return nil, b, invalidf("coordinates is %d, must be ≥ 1", s.Coordinates)
		}
		p.steps = s.Iterations * p.perIter
	default:
		return nil, b, invalidf("iterative method is %q, must be dp-gd, dp-sgd or dp-cd", s.Method)
	}
	return p, b, nil
}

// TrainIterative clips the data to the spec's bounds and trains the model
// privately by spec.Method with noise calibrated to p, drawing the noise,
// the minibatches and the coordinates from src (nil: crypto/rand).
//
// Privacy. Each step's statistic is an average of clipped per-example
// gradients (or partial derivatives), whose sensitivity 2C/(nq) under
// replace-one adjacency is certified by the clipping alone — the data never
// enter the noise scale, the step sizes, the schedule or the thresholds.
// The steps compose through p.Accountant; the released iterate is a
// post-processing. The guarantee carries a certificate (method
// MethodClippedSteps) whose verifier recomputes 2C/(nq) and, for the exact
// Gaussian accountant, the composed ε.
//
// Floating point. The noise enters intermediate iterates, not a released
// value; it is drawn in floating point (inverse transform of
// full-precision uniforms), like objective perturbation's, and the
// guarantee says so (FloatingPointSafe false).
func TrainIterative(ctx context.Context, data Data, s IterativeSpec, p IterativePrivacy, src noise.Source) (*IterativeResult, error) {
	r, err := PrepareIterative(ctx, data, s, p)
	if err != nil {
		return nil, err
	}
	w, err := r.Draw(ctx, src)
	if err != nil {
		return nil, err
	}
	g := r.Guarantee()
	return &IterativeResult{Weights: w, Guarantee: g, NoiseMultiplier: g.Certificate.Params["noise_multiplier"], Steps: int(g.Certificate.Params["steps"])}, nil
}

// PrepareIterative validates and calibrates an iterative release (the
// guarantee is known before any noise is drawn, e.g. to spend it in a
// ledger first); each Draw trains once more and spends the guarantee again.
func PrepareIterative(ctx context.Context, data Data, s IterativeSpec, p IterativePrivacy) (*Releaser, error) {
	if err := data.Validate(); err != nil {
		return nil, err
	}
	n, d := data.X.Dims()
	pl, err := NewPlan(ctx, PlanSpec{N: n, Features: d, Strategy: s.Method, Privacy: Privacy{Epsilon: p.Epsilon, Delta: p.Delta, Mechanism: p.Mechanism},
		Iterative: &s, IterativePrivacy: p})
	if err != nil {
		return nil, err
	}
	return bind(ctx, pl.Guarantee, pl.draw, data)
}

// calibrated returns the plan for n rows and d features, the bounds, the
// guarantee's privacy fields and the calibrated noise.
func (s IterativeSpec) calibrated(ctx context.Context, n, d int, p IterativePrivacy) (*iterPlan, Bounds, Guarantee, *noiser, error) {
	g := Guarantee{Strategy: s.Method, Norm: "l2", Source: "certified"}
	plan, b, err := s.plan(n, d)
	if err != nil {
		return nil, b, g, nil, err
	}
	nz, err := calibrate(ctx, p, plan.steps, &g)
	return plan, b, g, nz, err
}

// certify fills the guarantee's sensitivity, noise and certificate.
func certify(g *Guarantee, plan *iterPlan, nz *noiser, p IterativePrivacy, cmax float64, domain string) {
	g.Sensitivity = 2 * cmax / (float64(plan.n) * plan.rate)
	g.NoiseStd = nz.z * g.Sensitivity
	_, exact := p.Accountant.(GaussianAccountant)
	exact = (exact || p.Accountant == nil) && !p.PerStep
	g.Certificate = &Certificate{
		Method: MethodClippedSteps, Bound: g.Sensitivity, Norm: 2, Adjacency: Adjacency, Domain: domain,
		Params: map[string]float64{"n": float64(plan.n), "clip": cmax, "rate": plan.rate, "steps": float64(plan.steps),
			"noise_multiplier": nz.z, "epsilon": g.Epsilon, "delta": g.Delta, "gaussian": boolFloat(exact), "step_size": plan.eta},
		Assumptions: []string{"step sizes, clipping thresholds, iteration counts and coordinate choices are public (data-independent)",
			"noise sampled in floating point (the noise enters iterates, not the released value directly)"},
	}
	g.Statement += fmt.Sprintf("; per-step sensitivity 2C/(nq) = %.4g (certified by clipping); noise sampled in floating point", g.Sensitivity)
}

// FitIterative runs the same method without clipping or noise (DPSGD:
// full-batch gradient descent): the non-private baseline of comparisons,
// whose result is private data. Coordinates are drawn from src (nil:
// crypto/rand).
func FitIterative(ctx context.Context, data Data, s IterativeSpec, src noise.Source) ([]float64, error) {
	if err := data.Validate(); err != nil {
		return nil, err
	}
	n, d := data.X.Dims()
	plan, b, err := s.plan(n, d)
	if err != nil {
		return nil, err
	}
	for j := range plan.clip {
		plan.clip[j] = math.Inf(1)
	}
	plan.rate = 1
	if src == nil {
		src = noise.CryptoSource()
	}
	rows, y := clipRows(data, s, b)
	m := s.Method
	if m == DPSGD {
		m = DPGD
	}
	cd := &cdData{loss: s.Loss, rows: rows, y: y, t: make([]float64, n)}
	return run(ctx, plan, lossGradient(s.Loss, rows, y), cd, nil, src, m)
}

// DPGradientDescent runs DP-GD (or DP-SGD with s.BatchRate < 1) on n
// examples of a k-dimensional parameter with the per-example gradient
// grad, clipped to ℓ₂ norm s.Clip (required), ℓ₁ and ridge terms on every
// weight, step s.StepSize (required). It is TrainIterative for losses
// defined outside this package (e.g. SPO+); the certified bound is only as
// good as the clipping: grad is clipped whatever it returns.
func DPGradientDescent(ctx context.Context, n, k int, grad GradientFunc, s IterativeSpec, p IterativePrivacy, src noise.Source) (*IterativeResult, error) {
	if s.Method == "" {
		s.Method = DPGD
	}
	if s.Method == DPCD {
		return nil, invalidf("DPGradientDescent runs dp-gd or dp-sgd, not dp-cd")
	}
	if !(s.Clip > 0) || !(s.StepSize > 0) {
		return nil, invalidf("clip %v and step size %v must be given (> 0)", s.Clip, s.StepSize)
	}
	if n < 1 || k < 1 {
		return nil, invalidf("n = %d and k = %d must be ≥ 1", n, k)
	}
	s.Loss, s.Intercept = Squared, false
	plan, _, g, nz, err := s.calibrated(ctx, n, k, p)
	if err != nil {
		return nil, err
	}
	if src == nil {
		src = noise.CryptoSource()
	}
	w, err := run(ctx, plan, grad, nil, nz, src, s.Method)
	if err != nil {
		return nil, err
	}
	certify(&g, plan, nz, p, s.Clip, fmt.Sprintf("any examples (per-example gradients clipped to %g), n = %d", s.Clip, n))
	return &IterativeResult{Weights: w, Guarantee: g, NoiseMultiplier: nz.z, Steps: plan.steps}, nil
}

// FitGradientDescent is DPGradientDescent without clipping or noise (the
// non-private baseline; its result is private data).
func FitGradientDescent(ctx context.Context, n, k int, grad GradientFunc, s IterativeSpec) ([]float64, error) {
	s.Method, s.Loss, s.Intercept = DPGD, Squared, false
	if !(s.StepSize > 0) || n < 1 || k < 1 {
		return nil, invalidf("step size %v, n = %d, k = %d: need step > 0, n, k ≥ 1", s.StepSize, n, k)
	}
	plan, _, err := s.plan(n, k)
	if err != nil {
		return nil, err
	}
	plan.clip[0] = math.Inf(1)
	return run(ctx, plan, grad, nil, nil, noise.NewSeededSource(0), DPGD)
}

// softThreshold is prox_{t|·|}(v).
func softThreshold(v, t float64) float64 {
	switch {
	case v > t:
		return v - t
	case v < -t:
		return v + t
	}
	return 0
}

// run executes the plan; nz == nil runs without noise.
func run(ctx context.Context, p *iterPlan, grad GradientFunc, cd *cdData, nz *noiser, src noise.Source, method Strategy) ([]float64, error) {
	w := make([]float64, p.k)
	avg := make([]float64, p.k)
	gi := make([]float64, p.k)
	sum := make([]float64, p.k)
	fn := float64(p.n)
	for t := 0; t < p.outer; t++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		switch method {
		case DPGD, DPSGD:
			for j := range sum {
				sum[j] = 0
			}
			for i := 0; i < p.n; i++ {
				if p.rate < 1 && uniform(src) >= p.rate {
					continue
				}
				grad(w, i, gi)
				clipL2(gi, p.clip[0])
				for j, v := range gi {
					sum[j] += v
				}
			}
			sens := 2 * p.clip[0] / (fn * p.rate)
			for j := range w {
				gj := sum[j] / (fn * p.rate)
				if nz != nil {
					var err error
					if gj, err = nz.add(gj, sens, src); err != nil {
						return nil, err
					}
				}
				u := w[j] - p.eta*gj
				if j < p.penalized {
					u = softThreshold(u-p.eta*p.ridge*w[j], p.eta*p.l1)
				}
				w[j] = u
			}
		case DPCD:
			inner := make([]float64, p.k)
			margins(cd, w)
			for r := 0; r < p.perIter; r++ {
				j := int(uniformIndex(src, p.k))
				s := 0.0
				for i, row := range cd.rows {
					s += math.Max(-p.clip[j], math.Min(p.clip[j], cd.deriv(i)*row[j]))
				}
				gj := s / fn
				if nz != nil {
					var err error
					if gj, err = nz.add(gj, 2*p.clip[j]/fn, src); err != nil {
						return nil, err
					}
				}
				u := w[j] - p.eta*gj
				if j < p.penalized {
					u = softThreshold(u-p.eta*p.ridge*w[j], p.eta*p.l1)
				}
				if dw := u - w[j]; dw != 0 {
					for i, row := range cd.rows {
						cd.t[i] += dw * row[j]
					}
				}
				w[j] = u
				for q := range inner {
					inner[q] += w[q]
				}
			}
			for q := range w {
				w[q] = inner[q] / float64(p.perIter)
			}
		}
		for j := range avg {
			avg[j] += w[j]
		}
	}
	if p.average {
		for j := range avg {
			avg[j] /= float64(p.outer)
		}
		return avg, nil
	}
	return w, nil
}

// cdData holds the clipped rows of a coordinate-descent run and the
// margins tᵢ = wᵀx̃ᵢ, updated in O(n) per coordinate step.
type cdData struct {
	loss Loss
	rows [][]float64
	y, t []float64
}

// margins recomputes tᵢ = wᵀx̃ᵢ.
func margins(cd *cdData, w []float64) {
	for i, r := range cd.rows {
		s := 0.0
		for j, v := range r {
			s += w[j] * v
		}
		cd.t[i] = s
	}
}

// deriv is ∂ℓ/∂t at example i's margin.
func (cd *cdData) deriv(i int) float64 {
	if cd.loss == Logistic {
		return -cd.y[i] * sigmoid(-cd.y[i]*cd.t[i])
	}
	return cd.t[i] - cd.y[i]
}

// clipL2 scales g to ℓ₂ norm ≤ c.
func clipL2(g []float64, c float64) {
	if math.IsInf(c, 1) {
		return
	}
	s := 0.0
	for _, v := range g {
		s += v * v
	}
	if s = math.Sqrt(s); s > c {
		for j := range g {
			g[j] *= c / s
		}
	}
}

// uniformIndex returns a uniform integer in [0, k) (rejection sampling).
func uniformIndex(src noise.Source, k int) uint64 {
	n := uint64(k)
	lim := math.MaxUint64 - math.MaxUint64%n
	for {
		if v := src.Uint64(); v < lim {
			return v % n
		}
	}
}
