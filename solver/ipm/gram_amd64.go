package ipm

import "golang.org/x/sys/cpu"

// haveFMA reports whether dot4x2FMA can run: x86-64 with AVX2 and FMA3.
var haveFMA = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// dot4x2FMA (gram_amd64.s) computes the eight dot products a_r·b_s (r < 4,
// s < 2) over the first n elements, n a multiple of 4, with 256-bit fused
// multiply-adds; out[4(2r+s):4(2r+s)+4] receives four partial sums of a_r·b_s.
//
//go:noescape
func dot4x2FMA(a0, a1, a2, a3, b0, b1 *float64, n int, out *[32]float64)
