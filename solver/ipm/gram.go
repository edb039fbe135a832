package ipm

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// gramUpper adds the Gram matrix of the rows of a to the upper triangle of c,
//
//	c_ij += Σ_k a_ik a_jk  (i ≤ j),
//
// the rank-k update C += A·Aᵀ of BLAS dsyrk (Dongarra et al., "A set of level
// 3 basic linear algebra subprograms", ACM TOMS 16(1), 1990) with c.N = a.Rows:
// addMulNT with fused multiply-adds where available (about four times
// gonum's Syrk on the dense Schur rule's panels, BenchmarkGramUpper), else
// gonum's Syrk. The lower triangle of c is not referenced.
func gramUpper(c blas64.Symmetric, a blas64.General) {
	if !haveFMA {
		c.Uplo = blas.Upper
		blas64.Syrk(blas.NoTrans, 1, a, 1, c)
		return
	}
	addMulNT(c.Data, c.Stride, a, a, true)
}

// addMulNT adds the product of a and bᵀ to c (row-major, stride ldc),
//
//	c_ij += Σ_k a_ik b_jk,  0 ≤ i < a.Rows, 0 ≤ j < b.Rows (a.Cols = b.Cols),
//
// BLAS dgemm's C += A·Bᵀ, or only the entries i ≤ j when upper (the others
// are not referenced). Every entry is a dot product of a row of a with a row
// of b, both contiguous; they are computed in register blocks of 4×2
// (dot4x2FMA: six vector loads per eight fused multiply-adds, against two
// loads per multiply-add of one dot product at a time), with the rows of b
// tiled by gramTile so that the tile being dotted stays in the L2 cache while
// the rows of a stream past. It requires haveFMA.
func addMulNT(c []float64, ldc int, a, b blas64.General, upper bool) {
	rows, cols, k := a.Rows, b.Rows, a.Cols
	if rows == 0 || cols == 0 || k == 0 {
		return
	}
	if b.Cols != k {
		panic("ipm: addMulNT: a.Cols ≠ b.Cols")
	}
	k4 := k &^ 3
	var acc [32]float64
	var ap [4][]float64
	var bp [2][]float64
	for j0 := 0; j0 < cols; j0 += gramTile {
		j1 := min(j0+gramTile, cols)
		iEnd := rows
		if upper {
			iEnd = min(rows, j1)
		}
		for i := 0; i < iEnd; i += 4 {
			ni := min(4, rows-i)
			for r := range ap {
				rr := min(i+r, rows-1) // rows past the end repeat the last one, unused
				ap[r] = a.Data[rr*a.Stride : rr*a.Stride+k]
			}
			jStart := j0
			if upper {
				jStart = max(j0, i&^1)
			}
			for j := jStart; j < j1; j += 2 {
				nj := min(2, cols-j)
				for s := range bp {
					ss := min(j+s, cols-1)
					bp[s] = b.Data[ss*b.Stride : ss*b.Stride+k]
				}
				if k4 > 0 {
					dot4x2FMA(&ap[0][0], &ap[1][0], &ap[2][0], &ap[3][0], &bp[0][0], &bp[1][0], k4, &acc)
				} else {
					clear(acc[:])
				}
				for r := 0; r < ni; r++ {
					for s := 0; s < nj; s++ {
						if upper && i+r > j+s {
							continue
						}
						q := (2*r + s) * 4
						v := (acc[q] + acc[q+1]) + (acc[q+2] + acc[q+3])
						ar, bs := ap[r], bp[s]
						for p := k4; p < k; p++ {
							v += ar[p] * bs[p]
						}
						c[(i+r)*ldc+j+s] += v
					}
				}
			}
		}
	}
}

// gramTile is the number of rows of b per tile of addMulNT: 128 rows of a
// schurPanel-wide panel are 256 KB, within an L2 cache.
const gramTile = 128
