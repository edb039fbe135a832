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

// func normInfAsm(v *float64, n int) float64
//
// max_i |v_i| over n entries, two at a time (SSE2: the absolute values by
// a sign mask, MAXPD, and an unordered self-comparison that flags NaN);
// NaN if an entry is NaN. The maximum of exact absolute values is exact, so
// the result equals normInf's loop.
TEXT ·normInfAsm(SB), NOSPLIT, $0-24
	MOVQ       v+0(FP), SI
	MOVQ       n+8(FP), CX
	MOVQ       $0x7FFFFFFFFFFFFFFF, AX
	MOVQ       AX, X3
	PUNPCKLQDQ X3, X3
	XORPS      X0, X0
	XORPS      X1, X1
	XORQ       DX, DX
	MOVQ       CX, R8
	ANDQ       $-2, R8
	CMPQ       DX, R8
	JGE        ntail

npair:
	MOVUPD (SI)(DX*8), X4
	ANDPD  X3, X4
	MOVAPD X4, X5
	CMPPD  X5, X5, $3
	ORPD   X5, X1
	MAXPD  X4, X0
	ADDQ   $2, DX
	CMPQ   DX, R8
	JLT    npair

ntail:
	CMPQ   DX, CX
	JGE    nfin
	MOVSD  (SI)(DX*8), X4
	ANDPD  X3, X4
	MOVAPD X4, X5
	CMPPD  X5, X5, $3
	ORPD   X5, X1
	MAXPD  X4, X0

nfin:
	MOVAPD   X0, X6
	UNPCKHPD X6, X6
	MAXSD    X6, X0
	MOVMSKPD X1, AX
	TESTQ    AX, AX
	JNE      nnan
	MOVSD    X0, ret+16(FP)
	RET

nnan:
	MOVQ $0x7FF8000000000001, AX
	MOVQ AX, ret+16(FP)
	RET

// func absMulKColsAsm(out, x *float64, ncols int, colPtr, rowIdx *int, val, sgn *float64, eps float64)
//
// out += |K₀|·|x| over all columns, in expAbsResidualBound's order: per
// column j, over the entries above the diagonal out[i] += |a|·|x_j| then
// out[j] += |a|·|x_i|, then the diagonal out[j] += |K_jj − eps·sgn_j|·|x_j|
// (every column stores its diagonal last).
TEXT ·absMulKColsAsm(SB), NOSPLIT, $0-64
	MOVQ       out+0(FP), DI
	MOVQ       x+8(FP), SI
	MOVQ       ncols+16(FP), R9
	MOVQ       colPtr+24(FP), R10
	MOVQ       rowIdx+32(FP), R11
	MOVQ       val+40(FP), BX
	MOVQ       sgn+48(FP), R12
	MOVSD      eps+56(FP), X7
	MOVQ       $0x7FFFFFFFFFFFFFFF, AX
	MOVQ       AX, X6
	XORQ       R8, R8
	CMPQ       R8, R9
	JGE        adone

acol:
	MOVSD (SI)(R8*8), X0
	ANDPD X6, X0               // |x_j|
	MOVQ  (R10)(R8*8), CX
	MOVQ  8(R10)(R8*8), DX
	DECQ  DX                   // the diagonal
	CMPQ  CX, DX
	JGE   adiag

aoff:
	MOVQ  (R11)(CX*8), AX      // i
	MOVSD (BX)(CX*8), X2
	ANDPD X6, X2               // |a|
	MOVSD X2, X3
	MULSD X0, X3               // |a|·|x_j|
	MOVSD (DI)(AX*8), X4
	ADDSD X3, X4
	MOVSD X4, (DI)(AX*8)       // out[i] += |a|·|x_j|
	MOVSD (SI)(AX*8), X3
	ANDPD X6, X3               // |x_i|
	MULSD X3, X2               // |a|·|x_i|
	MOVSD (DI)(R8*8), X4
	ADDSD X2, X4
	MOVSD X4, (DI)(R8*8)       // out[j] += |a|·|x_i|
	INCQ  CX
	CMPQ  CX, DX
	JLT   aoff

adiag:
	MOVSD (BX)(DX*8), X2
	MOVSD (R12)(R8*8), X3
	MULSD X7, X3
	SUBSD X3, X2
	ANDPD X6, X2               // |K_jj − eps·sgn_j|
	MULSD X0, X2
	MOVSD (DI)(R8*8), X4
	ADDSD X2, X4
	MOVSD X4, (DI)(R8*8)
	INCQ  R8
	CMPQ  R8, R9
	JLT   acol

adone:
	RET

// func subNormInfAsm(res, b *float64, n int) float64
//
// res[i] = b[i] − res[i] for i < n, two at a time (SUBPD rounds as the
// scalar difference), and returns max_i |res[i]|, NaN if one is NaN
// (normInfAsm's rule).
TEXT ·subNormInfAsm(SB), NOSPLIT, $0-32
	MOVQ       res+0(FP), DI
	MOVQ       b+8(FP), SI
	MOVQ       n+16(FP), CX
	MOVQ       $0x7FFFFFFFFFFFFFFF, AX
	MOVQ       AX, X3
	PUNPCKLQDQ X3, X3
	XORPS      X0, X0
	XORPS      X1, X1
	XORQ       DX, DX
	MOVQ       CX, R8
	ANDQ       $-2, R8
	CMPQ       DX, R8
	JGE        stail

spair:
	MOVUPD (SI)(DX*8), X4
	MOVUPD (DI)(DX*8), X5
	SUBPD  X5, X4
	MOVUPD X4, (DI)(DX*8)
	ANDPD  X3, X4
	MOVAPD X4, X5
	CMPPD  X5, X5, $3
	ORPD   X5, X1
	MAXPD  X4, X0
	ADDQ   $2, DX
	CMPQ   DX, R8
	JLT    spair

stail:
	CMPQ   DX, CX
	JGE    sfin
	MOVSD  (SI)(DX*8), X4
	SUBSD  (DI)(DX*8), X4
	MOVSD  X4, (DI)(DX*8)
	ANDPD  X3, X4
	MOVAPD X4, X5
	CMPPD  X5, X5, $3
	ORPD   X5, X1
	MAXPD  X4, X0

sfin:
	MOVAPD   X0, X6
	UNPCKHPD X6, X6
	MAXSD    X6, X0
	MOVMSKPD X1, AX
	TESTQ    AX, AX
	JNE      snan
	MOVSD    X0, ret+24(FP)
	RET

snan:
	MOVQ $0x7FF8000000000001, AX
	MOVQ AX, ret+24(FP)
	RET
