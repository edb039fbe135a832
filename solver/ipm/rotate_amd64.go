package ipm

import "golang.org/x/sys/cpu"

// haveAVX reports whether rotateRowsAVX can run: x86-64 with AVX.
var haveAVX = cpu.X86.HasAVX

// rotateRowsAVX (rotate_amd64.s) applies the plane rotation
// (x, y) ← (c·x − s·y, s·x + c·y) to the first n elements of x and y, n a
// multiple of 4, with 256-bit AVX arithmetic that rounds each product and
// sum exactly as rotateRows's scalar loop does.
//
//go:noescape
func rotateRowsAVX(x, y *float64, n int, c, s float64)
