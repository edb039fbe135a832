package ipm

import "math"

// expStepLength is nonsymCone.stepLength for the exponential cone with the
// membership tests of expBarriers (dualIn, primalIn) written out on local
// variables: the same backtracking (factor 0.8, at most 100 steps each),
// with bisect the same stepBisections bisections between the first
// backtracking step inside the cone and the one before it, the same trial
// points and tests, without an interface call and three stores and loads of
// a scratch vector per trial. On small exp-cone problems the step length is
// a loop over every cone of every iteration (measured: 2% of the
// instructions of an exp-family solve at n = 50 saved, BENCHMARKS.md,
// "Small exp-cone solves: factorization and refinement, round 13").
func expStepLength(dz, ds, z, s []float64, amax float64, bisect bool) (float64, float64) {
	const backtrack = 0.8
	dz, ds, z, s = dz[:3], ds[:3], z[:3], s[:3]
	az := amax
	for k := 0; k < 100; k++ {
		if expDualIn(z[0]+az*dz[0], z[1]+az*dz[1], z[2]+az*dz[2]) {
			break
		}
		az *= backtrack
	}
	as := amax
	for k := 0; k < 100; k++ {
		if expPrimalIn(s[0]+as*ds[0], s[1]+as*ds[1], s[2]+as*ds[2]) {
			break
		}
		as *= backtrack
	}
	if !bisect {
		return az, as
	}
	if az < amax {
		lo, hi := az, math.Min(amax, az/backtrack)
		for k := 0; k < stepBisections; k++ {
			mid := 0.5 * (lo + hi)
			if expDualIn(z[0]+mid*dz[0], z[1]+mid*dz[1], z[2]+mid*dz[2]) {
				lo = mid
			} else {
				hi = mid
			}
		}
		az = lo
	}
	if as < amax {
		lo, hi := as, math.Min(amax, as/backtrack)
		for k := 0; k < stepBisections; k++ {
			mid := 0.5 * (lo + hi)
			if expPrimalIn(s[0]+mid*ds[0], s[1]+mid*ds[1], s[2]+mid*ds[2]) {
				lo = mid
			} else {
				hi = mid
			}
		}
		as = lo
	}
	return az, as
}

// expDualIn is expBarriers.dualIn on (u, v, w).
func expDualIn(u, v, w float64) bool {
	return u < 0 && w > 0 && v-u-u*math.Log(-w/u) > 0
}

// expPrimalIn is expBarriers.primalIn on (x, y, z).
func expPrimalIn(x, y, z float64) bool {
	return y > 0 && z > 0 && y*math.Log(z/y)-x > 0
}
