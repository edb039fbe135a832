#include "textflag.h"

// func rotateRowsAVX(x, y *float64, n int, c, s float64)
//
// The plane rotation (x, y) ← (c·x − s·y, s·x + c·y) on the first n elements
// (n a multiple of 4), four at a time with 256-bit AVX multiplies and
// additions: each element sees the same two products and one addition (no
// fused multiply-add) as the scalar loop, in the same order.
TEXT ·rotateRowsAVX(SB), NOSPLIT, $0-40
	MOVQ         x+0(FP), DI
	MOVQ         y+8(FP), SI
	MOVQ         n+16(FP), CX
	VBROADCASTSD c+24(FP), Y0
	VBROADCASTSD s+32(FP), Y1
	XORQ         AX, AX
	SHRQ         $2, CX
	JZ           done

loop:
	VMOVUPD (DI)(AX*8), Y2
	VMOVUPD (SI)(AX*8), Y3
	VMULPD  Y2, Y0, Y4
	VMULPD  Y3, Y1, Y5
	VSUBPD  Y5, Y4, Y4
	VMULPD  Y2, Y1, Y6
	VMULPD  Y3, Y0, Y7
	VADDPD  Y7, Y6, Y6
	VMOVUPD Y4, (DI)(AX*8)
	VMOVUPD Y6, (SI)(AX*8)
	ADDQ    $4, AX
	DECQ    CX
	JNZ     loop

done:
	VZEROUPPER
	RET
