package main

import (
	"context"
	"math"
	"path/filepath"
	"testing"
)

// Program perturbation's released ellipsoids stay inside the polytope in all
// but ≤ η of 10⁵ draws (the vertex method's guarantee, with confidence
// 1 − β; 5 standard errors of slack); output perturbation's maximal
// ellipsoid, which touches the faces, leaves it in almost every draw.
func TestEllipsoidAcceptance(t *testing.T) {
	const draws, eta = 100000, 0.05
	lines, err := run(context.Background(), draws, filepath.Join(t.TempDir(), "e.svg"))
	if err != nil {
		t.Fatal(err)
	}
	out, prog := lines[0], lines[1]
	if out.violation < 0.9 {
		t.Fatalf("output perturbation leaves the polytope in only %v", out.violation)
	}
	if prog.violation > eta+5*math.Sqrt(eta*(1-eta)/draws) {
		t.Fatalf("program perturbation leaves the polytope in %v > η", prog.violation)
	}
	if !(prog.area > 0.05 && prog.area < 1) {
		t.Fatalf("program ellipsoid area ratio %v", prog.area)
	}
}
