package ldl

import "golang.org/x/sys/cpu"

// haveFMA reports whether update8x4FMA can run: x86-64 with AVX2 and FMA3.
var haveFMA = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// update8x4FMA (kernel_amd64.s) computes C[0:8, 0:4] −= Σ_{t<k}
// L[0:8, t]·w[4t:4t+4] with C and L column-major (column strides ldc and ldl
// elements) by 256-bit fused multiply-adds.
//
//go:noescape
func update8x4FMA(c *float64, ldc int, l *float64, ldl int, w *float64, k int)

// haveAVX reports whether subMul4AVX can run: x86-64 with AVX.
var haveAVX = cpu.X86.HasAVX

// subMul4AVX (kernel_amd64.s) computes dst[a] −= c[0]·s0[a] + c[1]·s1[a] +
// c[2]·s2[a] + c[3]·s3[a] for a < n, n a multiple of 4, with 256-bit AVX
// arithmetic rounded exactly as the scalar expression (evaluated left to
// right, no fused multiply-add).
//
//go:noescape
func subMul4AVX(dst, s0, s1, s2, s3 *float64, n int, c *[4]float64)

// addScaledAVX (kernel_amd64.s) computes dst[i] += src[i]·a for i < n, n a
// multiple of 4, with 256-bit AVX arithmetic rounded as the scalar loop (a
// product, then a sum; no fused multiply-add).
//
//go:noescape
func addScaledAVX(dst, src *float64, n int, a float64)
