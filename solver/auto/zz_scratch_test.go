package auto_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privopt/privopt/internal/solvertest"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/highs"
	"github.com/privopt/privopt/solver/ipm"
)

func TestZZScratch(t *testing.T) {
	bad := 0
	for seed := uint64(0); seed < 400; seed++ {
		rng := rand.New(rand.NewPCG(seed, 26))
		small := []float64{1e-5, 1e-7, 1e-8, 1e-3}[seed%4]
		inst := solvertest.OneSmallRow(rng, small)
		p := inst.Problem
		cs := float64(seed%3) * 1.5
		for j := 0; j < p.A.Cols; j++ {
			c := math.Pow(10, -cs+2*cs*rng.Float64())
			for k := p.A.ColPtr[j]; k < p.A.ColPtr[j+1]; k++ {
				p.A.Val[k] *= c
			}
			p.Q[j] *= c
		}
		for _, b := range []solver.Solver{highs.New(), ipm.New()} {
			sol, err := b.Solve(context.Background(), inst.Problem, solver.Settings{})
			if err != nil {
				t.Fatal(err)
			}
			if msg := solvertest.Judge(inst.Problem, sol, inst.Objective, 1e-5); msg != "" {
				bad++
				t.Logf("seed %d small %g cs %g %s %v: %s rows %+v; %v", seed, small, cs, b.Name(), sol.Status, msg, sol.Accuracy.Rows, sol.Accuracy)
			}
		}
	}
	t.Log(bad)
}
