#include "textflag.h"

// func update8x4FMA(c *float64, ldc int, l *float64, ldl int, w *float64, k int)
//
// C[0:8, 0:4] −= Σ_{t<k} L[0:8, t]·w[4t : 4t+4] with C and L column-major
// (column strides ldc and ldl, in elements), by 256-bit fused multiply-adds:
// accumulator 2j+h holds rows 4h..4h+3 of column j.
TEXT ·update8x4FMA(SB), NOSPLIT, $0-48
	MOVQ c+0(FP), DI
	MOVQ ldc+8(FP), R8
	MOVQ l+16(FP), SI
	MOVQ ldl+24(FP), R9
	MOVQ w+32(FP), DX
	MOVQ k+40(FP), CX
	SHLQ $3, R8
	SHLQ $3, R9
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	TESTQ CX, CX
	JZ    store

loop:
	VMOVUPD      (SI), Y8
	VMOVUPD      32(SI), Y9
	VBROADCASTSD (DX), Y10
	VFMADD231PD  Y8, Y10, Y0
	VFMADD231PD  Y9, Y10, Y1
	VBROADCASTSD 8(DX), Y11
	VFMADD231PD  Y8, Y11, Y2
	VFMADD231PD  Y9, Y11, Y3
	VBROADCASTSD 16(DX), Y10
	VFMADD231PD  Y8, Y10, Y4
	VFMADD231PD  Y9, Y10, Y5
	VBROADCASTSD 24(DX), Y11
	VFMADD231PD  Y8, Y11, Y6
	VFMADD231PD  Y9, Y11, Y7
	ADDQ         R9, SI
	ADDQ         $32, DX
	DECQ         CX
	JNZ          loop

store:
	VMOVUPD (DI), Y12
	VSUBPD  Y0, Y12, Y12
	VMOVUPD Y12, (DI)
	VMOVUPD 32(DI), Y13
	VSUBPD  Y1, Y13, Y13
	VMOVUPD Y13, 32(DI)
	ADDQ    R8, DI
	VMOVUPD (DI), Y12
	VSUBPD  Y2, Y12, Y12
	VMOVUPD Y12, (DI)
	VMOVUPD 32(DI), Y13
	VSUBPD  Y3, Y13, Y13
	VMOVUPD Y13, 32(DI)
	ADDQ    R8, DI
	VMOVUPD (DI), Y12
	VSUBPD  Y4, Y12, Y12
	VMOVUPD Y12, (DI)
	VMOVUPD 32(DI), Y13
	VSUBPD  Y5, Y13, Y13
	VMOVUPD Y13, 32(DI)
	ADDQ    R8, DI
	VMOVUPD (DI), Y12
	VSUBPD  Y6, Y12, Y12
	VMOVUPD Y12, (DI)
	VMOVUPD 32(DI), Y13
	VSUBPD  Y7, Y13, Y13
	VMOVUPD Y13, 32(DI)
	VZEROUPPER
	RET

// func subMul4AVX(dst, s0, s1, s2, s3 *float64, n int, c *[4]float64)
//
// dst[a] −= c0·s0[a] + c1·s1[a] + c2·s2[a] + c3·s3[a] for a < n (n a
// multiple of 4), four elements at a time with 256-bit AVX multiplies and
// additions in the order of the scalar expression (((c0s0 + c1s1) + c2s2)
// + c3s3, no fused multiply-add): the same rounding as subMulCols's loop.
TEXT ·subMul4AVX(SB), NOSPLIT, $0-56
	MOVQ         dst+0(FP), DI
	MOVQ         s0+8(FP), R8
	MOVQ         s1+16(FP), R9
	MOVQ         s2+24(FP), R10
	MOVQ         s3+32(FP), R11
	MOVQ         n+40(FP), CX
	MOVQ         c+48(FP), SI
	VBROADCASTSD 0(SI), Y0
	VBROADCASTSD 8(SI), Y1
	VBROADCASTSD 16(SI), Y2
	VBROADCASTSD 24(SI), Y3
	XORQ         AX, AX
	SHRQ         $2, CX
	JZ           smdone

smloop:
	VMULPD  (R8)(AX*8), Y0, Y4
	VMULPD  (R9)(AX*8), Y1, Y5
	VADDPD  Y5, Y4, Y4
	VMULPD  (R10)(AX*8), Y2, Y5
	VADDPD  Y5, Y4, Y4
	VMULPD  (R11)(AX*8), Y3, Y5
	VADDPD  Y5, Y4, Y4
	VMOVUPD (DI)(AX*8), Y6
	VSUBPD  Y4, Y6, Y6
	VMOVUPD Y6, (DI)(AX*8)
	ADDQ    $4, AX
	DECQ    CX
	JNZ     smloop

smdone:
	VZEROUPPER
	RET

// func addScaledAVX(dst, src *float64, n int, a float64)
//
// dst[i] += src[i]·a for i < n (n a multiple of 4), four at a time with
// 256-bit AVX: a product and a sum, each rounded, as the scalar loop.
TEXT ·addScaledAVX(SB), NOSPLIT, $0-32
	MOVQ         dst+0(FP), DI
	MOVQ         src+8(FP), SI
	MOVQ         n+16(FP), CX
	VBROADCASTSD a+24(FP), Y0
	XORQ         AX, AX
	SHRQ         $2, CX
	JZ           asdone

asloop:
	VMULPD  (SI)(AX*8), Y0, Y1
	VADDPD  (DI)(AX*8), Y1, Y1
	VMOVUPD Y1, (DI)(AX*8)
	ADDQ    $4, AX
	DECQ    CX
	JNZ     asloop

asdone:
	VZEROUPPER
	RET
