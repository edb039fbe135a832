package grid

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privopt/privopt/internal/shareddata"
)

// Re-solving through load parameters gives the cost, dispatch and LMPs of an
// OPF rebuilt with the same loads (OPFOptions.Load), in both formulations,
// with the case's costs and with linear costs (an LP, warm-started from the
// previous HiGHS basis).
func TestParamOPFMatchesRebuild(t *testing.T) {
	n := loadNet(t, shareddata.Path(t, "pglib/pglib_opf_case118_ieee.m"), PowerModelsDC())
	rng := rand.New(rand.NewPCG(24, 1))
	for _, f := range []Formulation{PTDF, BTheta} {
		for _, linear := range []bool{false, true} {
			po, err := n.BuildParamOPF(OPFOptions{Formulation: f, LinearCost: linear})
			if err != nil {
				t.Fatal(err)
			}
			if linear && !po.WarmStart() {
				t.Errorf("%v: an OPF with linear costs is an LP and should be warm-started", f)
			}
			for h, scale := range []float64{1, 0.9, 1.05, 0.95} {
				load := make([]float64, n.NumBuses())
				for i, d := range n.Load {
					load[i] = d * scale * (1 + 0.02*rng.NormFloat64())
				}
				if h > 0 {
					if err := po.SetLoad(load); err != nil {
						t.Fatal(err)
					}
				} else {
					copy(load, n.Load)
				}
				got, err := po.Solve(context.Background())
				if err != nil || !got.Status.OK() {
					t.Fatalf("%v hour %d: %v %v", f, h, err, got)
				}
				ref, err := n.BuildOPF(OPFOptions{Formulation: f, LinearCost: linear, Load: load})
				if err != nil {
					t.Fatal(err)
				}
				want, err := ref.Solve(context.Background())
				if err != nil || !want.Status.OK() {
					t.Fatalf("rebuild: %v %v", err, want)
				}
				if d := math.Abs(got.Cost - want.Cost); d > 1e-6*math.Abs(want.Cost) {
					t.Errorf("%v linear=%v hour %d: cost %.9g, rebuild %.9g", f, linear, h, got.Cost, want.Cost)
				}
				for i := range got.LMP {
					if d := math.Abs(got.LMP[i] - want.LMP[i]); d > 1e-4*(1+math.Abs(want.LMP[i])) {
						t.Errorf("%v linear=%v hour %d: LMP[%d] %.6g, rebuild %.6g", f, linear, h, i, got.LMP[i], want.LMP[i])
						break
					}
				}
				checkDispatchFeasible(t, "case118", n, got, load)
			}
			po.Close()
		}
	}
}
