package ipm

import "math"

// expStepLength is nonsymCone.stepLength for the exponential cone with the
// membership tests of expBarriers (dualIn, primalIn) written out on local
// variables: the same backtracking (factor 0.8, at most 100 steps each), the
// same trial points and tests, without an interface call and three stores
// and loads of a scratch vector per trial. On small exp-cone problems the
// step length is a loop over every cone of every iteration (measured: 2% of
// the instructions of an exp-family solve at n = 50 saved, BENCHMARKS.md,
// "Small exp-cone solves: factorization and refinement, round 13").
func expStepLength(dz, ds, z, s []float64, amax float64) (float64, float64) {
	const backtrack = 0.8
	dz, ds, z, s = dz[:3], ds[:3], z[:3], s[:3]
	az := amax
	for k := 0; k < 100; k++ {
		u, v, w := z[0]+az*dz[0], z[1]+az*dz[1], z[2]+az*dz[2]
		if u < 0 && w > 0 && v-u-u*math.Log(-w/u) > 0 {
			break
		}
		az *= backtrack
	}
	as := amax
	for k := 0; k < 100; k++ {
		x, y, zz := s[0]+as*ds[0], s[1]+as*ds[1], s[2]+as*ds[2]
		if y > 0 && zz > 0 && y*math.Log(zz/y)-x > 0 {
			break
		}
		as *= backtrack
	}
	return az, as
}
