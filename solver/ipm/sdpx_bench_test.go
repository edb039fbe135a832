package ipm

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/sparse"
)

// sdpxMaxCut is the max-cut relaxation stated over the matrix (the sdpx
// family of bench/smallconic): minimize ⟨C, X⟩ s.t. diag X + w·1 = 1,
// X ⪰ 0, w ≥ 0, with q = (svec C, β) and β = tr C + 1 (w = 0 at the
// optimum). C has each off-diagonal entry nonzero with probability ½,
// N(0, 1), and an N(0, 1) diagonal.
func sdpxMaxCut(rng *rand.Rand, r int) *solver.Problem {
	d := r * (r + 1) / 2
	nv, m := d+1, r+d+1
	t := sparse.NewTriplets(m, nv, 2*r+d+1)
	b := make([]float64, m)
	q := make([]float64, nv)
	beta := 1.0
	for j := 0; j < r; j++ {
		c := rng.NormFloat64()
		q[cone.SVecIndex(r, j, j)] = c
		beta += c
		for i := j + 1; i < r; i++ {
			if rng.IntN(2) == 0 {
				q[cone.SVecIndex(r, i, j)] = math.Sqrt2 * rng.NormFloat64()
			}
		}
	}
	for i := 0; i < r; i++ {
		t.Append(i, cone.SVecIndex(r, i, i), 1)
		t.Append(i, d, 1)
		b[i] = 1
	}
	for k := 0; k < d; k++ {
		t.Append(r+k, k, -1)
	}
	t.Append(m-1, d, -1)
	q[d] = beta
	cones := []cone.Cone{cone.NewZero(r), cone.NewPSD(r), cone.NewNonnegative(1)}
	return &solver.Problem{Q: q, A: t.ToCSC(), B: b, Cones: cones}
}

// BenchmarkSdpxMaxCut times whole solves of sdpxMaxCut (matrix) and of its
// LMI form (lmi) at block orders of smallconic's sdpx and sdp families.
func BenchmarkSdpxMaxCut(b *testing.B) {
	for _, r := range []int{3, 5, 6, 10, 20} {
		p := sdpxMaxCut(rand.New(rand.NewPCG(uint64(r), 7)), r)
		for _, form := range []string{"matrix", "lmi"} {
			q := p
			if form == "lmi" {
				q = sdpxMaxCutLMI(p, r)
			}
			b.Run(fmt.Sprintf("r=%d/%s", r, form), func(b *testing.B) {
				s := New()
				for b.Loop() {
					sol, err := s.Solve(context.Background(), q, solver.Settings{})
					if err != nil || sol.Status != solver.Optimal {
						b.Fatalf("status %v, err %v", sol.Status, err)
					}
				}
			})
		}
	}
}

// sdpxMaxCutLMI is the LMI form of sdpxMaxCut's relaxation for the same C
// (read back from its q): minimize −Σ yᵢ s.t. C − Diag(y) ⪰ 0, whose optimum
// is minus sdpxMaxCut's (the two are a primal–dual pair, both strictly
// feasible; the coupling variable w of sdpxMaxCut is 0 at the optimum).
func sdpxMaxCutLMI(p *solver.Problem, r int) *solver.Problem {
	d := r * (r + 1) / 2
	t := sparse.NewTriplets(d, r, r)
	b := append([]float64(nil), p.Q[:d]...) // svec(C)
	for i := 0; i < r; i++ {
		t.Append(cone.SVecIndex(r, i, i), i, 1) // svec(C − Diag(y)) = b − A y
	}
	q := make([]float64, r)
	for i := range q {
		q[i] = -1
	}
	return &solver.Problem{Q: q, A: t.ToCSC(), B: b, Cones: []cone.Cone{cone.NewPSD(r)}}
}

// TestSdpxSmallOrderSolves solves max-cut relaxations over the matrices of
// orders 3–8 and checks the
// optimality conditions and the optimum against the LMI form (minus its
// optimum: an independent solve of the dual problem).
func TestSdpxSmallOrderSolves(t *testing.T) {
	for r := 3; r <= 8; r++ {
		p := sdpxMaxCut(rand.New(rand.NewPCG(uint64(r), 7)), r)
		sol := solveT(t, p, Settings{})
		lmi := solveT(t, sdpxMaxCutLMI(p, r), Settings{})
		if sol.Status != solver.Optimal || lmi.Status != solver.Optimal {
			t.Fatalf("order %d: status %v, LMI form %v", r, sol.Status, lmi.Status)
		}
		checkKKT(t, p, sol, 1e-7)
		if !close(sol.Objective, -lmi.Objective, 1e-7) {
			t.Errorf("order %d: objective %v, minus the LMI form's %v", r, sol.Objective, -lmi.Objective)
		}
	}
}

func BenchmarkSdpxVariants(b *testing.B) {
	vars := map[string]Settings{
		"base":     {},
		"norefine": {DisableRefinement: true},
		"nocorr":   {DisableCentralityCorrectors: true},
		"thr1":     {},
	}
	for _, r := range []int{5, 10} {
		p := sdpxMaxCut(rand.New(rand.NewPCG(uint64(r), 7)), r)
		for _, name := range []string{"base", "norefine", "nocorr", "thr1"} {
			b.Run(fmt.Sprintf("r=%d/%s", r, name), func(b *testing.B) {
				s, _ := NewWithSettings(vars[name])
				for b.Loop() {
					ss := solver.Settings{}
					if name == "thr1" {
						ss.Threads = 1
					}
					sol, err := s.Solve(context.Background(), p, ss)
					if err != nil || sol.Status != solver.Optimal {
						b.Fatalf("status %v, err %v", sol.Status, err)
					}
					b.ReportMetric(float64(sol.Iterations), "it")
				}
			})
		}
	}
}
