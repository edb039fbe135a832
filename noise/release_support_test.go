package noise

import (
	"math"
	"testing"
)

// TestReleaseSupport: 20,000 safe releases of bounded noises at values with
// awkward low bits stay within ReleaseSupport (a deterministic property of
// every draw), and the truncated Laplace bound is within 0.2% of A.
func TestReleaseSupport(t *testing.T) {
	tl, _ := TruncatedLaplaceMechanism(Params{Epsilon: 1, Delta: 1e-3, Sensitivity: 1})
	pc, _ := NewPiecewiseConstant([]float64{-2, -0.5, 0, 0.25, 3}, []float64{0.1, 0.4, 0.3, 0.2})
	opt := &Mechanism{Name: "optimal", Params: Params{Epsilon: 1, Delta: 0.2, Sensitivity: 1}, Dist: pc}
	src := NewSeededSource(8)
	for _, m := range []*Mechanism{tl, opt} {
		lo, hi, err := m.ReleaseSupport(ReleaseOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 20000; i++ {
			v := 0.1 + float64(i)*1e-3/3
			x, err := m.Release(v, src, ReleaseOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if z := x - v; z < lo-1e-12 || z > hi+1e-12 {
				t.Fatalf("%s: noise %v outside [%v, %v]", m.Name, z, lo, hi)
			}
		}
	}
	_, hi, _ := tl.ReleaseSupport(ReleaseOptions{})
	if A := tl.Dist.(*TruncatedLaplace).Bound; hi < A || hi > A*1.002 {
		t.Errorf("release bound %v against A = %v", hi, A)
	}
	if lo, hi, _ := staircaseMust(t).ReleaseSupport(ReleaseOptions{}); !math.IsInf(lo, -1) || !math.IsInf(hi, 1) {
		t.Errorf("staircase support [%v, %v]", lo, hi)
	}
}

func staircaseMust(t *testing.T) *Mechanism {
	m, err := StaircaseMechanism(Params{Epsilon: 1, Sensitivity: 1}, L1())
	if err != nil {
		t.Fatal(err)
	}
	return m
}
