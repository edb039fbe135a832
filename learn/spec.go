package learn

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/privopt/privopt/model"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/ipm"
)

// Loss is the per-row loss ℓ(t; y) of the prediction t = wᵀx̃ against the
// target y.
type Loss string

// Losses.
const (
	// Squared: ℓ = ½(y − t)². Least squares, ridge, nonnegative, monotone
	// and ℓ₁-constrained regression.
	Squared Loss = "squared"
	// Huber: ℓ = ½r² for |r| ≤ h, h|r| − ½h² beyond (r = y − t, h =
	// Spec.HuberDelta); modelled as min_{u+v=r} ½u² + h|v|.
	Huber Loss = "huber"
	// Logistic: ℓ = log(1 + exp(−y t)), y ∈ {−1, +1}; modelled with two
	// exponential cones per row.
	Logistic Loss = "logistic"
	// Hinge: ℓ = max(0, 1 − y t), y ∈ {−1, +1}: the linear SVM of Dvorkin
	// et al. (Section 4.2, eq. 17) with λ_paper‖w‖² = (λ/2)‖w‖², λ = 2λ_paper.
	Hinge Loss = "hinge"
)

// lossCode numbers the losses for certificate parameters.
var lossCode = map[Loss]float64{Squared: 1, Huber: 2, Logistic: 3, Hinge: 4}

// Spec is a regularized ERM problem
//
//	minimize (1/n) Σᵢ ℓ(wᵀx̃ᵢ; yᵢ) + (λ/2)‖w‖²  subject to  w ∈ C.
//
// Weights are ordered as the feature columns, then the intercept (if any).
// C is data-independent and contains 0.
type Spec struct {
	Loss       Loss
	Lambda     float64 // ridge λ ≥ 0; certified sensitivities need λ > 0
	HuberDelta float64 // h > 0 for Huber (in target units)
	// Intercept appends a constant-1 column x̃ᵢ = (xᵢ, 1), so ‖x̃ᵢ‖ ≤ √(X² + 1).
	// The intercept is regularized with the same λ unless FreeIntercept.
	Intercept bool
	// FreeIntercept leaves the intercept unpenalized (the SVM of eq. 17). The
	// objective is then not strongly convex in it and no certificate exists.
	FreeIntercept bool
	// Nonnegative: w_j ≥ 0 for every feature weight.
	Nonnegative bool
	// Ordered: w_0 ≤ w_1 ≤ … ≤ w_{d−1} (isotonic constraints on the feature
	// weights, e.g. a nondecreasing dose-response over ordered bins).
	Ordered bool
	// Cone rows G (r×d): G w_features ≥ 0, e.g. the monotonicity rows
	// φ′(u)ᵀw ≥ 0 of Dvorkin et al. Section 4.3.
	Cone *mat.Dense
	// L1Radius r > 0 adds ‖w‖₁ ≤ r over all weights (0: none).
	L1Radius float64
	// Bounds are the public data bounds (zero value: DefaultBounds).
	Bounds Bounds
	// Solver and Settings are passed to model.Solve. nil: the interior-point
	// solver, falling back to model's automatic choice if it fails.
	Solver   solver.Solver
	Settings solver.Settings
}

func (s Spec) bounds() Bounds {
	if s.Bounds == (Bounds{}) {
		return DefaultBounds
	}
	return s.Bounds
}

