#include "textflag.h"

// func solveSimplicialAsm(x *float64, n int, lp, li *int, lx, dinv *float64)
//
// x ← (L D Lᵀ)⁻¹ x for a simplicial factor (column pointers lp, row indices
// li, values lx of the strictly lower part of L; dinv = 1/D): the loops of
// solvePermuted's Go form with the diagonal pass fused into the forward one
// (x[j] is final once column j is reached), each entry receiving the same
// operations in the same order (products, then differences; no fused
// multiply-add), so the result is the same to the last bit.
TEXT ·solveSimplicialAsm(SB), NOSPLIT, $0-48
	MOVQ x+0(FP), DI
	MOVQ n+8(FP), R8
	MOVQ lp+16(FP), R9
	MOVQ li+24(FP), SI
	MOVQ lx+32(FP), BX
	MOVQ dinv+40(FP), R10
	TESTQ R8, R8
	JLE  sdone
	XORPS X7, X7
	XORQ R11, R11

fwd:
	// x[li[p]] −= lx[p]·x[j] over column j, unless x[j] == 0; then
	// x[j] ·= 1/D(j) (the diagonal pass, fused: x[j] is final here)
	MOVSD   (DI)(R11*8), X0
	UCOMISD X7, X0
	JNE     fwdgo
	JPS     fwdgo
	JMP     fwdnext

fwdgo:
	MOVQ (R9)(R11*8), CX
	MOVQ 8(R9)(R11*8), DX
	CMPQ CX, DX
	JGE  fwdnext

fwdloop:
	MOVQ  (SI)(CX*8), AX
	MOVSD (BX)(CX*8), X1
	MULSD X0, X1
	MOVSD (DI)(AX*8), X2
	SUBSD X1, X2
	MOVSD X2, (DI)(AX*8)
	INCQ  CX
	CMPQ  CX, DX
	JLT   fwdloop

fwdnext:
	MULSD (R10)(R11*8), X0
	MOVSD X0, (DI)(R11*8)
	INCQ  R11
	CMPQ  R11, R8
	JLT   fwd

	// x[j] = x[j] − Σ lx[p]·x[li[p]], j from n−1 down
	MOVQ R8, R11

bwd:
	DECQ R11
	JMI  sdone
	MOVSD (DI)(R11*8), X0
	MOVQ  (R9)(R11*8), CX
	MOVQ  8(R9)(R11*8), DX
	CMPQ  CX, DX
	JGE   bwdstore

bwdloop:
	MOVQ  (SI)(CX*8), AX
	MOVSD (BX)(CX*8), X1
	MULSD (DI)(AX*8), X1
	SUBSD X1, X0
	INCQ  CX
	CMPQ  CX, DX
	JLT   bwdloop

bwdstore:
	MOVSD X0, (DI)(R11*8)
	JMP   bwd

sdone:
	RET

// func numericRowsAsm(k0, k1 int, cp, ci *int, cx *float64, rowPtr, rowPat, lpos, lp, li *int, lx, y, dinv, d, sg *float64, eps, delta float64) (nreg int)
//
// Rows k0 ≤ k < k1 of the up-looking factorization replayed over the
// recorded schedule (Factor.numericReplay's Go form, the same operations in
// the same order): scatter column k of C into y, then for each i of row k's
// pattern rowPat[rowPtr[k]:rowPtr[k+1]] the update y[li[p]] −= lx[p]·y_i over
// L's column i up to lpos (the position L(k,i) takes), L(k,i) = y_i·dinv[i],
// D(k) −= L(k,i)·y_i; then the pivot rule (sg[k]·D(k) ≥ eps, else
// D(k) = sg[k]·delta, counted in nreg) and dinv[k] = 1/D(k).
TEXT ·numericRowsAsm(SB), NOSPLIT, $0-144
	MOVQ $0, nreg+136(FP)
	MOVQ k0+0(FP), R8
	MOVQ y+88(FP), DI
	MOVQ li+72(FP), SI
	MOVQ lx+80(FP), BX
	MOVQ dinv+96(FP), R14

row:
	CMPQ R8, k1+8(FP)
	JGE  ndone

	// y[ci[p]] += cx[p] over column k of C
	MOVQ cp+16(FP), AX
	MOVQ (AX)(R8*8), CX
	MOVQ 8(AX)(R8*8), DX
	MOVQ ci+24(FP), R10
	MOVQ cx+32(FP), R11
	CMPQ CX, DX
	JGE  scdone

scloop:
	MOVQ  (R10)(CX*8), AX
	MOVSD (DI)(AX*8), X0
	ADDSD (R11)(CX*8), X0
	MOVSD X0, (DI)(AX*8)
	INCQ  CX
	CMPQ  CX, DX
	JLT   scloop

scdone:
	MOVSD (DI)(R8*8), X1
	MOVQ  $0, (DI)(R8*8)
	MOVQ  rowPtr+40(FP), AX
	MOVQ  (AX)(R8*8), R12
	MOVQ  8(AX)(R8*8), R13
	MOVQ  rowPat+48(FP), R10
	MOVQ  lpos+56(FP), R11
	MOVQ  lp+64(FP), R9
	CMPQ  R12, R13
	JGE   pivot

