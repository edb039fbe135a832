package cone

import (
	"math/rand/v2"
	"testing"
)

func BenchmarkProject(b *testing.B) {
	cones := []Cone{NewSecondOrder(37), NewRotatedSecondOrder(37), NewPSD(10), NewPSD(50),
		NewExponential(), NewDualExponential(), NewPower(0.3)}
	for _, c := range cones {
		b.Run(c.String(), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(7, 8))
			pts := make([][]float64, 64)
			for i := range pts {
				pts[i] = randPoint(rng, c.Dim)
			}
			dst := make([]float64, c.Dim)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := c.Project(dst, pts[i%len(pts)]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