// Validate checks the parameters against d features.
func (s Spec) Validate(d int) error {
	if _, ok := lossCode[s.Loss]; !ok {
		return invalidf("loss is %q, must be squared, huber, logistic or hinge", s.Loss)
	}
	if !(s.Lambda >= 0) || math.IsInf(s.Lambda, 0) {
		return invalidf("lambda is %v, must be ≥ 0 and finite", s.Lambda)
	}
	if s.Loss == Huber && (!(s.HuberDelta > 0) || math.IsInf(s.HuberDelta, 0)) {
		return invalidf("huber delta is %v, must be > 0 and finite", s.HuberDelta)
	}
	if !(s.L1Radius >= 0) || math.IsInf(s.L1Radius, 0) {
		return invalidf("l1 radius is %v, must be ≥ 0 and finite", s.L1Radius)
	}
	if s.FreeIntercept && !s.Intercept {
		return invalidf("free intercept is set without intercept")
	}
	if s.Cone != nil {
		if _, c := s.Cone.Dims(); c != d {
			return invalidf("cone rows have %d columns, data has %d features", c, d)
		}
	}
	return s.bounds().Validate()
}

// weights returns the number of weights for d features.
func (s Spec) weights(d int) int {
	if s.Intercept {
		return d + 1
	}
	return d
}

// design returns X̃ = [X, 1] (or X).
func (s Spec) design(x *mat.Dense) *mat.Dense {
	n, d := x.Dims()
	if !s.Intercept {
		return x
	}
	a := mat.NewDense(n, d+1, nil)
	a.Slice(0, n, 0, d).(*mat.Dense).Copy(x)
	for i := 0; i < n; i++ {
		a.Set(i, d, 1)
	}
	return a
}

// moments returns X̃ᵀX̃ and X̃ᵀy of the design X̃ = design(X): the
// sufficient statistics of the squared loss.
func (s Spec) moments(data Data) (*mat.SymDense, *mat.VecDense) {
	a := s.design(data.X)
	n, k := a.Dims()
	gram := mat.NewSymDense(k, nil)
	gram.SymOuterK(1, a.T())
	xty := mat.NewVecDense(k, nil)
	xty.MulVec(a.T(), mat.NewVecDense(n, data.Y))
	return gram, xty
}

// featureNorm returns X̃, the bound on ‖x̃ᵢ‖₂.
func featureNorm(b Bounds, intercept bool) float64 {
	if intercept {
		return math.Hypot(b.X, 1)
	}
	return b.X
}

// constrain adds w ∈ C to m for the weight variable w of d features.
func (s Spec) constrain(m *model.Model, w *model.Var, d int) { s.constrainShifted(m, w, d, Margins{}) }

// Margins shift the constraints of C to the tightened set C̄ of program
// perturbation: w_j ≥ Lower (nonnegative features) and w_{j+1} − w_j ≥ Gap
// (ordered features). Zero margins give C. They are public: computed from
// the noise law, η and the constraint rows only (NewPlan).
type Margins struct {
	Lower float64 `json:"nonnegative_lower,omitempty"`
	Gap   float64 `json:"ordered_gap,omitempty"`
}

// constrainShifted adds w ∈ C̄ (C shifted by mg) to m.
func (s Spec) constrainShifted(m *model.Model, w *model.Var, d int, mg Margins) {
	k := w.Len()
	if s.Nonnegative {
		lo, hi := make([]float64, k), make([]float64, k)
		for j := range lo {
			lo[j], hi[j] = math.Inf(-1), math.Inf(1)
			if j < d {
				lo[j] = mg.Lower
			}
		}
		w.SetBounds(lo, hi)
	}
	if s.Ordered && d > 1 {
		m.GreaterEq("ordered", w.Slice(1, d).Sub(w.Slice(0, d-1)), constVec(d-1, mg.Gap))
	}
	if s.Cone != nil {
		m.GreaterEq("cone", model.MulDense(s.Cone, w.Slice(0, d)), model.Const(0))
	}
	if s.L1Radius > 0 {
		t := m.Vector("l1", k)
		m.GreaterEq("l1-pos", t.Expr().Sub(w.Expr()), model.Const(0))
		m.GreaterEq("l1-neg", t.Expr().Add(w.Expr()), model.Const(0))
		m.LessEq("l1-radius", t.Expr().Sum(), model.Const(s.L1Radius))
	}
}

// constrained reports whether C ≠ ℝᵏ.
func (s Spec) constrained() bool {
	return s.Nonnegative || s.Ordered || s.Cone != nil || s.L1Radius > 0
}

