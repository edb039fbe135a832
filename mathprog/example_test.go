package mathprog_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/privopt/privopt/mathprog"
)

// Example reads a small QP in LP format, converts it to the standard form and
// writes it as MPS.
func Example() {
	m, err := mathprog.ReadLP(strings.NewReader(`Minimize
 obj: x + y + [ x ^ 2 + y ^ 2 ] / 2
Subject To
 c: x + y >= 1
End
`), mathprog.Limits{})
	if err != nil {
		fmt.Println(err)
		return
	}
	std, _ := m.Standard()
	p := std.Problem
	fmt.Println(m.ColNames, m.RowNames, p.NumVars(), "variables,", p.NumRows(), "standard-form rows")
	_ = mathprog.WriteMPS(os.Stdout, m)
	// Output:
	// [x y] [c] 2 variables, 3 standard-form rows
	// NAME privopt
	// ROWS
	//  N  obj
	//  G  c
	// COLUMNS
	//     x obj 1
	//     x c 1
	//     y obj 1
	//     y c 1
	// RHS
	//     RHS c 1
	// BOUNDS
	// QUADOBJ
	//     x x 1
	//     y y 1
	// ENDATA
}

// ExampleReadMPS reads a QPS file whose RHS vector is named "1" and that
// carries an objective constant on the objective row.
func ExampleReadMPS() {
	m, err := mathprog.ReadMPS(strings.NewReader(`NAME demo
ROWS
 N cost
 L lim
COLUMNS
    x cost -1 lim 1
RHS
    1 lim 4 cost 2.5
ENDATA
`), mathprog.Limits{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.RowUp, m.ObjConstant)
	// Output: [4] -2.5
}

// ExampleWriteLP reads a QPS file whose MPS names are not valid LP names and
// writes it as an LP file (names replaced as LPNames says; the ranged row,
// the bounds, the quadratic term and the objective constant kept).
func ExampleWriteLP() {
	m, err := mathprog.ReadMPS(strings.NewReader(`NAME demo
ROWS
 N cost
 L 000001
COLUMNS
    x-1 cost -1 000001 1
    y cost 2 000001 1
RHS
    RHS 000001 4 cost -3
RANGES
    RNG 000001 2
BOUNDS
 UP BND x-1 10
 MI BND y
QUADOBJ
    x-1 x-1 2
    x-1 y 0.5
ENDATA
`), mathprog.Limits{})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := mathprog.WriteLP(os.Stdout, m); err != nil {
		fmt.Println(err)
	}
	// Output:
	// \ demo
	// Minimize
	//  cost: - 1 _x_1 + 2 y
	//  + [ + 2 _x_1 ^ 2 + 1 _x_1 * y ] / 2
	//  + 3
	// Subject To
	//  _000001: 2 <= + 1 _x_1 + 1 y <= 4
	// Bounds
	//  0 <= _x_1 <= 10
	//  -inf <= y <= inf
	// End
}
