package ipm

import "math"

// expBarrierSum returns f*(z) + f(s) for the exponential cone's barriers
// (expBarriers: f*(u,v,w) = −log ψ − log(−u) − log w with
// ψ = v − u − u·log(−w/u), f(x,y,z) = −log φ − log y − log z with
// φ = y·log(z/y) − x), +Inf outside int K* × int K: the value of
// dualValue(z) + primalValue(s) with three logarithms instead of eight. The
// six positive factors are multiplied and one logarithm taken of the
// product, −log(ψ·(−u)·w·φ·y·z); when a factor lies outside
// [expFactorMin, expFactorMax] (where a partial product could underflow
// or overflow) the terms are taken one by one as before. The centrality
// test of the dual scaling (workspace.centrality) evaluates this for every
// cone at every trial step.
func expBarrierSum(zv, sv *[3]float64) float64 {
	u, v, w := zv[0], zv[1], zv[2]
	x, y, z := sv[0], sv[1], sv[2]
	if !(u < 0 && w > 0 && y > 0 && z > 0) {
		return math.Inf(1)
	}
	psi := v - u - u*math.Log(-w/u)
	phi := y*math.Log(z/y) - x
	if !(psi > 0 && phi > 0) {
		return math.Inf(1)
	}
	if expNormal(psi) && expNormal(-u) && expNormal(w) && expNormal(phi) && expNormal(y) && expNormal(z) {
		return -math.Log(psi * (-u) * w * phi * y * z)
	}
	return -math.Log(psi) - math.Log(-u) - math.Log(w) - math.Log(phi) - math.Log(y) - math.Log(z)
}

// expNormal reports whether a positive factor of expBarrierSum lies in
// [expFactorMin, expFactorMax]. With six such factors every partial product
// lies in [1e−300, 1e300], inside the normal range of float64, so the
// product has a relative error of at most 5 roundings and its logarithm
// differs from the sum of the six logarithms by about 5·2⁻⁵³ (plus the
// rounding of the sum itself).
func expNormal(v float64) bool { return v >= expFactorMin && v <= expFactorMax }

const (
	expFactorMin = 1e-50
	expFactorMax = 1e50
)
