package ipm

import "math"

// sdpxEarlyMaxOrder: problems whose PSD blocks are all of order at most this
// (and that have only symmetric cones and are well scaled) stop the
// refinement of their KKT solves early, as the well-scaled problems with
// non-symmetric cones do (sdpxEarlyRefine).
var sdpxEarlyMaxOrder = 1 << 30

// sdpxEarlyRefine reports whether a problem's KKT solves may stop their
// iterative refinement at sdpxRefineStop instead of at round-off: it has at
// least one PSD block (of order ≥ 2), every PSD block is of order at most
// sdpxEarlyMaxOrder, no cone is non-symmetric, and its row equilibration
// factors span at most earlyRefineSpread (wellScaled).
func sdpxEarlyRefine(cones []conic, nonsym, wellScaled bool) bool {
	if nonsym || !wellScaled {
		return false
	}
	has := false
	for _, c := range cones {
		if pc, ok := c.(*psdCone); ok {
			if pc.n > sdpxEarlyMaxOrder {
				return false
			}
			has = true
		}
	}
	return has
}

// sdpxRefineStop is earlyRefineStop's residual for sdpxEarly problems: the
// smaller of refineRelMerit times the merit and nonsymRefineFrac times
// min(FeasTol, GapTol), the rule of the well-scaled non-symmetric problems.
func sdpxRefineStop(w *workspace) float64 {
	return math.Min(refineRelMerit*w.merit(), nonsymRefineFrac*math.Min(w.set.FeasTol, w.set.GapTol))
}

// sdpxRefineReduced refines the reduced solve xr of K_red·xr = br (solve's
// sparse-Schur path) against the exact operator mulReducedExact, at most
// ks.refine steps, and returns ‖br − K_red·xr‖∞. It stops at round-off
// (refineSolution) unless ks.refineRel > 0 (earlyRefineStop), where it also
// stops once the residual is below ks.refineRel·(1 + ‖br‖∞), and skips the
// residual itself by solveReduced's rule: when the first solve with this
// factorization needed no correction, its backward error
// ‖b − K_red·x‖∞/‖x‖∞ times ‖xr‖∞ of this solve below skipCheckMargin times
// the early-stop residual stands for the residual (returned as the
// estimate).
func (ks *kktSystem) sdpxRefineReduced(xr, br []float64) float64 {
	nb := normInf(br)
	enough := ks.refineRel * (1 + nb)
	if enough > 0 {
		first := ks.nsolves == 0
		ks.nsolves++
		if !first && ks.backErr > 0 {
			if est := ks.backErr * normInf(xr); est <= skipCheckMargin*enough {
				return est
			}
		}
		r, steps := refineSolutionNorm(xr, br, nb, enough, ks.res, ks.dx, ks.refine, ks.mulReducedExact, ks.solver.solve)
		if first && steps == 0 {
			if nx := normInf(xr); nx > 0 && r <= enough {
				ks.backErr = math.Max(r, math.SmallestNonzeroFloat64) / nx
			}
		}
		return r
	}
	r, _ := refineSolutionNorm(xr, br, nb, 0, ks.res, ks.dx, ks.refine, ks.mulReducedExact, ks.solver.solve)
	return r
}
