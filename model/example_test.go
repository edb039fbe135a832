package model_test

import (
	"fmt"
	"math"

	"github.com/privopt/privopt/model"
)

// A small LP canonicalized into the standard form min qᵀx s.t. Ax + s = b,
// s ∈ K: two inequality rows and two bound rows share one nonnegative block.
func ExampleModel_Canonicalize() {
	m := model.New("diet")
	x := m.Vector("x", 2)
	m.Bound(x, 0, math.Inf(1))
	m.GreaterEq("protein", x.Expr().Dot([]float64{3, 1}), model.Const(6))
	m.LessEq("budget", x.Expr().Sum(), model.Const(10))
	m.Minimize(x.Expr().Dot([]float64{2, 1}))

	can, err := m.Canonicalize()
	if err != nil {
		fmt.Println(err)
		return
	}
	p := can.Problem
	fmt.Println("variables:", p.NumVars(), "rows:", p.NumRows(), "cones:", p.Cones)
	lo, hi := can.Rows(m.ConstraintByName("protein"))
	fmt.Println("protein rows:", lo, hi, "A-row:", p.A.Dense()[0], "b:", p.B[0])
	// Output:
	// variables: 2 rows: 4 cones: [nonnegative(4)]
	// protein rows: 0 1 A-row: [-3 -1] b: -6
}
