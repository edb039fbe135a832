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
// 3 basic linear algebra subprograms", ACM TOMS 16(1), 1990) with c.N = a.Rows.
// On x86-64 with AVX2 and FMA3 the entries are computed in register blocks of
// 4×2 dot products (dot4x2FMA: six vector loads per eight fused
// multiply-adds, against two loads per multiply-add of a dot product at a
// time), with the rows j tiled by gramTile so that the block of rows b_j
// being dotted stays in the L2 cache while the rows a_i stream past; about
// four times gonum's Syrk on the dense Schur rule's panels (BenchmarkGramUpper).
// Elsewhere it is gonum's Syrk. The lower triangle of c is not referenced.
func gramUpper(c blas64.Symmetric, a blas64.General) {
	if !haveFMA {
		c.Uplo = blas.Upper
		blas64.Syrk(blas.NoTrans, 1, a, 1, c)
		return
	}
	rows, k, lda := a.Rows, a.Cols, a.Stride
	if rows == 0 || k == 0 {
		return
	}
	k4 := k &^ 3
	var acc [32]float64
	var ap [4][]float64
	for j0 := 0; j0 < rows; j0 += gramTile {
		j1 := min(j0+gramTile, rows)
		for i := 0; i < j1; i += 4 {
			ni := min(4, rows-i)
			for r := range ap {
				rr := min(i+r, rows-1) // rows past the end repeat the last one, unused
				ap[r] = a.Data[rr*lda : rr*lda+k]
			}
			for j := max(j0, i&^1); j < j1; j += 2 {
				nj := min(2, rows-j)
				b0 := a.Data[j*lda : j*lda+k]
				j2 := min(j+1, rows-1)
				b1 := a.Data[j2*lda : j2*lda+k]
				if k4 > 0 {
					dot4x2FMA(&ap[0][0], &ap[1][0], &ap[2][0], &ap[3][0], &b0[0], &b1[0], k4, &acc)
				} else {
					clear(acc[:])
				}
				for r := 0; r < ni; r++ {
					for s := 0; s < nj; s++ {
						if i+r > j+s {
							continue
						}
						q := (2*r + s) * 4
						v := (acc[q] + acc[q+1]) + (acc[q+2] + acc[q+3])
						bs := b0
						if s == 1 {
							bs = b1
						}
						for p := k4; p < k; p++ {
							v += ap[r][p] * bs[p]
						}
						c.Data[(i+r)*c.Stride+j+s] += v
					}
				}
			}
		}
	}
}

// gramTile is the number of rows b_j per tile of gramUpper: 128 rows of a
// schurPanel-wide panel are 256 KB, within an L2 cache.
const gramTile = 128
