package ldl

// AddScaled computes dst[i] += a·x[i] for i < len(x) (len(dst) ≥ len(x)),
// each element rounded as the scalar expression: one product, then one sum,
// no fused multiply-add. On x86-64 with AVX the leading multiple of 4
// elements of a vector of 8 or more go through a 256-bit kernel
// (addScaledAVX), so the result is the same to the last bit as the plain
// loop — and as gonum's AxpyUnitary, which rounds the same way — on every
// machine. The forward solve uses it, and the SDP kernels of solver/ipm
// whose results must not move.
func AddScaled(dst []float64, a float64, x []float64) {
	n := len(x)
	dst = dst[:n]
	i := 0
	if haveAVX && n >= 8 {
		i = n &^ 3
		addScaledAVX(&dst[0], &x[0], i, a)
	}
	for ; i < n; i++ {
		dst[i] += a * x[i]
	}
}
