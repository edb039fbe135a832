package cbf_test

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/privopt/privopt/cbf"
	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/sparse"
)

// Read a second-order cone constraint (t, x − 1) ∈ Q and print the standard form.
func ExampleRead() {
	src := `VER
3
VAR
2 1
F 2
CON
2 1
Q 2
OBJACOORD
1
0 1
ACOORD
2
0 0 1
1 1 1
BCOORD
1
1 -1
`
	f, err := cbf.Read(strings.NewReader(src))
	if err != nil {
		fmt.Println(err)
		return
	}
	p := f.Problem
	fmt.Println("cones:", p.Cones)
	fmt.Println("A:", p.A.Dense())
	fmt.Println("b:", p.B, "q:", p.Q)

	_, err = cbf.Read(strings.NewReader("VER\n3\nVAR\n2 1\nQ 0\n"))
	fmt.Println(err)
	// Output:
	// cones: [second-order(2)]
	// A: [[-1 0] [0 -1]]
	// b: [0 -1] q: [1 0]
	// cbf: line 5: VAR: cone Q has dimension 0, must be ≥ 1
}

// Write an LP with an equality and an inequality row.
func ExampleWrite() {
	t := sparse.NewTriplets(2, 2, 3)
	t.Append(0, 0, 1)
	t.Append(0, 1, 1)
	t.Append(1, 0, -1)
	p := &solver.Problem{Q: []float64{1, 2}, A: t.ToCSC(), B: []float64{1, 0},
		Cones: []cone.Cone{cone.NewZero(1), cone.NewNonnegative(1)}}
	var buf bytes.Buffer
	if err := cbf.Write(&buf, p, nil); err != nil {
		fmt.Println(err)
		return
	}
	os.Stdout.Write(buf.Bytes())
	// Output:
	// VER
	// 3
	//
	// OBJSENSE
	// MIN
	//
	// VAR
	// 2 1
	// F 2
	//
	// CON
	// 2 2
	// L= 1
	// L+ 1
	//
	// OBJACOORD
	// 2
	// 0 1
	// 1 2
	//
	// ACOORD
	// 3
	// 0 0 -1
	// 1 0 1
	// 0 1 -1
	//
	// BCOORD
	// 1
	// 0 1
	//
}
