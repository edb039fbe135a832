package model_test

import (
	"context"
	"math"
	"testing"

	"github.com/privopt/privopt/model"
)

// TestDefaultRouteLPVertex: the default route of Model.Solve returns a
// basic solution of a small LP (HiGHS first, whatever the size): on
// min x₁ + x₂ s.t. x₁ + x₂ ≥ 1, x ≥ 0, whose optimal face is the segment
// from (1, 0) to (0, 1), one coordinate is 0 (the interior-point method
// would return (½, ½)), the objective is 1 and the constraint's dual 1.
func TestDefaultRouteLPVertex(t *testing.T) {
	m := model.New("tie")
	x := m.Vector("x", 2)
	m.Bound(x, 0, math.Inf(1))
	c := m.GreaterEq("cover", x.Expr().Sum(), model.Const(1))
	m.Minimize(x.Expr().Sum())
	res, err := m.Solve(context.Background(), model.SolveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	v := res.Value(x)
	if res.Status.String() != "optimal" || res.Solution.Solver != "highs" || math.Abs(res.Objective-1) > 1e-9 ||
		math.Min(math.Abs(v[0]), math.Abs(v[1])) > 1e-12 || math.Abs(math.Abs(res.Dual(c)[0])-1) > 1e-9 {
		t.Errorf("%v by %s, objective %v, x %v, dual %v; want optimal 1 by highs at a vertex with dual 1", res.Status, res.Solution.Solver, res.Objective, v, res.Dual(c))
	}
}
