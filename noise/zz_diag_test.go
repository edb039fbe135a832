package noise

import (
	"context"
	"testing"
	"time"
)

func TestZZDiag(t *testing.T) {
	for _, c := range [][2]float64{{9, 0.01}, {9, 1e-4}, {5, 0.01}} {
		p := Params{Epsilon: c[0], Delta: c[1], Sensitivity: 1}
		t0 := time.Now()
		r, err := Optimize(context.Background(), p, OptimalOptions{Symmetric: true})
		if err != nil {
			t.Log(err)
			continue
		}
		sc, _ := StaircaseMechanism(p, L1())
		mg, err := MultiGaussianMechanism(p, MultiGaussianOptions{})
		mge := -1.0
		if err == nil {
			mge = mg.Dist.MeanAbs()
		}
		g, _ := GengLowerBoundL1(p)
		t.Logf("(%g,%g): upper %.5f lower %.5f gap %.1f%% cells %d lowerMethod %s graded %v (%v); staircase %.5f, multi-Gaussian %.5f, Geng LB %.5f", c[0], c[1], r.UpperBound, r.LowerBound, 100*r.Gap, r.Intervals, r.LowerMethod, r.GradedUpper, time.Since(t0), sc.Dist.MeanAbs(), mge, g)
	}
}
