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