// perturbation is the extra objective of objective perturbation: linear term
// (1/n) bᵀw, extra ridge (extra/2)‖w‖², and the ball ‖w‖₂ ≤ radius (0: none);
// shift tightens C to program perturbation's C̄.
type perturbation struct {
	b      []float64
	extra  float64
	radius float64
	shift  Margins
}

// build returns the model of the problem on clipped data.
func (s Spec) build(data Data, pert *perturbation) (*model.Model, *model.Var, error) {
	n, d := data.X.Dims()
	k := s.weights(d)
	a := s.design(data.X)
	m := model.New("erm")
	w := m.Vector("w", k)
	fn := float64(n)
	var lin model.Expr
	var quad []model.Quadratic
	switch s.Loss {
	case Squared:
		// (1/2n)‖y − X̃w‖² = ½wᵀ(X̃ᵀX̃/n)w − (X̃ᵀy/n)ᵀw + yᵀy/2n.
		g, h := s.moments(data)
		var g2 mat.SymDense
		g2.ScaleSym(1/fn, g)
		c := make([]float64, k)
		yy := 0.0
		for j := range c {
			c[j] = -h.AtVec(j) / fn
		}
		for _, v := range data.Y {
			yy += v * v
		}
		lin = w.Expr().Dot(c).Add(model.Const(yy / (2 * fn)))
		quad = append(quad, model.QuadForm(w.Expr(), &g2).Scale(0.5))
	case Huber:
		u := m.Vector("u", n)
		v := m.Vector("v", n)
		t := m.Vector("t", n)
		r := model.Const(data.Y...).Sub(model.MulDense(a, w.Expr()))
		m.Equal("split", u.Expr().Add(v.Expr()), r)
		m.GreaterEq("abs-pos", t.Expr().Sub(v.Expr()), model.Const(0))
		m.GreaterEq("abs-neg", t.Expr().Add(v.Expr()), model.Const(0))
		lin = t.Expr().Sum().Scale(s.HuberDelta / fn)
		quad = append(quad, model.SumSquares(u.Expr()).Scale(0.5/fn))
	case Logistic:
		// t ≥ log(1 + e^z), z = −y x̃ᵀw  ⇔  e^{−t} + e^{z−t} ≤ 1.
		t := m.Vector("t", n)
		p := m.Vector("p", n)
		q := m.Vector("q", n)
		ya := mat.DenseCopyOf(a)
		for i := 0; i < n; i++ {
			row := ya.RawRowView(i)
			for j := range row {
				row[j] *= -data.Y[i]
			}
		}
		z := model.MulDense(ya, w.Expr())
		ones := model.Const(1)
		m.ExpCone("exp-1", t.Expr().Neg(), constVec(n, 1), p.Expr())
		m.ExpCone("exp-z", z.Sub(t.Expr()), constVec(n, 1), q.Expr())
		m.LessEq("sum", p.Expr().Add(q.Expr()), ones)
		lin = t.Expr().Sum().Scale(1 / fn)
	case Hinge:
		xi := m.Vector("xi", n)
		m.Bound(xi, 0, math.Inf(1))
		ya := mat.DenseCopyOf(a)
		for i := 0; i < n; i++ {
			row := ya.RawRowView(i)
			for j := range row {
				row[j] *= data.Y[i]
			}
		}
		m.GreaterEq("margin", xi.Expr().Add(model.MulDense(ya, w.Expr())), model.Const(1))
		lin = xi.Expr().Sum().Scale(1 / fn)
	}
	reg := w.Expr()
	if s.FreeIntercept {
		reg = w.Slice(0, d)
	}
	lambda := s.Lambda
	var mg Margins
	if pert != nil {
		mg = pert.shift
		if pert.b != nil {
			lin = lin.Add(w.Expr().Dot(scaled(pert.b, 1/fn)))
		}
		lambda += pert.extra
		if pert.radius > 0 {
			m.NormLessEq("radius", w.Expr(), model.Const(pert.radius))
		}
	}
	if lambda > 0 {
		quad = append(quad, model.SumSquares(reg).Scale(lambda/2))
	}
	s.constrainShifted(m, w, d, mg)
	m.Minimize(lin, quad...)
	return m, w, m.Err()
}

