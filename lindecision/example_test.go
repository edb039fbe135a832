package lindecision_test

import (
	"fmt"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/lindecision"
	"github.com/privopt/privopt/noise"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/sparse"
)

// Lift x0 + x1 = 3 with a private release of x0: the identity query fixes X0 = 1
// and Remark 3.5 turns the equality into x̄0 + x̄1 = 3 and X00 + X10 = 0.
func ExampleLift() {
	a := sparse.NewTriplets(1, 2, 2)
	a.Append(0, 0, 1)
	a.Append(0, 1, 1)
	p := &solver.Problem{Q: []float64{1, 2}, A: a.ToCSC(), B: []float64{3}, Cones: []cone.Cone{cone.NewZero(1)}}
	lap, _ := noise.NewLaplace(1)
	l, err := lindecision.Lift(p, lindecision.Spec{
		Noise: lindecision.Perturbation{Components: []lindecision.Distribution{lap}},
		Query: []lindecision.SparseVector{{Idx: []int{0}, Val: []float64{1}}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("lifted variables:", l.NumVars(), "(x̄0, x̄1, X10)")
	for e := 0; e < l.NumEqualities(); e++ {
		f, row := l.Equality(e)
		fmt.Printf("row %d: %g + %v·v[%v] = 0\n", row, f.Const, f.Val, f.Idx)
	}
	s := l.Slack(0)
	fmt.Printf("random slack: F0 = %g %v·v%v, F[0] = %g %v·v%v\n", s.F0.Const, s.F0.Val, s.F0.Idx, s.F[0].Const, s.F[0].Val, s.F[0].Idx)
	// Output:
	// lifted variables: 3 (x̄0, x̄1, X10)
	// row 0: 3 + [-1 -1]·v[[0 1]] = 0
	// row 0: -1 + [-1]·v[[2]] = 0
	// random slack: F0 = 3 [-1 -1]·v[0 1], F[0] = -1 [-1]·v[2]
}
