#include "textflag.h"

// func mulKColsAsm(out, x *float64, from, to int, colPtr, rowIdx *int, val, sgn *float64, eps float64)
//
// For each column j in [from, to): s = 0; over p in [colPtr[j], colPtr[j+1]−1)
// (the entries above the diagonal) out[i] += val[p]·x[j] and
// s += val[p]·x[i], i = rowIdx[p]; then out[j] += (val[hi] − eps·sgn[j])·x[j]
// and out[j] += s, hi = colPtr[j+1]−1 the diagonal. Products, then sums (no
// fused multiply-add), in mulKCols' order.
TEXT ·mulKColsAsm(SB), NOSPLIT, $0-72
	MOVQ  out+0(FP), DI
	MOVQ  x+8(FP), SI
	MOVQ  from+16(FP), R8
	MOVQ  to+24(FP), R9
	MOVQ  colPtr+32(FP), R10
	MOVQ  rowIdx+40(FP), R11
	MOVQ  val+48(FP), BX
	MOVQ  sgn+56(FP), R12
	MOVSD eps+64(FP), X7
	CMPQ  R8, R9
	JGE   done

col:
	MOVSD (SI)(R8*8), X0       // x_j
	MOVQ  (R10)(R8*8), CX      // p = lo
	MOVQ  8(R10)(R8*8), DX
	DECQ  DX                   // hi: the diagonal
	XORPS X1, X1               // s
	CMPQ  CX, DX
	JGE   diag

off:
	MOVQ  (R11)(CX*8), AX      // i
	MOVSD (BX)(CX*8), X2       // a
	MOVSD X2, X3
	MULSD X0, X3               // a·x_j
	MOVSD (DI)(AX*8), X4
	ADDSD X3, X4
	MOVSD X4, (DI)(AX*8)       // out[i] += a·x_j
	MULSD (SI)(AX*8), X2       // a·x_i
	ADDSD X2, X1               // s += a·x_i
	INCQ  CX
	CMPQ  CX, DX
	JLT   off

diag:
	MOVSD (BX)(DX*8), X2       // K_jj
	MOVSD (R12)(R8*8), X3
	MULSD X7, X3               // eps·sgn_j
	SUBSD X3, X2
	MULSD X0, X2               // (K_jj − eps·sgn_j)·x_j
	MOVSD (DI)(R8*8), X4
	ADDSD X2, X4
	ADDSD X1, X4
	MOVSD X4, (DI)(R8*8)
	INCQ  R8
	CMPQ  R8, R9
	JLT   col

done:
	RET