func constVec(n int, v float64) model.Expr {
	c := make([]float64, n)
	for i := range c {
		c[i] = v
	}
	return model.Const(c...)
}

func scaled(v []float64, a float64) []float64 {
	o := make([]float64, len(v))
	for i := range v {
		o[i] = a * v[i]
	}
	return o
}

// SolveError reports a solve that did not reach an optimal point, with the
// backend's status and diagnostic.
type SolveError struct {
	What       string // "fit", "projection", "objective perturbation", …
	Status     solver.Status
	Diagnostic string
	Err        error
}

func (e *SolveError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("learn: %s: %v", e.What, e.Err)
	}
	msg := fmt.Sprintf("learn: %s: solver status %v", e.What, e.Status)
	if e.Diagnostic != "" {
		msg += " (" + e.Diagnostic + ")"
	}
	return msg
}

func (e *SolveError) Unwrap() error { return e.Err }

func solveModel(ctx context.Context, what string, m *model.Model, w *model.Var, s Spec) ([]float64, error) {
	// Default route: the interior-point solver, then model's automatic choice
	// (HiGHS for QPs) if it fails. HiGHS's QP solver (active set) takes
	// minutes on the hinge model with thousands of margin rows, where the
	// IPM needs a fraction of a second (BENCHMARKS.md, learn section).
	primary := s.Solver
	if primary == nil {
		primary = ipm.New()
	}
	res, err := m.Solve(ctx, model.SolveOptions{Solver: primary, Settings: s.Settings})
	if err != nil {
		return nil, &SolveError{What: what, Err: err}
	}
	if res.Status.OK() {
		return res.Value(w), nil
	}
	first := &SolveError{What: what, Status: res.Status, Diagnostic: describe(res)}
	if s.Solver != nil || ctx.Err() != nil {
		return nil, first
	}
	res2, err := m.Solve(ctx, model.SolveOptions{Settings: s.Settings})
	if err == nil && res2.Status.OK() {
		return res2.Value(w), nil
	}
	if err != nil {
		first.Diagnostic += "; retry with the automatic backend: " + err.Error()
	} else {
		first.Diagnostic += "; retry with the automatic backend: " + describe(res2)
	}
	return nil, first
}

// describe returns the solver, status and diagnostic of a result.
func describe(res *model.Result) string {
	name := "?"
	if res.Solution != nil {
		name = res.Solution.Solver
	}
	d := fmt.Sprintf("%s reported %v", name, res.Status)
	if res.Diagnostic != "" {
		d += ": " + res.Diagnostic
	}
	return d
}

// Fit clips the data to the spec's bounds and returns the non-private
// minimizer w*. Its result is private data: publish it only through a
// release.
func Fit(ctx context.Context, data Data, s Spec) ([]float64, error) {
	if err := data.Validate(); err != nil {
		return nil, err
	}
	if err := s.Validate(data.X.RawMatrix().Cols); err != nil {
		return nil, err
	}
	clipped, _ := s.bounds().Clip(data)
	return fitClipped(ctx, clipped, s, nil)
}

func fitClipped(ctx context.Context, data Data, s Spec, pert *perturbation) ([]float64, error) {
	m, w, err := s.build(data, pert)
	if err != nil {
		return nil, &SolveError{What: "build", Err: err}
	}
	what := "fit"
	if pert != nil && pert.b != nil {
		what = "objective perturbation"
	}
	return solveModel(ctx, what, m, w, s)
}

