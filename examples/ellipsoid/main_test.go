package main

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/privopt/privopt/model"
)

// At γ = 2.5% (the paper's lower panel of Figure 4.4): program perturbation's
// released ellipsoids — centre and shape perturbed — stay inside the polytope
// in all but ≤ η of the draws (the vertex method's guarantee, with confidence
// 1 − β; 5 standard errors of slack) at a smaller mean area; output
// perturbation's maximal ellipsoid, which touches the faces, leaves it in
// almost every draw.
func TestEllipsoidAcceptance(t *testing.T) {
	const draws, eta = 20000, 0.1
	lines, err := run(context.Background(), draws, filepath.Join(t.TempDir(), "e"), []float64{0.025})
	if err != nil {
		t.Fatal(err)
	}
	out, prog := lines[0], lines[1]
	if out.violation < 0.9 {
		t.Fatalf("output perturbation leaves the polytope in only %v", out.violation)
	}
	if math.Abs(out.area-1) > 0.01 {
		t.Fatalf("output perturbation's mean area ratio %v, want ≈ 1 (zero-mean noise)", out.area)
	}
	if prog.violation > eta+5*math.Sqrt(eta*(1-eta)/draws) {
		t.Fatalf("program perturbation leaves the polytope in %v > η", prog.violation)
	}
	if !(prog.area > 0.05 && prog.area < 1) {
		t.Fatalf("program ellipsoid area ratio %v", prog.area)
	}
	if !(prog.sens > 0 && out.sens > 0) || prog.samples != 179 {
		t.Fatalf("sensitivities %v, %v, samples %d (want Prop. 3.3's 179 for 5 components, the paper's count)", prog.sens, out.sens, prog.samples)
	}
}

// The model is the max-volume ellipsoid of a square [−1, 1]², the unit disc:
// B = I, c = 0.
func TestBuildSquare(t *testing.T) {
	p := polytope{a: [][2]float64{{1, 0}, {0, 1}, {-1, 0}, {0, -1}}, b: []float64{1, 1, 1, 1}}
	m, B, c := build(p)
	res, err := m.Solve(context.Background(), model.SolveOptions{})
	if err != nil || !res.Status.OK() {
		t.Fatal(err, res)
	}
	want := []float64{1, 0, 0, 1}
	for i, v := range res.Value(B) {
		if math.Abs(v-want[i]) > 1e-6 {
			t.Fatalf("B = %v, want I", res.Value(B))
		}
	}
	for _, v := range res.Value(c) {
		if math.Abs(v) > 1e-6 {
			t.Fatalf("c = %v, want 0", res.Value(c))
		}
	}
	if math.Abs(res.Objective) > 1e-6 {
		t.Fatalf("log det = %v, want 0", res.Objective)
	}
}
