package ldl_test

import (
	"fmt"

	"github.com/privopt/privopt/internal/ldl"
	"github.com/privopt/privopt/sparse"
)

// A 3×3 quasi-definite KKT matrix K = [H Aᵀ; A −G] with H = diag(4, 2),
// A = [1 1], G = 1: analyze once, factor with the pivot signs, solve, and
// refactor for new values with the same pattern.
func Example() {
	t := sparse.NewTriplets(3, 3, 5)
	t.Append(0, 0, 4)
	t.Append(1, 1, 2)
	t.Append(2, 2, -1)
	t.Append(0, 2, 1)
	t.Append(1, 2, 1)
	k := t.ToCSC() // upper triangle with the diagonal

	sym, err := ldl.Analyze(k, ldl.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	f, err := sym.Factor(k, []int8{+1, +1, -1}, ldl.DefaultRegularization)
	if err != nil {
		fmt.Println(err)
		return
	}
	x := f.Solve(nil, []float64{1, 2, 3})
	fmt.Printf("x = [%.4f %.4f %.4f]\n", x[0], x[1], x[2])
	pos, neg, zero := f.Inertia()
	fmt.Println("inertia:", pos, neg, zero)

	k.Val[0] = 8 // H(0,0) changes, pattern stays
	if err := f.Refactor(k); err != nil {
		fmt.Println(err)
		return
	}
	x, steps := f.SolveRefine(x, []float64{1, 2, 3}, k, 3, 1e-12)
	fmt.Printf("x = [%.4f %.4f %.4f] after %d refinement steps\n", x[0], x[1], x[2], steps)
	// Output:
	// x = [0.5000 1.5000 -1.0000]
	// inertia: 2 1 0
	// x = [0.2692 1.5769 -1.1538] after 0 refinement steps
}

// AddScaled is the axpy dst += a·x with the rounding of the plain loop.
func ExampleAddScaled() {
	dst := []float64{1, 1, 1, 1, 1, 1, 1, 1, 1}
	x := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9}
	ldl.AddScaled(dst, 0.5, x)
	fmt.Println(dst)
	// Output:
	// [1.5 2 2.5 3 3.5 4 4.5 5 5.5]
}