// Project returns the Euclidean projection of u onto the spec's feasible set
// C: u itself when C = ℝᵏ; closed forms when C is w ≥ 0 (max(u, 0)),
// ordered weights (pool-adjacent-violators, Barlow et al. 1972), both (the
// isotonic fit clamped at 0) or the ℓ₁ ball alone (Duchi et al. 2008), see
// projectShifted;
// otherwise a QP whose solution is then cleaned exactly (negative feature
// weights clamped, order restored by a running maximum, the ℓ₁ ball by
// scaling) so that solver tolerances cannot leave a release outside C.
// Applied to a released vector it is post-processing and costs no privacy.
func Project(ctx context.Context, u []float64, d int, s Spec) ([]float64, error) {
	w := append([]float64(nil), u...)
	switch {
	case !s.constrained():
		return w, nil
	case s.exactProjection():
		projectShifted(w, d, s, Margins{})
		return w, nil
	}
	m := model.New("projection")
	v := m.Vector("w", len(u))
	s.constrain(m, v, d)
	m.Minimize(model.Zeros(1), model.SumSquares(v.Expr().Sub(model.Const(u...))))
	w, err := solveModel(ctx, "projection", m, v, s)
	if err != nil {
		return nil, err
	}
	return clean(w, d, s), nil
}

// clean maps w into C in place and returns it: negative feature weights
// clamped, order restored by a running maximum, the ℓ₁ ball by scaling
// (which keeps signs, order and G w ≥ 0). It cleans a QP projection's
// tolerance errors; on its own it is a feasible-point map, not a projection.
func clean(w []float64, d int, s Spec) []float64 {
	if s.Nonnegative {
		for j := 0; j < d; j++ {
			w[j] = math.Max(w[j], 0)
		}
	}
	if s.Ordered {
		for j := 1; j < d; j++ {
			w[j] = math.Max(w[j], w[j-1])
		}
	}
	if s.L1Radius > 0 {
		t := 0.0
		for _, x := range w {
			t += math.Abs(x)
		}
		if t > s.L1Radius {
			f := s.L1Radius / t
			for j := range w {
				w[j] *= f
			}
		}
	}
	return w
}

// isotonic replaces w by its least-squares nondecreasing fit
// (pool-adjacent-violators: merge adjacent blocks whose means decrease).
func isotonic(w []float64) {
	type block struct {
		sum   float64
		count int
	}
	var bs []block
	for _, x := range w {
		bs = append(bs, block{x, 1})
		for len(bs) > 1 {
			a, b := bs[len(bs)-2], bs[len(bs)-1]
			if a.sum/float64(a.count) <= b.sum/float64(b.count) {
				break
			}
			bs = bs[:len(bs)-2]
			bs = append(bs, block{a.sum + b.sum, a.count + b.count})
		}
	}
	i := 0
	for _, b := range bs {
		for k := 0; k < b.count; k++ {
			w[i] = b.sum / float64(b.count)
			i++
		}
	}
}

// Violation returns the largest violation of w ∈ C (0 when feasible): the
// largest of −w_j (nonnegative), w_j − w_{j+1} (ordered), −(G w)_r and
// ‖w‖₁ − r.
func Violation(w []float64, d int, s Spec) float64 {
	v := 0.0
	if s.Nonnegative {
		for j := 0; j < d; j++ {
			v = math.Max(v, -w[j])
		}
	}
	if s.Ordered {
		for j := 0; j+1 < d; j++ {
			v = math.Max(v, w[j]-w[j+1])
		}
	}
	if s.Cone != nil {
		r, _ := s.Cone.Dims()
		for i := 0; i < r; i++ {
			g := 0.0
			for j := 0; j < d; j++ {
				g += s.Cone.At(i, j) * w[j]
			}
			v = math.Max(v, -g)
		}
	}
	if s.L1Radius > 0 {
		t := 0.0
		for _, x := range w {
			t += math.Abs(x)
		}
		v = math.Max(v, t-s.L1Radius)
	}
	return v
}
