package model_test

import (
	"context"
	"fmt"

	"github.com/privopt/privopt/model"
)

// A robust least-deviation fit written with atoms: minimize ‖Ax − b‖₁ +
// ‖x‖₂ subject to x ≥ 0; and the DCP error of a non-convex objective.
func ExampleNorm1() {
	m := model.New("fit")
	x := m.Vector("x", 2)
	m.GreaterEq("nonneg", x.Expr(), model.Const(0))
	r := x.Expr().Sum().Sub(model.Const(1, 2, 3)) // residuals x₁ + x₂ − bᵢ
	m.MinimizeFn(model.Norm1(r).Add(model.Norm2(x)))
	res, err := m.Solve(context.Background(), model.SolveOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%v %.4f\n", res.Status, res.Objective)

	bad := model.New("bad")
	y := bad.Vector("y", 2)
	bad.MaximizeFn(model.Norm2(y))
	fmt.Println(bad.Err())
	// Output:
	// optimal 3.4142
	// model: non-convex: not DCP: Maximize(Norm2(y)): maximizing a convex expression is not DCP
}

// A model built once with a parameter and re-solved for new values: the
// right-hand side of a budget constraint.
func ExampleModel_Prepare() {
	m := model.New("budget")
	x := m.Vector("x", 2)
	m.Bound(x, 0, 10)
	budget := m.Parameter("budget", 4)
	m.LessEq("cap", x.Expr().Sum(), budget.Expr())
	m.Maximize(x.Expr().Dot([]float64{3, 2}))
	prep, err := m.Prepare(model.SolveOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer prep.Close()
	for _, b := range []float64{4, 12, 25} {
		if err := prep.SetParam(budget, b); err != nil {
			fmt.Println(err)
			return
		}
		res, err := prep.Solve(context.Background())
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("budget %g: profit %g, x = %g\n", b, res.Objective, res.Value(x))
	}
	// Output:
	// budget 4: profit 12, x = [4 0]
	// budget 12: profit 34, x = [10 2]
	// budget 25: profit 50, x = [10 10]
}
