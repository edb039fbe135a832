// Command quickstart is the README's first model: a two-variable LP solved with
// HiGHS through the modelling DSL.
package main

import (
	"context"
	"fmt"

	"github.com/privopt/privopt/model"
)

func main() {
	// maximize 3x + 2y  s.t.  x + y ≤ 4,  x + 3y ≤ 6,  x ≤ 3,  x, y ≥ 0
	m := model.New("toy")
	x := m.Vector("x", 2)
	m.Bound(x, 0, 3) // 0 ≤ x_i ≤ 3
	m.LessEq("capacity", x.Expr().Sum(), model.Const(4))
	m.LessEq("labour", x.Expr().Dot([]float64{1, 3}), model.Const(6))
	m.Maximize(x.Expr().Dot([]float64{3, 2}))
	res, err := m.Solve(context.Background(), model.SolveOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Status, res.Objective, res.Value(x)) // optimal 11 [3 1]
}
