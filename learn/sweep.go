package learn

import (
	"context"
	"math"

	"github.com/privopt/privopt/model"
	"github.com/privopt/privopt/solver/ipm"
)

// PathPoint is one fit of a regularization path (FitPath).
type PathPoint struct {
	Lambda float64
	// W is the non-private minimizer w*(λ) of (1/n)Σℓ + (λ/2)‖w‖² over C:
	// private data, to be published only through a release.
	W []float64
	// Rebuilt reports that the re-solve of the prepared model failed and w*(λ)
	// comes from a model rebuilt with Spec.Lambda = λ (Fit's route, with its
	// fallback to the automatic backend).
	Rebuilt bool
}

// FitPath returns the non-private fits w*(λ) of spec s (whose Lambda is
// ignored) on data clipped to its bounds, for each λ in lambdas (each > 0 and
// finite), in order. It builds and canonicalizes the model once, with λ as a
// model parameter, and re-solves it per λ (model.Prepared). Parameters enter
// only affine data, so λ is made an objective coefficient (pathParam): the
// hinge and logistic objectives are divided by λ, the squared and Huber
// ones get the regularizer (λ/2)‖w‖² as λ·t with t ≥ ½‖w‖² (the feature
// weights only when FreeIntercept). A new λ is then Prepared.SetParam away.
// The minimizers are those of Fit with Spec.Lambda = λ, to within the
// solver's tolerance (each form has the minimizer of the quadratic one Fit
// solves; TestFitPathMatchesFit).
//
// The default backend is the interior-point method (s.Solver overrides it).
// The saving is the model's build and canonicalization (the data's moments,
// the loss's cone rows) and, for the squared and Huber losses, the
// iterations the warm start from the previous λ's solution saves
// (Prepared.SetIPMWarmStart; measured in BENCHMARKS.md, "Modelling layer,
// round 2"). A λ whose re-solve does not
// reach an optimum is fitted again by Fit's route and marked Rebuilt.
//
// λ > 0 is required: at λ = 0 the epigraph variable t has no cost and its
// optimal set is unbounded (use Fit).
func FitPath(ctx context.Context, data Data, s Spec, lambdas []float64) ([]PathPoint, error) {
	if err := data.Validate(); err != nil {
		return nil, err
	}
	if err := s.Validate(data.X.RawMatrix().Cols); err != nil {
		return nil, err
	}
	for i, l := range lambdas {
		if !(l > 0) || math.IsInf(l, 0) {
			return nil, invalidf("lambdas[%d] is %v, must be > 0 and finite (FitPath needs a strongly convex objective; use Fit for λ = 0)", i, l)
		}
	}
	if len(lambdas) == 0 {
		return nil, nil
	}
	clipped, _ := s.bounds().Clip(data)
	s0 := s
	s0.Lambda = 0
	m, w, err := s0.build(clipped, nil)
	if err != nil {
		return nil, &SolveError{What: "build", Err: err}
	}
	d := clipped.X.RawMatrix().Cols
	reg := w.Expr()
	if s.FreeIntercept {
		reg = w.Slice(0, d)
	}
	lam, scaled := pathParam(m, s, reg, clipped.N(), lambdas[0])
	if err := m.Err(); err != nil {
		return nil, &SolveError{What: "build", Err: err}
	}
	primary := s.Solver
	if primary == nil {
		primary = ipm.New()
	}
	prep, err := m.Prepare(model.SolveOptions{Solver: primary, Settings: s.Settings})
	if err != nil {
		return nil, &SolveError{What: "fit path", Err: err}
	}
	defer prep.Close()
	// The interior-point warm start (model.Prepared) saves iterations on the
	// squared loss's path (84 against 137 over 20 values of λ) but not on the
	// divided objectives (hinge 213 against 174, logistic 345 against 343).
	prep.SetIPMWarmStart(!scaled)
	out := make([]PathPoint, len(lambdas))
	for i, l := range lambdas {
		v := l
		if scaled {
			v = 1 / l
		}
		if err := prep.SetParam(lam, v); err != nil {
			return nil, &SolveError{What: "fit path", Err: err}
		}
		res, err := prep.Solve(ctx)
		if err != nil {
			return nil, &SolveError{What: "fit path", Err: err}
		}
		out[i].Lambda = l
		if res.Status.OK() {
			out[i].W = res.Value(w)
			continue
		}
		if ctx.Err() != nil {
			return nil, &SolveError{What: "fit path", Status: res.Status, Diagnostic: describe(res)}
		}
		sl := s
		sl.Lambda = l
		wl, err := fitClipped(ctx, clipped, sl, nil)
		if err != nil {
			return nil, err
		}
		out[i].W, out[i].Rebuilt = wl, true
	}
	return out, nil
}

// pathParam makes λ a parameter of the model m built by Spec.build with
// Lambda = 0 (objective: the loss, reg the regularized weights) and returns
// it with its initial value set for λ = lambda:
//
//   - hinge and logistic losses, linear in their epigraph variables (ξ or t:
//     loss (1/n)Σξᵢ): the objective is divided by λ, giving
//     (1/λ)(1/n)Σξᵢ + ½‖reg‖², which has the same minimizer and keeps the
//     problem's class (a QP for the hinge loss); the parameter is θ = 1/λ,
//     an objective coefficient (scaled = true);
//   - squared and Huber losses, whose loss has a quadratic part: the
//     regularizer is λ·t with t ≥ ½‖reg‖² (a rotated second-order cone,
//     2·t·1 ≥ ‖reg‖²), and the parameter is λ (scaled = false).
func pathParam(m *model.Model, s Spec, reg model.Expr, n int, lambda float64) (p *model.Param, scaled bool) {
	epi := map[Loss]string{Hinge: "xi", Logistic: "t"}[s.Loss]
	if v := m.VarByName(epi); epi != "" && v != nil {
		p = m.Parameter("inverse-lambda", 1/lambda)
		m.Minimize(model.Expr{}, model.SumSquares(reg).Scale(0.5))
		m.AddObjectiveDot(p, v.Expr().Sum().Scale(1/float64(n)))
		return p, true
	}
	t := m.Scalar("ridge-epigraph")
	m.RotatedCone("ridge", t.Expr(), model.Const(1), reg)
	p = m.Parameter("lambda", lambda)
	m.AddObjectiveDot(p, t.Expr())
	return p, false
}
