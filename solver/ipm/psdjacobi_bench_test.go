package ipm

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkScalingRoutes times the NT scaling's factorization of
// M = L₂ᵀL₁ by dgesvd (scalingFromSVD) and by one-sided Jacobi
// (scalingFromJacobi) at the orders of SDPLIB's small blocks.
func BenchmarkScalingRoutes(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{4, 6, 10, 16} {
		d := n * (n + 1) / 2
		s, z := randomPD(rng, n, 1e6), randomPD(rng, n, 1e6)
		c := newPSD(d)
		c.chol(c.l1, s)
		c.chol(c.l2, z)
		for _, jac := range []bool{false, true} {
			b.Run(fmt.Sprintf("n=%d/jacobi=%v", n, jac), func(b *testing.B) {
				for b.Loop() {
					c.m1.Mul(c.l2.T(), c.l1)
					if jac {
						c.scalingFromJacobi()
					} else {
						c.scalingFromSVD()
					}
				}
			})
		}
	}
}
