package model_test

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

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

// The Wyndor Glass LP (Hillier & Lieberman): maximize profit 3x₁ + 5x₂ subject
// to three plant capacities; the duals are the shadow prices of the capacities.
func ExampleModel_Solve() {
	m := model.New("wyndor")
	x := m.Vector("batches", 2)
	m.Bound(x, 0, math.Inf(1))
	plant1 := m.LessEq("plant1", x.At(0), model.Const(4))
	plant2 := m.LessEq("plant2", x.At(1).Scale(2), model.Const(12))
	plant3 := m.LessEq("plant3", x.Expr().Dot([]float64{3, 2}), model.Const(18))
	m.Maximize(x.Expr().Dot([]float64{3, 5}))

	res, err := m.Solve(context.Background(), model.SolveOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("status:", res.Status)
	fmt.Printf("profit: %.4g\n", res.Objective)
	fmt.Printf("batches: %.4g\n", res.Value(x))
	for _, c := range []*model.Constraint{plant1, plant2, plant3} {
		fmt.Printf("shadow price of %s: %.4g\n", c.Name(), res.Dual(c)[0])
	}
	// Output:
	// status: optimal
	// profit: 36
	// batches: [2 6]
	// shadow price of plant1: 0
	// shadow price of plant2: 1.5
	// shadow price of plant3: 1
}

// A small Markowitz portfolio QP: minimize risk xᵀΣx minus expected return
// μᵀx on a fully invested, long-only portfolio. The bounds are inactive, so
// the weights solve the KKT system 2Σx − μ + λ1 = 0, 1ᵀx = 1 exactly:
// x = (0.3, 1/3, 11/30), objective −0.061333….
func ExampleQuadForm() {
	sigma := mat.NewSymDense(3, []float64{
		0.04, 0.01, 0.00,
		0.01, 0.09, 0.02,
		0.00, 0.02, 0.16,
	})
	mu := []float64{0.05, 0.10, 0.15}

	m := model.New("portfolio")
	x := m.Vector("weights", 3)
	m.Bound(x, 0, 1)
	m.Equal("budget", x.Expr().Sum(), model.Const(1))
	m.Minimize(x.Expr().Dot(mu).Neg(), model.QuadForm(x.Expr(), sigma))

	res, err := m.Solve(context.Background(), model.SolveOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("status:", res.Status)
	fmt.Printf("weights: %.3f\n", res.Value(x))
	fmt.Printf("objective: %.5f\n", res.Objective)
	// Output:
	// status: optimal
	// weights: [0.300 0.333 0.367]
	// objective: -0.06133
}

// ExprBuilder assembles the node balance of a 3-node network with flows on
// three lines: Σ inflow − Σ outflow = demand, one row per node.
func ExampleExprBuilder() {
	lines := []struct{ from, to int }{{0, 1}, {1, 2}, {0, 2}}
	m := model.New("network")
	flow := m.Vector("flow", len(lines))
	b := model.NewExprBuilder(3)
	for k, l := range lines {
		b.AddVar(l.from, flow, k, -1)
		b.AddVar(l.to, flow, k, +1)
	}
	balance := m.Equal("balance", b.Expr(), model.Const(-3, 1, 2))

	can, err := m.Canonicalize()
	if err != nil {
		fmt.Println(err)
		return
	}
	lo, hi := can.Rows(balance)
	for i := lo; i < hi; i++ {
		fmt.Println(can.Problem.A.Dense()[i], "=", can.Problem.B[i])
	}
	// Output:
	// [-1 0 -1] = -3
	// [1 -1 0] = 1
	// [0 1 1] = 2
}

// The Euclidean projection of (3, 4) onto the half-plane x₁ + x₂ ≤ 1 as a
// second-order cone program: minimize t subject to ‖x − (3, 4)‖ ≤ t. The
// answer, by hand: x = (3, 4) − 3·(1, 1) = (0, 1) at distance 3√2.
func ExampleModel_NormLessEq() {
	m := model.New("projection")
	x := m.Vector("x", 2)
	t := m.Scalar("t")
	m.NormLessEq("distance", x.Expr().Sub(model.Const(3, 4)), t.Expr())
	m.LessEq("halfplane", x.Expr().Sum(), model.Const(1))
	m.Minimize(t.Expr())

	res, err := m.Solve(context.Background(), model.SolveOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	round := func(v float64) float64 { return math.Round(v*1e4)/1e4 + 0 }
	xv := res.Value(x)
	fmt.Println("status:", res.Status, "solver:", res.Solution.Solver)
	fmt.Println("x:", round(xv[0]), round(xv[1]))
	fmt.Println("distance:", round(res.Objective), "3√2:", round(3*math.Sqrt2))
	// Output:
	// status: optimal solver: ipm
	// x: 0 1
	// distance: 4.2426 3√2: 4.2426
}
