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