pat:
	MOVQ  (R10)(R12*8), AX
	MOVQ  (R11)(R12*8), DX
	MOVQ  (R9)(AX*8), CX
	MOVSD (DI)(AX*8), X2
	MOVQ  $0, (DI)(AX*8)
	MOVSD (R14)(AX*8), X3
	CMPQ  CX, DX
	JGE   updone

uploop:
	MOVQ  (SI)(CX*8), AX
	MOVSD (BX)(CX*8), X4
	MULSD X2, X4
	MOVSD (DI)(AX*8), X5
	SUBSD X4, X5
	MOVSD X5, (DI)(AX*8)
	INCQ  CX
	CMPQ  CX, DX
	JLT   uploop

updone:
	MULSD X2, X3
	MOVSD X3, X4
	MULSD X2, X4
	SUBSD X4, X1
	MOVSD X3, (BX)(DX*8)
	INCQ  R12
	CMPQ  R12, R13
	JLT   pat

pivot:
	MOVQ    sg+112(FP), AX
	MOVSD   (AX)(R8*8), X6
	MOVSD   X6, X7
	MULSD   X1, X7
	MOVSD   eps+120(FP), X8
	UCOMISD X8, X7
	JCC     pivok
	MOVSD   delta+128(FP), X1
	MULSD   X6, X1
	INCQ    nreg+136(FP)

pivok:
	MOVQ  d+104(FP), AX
	MOVSD X1, (AX)(R8*8)
	MOVSD $(1.0), X9
	DIVSD X1, X9
	MOVSD X9, (R14)(R8*8)
	INCQ  R8
	JMP   row

ndone:
	RET

// func solvePermAsm(dst, b, x *float64, perm *int, n int, lp, li *int, lx, dinv *float64)
//
// Factor.Solve's simplicial path in one pass structure: x[k] = b[perm[k]],
// then solveSimplicialAsm's loops on x, with the final scatter
// dst[perm[j]] = x[j] fused into the backward loop (x[j] is final there).
// The operations on every entry are those of the separate loops. dst may
// alias b: b is read completely before dst is written.
TEXT ·solvePermAsm(SB), NOSPLIT, $0-72
	MOVQ x+16(FP), DI
	MOVQ b+8(FP), SI
	MOVQ perm+24(FP), R12
	MOVQ n+32(FP), R8
	TESTQ R8, R8
	JLE  pdone2
	XORQ DX, DX

pgather:
	MOVQ (R12)(DX*8), AX
	MOVQ (SI)(AX*8), BX
	MOVQ BX, (DI)(DX*8)
	INCQ DX
	CMPQ DX, R8
	JLT  pgather

	MOVQ  lp+40(FP), R9
	MOVQ  li+48(FP), SI
	MOVQ  lx+56(FP), BX
	MOVQ  dinv+64(FP), R10
	MOVQ  dst+0(FP), R13
	XORPS X7, X7
	XORQ  R11, R11
	MOVQ  (R9), CX             // lp[0]

pfwd:
	MOVQ    8(R9)(R11*8), DX   // lp[j+1]
	MOVSD   (DI)(R11*8), X0
	UCOMISD X7, X0
	JNE     pfwdgo
	JPS     pfwdgo
	JMP     pfwdnext

pfwdgo:
	CMPQ CX, DX
	JGE  pfwdnext

pfwdloop:
	MOVQ  (SI)(CX*8), AX
	MOVSD (BX)(CX*8), X1
	MULSD X0, X1
	MOVSD (DI)(AX*8), X2
	SUBSD X1, X2
	MOVSD X2, (DI)(AX*8)
	INCQ  CX
	CMPQ  CX, DX
	JLT   pfwdloop

pfwdnext:
	MOVQ  DX, CX               // lp[j+1] is the next column's start
	MULSD (R10)(R11*8), X0
	MOVSD X0, (DI)(R11*8)
	INCQ  R11
	CMPQ  R11, R8
	JLT   pfwd

	// backward, from n−1: CX holds lp[n]
	MOVQ R8, R11

pbwd:
	DECQ  R11
	JMI   pdone2
	MOVQ  CX, DX               // lp[j+1]
	MOVQ  (R9)(R11*8), CX      // lp[j]
	MOVSD (DI)(R11*8), X0
	CMPQ  CX, DX
	JGE   pbwdstore
	MOVQ  CX, R14

pbwdloop:
	MOVQ  (SI)(R14*8), AX
	MOVSD (BX)(R14*8), X1
	MULSD (DI)(AX*8), X1
	SUBSD X1, X0
	INCQ  R14
	CMPQ  R14, DX
	JLT   pbwdloop

pbwdstore:
	MOVSD X0, (DI)(R11*8)
	MOVQ  (R12)(R11*8), AX
	MOVSD X0, (R13)(AX*8)
	JMP   pbwd

pdone2:
	RET
