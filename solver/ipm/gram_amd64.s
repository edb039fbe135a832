#include "textflag.h"

// func dot4x2FMA(a0, a1, a2, a3, b0, b1 *float64, n int, out *[32]float64)
//
// Eight dot products a_r·b_s (r < 4, s < 2) over the first n elements (n a
// multiple of 4), with AVX2 fused multiply-adds: accumulator 2r+s holds four
// partial sums in out[4(2r+s) : 4(2r+s)+4].
TEXT ·dot4x2FMA(SB), NOSPLIT, $0-64
	MOVQ a0+0(FP), R8
	MOVQ a1+8(FP), R9
	MOVQ a2+16(FP), R10
	MOVQ a3+24(FP), R11
	MOVQ b0+32(FP), R12
	MOVQ b1+40(FP), R13
	MOVQ n+48(FP), CX
	MOVQ out+56(FP), DI
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	XORQ AX, AX
	SHRQ $2, CX
	JZ   done

loop:
	VMOVUPD     (R12)(AX*8), Y8
	VMOVUPD     (R13)(AX*8), Y9
	VMOVUPD     (R8)(AX*8), Y10
	VFMADD231PD Y8, Y10, Y0
	VFMADD231PD Y9, Y10, Y1
	VMOVUPD     (R9)(AX*8), Y11
	VFMADD231PD Y8, Y11, Y2
	VFMADD231PD Y9, Y11, Y3
	VMOVUPD     (R10)(AX*8), Y10
	VFMADD231PD Y8, Y10, Y4
	VFMADD231PD Y9, Y10, Y5
	VMOVUPD     (R11)(AX*8), Y11
	VFMADD231PD Y8, Y11, Y6
	VFMADD231PD Y9, Y11, Y7
	ADDQ        $4, AX
	DECQ        CX
	JNZ         loop

done:
	VMOVUPD Y0, 0(DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	VMOVUPD Y4, 128(DI)
	VMOVUPD Y5, 160(DI)
	VMOVUPD Y6, 192(DI)
	VMOVUPD Y7, 224(DI)
	VZEROUPPER
	RET
