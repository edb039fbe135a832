package model_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/privopt/privopt/internal/randlp"
	"github.com/privopt/privopt/model"
)

// The acceptance benchmark of parameters: a 10,000-variable LP (2,000 rows
// of 10 entries) re-solved with 50 right-hand sides changed by up to ±5%, either rebuilt
// and solved cold (BuildSolve) or through a parameter and the warm HiGHS
// basis (ParamResolve). bench/paramresolve prints the ratio.
func BenchmarkLPRHS(b *testing.B) {
	lp := randlp.New(1, 2000, 10000, 10)
	rng := rand.New(rand.NewPCG(2, 2))
	ctx := context.Background()
	b.Run("BuildSolve", func(b *testing.B) {
		for b.Loop() {
			m, _ := lp.Build(lp.Perturb(rng, 50, 0.05), false)
			res, err := m.Solve(ctx, model.SolveOptions{})
			if err != nil || !res.Status.OK() {
				b.Fatal(err, res.Status)
			}
		}
	})
	b.Run("ParamResolve", func(b *testing.B) {
		m, p := lp.Build(lp.B, true)
		prep, err := m.Prepare(model.SolveOptions{})
		if err != nil {
			b.Fatal(err)
		}
		defer prep.Close()
		if _, err := prep.Solve(ctx); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if err := prep.SetParam(p, lp.Perturb(rng, 50, 0.05)...); err != nil {
				b.Fatal(err)
			}
			res, err := prep.Solve(ctx)
			if err != nil || !res.Status.OK() {
				b.Fatal(err, res.Status)
			}
		}
	})
}
